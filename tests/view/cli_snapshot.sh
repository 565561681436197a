#!/bin/sh
# `agbsim view --snapshot` end to end: PNGs for each --at form, and usage errors (exit 2).
# usage: cli_snapshot.sh AGBSIM PNG_CHECK DATA_DIR WORKDIR
set -eu
agbsim=$1 check=$2 data=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
for at in 0 6 frame:1 frame:2 end; do
	out="$work/at-$(echo "$at" | tr : -).png"
	"$agbsim" view "$data/small-obj.json" --allocator=obj --snapshot "$out" --at "$at"
	"$check" "$out" 848 612 6
done
"$agbsim" view "$data/small-bg.json" --snapshot "$work/bg.png"
"$check" "$work/bg.png" 848 612 6
test ! -e "$work/bg.png.part"
# Palette RAM on both palette cores (the default core for pal_ram too).
"$agbsim" view "$data/small-pal.json" --snapshot "$work/pal-default.png" --at end
"$check" "$work/pal-default.png" 848 612 12
for core in palbanks palstack; do
	"$agbsim" view "$data/small-pal.json" --allocator=$core --snapshot "$work/pal-$core.png" --at 3
	"$check" "$work/pal-$core.png" 848 612 12
done
"$agbsim" view "$data/small-palstack.json" --allocator=palstack --snapshot "$work/palstack.png" \
	--at frame:1
"$check" "$work/palstack.png" 848 612 12
# palbanks has no palette stack: the replay stops, the message names the event (exit 2).
rc=0
"$agbsim" view "$data/small-palstack.json" --allocator=palbanks --snapshot "$work/bad-pal.png" \
	--at end 2>"$work/bad-pal.err" || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "small-palstack.json:[0-9]*:[0-9]*: event 2 (pal_push)" "$work/bad-pal.err"; then
	echo "palbanks on a pal_push trace: exit $rc, expected 2 with FILE:LINE:COL"
	cat "$work/bad-pal.err"
	exit 1
fi
test ! -e "$work/bad-pal.png"
# small-obj: 2 frame events, then a stretch of events (frame 3, which replay can name): frame:4
# is beyond the trace.
"$agbsim" view "$data/small-obj.json" --snapshot "$work/frame-3.png" --at frame:3 ||
	{ echo "--at frame:3 (the stretch after the last frame event) failed"; exit 1; }
for bad in 8 frame:4 frame:0 -1 soon; do
	rc=0
	"$agbsim" view "$data/small-obj.json" --snapshot "$work/bad.png" --at "$bad" 2>/dev/null || rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "--at $bad: exit $rc, expected 2"
		exit 1
	fi
done
test ! -e "$work/bad.png"
# Named moments (issue 16 item 5) are the events they stand for: peak 3 (448 live bytes),
# first-failure 7, max-frag 5 (see tests/view/test_view_moments.c); the same picture.
for pair in peak:3 first-failure:7 max-frag:5; do
	name=${pair%%:*} ev=${pair#*:}
	"$agbsim" view "$data/small-obj.json" --allocator=obj --snapshot "$work/$name.png" --at "$name"
	"$agbsim" view "$data/small-obj.json" --allocator=obj --snapshot "$work/$name-ev.png" --at "$ev"
	if ! cmp -s "$work/$name.png" "$work/$name-ev.png"; then
		echo "--at $name differs from --at $ev"
		exit 1
	fi
done
# A 4 KiB pool fills the map; a tile trace shows its peak.
"$agbsim" view "$data/small-ewram.json" --snapshot "$work/ewram.png" --at max-frag
"$check" "$work/ewram.png" 848 612 6
"$agbsim" view "$data/small-bg.json" --snapshot "$work/bg-peak.png" --at peak
"$check" "$work/bg-peak.png" 848 612 6
# Bad or absent moments: one 'agbsim: ' line (plus the usage hint), exit 2, nothing on stdout,
# no file.
for case in "small-bg.json first-failure" "small-obj.json bogus" "small-obj.json peak:1" \
	"small-obj.json Peak"; do
	trace=${case%% *} at=${case#* }
	rc=0
	"$agbsim" view "$data/$trace" --at "$at" --snapshot "$work/none.png" >"$work/out.txt" \
		2>"$work/err.txt" || rc=$?
	if [ "$rc" -ne 2 ] || [ -s "$work/out.txt" ] || ! head -1 "$work/err.txt" | grep -q '^agbsim: view: --at'; then
		echo "$trace --at $at: exit $rc, stdout $(wc -c <"$work/out.txt") bytes, stderr:"
		cat "$work/err.txt"
		exit 1
	fi
done
test ! -e "$work/none.png"
echo "ok"
