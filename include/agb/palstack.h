/* `palstack`: the seed's palette RAM scheme (docs/design.md, "Palette RAM"): palettes are
 * block-copied into palette RAM with no sharing, and each side keeps a palette stack for screens
 * pushed over the game (a pause menu, a dialogue box).
 *
 * Loads: a 4bpp palette (1..16 colours) takes the highest free bank of its side, an 8bpp one
 * (17..256) banks 0..ceil(colors/16)-1; every load uploads, even when an identical palette is
 * resident (the comparison with `palbanks` measures what sharing saves). A free releases the
 * banks.
 *
 * The stack: pal_push copies the banks the pushed palette will cover (0..ceil(colors/16)-1) from
 * palette RAM into a work-RAM buffer, then uploads the pushed palette there: it is the top, the
 * one below waits in the buffer. pal_pop copies the saved banks back. While a level is pushed,
 * loads avoid the banks the stack covers (the largest extent of any level of that side); a
 * palette freed while covered gets its stale colours back on the pop, into a free bank.
 *
 * Meta area (IWRAM or EWRAM): the bank tables of `palbanks` (every reference count is 1), per
 * side the covered extent, depth and buffer top, then per side a buffer of
 * AGB_PALSTACK_BUFFER_BYTES holding frames of the saved banks followed by a header word. The
 * buffer is the work RAM the stack needs; a push that does not fit fails. Loads O(banks), frees
 * O(1), push and pop O(colours of the covered banks). Freestanding. */
#ifndef AGB_PALSTACK_H
#define AGB_PALSTACK_H

/* Abuse (agb/heap.h), in every build: a pop of an empty stack, a side other than 0/1, a push
 * of 0 or more than 256 colours, and a pal_free of a bank where no palette starts return
 * AGB_VERB_BAD with nothing changed (a push that does not fit the buffer: AGB_VERB_FAILED).
 * O(1). AGB_HEAP_CHECKED adds nothing here. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Four levels of a full 256-colour side: 4 x (512 + 4) bytes per side. */
#define AGB_PALSTACK_BUFFER_BYTES 2064u
#define AGB_PALSTACK_META_BYTES                                                                    \
	(2u * 4u + 2u * AGB_PAL_BANKS * 8u + 2u * 8u + 2u * AGB_PALSTACK_BUFFER_BYTES)

typedef struct agb_palstack {
	agb_machine *m;
	uint32_t pal;     /* first byte of palette RAM (AGB_MEM_PAL) */
	uint32_t meta;    /* bank tables */
	uint32_t stacks;  /* per side: cover | depth << 8, then the buffer top in bytes */
	uint32_t buffers; /* per side: AGB_PALSTACK_BUFFER_BYTES */
} agb_palstack;

/* Takes the whole palette RAM (cfg arena must be AGB_MEM_PAL, AGB_PAL_SIZE bytes) and clears the
 * tables and stacks. Returns AGB_HEAP_OK; AGB_HEAP_ARENA_TOO_SMALL / _TOO_LARGE;
 * AGB_HEAP_BAD_ALIGNMENT (arena not AGB_MEM_PAL, meta not 4-aligned); AGB_HEAP_META_TOO_SMALL
 * (under AGB_PALSTACK_META_BYTES). O(meta). */
int agb_palstack_init(agb_palstack *p, agb_machine *m, const struct agb_heap_config *cfg);

/* Uploads `colors` (1..256) colours from `src` (4-aligned) to free banks of `side` outside the
 * stack's covered banks; returns the first bank (*detail = AGB_VERB_UPLOADED), or AGB_PAL_NONE
 * (*detail = 0) when none is free or the arguments are out of range. `key` is kept for
 * observers only. O(banks + colors). */
uint32_t agb_palstack_load(agb_palstack *p, uint32_t side, uint32_t key, uint32_t src,
			   uint32_t colors, uint32_t *detail);

/* Frees the palette whose first bank is `bank` (*detail = AGB_VERB_RELEASED). Returns
 * AGB_VERB_DONE, or AGB_VERB_BAD when no palette starts there. O(banks of the palette). */
int agb_palstack_free(agb_palstack *p, uint32_t side, uint32_t bank, uint32_t *detail);

/* Pushes a palette of `colors` colours from `src` over banks 0..ceil(colors/16)-1 of `side`,
 * saving what they held. Returns AGB_VERB_DONE with *bytes = the frame's buffer bytes (banks
 * saved x 32 + 4), AGB_VERB_FAILED (*bytes = 0) when the buffer cannot hold the frame,
 * AGB_VERB_BAD for arguments out of range. O(colors + covered banks x 16). */
int agb_palstack_push(agb_palstack *p, uint32_t side, uint32_t key, uint32_t src, uint32_t colors,
		      uint32_t *bytes);

/* Restores the banks saved by the newest push of `side`. Returns AGB_VERB_DONE with *bytes = the
 * frame's buffer bytes released, or AGB_VERB_BAD when the side's stack is empty. O(banks x 16). */
int agb_palstack_pop(agb_palstack *p, uint32_t side, uint32_t *bytes);

/* Levels pushed on `side`, and buffer bytes in use. Observation only. O(1). */
uint32_t agb_palstack_depth(agb_palstack *p, uint32_t side);
uint32_t agb_palstack_buffer_used(agb_palstack *p, uint32_t side);

/* Free banks as runs, covered banks counted as taken. Observation only. O(banks). */
void agb_palstack_stats(agb_palstack *p, struct agb_heap_stats *out);

/* Palette RAM in address order: runs of used (loaded or covered) and free banks. Observation
 * only. O(banks). */
void agb_palstack_walk(agb_palstack *p, agb_walk_fn fn, void *ctx);

/* 0 when the bank tables hold (as for palbanks, with every count 1 and duplicates allowed) and
 * each side's frames, read back from its top, account for the buffer bytes, the depth and the
 * covered extent; else 1 with *why. Observation only.
 * O(banks^2 + depth). */
int agb_palstack_check(agb_palstack *p, const char **why);

/* The whole meta area (tables and both buffers): the work RAM this scheme reserves. O(1). */
uint32_t agb_palstack_overhead_bytes(const agb_palstack *p);

extern const struct agb_heap_core agb_palstack_core;

#ifdef __cplusplus
}
#endif

#endif
