replay tests/cli/data/bad-sync.json --allocator=stack2
