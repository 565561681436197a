convert --caller-exclude=0x10-0x2z tests/cli/data/no-such.mtrace -o -
