bench tests/cli/data/small.json --allocator=tree -j 1 --baseline tests/cli/data/gate-bench-version-huge.json
