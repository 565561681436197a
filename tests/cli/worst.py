#!/usr/bin/env python3
"""agbsim worst, a short search per core: the search runs (exit 0), the trace it writes loads and
replays with the cost it reported for its last call, that cost is at least an easy lower bound
(the same op on a fresh pool: a search that cannot beat a one-op trace found nothing), and the
same seed and evaluation budget write the same bytes. Usage: worst.py AGBSIM WORKDIR"""
import json
import os
import subprocess
import sys

AGBSIM, WORK = sys.argv[1], sys.argv[2]
BUDGET = "300"
# core, arena, op: every core with single-call ops on a heap, OBJ or BG arena.
CASES = [
    ("tree", "ewram", "alloc"), ("tree", "ewram", "free"), ("tree", "obj_vram", "alloc"),
    ("bestfit", "ewram", "alloc"), ("bestfit", "ewram", "free"), ("bestfit", "ewram", "realloc"),
    ("tlsf", "ewram", "alloc"), ("tlsf", "ewram", "free"), ("tlsf", "obj_vram", "alloc"),
    ("buddy", "ewram", "alloc"), ("buddy", "ewram", "free"),
    ("firstfit", "ewram", "alloc"), ("firstfit", "ewram", "free"),
    ("slots", "ewram", "alloc"), ("slots", "ewram", "free"),
    ("bump", "ewram", "alloc"), ("stack2", "ewram", "alloc"),
    ("obj", "obj_vram", "alloc"), ("obj", "obj_vram", "free"),
    ("obj-fast", "obj_vram", "alloc"), ("obj-fast", "obj_vram", "free"),
    ("oam", "obj_vram", "alloc"),
    ("tiles", "bg_vram", "ref"), ("tiles", "bg_vram", "unref"),
]
failures = []


def run(args):
    return subprocess.run([AGBSIM] + args, capture_output=True, text=True)


def replay_cycles(path, core):
    """Per-event model cycles of `agbsim replay PATH --allocator=CORE`."""
    ev = os.path.join(WORK, "events.jsonl")
    p = run(["replay", path, "--allocator=" + core, "--no-min-arena", "--events-out", ev])
    if p.returncode != 0:
        return None, p.stderr.strip()
    with open(ev) as f:
        return [json.loads(l) for l in f], ""


def easy_trace(arena, op):
    """The op on a fresh pool: one alloc of 64 bytes (and its free), or one ref (and unref)."""
    if arena == "bg_vram":
        events = [["ref", 1, 4], ["unref", 1, 4]] if op == "unref" else [["ref", 1, 4]]
    elif op == "free":
        events = [["alloc", 0, 64], ["free", 0]]
    elif op == "realloc":
        events = [["alloc", 0, 64], ["realloc", 0, 128]]
    else:
        events = [["alloc", 0, 64]]
    path = os.path.join(WORK, "easy.json")
    with open(path, "w") as f:
        json.dump({"version": 1, "arena": arena, "events": events}, f)
    return path


def check(core, arena, op):
    name = "%s/%s/%s" % (core, arena, op)
    out = os.path.join(WORK, "worst-%s-%s-%s.json" % (core, arena, op))
    p = run(["worst", "--allocator=" + core, "--arena=" + arena, "--op=" + op,
             "--budget=" + BUDGET, "--seed=7", "-o", out])
    if p.returncode != 0:
        failures.append("%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()))
        return
    with open(out) as f:
        meta = json.load(f)["worst"]
    evs, err = replay_cycles(out, core)
    if evs is None:
        failures.append("%s: the written trace does not replay: %s" % (name, err))
        return
    last = evs[-1]
    if last["op"] != op or last["event"] != meta["event"] or last["cycles"] != meta["model_cycles"]:
        failures.append("%s: the trace's last event is %s at %d cycles, the search said %s at %d"
                        % (name, last["op"], last["cycles"], op, meta["model_cycles"]))
    easy, err = replay_cycles(easy_trace(arena, op), core)
    if easy is None:
        failures.append("%s: the easy trace does not replay: %s" % (name, err))
        return
    bound = easy[-1]["cycles"]
    if meta["model_cycles"] < bound:
        failures.append("%s: the search's worst %d cycles is below the easy bound %d"
                        % (name, meta["model_cycles"], bound))
    printed = [l for l in p.stdout.splitlines() if "worst call" in l]
    if not printed or str(meta["model_cycles"]) not in printed[0]:
        failures.append("%s: stdout does not name the worst call: %r" % (name, p.stdout))
    print("%-26s worst %6d cycles (easy bound %d)" % (name, meta["model_cycles"], bound))


os.makedirs(WORK, exist_ok=True)
for case in CASES:
    check(*case)

# Same seed and budget, same bytes (with the frame objective too).
outs = []
for i in range(2):
    a, b = os.path.join(WORK, "det%d.json" % i), os.path.join(WORK, "detf%d.json" % i)
    p = run(["worst", "--allocator=bestfit", "--budget=400", "--seed=3", "--frame-ops=8",
             "-o", a, "--frame-out", b])
    if p.returncode != 0:
        failures.append("determinism run: exit %d: %s" % (p.returncode, p.stderr.strip()))
        break
    outs.append((open(a, "rb").read(), open(b, "rb").read()))
if len(outs) == 2 and outs[0] != outs[1]:
    failures.append("the same seed and budget wrote different traces")

# Bad usage: exit 2, a message, nothing on stdout.
for args in (["worst", "-o", "x.json"], ["worst", "--allocator=nosuch", "-o", "x.json"],
             ["worst", "--allocator=tlsf", "--op=ref", "-o", "x.json"],
             ["worst", "--allocator=tlsf", "--budget=0", "-o", "x.json"],
             ["worst", "--allocator=tlsf"], ["worst", "--allocator=palbanks", "-o", "x.json"]):
    p = run(args)
    if p.returncode != 2 or p.stdout != "" or not p.stderr.startswith("agbsim: "):
        failures.append("%s: exit %d, stdout %r, stderr %r" % (" ".join(args), p.returncode,
                                                                 p.stdout, p.stderr))

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
