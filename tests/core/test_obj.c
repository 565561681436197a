/* The seed's OBJ VRAM allocator `obj`: the article's example, the placement rule, the 8bpp and
 * bitmap-mode rules, and random sequences with the invariant checker after every op (the cases
 * of obj_cases.h), and the map's byte values. */
#include "core/obj_cases.h"

OBJ_CASE_TESTS(&agb_obj_core)

/* The map is bytes: UNUSED 0, USED 1, CONTINUE 2, exactly as the article lays it out. */
static void map_values(void **state)
{
	(void)state;
	struct objt *t = objt_new(&agb_obj_core, 0x8000u, 0, META_BASE);
	objt_alloc(t, 96, 1);
	assert_int_equal(AGB_PEEK8(t->m, META_BASE + 0), AGB_OBJ_USED);
	assert_int_equal(AGB_PEEK8(t->m, META_BASE + 1), AGB_OBJ_CONTINUE);
	assert_int_equal(AGB_PEEK8(t->m, META_BASE + 2), AGB_OBJ_CONTINUE);
	assert_int_equal(AGB_PEEK8(t->m, META_BASE + 3), AGB_OBJ_UNUSED);
	assert_int_equal(agb_obj_core.overhead_bytes(t->state), 1024);
	assert_int_equal(t->m->quirk_stores, 0);
	objt_free_all(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		OBJ_CASE_LIST,
		cmocka_unit_test(map_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
