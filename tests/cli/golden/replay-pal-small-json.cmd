replay tests/cli/data/pal-small.json --allocator=palstack --format=json
