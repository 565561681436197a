replay tests/cli/data/bad-cache-size.json --allocator=obj-fast
