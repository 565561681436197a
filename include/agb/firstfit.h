/* `firstfit`: address-ordered first fit with immediate coalescing (Knuth, TAOCP vol. 1, 2.5,
 * with boundary tags), written anew for the GBA machine - the textbook baseline.
 *
 * Block format as in `tlsf`: a block starts 4 mod 8 with a header word (size | FREE |
 * PREV_FREE), its payload is 8-aligned, a free block holds next/prev links in its first payload
 * words and its size in its last word. Free blocks form one doubly linked list in address order;
 * the list head and tail are the core's state (two globals on the GBA). alloc takes the
 * lowest-addressed block that fits; free coalesces in O(1) with either neighbour and only walks
 * the list when neither neighbour is free. A starts bitmap (a bit per 8-byte grid position,
 * 1/64 of the pool) says which addresses are used blocks' starts (see Abuse); it goes to the
 * meta area when that holds it, else to the arena head.
 *
 * All accesses through the machine, 16- and 32-bit only (VRAM-safe). Freestanding. */
#ifndef AGB_FIRSTFIT_H
#define AGB_FIRSTFIT_H

/* Abuse (agb/heap.h). Every build: as `tlsf` (same block format, same starts bitmap): free and
 * realloc refuse untouched every address that is not a live block - off the payload grid or
 * outside the pool, a double free, an interior or never-returned address, whatever the game
 * wrote into its blocks (an exact used header in a payload, forged or stale, included) - from
 * the bitmap alone, in O(1): one halfword load, and in free the store that clears the bit; alloc
 * sets it. Measured in ROM Thumb on the EWRAM traces against the 13-bit address tag it replaced
 * (which let an exact forged header through): alloc 17 cheaper to 4 dearer on the mean, free
 * 13-32 cheaper; 4 KiB of meta for a 256 KiB pool. Keeping the tag and its header checks beside
 * the bitmap measured 38-59 more cycles per alloc and 88-104 per free, so the headers carry only
 * size and flags. Pools are below 512 KiB (the header's size bits).
 * Checking build (AGB_HEAP_CHECKED): the same addresses are also looked up with a walk of the
 * pool per call and recorded in agb_heap_abuse (core "firstfit"). Sizes near 2^32 and
 * alignments beyond the pool return AGB_NULL in every build. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The starts bitmap of a pool of N bytes (a bit per 8 bytes, whole words): a meta area of this
 * size keeps it out of the pool (4 096 bytes for 256 KiB). */
#define AGB_FIRSTFIT_META_BYTES(n) (((((n) >> 3) + 31u) >> 5) << 2)

typedef struct agb_firstfit {
	agb_machine *m;
	uint32_t arena, arena_end;
	uint32_t first, sentinel; /* first block (4 mod 8), zero-size end block */
	uint32_t head, tail;      /* address-ordered free list */
	uint32_t starts;          /* starts bitmap: a bit per 8-byte grid position */
	uint32_t meta_used;       /* its bytes when it is in the meta area, not the arena */
	/* Observation-only (stats() runs after every event): payload bytes of free blocks. The
	 * largest is cached and rescanned lazily when the block holding it shrinks or goes. */
	uint32_t free_bytes, free_runs;
	uint64_t free_sq;
	uint32_t largest, largest_valid;
} agb_firstfit;

/* Prepares an empty pool. The starts bitmap goes to cfg->meta_addr when it is 4-aligned and
 * meta_bytes >= AGB_FIRSTFIT_META_BYTES(arena_bytes), else to the arena head. Returns
 * AGB_HEAP_OK, AGB_HEAP_BAD_ALIGNMENT (arena not 4-aligned), AGB_HEAP_ARENA_TOO_SMALL (under 40
 * bytes, or no 16-byte block after the bitmap) or AGB_HEAP_ARENA_TOO_LARGE (2^19 bytes or
 * more: the header's size bits). O(pool / 256): zeroes the bitmap. */
int agb_firstfit_init(agb_firstfit *f, agb_machine *m, const struct agb_heap_config *cfg);

/* Returns the lowest address aligned to `align` (power of two) with `size` bytes (0 counts as
 * 1) inside the lowest free block that can hold it, or AGB_NULL when none can. *granted (may be
 * NULL) gets the usable bytes. O(free blocks). */
uint32_t agb_firstfit_alloc(agb_firstfit *f, uint32_t size, uint32_t align, uint32_t *granted);

/* Releases a block, coalescing with free neighbours. O(1) when a neighbour is free, else
 * O(free blocks below it) to find its place in the address-ordered list. AGB_NULL is ignored. */
void agb_firstfit_free(agb_firstfit *f, uint32_t addr);

/* C realloc: in place when shrinking or when the next block is free and large enough, else
 * alloc (8-aligned) + copy (32-bit) + free. AGB_NULL with the old block untouched on failure.
 * O(free blocks) + O(old size) when it moves. */
uint32_t agb_firstfit_realloc(agb_firstfit *f, uint32_t addr, uint32_t size, uint32_t *granted);

/* From the counters; the largest block is rescanned (uncounted) only when invalidated.
 * Observation only. O(1), O(free blocks) after a change to the largest. */
void agb_firstfit_stats(agb_firstfit *f, struct agb_heap_stats *out);

/* META head (padding, and the bitmap when it is in the arena), every block, META sentinel +
 * tail. Uncounted. O(blocks). */
void agb_firstfit_walk(agb_firstfit *f, agb_walk_fn fn, void *ctx);

/* 0 when the block chain, tags, PREV_FREE bits, coalescing, list order/links/membership, the
 * starts bitmap (exactly the used blocks' bits set) and the counters hold; else 1 with *why.
 * Uncounted. O(blocks + pool / 128). */
int agb_firstfit_check(agb_firstfit *f, const char **why);

/* Starts bitmap (wherever it is) + head padding + sentinel + tail. O(1). */
uint32_t agb_firstfit_overhead_bytes(const agb_firstfit *f);

extern const struct agb_heap_core agb_firstfit_core;

#ifdef __cplusplus
}
#endif

#endif
