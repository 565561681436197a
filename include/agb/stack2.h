/* `stack2`: double-ended linear allocator, from the seed's notes on linear and double-ended
 * allocators (docs/design.md, "Where the source articles' ideas live"): one side grows up from the pool start, the other grows down from its end, so
 * the data of the section being played and of the section being loaded can each take more than
 * half of the pool as long as both together fit.
 *
 * How a trace picks the side: the extension op ["side", s] (s = 0 low/up, 1 high/down) selects
 * the side that later allocations and marks use; a trace starts on the low side, so a trace
 * without side ops behaves as `bump`. An explicit op (rather than a size threshold) because the
 * side follows the game's phase - which section a piece of data belongs to - not its size.
 * agb_stack2_mark(s, n) records the current side's top; agb_stack2_reset(s, n) moves that
 * marker's own side back to it (whatever the current side is) and forgets the markers of that
 * side set after it; the other side is untouched. There is no single-block free (free is NULL).
 *
 * Bookkeeping: two tops and a marker table of AGB_STACK2_MARKS (id, address | side) pairs in the
 * meta area (arena head without one). 4-byte granularity, no headers, 32-bit accesses only. */
#ifndef AGB_STACK2_H
#define AGB_STACK2_H

/* Abuse (agb/heap.h): no single free. In every build realloc refuses (AGB_NULL, nothing
 * changed) an address off the 4-byte grid or in neither side's blocks ([start, low) and
 * [high, end)) - a foreign address, one in the free gap - in O(1); an address inside a block
 * cannot be told from a block's start without headers (there are none) and is served as a
 * block that reaches its side's top (its bytes are copied, no metadata is touched). realloc of
 * a size near 2^32 and alloc with an alignment beyond the pool return AGB_NULL; reset of a
 * marker never set fails (AGB_VERB_FAILED). AGB_HEAP_CHECKED adds nothing here. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_STACK2_MARKS 32u

typedef struct agb_stack2 {
	agb_machine *m;
	uint32_t arena, arena_end;
	uint32_t start;          /* first byte of the low side */
	uint32_t low, high;      /* low: next free byte going up; high: lowest used byte going down */
	uint32_t side;           /* 0 low, 1 high: where alloc and mark go */
	uint32_t last_low;       /* most recent low block (AGB_NULL: unknown): grows in place */
	uint32_t floor_low;      /* newest low marker: in-place growth never crosses it */
	uint32_t marks, nmarks;
} agb_stack2;

/* Prepares an empty pool, current side low. Returns AGB_HEAP_OK, AGB_HEAP_BAD_ALIGNMENT or
 * AGB_HEAP_ARENA_TOO_SMALL (nothing left after an in-arena marker table). O(1). */
int agb_stack2_init(agb_stack2 *s, agb_machine *m, const struct agb_heap_config *cfg);

/* On the current side: low returns the low top rounded up to max(align, 4) and moves it up;
 * high moves the high top down by the size (rounded up to 4) and rounds it down to the
 * alignment. AGB_NULL when the two sides would cross. *granted: the rounded size. O(1). */
uint32_t agb_stack2_alloc(agb_stack2 *s, uint32_t size, uint32_t align, uint32_t *granted);

/* The most recent low block above the newest low marker is resized in place; any other block
 * moves to the current side (copying min(new size, bytes up to its side's top/end), 32-bit) and
 * the old one stays dead until a reset of its side. AGB_NULL, old untouched, on failure.
 * O(1) + O(copy). */
uint32_t agb_stack2_realloc(agb_stack2 *s, uint32_t addr, uint32_t size, uint32_t *granted);

/* Makes later allocations and marks use side 0 (low, growing up) or 1 (high, growing down).
 * Returns AGB_VERB_DONE, or AGB_VERB_BAD (nothing changed) for any other side. O(1). */
int agb_stack2_side(agb_stack2 *s, uint32_t side);

/* Records the current side's top as `marker` (any 32-bit id; ids may repeat, the newest wins).
 * Returns AGB_VERB_DONE, or AGB_VERB_FAILED when AGB_STACK2_MARKS markers are held. O(1). */
int agb_stack2_mark(agb_stack2 *s, uint32_t marker);

/* Frees, at once, everything the newest `marker`'s side allocated after it; forgets that side's
 * newer markers (the marker itself stays). Returns AGB_VERB_DONE, or AGB_VERB_BAD for an unknown
 * marker (nothing changed). O(markers). */
int agb_stack2_reset(agb_stack2 *s, uint32_t marker);

/* One free run: between the two tops. O(1). */
void agb_stack2_stats(agb_stack2 *s, struct agb_heap_stats *out);

/* META (in-arena table), USED low side, FREE gap, USED high side. O(1). */
void agb_stack2_walk(agb_stack2 *s, agb_walk_fn fn, void *ctx);

/* 0 when start <= low <= high <= end and each side's markers are monotone and within its used
 * part; else 1 with *why. Uncounted. O(markers). */
int agb_stack2_check(agb_stack2 *s, const char **why);

/* The marker table. O(1). */
uint32_t agb_stack2_overhead_bytes(const agb_stack2 *s);

extern const struct agb_heap_core agb_stack2_core;

#ifdef __cplusplus
}
#endif

#endif
