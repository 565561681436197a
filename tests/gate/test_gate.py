#!/usr/bin/env python3
"""The regression gate (agbsim bench --baseline): passes on an unchanged run, fails with exit 1
naming the metric when the baseline is better than reality, honours tolerances, lists missing
and new pairs, rejects malformed baselines with exit 2 and a FILE:LINE:COL location, keeps the
tolerance and limits sections on --update-baseline, and exports BMF / github-action-benchmark
JSON. Absolute limits (--limit and the baseline's "limits"): pass, fail with exit 1 in their own
section, scoped by trace and core, unknown metrics rejected with exit 2. Traces no selected core
runs are named (stderr, report, --diff-out); a trace whose workload changed is called out before
the metric diff; the md report has its figures table on a pass.

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


# Absolute limits. jq-level on tree: min arena 214016; small on tree: min arena 2048, 1 failure.
rc, out, err = run("--baseline", base_path, "--limit", "min_arena_bytes<=262144")
check("a limit every pair meets passes",
      rc == 0 and "1 limits (2 values checked): 0 exceeded" in out and "Limits exceeded" not in out,
      out + err)
rc, out, err = run("--baseline", base_path, "--limit", "min_arena_bytes<=16384")
check("a limit broken fails with 1 in its own section",
      rc == 1 and "Limits exceeded" in out and
      re.search(r"jq-level\s+tree\s+min_arena_bytes\s+<= 16384\s+\d+\s+--limit", out) is not None and
      "Regressed" not in out, out + err)
check("... and only the pair that breaks it is listed",
      re.search(r"^small\s+tree\s+min_arena_bytes", out, re.M) is None, out)
rc, out, err = run("--baseline", base_path, "--limit", "small:tree:min_arena_bytes<=4096",
                   "--limit", "jq-level:*:cycles.alloc.max<=100000")
check("limits scoped to a trace and a core pass when their pairs meet them", rc == 0, out + err)
rc, out, err = run("--baseline", base_path, "--limit", "small:*:min_arena_bytes<=1024")
check("a scoped limit holds only its trace's pairs",
      rc == 1 and re.search(r"^small\s+tree\s+min_arena_bytes", out, re.M) and
      re.search(r"^jq-level\s+tree\s+min_arena_bytes", out, re.M) is None, out + err)
rc, out, err = run("--baseline", base_path, "--limit", "*:tlsf:min_arena_bytes<=1024")
check("a limit that applies to no pair passes with a warning",
      rc == 0 and "limit '*:tlsf:min_arena_bytes<=1024' (--limit) applies to no pair" in err,
      out + err)
rc, out, err = run("--baseline", base_path, "--limit", "small:tree:failures>=2")
check("a lower limit (>=) is held too", rc == 1 and "failures" in out and ">= 2" in out, out + err)
diff_path = os.path.join(tmp, "limits-diff.json")
rc, out, err = run("--baseline", base_path, "--limit", "jq-level:tree:min_arena_bytes<=16384",
                   "--diff-out", diff_path)
diff = json.load(open(diff_path))
check("--diff-out lists the limit exceeded",
      diff["limits"] == 1 and diff["limits_exceeded"][0]["metric"] == "min_arena_bytes" and
      diff["limits_exceeded"][0]["set_by"] == "--limit" and diff["limits_exceeded"][0]["now"] > 16384,
      json.dumps(diff))

for bad in ["nonsense<=5", "min_arena_bytes<5", "min_arena_bytes<=lots", "small:min_arena_bytes<=5",
            "small:nosuchcore:min_arena_bytes<=5"]:
    rc, out, err = run("--baseline", base_path, "--limit", bad)
    check(f"--limit '{bad}' is a usage error",
          rc == 2 and out == "" and err.startswith("agbsim: bench: --limit: "), err)
rc, out, err = run("--baseline", base_path, "--limit", "nonsense<=5")
check("an unknown limit metric is named", "unknown metric 'nonsense'" in err, err)
rc, out, err = run("--limit", "min_arena_bytes<=5")
check("--limit needs --baseline", rc == 2 and "need --baseline" in err, err)

limited = dict(base, limits=["jq-level:tree:min_arena_bytes<=16384", "failures<=5"])
path = os.path.join(tmp, "limited.json")
write(path, limited)
rc, out, err = run("--baseline", path)
check("the baseline's limits are held",
      rc == 1 and re.search(r"jq-level\s+tree\s+min_arena_bytes\s+<= 16384\s+\d+\s+baseline", out),
      out + err)
write(path, dict(base, limits=["failures<=0", "nonsense<=1"]))
rc, out, err = run("--baseline", path)
check("an unknown metric in the baseline's limits exits 2 at its line",
      rc == 2 and out == "" and
      re.search(re.escape(path) + r":\d+:\d+: unknown metric 'nonsense'", err), err)
m = re.search(r":(\d+):(\d+):", err)
if m:
    line = open(path).read().split("\n")[int(m.group(1)) - 1]
    check("the location points at the bad limit", line[int(m.group(2)) - 1:].startswith('"nonsense'),
          line)
upd = os.path.join(tmp, "update-limits.json")
write(upd, dict(base, tolerances={"cycles.*": "1%"}, limits=["failures<=5", "small:tree:min_arena_bytes<=4096"]))
rc, out, err = run("--update-baseline", upd)
doc = json.load(open(upd))
check("--update-baseline keeps the limits (and the tolerances)",
      rc == 0 and doc["limits"] == ["failures<=5", "small:tree:min_arena_bytes<=4096"] and
      doc["tolerances"] == {"cycles.*": "1%"}, err)

# Traces no selected core can run are named, not silently left out.
PAL = "tests/cli/data/pal-small.json"
p = subprocess.run([agbsim, "bench", *TRACES, PAL, "--allocator=tree", "-j", "2", "--baseline",
                    base_path, "--diff-out", diff_path], capture_output=True, text=True)
diff = json.load(open(diff_path))
check("a trace no selected core manages is warned about on stderr",
      p.returncode == 0 and "agbsim: warning: pal-small (" + PAL + ") is not gated: no selected core "
      "manages pal_ram (palbanks, palstack can)" in p.stderr, p.stderr)
check("... named in the report", "Not gated" in p.stdout and "pal-small (pal_ram)" in p.stdout,
      p.stdout)
check("... and in --diff-out", [u["trace"] for u in diff["not_gated"]] == ["pal-small"],
      json.dumps(diff))
p = subprocess.run([agbsim, "bench", *TRACES, "traces/ewram/levels-linear.json",
                    "--allocator=tree", "-j", "2", "--baseline", base_path, "--allow-missing"],
                   capture_output=True, text=True)
check("a trace every selected core failed to run is warned about with the reason",
      re.search(r"warning: levels-linear \(.*\) is not gated: no selected core can run it: "
                r"event \d+ \(mark\): core 'tree': this core cannot serve this op", p.stderr)
      is not None, p.stderr)
rc, out, err = run("--baseline", base_path)
check("no warning when every trace is gated", "warning" not in err and "Not gated" not in out, err)

# A trace that changed: its workload facts differ from the baseline's.
changed = json.loads(json.dumps(base))
jq = next(r for r in changed["runs"] if r["trace"] == "jq-level")
jq["events"] -= 1000
jq["allocs"] -= 500
jq["peak_live_bytes"] -= 50000
jq["min_arena_bytes"] -= 50000
path = os.path.join(tmp, "changed.json")
write(path, changed)
rc, out, err = run("--baseline", path, "--diff-out", diff_path)
check("a workload change is called out before the metric diff",
      rc == 1 and "Workload changed" in out and "Regressed" in out and
      out.index("Workload changed") < out.index("Regressed") and
      "workload changed on 1 traces" in out, out)
check("... naming each fact that moved",
      all(re.search(r"jq-level\s+tree\s+" + f + r"\s", out) for f in
          ["events", "allocs", "peak_live_bytes"]) and
      re.search(r"jq-level\s+tree\s+frees\s", out) is None, out)
diff = json.load(open(diff_path))
check("... and listed in --diff-out",
      sorted(w["metric"] for w in diff["workload_changed"]) == ["allocs", "events", "peak_live_bytes"],
      json.dumps(diff))
rc, out, err = run("--baseline", base_path)
check("no workload section when the traces are the baseline's", "Workload changed" not in out, out)

rc, out, err = run("--baseline", base_path, "--format=md")
check("a passing md report has the figures table",
      rc == 0 and "**Figures**" in out and re.search(r"^\| jq-level \| tree \| 0 \| \d+ \|", out, re.M),
      out)
rc, out, err = run("--baseline", path, "--format=md")
check("a failing md report has it too, baseline -> now where they differ",
      rc == 1 and "**Figures**" in out and re.search(r"\| \d+ → \d+ \|", out), out)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
