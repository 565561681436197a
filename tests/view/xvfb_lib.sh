# Sourced by the window tests (window_xvfb*.sh). xvfb_prepare AGBSIM PNG_CHECK INPUT WORKDIR: sets
# agbsim, check and input; exit 77 (skipped) without xvfb-run, else a fresh WORKDIR as the
# current directory and an empty stderr.txt. in_window
# ARGS...: `agbsim view ARGS...` in a real window (x11 video driver, not a dummy one) on an Xvfb
# display, its stderr appended to stderr.txt; a failure prints it and exits 1. Needs $agbsim.
xvfb_prepare() {
	agbsim=$1 check=$2 input=$3
	if ! command -v xvfb-run >/dev/null 2>&1; then
		echo "xvfb-run not found (Debian package xvfb): skipping"
		exit 77
	fi
	rm -rf "$4"
	mkdir -p "$4"
	cd "$4"
	: >stderr.txt
}

in_window() {
	SDL_VIDEODRIVER=x11 xvfb-run -a -s "-screen 0 1024x768x24" "$agbsim" view "$@" 2>>stderr.txt || {
		cat stderr.txt
		exit 1
	}
}
