replay tests/cli/data/trailing-dot.json
