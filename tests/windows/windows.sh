#!/bin/sh
# What only the Windows build can get wrong, run against agbsim.exe under Wine (Z: is Wine's
# drive for /): diagnostics naming Windows paths (drive letters, backslashes) stay
# `agbsim: FILE:LINE:COL: message` with FILE as given, exit 2 and nothing on stdout; a trace
# saved with CRLF line ends gets the same LINE:COL; stdin is read in binary; a directory is "Is a
# directory" as on Linux; bench finds the traces of a backslash directory; a whole-or-nothing
# output replaces an existing file (Windows' rename refuses to), is left untouched by a failed
# run (no FILE.part left), and writes through to the NUL device.
# Also: the commands the Windows build has no libraries for say so (exit 3).
# usage: windows.sh AGBSIM REPO_ROOT SCRATCH_DIR       (AGBSIM: the build's agbsim-wine)
set -u
agbsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") root=$2
cd "$root" || exit 2
mkdir -p "$3" && tmp=$(mktemp -d "$3/windows.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fail=1; }
winpath() { printf 'Z:%s' "$1" | tr / '\\'; } # a Unix path as Wine names it

# diag NAME WANT_RC WANT_ERR ARGS...: exit status (2 bad input, 3 I/O), exact stderr, nothing on
# stdout.
diag() {
	name=$1 want_rc=$2 want_err=$3
	shift 3
	"$agbsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(cat "$tmp/err")
	if [ "$rc" -eq "$want_rc" ] && [ "$got" = "$want_err" ] && [ ! -s "$tmp/out" ]; then
		ok "$name"
	else
		bad "$name: exit $rc (want $want_rc), stderr '$got', want '$want_err'"
	fi
}

abs=$(winpath "$root/tests/cli/data/bad-frame-kind.json")
diag "drive-letter path in FILE:LINE:COL" 2 \
	"agbsim: $abs:3:11: frame kind must be \"load\" (a loading frame), got \"loading\"" replay "$abs"
diag "backslash relative path in FILE:LINE:COL" 2 \
	'agbsim: tests\cli\data\bad-sync.json:3:10: sync of marker 2, which no earlier mark set' \
	replay 'tests\cli\data\bad-sync.json' --allocator=stack2
diag "missing file on another drive" 3 \
	'agbsim: C:\traces\x.json: cannot open: No such file or directory' replay 'C:\traces\x.json'
diag "a directory" 3 'agbsim: traces: cannot open: Is a directory' replay traces
diag "measure: not in this build" 3 \
	'agbsim: measure: this agbsim was built without libmgba and the GBA ROMs; the Windows build has neither: run it on Linux' \
	measure traces/ewram/jq-level.json
diag "view: not in this build" 3 \
	'agbsim: view: this agbsim was built without SDL2, so it has no viewer (the Windows build has none: use view on Linux)' \
	view traces/ewram/jq-level.json
sed 's/$/\r/' tests/cli/data/bad-frame-kind.json >"$tmp/crlf.json"
diag "CRLF line ends: same LINE:COL" 2 \
	"agbsim: $tmp/crlf.json:3:11: frame kind must be \"load\" (a loading frame), got \"loading\"" \
	replay "$tmp/crlf.json"

# stdin in binary mode: the same report as from the file (the name aside).
"$agbsim" replay traces/ewram/jq-level.json --format=json >"$tmp/file.json" 2>/dev/null
"$agbsim" replay - --format=json <traces/ewram/jq-level.json >"$tmp/stdin.json" 2>/dev/null
if [ -s "$tmp/file.json" ] && sed 's|traces/ewram/jq-level.json|-|' "$tmp/file.json" | cmp -s - "$tmp/stdin.json"; then
	ok "trace on stdin"
else
	bad "trace on stdin: report differs from the file's"
fi

# bench on a directory named with backslashes: the same traces, the same table.
"$agbsim" bench traces/ewram --allocator=tree >"$tmp/slash.txt" 2>/dev/null
"$agbsim" bench 'traces\ewram' --allocator=tree >"$tmp/backslash.txt" 2>/dev/null
if [ -s "$tmp/slash.txt" ] && cmp -s "$tmp/slash.txt" "$tmp/backslash.txt"; then
	ok "bench on a backslash directory"
else
	bad "bench on a backslash directory: output differs"
fi

# Whole-or-nothing outputs.
"$agbsim" replay traces/ewram/jq-level.json --events-out="$tmp/want.jsonl" >/dev/null 2>&1
echo old >"$tmp/events.jsonl"
"$agbsim" replay traces/ewram/jq-level.json --events-out="$(winpath "$tmp/events.jsonl")" >/dev/null 2>&1
if [ -s "$tmp/want.jsonl" ] && cmp -s "$tmp/want.jsonl" "$tmp/events.jsonl"; then
	ok "--events-out replaces an existing file"
else
	bad "--events-out did not replace the existing file with the events"
fi
echo old >"$tmp/events.jsonl"
"$agbsim" replay tests/cli/data/bad-sync.json --allocator=stack2 --events-out="$tmp/events.jsonl" >/dev/null 2>&1
if [ "$(cat "$tmp/events.jsonl")" = old ] && ! ls -a "$tmp" | grep -q '^\.events\.jsonl\..*\.tmp$'; then
	ok "a failed run leaves the old file, no temporary file"
else
	bad "a failed run changed the output or left a temporary file"
fi
(cd "$tmp" && "$agbsim" replay "$root/traces/ewram/jq-level.json" --events-out=NUL >/dev/null 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && [ -z "$(ls "$tmp" | grep -i '^nul')" ]; then
	ok "--events-out=NUL writes to the device"
else
	bad "--events-out=NUL: exit $rc, files: $(ls "$tmp")"
fi
exit $fail
