budget game.elf --frames 0
