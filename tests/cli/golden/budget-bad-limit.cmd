budget game.elf --limit 'stack.peak=<6144'
