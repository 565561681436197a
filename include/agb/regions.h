/* GBA memory regions, named once and used everywhere. Every name carries the AGB_ prefix, so the
 * header sits beside libtonc's tonc_memmap.h (MEM_EWRAM, PAL_SIZE...) and libgba's gba_base.h
 * without a redefinition (tests/headers checks it). Freestanding: no libc beyond <stdint.h>. */
#ifndef AGB_REGIONS_H
#define AGB_REGIONS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_MEM_EWRAM    0x02000000u
#define AGB_MEM_IWRAM    0x03000000u
#define AGB_MEM_IO       0x04000000u
#define AGB_MEM_PAL      0x05000000u
#define AGB_MEM_VRAM     0x06000000u
#define AGB_MEM_VRAM_BG  AGB_MEM_VRAM
#define AGB_MEM_VRAM_OBJ 0x06010000u
#define AGB_MEM_OAM      0x07000000u
#define AGB_MEM_ROM      0x08000000u

#define AGB_EWRAM_SIZE           0x40000u /* 256 KiB */
#define AGB_IWRAM_SIZE           0x8000u  /* 32 KiB */
#define AGB_VRAM_SIZE            0x18000u /* 96 KiB */
#define AGB_VRAM_BG_SIZE         0x10000u /* 64 KiB */
#define AGB_VRAM_OBJ_SIZE        0x8000u  /* 32 KiB (16 KiB usable in bitmap modes 3-5) */
#define AGB_VRAM_OBJ_BITMAP_SIZE 0x4000u
#define AGB_OAM_SIZE             0x400u /* 128 entries of 8 bytes */
#define AGB_PAL_SIZE             0x400u /* BG palette 0x000-0x1FF, OBJ palette 0x200-0x3FF */
#define AGB_PAL_SIDE_BYTES       0x200u /* 16 banks of 16 colours (BGR555, 2 bytes each) */
#define AGB_PAL_BANK_BYTES       0x20u
#define AGB_PAL_BANKS            16u
#define AGB_PAL_BANKS_OF(colors) (((colors) + 15u) >> 4) /* banks a palette of `colors` takes */
#define AGB_ROM_MAX_SIZE         0x2000000u

#define AGB_FRAME_CYCLES 280896u /* 228 lines x 1232 cycles */

/* The address 0 is never inside a region an allocator manages, so it doubles as "no memory". */
#define AGB_NULL 0u

/* The arenas a trace can allocate from (docs/trace-format.md). */
enum agb_arena {
	AGB_ARENA_EWRAM,
	AGB_ARENA_OBJ_VRAM,
	AGB_ARENA_BG_VRAM,
	AGB_ARENA_PAL_RAM, /* palette RAM: pal_* ops only (docs/trace-format.md) */
	AGB_ARENA_COUNT
};

#define AGB_ARENA_BIT(a) (1u << (a))

#ifdef __cplusplus
}
#endif

#endif
