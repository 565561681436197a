#!/usr/bin/env python3
"""Issue 35 item 2: what a small or big input can make agbsim hold is bounded.
 - a 20 MB trace of ignored metadata (a top-level member; an event's options object): replay
   peaks within 2x the file + 64 MiB (the loader cuts ignored values out before cJSON; it kept
   them in its tree: 864 MB);
 - a Tiled map bomb (32 zlib layers of 2^24 zero cells, 2.8 MB): refused with FILE:LINE:COL
   before the layers are allocated (agbsim's caps: 64 layers, 2^23 cells in all), peak within
   64 MiB + 2x the file (it peaked at 1.17 GiB);
 - a tileset bomb (a 1-bit 8192x4096 PNG of a few KB named by 8 tilesets): decoded once, within
   the 2^25-pixel budget of a map's images, peak within 128 MiB + 64 MiB + 2x the map
   (decoded once per tileset: 1.04 GiB);
 - a text-chunk bomb (a 64x64 PNG whose tEXt chunk declares 1 GiB and is cut at the end of the
   file): refused with the map's FILE:LINE:COL, peak within 64 MiB (libpng allocated what the
   chunk declared: 1.09 GB).
Each run's peak resident memory (ru_maxrss of a child process) is printed and checked against
its bound; nothing is timed.

usage: input_memory.py AGBSIM WORK_DIR
"""
import base64
import os
import struct
import subprocess
import sys
import zlib

MIB = 1024 * 1024


def peak_rss(cmd):
    probe = ("import resource,subprocess,sys;"
             "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.PIPE);"
             "sys.stderr.buffer.write(r.stderr);"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss*1024, r.returncode)")
    r = subprocess.run([sys.executable, "-c", probe] + cmd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    peak, rc = r.stdout.split()
    return int(peak), int(rc), r.stderr


def metadata_trace(path, where):
    n = 10 * 1000 * 1000  # "0," x 10 M: 20 MB
    with open(path, "w") as f:
        if where == "member":
            f.write('{"version":1,"arena":"ewram","meta":[')
            f.write("0," * (n - 1) + "0")
            f.write('],"events":[["alloc",1,16],["frame"],["free",1]]}\n')
        else:
            f.write('{"version":1,"arena":"ewram","events":[["alloc",1,16,{"meta":[')
            f.write("0," * (n - 1) + "0")
            f.write(']}],["frame"],["free",1]]}\n')


def map_bomb(path):
    side = 4096  # 2^24 cells a layer
    data = base64.b64encode(zlib.compress(bytes(4 * side * side), 9)).decode()
    layers = ",".join('{"type":"tilelayer","name":"L%d","width":%d,"height":%d,'
                      '"encoding":"base64","compression":"zlib","data":"%s"}'
                      % (i, side, side, data) for i in range(32))
    with open(path, "w") as f:
        f.write('{"type":"map","orientation":"orthogonal","infinite":false,"width":%d,'
                '"height":%d,"tilewidth":8,"tileheight":8,"layers":[%s],"tilesets":[]}\n'
                % (side, side, layers))


def chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def png_1bit(path, w, h, declared_text=0):
    raw = (b"\0" + bytes(w // 8)) * h
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0))
    with open(path, "wb") as f:
        if declared_text:  # a tEXt chunk header declaring that much, then the file ends
            f.write(b"\x89PNG\r\n\x1a\n" + ihdr + struct.pack(">I", declared_text) + b"tEXt"
                    + b"Comment\0" + bytes(4096))
            return
        f.write(b"\x89PNG\r\n\x1a\n" + ihdr
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def tileset_bomb(path, image, w=8192, h=4096, sets_n=8, declared_text=0):
    png_1bit(image, w, h, declared_text)
    per = (w // 8) * (h // 8)
    sets = ",".join('{"firstgid":%d,"name":"s%d","image":"%s","imagewidth":%d,"imageheight":%d,'
                    '"tilewidth":8,"tileheight":8,"margin":0,"spacing":0,"columns":%d,'
                    '"tilecount":%d}' % (1 + i * per, i, os.path.basename(image), w, h, w // 8, per)
                    for i in range(sets_n))
    cells = [1 + i * per + i for i in range(sets_n)] * (64 // sets_n)
    with open(path, "w") as f:
        f.write('{"type":"map","orientation":"orthogonal","infinite":false,"width":8,"height":8,'
                '"tilewidth":8,"tileheight":8,"layers":[{"type":"tilelayer","name":"L",'
                '"width":8,"height":8,"data":%s}],"tilesets":[%s]}\n'
                % (str(cells).replace(" ", ""), sets))


def main():
    agbsim, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ok = True

    def check(what, cmd, path, bound, want_rc, want_err=""):
        nonlocal ok
        peak, rc, err = peak_rss(cmd)
        size = os.path.getsize(path)
        print("%s: %.1f MB file, exit %d, peak RSS %.1f MB, bound %.1f MB"
              % (what, size / 1e6, rc, peak / 1e6, bound / 1e6))
        if rc != want_rc or want_err not in err:
            print("FAIL: %s: exit %d (want %d), stderr: %s" % (what, rc, want_rc, err.strip()[:300]))
            ok = False
        if peak > bound:
            print("FAIL: %s: peak over the bound" % what)
            ok = False

    for where in ("member", "options"):
        path = os.path.join(work, "metadata-%s.json" % where)
        metadata_trace(path, where)
        size = os.path.getsize(path)
        check("20 MB of ignored metadata (%s)" % where, [agbsim, "replay", path], path,
              2 * size + 64 * MIB, 0)
        os.remove(path)
    path = os.path.join(work, "map-bomb.json")
    map_bomb(path)
    check("map bomb (32 layers x 2^24 cells)",
          [agbsim, "convert", "--from", "tiled", path, "-o", os.path.join(work, "out.json")],
          path, 2 * os.path.getsize(path) + 64 * MIB, 2, "map-bomb.json:1:")
    os.remove(path)
    path = os.path.join(work, "tileset-bomb.json")
    tileset_bomb(path, os.path.join(work, "bomb.png"))
    check("tileset bomb (8 tilesets, one 8192x4096 1-bit PNG)",
          [agbsim, "convert", "--from", "tiled", path, "-o", os.path.join(work, "out.json")],
          path, 128 * MIB + 64 * MIB + 2 * os.path.getsize(path), 0)
    path = os.path.join(work, "text-bomb.json")
    tileset_bomb(path, os.path.join(work, "text-bomb.png"), 64, 64, 1, 1 << 30)
    check("text-chunk bomb (a 64x64 PNG whose tEXt declares 1 GiB)",
          [agbsim, "convert", "--from", "tiled", path, "--dedup", "-o",
           os.path.join(work, "out.json")],
          path, 64 * MIB, 2, "text-bomb.json:1:")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
