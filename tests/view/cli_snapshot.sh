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
	"$check" "$out" 848 548 6
done
"$agbsim" view "$data/small-bg.json" --snapshot "$work/bg.png"
"$check" "$work/bg.png" 848 548 6
test ! -e "$work/bg.png.part"
for bad in 8 frame:3 frame:0 -1 soon; do
	rc=0
	"$agbsim" view "$data/small-obj.json" --snapshot "$work/bad.png" --at "$bad" 2>/dev/null || rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "--at $bad: exit $rc, expected 2"
		exit 1
	fi
done
test ! -e "$work/bad.png"
echo "ok"
