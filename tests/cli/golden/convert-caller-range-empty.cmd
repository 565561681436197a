convert --caller-include=0x10-0x1 tests/cli/data/no-such.mtrace -o -
