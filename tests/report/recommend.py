#!/usr/bin/env python3
"""The recommendation rule (docs/recommendation.md) computed again here from `bench
--format=json`'s figures and held against what `bench` prints under "what to use": the core, the
reason (smallest need, or faster within the margin), the tie, "nothing fits", "only cores the
guide says to avoid fit" and the pool to reserve. Cases: every shipped EWRAM trace at its own
pool, at 64 KiB and at 8 KiB; two traces at once (the largest need counts); a pool nothing
fits; the same trace with mGBA cycles when this build has them (the answer is the same core).

usage: recommend.py REPO_ROOT AGBSIM...  (AGBSIM: the binary, after an emulator if it needs one)"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

root, agbsim = sys.argv[1], sys.argv[2:]
os.chdir(root)
AVOID = {"buddy", "slots", "firstfit"}      # the guide's "rarely" row
REFERENCE = {"newlib", "newlib-nano"}       # GBA-only references, never chosen
NOT_MEMORY = {"frame", "spr_show", "spr_z", "spr_hide", "sync"}
STEP, MARGIN_DIV, TIE_PCT, HEADROOM_DIV, ROUND, EWRAM = 1024, 16, 1.0, 4, 1024, 262144
failures = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        failures.append(name)
        print(detail)


def bench(*args):
    # Files, not pipes: under Wine, its background processes inherit a pipe and hold it open
    # long after agbsim.exe exits.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        rc = subprocess.run([*agbsim, "bench", *args], stdout=out, stderr=err).returncode
        out.seek(0)
        err.seek(0)
        return rc, out.read(), err.read()


def expected(runs):
    """The rule on one arena's runs: (status, chosen, reason, tie, avoided_only, reserve)."""
    traces = {r["path"] for r in runs}
    cores = {}
    for r in runs:
        if "error" in r:
            continue
        c = cores.setdefault(r["allocator"], {"traces": 0, "failed": 0, "need": 0, "unknown": False,
                                              "sum": 0.0, "count": 0, "worst": 0})
        c["traces"] += 1
        c["failed"] += (r["failures"] + r.get("tile_failures", 0)) != 0
        if not r.get("min_arena_bytes"):
            c["unknown"] = True
        c["need"] = max(c["need"], r.get("min_arena_bytes") or 0)
        cyc = r["cycles"]
        c["worst"] = max(c["worst"], cyc["all_ops"]["max"])
        for op, st in cyc.items():
            if isinstance(st, dict) and "count" in st and op != "all_ops" and op not in NOT_MEMORY:
                c["sum"] += st["mean"] * st["count"]
                c["count"] += st["count"]
    for c in cores.values():
        if c["unknown"]:
            c["need"] = 0
        c["mean"] = c["sum"] / c["count"] if c["count"] else 0.0

    def tie(a, b):
        hi = max(a, b)
        return hi == 0 or abs(a - b) * 100.0 <= TIE_PCT * hi

    def choose(with_avoided):
        cand = [n for n, c in cores.items() if n not in REFERENCE and c["traces"] == len(traces)
                and c["failed"] == 0 and (with_avoided or n not in AVOID) and c["need"] != 0]
        if not cand:
            return None
        smallest = min(cores[n]["need"] for n in cand)
        margin = max(STEP, -(-(smallest // MARGIN_DIV) // STEP) * STEP)
        best = None
        for n in cand:  # listing order: the order bench ran them
            c = cores[n]
            if c["need"] > smallest + margin:
                continue
            if best is None:
                best = n
                continue
            b = cores[best]
            if not tie(c["mean"], b["mean"]):
                better = c["mean"] < b["mean"]
            elif c["need"] != b["need"]:
                better = c["need"] < b["need"]
            else:
                better = c["worst"] < b["worst"]
            if better:
                best = n
        b = cores[best]
        ties = [n for n in cand if n != best and cores[n]["need"] == b["need"]
                and tie(cores[n]["mean"], b["mean"]) and cores[n]["worst"] == b["worst"]]
        reason = "smallest" if b["need"] == smallest else "faster"
        return best, reason, ties[-1] if ties else None

    got = choose(False)
    avoided_only = False
    if got is None:
        got = choose(True)
        avoided_only = got is not None
    if got is None:
        return ("nothing fits", None, None, None, False, 0)
    need = cores[got[0]]["need"]
    reserve = min(EWRAM, -(-(need + need // HEADROOM_DIV) // ROUND) * ROUND)
    return ("chosen", got[0], got[1], got[2], avoided_only, reserve)


def printed(text):
    """What bench printed for the ewram arena."""
    m = re.search(r"^ewram, \d+ traces? at [^:]*: (.*?)(?=^ewram|^obj|^bg|^pal|\Z)", text,
                  re.M | re.S)
    if m is None:
        return None
    block = m.group(1)
    if block.startswith("nothing fits"):
        return ("nothing fits", None, None, None, False, 0)
    use = re.match(r"use (\S+) ", block)
    reason = ("smallest" if "why: the smallest pool need" in block
              else "faster" if "why: faster than" in block else None)
    tie = re.search(r"tie: (\S+) has", block)
    reserve = re.search(r"reserve (\d+) bytes \(0x([0-9A-F]+)\)", block)
    ok_hex = reserve is None or int(reserve[1]) == int(reserve[2], 16)
    return ("chosen", use[1] if use else None, reason, tie[1] if tie else None,
            "only cores the guide says to avoid fit" in block,
            int(reserve[1]) if reserve and ok_hex else -1)


def case(name, *args, want_status=None):
    rc, js, err = bench(*args, "--format=json")
    rc2, table, err2 = bench(*args)
    if rc != 0 or rc2 != 0:
        check(name, False, err + err2)
        return None
    runs = [r for r in json.loads(js)["runs"] if r["arena"] == "ewram"]
    want, got = expected(runs), printed(table)
    check(f"{name}: {want[1] or want[0]}, reserve {want[5]}", want == got,
          f"rule {want}\nprinted {got}\n{table}")
    if want_status is not None:
        check(f"{name}: {want_status}", want[0] == want_status, str(want))
    return got


traces = sorted(glob.glob("traces/ewram/*.json"))
for t in traces:
    for pool in (None, 65536, 8192):
        args = [t, "--allocator=all", "-j", "2"] + ([f"--pool={pool}"] if pool else [])
        case(f"{os.path.basename(t)} at {pool or 'its own pool'}", *args)
case("two traces: the largest need of each core", "traces/ewram/ai-scratch.json",
     "traces/ewram/levels.json", "--allocator=all", "-j", "2", "--pool=131072")
case("two traces at their own pools", "traces/ewram/ai-scratch.json", "traces/ewram/levels.json",
     "--allocator=all", "-j", "2")
case("a pool too small for every core", "traces/ewram/ai-scratch.json", "--allocator=all",
     "--pool=2048", want_status="nothing fits")
only_avoided = case("only avoided cores run", "traces/ewram/ai-scratch.json",
                    "--allocator=buddy,firstfit,slots", "--pool=65536")
check("only avoided cores: said so", only_avoided is not None and only_avoided[4], str(only_avoided))

# The same answer with mGBA cycles (skipped when this build has no mGBA).
rc, _, err = bench("traces/ewram/ai-scratch.json", "--allocator=bestfit", "--cycles=mgba",
                   "--no-min-arena")
if rc == 0:
    answers = set()
    for pool in (65536, 8192):
        for cycles in ("model", "mgba"):
            got = case(f"ai-scratch at {pool}, {cycles} cycles", "traces/ewram/ai-scratch.json",
                       "--allocator=all", f"--pool={pool}", f"--cycles={cycles}", "-j", "2")
            answers.add(got[1:] if got else None)
    check("ai-scratch: one answer at 64 KiB and 8 KiB with model and mGBA cycles",
          len(answers) == 1, str(answers))
else:
    print("skip mGBA cases: " + err.strip())

sys.exit(1 if failures else 0)
