replay tests/cli/data/small.json --events-out=- --no-min-arena --format=json
