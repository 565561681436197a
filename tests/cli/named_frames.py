#!/usr/bin/env python3
"""Frames named (issue 34 item 2): `replay` names its worst gameplay frame and its worst loading
frame with the frame number, the first event, the ops in it and the share of the budget; those
are the frames with the most cycles of their kind, summed from `--events-out` here; and the
number is one `replay --at=frame:N` and `view --at=frame:N` take: replay lists that frame's
events with the same cycles and ops, view draws the map right after the frame's last event.

usage: named_frames.py AGBSIM REPO_ROOT WORKDIR"""
import json
import os
import re
import shutil
import subprocess
import sys

agbsim, root, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.chdir(root)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
TRACE = "traces/ewram/zone-levels.json"  # gameplay frames and loading frames (level changes)
FRAME_CYCLES = 280896  # one GBA frame (docs/facts.txt)
failures = []


def run(*args):
    p = subprocess.run([agbsim, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        failures.append(name)
        print(detail)


# The frames as the reports number them: frame N ends with the N-th frame event; each with its
# kind, first and last event, ops and cycles (from the per-event cycles of --events-out).
with open(TRACE) as f:
    events = json.load(f)["events"]
ev_path = os.path.join(work, "events.jsonl")
rc, report, err = run("replay", TRACE, "--no-min-arena", f"--events-out={ev_path}")
assert rc == 0, err
with open(ev_path) as f:
    cycles = [json.loads(line)["cycles"] for line in f]
assert len(cycles) == len(events)
frames, first, ops, cyc = [], 0, 0, 0
for i, e in enumerate(events):
    if e[0] == "frame":
        frames.append({"n": len(frames) + 1, "kind": "loading" if e[1:] == ["load"] else "gameplay",
                       "first": first, "last": i, "ops": ops, "cycles": cyc})
        first, ops, cyc = i + 1, 0, 0
    else:
        ops += 1
        cyc += cycles[i]
check("the trace has gameplay and loading frames",
      {f["kind"] for f in frames} == {"gameplay", "loading"}, str(len(frames)))


def worst(kind):
    best = None
    for f in frames:
        if f["kind"] == kind and (best is None or f["cycles"] > best["cycles"]):
            best = f
    return best


named = {}
for kind in ("gameplay", "loading"):
    m = re.search(rf"worst {kind} frame (\d+) \(from event (\d+), (\d+) ops[;)].*?: (\d+) cycles"
                  rf" = ([0-9.]+)% of a frame", report)
    check(f"replay names the worst {kind} frame", m is not None, report)
    if m is None:
        continue
    n, ev0, nops, c, pct = int(m[1]), int(m[2]), int(m[3]), int(m[4]), float(m[5])
    w = worst(kind)
    fr = frames[n - 1]
    check(f"{kind}: frame {n} is the frame of its kind with the most cycles ({w['n']}: {w['cycles']})",
          fr["kind"] == kind and fr["cycles"] == w["cycles"] and c == w["cycles"], str(fr))
    check(f"{kind}: first event {ev0}, {nops} ops, {c} cycles = {pct}% of a frame as counted",
          ev0 == fr["first"] and nops == fr["ops"]
          and abs(pct - 100.0 * c / FRAME_CYCLES) < 0.006, str(fr))
    if kind == "gameplay":
        share = re.search(rf"worst gameplay frame {n} .*, (\d+)% of the 10% budget", report)
        check("gameplay: its share of the 10% budget",
              share is not None and int(share[1]) == round(1000.0 * c / FRAME_CYCLES), report)
    named[kind] = fr

    # replay --at=frame:N lists exactly that frame's events with the same total.
    rc, out, err = run("replay", TRACE, "--no-min-arena", f"--at=frame:{n}")
    head = re.search(rf"^frame {n} \({kind}\): events (\d+)-(\d+)$", out, re.M)
    total = re.search(r"^  (\d+) events, (\d+) cycles = ([0-9.]+)% of a frame", out, re.M)
    listed = re.findall(r"^ +(\d+) (\w+) ", out[head.end():] if head else "", re.M)
    check(f"replay --at=frame:{n} shows frame {n} ({kind}) with the named figures",
          rc == 0 and head is not None and int(head[1]) == fr["first"]
          and int(head[2]) == fr["last"] and total is not None
          and int(total[1]) == fr["last"] - fr["first"] + 1 and int(total[2]) == c
          and len([op for _, op in listed if op != "frame"]) == nops, out + err)

    # view --at=frame:N is the map right after the frame's last event.
    a, b = os.path.join(work, f"{kind}-frame.png"), os.path.join(work, f"{kind}-event.png")
    rc1, _, err1 = run("view", TRACE, "--snapshot", a, "--at", f"frame:{n}")
    rc2, _, err2 = run("view", TRACE, "--snapshot", b, "--at", str(fr["last"]))
    if rc1 == 3 and "without SDL2" in err1:
        print(f"skip view --at=frame:{n}: agbsim built without SDL2")
        continue
    same = rc1 == 0 and rc2 == 0 and open(a, "rb").read() == open(b, "rb").read()
    check(f"view --at=frame:{n} is the picture at event {fr['last']}", same, err1 + err2)

# The JSON report carries the same two frames.
rc, out, err = run("replay", TRACE, "--no-min-arena", "--format=json")
doc = json.loads(out) if rc == 0 else {}
frame = doc.get("cycles", {}).get("frame", {})
check("JSON: frame.max and frame.load_max are the named frames' cycles",
      frame.get("max") == named.get("gameplay", {}).get("cycles")
      and frame.get("load_max") == named.get("loading", {}).get("cycles"), json.dumps(frame))

shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
