#!/bin/sh
# The shipped maps' native TMX files stream the same events as their JSON twins made the bg
# traces from, both ways: tiles by tile id (--no-dedup) and by 8x8 content (--dedup, the tileset
# images in traces/bg/tilesets/ found relative to the map). The first line (header, source) aside.
# usage: bg_maps_tmx.sh AGBSIM REPO_ROOT
set -u
A=$1
cd "$2" || exit 2
W=$(mktemp -d) || exit 2
trap 'rm -rf "$W"' EXIT
fail=0
check() { # TRACE MAP OPTIONS...
	trace=$1 map=$2
	shift 2
	if ! "$A" convert "traces/bg/maps/$map.tmx" "$@" -o "$W/t.json" 2>"$W/err"; then
		echo "$map.tmx $*: $(cat "$W/err")"
		fail=1
		return
	fi
	tail -n +2 "$W/t.json" >"$W/got"
	tail -n +2 "traces/bg/$trace.json" >"$W/want"
	cmp -s "$W/got" "$W/want" || { echo "$map.tmx $*: events differ from traces/bg/$trace.json"; fail=1; }
}
for m in kenney-level kenney-simple-map; do
	check "$m" "$m" --path=pingpong --speed=8 --no-dedup
	check "$m-dedup" "$m" --path=pingpong --speed=8 --dedup
done
check industrial-platformer industrial-platformer --path=pingpong --speed=8 --layer-bpp=Background:8 --no-dedup
check industrial-platformer-dedup industrial-platformer --path=pingpong --speed=8 --layer-bpp=Background:8 --dedup
check industrial-diagonal-dedup industrial-platformer --path=diagonal --speed=8 --layer-bpp=Background:8 --dedup
exit $fail
