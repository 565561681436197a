convert tests/trace/data/encodings/tiny-map.infinite.tmx -o - --layer-bpp=Front:8 --name=tiny-map --source=golden
