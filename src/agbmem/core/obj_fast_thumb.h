/* obj_fast_thumb.h — what src/agbmem/core/obj_fast.c and its Thumb alloc and free (obj_fast_thumb.S)
 * share: the offsets of agb_obj_fast's fields and of the lookup tables the assembly reads, and
 * the C entry it falls back on. Internal to src/agbmem; included by C and by the assembler (the C
 * part is hidden from it). obj_fast.c checks the offsets at compile time. */
#ifndef AGB_CORE_OBJ_FAST_THUMB_H
#define AGB_CORE_OBJ_FAST_THUMB_H

/* Fields of agb_obj_fast (include/agb/obj_fast.h) on the GBA (4-byte pointers). */
#define S_TAB 4
#define S_ARENA 8
#define S_FREE 12
#define S_START 16
#define S_NBLOCKS 20
#define S_PART 28
#define S_FULL 32
#define S_SUM 36
#define S_CNT 92

/* struct agb_obj_fast_tables (obj_fast.c). */
#define T_CTZ 0
#define T_DEBRUIJN 32
#define T_LVL 36
#define T_LEVEL_OF_N 132

/* The Thumb alloc and free replace obj_fast.c's in a Thumb build for the GBA (the ROM
 * placement); the ARM build (IWRAM) and the host keep the C. A checking build (AGB_HEAP_CHECKED)
 * keeps the C too. */
#if defined(AGB_TARGET_GBA) && defined(__thumb__) && !defined(AGB_HEAP_CHECKED)
#define AGB_OBJ_FAST_THUMB 1
#else
#define AGB_OBJ_FAST_THUMB 0
#endif

#if AGB_OBJ_FAST_THUMB && !defined(__ASSEMBLER__)
#include <stdint.h>

#include "agb/obj_fast.h"

/* Every request the Thumb alloc does not serve (obj_fast.c: the whole C alloc), and the rest of
 * a free whose allocation reaches the end of its first word w (free value f0 before, lb its
 * first block's bit; its start bit is already cleared): obj_fast.c's free_long. */
uint32_t agb_obj_fast_thumb_alloc_general(agb_obj_fast *h, uint32_t size, uint32_t align,
					  uint32_t *granted);
void agb_obj_fast_thumb_free_long(agb_obj_fast *h, uint32_t w, uint32_t f0, uint32_t lb);
#endif

#endif
