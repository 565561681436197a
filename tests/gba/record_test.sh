#!/bin/sh
# record_test.sh AGBSIM PYTHON CHECK GAME_ELF GAME_GBA INPUT OUTDIR heap|symbols|obj|bg
# Records agbsim-record-game for 200 frames (its game lasts 150 after START), compares the trace
# with the game's own log (record_check.py: exactly the same events), then replays the recording
# on every core that can serve its arena; the heap recording also on newlib in the GBA build,
# the allocator the game itself called. `symbols` records the heap through --symbols naming
# newlib's reentrant functions, whose C arguments come after a struct _reent * (NAME:1): the
# same events. Any failure exits non-zero.
set -e
agbsim=$1 python=$2 check=$3 elf=$4 gba=$5 input=$6 out=$7 mode=$8
mkdir -p "$out"
trace=$out/record-$mode.json log=$out/record-$mode.log want=$mode
case $mode in
heap) "$agbsim" record "$elf" --frames 200 --input "$input" -o "$trace" --game-log "$log"
      cores="tree bestfit tlsf buddy firstfit slots" ;;
symbols) "$agbsim" record "$elf" --frames 200 --input "$input" -o "$trace" --game-log "$log" \
	  --symbols alloc=_malloc_r:1,free=_free_r:1,realloc=_realloc_r:1,calloc=_calloc_r:1,memalign=_memalign_r:1
      want=heap cores="tree" ;;
obj)  "$agbsim" record "$gba" --vram=obj --frames 200 --input "$input" -o "$trace" --game-log "$log"
      cores="tree obj obj-fast oam tlsf buddy firstfit" ;;
bg)   "$agbsim" record "$gba" --vram=bg --frames 200 --input "$input" -o "$trace" --game-log "$log"
      cores="tiles" ;;
esac
"$python" "$check" "$want" "$trace" "$log"
for core in $cores; do
	"$agbsim" replay "$trace" --allocator="$core" --format=json > "$out/replay-$mode-$core.json"
	grep -q '"failures": 0' "$out/replay-$mode-$core.json"
	echo "replay $mode on $core: ok, no failures"
done
if [ "$mode" = heap ]; then
	"$agbsim" measure "$trace" --allocator=newlib > "$out/measure-newlib.txt"
	echo "measure heap on newlib (the game's own allocator, in mGBA): ok"
fi
