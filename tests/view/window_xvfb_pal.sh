#!/bin/sh
# The window on palette RAM under Xvfb: palstack stepped to its second palette push, the pointer
# over a swatch of the top frame, then a shared bank on palbanks; `s` saves each picture with the
# hover panel (owner, stack frame, references). Exit 77 (skipped) without xvfb-run.
# usage: window_xvfb_pal.sh AGBSIM PNG_CHECK DATA_DIR WORKDIR
set -eu
. "$(dirname "$0")/xvfb_lib.sh"
xvfb_prepare "$@"
# Swatch centres: x = 8 + 64 + 28 * colour + 13, y = 8 + 16 * bank row + 7 (OBJ rows from 16).
in_window "$input/small-palstack.json" --allocator=palstack --paused \
	--script 'right,right,right,hover:169:15,s,q'
in_window "$input/small-pal.json" --allocator=palbanks --paused --script 'right,hover:169:511,s,q'
cat stderr.txt
"$check" agbsim-small-palstack-e3.png 848 612 12
"$check" agbsim-small-pal-e1.png 848 612 12
echo "ok"
