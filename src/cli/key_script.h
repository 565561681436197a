/* key_script.h — a button script for a game run in libmgba (agbsim budget; the format of
 * `agbsim record --input`, docs/recording.md): lines "FRAME KEY..." giving the keys held from
 * that frame on; '-' none; '#' starts a comment. */
#ifndef AGBSIM_KEY_SCRIPT_H
#define AGBSIM_KEY_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

struct agbsim_key_step {
	uint32_t frame,
	        keys; /* keys: mGBA's bits, A=1 B=2 SELECT=4 START=8 RIGHT LEFT UP DOWN R L */
};

struct agbsim_key_script {
	struct agbsim_key_step *steps; /* frames increasing */
	size_t n;
};

/* Reads PATH into *sc (free sc->steps). Returns AGBSIM_EXIT_OK, or an exit status after an
 * "agbsim: FILE:LINE:COL: message" (bad line: 2) or an I/O error (3). O(file). */
int agbsim_key_script_load(const char *path, struct agbsim_key_script *sc);

#endif
