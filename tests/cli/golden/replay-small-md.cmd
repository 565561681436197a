replay tests/cli/data/small.json --format=md
