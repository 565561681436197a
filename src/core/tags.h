/* Boundary-tag blocks, the format `tlsf` and `firstfit` share (agb/tlsf.h): private to src/core.
 *
 * A block starts at an address that is 4 mod 8 with a header word (size | FREE | PREV_FREE);
 * its payload follows at an 8-aligned address. Sizes are multiples of 8 and at least MIN_BLOCK.
 * A free block repeats its size in its last word (footer). Freestanding. */
#ifndef AGB_CORE_TAGS_H
#define AGB_CORE_TAGS_H

#include <stdint.h>

#include "agb/machine.h"

#define HDR_FREE 1u
#define HDR_PREV_FREE 2u
#define HDR_FLAGS 7u
#define HDR_SIZE 0x0007FFF8u /* sizes below 2^19 (the pools are below 512 KiB) */
#define HDR_TAG 0xFFF80000u  /* a used block's address tag (tag_of) */
#define MIN_BLOCK 16u
#define TAGS_MAX_ARENA (1u << 19)

/* A used block's header carries, above its size, 13 bits derived from its own address: the top
 * bits of its square (one MUL, no constant to load from ROM). A payload word copied from
 * another block's header, or any word that was not written for exactly this address, fails it
 * with odds 8191 in 8192. Free headers carry none (their FREE bit is what a double free
 * sees). */
static inline uint32_t tag_of(uint32_t b)
{
	return ((b * b) >> 19) << 19;
}

/* The normal build's abuse guard of free and realloc (agb/heap.h): 1 when payload address
 * `addr` can be a used block of the pool whose blocks run from `first` to `sentinel`, else 0
 * and the caller changes nothing. It must be on the payload grid inside the pool; its header
 * must not say FREE, must carry its address's tag and a size that keeps it inside the pool;
 * its successor's PREV_FREE bit must be clear; and when its own PREV_FREE bit is set, the
 * footer before it must give a whole block whose header says FREE with that size. That
 * refuses addresses off the grid or outside the pool, every double free while the block's
 * memory stays free (its header, or the stale one inside a bigger free block, says FREE; or
 * the neighbours it merged with no longer match it; free clears the header it merges away),
 * and an interior or never-returned address unless the word before it is exactly the header
 * a used block there would have, tag included: a payload word written for that (odds 1 in
 * 8192 for any other word), or the header of a block freed there earlier when its memory went
 * to a new block that did not overwrite it (a double free after a reuse). The checking build
 * catches every case. *h receives the header without its tag, *nh the successor's header and
 * *ps the predecessor's size (0 when it is used): the loads free makes anyway, plus the
 * predecessor's header on that path. O(1). */
static inline int tag_used_block(agb_machine *m, uint32_t addr, uint32_t first, uint32_t sentinel,
				 uint32_t *h, uint32_t *nh, uint32_t *ps)
{
	uint32_t b = addr - 4u, s, p;
	if (b - first >= sentinel - first || (b & 7u) != 4u)
		return 0;
	*h = AGB_LD32(m, b) ^ tag_of(b); /* a used header's tag cancels out */
	s = *h & ~HDR_FLAGS;
	if ((*h >> 19) != 0 || (*h & HDR_FREE) != 0 || s < MIN_BLOCK || s > sentinel - b)
		return 0;
	*nh = AGB_LD32(m, b + s);
	if ((*nh & HDR_PREV_FREE) != 0)
		return 0;
	*ps = 0;
	if ((*h & HDR_PREV_FREE) == 0)
		return 1;
	*ps = p = AGB_LD32(m, b - 4u);
	return p >= MIN_BLOCK && (p & 7u) == 0 && p <= b - first &&
	       AGB_LD32(m, b - p) == (p | HDR_FREE);
}

#endif
