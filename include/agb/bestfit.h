/* `bestfit`: best-fit allocator for EWRAM pools at the speed of a segregated-fit one.
 *
 * The pool layout is tree's (include/agb/tree.h): 8-byte blocks, a map of 2 bits per block at
 * the arena head and no per-block header, so a used block costs nothing but its map entries.
 * Map entries: 0 free (every block of a free run), 1 used, 2 start of a long used run (the next
 * map halfword, wholly inside the run, holds its length, encoded as src/agbmem/common/map2.h says; the
 * run's other inner entries are 0), 3 last block of a used run. Every free run repeats its size
 * (u16) at offset 6 of its last block, the boundary tag free() reads to coalesce with the run
 * before it.
 *
 * Free runs are indexed two ways, after dlmalloc's smallbins/treebins:
 *  - a run of 1..AGB_BESTFIT_SMALL blocks sits in the exact-size bin of its length: a doubly
 *    circular list through the run's first block (next u16 at 0, prev u16 at 2, size u16 at 6).
 *    A two-level bitmap (one bit per bin, one summary bit per 32 bins) finds the smallest
 *    non-empty bin at or above a request with at most two bit scans, and every run of that bin is
 *    a best fit, so small requests are O(1). The summary is kept lazily: a bin that empties clears
 *    its bit but leaves its word's summary bit set, and alloc clears a summary bit it finds over
 *    an empty word (at most 8 of them: still O(1));
 *  - longer runs sit in the list of their size class, two classes per power of two
 *    (AGB_BESTFIT_LONG_CLASSES, a 16-bit bitmap of the non-empty ones), doubly circular through
 *    the run's first block like the bins. Linking and unlinking are O(1), so no free walks
 *    anything; alloc reads the request's class and the next non-empty one and takes the
 *    smallest run that fits, among runs of that size the lowest (the choice a tree keyed on
 *    (size, address) makes: tree's treap, which bestfit used before).
 *  - a long free run that ends the pool, the top run (dlmalloc's top chunk), is in neither: the
 *    control structure holds where it starts, so freeing a block next to it is one store and no
 *    index update. A short run at the pool's end sits in its bin, so a bin hit is still a best
 *    fit; a request no bin can serve takes the tighter of the best long run and the top run
 *    (on a tie the long run, the lower address). It has no node and no tag (nothing lies after
 *    it to read one).
 * Bin and class heads, bitmaps and the top form the control structure; it lives in the meta area
 * when that has room (IWRAM for EWRAM pools: 1-cycle accesses), else at the arena head.
 *
 * Within a bin runs are taken first in, first out (circular lists: the head's prev is the tail):
 * all of them are best fits; on the recorded traces FIFO needed up to 4 KiB less arena than LIFO
 * and as little as address order, which would cost a list walk per free.
 *
 * Every pool access goes through the machine with 16- or 32-bit accesses (never 8-bit), so the
 * core runs on VRAM too. Freestanding: no libc.
 *
 * On the GBA in ROM (a Thumb build of libagbmem.a) alloc's bin and top-run paths and free's
 * merges into bins and class lists are hand-written Thumb (src/agbmem/core/bestfit_thumb.S, about half
 * the instructions GCC makes of the same C); they read 84 bytes of constants and the long runs'
 * 256-byte class table (agb_bestfit_long_class_of) from IWRAM (.data). The ARM build
 * for IWRAM, the host and a checking build (AGB_HEAP_CHECKED) run the C. Both make the same
 * decisions: the GBA/host equivalence test compares every call. */
#ifndef AGB_BESTFIT_H
#define AGB_BESTFIT_H

/* Abuse (agb/heap.h): in every build free and realloc refuse, with the pool untouched and in
 * O(1), every address that is not a live block's: off the 8-byte grid or outside the pool, a
 * double free, an address inside a used run (short or long) or inside a free run. The map says
 * it: every entry of a free run and every inner entry of a long used run is 0, a long run's
 * length halfword is recognised from the halfword before it, and a long run's last block is
 * told from a one-block run after a free run by that free run's two tags (two map loads, four
 * more in that last case; about 100 cycles of a free in ROM). Compiled with AGB_HEAP_CHECKED
 * (a debug build) such an address is also recorded in agb_heap_abuse (core "bestfit"), at the
 * cost of a walk of the pool per call. Sizes near 2^32 and alignments beyond the pool return
 * AGB_NULL in every build. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs of up to this many blocks (2 KiB) live in exact-size bins; longer ones in class lists. 256
 * kept the free p99 lower than 128 and the minimum arena at tree's, where 512 lost 1 KiB on a
 * recorded trace. */
#define AGB_BESTFIT_SMALL 256u
#define AGB_BESTFIT_WORDS (AGB_BESTFIT_SMALL / 32u)
/* Longer runs sit in lists by size class, two classes per power of two up to 2^15 blocks. */
#define AGB_BESTFIT_LONG_CLASSES 14u
/* The most runs of a long class alloc reads for one request (the bound of its search: every
 * call is O(1)); past them it takes the first run of the next non-empty class. */
#define AGB_BESTFIT_LONG_READS 4u
/* Control structure: long-class bitmap u16, top run start u16, summary u16 (padded to 4),
 * bitmap words, bin heads and long-class heads (u16 each). The fields a free or a small alloc
 * reads come first, within reach of Thumb's short load offsets. */
#define AGB_BESTFIT_META_BYTES                                                                     \
	(8u + 4u * AGB_BESTFIT_WORDS + 2u * AGB_BESTFIT_SMALL + 2u * AGB_BESTFIT_LONG_CLASSES)

/* One pool's fixed state: what a GBA build keeps in IWRAM globals or registers. */
typedef struct agb_bestfit {
	agb_machine *m;
	uint32_t base;          /* arena start */
	uint32_t ctrl;          /* control structure (meta area or arena head) */
	uint32_t heads;         /* ctrl's bin heads: head of bin k (runs of k+1 blocks) at 2k */
	uint32_t map;           /* 2-bit map, 8 entries per halfword */
	uint32_t blocks;        /* address of block 0 */
	uint32_t nblocks;       /* managed blocks (< 0xFFFF) */
	uint32_t meta_bytes;    /* arena bytes before block 0: control when in the arena, map */
	uint32_t waste_bytes;   /* arena tail no block covers (< 8 bytes + map rounding) */
	uint32_t ctrl_in_arena; /* 1 when the control structure sits at the arena head */
	uint32_t consts;        /* the Thumb build's hot-path constants (in IWRAM), else 0 */
	/* Observation-only counters, kept so stats() is cheap for the replay engine. The core never
	 * reads them to make a decision; the GBA build does not keep them (stats() recounts). */
	uint32_t free_blocks;
	uint32_t free_runs;
	uint64_t free_sq; /* sum over free runs of blocks^2 */
} agb_bestfit;

/* Prepares an empty pool of cfg->arena_bytes at cfg->arena_addr (8-aligned; a tail that is not a
 * whole block is left unused). The control structure goes to cfg->meta_addr when it is 4-aligned
 * and meta_bytes >= AGB_BESTFIT_META_BYTES, else to the arena head. Returns AGB_HEAP_OK,
 * AGB_HEAP_BAD_ALIGNMENT, AGB_HEAP_ARENA_TOO_SMALL (no room for control, map and one block) or
 * AGB_HEAP_ARENA_TOO_LARGE (more than 32767 blocks, 256 KiB: all of EWRAM). O(map + control)
 * stores. */
int agb_bestfit_init(agb_bestfit *h, agb_machine *m, const struct agb_heap_config *cfg);

/* Returns a block of at least `size` bytes (0 counts as 1) whose address is a multiple of `align`
 * (a power of two; up to 8 costs nothing extra), or AGB_NULL when no free run can hold it.
 * Best fit: the run used is one of the smallest that can hold the (aligned) request (the lowest
 * such among long runs; aligned requests take the top run only when nothing else fits). Its
 * start is carved, the rest stays free. *granted (may be NULL)
 * receives the bytes reserved, size rounded up to 8. O(1) when a run of at most
 * AGB_BESTFIT_SMALL blocks fits, else O(long runs in the request's class and the next non-empty
 * one); an aligned request also walks the short runs whose size is within `align` bytes of the
 * request. */
uint32_t agb_bestfit_alloc(agb_bestfit *h, uint32_t size, uint32_t align, uint32_t *granted);

/* Releases a block returned by alloc/realloc and coalesces it with free neighbours. AGB_NULL is
 * ignored; anything else is refused (the Abuse paragraph above). O(1) in every case, whatever
 * the block's size and its neighbours'. */
void agb_bestfit_free(agb_bestfit *h, uint32_t addr);

/* C realloc: shrinks in place, grows in place when the next run is free and large enough, else
 * allocates (8-aligned), copies the old block with 32-bit accesses and frees it. addr AGB_NULL
 * behaves as alloc; size 0 counts as 1. Returns the new address, or AGB_NULL with the old block
 * untouched. Cost of alloc + free, plus O(old size) when it moves. */
uint32_t agb_bestfit_realloc(agb_bestfit *h, uint32_t addr, uint32_t size, uint32_t *granted);

/* Free bytes, free runs and the sum of squares from the counters (a recount on the GBA); largest
 * run from the highest non-empty long class or bin, or the top run. Uncounted reads only.
 * O(long runs in the highest class) on the host. */
void agb_bestfit_stats(agb_bestfit *h, struct agb_heap_stats *out);

/* Calls fn for every run in address order: META (control when in the arena, map), USED and
 * FREE runs, and a final META run for an unusable tail if there is one. The runs cover the
 * arena exactly. Uncounted reads only. O(runs + short-run blocks). */
void agb_bestfit_walk(agb_bestfit *h, agb_walk_fn fn, void *ctx);

/* Returns 0 when every invariant holds, else 1 with *why (may be NULL) set to a static message.
 * Checks the map encoding of every run, boundary tags, full coalescing, that every short free run
 * is in its size's bin and every long one in its class's list exactly once, list links, both
 * bitmap levels, the class bitmap and the observation counters. Uncounted reads only.
 * O(runs + blocks of free and short used runs). */
int agb_bestfit_check(agb_bestfit *h, const char **why);

/* Bookkeeping bytes: map, control structure (in the meta area or the arena) and the unusable
 * tail. O(1). */
uint32_t agb_bestfit_overhead_bytes(agb_bestfit *h);

extern const struct agb_heap_core agb_bestfit_core;

#ifdef __cplusplus
}
#endif

#endif
