bench tests/cli/data/cache-small.json tests/cli/data/cache-sprites-small.json --allocator=tree,obj-fast --cache=lru --arena-bytes=4K,8K,16K --no-min-arena -j1
