budget tests/cli/data/bad-cache-size.json
