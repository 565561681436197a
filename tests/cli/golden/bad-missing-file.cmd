replay tests/cli/data/does-not-exist.json
