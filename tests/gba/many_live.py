#!/usr/bin/env python3
"""many_live.py OUT.json — an EWRAM trace that ends with 4000 small blocks live (40 frames of 110
allocations of 8..40 bytes and 10 frees each): its replay's slot table (20 bytes a slot) does not
fit in the VRAM beside the bench ROM's frame buffer, as with real recordings of a few thousand
live blocks. Deterministic (a fixed LCG), stdlib only."""
import json
import sys


def main():
    state = 12345

    def rnd(n):
        nonlocal state
        state = (state * 1103515245 + 12345) % 2**31
        return (state >> 8) % n

    events, live, nid = [], [], 0
    for _ in range(40):
        for _ in range(110):
            events.append(["alloc", nid, (8, 12, 16, 24, 32, 40)[rnd(6)]])
            live.append(nid)
            nid += 1
        for _ in range(10):
            events.append(["free", live.pop(rnd(len(live)))])
        events.append(["frame"])
    trace = {"version": 1, "arena": "ewram", "arena_bytes": 262144, "name": "many-live",
             "source": "tests/gba/many_live.py: 4000 small blocks live at the end",
             "events": events}
    with open(sys.argv[1], "w") as f:
        json.dump(trace, f)


main()
