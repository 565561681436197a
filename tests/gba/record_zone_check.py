#!/usr/bin/env python3
"""record_zone_check.py OUTDIR: the recordings of agbsim-record-zone.gba against its own log.

The log says how big a block newlib granted after how many refusals, the first gameplay frame,
and at the out-of-memory error how many zone allocations and frees the game made. Checks:
- clones: --symbols alloc=Z_Malloc found Z_Malloc and its LTO clone(s), said so, and the trace
  holds exactly the game's allocations and frees; a misspelt name lists the near matches;
- loading frames: every level block (the load, behind forced blank) is in a ["frame", "load"]
  frame, every gameplay block in a gameplay frame;
- call sites: each allocation names its caller (load_level's two calls, spawn, main), and the
  summary lists the top sites and the blocks live at exit by site;
- source lines: every event's site has the line of its call from the ELF's line tables
  ("line": "record_zone.c:N", N a line of src/gba/roms/record_zone.c holding that call, LTO
  and -O3 notwithstanding), and the summary prints them;
- the stop: both traces say "stopped", in Z_Error, the frame after the error path was entered;
- the own allocator: the newlib recording's summary says the refused requests look like a retry
  loop and names Z_Malloc as a candidate; the trace holds each as a ["refused", size] event
  from main; the pool is newlib's own (64 KiB, read from __malloc_max_sbrked_mem), where
  newlib's core, measured in mGBA, fails every one of them as the game's newlib did.
"""
import json
import os
import re
import sys


def fail(msg):
    print("record_zone_check: FAIL: " + msg)
    sys.exit(1)


def main():
    out = sys.argv[1]
    log = open(out + "/zone.log").read()
    m = re.search(r"zone block (\d+) bytes after (\d+) refused", log)
    e = re.search(r"zone error Z_Malloc: failure (\d+) at frame (\d+) after (\d+) allocs (\d+) frees", log)
    if not m or not e:
        fail("the game's log lacks its block or error line:\n" + log)
    block, refused = int(m.group(1)), int(m.group(2))
    allocs, frees = int(e.group(3)), int(e.group(4))

    err = open(out + "/zone-symbols.err").read()
    found = re.search(r"alloc=Z_Malloc: (.*)", err)
    if not found or not re.search(r"Z_Malloc\.constprop\.\d", found.group(1)):
        fail("--symbols did not say it found Z_Malloc's clones:\n" + err)
    t = json.load(open(out + "/zone-symbols.json"))
    ev = t["events"]
    got_a = sum(1 for x in ev if x[0] == "alloc")
    got_f = sum(1 for x in ev if x[0] == "free")
    if (got_a, got_f) != (allocs, frees):
        fail("trace has %d allocs %d frees, the game made %d and %d" % (got_a, got_f, allocs, frees))

    # Blocks by frame kind: the frame event closes the ops before it. The frame the game failed
    # in ends on its error screen (forced blank): its blocks are not judged.
    pending, level, play, frame = [], 0, 0, 0
    stop_at = t["stopped"]["error_frame"] if "stopped" in t else len(ev)
    for x in ev:
        if x[0] == "alloc":
            pending.append(x[2])
        elif x[0] == "frame":
            load = len(x) > 1 and x[1] == "load"
            frame += 1
            for size in (pending if frame - 1 < stop_at else []):
                is_level = size in (512, 1024, 1280, 1536, 1792)
                if is_level != load:
                    fail("a %d-byte block in a %s frame" % (size, "loading" if load else "gameplay"))
                level += is_level
                play += not is_level
            pending = []
    if level != 8 or play == 0:
        fail("%d level blocks (want 8), %d gameplay blocks" % (level, play))

    # Call sites: every allocation names its caller; the level's two calls are two sites.
    sites = {}
    for x in ev:
        if x[0] == "alloc":
            if not isinstance(x[-1], dict) or "site" not in x[-1]:
                fail("an alloc without a site: %s" % x)
            want = "load_level+" if x[2] in (512, 1024, 1280, 1536, 1792) else \
                "spawn+" if x[2] < 1024 else "main+"
            if not x[-1]["site"].startswith(want):
                fail("%s: site %s, want %s..." % (x, x[-1]["site"], want))
            sites.setdefault(x[-1]["site"], 0)
            sites[x[-1]["site"]] += 1
    if sum(1 for k in sites if k.startswith("load_level+")) != 2:
        fail("load_level's two calls are not two sites: %s" % sites)
    if not re.search(r"live at exit by call site: main\+0x[0-9a-f]+ \(\d+ blocks", err) or \
            not re.search(r"top call sites by calls: spawn\+", err):
        fail("the summary lacks the call sites:\n" + err)

    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "gba",
                            "roms", "record_zone.c")).read().splitlines()
    lines = 0
    for name, call in (("zone-symbols", r"\bZ_(Malloc|Free)\("), ("zone-newlib", r"\b(malloc|free)\(")):
        for x in json.load(open("%s/%s.json" % (out, name)))["events"]:
            o = x[-1] if isinstance(x[-1], dict) else {}
            if "site" not in o:
                continue
            m = re.fullmatch(r"record_zone\.c:(\d+)", o.get("line", ""))
            if not m or not 0 < int(m.group(1)) <= len(src) or \
                    not re.search(call, src[int(m.group(1)) - 1]):
                fail("%s: %s at %s, not a line of record_zone.c with its call" % (name, x, o.get("line")))
            lines += 1
    if not re.search(r"top call sites by calls: spawn\+0x[0-9a-f]+ \(\d+ calls, \d+ bytes, "
                     r"record_zone\.c:\d+\)", err):
        fail("the summary's call sites lack their source lines:\n" + err)

    bad = open(out + "/zone-bad.err").read()
    if "no function 'Z_Maloc'" not in bad or "near: Z_Malloc" not in bad:
        fail("the misspelt name lists no near match:\n" + bad)

    for name in ("zone-symbols", "zone-newlib"):
        s = json.load(open("%s/%s.json" % (out, name))).get("stopped")
        if not s or not s.get("in", "").startswith("Z_Error") or \
                not s.get("error_path", "").startswith("Z_Error") or s["frame"] != s["error_frame"] + 1:
            fail("%s: no stop in Z_Error: %s" % (name, s))
        if "the game stopped at frame %d" % s["frame"] not in open("%s/%s.err" % (out, name)).read():
            fail(name + ": the summary does not say the game stopped")

    nerr = open(out + "/zone-newlib.err").read()
    if ("%d refused by the game" % refused) not in nerr or "retry loop" not in nerr or \
            not re.search(r"candidates: .*Z_Malloc", nerr):
        fail("the newlib summary does not point at the zone allocator:\n" + nerr)
    tn = json.load(open(out + "/zone-newlib.json"))
    rf = [x for x in tn["events"] if x[0] == "refused"]
    if len(rf) != refused or any(b[1] != a[1] - 4 for a, b in zip(rf, rf[1:])) or \
            not all(x[-1].get("site", "").startswith("main+") for x in rf):
        fail("the trace's refused requests are not the game's %d retries: %s" % (refused, rf[:3]))
    rep = open(out + "/zone-newlib-replay.txt").read()
    # The pool is newlib's (its _sbrk stops at 64 KiB): there newlib fails every request the
    # game was refused, as in the game.
    if tn["arena_bytes"] != 65536 or "__malloc_max_sbrked_mem" not in nerr:
        fail("the newlib trace's pool is not newlib's 64 KiB: %d" % tn["arena_bytes"])
    if not re.search(r"refused +%d requests the recorded allocator refused: %d failed here too" % (refused, refused), rep):
        fail("the replay on newlib does not fail the refused requests:\n" + rep)
    if not any(x[0] == "alloc" and block <= x[2] < block + 8 for x in tn["events"]):
        fail("the newlib trace lacks the %d-byte block" % block)
    print("record_zone_check: clones, %d allocs %d frees, 8 level blocks in loading frames, "
          "%d gameplay blocks, %d call sites (%d events at their source line), the stop in Z_Error at frame %d, %d refused in a retry loop: ok"
          % (allocs, frees, play, len(sites), lines, s["frame"], refused))


main()
