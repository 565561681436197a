bench tests/cli/data/small.json --allocator=tree -j 1 --baseline tests/cli/data/gate-small.json --limit 'min_arena<=16384'
