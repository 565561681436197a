replay tests/cli/data/cache-small.json --load-cost=fast
