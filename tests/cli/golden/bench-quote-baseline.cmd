bench tests/cli/data/quote-name.json --allocator=tree,firstfit --baseline tests/cli/data/quote-name-baseline.json --diff-out=-
