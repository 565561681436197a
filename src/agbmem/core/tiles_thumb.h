/* tiles_thumb.h — what src/agbmem/core/tiles.c and its Thumb out-of-line path (src/agbmem/core/tiles_thumb.S)
 * share: the offsets of agb_tiles' fields and of the list heads the assembly reads, the refc
 * encodings it writes, and the C entry points it falls back on. Internal to src/agbmem; included by
 * C and by the assembler (the C part is hidden from it). tiles.c checks the offsets at compile
 * time. */
#ifndef AGB_CORE_TILES_THUMB_H
#define AGB_CORE_TILES_THUMB_H

/* Fields of agb_tiles (include/agb/tiles.h). */
#define T_MAP4 4
#define T_MAP8 8
#define T_REFC 12
#define T_R2R 20
#define T_VRAM 24
#define T_BLOCKS 28
#define T_SHARED 32
#define T_META 48
#define T_ROM4 52
#define T_ROM8 56

/* List heads in the meta area, and the eviction scan's hand (the block it starts from). */
#define HEAD_A 0
#define HEAD_B 2
#define HEAD_C 4
#define HEAD_HAND 6

/* The Thumb path replaces agb_tiles_ref_slow in a Thumb build for the GBA (the ROM placement);
 * the ARM build (IWRAM) and the host keep the C. */
#if defined(AGB_TARGET_GBA) && defined(__thumb__) && !defined(AGB_HEAP_CHECKED)
#define AGB_TILES_THUMB 1
#else
#define AGB_TILES_THUMB 0
#endif

#if AGB_TILES_THUMB && !defined(__ASSEMBLER__)
#include <stdint.h>

#include "agb/tiles.h"

/* The C the Thumb path hands its one rare case to (an 8bpp upload that finds nothing to evict
 * in the 8bpp-only part: the shared half's scan), before any write: tiles.c's ref_slow for a
 * tile that is not resident. */
uint32_t agb_tiles_ref_slow_c(agb_tiles *t, uint32_t rom_tile, uint32_t bpp);
#endif

#endif
