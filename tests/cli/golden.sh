#!/bin/sh
# Runs one CLI golden case: golden/NAME.cmd holds agbsim's arguments (one line, run from the
# repository root); golden/NAME.out the exact stdout, golden/NAME.err the exact stderr (optional)
# and golden/NAME.rc the exit status (default 0).
# usage: golden.sh AGBSIM REPO_ROOT NAME       (UPDATE=1 rewrites the expected files)
set -u
agbsim=$1 root=$2 name=$3
dir=$root/tests/cli/golden
cd "$root" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
args=$(cat "$dir/$name.cmd")
# shellcheck disable=SC2086
eval "\"$agbsim\" $args" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "${UPDATE:-0}" = 1 ]; then
	cp "$tmp/out" "$dir/$name.out"
	if [ -s "$tmp/err" ]; then cp "$tmp/err" "$dir/$name.err"; else rm -f "$dir/$name.err"; fi
	if [ $rc -ne 0 ]; then echo $rc >"$dir/$name.rc"; else rm -f "$dir/$name.rc"; fi
	exit 0
fi
want_rc=0
[ -f "$dir/$name.rc" ] && want_rc=$(cat "$dir/$name.rc")
fail=0
if [ "$rc" -ne "$want_rc" ]; then echo "exit status $rc, expected $want_rc"; fail=1; fi
if ! diff -u "$dir/$name.out" "$tmp/out"; then echo "stdout differs"; fail=1; fi
if [ -f "$dir/$name.err" ]; then
	diff -u "$dir/$name.err" "$tmp/err" || { echo "stderr differs"; fail=1; }
fi
exit $fail
