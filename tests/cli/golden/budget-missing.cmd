budget tests/cli/data/no-such-game.elf
