/* MT19937, the Mersenne Twister of Matsumoto and Nishimura (1998), as the seed article
 * recommends for the GBA: no division or modulo, a few shifts and XORs per number.
 * Own implementation of the published algorithm; the state is 624 words (2496 bytes).
 * Freestanding: only <stdint.h>. Deterministic: same seed, same sequence, on every machine. */
#ifndef AGB_MT19937_H
#define AGB_MT19937_H

#include <stdint.h>

#define AGB_MT_N 624u

struct agb_mt {
	uint32_t s[AGB_MT_N];
	uint32_t i; /* next word of s to temper; AGB_MT_N: regenerate first */
};

/* Seeds the generator (the reference init_genrand). Seed 5489 gives 3499211612, 581869302,
 * 3890346734, ... O(624). */
void agb_mt_seed(struct agb_mt *mt, uint32_t seed);

/* Next 32-bit output (the reference genrand_int32). Amortized O(1). */
uint32_t agb_mt_next(struct agb_mt *mt);

/* Uniform integer in 0 .. n-1 for n >= 1: the high half of a 32x32 product, integer-only so
 * every machine gets the same values (bias below 2^-32 * n, irrelevant for scenarios). */
uint32_t agb_mt_below(struct agb_mt *mt, uint32_t n);

#endif
