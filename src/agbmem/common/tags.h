/* Boundary-tag blocks, the format `tlsf` and `firstfit` share (agb/tlsf.h): private to src/agbmem.
 *
 * A block starts at an address that is 4 mod 8 with a header word (size | FREE | PREV_FREE);
 * its payload follows at an 8-aligned address. Sizes are multiples of 8 and at least MIN_BLOCK.
 * A free block repeats its size in its last word (footer). Beside the pool, a starts bitmap
 * holds one bit per 8-byte grid position, set exactly while a used block starts there: alloc
 * sets the bit of the block it returns, free clears it; merges and splits only join or cut
 * free memory, whose bits are clear, and realloc in place keeps its block's start. It is the
 * one thing free and realloc trust about an address (starts_live). Freestanding. */
#ifndef AGB_CORE_TAGS_H
#define AGB_CORE_TAGS_H

#include <stdint.h>

#include "agb/firstfit.h"
#include "agb/machine.h"
#include "agb/tlsf.h"

#define HDR_FREE 1u
#define HDR_PREV_FREE 2u
#define HDR_FLAGS 7u
#define HDR_SIZE 0x0007FFF8u /* sizes below 2^19 (the pools are below 512 KiB) */
#define MIN_BLOCK 16u
#define TAGS_MAX_ARENA (1u << 19)

/* Bytes of the starts bitmap of a pool of `arena_bytes` (whole words, so what follows it stays
 * 4-aligned): a bit per 8 bytes, 1/64 of the pool. Each core's header names it for games. */
#define STARTS_BYTES(arena_bytes) AGB_TLSF_STARTS_BYTES(arena_bytes)
_Static_assert(AGB_FIRSTFIT_META_BYTES(TAGS_MAX_ARENA - 8u) == STARTS_BYTES(TAGS_MAX_ARENA - 8u) &&
		       AGB_FIRSTFIT_META_BYTES(40u) == STARTS_BYTES(40u),
	       "firstfit's and tlsf's starts bitmaps are the same size");

/* Block b's entry: the bitmap halfword that holds it, and its bit there. Halfword accesses:
 * one bus access on the 16-bit buses (EWRAM, VRAM) as on the 32-bit ones (IWRAM). */
static inline uint32_t starts_half(uint32_t starts, uint32_t first, uint32_t b)
{
	return starts + (((b - first) >> 6) & ~1u);
}

static inline uint32_t starts_bit(uint32_t first, uint32_t b)
{
	return 1u << (((b - first) >> 3) & 15u);
}

/* Block b became used (alloc; realloc's in-place paths keep the block where it starts). */
static inline void starts_set(agb_machine *m, uint32_t starts, uint32_t first, uint32_t b)
{
	uint32_t a = starts_half(starts, first, b);
	AGB_ST16(m, a, AGB_LD16(m, a) | starts_bit(first, b));
}

/* The normal build's abuse guard of free and realloc (agb/heap.h): 1 when payload address
 * `addr` is a used block of the pool whose blocks run from `first` to `sentinel`, else 0 and
 * the caller changes nothing. It must be on the payload grid inside the pool and its starts
 * bit must be set; nothing a game can write into a payload takes part. *half receives the
 * bitmap halfword's address and *rest its value without the block's bit: what free stores
 * (agb_*_free clears the bit; realloc keeps it unless the block moves). One bitmap load. O(1). */
static inline int starts_live(agb_machine *m, uint32_t starts, uint32_t first, uint32_t sentinel,
			      uint32_t addr, uint32_t *half, uint32_t *rest)
{
	uint32_t off = addr - 4u - first, bit, x;
	if (off >= sentinel - first || (off & 7u) != 0)
		return 0;
	*half = starts + ((off >> 6) & ~1u);
	bit = 1u << ((off >> 3) & 15u);
	x = AGB_LD16(m, *half);
	*rest = x & ~bit;
	return (x & bit) != 0;
}

/* For the checkers (uncounted): 1 when b's bit is set; the number of bits set in `bytes` of
 * bitmap. */
static inline uint32_t starts_peek(agb_machine *m, uint32_t starts, uint32_t first, uint32_t b)
{
	return (AGB_PEEK16(m, starts_half(starts, first, b)) & starts_bit(first, b)) != 0u;
}

static inline uint32_t starts_count(agb_machine *m, uint32_t starts, uint32_t bytes)
{
	uint32_t n = 0;
	for (uint32_t a = 0; a < bytes; a += 2u)
		for (uint32_t x = AGB_PEEK16(m, starts + a); x != 0u; x &= x - 1u)
			n++;
	return n;
}

/* `bytes` of bookkeeping: into the meta area at *meta (AGB_NULL: none) when *left has room,
 * else at *head, the arena's head. Returns its address. */
static inline uint32_t tags_place(uint32_t *meta, uint32_t *left, uint32_t *head, uint32_t bytes)
{
	uint32_t a;
	if (*meta != 0u && *left >= bytes) {
		a = *meta;
		*meta += bytes;
		*left -= bytes;
	} else {
		a = *head;
		*head += bytes;
	}
	return a;
}

#endif
