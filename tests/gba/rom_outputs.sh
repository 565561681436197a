#!/bin/sh
# The output flags of the commands that run a ROM (record -o/--game-log, budget -o/--game-log/
# --update-baseline) go through the same writer as the others (tests/cli/outputs.sh,
# docs/outputs.md): a planted OUT.part symlink is never written through and OUT ends up a
# regular file with the output; a read-only OUT is refused (exit 3) and left as it was.
# usage: rom_outputs.sh AGBSIM RECORD_GAME.elf INPUT BUDGET_ROM.elf WORK_DIR
set -u
A=$1 REC=$2 INPUT=$3 BUD=$4 W=$5
rm -rf "$W" && mkdir -p "$W" || exit 1
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
plant() { # NAME...: OUT=$W/NAME, OUT.part -> precious
	echo precious >"$W/precious"
	for n in "$@"; do
		rm -f "$W/$n" "$W/$n.part"
		ln -s precious "$W/$n.part"
	done
}
intact() { # WHAT NAME...
	what=$1
	shift
	[ "$(cat "$W/precious")" = precious ] || fail "$what: a planted .part's target was overwritten"
	for n in "$@"; do
		[ -L "$W/$n" ] && fail "$what: $n is a symlink"
		[ -s "$W/$n" ] || fail "$what: $n is missing or empty"
	done
}
plant rec.json rec.log
"$A" record "$REC" --frames 200 --input "$INPUT" -o "$W/rec.json" --game-log "$W/rec.log" \
	>/dev/null 2>"$W/err" || fail "record -o --game-log: exit $? ($(cat "$W/err"))"
intact "record -o --game-log" rec.json rec.log
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$W/rec.json" ||
	fail "record -o: not JSON"
plant bud.json bud.log base.json
"$A" budget "$BUD" --frames 40 --format json -o "$W/bud.json" --game-log "$W/bud.log" \
	>/dev/null 2>"$W/err" || fail "budget -o --game-log: exit $? ($(cat "$W/err"))"
"$A" budget "$BUD" --frames 40 --update-baseline "$W/base.json" >/dev/null 2>"$W/err" ||
	fail "budget --update-baseline: exit $? ($(cat "$W/err"))"
intact "budget -o --game-log --update-baseline" bud.json bud.log base.json
grep -q '"agbsim_budget": 1' "$W/bud.json" || fail "budget -o: not the report"
# A read-only OUT is refused and kept, for each command.
for cmd in record budget; do
	echo keep >"$W/ro-$cmd.json" && chmod 444 "$W/ro-$cmd.json"
	case $cmd in
	record) "$A" record "$REC" --frames 200 --input "$INPUT" -o "$W/ro-$cmd.json" \
		>/dev/null 2>"$W/err" ;;
	budget) "$A" budget "$BUD" --frames 40 --format json -o "$W/ro-$cmd.json" >/dev/null 2>"$W/err" ;;
	esac
	rc=$?
	[ $rc = 3 ] || fail "$cmd -o a read-only OUT: exit $rc, want 3 ($(cat "$W/err"))"
	grep -qF "agbsim: $W/ro-$cmd.json: cannot write" "$W/err" || fail "$cmd: stderr: $(cat "$W/err")"
	[ "$(cat "$W/ro-$cmd.json")" = keep ] || fail "$cmd: a read-only OUT was replaced"
done
[ $fails = 0 ] && echo "rom_outputs: record and budget outputs ok"
exit $((fails != 0))
