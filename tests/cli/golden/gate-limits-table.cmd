bench tests/cli/data/small.json tests/cli/data/pal-small.json --allocator=tree -j 1 --baseline tests/cli/data/gate-small-old.json --limit 'small:tree:min_arena_bytes<=1024'
