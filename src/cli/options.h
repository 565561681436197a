/* Option values shared by several subcommands. */
#ifndef AGBSIM_OPTIONS_H
#define AGBSIM_OPTIONS_H

#include <errno.h>
#include <stdint.h>

#include "agb/heap.h"
#include "agb/replay.h"
#include "agb/trace.h"

/* Parses a decimal or 0x-hex unsigned 32-bit integer, whole string. Returns 0 or -1. */
int agbsim_parse_u32(const char *s, uint32_t *out);

/* "ewram" | "iwram". Returns 0 or -1. */
int agbsim_parse_meta(const char *s, enum agb_meta_region *out);

/* The core named `name` (NULL: the arena's default), checked against the trace's arena.
 * Prints why and returns AGBSIM_EXIT_USAGE when it cannot run this trace. */
int agbsim_pick_core(const char *name, const struct agb_trace *t, const struct agb_heap_core **out);

#endif
