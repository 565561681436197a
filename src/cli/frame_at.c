/* Frame numbers to event ranges and back (frame_at.h). */
#include "cli/frame_at.h"

int agbsim_frame_range(const struct agb_trace *t, uint32_t n, uint32_t *first, uint32_t *last)
{
	uint32_t seen = 0, start = 0;
	if (n == 0)
		return -1;
	for (uint32_t i = 0; i < t->event_count; i++) {
		if (t->events[i].op != AGB_OP_FRAME)
			continue;
		if (++seen == n) {
			*first = start;
			*last = i;
			return 0;
		}
		start = i + 1u;
	}
	/* The stretch after the last frame event, when there is one. */
	if (n == seen + 1u && start < t->event_count) {
		*first = start;
		*last = t->event_count - 1u;
		return 0;
	}
	return -1;
}

uint32_t agbsim_frame_of_event(const struct agb_trace *t, uint32_t event)
{
	uint32_t frame = 1;
	for (uint32_t i = 0; i < event && i < t->event_count; i++)
		frame += t->events[i].op == AGB_OP_FRAME;
	return frame;
}
