#!/usr/bin/env python3
"""Compares a trace `agbsim record` made of agbsim-record-game.gba with the game's own log.

    record_check.py heap|obj|bg TRACE.json GAME.log

The game (src/gba/roms/record_game.c) logs, through mGBA's debug registers, every allocator call with
its result, every OBJ VRAM block its own manager hands out or takes back, every screen-map cell
that enters or leaves the view (ROM tile numbers, with each tile's FNV-1a 64 hash), and a
"rec frame" line before each VBlank wait. This script turns that log into the events the trace
must hold, with the trace format's rules (docs/trace-format.md, docs/recording.md), and demands
the very same event list. Exit 0 when equal, 1 otherwise (the first difference is printed).
"""
import json
import sys


def fail(msg):
    print("record_check: FAIL: " + msg)
    sys.exit(1)


def heap_events(lines):
    """Allocator calls -> alloc/realloc/free with ids 1, 2, ... in the order blocks appear."""
    out, live, next_id = [], {}, [1]

    def alloc(size, addr, align=1):
        i = next_id[0]
        next_id[0] += 1
        out.append(["alloc", i, max(size, 1)] + ([align] if align > 1 else []))
        live[addr] = i

    for w in lines:
        op = w[1]
        if op == "frame":
            out.append(["frame"])
        elif op == "malloc":
            n, p = int(w[2]), int(w[3], 16)
            if p:
                alloc(n, p)
        elif op == "calloc":
            n, p = int(w[2]) * int(w[3]), int(w[4], 16)
            if p:
                alloc(n, p)
        elif op == "memalign":
            a, n, p = int(w[2]), int(w[3]), int(w[4], 16)
            if p:
                alloc(n, p, a)
        elif op == "realloc":
            old, n, p = int(w[2], 16), int(w[3]), int(w[4], 16)
            if old == 0:
                if p:
                    alloc(n, p)
            elif p:
                i = live.pop(old)
                out.append(["realloc", i, max(n, 1)])
                live[p] = i
            elif n == 0:
                out.append(["free", live.pop(old)])
        elif op == "free":
            p = int(w[2], 16)
            if p:
                out.append(["free", live.pop(p)])
    return out


def obj_events(lines):
    """The game's OBJ block manager -> alloc (bytes, 64-byte alignment at 8bpp) / free."""
    out, live, next_id = [], {}, 1
    for w in lines:
        if w[1] == "frame":
            out.append(["frame"])
        elif w[1] == "obj" and w[2] == "alloc":
            tile, n, bpp = int(w[3]), int(w[4]), int(w[5])
            live[tile] = next_id
            out.append(["alloc", next_id, n * 32] + ([64] if bpp == 8 else []))
            next_id += 1
        elif w[1] == "obj" and w[2] == "free":
            out.append(["free", live.pop(int(w[3]))])
    return out


def fnv64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def bg_events(lines):
    """Screen-map cells NEW:OLD -> ref of the new tile, unref of the old, tiles by hash; the
    all-zero (transparent) tile and cells that keep the same graphics are no events."""
    hashes = {}
    for w in lines:
        if w[1] == "tile":
            hashes[(w[2], int(w[3]))] = w[4]
    clear = {4: fnv64(bytes(32)), 8: fnv64(bytes(64))}
    out = []
    for w in lines:
        if w[1] == "frame":
            out.append(["frame"])
        elif w[1] == "bg":
            layer, bpp = "bg" + w[2], int(w[3])
            for tok in w[4:]:
                new, old = tok.split(":")
                hn = None if new == "-" else hashes[(layer, int(new))]
                ho = None if old == "-" else hashes[(layer, int(old))]
                hn = None if hn == clear[bpp] else hn
                ho = None if ho == clear[bpp] else ho
                if hn == ho:
                    continue
                if hn:
                    out.append(["ref", hn, bpp])
                if ho:
                    out.append(["unref", ho, bpp])
    return out


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("heap", "obj", "bg"):
        print(__doc__)
        sys.exit(2)
    mode, trace_path, log_path = sys.argv[1:]
    with open(trace_path) as f:
        trace = json.load(f)
    with open(log_path) as f:
        lines = [l.split() for l in f if l.startswith("rec ")]
    for w in lines:
        if w[1] == "overrun":
            fail("the game ran late (%s): its log cannot be compared frame by frame" % " ".join(w))
    # A frame's kind (["frame", "load"]) and an event's options object (its call site) are
    # what the recorder adds to what the game logs; the ops and arguments must be the same.
    events = [["frame"] if e[0] == "frame" else [x for x in e if not isinstance(x, dict)]
              for e in trace["events"]]
    if mode == "heap":
        want = heap_events(lines)
    elif mode == "obj":
        want = obj_events(lines)
    else:
        want = bg_events(lines)
        names = trace.get("tile_hashes")
        if not isinstance(names, list):
            fail("the bg trace has no tile_hashes")
        events = [[e[0], names[e[1]], e[2]] if e[0] in ("ref", "unref") else e for e in events]
    for i, (got, exp) in enumerate(zip(events, want)):
        if got != exp:
            frame = sum(1 for e in events[:i] if e == ["frame"])
            fail("event %d (frame %d): trace %s, game log %s" % (i, frame, got, exp))
    if len(events) != len(want):
        fail("trace has %d events, the game log %d" % (len(events), len(want)))
    ops = {}
    for e in events:
        ops[e[0]] = ops.get(e[0], 0) + 1
    print("record_check %s: the %d events equal the game's own log (%s)" % (
        mode, len(events), ", ".join("%s %d" % kv for kv in sorted(ops.items()))))


if __name__ == "__main__":
    main()
