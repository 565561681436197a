/* map2.h — the refusal of bad frees that `tree` and `bestfit` make in every build, on the 2-bit
 * block map they share (include/agb/tree.h: 0 free first/last block of a free run, 1 used,
 * 2 start of a long used run, 3 last block of a used run; 8 entries per halfword).
 *
 * An address is refused when it is off the 8-byte grid or outside the pool (agb_map2_off_pool),
 * when its entry is free (a double free, or an address inside a freed short run: the cores'
 * free leaves every entry of a short run, and a long run's first, free), or when its left
 * neighbour's entry starts or continues a used run (an interior address of a short run)
 * (agb_map2_not_a_start). Not seen from these alone: an address inside a long used run, or
 * inside a free run made by a split or by a long run's free, while their inner entries are
 * stale - `bestfit`'s case. `tree` keeps those entries 0 and adds its own checks on top
 * (refused() in src/core/tree.c: length halfwords, the last block of a long run). O(1).
 * Internal to src/core; freestanding. */
#ifndef AGB_CORE_MAP2_H
#define AGB_CORE_MAP2_H

#include <stdint.h>

#include "agb/machine.h"

/* 1 when addr is off the 8-byte grid of the blocks at `blocks` or past the last of `nblocks`
 * (AGB_NULL included: it lies below any pool). */
static inline __attribute__((always_inline)) int agb_map2_off_pool(uint32_t blocks, uint32_t nblocks,
								   uint32_t addr)
{
	uint32_t off = addr - blocks;
	return (off & 7u) != 0u || off >= (nblocks << 3);
}

/* 1 when a block whose map entry is `entry` and whose left neighbour's is `left` cannot start a
 * used run: one table lookup, bit (left * 4 + entry) set for the refused pairs (entry free, or
 * left used or long). */
static inline __attribute__((always_inline)) int agb_map2_not_a_start(uint32_t entry, uint32_t left)
{
	return (0x1FF1u >> ((entry & 3u) | ((left & 3u) << 2))) & 1u;
}

/* The whole refusal for a caller that has read nothing yet: 1 when addr (not AGB_NULL) is not a
 * used run's start as far as the map shows. One or two map loads. */
static inline __attribute__((always_inline)) int agb_map2_not_a_block(agb_machine *m, uint32_t map,
								      uint32_t blocks,
								      uint32_t nblocks, uint32_t addr)
{
	if (addr == AGB_NULL)
		return 0;
	if (agb_map2_off_pool(blocks, nblocks, addr))
		return 1;
	uint32_t b = (addr - blocks) >> 3, a = map + ((b >> 3) << 1), sh = (b & 7u) << 1;
	uint32_t w = AGB_LD16(m, a);
	uint32_t left = 3u; /* block 0 has no left neighbour: as if a used run ended there */
	if (sh != 0u)
		left = w >> (sh - 2u);
	else if (b != 0u)
		left = (uint32_t)AGB_LD16(m, a - 2u) >> 14;
	return agb_map2_not_a_start(w >> sh, left);
}

/* Sets every entry of the short used run [b, b+len) (it lies in the halfword holding b's entry
 * and the next: b % 8 + len <= 16) to free. */
static inline __attribute__((always_inline)) void agb_map2_clear_short(agb_machine *m, uint32_t map,
								       uint32_t b, uint32_t len)
{
	uint32_t a = map + ((b >> 3) << 1);
	uint32_t lo = (b & 7u) << 1, hi = lo + (len << 1); /* hi <= 32 */
	uint32_t mask = (0xFFFFFFFFu >> (32u - hi)) & (0xFFFFFFFFu << lo);
	AGB_ST16(m, a, AGB_LD16(m, a) & ~mask);
	if ((mask >> 16) != 0u)
		AGB_ST16(m, a + 2u, AGB_LD16(m, a + 2u) & ~(mask >> 16));
}

#endif
