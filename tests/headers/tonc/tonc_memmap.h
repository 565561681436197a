/* Stand-in for libtonc's tonc_memmap.h (tests/headers only): its memory-map names, spelled and
 * valued as libtonc defines them (unsuffixed hexadecimal constants). Written for this test. */
#ifndef TONC_MEMMAP
#define TONC_MEMMAP

#include "tonc_types.h"

#define MEM_EWRAM 0x02000000
#define MEM_IWRAM 0x03000000
#define MEM_IO 0x04000000
#define MEM_PAL 0x05000000
#define MEM_VRAM 0x06000000
#define MEM_OAM 0x07000000
#define MEM_ROM 0x08000000
#define MEM_SRAM 0x0E000000

#define EWRAM_SIZE 0x40000
#define IWRAM_SIZE 0x08000
#define PAL_SIZE 0x00400
#define VRAM_SIZE 0x18000
#define OAM_SIZE 0x00400
#define SRAM_SIZE 0x10000

#define PAL_BG_SIZE 0x00200
#define PAL_OBJ_SIZE 0x00200
#define CBB_SIZE 0x04000
#define SBB_SIZE 0x00800
#define VRAM_BG_SIZE 0x10000
#define VRAM_OBJ_SIZE 0x08000
#define M3_SIZE 0x12C00
#define M4_SIZE 0x09600
#define M5_SIZE 0x0A000
#define VRAM_PAGE_SIZE 0x0A000

#define REG_BASE MEM_IO
#define MEM_PAL_BG (MEM_PAL)
#define MEM_PAL_OBJ (MEM_PAL + PAL_BG_SIZE)
#define MEM_VRAM_FRONT (MEM_VRAM)
#define MEM_VRAM_BACK (MEM_VRAM + VRAM_PAGE_SIZE)
#define MEM_VRAM_OBJ (MEM_VRAM + VRAM_BG_SIZE)

#define pal_bg_mem ((COLOR *)MEM_PAL)
#define pal_obj_mem ((COLOR *)MEM_PAL_OBJ)
#define pal_bg_bank ((PALBANK *)MEM_PAL)
#define pal_obj_bank ((PALBANK *)MEM_PAL_OBJ)
#define tile_mem ((CHARBLOCK *)MEM_VRAM)
#define tile_mem_obj ((CHARBLOCK *)MEM_VRAM_OBJ)
#define se_mem ((SCREENBLOCK *)MEM_VRAM)
#define vid_mem ((COLOR *)MEM_VRAM)
#define oam_mem ((OBJ_ATTR *)MEM_OAM)
#define obj_mem ((OBJ_ATTR *)MEM_OAM)
#define rom_mem ((u16 *)MEM_ROM)
#define sram_mem ((u8 *)MEM_SRAM)

#define REG_DISPCNT *(vu32 *)(REG_BASE + 0x0000)
#define REG_DISPSTAT *(vu16 *)(REG_BASE + 0x0004)
#define REG_VCOUNT *(vu16 *)(REG_BASE + 0x0006)
#define REG_WAITCNT *(vu16 *)(REG_BASE + 0x0204)

#endif
