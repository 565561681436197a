replay tests/cli/data/quote-name.json --format=json
