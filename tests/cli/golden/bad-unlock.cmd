replay tests/cli/data/bad-unlock.json --allocator=tree
