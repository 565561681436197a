/* `bump`: linear allocator with markers, from the seed's notes on linear allocators
 * (docs/design.md, "Where the source articles' ideas live"): allocation moves a pointer up; a marker remembers the pointer; resetting to a
 * marker frees, at once, everything allocated after it ("allocate the level data, then reset to
 * the stored pointer when the level ends"). There is no single-block free (the core's free is
 * NULL: a replay stops with "this core cannot free single blocks").
 *
 * agb_bump_mark(b, n) pushes marker n at the current top; agb_bump_reset(b, n) moves the top back
 * to the newest marker n and forgets markers set after it (n itself stays, so a level can be
 * restarted). Trace ops ["mark", n] and ["reset", n] (docs/trace-format.md) map onto them.
 *
 * Bookkeeping: the top pointer and a marker table of up to AGB_BUMP_MARKS (id, address) pairs in
 * the meta area (in the arena head when there is no meta area). Allocations have no headers:
 * 4-byte granularity, so every block is word-aligned. All accesses 32-bit. Freestanding. */
#ifndef AGB_BUMP_H
#define AGB_BUMP_H

/* Abuse (agb/heap.h): no single free. In every build realloc refuses (AGB_NULL, nothing
 * changed) an address off the 4-byte grid or outside [start, top) - a foreign address, one in
 * free space - in O(1); an address inside a block cannot be told from a block's start without
 * headers (there are none) and is served as a block that reaches top (its bytes are copied, no
 * metadata is touched). realloc of a size near 2^32 and alloc with an alignment beyond the
 * pool return AGB_NULL; reset of a marker never set fails (AGB_VERB_FAILED).
 * AGB_HEAP_CHECKED adds nothing here. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_BUMP_MARKS 32u

typedef struct agb_bump {
	agb_machine *m;
	uint32_t arena, arena_end;
	uint32_t start;  /* first allocatable byte (after an in-arena marker table) */
	uint32_t top;    /* next free byte */
	uint32_t last;   /* most recent block, AGB_NULL when unknown: realloc grows it in place */
	uint32_t floor;  /* address of the newest marker: in-place growth never crosses it */
	uint32_t marks;  /* marker table address */
	uint32_t nmarks;
} agb_bump;

/* Prepares an empty pool. Returns AGB_HEAP_OK, AGB_HEAP_BAD_ALIGNMENT (arena/meta not
 * 4-aligned) or AGB_HEAP_ARENA_TOO_SMALL (no byte left after an in-arena marker table). O(1). */
int agb_bump_init(agb_bump *b, agb_machine *m, const struct agb_heap_config *cfg);

/* Returns top rounded up to max(align, 4) and moves top past size (rounded up to 4; 0 counts as
 * 4), or AGB_NULL when the pool end would be passed. *granted gets the rounded size. O(1). */
uint32_t agb_bump_alloc(agb_bump *b, uint32_t size, uint32_t align, uint32_t *granted);

/* Grows or shrinks the most recent block in place (when it lies above the newest marker).
 * Any other block moves: there are no headers, so the old size is unknown; the core allocates
 * anew and copies (32-bit) min(new size, top - addr) bytes, which covers the old block; the old
 * block stays dead until a reset.
 * AGB_NULL with the old block untouched on failure. O(1) + O(copy). */
uint32_t agb_bump_realloc(agb_bump *b, uint32_t addr, uint32_t size, uint32_t *granted);

/* Records the current top as `marker` (any 32-bit id; the newest of equal ids wins). Returns
 * AGB_VERB_DONE, or AGB_VERB_FAILED when AGB_BUMP_MARKS markers are held. O(1). */
int agb_bump_mark(agb_bump *b, uint32_t marker);

/* Frees, at once, everything allocated after the newest `marker` and forgets newer markers
 * (the marker itself stays). Returns AGB_VERB_DONE, or AGB_VERB_BAD for an unknown marker
 * (nothing changed). O(markers). */
int agb_bump_reset(agb_bump *b, uint32_t marker);

/* One free run: top..end. O(1). */
void agb_bump_stats(agb_bump *b, struct agb_heap_stats *out);

/* META (in-arena marker table), USED start..top, FREE top..end. O(1). */
void agb_bump_walk(agb_bump *b, agb_walk_fn fn, void *ctx);

/* 0 when start <= floor <= top <= end, markers are in the pool and non-decreasing; else 1.
 * Uncounted. O(markers). */
int agb_bump_check(agb_bump *b, const char **why);

/* The marker table. O(1). */
uint32_t agb_bump_overhead_bytes(const agb_bump *b);

extern const struct agb_heap_core agb_bump_core;

#ifdef __cplusplus
}
#endif

#endif
