/* map2.h — the 2-bit block map that `tree` and `bestfit` share (include/agb/tree.h: 0 free
 * (every block of a free run), 1 used, 2 start of a long used run, 3 last block of a used run;
 * 8 entries per halfword): its entry access, the marking and decoding of used runs, and the
 * refusal of bad frees both cores make in every build. Every access goes through the machine
 * with 16-bit accesses (never 8-bit). Work is declared by the callers, not here.
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

#define AGB_MAP2_FREE 0u
#define AGB_MAP2_USED 1u
#define AGB_MAP2_LONG 2u
#define AGB_MAP2_END 3u

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

/* Address of the map halfword holding entry i. O(1). */
static inline __attribute__((always_inline)) uint32_t agb_map2_hw(uint32_t map, uint32_t i)
{
	return map + ((i >> 3) << 1);
}

/* Entry i, an uncounted read (observers). O(1). */
static inline uint32_t agb_map2_peek(agb_machine *m, uint32_t map, uint32_t i)
{
	return (uint32_t)(AGB_PEEK16(m, agb_map2_hw(map, i)) >> ((i & 7u) << 1)) & 3u;
}

/* Sets entry i to v (a read-modify-write of its halfword). O(1). */
static inline __attribute__((always_inline)) void agb_map2_set(agb_machine *m, uint32_t map,
							       uint32_t i, uint32_t v)
{
	uint32_t a = agb_map2_hw(map, i);
	uint32_t sh = (i & 7u) << 1;
	uint32_t w = AGB_LD16(m, a);
	AGB_ST16(m, a, (w & ~(3u << sh)) | (v << sh));
}

/* 1 when a used run [b, b+len) is long: the map halfword after b's lies wholly inside it. */
static inline __attribute__((always_inline)) int agb_map2_is_long(uint32_t b, uint32_t len)
{
	return len >= 17u - (b & 7u);
}

/* Writes the map of a used run [b, b+len) over entries that are all free (a free run, or a run
 * agb_map2_clear_used emptied): a short run's 1...1 3 within the halfwords of b and the next
 * (stored whole when covered, else read-modified), or a long run's 2, its length halfword
 * (agb_map2_len_encode) and 3, its other entries left free. The entry writes go first: the
 * length halfword may share a word with them but halfword accesses never overlap it. O(1). */
static inline __attribute__((always_inline)) void agb_map2_mark_used(agb_machine *m, uint32_t map,
								     uint32_t b, uint32_t len)
{
	uint32_t a = agb_map2_hw(map, b);
	if (agb_map2_is_long(b, len)) {
		agb_map2_set(m, map, b, AGB_MAP2_LONG);
		agb_map2_set(m, map, b + len - 1u, AGB_MAP2_END);
		AGB_ST16(m, a + 2u, agb_map2_len_encode(len));
		return;
	}
	uint32_t lo = (b & 7u) << 1;
	uint32_t hi = lo + (len << 1); /* <= 32 */
	uint32_t mask = (0xFFFFFFFFu >> (32u - hi)) & (0xFFFFFFFFu << lo);
	uint32_t val = (mask & 0x55555555u) | (2u << (hi - 2u));
	uint32_t m0 = mask & 0xFFFFu, m1 = mask >> 16;
	if (m0 == 0xFFFFu) {
		AGB_ST16(m, a, val);
	} else if (m0 != 0u) {
		uint32_t w = AGB_LD16(m, a);
		AGB_ST16(m, a, w | (val & 0xFFFFu));
	}
	if (m1 == 0xFFFFu) {
		AGB_ST16(m, a + 2u, val >> 16);
	} else if (m1 != 0u) {
		uint32_t w = AGB_LD16(m, a + 2u);
		AGB_ST16(m, a + 2u, w | (val >> 16));
	}
}

/* Index of the lowest set bit of x (32 for 0) without the ROM table: observers must not touch
 * the ROM counter. */
static inline uint32_t agb_map2_lowbit_quiet(uint32_t x)
{
	uint32_t n = 0;
	while (n < 32u && (x & (1u << n)) == 0)
		n++;
	return n;
}

/* Length of the used run starting at b, with uncounted reads (observers): 1 for an end entry, a
 * long run's decoded length halfword, else up to the first entry with its high bit set. O(1). */
static inline uint32_t agb_map2_used_len_quiet(agb_machine *m, uint32_t map, uint32_t b)
{
	uint32_t a = agb_map2_hw(map, b);
	uint32_t sh = (b & 7u) << 1;
	uint32_t w0 = AGB_PEEK16(m, a);
	uint32_t e = (w0 >> sh) & 3u;
	if (e == AGB_MAP2_END)
		return 1u;
	if (e == AGB_MAP2_LONG)
		return agb_map2_len_decode(AGB_PEEK16(m, a + 2u));
	uint32_t hb = ((w0 >> 1) & 0x5555u) >> sh;
	if (hb != 0u)
		return (agb_map2_lowbit_quiet(hb) >> 1) + 1u;
	uint32_t w1 = AGB_PEEK16(m, a + 2u);
	return 8u - (b & 7u) + (agb_map2_lowbit_quiet((w1 >> 1) & 0x5555u) >> 1) + 1u;
}
#endif
