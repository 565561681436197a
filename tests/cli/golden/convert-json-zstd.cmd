convert tests/trace/data/encodings/tiny-map.b64-zstd.json -o - --layer-bpp=Front:8 --name=tiny-map --source=golden
