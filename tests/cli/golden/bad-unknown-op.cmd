replay tests/cli/data/bad-unknown-op.json
