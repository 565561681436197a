/* Call sites of a trace's allocations, for the HTML report's "top call sites" and the gate's
 * leak report. A trace names a site per event when its recorder stored one (agbsim record);
 * the lookup is a function so that every trace format plugs in here, once. */
#ifndef AGBSIM_SITES_H
#define AGBSIM_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "agbsim/trace.h"

/* The call site of event `event` of t ("file.c:12 fn"), or NULL when the trace names none. */
typedef const char *(*agbsim_site_fn)(const void *ctx, const struct agb_trace *t, uint32_t event);

/* The lookup for traces as loaded (trace_load.h): the {"site": S} of an event's options
 * object (docs/trace-format.md), NULL for an event without one or a trace not loaded. */
const char *agbsim_trace_site(const void *ctx, const struct agb_trace *t, uint32_t event);

struct agbsim_site_total {
	const char *site;    /* borrowed from the lookup */
	uint64_t bytes;      /* requested by its allocs and reallocs */
	uint32_t count;      /* allocs and reallocs */
	uint32_t live_bytes; /* of them still live after the last event */
	uint32_t live_count;
};

/* Groups t's allocations (alloc, realloc) by site, largest first: by live_bytes when
 * by_live (a leak's sites; sites with nothing live left out), else by bytes. Fills at most max
 * entries of out and returns how many; 0 when no event names a site (or out of memory).
 * O(events x sites). */
size_t agbsim_top_sites(const struct agb_trace *t, agbsim_site_fn site, const void *ctx,
			int by_live, struct agbsim_site_total *out, size_t max);

#endif
