#!/bin/sh
# Issue 35 item 2: inputs read within bounds, never a signal.
#  - record reads its ROM and ELF only from regular files within the 32 MiB cartridge space;
#  - a trace cut short while it is read (mapped) gives exit 3 with a message, never SIGBUS.
# Usage: inputs.sh AGBSIM WORK_DIR
set -u
A=$1
W=$2
rm -rf "$W" && mkdir -p "$W" || exit 1
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
expect() { # RC GOT STDERR-FILE SUBSTRING WHAT
	if [ "$1" != "$2" ]; then fail "$5: exit $2, want $1 ($(cat "$3"))"; return; fi
	[ -z "$4" ] || grep -qF -- "$4" "$3" || fail "$5: stderr lacks '$4': $(cat "$3")"
}

dd if=/dev/zero of="$W/big.gba" bs=1048576 count=40 2>/dev/null
timeout 20 "$A" record "$W/big.gba" --vram=obj -o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "41943040 bytes, larger than the cartridge's 32 MiB" "record a 40 MB ROM"
timeout 20 "$A" record /dev/zero --vram=obj -o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "/dev/zero: not a regular file" "record /dev/zero"
printf '\177ELF' >"$W/game.elf"
timeout 20 "$A" record "$W/game.elf" --rom /dev/zero -o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "/dev/zero: not a regular file" "record --rom /dev/zero"
mkfifo "$W/fifo.gba"
timeout 20 "$A" record "$W/game.elf" --rom "$W/fifo.gba" -o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "fifo.gba: not a regular file" "record --rom FIFO"
[ -e "$W/x.json" ] && fail "a refused record wrote its output"

# A 49 MB trace cut to 1000 bytes while it loads, at a few moments: whatever the moment, an
# exit status of 0, 2 or 3 with a message, never a signal (it was SIGBUS, exit 135).
"$A" gen ai-scratch --frames 1000000 -o "$W/dense.json" 2>/dev/null || fail "gen"
for d in 0.1 0.3 0.6; do
	cp "$W/dense.json" "$W/cut.json"
	timeout 60 "$A" replay "$W/cut.json" --allocator=tlsf >/dev/null 2>"$W/err" &
	pid=$!
	sleep $d
	truncate -s 1000 "$W/cut.json"
	wait $pid
	rc=$?
	case $rc in
	0) ;;
	2) grep -q "cut.json:[0-9]*:[0-9]*: " "$W/err" || fail "cut after ${d}s: exit 2 without a position" ;;
	3) grep -qF "cut.json: cannot read: the file was cut short while it was read" "$W/err" ||
		fail "cut after ${d}s: exit 3, $(cat "$W/err")" ;;
	*) fail "cut after ${d}s: exit $rc ($(cat "$W/err"))" ;;
	esac
done
rm -f "$W/dense.json" "$W/cut.json" "$W/big.gba"

# bench DIR: a link loop is not followed, a FIFO named *.json is not opened (issue 35 item 5).
SRC=$(dirname "$0")/../..
mkdir -p "$W/dir/sub" && cp "$SRC/tests/cli/data/small.json" "$W/dir/sub/"
ln -s .. "$W/dir/sub/loop" && mkfifo "$W/dir/waits.json"
timeout 20 "$A" bench "$W/dir" --allocator=tlsf --no-min-arena >"$W/out" 2>"$W/err"
expect 0 $? "$W/err" "" "bench DIR with a link loop and a FIFO"
[ "$(grep -c '^small ' "$W/out")" = 1 ] || fail "bench DIR: the trace is not listed once: $(cat "$W/out")"

[ $fails -eq 0 ] && echo "inputs: all checks passed"
[ $fails -eq 0 ]
