#!/bin/sh
# The HTML report in a real browser: `agbsim replay --html` and `agbsim bench --html` on a shipped
# trace (ai-scratch in a pool too small for it, so both memory maps, at peak and at the first
# failure, are drawn), checked to be self-contained (no URL but the SVG namespace, no external
# script or stylesheet), loaded in headless Chromium with no console message and screenshotted.
# Exit 77 (skipped, said on stdout) only when chromium is not installed.
# usage: html_chromium.sh AGBSIM REPO_ROOT [SCREENSHOT.png]
set -u
agbsim=$1 root=$2 shot=${3:-}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP: chromium is not installed (apt-get install chromium)"
	exit 77
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 2
fail=0
"$agbsim" replay traces/ewram/ai-scratch.json --arena-bytes=2048 --no-min-arena \
	--html="$tmp/replay.html" >/dev/null || { echo "replay --html failed"; exit 1; }
"$agbsim" bench traces/ewram/ai-scratch.json --allocator=bestfit,tlsf,tree --pool=8192 -j 2 \
	--html="$tmp/bench.html" >/dev/null || { echo "bench --html failed"; exit 1; }
# The bench page answers which heap, with the pool to reserve (docs/recommendation.md), as the
# table does, and sets the cores side by side.
want=$("$agbsim" bench traces/ewram/ai-scratch.json --allocator=bestfit,tlsf,tree --pool=8192 -j 2 |
	grep -E '^ewram, .*: use |^  reserve ' | sed 's/ (needs.*//')
[ -n "$want" ] || { echo "bench: the table has no answer for ewram"; fail=1; }
echo "$want" | while IFS= read -r l; do
	grep -qF "$l" "$tmp/bench.html" || { echo "bench: no '$l' as the table says"; exit 1; }
done || fail=1
for core in bestfit tlsf tree; do
	grep -q "<td>$core</td>" "$tmp/bench.html" || { echo "bench: no row for $core"; fail=1; }
done
for page in replay bench; do
	f=$tmp/$page.html
	# Self-contained: the only URL is the SVG namespace; no <script src>, <link>, @import.
	if grep -o 'https\?://[^"]*' "$f" | grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
		echo "$page: refers to a URL"; fail=1
	fi
	if grep -qi '<script[^>]*src\|<link\|@import\|<img[^>]*src="[^d]' "$f"; then
		echo "$page: loads something from outside"; fail=1
	fi
	for part in 'class="chart"' 'class="bar' 'class="budget"' 'class="live"' 'class="free"' \
		'class="frag"' 'class="map"'; do
		grep -q "$part" "$f" || { echo "$page: no $part"; fail=1; }
	done
	# Chromium logs console messages (errors included) as CONSOLE lines with --enable-logging.
	HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
		--enable-logging=stderr --v=0 --window-size=1000,2400 \
		--screenshot="$tmp/$page.png" "file://$f" >"$tmp/$page.out" 2>"$tmp/$page.log"
	if grep -E 'CONSOLE|Uncaught|Refused to|ERR_FILE_NOT_FOUND' "$tmp/$page.log"; then
		echo "$page: console messages or load errors in Chromium"; fail=1
	fi
	size=$(wc -c <"$tmp/$page.png" 2>/dev/null || echo 0)
	if [ "$size" -lt 20000 ]; then
		echo "$page: no screenshot, or an empty one ($size bytes)"; fail=1
	fi
	# The charts are drawn: the screenshot holds the bar and line colours.
	if command -v python3 >/dev/null; then
		python3 - "$tmp/$page.png" <<'PY' || fail=1
import sys, zlib, struct
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h, ct = 8, b"", 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, _, ct = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = 4 if ct == 6 else 3
stride = w * bpp
rows, prev = [], bytearray(stride)
i = 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
seen = set()
for line in rows:
    for x in range(0, stride, bpp):
        seen.add(tuple(line[x:x + 3]))
want = {"gameplay bars": (0x50, 0xb4, 0x8c), "free-bytes line": (0x6c, 0x8c, 0xff),
        "fragmentation line": (0xff, 0xb4, 0x3c)}
missing = [k for k, v in want.items() if v not in seen]
if missing:
    print(sys.argv[1] + ": the screenshot shows no " + ", ".join(missing))
    sys.exit(1)
PY
	fi
done
[ -n "$shot" ] && [ $fail -eq 0 ] && cp "$tmp/replay.png" "$shot"
[ $fail -eq 0 ] && echo "ok: both reports load in $("$browser" --version 2>/dev/null | head -1) with no console message"
exit $fail
