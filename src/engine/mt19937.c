/* MT19937 (see agbsim/mt19937.h). */
#include "agbsim/mt19937.h"

#define M 397u
#define UPPER 0x80000000u
#define LOWER 0x7FFFFFFFu
#define MATRIX_A 0x9908B0DFu

void agb_mt_seed(struct agb_mt *mt, uint32_t seed)
{
	mt->s[0] = seed;
	for (uint32_t k = 1; k < AGB_MT_N; k++)
		mt->s[k] = 1812433253u * (mt->s[k - 1u] ^ (mt->s[k - 1u] >> 30)) + k;
	mt->i = AGB_MT_N;
}

/* Regenerates all 624 words at once: the twist. */
static void twist(struct agb_mt *mt)
{
	for (uint32_t k = 0; k < AGB_MT_N; k++) {
		uint32_t y = (mt->s[k] & UPPER) | (mt->s[(k + 1u) % AGB_MT_N] & LOWER);
		mt->s[k] = mt->s[(k + M) % AGB_MT_N] ^ (y >> 1) ^ ((y & 1u) ? MATRIX_A : 0u);
	}
	mt->i = 0;
}

uint32_t agb_mt_next(struct agb_mt *mt)
{
	uint32_t y;
	if (mt->i >= AGB_MT_N)
		twist(mt);
	y = mt->s[mt->i++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9D2C5680u;
	y ^= (y << 15) & 0xEFC60000u;
	y ^= y >> 18;
	return y;
}

uint32_t agb_mt_below(struct agb_mt *mt, uint32_t n)
{
	return (uint32_t)(((uint64_t)agb_mt_next(mt) * n) >> 32);
}
