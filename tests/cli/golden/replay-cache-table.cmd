replay tests/cli/data/cache-small.json --allocator=tree --arena-bytes=16384 --load-cost=lz77 --thrash-window=30
