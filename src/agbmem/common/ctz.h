/* Index of the lowest set bit for the cores: private to src/agbmem (like pal_tables.h).
 *
 * ARMv4T has no CLZ, so a de Bruijn multiply and a 32-entry table: one MUL and one table read
 * through AGB_ROM_LD8 (the table sits in ROM on the GBA and its reads are counted). Every core
 * that needs the lowest set bit of a word uses these, so there is one table. Freestanding. */
#ifndef AGB_CORE_CTZ_H
#define AGB_CORE_CTZ_H

#include <stdint.h>

#include "agb/machine.h"

#define AGB_DEBRUIJN32 0x077CB531u

static const uint8_t agb_debruijn32[32] = {
	0,  1,  28, 2,  29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4,  8,
	31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6,  11, 5,  10, 9,
};

/* Index of `bit`, a word with exactly one bit set. O(1). */
static inline uint32_t agb_ctz_bit(agb_machine *m, uint32_t bit)
{
	return AGB_ROM_LD8(m, agb_debruijn32, (bit * AGB_DEBRUIJN32) >> 27);
}

/* Index of the lowest set bit of x != 0. O(1). */
static inline uint32_t agb_ctz32(agb_machine *m, uint32_t x)
{
	return agb_ctz_bit(m, x & (0u - x));
}

#endif
