replay tests/cli/data/sections-small.json --allocator=stack2 --load-rate=128
