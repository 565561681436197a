convert --from tiled tests/cli/data/dedup-no-image.json -o /dev/null
