/* map2.h — the refusal of bad frees that `tree` and `bestfit` make in every build, on the 2-bit
 * block map they share (include/agb/tree.h: 0 free (every block of a free run), 1 used, 2 start
 * of a long used run, 3 last block of a used run; 8 entries per halfword).
 *
 * An address is refused when it is off the 8-byte grid or outside the pool (agb_map2_off_pool),
 * when its entry is free (a double free, or an address inside a free run or a long used run:
 * both cores keep every entry of a free run, and every inner entry of a long used run, 0), or
 * when its left neighbour's entry starts or continues a used run (an interior address of a
 * short run) (agb_map2_not_a_start). A long run's length halfword is encoded so that the
 * halfword before it tells it apart (agb_map2_len_encode, agb_map2_starts_long). Each core adds
 * one check of its own: the last block of a long run against a one-block run after a free run
 * (refused() in src/core/tree.c and src/core/bestfit.c). O(1). Internal to src/core;
 * freestanding. */
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

/* For a core that keeps every map entry of a free run, and every inner entry of a long used run,
 * E_FREE (bestfit): a long run's length halfword (the map halfword after its start's, wholly
 * inside it) is the length with bit 14 set, and bit 15 too when the length has bit 14 (lengths
 * below 2^15). Its highest entry is then 1 or 3, never E_LONG, so agb_map2_starts_long tells a
 * halfword that holds a long run's start from one that holds a length; and when the run's last
 * block is the first entry after its length halfword, that halfword's top entry (E_USED for a
 * length below 2^14, every length that ends there) refuses the last block as a start. */
static inline __attribute__((always_inline)) uint32_t agb_map2_len_encode(uint32_t len)
{
	return len | 0x4000u | ((len & 0x4000u) << 1);
}

static inline __attribute__((always_inline)) uint32_t agb_map2_len_decode(uint32_t w)
{
	return w & (0x3FFFu | ((w >> 1) & 0x4000u));
}

/* 1 when the highest non-zero entry of map halfword w is E_LONG: w holds a long run's start
 * (every entry after it in w is E_FREE), so the next halfword is that run's length halfword and
 * no block in it starts a run. The entries that read 2 (high bit set, low bit clear), marked at
 * their low bit, outrank every entry with its low bit set. O(1). */
static inline __attribute__((always_inline)) int agb_map2_starts_long(uint32_t w)
{
	return ((w >> 1) & ~w & 0x5555u) > (w & 0x5555u);
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

/* Sets every entry of the used run [b, b+len) back to free, for a core that keeps the inner
 * entries of a long run free (map2.h's length encoding): all of a short run's (b % 8 + len
 * <= 16), else the first, the length halfword and the last. */
static inline __attribute__((always_inline)) void agb_map2_clear_used(agb_machine *m, uint32_t map,
								      uint32_t b, uint32_t len)
{
	if (len == 0u)
		return; /* no run is empty; this tells the analyser (a clear of 0 entries shifts by 32) */
	if ((b & 7u) + len < 17u) {
		agb_map2_clear_short(m, map, b, len);
		return;
	}
	uint32_t a = map + ((b >> 3) << 1), z = b + len - 1u, az = map + ((z >> 3) << 1);
	AGB_ST16(m, a, AGB_LD16(m, a) & ~(3u << ((b & 7u) << 1)));
	AGB_ST16(m, a + 2u, 0u);
	AGB_ST16(m, az, AGB_LD16(m, az) & ~(3u << ((z & 7u) << 1)));
}

#endif
