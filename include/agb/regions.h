/* GBA memory regions, named once (libtonc style) and used everywhere.
 * Freestanding: no libc beyond <stdint.h>. */
#ifndef AGB_REGIONS_H
#define AGB_REGIONS_H

#include <stdint.h>

#define MEM_EWRAM 0x02000000u
#define MEM_IWRAM 0x03000000u
#define MEM_IO 0x04000000u
#define MEM_PAL 0x05000000u
#define MEM_VRAM 0x06000000u
#define MEM_VRAM_BG MEM_VRAM
#define MEM_VRAM_OBJ 0x06010000u
#define MEM_OAM 0x07000000u
#define MEM_ROM 0x08000000u

#define EWRAM_SIZE 0x40000u    /* 256 KiB */
#define IWRAM_SIZE 0x8000u     /* 32 KiB */
#define VRAM_SIZE 0x18000u     /* 96 KiB */
#define VRAM_BG_SIZE 0x10000u  /* 64 KiB */
#define VRAM_OBJ_SIZE 0x8000u  /* 32 KiB (16 KiB usable in bitmap modes 3-5) */
#define VRAM_OBJ_BITMAP_SIZE 0x4000u
#define OAM_SIZE 0x400u        /* 128 entries of 8 bytes */
#define PAL_SIZE 0x400u        /* BG palette 0x000-0x1FF, OBJ palette 0x200-0x3FF */
#define PAL_SIDE_BYTES 0x200u  /* 16 banks of 16 colours (BGR555, 2 bytes each) */
#define PAL_BANK_BYTES 0x20u
#define PAL_BANKS 16u
#define PAL_BANKS_OF(colors) (((colors) + 15u) >> 4) /* banks a palette of `colors` takes */
#define ROM_MAX_SIZE 0x2000000u

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

#endif
