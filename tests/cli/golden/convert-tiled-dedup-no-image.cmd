convert --from tiled tests/cli/data/dedup-no-image.json --dedup -o -
