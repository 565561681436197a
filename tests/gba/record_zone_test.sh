#!/bin/sh
# record_zone_test.sh AGBSIM PYTHON CHECK NM ZONE_ELF OUTDIR
# agbsim-record-zone (src/gba/roms/record_zone.c: -O3 -flto, its own zone allocator inside one
# block of newlib's heap, a level load behind forced blank, an out-of-memory ending) recorded
# twice: on newlib's malloc (the one big block after a retry loop) and with --symbols naming the
# zone allocator (which LTO cloned); then a misspelt name. record_zone_check.py holds the traces
# and the summaries to the game's own log.
set -e
agbsim=$1 python=$2 check=$3 nm=$4 elf=$5 out=$6
mkdir -p "$out"
"$nm" "$elf" | grep -q ' Z_Malloc\.constprop\.[0-9]' || { echo "no Z_Malloc.constprop clone in the ROM"; exit 1; }
"$agbsim" record "$elf" --frames 120 -o "$out/zone-newlib.json" --game-log "$out/zone.log" \
	2> "$out/zone-newlib.err"
"$agbsim" record "$elf" --frames 120 --symbols alloc=Z_Malloc,free=Z_Free \
	-o "$out/zone-symbols.json" 2> "$out/zone-symbols.err"
rc=0
"$agbsim" record "$elf" --symbols alloc=Z_Maloc,free=Z_Free -o "$out/zone-bad.json" \
	2> "$out/zone-bad.err" > "$out/zone-bad.out" || rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$out/zone-bad.out" ] || { echo "misspelt name: exit $rc"; exit 1; }
# One pool flag: --pool on record, replay and view (--arena-bytes: the same).
"$agbsim" record "$elf" --frames 60 --symbols alloc=Z_Malloc,free=Z_Free --pool 65536 -q \
	-o "$out/zone-pool.json"
grep -q '"arena_bytes":65536' "$out/zone-pool.json" || { echo "record --pool not in the trace"; exit 1; }
"$agbsim" replay "$out/zone-symbols.json" --pool 70000 | grep -q 'ewram, 70000 bytes' ||
	{ echo "replay --pool not used"; exit 1; }
"$agbsim" view "$out/zone-symbols.json" --pool 70000 --snapshot="$out/zone-view.png" 2>/dev/null ||
	{ echo "view --pool refused"; exit 1; }
# The loader keeps the sites: the HTML report's top call sites name the game's functions.
"$agbsim" replay "$out/zone-symbols.json" --html="$out/zone.html" > /dev/null
grep -q '<td>load_level+0x[0-9a-f]*</td>' "$out/zone.html" ||
	{ echo "the HTML report names no call site"; exit 1; }
# The refused requests are asked of the core the trace is replayed on (newlib's, on the GBA).
"$agbsim" measure "$out/zone-newlib.json" --allocator=newlib --no-min-arena > "$out/zone-newlib-replay.txt"
"$python" "$check" "$out"
