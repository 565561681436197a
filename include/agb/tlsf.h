/* `tlsf`: two-level segregated fit (Masmano, Ripoll, Crespo, Real: "TLSF: a new dynamic memory
 * allocator for real-time systems", ECRTS 2004), written anew for the GBA machine.
 *
 * Blocks: a block starts at an address that is 4 mod 8 with one header word (size | FREE |
 * PREV_FREE); its payload follows at an 8-aligned address. A free block keeps next/prev free-list
 * links in its first payload words and repeats its size in its last word (boundary tag), so
 * free() finds both neighbours in O(1) and coalesces immediately. A used block costs 4 bytes.
 * Minimum block 16 bytes, sizes in multiples of 8. The pool ends with a zero-size used sentinel.
 *
 * Free blocks are segregated by size: first level = power of two, second level = 16 linear
 * subranges of it (sizes under 128 are mapped linearly in 8-byte steps). A 32-bit first-level
 * bitmap, 13 16-bit second-level bitmaps and 13x16 list heads (864 bytes) form the control
 * structure; it lives in the external meta area when that has room (IWRAM by default: the hot
 * bitmap reads cost 1 cycle), else at the head of the arena. Good fit: a request is rounded up
 * to the next subrange so the first block of the first non-empty list always fits; alloc and
 * free are O(1) (two bit scans, a bounded number of list operations).
 *
 * A starts bitmap (a bit per 8-byte grid position, 1/64 of the pool) says which addresses are
 * used blocks' starts: alloc sets the block's bit, free clears it (see Abuse). It follows the
 * control structure: into the meta area when what is left there holds it, else at the arena
 * head.
 *
 * All accesses go through the machine, 16- and 32-bit only (VRAM-safe). Freestanding. */
#ifndef AGB_TLSF_H
#define AGB_TLSF_H

/* Abuse (agb/heap.h). Every build: free and realloc refuse untouched (free does nothing,
 * realloc returns AGB_NULL) every address that is not a live block: off the 8-byte payload grid
 * or outside the pool (AGB_NULL for free, ROM, another region), a double free, an interior or
 * never-returned address, whatever the game wrote into its blocks (a payload word that is
 * exactly the header a used block there would have, forged or stale, included). The starts
 * bitmap decides, not the headers: its bit is set from alloc until the free of that block, and
 * nothing else writes it. O(1): a range check, one halfword load (IWRAM with the default meta
 * area) and, in free, the store that clears the bit; alloc sets it (a load and a store).
 * Measured in ROM Thumb on the EWRAM traces against the 13-bit address tag it replaced (which
 * let an exact forged header through): alloc 17-18 cycles dearer on the mean, free 55-64
 * cheaper (the header and footer checks are gone); 4 KiB of meta for a 256 KiB pool. Keeping
 * the tag and its header checks beside the bitmap measured 10-12 more cycles per alloc and
 * 122-125 per free for nothing the bitmap does not refuse, so the headers carry only size and
 * flags.
 * Checking build (AGB_HEAP_CHECKED, a debug build): the same addresses are also looked up with
 * a walk of the pool per call and recorded in agb_heap_abuse (core "tlsf"). Sizes near 2^32 and
 * alignments beyond the pool return AGB_NULL in every build. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_TLSF_FL_COUNT 13u /* first levels: block sizes below 2^19 */
#define AGB_TLSF_SL_LOG2 4u
#define AGB_TLSF_CTRL_BYTES (32u + AGB_TLSF_FL_COUNT * (1u << AGB_TLSF_SL_LOG2) * 4u)
/* The starts bitmap of a pool of N bytes: a bit per 8 bytes, in whole words. */
#define AGB_TLSF_STARTS_BYTES(n) (((((n) >> 3) + 31u) >> 5) << 2)
/* A meta area of this many bytes holds both (a game reserves it; 4 960 for 256 KiB). */
#define AGB_TLSF_META_BYTES(n) (AGB_TLSF_CTRL_BYTES + AGB_TLSF_STARTS_BYTES(n))

typedef struct agb_tlsf {
	agb_machine *m;
	uint32_t arena, arena_end; /* the pool as given */
	uint32_t ctrl;             /* control structure: fl bitmap, sl bitmaps, heads */
	uint32_t starts;           /* starts bitmap: a bit per 8-byte grid position */
	uint32_t meta_used;        /* bytes of ctrl and starts in the meta area, not the arena */
	uint32_t first;            /* first block (4 mod 8) */
	uint32_t sentinel;         /* address of the zero-size end block */
	/* Observation-only counters (stats() is called after every event); the core never decides
	 * anything from them and a GBA build could drop them. Bytes are payload capacities. */
	uint32_t free_bytes, free_runs;
	uint64_t free_sq;
} agb_tlsf;

/* Prepares an empty pool at `cfg->arena_addr` (4-aligned) of `cfg->arena_bytes`. The control
 * structure goes to cfg->meta_addr when meta_bytes >= AGB_TLSF_CTRL_BYTES, else into the arena;
 * then the starts bitmap (AGB_TLSF_STARTS_BYTES) to what is left of the meta area when it fits,
 * else into the arena: AGB_TLSF_META_BYTES(arena_bytes) of meta keeps both out of the pool.
 * Returns AGB_HEAP_OK; AGB_HEAP_BAD_ALIGNMENT (arena or meta not 4-aligned);
 * AGB_HEAP_ARENA_TOO_SMALL (no room for one 16-byte block after control, bitmap and sentinel);
 * AGB_HEAP_ARENA_TOO_LARGE (2^19 bytes or more). O(pool / 256): zeroes control and bitmap. */
int agb_tlsf_init(agb_tlsf *t, agb_machine *m, const struct agb_heap_config *cfg);

/* Returns an address aligned to `align` (power of two; up to 8 is free) with at least `size`
 * bytes (0 counts as 1), or AGB_NULL when no free block of the rounded class exists (good fit:
 * may fail while a slightly smaller-class block could have fitted; alignments over 8 search for
 * size + align + 16 to carve the aligned part). *granted (may be NULL) gets the usable bytes.
 * O(1). */
uint32_t agb_tlsf_alloc(agb_tlsf *t, uint32_t size, uint32_t align, uint32_t *granted);

/* Releases a block from alloc/realloc, coalescing with free physical neighbours. AGB_NULL is
 * ignored. O(1). */
void agb_tlsf_free(agb_tlsf *t, uint32_t addr);

/* C realloc: shrinks in place (the tail becomes free), grows in place into a free successor,
 * else allocates (8-aligned), copies the old payload with 32-bit accesses and frees. Returns the
 * new address, or AGB_NULL with the old block untouched. O(1) + O(old size) when it moves. */
uint32_t agb_tlsf_realloc(agb_tlsf *t, uint32_t addr, uint32_t size, uint32_t *granted);

/* Counters, and the largest block by scanning the highest non-empty list (uncounted reads).
 * O(length of that list). */
void agb_tlsf_stats(agb_tlsf *t, struct agb_heap_stats *out);

/* META (arena head: padding, and control and bitmap when they are in the arena), every block
 * (USED/FREE, header included), META (sentinel and tail). Covers the arena exactly. Uncounted.
 * O(blocks). */
void agb_tlsf_walk(agb_tlsf *t, agb_walk_fn fn, void *ctx);

/* Returns 0 when the physical chain, boundary tags, PREV_FREE bits, full coalescing, list
 * membership/links/classes, both bitmap levels, the starts bitmap (exactly the used blocks'
 * bits set) and the counters agree; else 1 with *why. Uncounted. O(blocks + pool / 128). */
int agb_tlsf_check(agb_tlsf *t, const char **why);

/* Fixed bookkeeping: control structure and starts bitmap (wherever they are), head padding,
 * sentinel and tail. The 4-byte header of each used block is not included (it shows as
 * min_arena). O(1). */
uint32_t agb_tlsf_overhead_bytes(const agb_tlsf *t);

extern const struct agb_heap_core agb_tlsf_core;

#ifdef __cplusplus
}
#endif

#endif
