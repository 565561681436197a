#!/usr/bin/env python3
"""tiles_edges.py AGBSIM EQUIVALENCE_SH — the paths of `tiles` the shipped BG traces never take,
on the GBA and the host alike. The ROM build runs the upload, and the evictions of a tile of the
same depth, in hand-written Thumb (src/agbmem/core/tiles_thumb.S), which hands the rarer cases to the
C; the shipped traces have no transparent tile, never fill VRAM with referenced tiles and never
unref a tile whose ref failed. This writes a trace that does all of that (tile 0 at both depths;
VRAM filled with 8bpp tiles until refs fail, then 4bpp ones; released tiles evicted by uploads of
the other depth -- a 4bpp upload splitting an unreferenced 8bpp tile's pair, an 8bpp upload
taking a shared pair of two unreferenced 4bpp tiles once the 8bpp-only part holds none; a random
mix of both depths with failed refs and their skipped unrefs) and runs equivalence.sh on it: the
GBA (ROM and IWRAM placement) and the host must make the same decision on every event and end in
the same memory map. It also checks that the trace reached the failure, skip, eviction and revival paths.

Exit 0 when equivalent, 1 otherwise."""
import json
import os
import subprocess
import sys
import tempfile


def trace():
    ev = [["ref", 0, 4], ["ref", 0, 8], ["unref", 0, 4], ["unref", 0, 8]]
    ev += [["ref", t, 8] for t in range(1, 920)]  # 895 fit: the rest fail
    ev += [["ref", t, 4] for t in range(1, 40)]   # no room left at all
    ev += [["unref", t, 8] for t in range(1, 920, 3)]
    ev += [["unref", t, 4] for t in range(1, 40)]  # skipped: their refs failed
    seed, live = 12345, []
    for i in range(6000):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        r = seed >> 8
        if live and r % 2:
            t, bpp = live.pop(r // 2 % len(live))
            ev.append(["unref", t, bpp])
        else:
            bpp = 8 if r % 3 == 0 else 4
            t = 1 + r // 4 % 299
            ev.append(["ref", t, bpp])
            live.append((t, bpp))
        if i % 200 == 0:
            ev.append(["frame"])
    ev += [["unref", t, bpp] for t, bpp in live]
    ev += [["unref", t, 8] for t in range(2, 920, 3)]
    # Everything unreferenced now: 4bpp uploads fill the shared half by eviction, half of them
    # are released, then 8bpp uploads evict the 8bpp-only part's tiles and, once those are all
    # referenced, shared pairs of unreferenced 4bpp tiles; then a 4bpp lap that finds nothing.
    ev += [["ref", t, 4] for t in range(1000, 2030)]
    ev += [["unref", t, 4] for t in range(1000, 2030, 2)]
    ev += [["unref", t, 4] for t in range(1001, 1400, 2)]
    ev += [["ref", t, 8] for t in range(1000, 1700)]
    ev += [["ref", t, 4] for t in range(3000, 3040)]
    ev += [["unref", t, 8] for t in range(1000, 1700)]
    ev += [["unref", t, 4] for t in list(range(1401, 2030, 2)) + list(range(3000, 3040))]
    # Refs of 4bpp tiles the 8bpp uploads evicted: uploaded again.
    ev += [["ref", t, 4] for t in range(1000, 1100)]
    ev += [["unref", t, 4] for t in range(1000, 1100)]
    return {"version": 1, "arena": "bg_vram", "arena_bytes": 65536, "name": "tiles-edges",
            "events": ev}


def main():
    agbsim, equivalence = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tiles-edges.json")
        with open(path, "w") as f:
            json.dump(trace(), f)
        eq = subprocess.run(["sh", equivalence, agbsim, path], capture_output=True, text=True)
        print(eq.stdout, end="")
        if eq.returncode != 0 or "same  tiles (rom)" not in eq.stdout:
            print("FAIL  equivalence.sh exit %d: %s" % (eq.returncode, eq.stderr.strip()))
            return 1
        evpath = os.path.join(tmp, "events.json")
        m = subprocess.run([agbsim, "measure", path, "--allocator=tiles", "--no-min-arena",
                            "--format=json", "--events-out=" + evpath],
                           capture_output=True, text=True)
        if m.returncode != 0:
            print("FAIL  measure exit %d: %s" % (m.returncode, m.stderr.strip()))
            return 1
        r = json.loads(m.stdout)
        # A tile uploaded twice was evicted in between; a revival found its tile kept. 4bpp
        # tiles 1000-1099 are released, then only 8bpp uploads succeed until the trace refs them
        # again: uploaded again means an 8bpp upload took their shared pair (the cross-depth
        # eviction the Thumb hands to the C).
        uploaded, again, revived, across = set(), 0, 0, 0
        with open(evpath) as f:
            for line in f:
                e = json.loads(line)
                if e.get("op") != "ref":
                    continue
                if e["result"] & 0x1:
                    key = (e["tile"], e["bpp"])
                    again += key in uploaded
                    across += key in uploaded and e["bpp"] == 4 and 1000 <= e["tile"] < 1100
                    uploaded.add(key)
                revived += (e["result"] & 0x10) != 0
        if (r.get("failures", 0) == 0 or r.get("skipped", 0) == 0 or again == 0 or revived == 0
                or across == 0):
            print("FAIL  the trace no longer reaches the failure, skip, eviction, cross-depth "
                  "eviction and revival paths: %s failures, %s skipped, %d uploads of evicted "
                  "tiles (%d of 4bpp tiles 8bpp uploads evicted), %d revivals"
                  % (r.get("failures"), r.get("skipped"), again, across, revived))
            return 1
        print("ok    %d failures, %d unrefs skipped, %d uploads of evicted tiles (%d of 4bpp "
              "tiles 8bpp uploads evicted), %d revivals"
              % (r["failures"], r["skipped"], again, across, revived))
    return 0


if __name__ == "__main__":
    sys.exit(main())
