/* OBJ VRAM allocators: `obj` (the seed article's allocation map) and `obj-fast` (same
 * placement decisions through a free-block bitmap with per-size summary words).
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

#include "agb/heap.h"

#define AGB_OBJ_BLOCK_BYTES 32u
#define AGB_OBJ_MAX_BLOCKS 1024u
#define AGB_OBJ_BITMAP_FIRST_BLOCK 512u /* first tile usable in bitmap modes 3-5 */

/* Values of the `obj` allocation map, one byte per block. */
#define AGB_OBJ_UNUSED 0u
#define AGB_OBJ_USED 1u     /* first block of an allocation */
#define AGB_OBJ_CONTINUE 2u /* a following block of the same allocation */

extern const struct agb_heap_core agb_obj_core;
extern const struct agb_heap_core agb_obj_fast_core;

#endif
