replay tests/cli/data/loading-frames.json --allocator=tree
