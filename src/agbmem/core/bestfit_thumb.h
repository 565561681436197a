/* bestfit_thumb.h — what src/core/bestfit.c and its Thumb hot paths (src/core/bestfit_thumb.S)
 * share: the offsets of the control structure and of struct agb_bestfit's fields the assembly
 * reads, and the C entry points it falls back on. Internal to src/core; included by C and by the
 * assembler (the C part is hidden from it). bestfit.c checks the struct offsets at compile time. */
#ifndef AGB_CORE_BESTFIT_THUMB_H
#define AGB_CORE_BESTFIT_THUMB_H

/* Control structure (include/agb/bestfit.h): the long-class bitmap and the top first (one
 * word), then the summary, the bitmap words, the bin heads and the long-class heads. */
#define C_LONG 0
#define C_TOP 2
#define C_SUMMARY 4
#define C_BITMAP 8
#define C_HEADS 40 /* C_BITMAP + 4 * AGB_BESTFIT_WORDS */
#define C_LHEADS 552 /* C_HEADS + 2 * AGB_BESTFIT_SMALL */

/* Fields of struct agb_bestfit. */
#define T_CTRL 8
#define T_MAP 16
#define T_BLOCKS 20
#define T_NBLOCKS 24
/* The address of agb_bestfit_thumb_k (bestfit_thumb.S), the constants in IWRAM: read from the pool
 * state (IWRAM in the bench, about 2 cycles) where a literal from ROM costs a non-sequential
 * cartridge read and the prefetch (about 11). */
#define T_CONSTS 40

#ifndef __ASSEMBLER__
#include <stdint.h>

/* Class of a long free run by its size >> 7 (bestfit.c long_class): a ROM table, which the Thumb
 * free's long merges read too. */
extern const uint8_t agb_bestfit_long_class_of[256];
#endif

/* The Thumb hot paths replace bestfit.c's alloc_fast and free_fast in a Thumb build for the GBA
 * (the ROM placement); the ARM build (IWRAM) and the host keep the C. A checking build
 * (AGB_HEAP_CHECKED) keeps the C too. */
#if defined(AGB_TARGET_GBA) && defined(__thumb__) && !defined(AGB_HEAP_CHECKED)
#define AGB_BESTFIT_THUMB 1
#else
#define AGB_BESTFIT_THUMB 0
#endif

#if AGB_BESTFIT_THUMB && !defined(__ASSEMBLER__)
#include <stdint.h>

#include "agb/bestfit.h"

/* The hot paths (bestfit_thumb.S): the same decisions and the same pool writes as bestfit.c's
 * alloc_fast and free_fast, in about half the instructions GCC makes of them. */
uint32_t agb_bestfit_thumb_alloc(void *st, uint32_t size, uint32_t align, uint32_t *granted);
void agb_bestfit_thumb_free(void *st, uint32_t addr);

/* What the hot paths call when a request leaves them (bestfit.c): the whole general alloc,
 * alloc_long for `want` blocks that no bin holds (AGB_NULL or the block, *granted set as alloc
 * does), free_top_long_left for used run [b, b+len) at the top run after a long free run of ls
 * blocks and mark_used for a long run. */
uint32_t agb_bestfit_thumb_alloc_general(agb_bestfit *t, uint32_t size, uint32_t align,
					 uint32_t *granted);
uint32_t agb_bestfit_thumb_alloc_long(agb_bestfit *t, uint32_t want, uint32_t *granted);
void agb_bestfit_thumb_free_top(agb_bestfit *t, uint32_t b, uint32_t len, uint32_t ls);
void agb_bestfit_thumb_mark_used(agb_bestfit *t, uint32_t b, uint32_t len);

/* The hot paths' constants (bestfit_thumb.S), whose address agb_bestfit_init keeps in consts. */
extern const uint8_t agb_bestfit_thumb_k[];
#endif

#endif
