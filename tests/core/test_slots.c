/* The `slots` core: the fixed layout rule, strict classes, alignment, in-place realloc. */
#include "zoo_helpers.h"

#include "agb/slots.h"

static const struct agb_heap_core *C = &agb_slots_core;

static void layout_follows_the_rule(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(256u * 1024u);
	const agb_slots *s = (const agb_slots *)(const void *)STATE;
	static const uint32_t expect[9] = {1820, 910, 455, 227, 113, 56, 28, 14, 7};
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	for (int k = 0; k < 9; k++)
		assert_int_equal(s->count[k], expect[k]);
	assert_int_equal(s->base[8], AGB_MEM_EWRAM); /* largest first */
	struct zoo_walk w = zoo_walk(C, &c);
	assert_int_equal(w.free_runs, 1820 + 910 + 455 + 227 + 113 + 56 + 28 + 14 + 7);
	assert_int_equal(C->overhead_bytes(STATE), s->meta_bytes + w.meta_bytes);
	c = zoo_config(9u * 4096u - 16u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_ARENA_TOO_SMALL);
}

static void classes_are_strict(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(9u * 4096u);
	uint32_t g = 0, n = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	assert_int_equal(zoo_alloc(C, 4097, 1), AGB_NULL); /* above the largest class */
	while (C->alloc(STATE, 4000, 1, &g) != AGB_NULL)
		n++;
	assert_int_equal(n, 1); /* one 4096 slot in a 36 KiB pool */
	zoo_check(C);
	/* The 4096 class is empty; smaller classes still have room but nothing borrows. */
	assert_int_equal(zoo_alloc(C, 3000, 1), AGB_NULL);
	assert_true(zoo_stats(C).free_bytes > 3000);
	uint32_t a = C->alloc(STATE, 3, 1, &g);
	assert_int_equal(g, 16);
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, a, 16, &g), a); /* still fits the slot */
	uint32_t b = C->realloc(STATE, a, 17, &g);        /* next class */
	assert_true(b != AGB_NULL && b != a);
	assert_int_equal(g, 32);
	zoo_check(C);
	zoo_free(C, b);
	zoo_bus_clean();
}

static void alignment_by_class(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = C->alloc(STATE, 8, 512, &g);
	assert_int_equal(a % 512u, 0);
	assert_int_equal(g, 512);
	zoo_check(C);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_follows_the_rule),
		cmocka_unit_test(classes_are_strict),
		cmocka_unit_test(alignment_by_class),
	};
	return cmocka_run_group_tests(tests, zoo_setup, zoo_teardown);
}
