view tests/cli/data/no-frames.json --at frame:1 --snapshot=/dev/null
