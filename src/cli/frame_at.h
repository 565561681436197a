/* Frames as the reports number them: frame N (1-based) holds the events after frame event
 * N - 1 up to and including frame event N, as `view --at=frame:N` shows them; a stretch of
 * events after the last frame event is one more frame. */
#ifndef AGBSIM_FRAME_AT_H
#define AGBSIM_FRAME_AT_H

#include <stdint.h>

#include "agbsim/trace.h"

/* The events of frame n (1-based) of t: 0 with [*first, *last] set, or -1 when t has no such
 * frame. O(events). */
int agbsim_frame_range(const struct agb_trace *t, uint32_t n, uint32_t *first, uint32_t *last);

/* The frame (1-based) event `event` belongs to. O(events). */
uint32_t agbsim_frame_of_event(const struct agb_trace *t, uint32_t event);

#endif
