#!/bin/sh
# record_frames.sh AGBSIM ROOT — a host program with frame marks, recorded end to end: build
# tests/trace/data/frames-demo.c (it includes scripts/agbsim-frame.h), record it with
# scripts/record-mtrace, convert it leaving out its "library" allocations by caller, replay it:
# the trace has 32 frames (2 loading), the filter left out the 30 scratch buffers by name, and
# the replay reports the worst gameplay frame and the loading frames apart.
set -eu
agbsim=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cc -O0 -g -I"$root/scripts" -o "$tmp/demo" "$root/tests/trace/data/frames-demo.c"
(cd "$tmp" && "$root/scripts/record-mtrace" -o demo.log ./demo) 2>"$tmp/rec.err" ||
	fail "record-mtrace: $(cat "$tmp/rec.err")"
(cd "$tmp" && "$agbsim" convert --from mtrace demo.log -o demo.json --caller-exclude='lib_*') \
	2>"$tmp/conv.err" || fail "convert: $(cat "$tmp/conv.err")"
grep -q '32 frames (2 loading)' "$tmp/conv.err" || fail "frames: $(cat "$tmp/conv.err")"
grep -q 'caller filter left out 30 allocations (and 30 frees' "$tmp/conv.err" ||
	fail "filter: $(cat "$tmp/conv.err")"
grep -q 'demo:lib_scratch+0x[0-9a-f]*  (left out)' "$tmp/conv.err" || fail "callers: $(cat "$tmp/conv.err")"
grep -q 'demo:spawn_entity+0x' "$tmp/conv.err" || fail "callers: $(cat "$tmp/conv.err")"
grep -q 'pointers and size_t are 8 bytes' "$tmp/conv.err" || fail "no pointer-size warning"
"$agbsim" replay "$tmp/demo.json" --allocator=tree >"$tmp/replay.out" || fail "replay"
grep -q '^events .* 32 frame$' "$tmp/replay.out" || fail "replay frames: $(cat "$tmp/replay.out")"
grep -q 'worst gameplay frame' "$tmp/replay.out" || fail "no gameplay frame: $(cat "$tmp/replay.out")"
grep -qi 'loading frame' "$tmp/replay.out" || fail "no loading frames"
echo "ok: recorded, filtered and replayed with frames"
