#!/bin/sh
# Opens the real viewer window on an Xvfb display (x11 video driver, not a dummy one), steps it
# with synthetic key events (the hidden --script option pushes SDL key events, the same path as
# real keys), saves a snapshot with `s` and checks the PNG. Exit 77 (skipped) without xvfb-run.
# usage: window_xvfb.sh AGBSIM PNG_CHECK TRACE WORKDIR
set -eu
. "$(dirname "$0")/xvfb_lib.sh"
xvfb_prepare "$@"
# Paused at event 0; right x3 -> event 3; shift+right -> the next frame event (5); hover the
# first block; s saves agbsim-small-obj-e5.png; right -> 6; s again; q quits.
in_window "$input" --allocator=obj --paused \
	--script 'right,right,right,shift+right,hover:20:20,s,right,s,q'
cat stderr.txt
"$check" agbsim-small-obj-e5.png 848 612 6
"$check" agbsim-small-obj-e6.png 848 612 6
# Stepping changed the picture: event 6 placed id 4 in block 0.
if cmp -s agbsim-small-obj-e5.png agbsim-small-obj-e6.png; then
	echo "snapshots at events 5 and 6 are identical: the steps did not reach the replay"
	exit 1
fi
# --at peak starts the window paused at the peak (event 3 of small-obj): s saves it there.
in_window "$input" --allocator=obj --at peak --script 's,q'
"$check" agbsim-small-obj-e3.png 848 612 6
echo "ok"
