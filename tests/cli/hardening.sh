#!/bin/sh
# Issue 12 regressions, end to end: outputs that are not regular files, stdout write errors,
# hangs, unbounded input, LINE:COL of replay-time errors, integer options.
# Usage: hardening.sh AGBSIM SOURCE_DIR WORK_DIR
set -u
A=$1
SRC=$2
W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
T=$SRC/traces/obj/rpg.json
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# expect RC FILE-WITH-STDERR SUBSTRING WHAT
expect() {
	if [ "$1" != "$2" ]; then fail "$5: exit $2, want $1 ($(cat "$3"))"; return; fi
	[ -z "$4" ] || grep -qF -- "$4" "$3" || fail "$5: stderr lacks '$4': $(cat "$3")"
}

# 1. Outputs: a symlink stays a link (its target gets the output); a device or FIFO is written
# through, not replaced by a regular file; a full device is an error.
echo old > "$W/target" && ln -s target "$W/link"
"$A" replay "$T" --events-out="$W/link" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "" "events-out to a symlink"
[ -L "$W/link" ] || fail "the symlink was replaced"
[ "$(head -c 9 "$W/target")" = '{"event":' ] || fail "the link's target did not get the events"
[ -e "$W/target.part" ] && fail "target.part left behind"
"$A" convert --from tiled "$SRC/tests/trace/data/tiny-map.json" -o "$W/link" 2>"$W/err"
expect 0 $? "$W/err" "" "convert -o to a symlink"
[ -L "$W/link" ] || fail "convert replaced the symlink"
if mknod "$W/full" c 1 7 2>/dev/null; then FULL=$W/full; else FULL=/dev/full; fi
"$A" replay "$T" --events-out="$FULL" >/dev/null 2>"$W/err"
expect 3 $? "$W/err" "agbsim: $FULL: cannot write: No space left on device" "events-out to a full device"
[ -c "$FULL" ] || fail "$FULL is no longer a character device"
mkfifo "$W/fifo"
# (timeouts: a writer that replaced the FIFO leaves its reader blocked in open())
timeout 20 cat "$W/fifo" >"$W/fifo.out" &
timeout 20 "$A" replay "$T" --events-out="$W/fifo" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "" "events-out to a FIFO"
wait
[ -p "$W/fifo" ] || fail "the FIFO was replaced"
[ -s "$W/fifo.out" ] || fail "nothing came through the FIFO"
# bench --update-baseline: a link to a baseline stays a link; a device is written through (not
# read for tolerances to keep: /dev/full reads as endless zeros) and its error reported.
B="bench $SRC/traces/obj/rpg.json --allocator=oam --no-min-arena"
$A $B --update-baseline="$W/base.json" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "wrote baseline" "update-baseline, a new file"
ln -s base.json "$W/base-link"
$A $B --update-baseline="$W/base-link" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "wrote baseline" "update-baseline to a symlink"
[ -L "$W/base-link" ] || fail "update-baseline replaced the symlink"
timeout 20 $A $B --update-baseline="$FULL" >/dev/null 2>"$W/err"
expect 3 $? "$W/err" "agbsim: $FULL: cannot write: No space left on device" \
	"update-baseline to a full device"
[ -c "$FULL" ] || fail "update-baseline replaced $FULL"

# view --snapshot (a build with SDL2): the same rules for the PNG.
if "$A" view "$T" --snapshot="$W/probe.png" 2>/dev/null; then
	rm -f "$W/link" && ln -s target "$W/link"
	"$A" view "$T" --snapshot="$W/link" 2>"$W/err"
	expect 0 $? "$W/err" "" "view --snapshot to a symlink"
	[ -L "$W/link" ] || fail "view --snapshot replaced the symlink"
	cmp -s "$W/target" "$W/probe.png" || fail "the link's target did not get the PNG"
	"$A" view "$T" --snapshot="$FULL" 2>"$W/err"
	expect 3 $? "$W/err" "agbsim: view: $FULL: cannot write: No space left on device" \
		"view --snapshot to a full device"
	[ -c "$FULL" ] || fail "view --snapshot replaced $FULL"
fi

# 5. stdout: a full device and a closed pipe are exit 3 with a message (not silent, not SIGPIPE).
"$A" replay "$T" >"$FULL" 2>"$W/err"
expect 3 $? "$W/err" "agbsim: stdout: cannot write: No space left on device" "stdout to a full device"
# 540 KB of events through a pipe whose reader takes one byte: the writer must see EPIPE.
{ "$A" replay "$T" --events-out=- 2>"$W/err"; echo $? >"$W/rc"; } | head -c 1 >/dev/null
expect 3 "$(cat "$W/rc")" "$W/err" "agbsim: stdout: cannot write: Broken pipe" "stdout to a closed pipe"
{ "$A" bench "$SRC/traces/obj" --allocator=oam --no-min-arena 2>"$W/err"; echo $? >"$W/rc"; } | true
case $(cat "$W/rc") in 0 | 3) ;; *) fail "bench into a closed pipe: exit $(cat "$W/rc")" ;; esac
# Integers are decimal or 0x-hex: 010 is ten bytes, not eight.
"$A" replay "$T" --arena-bytes=010 >/dev/null 2>"$W/err"
expect 2 $? "$W/err" "(10 bytes)" "--arena-bytes=010"

# 3. Hangs: no display, and a frame count the camera loop could not reach.
env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER timeout 20 "$A" view "$T" >/dev/null 2>"$W/err"
expect 3 $? "$W/err" "agbsim:" "view without a display"
timeout 20 "$A" convert --from tiled --frames=4294967295 "$SRC/tests/trace/data/tiny-map.json" \
	-o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "frames must be at most" "convert --frames=2^32-1"

# 4. Unbounded input: /dev/zero stops at its first NUL, an endless pipe at the size limit, a
# regular file over the limit before it is read.
timeout 20 "$A" replay /dev/zero 2>"$W/err"
expect 2 $? "$W/err" "agbsim: /dev/zero:1:1: NUL byte" "replay /dev/zero"
{ printf '{"version":1,"arena":"ewram","events":['; yes '["frame"],'; } 2>/dev/null |
	AGBSIM_MAX_TRACE_BYTES=1000000 timeout 20 "$A" replay - 2>"$W/err"
expect 2 $? "$W/err" "agbsim: <stdin>: larger than 1000000 bytes" "an endless pipe"
# Every other input is bounded the same way: baselines, maps, mtrace logs.
timeout 20 $A $B --baseline=/dev/zero >/dev/null 2>"$W/err"
expect 2 $? "$W/err" "agbsim: /dev/zero:1:1: NUL byte" "bench --baseline=/dev/zero"
for from in tiled csv mtrace; do
	timeout 20 "$A" convert --from $from /dev/zero -o "$W/x.json" 2>"$W/err"
	expect 2 $? "$W/err" "agbsim: /dev/zero:1:1: NUL byte" "convert --from $from /dev/zero"
done
yes 2>/dev/null | AGBSIM_MAX_TRACE_BYTES=1000000 timeout 20 "$A" convert --from tiled - \
	-o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "agbsim: <stdin>: larger than 1000000 bytes" "convert: an endless map"
yes '+ 0x1000 0x10
- 0x1000' 2>/dev/null | AGBSIM_MAX_TRACE_BYTES=1000000 timeout 20 "$A" convert - \
	-o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "agbsim: <stdin>: larger than 1000000 bytes" "convert: an endless mtrace log"
head -c 70000 /dev/zero | tr '\0' x | timeout 20 "$A" convert - -o "$W/x.json" 2>"$W/err"
expect 2 $? "$W/err" "agbsim: <stdin>:1:65536: line longer than 65535 bytes" "a 70 kB mtrace line"
[ -e "$W/x.json" ] && fail "a failed convert left $W/x.json"
dd if=/dev/null of="$W/huge.json" bs=1 seek=1100M 2>/dev/null
timeout 20 "$A" replay "$W/huge.json" 2>"$W/err"
expect 2 $? "$W/err" "larger than 1073741824 bytes" "a 1.1 GB file"
rm -f "$W/huge.json"

# 2. A control byte before a bad event: not JSON whitespace (RFC 8259), refused where it is.
printf '{"version":1,"arena":"ewram","events":\013[["alloc",1,16],["frame"],["alloc",1,8]]}' \
	>"$W/ctl.json"
"$A" replay "$W/ctl.json" 2>"$W/err"
expect 2 $? "$W/err" "ctl.json:1:39: expected a value, got byte 0x0B" "control byte"

# 5. Errors found while replaying carry the event's LINE:COL.
printf '{"version":1,"arena":"ewram",\n"events":[\n  ["alloc",1,16],\n  ["reset",7]\n]}\n' \
	>"$W/reset.json"
"$A" replay "$W/reset.json" --allocator=bump 2>"$W/err"
expect 2 $? "$W/err" "reset.json:4:3: event 1 (reset): core 'bump'" "reset of an unknown marker"
"$A" replay "$W/reset.json" --allocator=tlsf >/dev/null 2>"$W/err"
expect 2 $? "$W/err" "reset.json:4:3: event 1 (reset): core 'tlsf'" "an op the core cannot serve"
printf '{"version":1,"arena":"bg_vram","events":[\n["ref",5000,4],\n["unref",5000,4]]}\n' \
	>"$W/tile.json"
"$A" replay "$W/tile.json" --rom-tiles=16 2>"$W/err"
expect 2 $? "$W/err" "tile.json:2:1: event 0 (ref of ROM tile 5000" "a tile beyond --rom-tiles"

# 6. A tileset image that is a FIFO or a device is refused, not waited on or read forever.
mkdir -p "$W/img"
mkfifo "$W/img/kenney-tileset-64px-extruded.png"
timeout 20 "$A" convert "$SRC/traces/bg/maps/kenney-level.json" --tileset-images="$W/img" -o - \
	>"$W/out" 2>"$W/err"
expect 2 $? "$W/err" "kenney-tileset-64px-extruded.png: not a regular file" "a FIFO as tileset image"
[ -s "$W/out" ] && fail "a FIFO as tileset image: something on stdout"
rm "$W/img/kenney-tileset-64px-extruded.png"
ln -s /dev/zero "$W/img/kenney-tileset-64px-extruded.png"
timeout 20 "$A" convert "$SRC/traces/bg/maps/kenney-level.json" -o - --tileset-images="$W/img" \
	>/dev/null 2>"$W/err"
expect 2 $? "$W/err" "not a regular file" "/dev/zero as tileset image"

[ $fails -eq 0 ] && echo "hardening: all checks passed"
[ $fails -eq 0 ]
