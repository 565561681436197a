/* `tree`: general-purpose best-fit allocator for small GBA pools (after the Baptista seed).
 *
 * The pool is cut into 8-byte blocks. The arena starts with an 8-byte header (block count, tree
 * root, address of block 0) and a map of 2 bits per block; everything after that is blocks. Free
 * runs are kept in a search tree whose node lives in the run's own first block, keyed on
 * (run blocks, block index) so keys are unique; the tree is a treap whose priorities are a hash of
 * the block index (no storage), so it stays balanced however many runs share a size. The run's
 * size is repeated in its last block so free() can coalesce with the run before it.
 *
 * Map entries (2 bits): 0 free, 1 used, 2 start of a long used run, 3 last block of a used run.
 * A used run of L blocks is "long" when the map halfword after the one holding its first entry
 * lies wholly inside the run; that halfword then holds L (encoded: L | 0x4000, plus 0x8000 when
 * L has bit 14, so its highest entry is 1 or 3, never 2), so free() learns any length in O(1).
 * Short runs (at most 16 blocks) are 1...1 3 and decoded with a bit scan. Every entry of a free
 * run is 0, and so is every entry of a long used run but its first, its length halfword and its
 * last: free() and realloc() keep that in O(1) (a freed long run clears three places), and it is
 * what lets them refuse any address that is not a used run's start (Abuse, below).
 *
 * Every access to the pool goes through the machine with 16- or 32-bit accesses only (never
 * 8-bit), so the core can run on VRAM. Freestanding: no libc. */
#ifndef AGB_TREE_H
#define AGB_TREE_H

/* Abuse (agb/heap.h): in every build free and realloc refuse, untouched, every address that
 * is not a live block: one off the 8-byte grid or outside the pool; one whose map entry is 0
 * (a double free, an address inside a free run or inside a long used run); one in a long run's
 * length halfword (the halfword before it has E_LONG as its highest non-zero entry, which only
 * a long run's start has: a length is encoded never to look like one); one whose left
 * neighbour's entry is 1 or 2 (inside a short run, or a long run's second block); and one
 * reading 3 behind a 0 (a one-block run after a free run, or the last block of a long run)
 * unless a key search finds a free run in the tree that ends just before it. One or two map
 * loads, which free reuses; O(log runs) for the last case. Only metadata is trusted, never a
 * payload. Compiled with AGB_HEAP_CHECKED (a debug build) a refused address is also recorded
 * in agb_heap_abuse (core "tree"), after a walk of the pool per call. Sizes near 2^32 and
 * alignments beyond the pool return AGB_NULL in every build. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One pool's fixed state: what a GBA build keeps in IWRAM globals or registers. */
typedef struct agb_tree {
	agb_machine *m;
	uint32_t base;        /* arena start = header */
	uint32_t map;         /* 2-bit map, 8 entries per halfword */
	uint32_t blocks;      /* address of block 0 */
	uint32_t nblocks;     /* managed blocks (< 0xFFFF) */
	uint32_t meta_bytes;  /* header + map */
	uint32_t waste_bytes; /* arena tail no block covers (< 16 bytes) */
	/* Observation-only counters, kept so stats() is O(log n) for the replay engine. The core
	 * itself never reads them to make a decision; on the GBA they could be compiled out. */
	uint32_t free_blocks;
	uint32_t free_runs;
	uint64_t free_sq; /* sum over free runs of blocks^2 */
} agb_tree;

/* Prepares an empty pool of cfg->arena_bytes at GBA address cfg->arena_addr (8-aligned; a tail
 * that is not a whole block is left unused; the meta area and flags are not used). Returns AGB_HEAP_OK, AGB_HEAP_BAD_ALIGNMENT, AGB_HEAP_ARENA_TOO_SMALL
 * (under 24 bytes: no room for header, map and one block) or AGB_HEAP_ARENA_TOO_LARGE (more than
 * 32767 blocks, about 264 KiB: all of EWRAM fits). O(map) stores. */
int agb_tree_init(agb_tree *t, agb_machine *m, const struct agb_heap_config *cfg);

/* Returns a block of at least `size` bytes (0 counts as 1) whose address is a multiple of `align`
 * (a power of two; up to 8 costs nothing extra), or AGB_NULL when no free run can hold it.
 * Best fit: the run used is the smallest one that can hold the (aligned) request; an unaligned
 * request carves the run's start, an aligned one leaves the head before it as a free run.
 * *granted (may be NULL) receives the bytes reserved, size rounded up to 8.
 * O(log runs) expected; an aligned request also walks the runs between `size` and
 * `size + align` in size order until one fits. */
uint32_t agb_tree_alloc(agb_tree *t, uint32_t size, uint32_t align, uint32_t *granted);

/* Releases a block returned by alloc/realloc and coalesces it with free neighbours. AGB_NULL is
 * ignored; any other address that is not a live block is refused untouched (Abuse, above).
 * O(log runs) expected, independent of the block's size. */
void agb_tree_free(agb_tree *t, uint32_t addr);

/* C realloc: shrinks in place, grows in place when the next run is free and large enough, else
 * allocates (8-aligned), copies the old block with 32-bit accesses and frees it. addr AGB_NULL
 * behaves as alloc; size 0 counts as 1. Returns the new address, or AGB_NULL with the old block
 * untouched (also for an address that is not a live block: Abuse, above). O(log runs)
 * expected, plus O(old size) when it moves. */
uint32_t agb_tree_realloc(agb_tree *t, uint32_t addr, uint32_t size, uint32_t *granted);

/* Free bytes, free runs and the sum of squares from the counters; largest run by descending the
 * tree. Uncounted reads only. O(log runs). */
void agb_tree_stats(agb_tree *t, struct agb_heap_stats *out);

/* Calls fn for every run in address order: META (header + map), USED and FREE runs, and a
 * final META run for an unusable tail if there is one. The runs cover the arena exactly.
 * Uncounted reads only. O(runs + short-run blocks). */
void agb_tree_walk(agb_tree *t, agb_walk_fn fn, void *ctx);

/* Returns 0 when every invariant holds, else 1 with *why (may be NULL) set to a static message.
 * Checks the header, the map encoding of every run (every entry of a free run and the inner
 * entries of a long run 0, a long run's length halfword encoded), boundary tags, full
 * coalescing, that every free run is in the tree exactly once, BST order, parent links, the
 * treap priority order and the observation counters. Uncounted reads only.
 * O(runs log runs + blocks). */
int agb_tree_check(agb_tree *t, const char **why);

/* Bytes of the arena that can never be allocated: header, map and the unusable tail. O(1). */
uint32_t agb_tree_overhead_bytes(const agb_tree *t);

extern const struct agb_heap_core agb_tree_core;

#ifdef __cplusplus
}
#endif

#endif
