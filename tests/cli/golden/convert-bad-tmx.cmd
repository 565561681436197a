convert tests/cli/data/bad-layer.tmx -o -
