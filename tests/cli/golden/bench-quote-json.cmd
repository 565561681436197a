bench tests/cli/data/quote-name.json --allocator=tree,firstfit --format=json
