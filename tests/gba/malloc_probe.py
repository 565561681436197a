#!/usr/bin/env python3
"""The drop-in heap against newlib's malloc (src/gba/roms/malloc_probe.c, one object, two links).

usage: malloc_probe.py AGB_MGBA_RUN NEWLIB.gba DROPIN.gba [DROPIN2.gba ...]

Passes when each drop-in ROM prints every check as held, its largest block from a fresh heap
is at least newlib's and its fill of 100 B-64 KiB blocks gets its first refusal no earlier."""
import re
import subprocess
import sys


def run(runner, rom):
    p = subprocess.run([runner, rom, "--frames", "600"], capture_output=True, text=True, timeout=120)
    lines = [l[len("[gba] "):] for l in p.stderr.splitlines() if l.startswith("[gba] ")]
    return p.returncode, lines


def field(lines, key):
    for l in lines:
        m = re.match(key + r" (\d+)(?: (\d+))?$", l)
        if m:
            return int(m.group(1)), int(m.group(2) or 0)
    sys.exit(f"no '{key}' line in {lines}")


def main():
    runner, newlib, dropins = sys.argv[1], sys.argv[2], sys.argv[3:]
    rc, nl = run(runner, newlib)
    n_largest, _ = field(nl, "largest")
    n_fill, n_bytes = field(nl, "fill")
    print(f"newlib: largest {n_largest}, first refusal after {n_fill} blocks ({n_bytes} bytes)")
    ok = True
    for rom in dropins:
        rc, dl = run(runner, rom)
        largest, _ = field(dl, "largest")
        fill, nbytes = field(dl, "fill")
        print(f"{rom}: largest {largest}, first refusal after {fill} blocks ({nbytes} bytes)")
        for want in ("errno ENOMEM", "calloc overflow refused", "checks ok"):
            if want not in dl:
                print(f"  missing '{want}': {dl}")
                ok = False
        if rc != 0:
            print(f"  exit status {rc}")
            ok = False
        if largest < n_largest:
            print(f"  largest block {largest} < newlib's {n_largest}")
            ok = False
        if fill < n_fill:
            print(f"  first refusal after {fill} blocks, newlib's after {n_fill}")
            ok = False
    sys.exit(0 if ok else 1)


main()
