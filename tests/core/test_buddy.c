/* The `buddy` core: external metadata, power-of-two blocks, splitting, merging, alignment. */
#include "zoo_helpers.h"

#include "agb/buddy.h"

static const struct agb_heap_core *C = &agb_buddy_core;

static void metadata_is_outside_the_arena(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(256u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	/* 16384 units: 8 KiB order map + 2 KiB bitmap + 15 heads. */
	assert_int_equal(C->overhead_bytes(STATE), 8192u + 2048u + 60u);
	struct zoo_walk w = zoo_walk(C, &c);
	assert_int_equal(w.meta_bytes, 0);
	assert_int_equal(w.free_runs, 1);
	assert_int_equal(zoo_stats(C).largest_free, 256u * 1024u);
	c.meta_bytes = 100;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_META_TOO_SMALL);
	c = zoo_config(8);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_ARENA_TOO_SMALL);
}

static void odd_pool_is_covered_by_aligned_blocks(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(192u * 1024u + 48u + 5u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	struct zoo_walk w = zoo_walk(C, &c);
	assert_int_equal(w.free_runs, 4); /* 128K + 64K + 32 + 16 */
	assert_int_equal(w.meta_bytes, 5);
	/* A 100 KiB request takes the 128 KiB block; a second one cannot fit anywhere. */
	uint32_t a = zoo_alloc(C, 100u * 1024u, 1);
	assert_int_equal(a, AGB_MEM_EWRAM);
	assert_int_equal(zoo_alloc(C, 100u * 1024u, 1), AGB_NULL);
	zoo_free(C, a);
	assert_int_equal(zoo_walk(C, &c).free_runs, 4); /* top blocks never merge */
}

static void split_and_merge(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(4096);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = C->alloc(STATE, 1, 1, &g);
	assert_int_equal(g, 16);
	zoo_check(C);
	uint32_t b = zoo_alloc(C, 16, 1), d = zoo_alloc(C, 17, 1);
	assert_int_equal(b, a + 16);  /* a's buddy */
	assert_int_equal(d, a + 32);  /* the next 32-byte block */
	assert_int_equal(zoo_stats(C).free_runs, 6); /* 64, 128, ... 2048 split off */
	zoo_free(C, a);
	zoo_free(C, d);
	zoo_free(C, b); /* merges all the way up */
	struct agb_heap_stats s = zoo_stats(C);
	assert_int_equal(s.free_runs, 1);
	assert_int_equal(s.largest_free, 4096);
	zoo_bus_clean();
}

static void alignment_comes_from_the_order(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_alloc(C, 16, 1);
	uint32_t a = C->alloc(STATE, 16, 4096, &g);
	assert_int_equal(a % 4096u, 0);
	assert_int_equal(g, 4096); /* the price of alignment in a buddy system */
	zoo_check(C);
}

static void realloc_shrinks_in_place(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(8192);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 1000, 1);
	AGB_ST32(M, a, 0x12345678u);
	assert_int_equal(C->realloc(STATE, a, 100, &g), a);
	assert_int_equal(g, 128);
	zoo_check(C);
	uint32_t b = C->realloc(STATE, a, 3000, &g);
	assert_int_not_equal(b, AGB_NULL);
	assert_int_equal(g, 4096);
	assert_int_equal(AGB_LD32(M, b), 0x12345678u);
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, b, 8192, &g), AGB_NULL);
	zoo_check(C);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(metadata_is_outside_the_arena),
		cmocka_unit_test(odd_pool_is_covered_by_aligned_blocks),
		cmocka_unit_test(split_and_merge),
		cmocka_unit_test(alignment_comes_from_the_order),
		cmocka_unit_test(realloc_shrinks_in_place),
	};
	return cmocka_run_group_tests(tests, zoo_setup, zoo_teardown);
}
