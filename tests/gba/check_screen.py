#!/usr/bin/env python3
"""check_screen.py PNG — the bench ROM's frame shows a memory map: the map rows (y 18..113, see
src/gba/roms/bench.c) are not blank (some non-black pixels, at least two colours: used and free), and
the figures area below has text. Stdlib only: decodes 8-bit RGB PNGs (what the runner writes)."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype != 2:
                raise SystemExit(f"{path}: expected 8-bit RGB, got depth {depth} type {ctype}")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, bpp, stride = zlib.decompress(idat), 3, w * 3
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows


def main():
    w, h, rows = read_png(sys.argv[1])
    if (w, h) != (240, 160):
        raise SystemExit(f"unexpected frame size {w}x{h}")
    colours, lit = set(), 0
    for y in range(18, 114):
        for x in range(w):
            px = rows[y][3 * x:3 * x + 3]
            colours.add(px)
            lit += px != b"\x00\x00\x00"
    text = sum(rows[y][i] != 0 for y in range(118, 160) for i in range(w * 3))
    print(f"map area: {lit} lit pixels, {len(colours)} colours; figures area: {text} lit bytes")
    if lit < 240 or len(colours) < 2:
        raise SystemExit("FAIL: the memory map area is blank")
    if text == 0:
        raise SystemExit("FAIL: no figures drawn")


main()
