/* `slots`: static slot classes fixed up front - the "manual" memory plan the seed
 * (docs/design.md, "Where the source articles' ideas live") argues against, kept as a baseline.
 *
 * Nine classes of 16, 32, ..., 4096 bytes. The fixed rule: every class gets the same byte budget,
 * floor(arena_bytes / 9) rounded down to a whole number of its slots (a 256 KiB pool: 1820 x 16,
 * 910 x 32, 455 x 64, 227 x 128, 113 x 256, 56 x 512, 28 x 1024, 14 x 2048, 7 x 4096). Classes are
 * laid out largest first, so every slot is aligned to its own size relative to the arena start.
 * A request uses the smallest class that holds max(size, align) and fails when that class is
 * empty - no borrowing from bigger classes, as with per-type pools sized at design time - and
 * always fails above 4096 bytes.
 *
 * Meta area: per-class free-list heads (the lists are threaded through free slots) and a used
 * bitmap of one bit per slot (for check and walk; alloc/free keep it current). O(1) alloc, free
 * O(classes) to find the class of an address. 32-bit accesses only. Freestanding. */
#ifndef AGB_SLOTS_H
#define AGB_SLOTS_H

/* Abuse (agb/heap.h). Every build: free and realloc refuse untouched (free does nothing,
 * realloc returns AGB_NULL) every address that is not a used slot - outside the classes, off
 * its class's slot grid (an interior address), or a slot whose used bit is clear (a double
 * free) - from the bitmap word free updates anyway. O(classes), like free itself.
 * Checking build (AGB_HEAP_CHECKED): the same refusals through a walk of the pool, recorded
 * in agb_heap_abuse (core "slots"). Sizes near 2^32 and alignments beyond the pool return
 * AGB_NULL in every build. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_SLOTS_CLASSES 9u
#define AGB_SLOTS_MIN_LOG2 4u

typedef struct agb_slots {
	agb_machine *m;
	uint32_t arena, arena_end;
	uint32_t heads;  /* meta: one word per class */
	uint32_t bitmap; /* meta: one bit per slot, classes in index order */
	uint32_t meta_bytes;
	uint32_t max_align;
	uint32_t base[AGB_SLOTS_CLASSES];  /* first slot of each class */
	uint32_t count[AGB_SLOTS_CLASSES]; /* slots per class */
	uint32_t index[AGB_SLOTS_CLASSES]; /* bitmap index of each class's first slot */
	uint32_t free_count[AGB_SLOTS_CLASSES]; /* observation counters */
	uint32_t end;                           /* end of the last class; the rest is unused */
} agb_slots;

/* Lays out the classes by the rule above. Returns AGB_HEAP_OK; AGB_HEAP_BAD_ALIGNMENT (arena
 * not 16-aligned, meta not 4-aligned); AGB_HEAP_ARENA_TOO_SMALL (some class would get no slot:
 * under 9 x 4096 bytes); AGB_HEAP_META_TOO_SMALL (no room for heads and bitmap). O(slots). */
int agb_slots_init(agb_slots *s, agb_machine *m, const struct agb_heap_config *cfg);

/* Pops a slot of the smallest class >= max(size, align), or AGB_NULL when that class has none
 * left or the request exceeds 4096. *granted (may be NULL) gets the class size. O(classes). */
uint32_t agb_slots_alloc(agb_slots *s, uint32_t size, uint32_t align, uint32_t *granted);

/* Pushes the slot back on its class's list. AGB_NULL is ignored. O(classes). */
void agb_slots_free(agb_slots *s, uint32_t addr);

/* In place when the new size still fits the slot; else alloc + copy (32-bit) + free; AGB_NULL
 * with the old slot untouched on failure. O(classes) + O(slot) when it moves. */
uint32_t agb_slots_realloc(agb_slots *s, uint32_t addr, uint32_t size, uint32_t *granted);

/* Each free slot is a run (a request cannot span slots). From counters, O(classes). */
void agb_slots_stats(agb_slots *s, struct agb_heap_stats *out);

/* Every slot in address order (USED/FREE), then the unused tail as META. Uncounted. O(slots). */
void agb_slots_walk(agb_slots *s, agb_walk_fn fn, void *ctx);

/* 0 when every list entry is a free, aligned slot of its class, each list holds exactly the
 * class's clear bitmap bits and the counters agree; else 1 with *why. Uncounted. O(slots). */
int agb_slots_check(agb_slots *s, const char **why);

/* Meta bytes (heads + bitmap) + the unused arena tail. O(1). */
uint32_t agb_slots_overhead_bytes(const agb_slots *s);

extern const struct agb_heap_core agb_slots_core;

#ifdef __cplusplus
}
#endif

#endif
