/* agbsim-frame.h - frame marks for a host build recorded with scripts/record-mtrace.
 *
 * Call AGBSIM_FRAME() once per game frame (where the GBA build waits for V-blank) and
 * AGBSIM_LOAD_FRAME() at the end of a frame spent loading (level load, screen fill, teardown):
 * `agbsim convert --from mtrace` turns them into ["frame"] and ["frame", "load"], so the replay
 * reports the frame budget of the recorded game. Each mark is a malloc of a size no allocator can
 * serve (glibc fails it at once and mtrace logs "+ (nil) SIZE"); the pointer goes through a
 * volatile so the compiler keeps the call. Without the recorder the marks cost a failed malloc
 * each and change nothing. Copy this header into the host build of your game; no library is
 * needed. */
#ifndef AGBSIM_FRAME_H
#define AGBSIM_FRAME_H

#include <stdint.h>
#include <stdlib.h>

#if SIZE_MAX > 0xffffffffu
#define AGBSIM_FRAME_SIZE ((size_t)0xa6b5f00000000000ull)
#else
#define AGBSIM_FRAME_SIZE ((size_t)0xa6b5f000u)
#endif

static inline void agbsim_frame_mark(int loading)
{
	volatile size_t size = AGBSIM_FRAME_SIZE + (loading ? 1u : 0u);
	void *volatile p = malloc(size);
	free(p);
}

#define AGBSIM_FRAME() agbsim_frame_mark(0)
#define AGBSIM_LOAD_FRAME() agbsim_frame_mark(1)

#endif
