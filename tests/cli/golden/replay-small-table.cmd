replay tests/cli/data/small.json
