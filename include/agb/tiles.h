/* `tiles`: the BG tile manager of the seed article (Baptista, "GBA resource management"),
 * written anew for agbmem.
 *
 * A tile engine keeps the whole level's tiles in ROM and only the visible ones in BG VRAM. The
 * manager answers "is ROM tile t already in VRAM, and where?" in constant time, counts how many
 * screen-map cells use each VRAM tile, copies a tile in on its first use and frees its VRAM slot
 * on its last. Bookkeeping (all 16-bit, in the meta area: EWRAM by default, IWRAM selectable):
 *
 *   refc[B]        per 32-byte VRAM block: the reference count of a used tile, or, for a free
 *                  block, the link to the next block of its free list (bit 15 set) -- the free
 *                  lists are threaded through the counts, as in the article;
 *   ram2rom[B]     per block: the ROM tile held there; for a block on list-c, its previous link
 *                  (list-c needs O(1) unlinking when a 4bpp free re-forms a pair);
 *   rom2ram4[N]    per 4bpp ROM tile: its VRAM block, or 0xFFFF;
 *   rom2ram8[N]    per 8bpp ROM tile: its VRAM block (even), or 0xFFFF;
 *   3 list heads.
 *
 * B = tile bytes / 32 (1792 for the default 56 KiB), N = the largest ROM tile number + 1 the
 * manager accepts, per depth. Metadata bytes = 8 + 4 B + 4 N: the ROM->RAM maps dominate, so N is
 * a parameter (AGB_TILES_FLAG_ROM_TILES). With the default 56 KiB of tiles:
 *
 *   N per depth    metadata    fits in
 *   1 792          14 344 B    IWRAM (the engine's 15 KiB --meta=iwram area): fastest, 1 cycle/access
 *   4 096          23 560 B    EWRAM
 *   10 240         48 136 B    EWRAM -- the seed article's "about 48k"
 *   24 576 (dflt)  105 480 B   EWRAM -- the shipped maps use ROM tiles up to 23 105 (64 px cells)
 *   65 280 (max)   268 296 B   nowhere (> 256 KiB): 16-bit entries cap N below 65 535
 *
 * Only the maps' size changes with N; every path stays O(1). A game that streams one depth can
 * leave the other map's range small. Metadata in EWRAM costs 3 cycles per halfword access,
 * in IWRAM 1: a resident-tile ref or unref is 3 accesses (9 vs 3 bus cycles).
 *
 * 4bpp and 8bpp share one pool. Blocks go in pairs (64 bytes, one 8bpp tile or two 4bpp). The
 * first 32 KiB (blocks 0-1023) is the only place a 4bpp tile can live (screen-map entries have
 * 10 bits of tile number, 32 KiB of 4bpp tiles); the rest (up to 1791) takes 8bpp tiles only.
 * list-a: free pairs in the shared half; list-b: free pairs in the 8bpp-only part; list-c: free
 * single blocks of the shared half whose partner holds a 4bpp tile. Pair 0 (bytes 0-63) is the
 * transparent tile, zero for both depths, never counted and never allocated. Screen maps (2 KiB
 * each, 4 by default) sit at the top of the arena.
 *
 * The interface is the agbmem core table (agb_tiles_core, "tiles"): alloc/free are NULL, work comes
 * through event() as AGB_OP_REF / AGB_OP_UNREF (id = ROM tile, size = bpp). Freestanding. */
#ifndef AGB_TILES_H
#define AGB_TILES_H

#include <stdint.h>

#include "agb/heap.h"

/* core_flags fields (bits 0-7 are the shared AGB_HEAP_FLAG_* bits). */
/* Largest ROM tile number + 1 per depth, in units of 256 (1..255); 0: AGB_TILES_DEFAULT_ROM_TILES. */
#define AGB_TILES_FLAG_ROM_TILES(n) ((((uint32_t)(n) + 255u) / 256u & 0xFFu) << 16)
/* Screen maps (2 KiB each) reserved at the top of the arena, 0..14; field 0 means the default 4. */
#define AGB_TILES_FLAG_MAPS(n) ((((uint32_t)(n) + 1u) & 0xFu) << 24)

#define AGB_TILES_DEFAULT_ROM_TILES 24576u /* covers the shipped maps' tile numbers (< 24064) */
#define AGB_TILES_DEFAULT_MAPS 4u
#define AGB_TILES_MAP_BYTES 2048u
#define AGB_TILES_BLOCK_BYTES 32u
#define AGB_TILES_SHARED_BLOCKS 1024u /* 32 KiB: where 4bpp tiles may live */

/* Where the ROM tile sets are read from when a tile is uploaded (tile t of depth d at
 * base + t * 4 * d). The simulator's ROM image is usually unmapped there, which reads zeros;
 * the cost of the reads is what counts. A GBA program sets its own with agb_tiles_set_rom. */
#define AGB_TILES_ROM4_ADDR (MEM_ROM + 0x00400000u)
#define AGB_TILES_ROM8_ADDR (MEM_ROM + 0x00800000u)

/* Metadata bytes the manager needs for `blocks` VRAM blocks and `rom_tiles` ROM tiles per depth. */
#define AGB_TILES_META_BYTES(blocks, rom_tiles) (8u + 4u * (uint32_t)(blocks) + 4u * (uint32_t)(rom_tiles))

extern const struct agb_heap_core agb_tiles_core;

/* Ref of ROM tile `rom_tile` at depth `bpp` (4 or 8) on an initialised tiles state: returns the
 * VRAM block (32-byte unit from the arena base) the tile sits in -- the screen-map entry is that
 * block for 4bpp, block / 2 for 8bpp -- uploading it on its first ref. Tile 0 returns 0 untouched.
 * Returns 0xFFFF when there is no room (nothing changed) and 0xFFFE when rom_tile is beyond the
 * configured ROM tile count or the count would overflow. *uploaded is set to 1 on an upload.
 * O(1): at most 16 metadata accesses plus the 32/64-byte copy. */
uint32_t agb_tiles_ref(void *state, uint32_t rom_tile, uint32_t bpp, int *uploaded);

/* Drops one ref of the tile whose VRAM block is `block` (as a game does when a screen-map cell
 * scrolls out: it has the RAM index, not the ROM one -- the RAM->ROM map finds the ROM entry to
 * clear). `bpp` is the layer's depth. Returns 1 when this was the last ref (slot freed), else 0.
 * The block must hold a live tile of that depth; block 0 (transparent) is ignored. O(1). */
int agb_tiles_unref_block(void *state, uint32_t block, uint32_t bpp);

/* Points uploads at a real ROM tile set (GBA builds). */
void agb_tiles_set_rom(void *state, uint32_t rom4_addr, uint32_t rom8_addr);

#endif
