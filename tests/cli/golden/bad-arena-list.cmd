bench tests/cli/data/cache-small.json --arena-bytes=8K,,16K
