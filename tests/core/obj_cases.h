/* Cases shared by the obj and obj-fast suites: both cores must pass every one (they promise the
 * same placement decisions), plus helpers to drive a core on a fresh machine. */
#ifndef AGB_TEST_OBJ_CASES_H
#define AGB_TEST_OBJ_CASES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agb/machine.h"
#include "agb/obj.h"
#include "agb/obj_fast.h"

#define OBJ_BASE  AGB_MEM_VRAM_OBJ
#define META_BASE AGB_MEM_EWRAM

struct objt {
	agb_machine *m;
	const struct agb_heap_core *core;
	uint64_t state[AGB_HEAP_STATE_MAX / 8];
};

static inline struct objt *objt_new(const struct agb_heap_core *core, uint32_t arena_bytes,
				    uint32_t flags, uint32_t meta)
{
	struct objt *t = calloc(1, sizeof *t);
	struct agb_heap_config cfg = {OBJ_BASE, arena_bytes, meta, 0x8000u, flags};
	assert_non_null(t);
	t->m = malloc(sizeof *t->m);
	assert_non_null(t->m);
	agb_machine_init(t->m, AGB_WAITCNT_DEFAULT);
	t->core = core;
	assert_int_equal(core->init(t->state, t->m, &cfg), AGB_HEAP_OK);
	agb_machine_reset_counters(t->m);
	return t;
}

static inline void objt_free_all(struct objt *t)
{
	free(t->m);
	free(t);
}

static inline uint32_t objt_alloc(struct objt *t, uint32_t size, uint32_t align)
{
	uint32_t granted = 0;
	uint32_t a = t->core->alloc(t->state, size, align, &granted);
	if (a != AGB_NULL)
		assert_int_equal(granted, (size + 31u) / 32u * 32u);
	return a;
}

static inline uint32_t objt_block(uint32_t addr)
{
	return (addr - OBJ_BASE) / 32u;
}

static inline void objt_check(struct objt *t)
{
	const char *why = NULL;
	int bad = t->core->check(t->state, &why);
	if (bad)
		fail_msg("%s: %s", t->core->name, why);
}

/* The article's example: a 32-byte block, then a 64-byte one; freeing the 32-byte block opens
 * room for another 64-byte block (the 64 went to offset 64, not 32). */
static inline void case_article_example(const struct agb_heap_core *core)
{
	struct objt *t = objt_new(core, 0x8000u, 0, META_BASE);
	uint32_t a = objt_alloc(t, 32, 1), b = objt_alloc(t, 64, 1), c;
	struct agb_heap_stats st;
	assert_int_equal(objt_block(a), 0);
	assert_int_equal(objt_block(b), 2); /* multiple of 2 blocks: block 1 is skipped */
	t->core->free(t->state, a);
	objt_check(t);
	t->core->stats(t->state, &st);
	assert_int_equal(st.free_runs, 2);
	c = objt_alloc(t, 64, 1);
	assert_int_equal(objt_block(c), 0); /* the 64-byte hole came back */
	objt_check(t);
	objt_free_all(t);
}

/* n blocks only at multiples of n rounded up to a power of two; first such fit. */
static inline void case_placement_rule(const struct agb_heap_core *core)
{
	struct objt *t = objt_new(core, 0x8000u, 0, META_BASE);
	uint32_t one = objt_alloc(t, 32, 1);       /* block 0 */
	uint32_t three = objt_alloc(t, 96, 1);     /* 3 blocks -> multiple of 4: block 4 */
	uint32_t four = objt_alloc(t, 128, 1);     /* block 8 */
	uint32_t big = objt_alloc(t, 4096, 1);     /* 128 blocks: block 128 */
	uint32_t two = objt_alloc(t, 64, 1);       /* block 2 */
	uint32_t one2 = objt_alloc(t, 1, 1);       /* block 1 */
	uint32_t one3 = objt_alloc(t, 32, 1);      /* block 7 (4..6 used by the 3-block run) */
	assert_int_equal(objt_block(one), 0);
	assert_int_equal(objt_block(three), 4);
	assert_int_equal(objt_block(four), 8);
	assert_int_equal(objt_block(big), 128);
	assert_int_equal(objt_block(two), 2);
	assert_int_equal(objt_block(one2), 1);
	assert_int_equal(objt_block(one3), 7);
	objt_check(t);
	/* Free the 3-block run: the 4-block candidate at 4 is still blocked by block 7. */
	t->core->free(t->state, three);
	assert_int_equal(objt_block(objt_alloc(t, 128, 1)), 12);
	objt_check(t);
	objt_free_all(t);
}

/* 8bpp sprites need an even tile: align 64 makes a 1-block request start on an even block. */
static inline void case_8bpp_even_tile(const struct agb_heap_core *core)
{
	struct objt *t = objt_new(core, 0x8000u, 0, META_BASE);
	uint32_t a = objt_alloc(t, 32, 1);  /* block 0 */
	uint32_t b = objt_alloc(t, 32, 64); /* 8bpp: not block 1 */
	uint32_t c = objt_alloc(t, 32, 1);  /* block 1 is still free for a 4bpp tile */
	uint32_t d = objt_alloc(t, 64, 64); /* an 8bpp 8x8: even anyway */
	assert_int_equal(objt_block(b) % 2u, 0);
	assert_int_equal(objt_block(b), 2);
	assert_int_equal(objt_block(c), 1);
	assert_int_equal(objt_block(d), 4);
	(void)a;
	objt_check(t);
	objt_free_all(t);
}

/* Bitmap modes: only tiles 512-1023; 16 KiB fit, one more block does not. */
static inline void case_bitmap_mode(const struct agb_heap_core *core)
{
	struct objt *t = objt_new(core, 0x8000u, AGB_HEAP_FLAG_OBJ_BITMAP_MODE, META_BASE);
	struct agb_heap_stats st;
	uint32_t a = objt_alloc(t, 32, 1), b;
	assert_int_equal(objt_block(a), 512);
	t->core->stats(t->state, &st);
	assert_int_equal(st.free_bytes, 0x4000u - 32u);
	t->core->free(t->state, a);
	for (uint32_t i = 0; i < 4; i++) {
		b = objt_alloc(t, 4096, 1);
		assert_int_equal(objt_block(b), 512u + 128u * i);
	}
	assert_int_equal(objt_alloc(t, 32, 1), AGB_NULL);
	objt_check(t);
	objt_free_all(t);
	/* An arena that ends inside the lower half cannot run in bitmap mode. */
	{
		agb_machine *m = malloc(sizeof *m);
		uint64_t st2[AGB_HEAP_STATE_MAX / 8];
		struct agb_heap_config cfg = {OBJ_BASE, 0x4000u, META_BASE, 0x8000u,
					      AGB_HEAP_FLAG_OBJ_BITMAP_MODE};
		agb_machine_init(m, AGB_WAITCNT_DEFAULT);
		assert_int_equal(core->init(st2, m, &cfg), AGB_HEAP_ARENA_TOO_SMALL);
		free(m);
	}
}

/* Exhaustion and the whole arena as one block. */
static inline void case_full_and_empty(const struct agb_heap_core *core)
{
	struct objt *t = objt_new(core, 0x8000u, 0, META_BASE);
	uint32_t all = objt_alloc(t, 0x8000u, 1);
	assert_int_equal(objt_block(all), 0);
	assert_int_equal(objt_alloc(t, 1, 1), AGB_NULL);
	t->core->free(t->state, all);
	objt_check(t);
	for (uint32_t i = 0; i < 1024; i++)
		assert_int_equal(objt_block(objt_alloc(t, 32, 1)), i);
	assert_int_equal(objt_alloc(t, 32, 1), AGB_NULL);
	objt_check(t);
	objt_free_all(t);
}

/* A tiny deterministic generator for the randomized cases (xorshift32). */
static inline uint32_t xs32(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* A random request: mostly sprite sizes (powers of two, 8bpp asks align 64), some odd sizes
 * and odd alignments to exercise the slow paths. */
static inline void random_request(uint32_t *s, uint32_t *size, uint32_t *align)
{
	static const uint32_t sprite[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
	uint32_t k = xs32(s) % 16u;
	if (k < 11u) {
		*size = sprite[xs32(s) % 8u];
		*align = (xs32(s) & 1u) ? 64u : 1u;
	} else if (k < 15u) {
		*size = 1u + xs32(s) % 3000u;
		*align = 1u;
	} else {
		*size = 1u + xs32(s) % 200u;
		*align = 1u << (xs32(s) % 12u);
	}
}

/* Random sequences (six rounds of 3000 ops: the map in EWRAM and IWRAM, bitmap mode every third
 * round, a 20 KiB arena in one) with the invariant checker after every op: each block obeys the
 * alignment it asked for, and no store ever needs the VRAM byte-store quirk. */
static inline void case_random_sequences(const struct agb_heap_core *core)
{
	for (uint32_t round = 0; round < 6; round++) {
		uint32_t seed = 0x1234u + round, live[256], n = 0;
		uint32_t flags = round % 3u == 2u ? AGB_HEAP_FLAG_OBJ_BITMAP_MODE : 0u;
		uint32_t meta = round % 2u ? AGB_MEM_IWRAM : AGB_MEM_EWRAM;
		struct objt *t = objt_new(core, round == 4 ? 0x5000u : 0x8000u, flags, meta);
		for (uint32_t i = 0; i < 3000; i++) {
			if (n > 0 && (n == 256 || xs32(&seed) % 3u == 0)) {
				uint32_t k = xs32(&seed) % n;
				t->core->free(t->state, live[k]);
				live[k] = live[--n];
			} else {
				uint32_t size, align, a;
				random_request(&seed, &size, &align);
				a = objt_alloc(t, size, align);
				if (a != AGB_NULL) {
					assert_int_equal(objt_block(a) % (align > 32u ? align / 32u : 1u), 0);
					live[n++] = a;
				}
			}
			objt_check(t);
		}
		assert_int_equal(t->m->quirk_stores, 0);
		objt_free_all(t);
	}
}

/* The shared cases as cmocka tests of `core`: OBJ_CASE_TESTS(core) defines them in a suite,
 * OBJ_CASE_LIST names them in its CMUnitTest array. */
#define OBJ_CASE_TEST(name, c, core)                                                                \
	static void name(void **state)                                                             \
	{                                                                                          \
		(void)state;                                                                       \
		c(core);                                                                           \
	}
#define OBJ_CASE_TESTS(core)                                                                        \
	OBJ_CASE_TEST(article_example, case_article_example, core)                                 \
	OBJ_CASE_TEST(placement_rule, case_placement_rule, core)                                   \
	OBJ_CASE_TEST(even_tile_for_8bpp, case_8bpp_even_tile, core)                               \
	OBJ_CASE_TEST(bitmap_mode_upper_16k_only, case_bitmap_mode, core)                          \
	OBJ_CASE_TEST(full_and_empty, case_full_and_empty, core)                                   \
	OBJ_CASE_TEST(random_sequences_keep_invariants, case_random_sequences, core)
#define OBJ_CASE_LIST                                                                               \
	cmocka_unit_test(article_example), cmocka_unit_test(placement_rule),                       \
		cmocka_unit_test(even_tile_for_8bpp), cmocka_unit_test(bitmap_mode_upper_16k_only), \
		cmocka_unit_test(full_and_empty), cmocka_unit_test(random_sequences_keep_invariants)

#endif
