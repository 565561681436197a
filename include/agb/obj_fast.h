/* `obj-fast`: the placement rule of `obj` (agb/obj.h) found with word operations on free-block
 * bitmaps and summary words instead of a byte-per-block scan. Every decision equals `obj`'s.
 *
 * Bookkeeping, 32 blocks per 32-bit word (bit i of word w is block 32w + i): in the meta area
 *   free[w]     1 = block free (blocks outside the usable range are never free);
 *   start[w]    1 = first block of an allocation (free needs the length: it runs to the next
 *               start bit or free bit, the role the CONTINUE value plays in `obj`);
 * and, in the state (IWRAM),
 *   summary[L]  twelve nested levels, in this order: c0, EVEN, c1, q2, c2, q3, c3, q4, c4, P16,
 *               q5, c5. Class k: bit w set when word w holds an aligned free run of 2^k blocks;
 *               EVEN: a free block at an even index (the 8bpp one-block tile); strip level qk:
 *               the first three quarters (3 * 2^(k-2) blocks) of a 2^k-aligned field free; P16:
 *               the word's first 16 blocks free (where a 48-tile strip ends). Each level
 *               implies the ones before it, so an update flips one contiguous range of levels.
 *               Wholly used and wholly free words are kept apart (part and full masks, see
 *               agb_obj_fast), so filling or emptying a word flips one mask bit, not 12 levels.
 * A sprite shape (n = 2^k <= 32 blocks, no larger align) or an animation strip of 3, 6, 12 or 24
 * tiles (n = 3 * 2^(k-2), placed at multiples of 2^k) is: the lowest set bit of its level's
 * summary is the first word with a candidate, and in that word the lowest all-free field of n
 * blocks. Other sizes up to 32 blocks look only at words that hold a free run of half their
 * rounded size, up to the first word that holds a whole rounded-size run (which always fits),
 * each tested with a few word operations. 33..63 blocks (48-tile strips) are an even wholly free
 * word and the start of the next, found on the full mask and P16 (for 48 blocks the first such
 * pair fits); 64+ blocks are runs of wholly free words, found on the full mask.
 * An alloc's word only loses levels, so one test of its old count's top level tells whether
 * it changed; when it did, a binary search finds the new count. */
#ifndef AGB_OBJ_FAST_H
#define AGB_OBJ_FAST_H

/* Abuse (agb/heap.h). Every build: free does nothing for an address whose block carries no
 * start bit - off the 32-byte grid, outside the usable blocks (AGB_NULL included), an interior
 * block or a freed allocation (a double free): a test on the start word free loads anyway.
 * O(1). Checking build (AGB_HEAP_CHECKED): the same refusals through a walk of the pool,
 * recorded in agb_heap_abuse (core "obj-fast"). Sizes near 2^32 return AGB_NULL in every
 * build; alignment is a rule on tile indices from the arena start (index 0 meets any), not on
 * addresses. */

#include <stdint.h>

#include "agb/heap.h"
#include "agb/obj.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_OBJ_FAST_LEVELS 12u /* c0, EVEN, c1, q2, c2, .. c4, P16, q5, c5 */

/* Meta-area bytes for an arena of `nblocks` 32-byte blocks: the free and start bitmaps. */
#define AGB_OBJ_FAST_META_BYTES(nblocks) (8u * (((uint32_t)(nblocks) + 31u) / 32u))

/* `obj-fast`'s state (IWRAM globals in a game). */
typedef struct agb_obj_fast {
	/* Field order: what the paths read with a constant offset first, within the 128 bytes a
	 * Thumb load reaches with an immediate; the summaries are indexed by a register anyway. */
	agb_machine *m;
	/* The level constants and the hot path's lookup tables, shared by every heap (IWRAM .data
	 * on the GBA: from ROM each read would cost a literal-pool load and a ROM read). */
	const struct agb_obj_fast_tables *tab;
	uint32_t arena;   /* GBA address of block 0 */
	uint32_t free;    /* meta: nwords words */
	uint32_t start;   /* meta: nwords words */
	uint32_t nblocks;
	uint32_t nwords;
	/* Bit w: word w is partly free (part) or wholly free (full). Level k's words are
	 * (sum[k] & part) | full: a word that becomes wholly used or wholly free changes one mask
	 * bit, not twelve summaries; a wholly used word's summary bits stay as they were
	 * ("stale") until it is partly free again. */
	uint32_t part, full;
	/* The summary words, here rather than in the meta area: an alloc or free reads one and
	 * flips up to all twelve, which costs 1 cycle per access in IWRAM against 6 for a word in
	 * EWRAM (where OBJ metadata usually goes). */
	uint32_t sum[AGB_OBJ_FAST_LEVELS];
	uint32_t first; /* first usable block */
	uint32_t tail;  /* usable-block mask of the last word (all ones unless nblocks % 32) */
	/* Per word, the level count its summary bits stand at (0..11): sum[k] bit w is set exactly
	 * for k < cnt[w]. For a partly free word that is the levels it holds, so an update reads
	 * the old count instead of testing for it; a wholly free word stands at 9 (c0 .. c4), the
	 * count most first allocations in it leave, so they flip no summary; a wholly used one
	 * keeps the count it had. */
	uint8_t cnt[AGB_OBJ_MAX_BLOCKS / 32u];
} agb_obj_fast;

/* As agb_obj_init, with a meta area of AGB_OBJ_FAST_META_BYTES(arena / 32) bytes, 4-byte aligned
 * (AGB_HEAP_BAD_ALIGNMENT otherwise). O(words). */
int agb_obj_fast_init(agb_obj_fast *h, agb_machine *m, const struct agb_heap_config *cfg);

/* As agb_obj_alloc: the same block on every state, AGB_NULL (nothing changed, *granted = 0)
 * when no candidate is free. O(1) for sprite shapes (a power of two of n <= 32 blocks, the 8bpp
 * one-block tile), strips of 3, 6, 12, 24 and 48 blocks and runs of whole words: one candidate
 * word, then one level test; when its word lost levels (at most 10), at most four more and a
 * summary flip per level lost (the level counts are in the state). Other strips (and larger
 * aligns) test at most the words before the first one with a whole rounded-size run, a few
 * word operations each. Cost (mGBA, Thumb in ROM, called directly; the ROM library's alloc is
 * src/agbmem/core/obj_fast_thumb.S): shapes, strips and whole-word runs 204-393 cycles on traces/obj and
 * the full-map calibration traces (traces/calib/obj-full.json). */
uint32_t agb_obj_fast_alloc(agb_obj_fast *h, uint32_t size, uint32_t align, uint32_t *granted);

/* Frees a live block from agb_obj_fast_alloc (anything else is undefined). O(words it spans):
 * each word it changes is re-levelled by at most four level tests and a flip per level gained
 * or lost (a word that becomes wholly free moves to count 9). In the ROM library the free of an
 * allocation inside one word is Thumb (obj_fast_thumb.S); one that reaches its word's end is C. */
void agb_obj_fast_free(agb_obj_fast *h, uint32_t addr);

/* Same runs as agb_obj_stats. Observation only. O(blocks). */
void agb_obj_fast_stats(agb_obj_fast *h, struct agb_heap_stats *out);

/* Same runs as agb_obj_walk. Observation only. O(blocks). */
void agb_obj_fast_walk(agb_obj_fast *h, agb_walk_fn fn, void *ctx);

/* Returns 0 when no free or start bit lies outside the usable blocks, start bits are on used
 * blocks only, each allocation obeys the placement rule and every summary word and level count
 * matches the free bitmap (9 for a wholly free word), and the shared lookup table is intact; else 1 with *why set (untouched on success). Observation only. O(blocks). */
int agb_obj_fast_check(agb_obj_fast *h, const char **why);

/* The bitmaps, summary words and level counts (outside the arena). O(1). */
uint32_t agb_obj_fast_overhead_bytes(agb_obj_fast *h);

extern const struct agb_heap_core agb_obj_fast_core;

#ifdef __cplusplus
}
#endif

#endif
