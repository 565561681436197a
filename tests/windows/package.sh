#!/bin/sh
# The Windows release archive (CPack ZIP of the mingw build): it holds agbsim.exe, the README and
# the shipped traces; agbsim.exe imports only DLLs every Windows has (no DLL to ship beside it);
# unpacked, it replays one of its traces under Wine and prints the report agbsim.exe prints in
# the build tree.
# usage: package.sh SOURCE_DIR BUILD_DIR OBJDUMP SCRATCH_DIR
set -u
src=$1 build=$2 objdump=$3 scratch=$4
wine() { sh "$src/tests/windows/wine.sh" "$build/wineprefix" "$@"; }
fail=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fail=1; }
rm -rf "$scratch"
mkdir -p "$scratch" || exit 2
cpack --config "$build/CPackConfig.cmake" -B "$scratch" >"$scratch/cpack.log" 2>&1 || {
	cat "$scratch/cpack.log"
	exit 1
}
zip=$(ls "$scratch"/agbsim-*-windows-x86_64.zip 2>/dev/null | head -n 1)
[ -n "$zip" ] || { bad "no agbsim-*-windows-x86_64.zip made"; exit 1; }
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip" "$scratch/x" || exit 1
top=$scratch/x/$(basename "$zip" .zip)
for f in agbsim.exe README.md traces/ewram/jq-level.json traces/baseline.json traces/bg/maps; do
	if [ -e "$top/$f" ]; then ok "holds $f"; else bad "no $f in the archive"; fi
done
# Windows' own DLLs only: the C runtime, the kernel and Winsock (libxml2).
dlls=$("$objdump" -p "$top/agbsim.exe" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u | tr '\n' ' ')
others=$(printf '%s\n' $dlls | grep -v -x -e kernel32.dll -e msvcrt.dll -e ws2_32.dll -e advapi32.dll -e user32.dll)
if [ -n "$dlls" ] && [ -z "$others" ]; then ok "imports only Windows DLLs: $dlls"; else bad "imports $dlls"; fi
(cd "$top" && wine agbsim.exe replay 'traces\ewram\jq-level.json' --allocator=tree) >"$scratch/unpacked.txt" 2>/dev/null
(cd "$src" && wine "$build/agbsim.exe" replay 'traces\ewram\jq-level.json' --allocator=tree) >"$scratch/tree.txt" 2>/dev/null
if [ -s "$scratch/unpacked.txt" ] && cmp -s "$scratch/unpacked.txt" "$scratch/tree.txt"; then
	ok "the unpacked agbsim.exe replays its traces"
else
	bad "the unpacked agbsim.exe: no report, or not the build's"
fi
exit $fail
