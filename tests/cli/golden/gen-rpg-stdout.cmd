gen rpg --seed 7 --frames 30 -o -
