#!/usr/bin/env python3
"""The gate's false alarms (issue 34), one check each: two traces of one name are an error naming
both files (exit 2) instead of a silent FAIL; a timing-only change (the same events, frame
boundaries moved) passes on the documented default tolerances; `agbsim gate --help` lists every
metric the gate accepts, with its unit; a leak (the game stops freeing) is reported as a leak,
not only as "frees" under a changed workload; a run at another pool than the baseline's says the
arena differs instead of "overhead +887%"; a trace with more events is a workload change.

usage: test_false_alarms.py AGBSIM REPO_ROOT"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

agbsim, root = sys.argv[1], sys.argv[2]
os.chdir(root)
tmp = tempfile.mkdtemp()
failures = []
LEVELS = "traces/ewram/levels.json"
SCRATCH = "traces/ewram/ai-scratch.json"  # frames with ops in them: a timing change moves them


def run(*args):
    p = subprocess.run([agbsim, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    if not cond:
        failures.append(name)
        print(f"FAIL {name}\n{detail}")
    else:
        print(f"ok   {name}")


def load(path):
    with open(path) as f:
        return json.load(f)


def save(doc, name):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def baseline(*args, name="base.json"):
    path = os.path.join(tmp, name)
    rc, out, err = run("gate", *args, "--allocator=bestfit", "-j", "2", "--update-baseline", path)
    assert rc == 0, err
    return path


# 1. Two traces of one name.
a = os.path.join(tmp, "a"); b = os.path.join(tmp, "b")
os.makedirs(a); os.makedirs(b)
shutil.copy(LEVELS, a); shutil.copy(LEVELS, b)
rc, out, err = run("gate", a, b, "--allocator=bestfit", "--update-baseline", os.path.join(tmp, "dup.json"))
check("duplicate trace names: exit 2, both files named, nothing on stdout",
      rc == 2 and f"{a}/levels.json" in err and f"{b}/levels.json" in err and out == "", out + err)

# 2. A timing-only change: every 50th frame event moved one event later (same events).
base_path = baseline(LEVELS)
scratch_base = baseline(SCRATCH, name="scratch.json")
trace = load(SCRATCH)
ev = trace["events"]
moved, k = 0, 0
for i in range(len(ev) - 1):
    if ev[i][0] == "frame" and ev[i + 1][0] != "frame":
        k += 1
        if k % 10 == 0:
            ev[i], ev[i + 1] = ev[i + 1], ev[i]
            moved += 1
timed = save(trace, "ai-scratch.json")
rc, out, err = run("gate", timed, "--allocator=bestfit", "--baseline", scratch_base)
check(f"timing-only change ({moved} frame events moved) passes on default tolerances",
      rc == 0 and "agbsim gate: ok" in out, out + err)
rc, out, err = run("gate", timed, "--allocator=bestfit", "--baseline", scratch_base,
                   "--tolerance", "frag_*=0", "--tolerance", "cycles.frame.max=0")
check("with zero tolerances the same change moves the frag figures (the defaults absorb it)",
      re.search(r"ai-scratch\s+bestfit\s+frag_", out) is not None, out + err)

# 3. gate --help lists every metric with its unit; each listed name is accepted, others not.
rc, out, err = run("gate", "--help")
listed = re.findall(r"^  ([a-z_][a-z0-9_.]*)\s+(count|bytes|ratio|cycles)\s+(\S+)$", out, re.M)
names = [n for n, _, _ in listed]
check("gate --help lists metrics with units and default tolerances",
      rc == 0 and len(names) >= 50 and "cycles.alloc.mean" in names and "min_arena_bytes" in names,
      out)
rc, out2, err = run("gate", LEVELS, "--allocator=bestfit", "--baseline", base_path,
                    *[f"--tolerance={n}=1%" for n in names])
check("every listed metric is accepted by --tolerance", rc == 0, out2 + err)
rc, out2, err = run("gate", LEVELS, "--allocator=bestfit", "--baseline", base_path,
                    "--tolerance=frag=1%")
check("an unlisted metric is refused", rc == 2 and "unknown metric" in err, err)
bench_doc = json.loads(run("bench", LEVELS, "--allocator=bestfit", "--format=json")[1])
run0 = bench_doc["runs"][0]
missing = [n for n in names if n.split(".")[0] not in run0 and not n.startswith(("tile_", "pal_", "cache_"))]
check("every listed metric names a key of the bench JSON", missing == [], str(missing))

# 4. A leak: the game stops freeing its last 40 blocks.
trace = load(LEVELS)
ev = trace["events"]
frees = [i for i, e in enumerate(ev) if e[0] == "free"][-40:]
for i in reversed(frees):
    del ev[i]
leaky = save(trace, "levels.json")
rc, out, err = run("gate", leaky, "--allocator=bestfit", "--baseline", base_path)
check("a leak fails the gate as a leak, with the bytes live at the end",
      rc == 1 and "Leak" in out and re.search(r"levels: \d+ bytes live at the end, was \d+", out)
      and "agbsim gate: FAIL" in out, out + err)
check("the leak's report says where call sites would be (this trace names none)",
      "names no call sites" in out, out)

# 5. A run at another pool than the baseline's.
pool_base = baseline(LEVELS, "--pool=65536", name="pool.json")
rc, out, err = run("gate", LEVELS, "--allocator=bestfit", "--pool=131072", "--baseline", pool_base)
check("another arena: reported as the arena differing, no overhead regression",
      rc == 1 and "Arena differs" in out and "overhead_bytes" not in out
      and "baseline 65536 bytes, this run 131072" in out, out + err)

# 6. More events: a workload change, named before the metrics.
trace = load(LEVELS)
trace["events"] += [["alloc", 999999, 16], ["free", 999999]]
more = save(trace, "levels.json")
rc, out, err = run("gate", more, "--allocator=bestfit", "--baseline", base_path)
check("a changed workload is reported as such", "Workload changed" in out
      and re.search(r"levels\s+bestfit\s+events", out) is not None, out + err)

shutil.rmtree(tmp)
sys.exit(1 if failures else 0)
