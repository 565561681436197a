/* malloc_probe.c — what a game gets from its malloc, in standard C only: the same object is
 * linked once with newlib's malloc and once with the drop-in heap (-lagbmalloc, -lagbmalloc_iwram)
 * and tests/gba/malloc_probe.py compares the lines it prints (stdout: mGBA's debug log).
 *
 *   largest N        the largest single block from a fresh heap: asks for 256 KiB, then 4
 *                    bytes less until one is given
 *   fill K BYTES     blocks of 100 B to 64 KiB (a fixed pseudo-random sequence) allocated until
 *                    the first refusal: K blocks, BYTES bytes asked for, were given before it
 *   errno ENOMEM     a refused malloc sets errno as C says
 *   calloc overflow refused|served   calloc(0x10000, 0x10000): NULL and ENOMEM, or a block
 *   checks ok        realloc keeps contents, calloc zeroes, memalign/aligned_alloc/posix_memalign
 *                    align, malloc_usable_size covers the request, strdup, free(NULL)
 * Exit status 0 when every check held. */
#define _DEFAULT_SOURCE 1 /* strdup in C11 mode */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILL_MAX 600

/* newlib has no posix_memalign, and its aligned_alloc calls it (it does not link): weak
 * references, so both are checked where the heap has them and pull nothing otherwise. */
extern int posix_memalign(void **out, size_t align, size_t n) __attribute__((weak));
extern void *aligned_alloc(size_t align, size_t n) __attribute__((weak));

static void *blocks[FILL_MAX];

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* 100 B to 64 KiB, most of them small: a size class [100 * 2^k, 200 * 2^k), k = 0..9 with
 * P(k) = 2^-(k+1) (k = 9 takes the rest), then uniform in it: a mean of about 750 bytes. */
static size_t fill_size(uint32_t *s)
{
	uint32_t r = lcg(s), k = 0;
	while (k < 9u && (r & 1u)) {
		r >>= 1;
		k++;
	}
	uint32_t lo = 100u << k, hi = lo * 2u;
	uint32_t n = lo + lcg(s) % (hi - lo);
	return n > 65536u ? 65536u : n;
}

static int failures;

static void expect(int ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s\n", what);
		failures++;
	}
}

int main(void)
{
	size_t n = 256u * 1024u;
	void *p;
	while ((p = malloc(n)) == NULL && n > 4u)
		n -= 4u;
	printf("largest %u\n", (unsigned)n);
	free(p);

	uint32_t seed = 12345u;
	unsigned k = 0;
	unsigned long asked = 0;
	for (; k < FILL_MAX; k++) {
		size_t sz = fill_size(&seed);
		blocks[k] = malloc(sz);
		if (blocks[k] == NULL)
			break;
		memset(blocks[k], (int)k, sz < 16u ? sz : 16u);
		asked += sz;
	}
	printf("fill %u %lu\n", k, asked);
	for (unsigned i = 0; i < k; i++)
		free(blocks[i]);

	errno = 0;
	p = malloc(300u * 1024u);
	expect(p == NULL && errno == ENOMEM, "malloc refusal sets ENOMEM");
	errno = 0;
	if (failures == 0)
		printf("errno ENOMEM\n");
	/* A count * size that wraps: C says NULL; newlib's calloc allocates the wrapped size. */
	errno = 0;
	volatile size_t huge = 0x10000u; /* not a constant: the overflow is the run's */
	p = calloc(huge, huge);
	printf("calloc overflow %s\n", p == NULL && errno == ENOMEM ? "refused" : "served");
	free(p);

	char *s = malloc(10);
	memcpy(s, "abcdefghi", 10);
	char *grown = realloc(s, 5000);
	if (grown == NULL)
		free(s);
	s = grown;
	expect(s != NULL && strcmp(s, "abcdefghi") == 0, "realloc keeps contents");
	expect(malloc_usable_size(s) >= 5000u, "malloc_usable_size covers the request");
	free(s);
	unsigned char *z = calloc(64, 16);
	int zero = z != NULL;
	for (unsigned i = 0; zero && i < 1024u; i++)
		zero = z[i] == 0;
	expect(zero, "calloc zeroes");
	free(z);
	void *a = memalign(256, 100);
	expect(a != NULL && ((uintptr_t)a & 255u) == 0, "memalign aligns");
	free(a);
	if (aligned_alloc) {
		a = aligned_alloc(64, 128);
		expect(a != NULL && ((uintptr_t)a & 63u) == 0, "aligned_alloc aligns");
		free(a);
	}
	if (posix_memalign) {
		a = NULL;
		expect(posix_memalign(&a, 32, 40) == 0 && ((uintptr_t)a & 31u) == 0,
		       "posix_memalign aligns");
		free(a);
		expect(posix_memalign(&a, 24, 40) == EINVAL, "posix_memalign refuses alignment 24");
	}
	char *d = strdup("strdup through _malloc_r");
	expect(d != NULL && strcmp(d, "strdup through _malloc_r") == 0, "strdup");
	free(d);
	free(NULL);
	if (failures == 0)
		printf("checks ok\n");
	return failures;
}
