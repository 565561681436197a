/* OBJ VRAM allocators: `obj` (the seed article's allocation map, this header) and `obj-fast`
 * (agb/obj_fast.h: the same placement decisions through free-block bitmaps with summary words).
 *
 * Both manage OBJ VRAM in 32-byte blocks (one 4bpp 8x8 tile; 1024 blocks in 32 KiB). The
 * placement rule, shared exactly by both cores:
 *   - a request of `size` bytes takes n = ceil(size / 32) blocks;
 *   - it may only start at a block index that is a multiple of `step`, where step is n rounded
 *     up to a power of two, raised to align / 32 when the caller asks for more alignment;
 *   - of those candidates, the lowest-addressed one whose n blocks are all free wins.
 * Block indices count from the start of the arena (tile 0 when the arena is all of OBJ VRAM),
 * so the rule keeps every sprite's first tile index a multiple of its power-of-two size.
 *
 * 8bpp sprites must start on an even tile index. A trace (or a game) asks for that with
 * align >= 64: every 8bpp sprite is at least 64 bytes, so its own rounding already gives an even
 * index, and align makes the rule explicit for any odd-sized request.
 *
 * Bitmap modes 3-5 keep the lower 16 KiB of OBJ VRAM for the frame buffer: with
 * AGB_HEAP_FLAG_OBJ_BITMAP_MODE only blocks 512-1023 (tiles 512-1023) are handed out. */
#ifndef AGB_OBJ_H
#define AGB_OBJ_H

/* Abuse (agb/heap.h). Every build: free does nothing for an address that is not the first
 * block of a live allocation - off the 32-byte grid, outside the usable blocks (AGB_NULL
 * included), or a map byte other than USED (an interior block, a double free): one map byte
 * read (`obj`) or the start word free loads anyway (`obj-fast`, agb/obj_fast.h). O(1).
 * Checking build (AGB_HEAP_CHECKED): the same refusals through a walk of the pool, recorded
 * in agb_heap_abuse (core "obj"). Sizes near 2^32 return AGB_NULL in every build; alignment
 * is a rule on tile indices from the arena start (index 0 meets any), not on addresses. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_OBJ_BLOCK_BYTES 32u
#define AGB_OBJ_MAX_BLOCKS 1024u
#define AGB_OBJ_BITMAP_FIRST_BLOCK 512u /* first tile usable in bitmap modes 3-5 */

/* Values of the `obj` allocation map, one byte per block. */
#define AGB_OBJ_UNUSED 0u
#define AGB_OBJ_USED 1u     /* first block of an allocation */
#define AGB_OBJ_CONTINUE 2u /* a following block of the same allocation */

/* Meta-area bytes `obj` needs for `nblocks` blocks of which the first `first` are not handed
 * out (0, or AGB_OBJ_BITMAP_FIRST_BLOCK in bitmap modes): one map byte per usable block. */
#define AGB_OBJ_META_BYTES(nblocks, first) ((uint32_t)(nblocks) - (uint32_t)(first))

/* `obj`'s state: a few words a game keeps with its globals (IWRAM). */
typedef struct agb_obj {
	agb_machine *m;
	uint32_t arena;   /* GBA address of block 0 */
	uint32_t map;     /* address of the map byte of block `first` */
	uint32_t first;   /* first block handed out: 0, or 512 in bitmap modes */
	uint32_t nblocks; /* blocks in the arena (the map covers first..nblocks-1) */
} agb_obj;

/* Prepares an empty map. cfg: arena 32-byte aligned, 32 B .. 32 KiB (a tail that is not a
 * multiple of 32 is never used); meta area of AGB_OBJ_META_BYTES(arena / 32, first) bytes;
 * flags AGB_HEAP_FLAG_OBJ_BITMAP_MODE for modes 3-5. Returns AGB_HEAP_OK, or
 * AGB_HEAP_BAD_ALIGNMENT, _ARENA_TOO_LARGE, _ARENA_TOO_SMALL (bitmap mode with no upper half),
 * _META_TOO_SMALL. O(blocks). */
int agb_obj_init(agb_obj *h, agb_machine *m, const struct agb_heap_config *cfg);

/* Returns the block the placement rule above picks for `size` bytes (align a power of two), or
 * AGB_NULL when no candidate is wholly free (nothing changed; *granted = 0). *granted = the
 * blocks taken * 32. O(blocks): one map byte read per block examined, each at most once. */
uint32_t agb_obj_alloc(agb_obj *h, uint32_t size, uint32_t align, uint32_t *granted);

/* Frees a live block from agb_obj_alloc (anything else is undefined). O(blocks of the block). */
void agb_obj_free(agb_obj *h, uint32_t addr);

/* Free runs: maximal free stretches of the usable blocks. Observation only. O(blocks). */
void agb_obj_stats(agb_obj *h, struct agb_heap_stats *out);

/* In bitmap modes the lower 16 KiB first, as one META run; then each allocation as a USED run and
 * each free stretch as a FREE run. Observation only. O(blocks). */
void agb_obj_walk(agb_obj *h, agb_walk_fn fn, void *ctx);

/* Returns 0 when every map byte is UNUSED/USED/CONTINUE, no CONTINUE starts a run and each
 * allocation obeys the placement rule; else 1 with *why set. *why is untouched on success.
 * Observation only. O(blocks). */
int agb_obj_check(agb_obj *h, const char **why);

/* The map bytes (outside the arena). O(1). */
uint32_t agb_obj_overhead_bytes(agb_obj *h);

extern const struct agb_heap_core agb_obj_core;

#ifdef __cplusplus
}
#endif

#endif
