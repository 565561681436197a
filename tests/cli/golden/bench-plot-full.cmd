bench tests/cli/data/cache-small.json --arena-bytes=8K --plot=/dev/full --no-min-arena
