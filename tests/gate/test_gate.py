#!/usr/bin/env python3
"""The regression gate (agbsim bench --baseline): passes on an unchanged run, fails with exit 1
naming the metric when the baseline is better than reality, honours tolerances, lists missing
and new pairs, rejects malformed baselines with exit 2 and a FILE:LINE:COL location, keeps the
tolerance section on --update-baseline, and exports BMF / github-action-benchmark JSON.

usage: test_gate.py AGBSIM REPO_ROOT"""
import json
import os
import re
import subprocess
import sys
import tempfile

agbsim, root = sys.argv[1], sys.argv[2]
os.chdir(root)
TRACES = ["tests/cli/data/small.json", "traces/ewram/jq-level.json"]
tmp = tempfile.mkdtemp()
failures = []


def run(*args, env=None):
    p = subprocess.run([agbsim, "bench", *TRACES, "--allocator=tree", "-j", "2", *args],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    if not cond:
        failures.append(name)
        print(f"FAIL {name}\n{detail}")
    else:
        print(f"ok   {name}")


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


rc, out, err = run("--format=json")
check("bench --format=json succeeds", rc == 0, err)
base = json.loads(out)
base_path = os.path.join(tmp, "baseline.json")
write(base_path, base)

rc, out, err = run("--baseline", base_path)
check("unchanged run passes", rc == 0 and "agbsim gate: ok" in out, out + err)

better = json.loads(json.dumps(base))
jq = next(r for r in better["runs"] if r["trace"] == "jq-level")
jq["min_arena_bytes"] -= 1024
path = os.path.join(tmp, "better.json")
write(path, better)
rc, out, err = run("--baseline", path)
check("baseline better than reality fails with 1", rc == 1, out + err)
check("the regression names trace, core and metric",
      re.search(r"jq-level\s+tree\s+min_arena_bytes", out) is not None, out)

diff_path = os.path.join(tmp, "diff.json")
rc, out, err = run("--baseline", path, "--diff-out", diff_path)
diff = json.load(open(diff_path))
check("--diff-out lists the regression",
      rc == 1 and diff["regressions"][0]["metric"] == "min_arena_bytes", json.dumps(diff))

near = json.loads(json.dumps(base))
jq = next(r for r in near["runs"] if r["trace"] == "jq-level")
jq["cycles"]["total"] = int(jq["cycles"]["total"] * 0.995)
path = os.path.join(tmp, "near.json")
write(path, near)
rc, out, err = run("--baseline", path)
check("0.5% more cycles fails with exact default tolerance", rc == 1 and "cycles.total" in out, out)
rc, out, err = run("--baseline", path, "--tolerance", "cycles.total=1%")
check("--tolerance cycles.total=1% accepts it", rc == 0, out + err)
rc, out, err = run("--baseline", path, "--tolerance", "cycles.*=1%")
check("a prefix pattern cycles.* accepts it", rc == 0, out + err)
near["tolerances"] = {"cycles.total": "1%"}
write(path, near)
rc, out, err = run("--baseline", path)
check("a tolerance section in the baseline accepts it", rc == 0, out + err)

extra = json.loads(json.dumps(base))
extra["runs"].append(dict(extra["runs"][0], trace="gone-trace"))
path = os.path.join(tmp, "extra.json")
write(path, extra)
rc, out, err = run("--baseline", path)
check("a pair missing from the run fails", rc == 1 and "gone-trace / tree" in out, out)
rc, out, err = run("--baseline", path, "--allow-missing")
check("--allow-missing accepts it but still lists it", rc == 0 and "gone-trace / tree" in out, out)

fewer = json.loads(json.dumps(base))
fewer["runs"] = [r for r in fewer["runs"] if r["trace"] != "small"]
path = os.path.join(tmp, "fewer.json")
write(path, fewer)
rc, out, err = run("--baseline", path)
check("a new pair is listed and passes", rc == 0 and "small / tree" in out and "New" in out, out)

text = json.dumps(base, indent=1)
path = os.path.join(tmp, "truncated.json")
open(path, "w").write(text[: len(text) // 2])
rc, out, err = run("--baseline", path)
check("a truncated baseline exits 2 with a location",
      rc == 2 and out == "" and re.search(re.escape(path) + r":\d+:\d+: ", err), err)

bad = json.loads(json.dumps(base))
bad["runs"][1]["failures"] = "none"
path = os.path.join(tmp, "badtype.json")
write(path, bad)
rc, out, err = run("--baseline", path)
check("a metric of the wrong type exits 2 at its line",
      rc == 2 and re.search(re.escape(path) + r":\d+:\d+: \"failures\" must be a number", err), err)
lines = open(path).read().split("\n")
m = re.search(r":(\d+):(\d+):", err)
if m:
    line = lines[int(m.group(1)) - 1]
    check("the location points at the bad value", line[int(m.group(2)) - 1:].startswith('"none"'),
          line)

path = os.path.join(tmp, "notbench.json")
write(path, {"runs": []})
rc, out, err = run("--baseline", path)
check("a JSON file that is not a bench result exits 2", rc == 2 and "agbsim_bench" in err, err)

rc, out, err = run("--baseline", base_path, "--tolerance", "nonsense=5%")
check("an unknown tolerance metric is a usage error", rc == 2, err)

upd = os.path.join(tmp, "update.json")
write(upd, dict(base, tolerances={"min_arena_bytes": 2048}))
rc, out, err = run("--update-baseline", upd)
doc = json.load(open(upd))
check("--update-baseline rewrites and keeps tolerances",
      rc == 0 and doc["tolerances"] == {"min_arena_bytes": 2048} and len(doc["runs"]) == 2, err)

summary = os.path.join(tmp, "summary.md")
env = dict(os.environ, GITHUB_STEP_SUMMARY=summary)
rc, out, err = run("--baseline", base_path, "--format=md", env=env)
check("--format=md and GITHUB_STEP_SUMMARY get markdown",
      rc == 0 and out.startswith("### agbsim gate") and "### agbsim gate" in open(summary).read(),
      out)

rc, out, err = run("--export=bmf")
bmf = json.loads(out)
check("--export=bmf is Bencher Metric Format",
      rc == 0 and bmf["jq-level/tree"]["min_arena_bytes"]["value"] > 0, out[:400])
rc, out, err = run("--export=gab")
gab = json.loads(out)
check("--export=gab is customSmallerIsBetter",
      rc == 0 and all({"name", "unit", "value"} <= set(e) for e in gab), out[:400])

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
