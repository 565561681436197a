replay tests/cli/data/leading-zero.json
