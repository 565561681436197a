replay tests/cli/data/cache-sprites-small.json --allocator=obj-fast --arena-bytes=8192 --format=json --no-min-arena
