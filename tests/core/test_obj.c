/* The seed's OBJ VRAM allocator `obj`: the article's example, the placement rule, the 8bpp and
 * bitmap-mode rules, and random sequences with the invariant checker after every op. */
#include "core/obj_cases.h"

static void article_example(void **state)
{
	(void)state;
	case_article_example(&agb_obj_core);
}

static void placement_rule(void **state)
{
	(void)state;
	case_placement_rule(&agb_obj_core);
}

static void even_tile_for_8bpp(void **state)
{
	(void)state;
	case_8bpp_even_tile(&agb_obj_core);
}

static void bitmap_mode_upper_16k_only(void **state)
{
	(void)state;
	case_bitmap_mode(&agb_obj_core);
}

static void full_and_empty(void **state)
{
	(void)state;
	case_full_and_empty(&agb_obj_core);
}

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

static void random_sequences_keep_invariants(void **state)
{
	(void)state;
	for (uint32_t round = 0; round < 6; round++) {
		uint32_t seed = 0x1234u + round, live[256], n = 0;
		uint32_t flags = round % 3u == 2u ? AGB_HEAP_FLAG_OBJ_BITMAP_MODE : 0u;
		uint32_t meta = round % 2u ? MEM_IWRAM : MEM_EWRAM;
		struct objt *t = objt_new(&agb_obj_core, round == 4 ? 0x5000u : 0x8000u, flags, meta);
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
		objt_free_all(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(article_example),
		cmocka_unit_test(placement_rule),
		cmocka_unit_test(even_tile_for_8bpp),
		cmocka_unit_test(bitmap_mode_upper_16k_only),
		cmocka_unit_test(full_and_empty),
		cmocka_unit_test(map_values),
		cmocka_unit_test(random_sequences_keep_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
