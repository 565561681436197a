#!/bin/sh
# Issue 35 item 4: Tiled's own example maps (tests/data/tiled-examples). The orthogonal ones
# convert, deduplicated from their images (a tileset without "columns" gets them from the image
# width, margin and spacing as Tiled computes them); the others are refused with the reason;
# a tileset whose columns, margin, spacing or tilecount disagree with its image is refused.
# Usage: tiled_examples.sh AGBSIM SOURCE_DIR WORK_DIR
set -u
A=$1
E=$2/tests/data/tiled-examples
W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
converts() { # MAP SUMMARY-SUBSTRING
	"$A" convert "$E/$1" --dedup -o "$W/out.json" 2>"$W/err"
	rc=$?
	[ $rc = 0 ] || { fail "$1: exit $rc: $(cat "$W/err")"; return; }
	grep -qF -- "$2" "$W/err" || fail "$1: summary lacks '$2': $(cat "$W/err")"
	"$A" replay "$W/out.json" >/dev/null 2>"$W/err2" || fail "$1: its trace does not replay"
}
refused() { # MAP MESSAGE
	"$A" convert "$E/$1" -o "$W/out.json" >"$W/out" 2>"$W/err"
	rc=$?
	[ $rc = 2 ] || fail "$1: exit $rc, want 2: $(cat "$W/err")"
	grep -qF -- "$2" "$W/err" || fail "$1: stderr lacks '$2': $(cat "$W/err")"
	grep -q "^agbsim: .*$1:[0-9]*:[0-9]*: " "$W/err" || fail "$1: no FILE:LINE:COL: $(cat "$W/err")"
	[ -s "$W/out" ] && fail "$1: something on stdout"
}
rm -f "$W/out.json"
converts sewers.tmx "50x50 cells of 24 px, 2 layers"
converts sewers.tmx "9 by 8x8 content"
converts sewer_automap/sewers.tmx "31x31 cells of 24 px"
converts desert.tmx "40x40 cells of 32 px"
converts orthogonal-outside.tmx "45x31 cells of 16 px"
refused isometric_grass_and_water.tmx "only orthogonal maps are supported, not isometric"
refused isometric_staggered_grass_and_water.tmx "only orthogonal maps are supported, not staggered"
refused hexagonal-mini.tmx "only orthogonal maps are supported, not hexagonal"
refused test_hexagonal_tile_60x60x30.tmx "only orthogonal maps are supported, not hexagonal"
refused perspective_walls.tmx "cells must be square and a multiple of 8 px, not 31x31"
refused sticker-knight/sandbox.tmx "map has no tile layers"

# The tileset checked against its image (sewer_tileset.png: 192x217 px, 24 px tiles: 8 columns,
# 9 rows). Copies of sewers.tmx with one attribute changed, next to the image.
cp "$E/sewer_tileset.png" "$W/"
bad() { # SED-EXPR MESSAGE WHAT
	sed "$1" "$E/sewers.tmx" >"$W/bad.tmx"
	"$A" convert "$W/bad.tmx" --dedup -o "$W/out.json" >/dev/null 2>"$W/err"
	rc=$?
	[ $rc = 2 ] || fail "$3: exit $rc, want 2: $(cat "$W/err")"
	grep -qF -- "$2" "$W/err" || fail "$3: stderr lacks '$2': $(cat "$W/err")"
}
bad 's/tileheight="24">/tileheight="24" columns="4">/' 'says 4 columns, but its image (192 px wide, margin 0, spacing 0, 24 px tiles) has 8' "columns too few"
bad 's/tileheight="24">/tileheight="24" columns="9">/' "has 8" "columns too many"
bad 's/tileheight="24">/tileheight="24" tilecount="80">/' 'says 80 tiles, but its image holds 72' "tilecount"
bad 's/tileheight="24">/tileheight="24" margin="200">/' "no 24x24 px tile" "margin wider than the image"
bad 's/tileheight="24">/tileheight="24" spacing="2" columns="8">/' "has 7" "spacing"
# The same with the right columns converts as without.
sed 's/tileheight="24">/tileheight="24" columns="8" tilecount="72">/' "$E/sewers.tmx" >"$W/good.tmx"
"$A" convert "$W/good.tmx" --dedup -o "$W/good.json" 2>"$W/err" || fail "right columns: $(cat "$W/err")"
"$A" convert "$E/sewers.tmx" --dedup -o "$W/plain.json" 2>/dev/null
sed 's/"source":"[^"]*"//' "$W/good.json" >"$W/a" && sed 's/"source":"[^"]*"//' "$W/plain.json" >"$W/b"
grep -v '"name"' "$W/a" >"$W/a2"; grep -v '"name"' "$W/b" >"$W/b2"
cmp -s "$W/a2" "$W/b2" || fail "columns computed from the image differ from the saved ones"

[ $fails -eq 0 ] && echo "tiled_examples: all checks passed"
[ $fails -eq 0 ]
