/* bestfit_int.h — what the parts of `bestfit` share (src/agbmem/core/bestfit.c, the algorithm;
 * src/agbmem/core/bestfit_check.c, its observers and invariant checker): the node and map encodings and
 * the accessors of the pool state. Internal to src/core; freestanding. The control structure's
 * offsets are in bestfit_thumb.h, which the Thumb hot paths read too. */
#ifndef AGB_CORE_BESTFIT_INT_H
#define AGB_CORE_BESTFIT_INT_H

#include <stdint.h>

#include "agb/bestfit.h"
#include "bestfit_thumb.h"
#include "common/map2.h"

#define NIL 0xFFFFu

#define SMALL AGB_BESTFIT_SMALL

/* Node of a free run, in its first block: next and prev of its bin or class list share a word
 * (one access reads both), N_SIZE doubles as the boundary tag in the run's last block, which is
 * why a one-block run needs no special case. */
#define N_NEXT 0u
#define N_PREV 2u
#define N_SIZE 6u

#define E_FREE 0u
#define E_USED 1u
#define E_LONG 2u
#define E_END 3u

/* Beyond this many blocks a long run's length no longer fits its encoding (map2.h
 * agb_map2_len_encode, 15 bits): 256 KiB of blocks, all of EWRAM. */
#define MAX_BLOCKS 0x7FFFu

#define LONG_CLASSES AGB_BESTFIT_LONG_CLASSES

/* The observation counters are host-only: on the GBA they would be real work in every op (a
 * multiply and 64-bit arithmetic), so there stats() recounts with a walk instead. */
#ifdef AGB_TARGET_GBA
#define COUNTERS 0
#else
#define COUNTERS 1
#endif

/* ---- small accessors ------------------------------------------------------------------------ */

static inline uint32_t node(const agb_bestfit *t, uint32_t i)
{
	return t->blocks + (i << 3);
}

static inline uint32_t ld(const agb_bestfit *t, uint32_t i, uint32_t field)
{
	return AGB_LD16(t->m, node(t, i) + field);
}

static inline void st(const agb_bestfit *t, uint32_t i, uint32_t field, uint32_t v)
{
	AGB_ST16(t->m, node(t, i) + field, v);
}

static inline uint32_t pk(const agb_bestfit *t, uint32_t i, uint32_t field)
{
	return AGB_PEEK16(t->m, node(t, i) + field);
}

/* Address of the map halfword holding entry i. */
static inline uint32_t map_hw(const agb_bestfit *t, uint32_t i)
{
	return agb_map2_hw(t->map, i);
}

static inline uint32_t entry_peek(const agb_bestfit *t, uint32_t i)
{
	return agb_map2_peek(t->m, t->map, i);
}

/* Address of the head of the bin holding runs of `size` blocks (1..SMALL). */
static inline uint32_t head_addr(const agb_bestfit *t, uint32_t size)
{
	return t->heads + ((size - 1u) << 1);
}

static inline uint32_t bitmap_addr(const agb_bestfit *t, uint32_t k)
{
	return t->ctrl + C_BITMAP + ((k >> 5) << 2);
}

static inline uint32_t lhead_addr(const agb_bestfit *t, uint32_t c)
{
	return t->ctrl + C_LHEADS + (c << 1);
}

/* Whether bin `size` (1..SMALL) holds a run: its bitmap bit. Uncounted, for observers. */
static inline int bin_nonempty_quiet(const agb_bestfit *t, uint32_t size)
{
	uint32_t k = size - 1u;
	return (AGB_PEEK32(t->m, t->ctrl + C_BITMAP + ((k >> 5) << 2)) >> (k & 31u)) & 1u;
}

static inline uint32_t long_class_quiet(uint32_t size)
{
	return agb_bestfit_long_class_of[(size >> 7) & 0xFFu];
}

#endif
