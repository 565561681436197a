#!/bin/sh
# Runs a Windows program of the mingw build under Wine: the cross-compiling emulator of its
# tests (CMakeLists.txt). Without Wine it exits 77, which CTest reports as "Skipped", so a
# Windows test is never counted as passed when it did not run.
# usage: wine.sh WINEPREFIX PROGRAM.exe [ARGS...]
#        wine.sh --if-wine COMMAND [ARGS...]    (a test driver: run only when Wine is installed)
# AGBSIM_WINE: another wine program (a path; one that does not exist stands for no Wine).
wine=${AGBSIM_WINE:-$(command -v wine || command -v wine64)}
if [ -z "$wine" ] || [ ! -x "$wine" ]; then
	echo "wine.sh: Wine is not installed (scripts/setup --windows): Windows test skipped" >&2
	exit 77
fi
if [ "$1" = --if-wine ]; then
	shift
	exec "$@"
fi
prefix=$1
shift
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# One Wine server for the whole run, staying up a minute after its last program exits. Wine's own
# server quits as soon as its last program does, and a test starting in that moment fails with
# "wine client error:0: recvmsg: Connection reset by peer" (seen in CI). Starting it when one
# already runs does nothing (the second exits 2 at once). It needs the prefix directory to exist.
server=$(dirname "$wine")/wineserver
start_server() {
	if [ -x "$server" ]; then
		mkdir -p "$prefix"
		"$server" -p60 </dev/null >/dev/null 2>&1 || true
	fi
}
start_server
# The first run creates the prefix (a few seconds); tests running in parallel wait for it.
if [ ! -f "$prefix/.agbsim-ready" ]; then
	if mkdir "$prefix.lock" 2>/dev/null; then
		"$wine" cmd /c exit >/dev/null 2>&1
		touch "$prefix/.agbsim-ready"
		rmdir "$prefix.lock"
	else
		n=0
		while [ ! -f "$prefix/.agbsim-ready" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
	fi
fi
exec "$wine" "$@"
