replay tests/cli/data/bad-frame-kind.json
