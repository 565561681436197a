#!/usr/bin/env python3
"""make.py: writes the tiny map (../tiny-map.json) in every way Tiled saves a map, for
test_tiled's check that each converts to the same trace: JSON with base64 layers (plain, zlib,
gzip, zstd), an infinite JSON map (chunks, some at negative x), TMX with CSV, base64+zlib and
<tile> layers and an external .tsx tileset, an infinite TMX map, and a JSON map naming an
external .tsj tileset. Needs the zstd command. Run from this directory; the output is committed."""
import base64, gzip, json, struct, subprocess, zlib

src = json.load(open("../tiny-map.json"))
W, H = src["width"], src["height"]
layers = []  # (name, gids) in document order, groups entered


def walk(ls):
    for l in ls:
        if l["type"] == "group":
            walk(l["layers"])
        elif l["type"] == "tilelayer":
            layers.append((l["name"], l["data"]))


walk(src["layers"])
TILESET = {"firstgid": 1, "name": "tiny", "tilewidth": 16, "tileheight": 16, "columns": 4,
           "tilecount": 8, "margin": 0, "spacing": 0, "image": "tiny.png"}


def raw(gids):
    return struct.pack("<%dI" % len(gids), *gids)


def packed(gids, comp):
    b = raw(gids)
    if comp == "zlib":
        b = zlib.compress(b)
    elif comp == "gzip":
        b = gzip.compress(b, mtime=0)
    elif comp == "zstd":
        b = subprocess.run(["zstd", "-q", "-c", "-19"], input=b, capture_output=True, check=True).stdout
    return base64.b64encode(b).decode()


def json_map(layer_objs, infinite=False, tilesets=None):
    m = {"compressionlevel": -1, "height": H, "width": W, "tilewidth": 16, "tileheight": 16,
         "infinite": infinite, "orientation": "orthogonal", "renderorder": "right-down",
         "type": "map", "version": "1.10", "tiledversion": "1.10.2",
         "tilesets": tilesets or [TILESET],
         "layers": [{"id": 1, "name": "Sky", "type": "group", "layers": layer_objs},
                    {"id": 9, "name": "Things", "type": "objectgroup", "objects": []}]}
    return json.dumps(m, indent=1) + "\n"


for comp in ("", "zlib", "gzip", "zstd"):
    objs = [{"id": i + 2, "name": n, "type": "tilelayer", "width": W, "height": H, "x": 0, "y": 0,
             "encoding": "base64", **({"compression": comp} if comp else {}), "data": packed(g, comp)}
            for i, (n, g) in enumerate(layers)]
    open("tiny-map.b64%s.json" % ("-" + comp if comp else ""), "w").write(json_map(objs))


def chunks(gids, x0, widths):
    out, x = [], 0
    for w in widths:
        cg = [gids[r * W + x + c] for r in range(H) for c in range(w)]
        out.append((x0 + x, 0, w, cg))
        x += w
    return out


# Infinite: chunks of 16 and 4 columns starting at x = -8 (the map moves, its cells do not).
objs = []
for i, (n, g) in enumerate(layers):
    cs = chunks(g, -8, [16, 4])
    objs.append({"id": i + 2, "name": n, "type": "tilelayer", "startx": -8, "starty": 0, "width": W,
                 "height": H, "x": 0, "y": 0, "encoding": "base64", "compression": "zlib",
                 "chunks": [{"x": x, "y": y, "width": w, "height": H, "data": packed(cg, "zlib")}
                            for (x, y, w, cg) in cs]})
open("tiny-map.infinite.json", "w").write(json_map(objs, infinite=True))

# External JSON tileset.
open("tiny.tsj", "w").write(json.dumps({**{k: v for k, v in TILESET.items() if k != "firstgid"},
                                        "type": "tileset"}, indent=1) + "\n")
objs = [{"id": i + 2, "name": n, "type": "tilelayer", "width": W, "height": H, "x": 0, "y": 0,
         "data": g} for i, (n, g) in enumerate(layers)]
open("tiny-map.tsj.json", "w").write(json_map(objs, tilesets=[{"firstgid": 1, "source": "tiny.tsj"}]))

# TMX, with an external .tsx tileset.
open("tiny.tsx", "w").write(
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<tileset version="1.10" tiledversion="1.10.2" name="tiny" tilewidth="16" tileheight="16" '
    'tilecount="8" columns="4">\n <image source="tiny.png" width="64" height="32"/>\n</tileset>\n')


def tmx(body_for_layer, infinite=False):
    s = ['<?xml version="1.0" encoding="UTF-8"?>',
         '<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" '
         'width="%d" height="%d" tilewidth="16" tileheight="16" infinite="%d" nextlayerid="10" '
         'nextobjectid="1">' % (W, H, 1 if infinite else 0),
         ' <tileset firstgid="1" source="tiny.tsx"/>',
         ' <group id="1" name="Sky">']
    for i, (n, g) in enumerate(layers):
        s.append('  <layer id="%d" name="%s" width="%d" height="%d">' % (i + 2, n, W, H))
        s.append(body_for_layer(g))
        s.append('  </layer>')
    s += [' </group>', ' <objectgroup id="9" name="Things"/>', '</map>', '']
    return "\n".join(s)


def csv_rows(g, w, h):
    return ",\n".join(",".join(str(v) for v in g[r * w:(r + 1) * w]) for r in range(h))


open("tiny-map.csv.tmx", "w").write(tmx(lambda g: '   <data encoding="csv">\n' + csv_rows(g, W, H) + '\n</data>'))
open("tiny-map.b64-zlib.tmx", "w").write(
    tmx(lambda g: '   <data encoding="base64" compression="zlib">\n   %s\n   </data>' % packed(g, "zlib")))
open("tiny-map.xml.tmx", "w").write(
    tmx(lambda g: '   <data>\n' + "\n".join('    <tile gid="%d"/>' % v if v else '    <tile/>' for v in g) + '\n   </data>'))
open("tiny-map.infinite.tmx", "w").write(tmx(lambda g: '   <data encoding="csv">\n' + "\n".join(
    '    <chunk x="%d" y="%d" width="%d" height="%d">\n%s\n    </chunk>' % (x, y, w, H, csv_rows(cg, w, H))
    for (x, y, w, cg) in chunks(g, -8, [16, 4])) + '\n   </data>', infinite=True))
