replay tests/cli/data/small.json --allocator=nope
