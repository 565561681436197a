/* The `firstfit` core: lowest-address placement, address-ordered list, coalescing, realloc. */
#include "zoo_helpers.h"

#include "agb/firstfit.h"

static const struct agb_heap_core *C = &agb_firstfit_core;

static void takes_the_lowest_hole_that_fits(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(16384);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	/* The starts bitmap (in the meta area) + head padding + sentinel/tail. */
	assert_int_equal(C->overhead_bytes(STATE), AGB_FIRSTFIT_META_BYTES(16384u) + 8u);
	assert_true(((agb_firstfit *)(void *)STATE)->starts == c.meta_addr);
	uint32_t a = zoo_alloc(C, 100, 1), b = zoo_alloc(C, 20, 1), d = zoo_alloc(C, 300, 1);
	uint32_t e = zoo_alloc(C, 20, 1);
	(void)e;
	zoo_free(C, a);
	zoo_free(C, d);
	/* 50 fits both holes: first fit takes the lower one (a's), best fit would not matter. */
	assert_int_equal(zoo_alloc(C, 50, 1), a);
	/* 200 does not fit the rest of a's hole: d's. */
	assert_int_equal(zoo_alloc(C, 200, 1), d);
	zoo_free(C, b);
	assert_int_equal(zoo_walk(C, &c).free_runs, zoo_stats(C).free_runs);
	zoo_bus_clean();
}

static void free_in_every_neighbour_case(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(16384);
	uint32_t v[8];
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	for (int i = 0; i < 8; i++)
		v[i] = zoo_alloc(C, 64, 1);
	zoo_free(C, v[1]); /* no free neighbour: list insert by walk */
	zoo_free(C, v[5]); /* no free neighbour, after v[1] in the list */
	zoo_free(C, v[2]); /* free predecessor */
	zoo_free(C, v[4]); /* free successor */
	zoo_free(C, v[3]); /* both */
	assert_int_equal(zoo_stats(C).free_runs, 2); /* v1..v5 and the wilderness */
	zoo_free(C, v[7]);
	zoo_free(C, v[0]);
	zoo_free(C, v[6]);
	assert_int_equal(zoo_stats(C).free_runs, 1);
}

static void aligned_requests_leave_the_head_free(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(16384);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 10, 1024);
	assert_int_equal(a % 1024u, 0);
	struct agb_heap_stats s = zoo_stats(C);
	assert_int_equal(s.free_runs, 2);
	assert_int_equal(zoo_alloc(C, 10, 1), AGB_MEM_EWRAM + 8u); /* the head is reused first */
}

static void realloc_paths(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(4096);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 40, 1), wall = zoo_alloc(C, 8, 1);
	AGB_ST32(M, a, 0xCAFEF00Du);
	assert_int_equal(C->realloc(STATE, a, 8, &g), a); /* shrink: tail becomes free */
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, a, 36, &g), a); /* grow back into it */
	zoo_check(C);
	uint32_t b = C->realloc(STATE, a, 500, &g); /* wall blocks growth: move */
	assert_true(b != a && b != AGB_NULL);
	assert_int_equal(AGB_LD32(M, b), 0xCAFEF00Du);
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, b, 5000, &g), AGB_NULL);
	zoo_check(C);
	zoo_free(C, wall);
	zoo_free(C, b);
	assert_int_equal(zoo_stats(C).free_runs, 1);
}

/* The starts bitmap goes to the meta area when it holds it, else (too small, none, not
 * 4-aligned) to the arena head, inside the walk's META run; every placement serves and refuses
 * a double free alike. */
static void starts_bitmap_placement(void **state)
{
	(void)state;
	agb_firstfit *f = (agb_firstfit *)(void *)STATE;
	const uint32_t small[][2] = {
	        {AGB_MEM_IWRAM + 0x4000u, AGB_FIRSTFIT_META_BYTES(16384u) - 4u},
	        {AGB_NULL, 0},
	        {AGB_MEM_IWRAM + 0x4002u, 0x1000u}};
	for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
		struct agb_heap_config c = zoo_config(16384);
		c.meta_addr = small[i][0];
		c.meta_bytes = small[i][1];
		assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
		zoo_check(C);
		assert_true(f->starts == c.arena_addr);
		struct zoo_walk w = zoo_walk(C, &c);
		assert_true(w.meta_bytes >= AGB_FIRSTFIT_META_BYTES(16384u));
		assert_int_equal(C->overhead_bytes(STATE), w.meta_bytes);
		zoo_serves_and_refuses(C);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(takes_the_lowest_hole_that_fits),
		cmocka_unit_test(free_in_every_neighbour_case),
		cmocka_unit_test(aligned_requests_leave_the_head_free),
		cmocka_unit_test(realloc_paths),
		cmocka_unit_test(starts_bitmap_placement),
	};
	return cmocka_run_group_tests(tests, zoo_setup, zoo_teardown);
}
