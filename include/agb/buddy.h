/* `buddy`: binary buddy allocator (Knowlton 1965; Knuth TAOCP vol. 1, 2.5), written anew for
 * the GBA machine, with all bookkeeping outside the arena.
 *
 * The pool is cut into 16-byte units; a block of order k is 16 << k bytes at an offset (from the
 * arena start) that is a multiple of its size, and its buddy is at offset ^ size. A pool that is
 * not a power of two is covered by the largest aligned blocks that fit, left to right; a block
 * whose buddy would reach past the end simply never merges. Allocated blocks carry no header, so
 * the whole block is usable and any alignment up to the block size comes for free.
 *
 * Meta area (IWRAM by default for EWRAM pools): an order map of 4 bits per unit (the order of the
 * block starting there, written only at block starts), a free bitmap of 1 bit per unit (set only
 * at the start of a free block), and one list head per order. Free blocks are linked through
 * their own first two words (next, prev), which costs nothing since the memory is free.
 * 256 KiB pool: 8 KiB order map + 2 KiB bitmap + 60 B heads.
 *
 * alloc and free are O(orders) = O(log pool). Accesses are 16/32-bit only (VRAM-safe). */
#ifndef AGB_BUDDY_H
#define AGB_BUDDY_H

/* Abuse (agb/heap.h). Every build: the order map marks units that start no block (value 15),
 * so free and realloc refuse untouched (free does nothing, realloc returns AGB_NULL) every
 * address that is not a used block: off the 16-byte grid, outside the pool, not a block start
 * (an interior address, or a block that merged into a bigger one) or a free block (a double
 * free). O(1): one order-map and one bitmap load, plus one order-map store per merge.
 * Checking build (AGB_HEAP_CHECKED): the same refusals through a walk of the pool, recorded
 * in agb_heap_abuse (core "buddy"). Sizes near 2^32 and alignments beyond the pool return
 * AGB_NULL in every build. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_BUDDY_UNIT 16u
#define AGB_BUDDY_ORDERS 15u /* 16 B .. 256 KiB */

typedef struct agb_buddy {
	agb_machine *m;
	uint32_t arena, bytes; /* bytes: whole units only */
	uint32_t tail;         /* arena bytes past the last unit */
	uint32_t units;
	uint32_t orders;   /* orders in use: the largest block of the pool is order orders - 1 */
	uint32_t ordermap; /* meta: 4 bits per unit, 4 units per halfword */
	uint32_t freemap;  /* meta: 1 bit per unit, 32 per word */
	uint32_t heads;    /* meta: one word per order */
	uint32_t meta_bytes;
	uint32_t max_align; /* alignment of the arena start (blocks are aligned relative to it) */
	/* Observation-only counters for stats(). */
	uint32_t free_bytes, free_runs;
	uint64_t free_sq;
} agb_buddy;

/* Prepares an empty pool. Returns AGB_HEAP_OK; AGB_HEAP_BAD_ALIGNMENT (arena not 16-aligned or
 * meta not 4-aligned); AGB_HEAP_ARENA_TOO_SMALL (under one unit); AGB_HEAP_ARENA_TOO_LARGE (over
 * 256 KiB); AGB_HEAP_META_TOO_SMALL (meta area missing or under units/2 + units/8 + 60 bytes).
 * O(units) stores to clear the maps. */
int agb_buddy_init(agb_buddy *b, agb_machine *m, const struct agb_heap_config *cfg);

/* Returns a block of 16 << k bytes, the smallest k with 16 << k >= max(size, align), split from
 * the smallest free block that is large enough, or AGB_NULL when there is none (or align exceeds
 * the arena start's own alignment). *granted (may be NULL) gets 16 << k. O(orders). */
uint32_t agb_buddy_alloc(agb_buddy *b, uint32_t size, uint32_t align, uint32_t *granted);

/* Releases a block and merges it with its buddy while the buddy is a whole free block of the
 * same order. AGB_NULL is ignored. O(orders). */
void agb_buddy_free(agb_buddy *b, uint32_t addr);

/* C realloc: in place when the new size needs the same or a smaller order (upper halves are
 * given back), else alloc + copy (32-bit) + free. AGB_NULL with the old block untouched on
 * failure. O(orders) + O(old size) when it moves. */
uint32_t agb_buddy_realloc(agb_buddy *b, uint32_t addr, uint32_t size, uint32_t *granted);

/* Free bytes and blocks from the counters, largest from the highest non-empty order. Each free
 * block is a run (a request cannot span two blocks). Uncounted. O(orders). */
void agb_buddy_stats(agb_buddy *b, struct agb_heap_stats *out);

/* Every block in address order (USED or FREE), then a META run for a tail under one unit.
 * Uncounted. O(blocks). */
void agb_buddy_walk(agb_buddy *b, agb_walk_fn fn, void *ctx);

/* 0 when the blocks tile the pool with aligned orders, no two free buddies are left unmerged,
 * the free bitmap marks exactly the free block starts, every free list holds exactly the free
 * blocks of its order with sound links, and the counters agree; else 1 with *why. Uncounted.
 * O(units). */
int agb_buddy_check(agb_buddy *b, const char **why);

/* Meta area bytes used (order map, bitmap, heads) plus the tail under one unit. O(1). */
uint32_t agb_buddy_overhead_bytes(const agb_buddy *b);

extern const struct agb_heap_core agb_buddy_core;

#ifdef __cplusplus
}
#endif

#endif
