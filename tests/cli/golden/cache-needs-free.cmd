replay tests/cli/data/cache-small.json --allocator=bump
