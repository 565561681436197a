#!/bin/sh
# Every JSON document agbsim writes stays valid JSON when a trace's name holds '"' and '\'
# (tests/cli/data/quote-name.json): replay and bench --format=json, the gate against a baseline
# made of that output (which reads its own results back), its --diff-out, --update-baseline and
# both --export formats; each command exits 0. The committed goldens of that trace (replay, bench,
# bench --baseline against tests/cli/data/quote-name-baseline.json) are checked the same way.
# usage: json_escape.sh AGBSIM REPO_ROOT
set -u
agbsim=$1 root=$2
cd "$root" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trace=tests/cli/data/quote-name.json
fail=0

# check NAME FILE: FILE must be valid JSON.
check() {
	if python3 -m json.tool "$2" >/dev/null 2>"$tmp/why"; then
		echo "ok   $1"
	else
		echo "FAIL $1: not valid JSON: $(cat "$tmp/why")"
		fail=1
	fi
}

# run NAME OUT ARGS...: agbsim ARGS > OUT must exit 0.
run() {
	name=$1 out=$2
	shift 2
	if ! "$agbsim" "$@" >"$out" 2>"$tmp/err"; then
		echo "FAIL $name: exit status $?: $(cat "$tmp/err")"
		fail=1
	fi
}

run "replay --format=json" "$tmp/replay.json" replay "$trace" --format=json
check "replay --format=json" "$tmp/replay.json"
run "replay --events-out" "$tmp/replay2.json" replay "$trace" --format=json --events-out="$tmp/events.jsonl"
check "replay --format=json with --events-out" "$tmp/replay2.json"
# all cores: bump cannot serve free, so an n/a run (with the name in its error) is in it too
run "bench --format=json" "$tmp/bench.json" bench "$trace" --allocator=all --format=json
check "bench --format=json" "$tmp/bench.json"
run "bench --baseline" "$tmp/gate.txt" bench "$trace" --allocator=all --baseline "$tmp/bench.json" \
	--diff-out="$tmp/diff.json"
check "bench --baseline --diff-out" "$tmp/diff.json"
cp "$tmp/bench.json" "$tmp/update.json"
run "bench --update-baseline" "$tmp/update.txt" bench "$trace" --allocator=all \
	--update-baseline="$tmp/update.json"
check "bench --update-baseline" "$tmp/update.json"
run "bench --export=bmf" "$tmp/bmf.json" bench "$trace" --allocator=all --export=bmf
check "bench --export=bmf" "$tmp/bmf.json"
run "bench --export=gab" "$tmp/gab.json" bench "$trace" --allocator=all --export=gab
check "bench --export=gab" "$tmp/gab.json"
# The goldens of the same trace (tests/cli/golden/*-quote-*) hold valid JSON too: bench's output,
# and the --diff-out document after the gate's table in bench --baseline's.
check "golden replay-quote-json" tests/cli/golden/replay-quote-json.out
check "golden bench-quote-json" tests/cli/golden/bench-quote-json.out
sed -n '/^{/,$p' tests/cli/golden/bench-quote-baseline.out >"$tmp/golden-diff.json"
check "golden bench-quote-baseline (--diff-out)" "$tmp/golden-diff.json"
python3 - "$tmp/bench.json" <<'PY' || fail=1
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
names = {r["trace"] for r in runs}
ok = names == {'a"b\\c'}
print(("ok   " if ok else "FAIL ") + "bench keeps the name a\"b\\c: " + repr(names))
sys.exit(0 if ok else 1)
PY
exit $fail
