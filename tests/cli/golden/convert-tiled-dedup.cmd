convert --from tiled tests/cli/data/dedup-map.json --name=dedup-map -o -
