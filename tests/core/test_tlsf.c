/* The `tlsf` core: layout, O(1) class lookup, splitting, coalescing, alignment, realloc, limits. */
#include "zoo_helpers.h"

#include "agb/tlsf.h"

static const struct agb_heap_core *C = &agb_tlsf_core;

static void control_goes_to_meta_when_it_fits(void **state)
{
	(void)state;
	agb_tlsf *t = (agb_tlsf *)(void *)STATE;
	struct agb_heap_config c = zoo_config(256u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	assert_true(t->ctrl == c.meta_addr);
	assert_true(t->starts == c.meta_addr + AGB_TLSF_CTRL_BYTES);
	/* Control (864) + starts bitmap (4 KiB) + 4 bytes of head padding + sentinel/tail (4). */
	assert_int_equal(AGB_TLSF_META_BYTES(256u * 1024u), 864u + 4096u);
	assert_int_equal(C->overhead_bytes(STATE), AGB_TLSF_META_BYTES(256u * 1024u) + 8u);
	struct zoo_walk w = zoo_walk(C, &c);
	assert_int_equal(w.free_runs, 1);
	struct agb_heap_stats s = zoo_stats(C);
	assert_int_equal(s.free_runs, 1);
	assert_int_equal(s.largest_free, s.free_bytes);

	/* Room for the control only: the bitmap goes to the arena head. */
	c.meta_bytes = AGB_TLSF_CTRL_BYTES;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	assert_true(t->ctrl == c.meta_addr && t->starts == c.arena_addr);
	w = zoo_walk(C, &c);
	assert_true(w.meta_bytes >= AGB_TLSF_STARTS_BYTES(c.arena_bytes));
	assert_int_equal(C->overhead_bytes(STATE), AGB_TLSF_CTRL_BYTES + w.meta_bytes);
	zoo_serves_and_refuses(C);

	/* No meta area: control and bitmap at the arena head, counted in the walk's META run. */
	c.meta_addr = AGB_NULL;
	c.meta_bytes = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	assert_true(t->ctrl == c.arena_addr && t->starts == c.arena_addr + AGB_TLSF_CTRL_BYTES);
	w = zoo_walk(C, &c);
	assert_true(w.meta_bytes >= AGB_TLSF_META_BYTES(c.arena_bytes));
	assert_int_equal(C->overhead_bytes(STATE), w.meta_bytes);
	zoo_serves_and_refuses(C); /* every placement serves and refuses alike */
}

static void limits(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(32);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_ARENA_TOO_SMALL);
	c = zoo_config(1u << 19);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_ARENA_TOO_LARGE);
	c = zoo_config(4096);
	c.arena_addr += 2;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_BAD_ALIGNMENT);
	c = zoo_config(4096);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	assert_int_equal(zoo_alloc(C, 5000, 1), AGB_NULL);
	assert_int_equal(zoo_alloc(C, 0xFFFFFFF0u, 1), AGB_NULL);
	uint32_t a = zoo_alloc(C, 0, 1); /* zero counts as one byte */
	assert_int_not_equal(a, AGB_NULL);
	zoo_free(C, a);
	C->free(STATE, AGB_NULL); /* ignored */
	zoo_check(C);
}

static void split_and_coalesce(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	struct agb_heap_stats s0 = zoo_stats(C);
	uint32_t a = zoo_alloc(C, 24, 1), b = zoo_alloc(C, 100, 1), d = zoo_alloc(C, 1000, 1);
	assert_true(a != AGB_NULL && b != AGB_NULL && d != AGB_NULL);
	assert_int_equal(a & 7u, 0); /* 8-aligned payloads */
	zoo_free(C, b);               /* a hole between two used blocks */
	assert_int_equal(zoo_stats(C).free_runs, 2);
	uint32_t b2 = zoo_alloc(C, 100, 1); /* good fit reuses the hole */
	assert_int_equal(b2, b);
	zoo_free(C, a);
	zoo_free(C, d); /* merges with the wilderness */
	zoo_free(C, b2); /* merges both ways */
	struct agb_heap_stats s1 = zoo_stats(C);
	assert_int_equal(s1.free_runs, 1);
	assert_int_equal(s1.free_bytes, s0.free_bytes);
	zoo_bus_clean();
}

static void alignment(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	for (uint32_t align = 1; align <= 4096; align <<= 1) {
		uint32_t a = zoo_alloc(C, 40, align);
		assert_int_not_equal(a, AGB_NULL);
		assert_int_equal(a % align, 0);
	}
	zoo_walk(C, &c);
}

static void realloc_in_place_and_moving(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(16u * 1024u);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 64, 1);
	for (uint32_t i = 0; i < 64; i += 4)
		AGB_ST32(M, a + i, 0xA0000000u + i);
	assert_int_equal(C->realloc(STATE, a, 500, &g), a); /* grows into the free successor */
	assert_true(g >= 500);
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, a, 20, &g), a); /* shrinks in place */
	zoo_check(C);
	uint32_t wall = zoo_alloc(C, 16, 1); /* pin the successor */
	uint32_t b = C->realloc(STATE, a, 2000, &g);   /* must move */
	assert_true(b != a && b != AGB_NULL);
	zoo_check(C);
	for (uint32_t i = 0; i < 16; i += 4)
		assert_int_equal(AGB_LD32(M, b + i), 0xA0000000u + i);
	/* C semantics: a failing realloc leaves the block alone. */
	assert_int_equal(C->realloc(STATE, b, 100000, &g), AGB_NULL);
	zoo_check(C);
	assert_int_equal(AGB_LD32(M, b), 0xA0000000u);
	zoo_free(C, wall);
	zoo_free(C, b);
	assert_int_equal(zoo_stats(C).free_runs, 1);
}

static void fills_completely(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(8192);
	uint32_t blocks[1024], n = 0, a;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	while ((a = zoo_alloc(C, 12, 1)) != AGB_NULL)
		blocks[n++] = a;
	/* 16-byte blocks: everything but the 8 fixed bytes. */
	assert_int_equal(n, (8192u - 8u) / 16u);
	assert_int_equal(zoo_stats(C).free_bytes, 0);
	for (uint32_t i = 0; i < n; i += 2)
		zoo_free(C, blocks[i]);
	for (uint32_t i = 1; i < n; i += 2)
		zoo_free(C, blocks[i]);
	assert_int_equal(zoo_stats(C).free_runs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_goes_to_meta_when_it_fits),
		cmocka_unit_test(limits),
		cmocka_unit_test(split_and_coalesce),
		cmocka_unit_test(alignment),
		cmocka_unit_test(realloc_in_place_and_moving),
		cmocka_unit_test(fills_completely),
	};
	return cmocka_run_group_tests(tests, zoo_setup, zoo_teardown);
}
