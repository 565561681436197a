bench tests/cli/data/cache-small.json --plot=/tmp/x.png
