#!/bin/sh
# equivalence.sh AGBSIM TRACE — for every core that can run TRACE (every core `agbsim list` shows
# for its arena, so a new core is covered as soon as it is registered) and for both code
# placements (--placement=rom: Thumb in ROM; --placement=iwram: the core as ARM code in IWRAM),
# the GBA run (agbsim measure, bench ROM in mGBA) and the host run (agbsim replay) make the same
# decisions: the --events-out lines agree on everything but the cycle fields, and measure itself
# checks the final walk() (free-run list) and exits 3 on any disagreement. GBA-only reference
# cores (marked so in `agbsim list`) have no host run to compare with and are skipped.
set -u
agbsim=$1
trace=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
arena=$(sed -n 's/.*"arena" *: *"\([a-z_]*\)".*/\1/p' "$trace" | head -n 1)
cores=$("$agbsim" list | awk -v a="$arena" 'NR > 1 && index("," $2 ",", "," a ",") && !/GBA-only/ { print $1 }')
[ -n "$cores" ] || { echo "no core manages arena '$arena' of $trace"; exit 1; }
ran=0
fail=0
for core in $cores; do
    "$agbsim" replay "$trace" --allocator="$core" --no-min-arena --events-out "$tmp/host" \
        > /dev/null 2> "$tmp/herr"
    rc=$?
    if [ $rc -eq 2 ]; then
        # The core cannot serve this trace's ops (e.g. spr_* without a shadow OAM): n/a, as bench says.
        echo "n/a   $core: $(head -c 200 "$tmp/herr")"
        continue
    fi
    [ $rc -eq 0 ] || { echo "FAIL  $core: host replay exit $rc: $(cat "$tmp/herr")"; fail=1; continue; }
    sed 's/,"cycles":.*//' "$tmp/host" > "$tmp/host.cut"
    for placement in rom iwram; do
        if ! "$agbsim" measure "$trace" --allocator="$core" --placement=$placement --no-min-arena \
            --events-out "$tmp/gba" > /dev/null 2> "$tmp/gerr"; then
            echo "FAIL  $core ($placement): measure: $(cat "$tmp/gerr")"
            fail=1
            continue
        fi
        sed 's/,"cycles":.*//' "$tmp/gba" > "$tmp/gba.cut"
        if ! cmp -s "$tmp/host.cut" "$tmp/gba.cut"; then
            echo "FAIL  $core ($placement): placements differ (first lines that differ):"
            diff "$tmp/host.cut" "$tmp/gba.cut" | head -n 6
            fail=1
            continue
        fi
        echo "same  $core ($placement): $(wc -l < "$tmp/host") events"
        ran=$((ran + 1))
    done
done
[ $ran -gt 0 ] || { echo "no core ran $trace"; exit 1; }
exit $fail
