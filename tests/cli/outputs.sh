#!/bin/sh
# Output files (issue 35, item 1; policy in docs/outputs.md): a temporary file planted or
# guessed is never followed, OUT's mode and hard links are kept, a read-only OUT is refused, a
# FIFO is written through, a symlink's target is replaced (the link stays), a directory where
# only OUT is writable still gets OUT, and concurrent writers of one OUT leave a whole file.
# Every output flag goes through the same writer: each is checked with a planted OUT.part.
# Usage: outputs.sh AGBSIM SOURCE_DIR WORK_DIR
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
expect() { # RC GOT STDERR-FILE SUBSTRING WHAT
	if [ "$1" != "$2" ]; then fail "$5: exit $2, want $1 ($(cat "$3"))"; return; fi
	[ -z "$4" ] || grep -qF -- "$4" "$3" || fail "$5: stderr lacks '$4': $(cat "$3")"
}
mode() { stat -c %a "$1"; }
valid_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

# A planted OUT.part symlink (the old fixed temporary name) is never written through, for
# every output flag; OUT ends up a regular file with the output.
plant() { # NAME: OUT=$W/NAME, OUT.part -> precious
	echo precious >"$W/precious"
	rm -f "$W/$1" "$W/$1.part"
	ln -s precious "$W/$1.part"
}
intact() { # NAME WHAT
	[ "$(cat "$W/precious")" = precious ] || fail "$2: the planted $1.part's target was overwritten"
	[ -L "$W/$1" ] && fail "$2: OUT is a symlink"
	[ -s "$W/$1" ] || fail "$2: OUT is missing or empty"
	ls -a "$W" | grep -q "^\.$1\..*\.tmp$" && fail "$2: a temporary file was left behind"
}
plant gen.json
"$A" gen rpg --frames 50 -o "$W/gen.json" 2>"$W/err"
expect 0 $? "$W/err" "" "gen -o, planted .part"
intact gen.json "gen -o"
plant ev.json
"$A" replay "$T" --events-out="$W/ev.json" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "" "replay --events-out, planted .part"
intact ev.json "replay --events-out"
plant mev.json
"$A" measure "$T" --events-out="$W/mev.json" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "" "measure --events-out, planted .part"
intact mev.json "measure --events-out"
plant conv.json
"$A" convert --from tiled "$SRC/tests/trace/data/tiny-map.json" -o "$W/conv.json" 2>"$W/err"
expect 0 $? "$W/err" "" "convert -o, planted .part"
intact conv.json "convert -o"
B="bench $SRC/traces/obj/rpg.json --allocator=oam --no-min-arena"
plant base.json
$A $B --update-baseline="$W/base.json" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "" "bench --update-baseline, planted .part"
intact base.json "bench --update-baseline"
plant diff.json
$A $B --baseline="$W/base.json" --diff-out="$W/diff.json" >/dev/null 2>"$W/err"
expect 0 $? "$W/err" "" "bench --diff-out, planted .part"
intact diff.json "bench --diff-out"
if "$A" view "$T" --snapshot="$W/probe.png" 2>/dev/null; then
	plant snap.png
	"$A" view "$T" --snapshot="$W/snap.png" 2>"$W/err"
	expect 0 $? "$W/err" "" "view --snapshot, planted .part"
	intact snap.png "view --snapshot"
	plant plot.png
	"$A" bench "$SRC/tests/cli/data/cache-small.json" --arena-bytes=8K,16K --no-min-arena \
		--plot="$W/plot.png" >/dev/null 2>"$W/err"
	expect 0 $? "$W/err" "" "bench --plot, planted .part"
	intact plot.png "bench --plot"
fi

# OUT's mode is kept (0600 stays 0600, 0640 stays 0640), a new OUT gets 0666 less the umask.
"$A" gen rpg --frames 50 -o "$W/m.json" 2>/dev/null
chmod 600 "$W/m.json"
"$A" gen rpg --frames 60 -o "$W/m.json" 2>"$W/err"
expect 0 $? "$W/err" "" "gen -o over a 0600 file"
[ "$(mode "$W/m.json")" = 600 ] || fail "a 0600 OUT became $(mode "$W/m.json")"
chmod 640 "$W/m.json"
"$A" replay "$T" --events-out="$W/m.json" >/dev/null 2>"$W/err"
[ "$(mode "$W/m.json")" = 640 ] || fail "a 0640 OUT became $(mode "$W/m.json")"
(umask 027 && "$A" gen rpg --frames 50 -o "$W/new.json" 2>/dev/null)
[ "$(mode "$W/new.json")" = 640 ] || fail "a new OUT under umask 027 is $(mode "$W/new.json")"

# A read-only OUT is refused and left as it was (also for root, whom access() lets through).
echo keep >"$W/ro.json" && chmod 444 "$W/ro.json"
"$A" gen rpg --frames 50 -o "$W/ro.json" 2>"$W/err"
expect 3 $? "$W/err" "agbsim: $W/ro.json: cannot write: Permission denied" "gen -o a read-only OUT"
[ "$(cat "$W/ro.json")" = keep ] || fail "a read-only OUT was replaced"
[ "$(mode "$W/ro.json")" = 444 ] || fail "a read-only OUT's mode changed"

# Hard links: both names see the new bytes.
"$A" gen rpg --frames 50 -o "$W/h1.json" 2>/dev/null
ln "$W/h1.json" "$W/h2.json"
"$A" gen rpg --frames 70 -o "$W/h1.json" 2>"$W/err"
expect 0 $? "$W/err" "" "gen -o a hard-linked OUT"
cmp -s "$W/h1.json" "$W/h2.json" || fail "a hard link lost the new output"
[ "$(stat -c %h "$W/h1.json")" = 2 ] || fail "the hard link was broken"

# A symlink OUT: its target is replaced, the link stays a link.
echo old >"$W/tgt.json" && ln -s tgt.json "$W/lnk.json"
"$A" gen rpg --frames 50 -o "$W/lnk.json" 2>"$W/err"
expect 0 $? "$W/err" "" "gen -o a symlink"
[ -L "$W/lnk.json" ] || fail "the symlink OUT was replaced"
valid_json "$W/tgt.json" || fail "the symlink's target did not get the output"

# A FIFO is written through, never replaced.
mkfifo "$W/fifo"
timeout 20 cat "$W/fifo" >"$W/fifo.out" &
timeout 20 "$A" gen rpg --frames 50 -o "$W/fifo" 2>"$W/err"
expect 0 $? "$W/err" "" "gen -o a FIFO"
wait
[ -p "$W/fifo" ] || fail "the FIFO was replaced"
valid_json "$W/fifo.out" || fail "the FIFO's reader did not get a whole trace"

# A directory where only OUT is writable (run as an unprivileged user: root ignores modes).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
elif [ "$(id -u)" != 0 ]; then
	AS=
else
	AS=none
fi
if [ "$AS" != none ]; then
	# In a fresh directory under the system's temporary one, with a copy of agbsim: the build
	# tree may sit below a directory the unprivileged user cannot enter (a mktemp -d clone).
	U=$(mktemp -d "${TMPDIR:-/tmp}/agbsim-outputs.XXXXXX") || exit 1
	chmod 755 "$U" && cp "$A" "$U/agbsim" && chmod 755 "$U/agbsim"
	mkdir -p "$U/locked" && cp "$W/m.json" "$U/locked/out.json"
	chmod 666 "$U/locked/out.json" && chmod 755 "$U/locked"
	if [ "$(id -u)" = 0 ]; then chown 0:0 "$U/locked"; fi
	$AS "$U/agbsim" gen rpg --frames 80 -o "$U/locked/out.json" 2>"$W/err"
	expect 0 $? "$W/err" "" "gen -o into a directory where only OUT is writable"
	valid_json "$U/locked/out.json" || fail "locked directory: OUT is not the new trace"
	"$A" gen rpg --frames 80 -o "$W/want80.json" 2>/dev/null
	cmp -s "$U/locked/out.json" "$W/want80.json" || fail "locked directory: OUT differs"
	# ... and a read-only OUT is refused by an ordinary user too.
	chmod 644 "$U/locked/out.json"
	$AS "$U/agbsim" gen rpg --frames 50 -o "$U/locked/out.json" 2>"$W/err"
	expect 3 $? "$W/err" "Permission denied" "an unprivileged user, a read-only OUT"
	rm -rf "$U"
fi

# Two runs writing one OUT: every time, OUT is whole and one of the two outputs.
"$A" gen shmup --frames 400 -o "$W/a.json" 2>/dev/null
"$A" gen rpg --frames 400 -o "$W/b.json" 2>/dev/null
i=0
while [ $i -lt 10 ]; do
	"$A" gen shmup --frames 400 -o "$W/race.json" 2>"$W/err1" &
	"$A" gen rpg --frames 400 -o "$W/race.json" 2>"$W/err2"
	r2=$?
	wait $!
	r1=$?
	[ $r1 = 0 ] && [ $r2 = 0 ] || fail "race $i: exits $r1 and $r2"
	cmp -s "$W/race.json" "$W/a.json" || cmp -s "$W/race.json" "$W/b.json" ||
		fail "race $i: OUT is neither run's output"
	i=$((i + 1))
done
ls -a "$W" | grep -q '^\.race\.json\..*\.tmp$' && fail "the race left a temporary file"

[ $fails -eq 0 ] && echo "outputs: all checks passed"
[ $fails -eq 0 ]
