replay tests/cli/data/nul-name.json
