/* The `palstack` core: block copies without sharing, the palette stack saving and restoring
 * palette RAM through its work-RAM buffer, covered banks, buffer limits, and a randomized run
 * that checks every pop restores palette RAM exactly, with the checker after every op. */
#include "pal_helpers.h"

#include "agb/palstack.h"

static agb_palstack P;

static void init(int iwram)
{
	struct agb_heap_config c = pal_config(iwram);
	agb_machine_reset_counters(M);
	assert_int_equal(agb_palstack_init(&P, M, &c), AGB_HEAP_OK);
}

static void check_ok(void)
{
	const char *why = NULL;
	if (agb_palstack_check(&P, &why) != 0)
		fail_msg("check: %s", why);
}

static void identical_loads_are_copied_twice(void **state)
{
	(void)state;
	uint32_t d;
	init(1);
	assert_int_equal(agb_palstack_load(&P, 0, 7, pal_src(7), 16, &d), 15);
	assert_int_equal(d, AGB_VERB_UPLOADED);
	assert_int_equal(agb_palstack_load(&P, 0, 7, pal_src(7), 16, &d), 14);
	assert_int_equal(d, AGB_VERB_UPLOADED);
	assert_true(pal_bank_holds(0, 14, 7, 0, 16));
	assert_int_equal(agb_palstack_free(&P, 0, 15, &d), AGB_VERB_DONE);
	assert_int_equal(d, AGB_VERB_RELEASED);
	assert_int_equal(agb_palstack_free(&P, 0, 15, &d), AGB_VERB_BAD);
	check_ok();
	pal_bus_clean();
}

static void push_saves_and_pop_restores(void **state)
{
	(void)state;
	uint8_t before[AGB_PAL_SIZE];
	uint32_t d, bytes;
	init(0);
	agb_palstack_load(&P, 0, 3, pal_src(3), 16, &d);
	agb_palstack_load(&P, 0, 4, pal_src(4), 32, &d);
	memcpy(before, agb_machine_host(M, AGB_MEM_PAL, AGB_PAL_SIZE), AGB_PAL_SIZE);
	assert_int_equal(agb_palstack_push(&P, 0, 9, pal_src(9), 256, &bytes), AGB_VERB_DONE);
	assert_int_equal(bytes, 16u * 32u + 4u);
	assert_true(pal_bank_holds(0, 0, 9, 0, 16));
	assert_true(pal_bank_holds(0, 15, 9, 240, 16));
	/* The whole side is covered: no load fits; the OBJ side is untouched. */
	assert_int_equal(agb_palstack_load(&P, 0, 5, pal_src(5), 16, &d), AGB_PAL_NONE);
	assert_int_equal(agb_palstack_load(&P, 1, 5, pal_src(5), 16, &d), 15);
	assert_int_equal(agb_palstack_push(&P, 0, 10, pal_src(10), 16, &bytes), AGB_VERB_DONE);
	assert_int_equal(bytes, 36);
	assert_int_equal(agb_palstack_depth(&P, 0), 2);
	assert_int_equal(agb_palstack_buffer_used(&P, 0), 516u + 36u);
	check_ok();
	assert_int_equal(agb_palstack_pop(&P, 0, &bytes), AGB_VERB_DONE);
	assert_int_equal(bytes, 36);
	assert_true(pal_bank_holds(0, 0, 9, 0, 16));
	assert_int_equal(agb_palstack_pop(&P, 0, &bytes), AGB_VERB_DONE);
	assert_memory_equal(before, agb_machine_host(M, AGB_MEM_PAL, AGB_PAL_SIDE_BYTES),
	                    AGB_PAL_SIDE_BYTES);
	assert_int_equal(agb_palstack_pop(&P, 0, &bytes), AGB_VERB_BAD);
	assert_int_equal(agb_palstack_load(&P, 0, 5, pal_src(5), 16, &d), 14);
	check_ok();
	pal_bus_clean();
}

static void a_small_push_covers_only_its_banks(void **state)
{
	(void)state;
	uint32_t d, bytes;
	init(1);
	assert_int_equal(agb_palstack_push(&P, 1, 2, pal_src(2), 40, &bytes), AGB_VERB_DONE);
	assert_int_equal(agb_palstack_load(&P, 1, 3, pal_src(3), 64, &d), AGB_PAL_NONE);
	for (uint32_t k = 0; k < 13; k++)
		assert_int_equal(agb_palstack_load(&P, 1, 5, pal_src(5), 16, &d), 15 - k);
	assert_int_equal(agb_palstack_load(&P, 1, 5, pal_src(5), 16, &d), AGB_PAL_NONE);
	assert_int_equal(agb_palstack_pop(&P, 1, &bytes), AGB_VERB_DONE);
	assert_int_equal(agb_palstack_load(&P, 1, 5, pal_src(5), 16, &d), 2);
	check_ok();
}

static void the_buffer_bounds_the_stack(void **state)
{
	(void)state;
	uint32_t bytes, levels = 0;
	init(0);
	while (agb_palstack_push(&P, 0, 1, pal_src(1), 256, &bytes) == AGB_VERB_DONE)
		levels++;
	assert_int_equal(levels, AGB_PALSTACK_BUFFER_BYTES / 516u);
	assert_int_equal(bytes, 0);
	assert_int_equal(agb_palstack_push(&P, 0, 1, pal_src(1), 0, &bytes), AGB_VERB_BAD);
	assert_int_equal(agb_palstack_push(&P, 2, 1, pal_src(1), 16, &bytes), AGB_VERB_BAD);
	check_ok();
	struct agb_heap_config c = pal_config(1);
	c.meta_bytes = AGB_PALSTACK_META_BYTES - 4u;
	assert_int_equal(agb_palstack_init(&P, M, &c), AGB_HEAP_META_TOO_SMALL);
}

/* Random loads, frees, pushes and pops: each pop must give back the banks its push covered
 * exactly as they were at the push. */
static void random_stack_restores_palette_ram(void **state)
{
	(void)state;
	static uint8_t saved[64][AGB_PAL_SIDE_BYTES];
	uint32_t depth[2] = {0, 0}, sides[64], banks[64][2], nlive = 0, top = 0;
	struct agb_mt mt;
	for (int iwram = 0; iwram < 2; iwram++) {
		agb_mt_seed(&mt, 99u + (uint32_t)iwram);
		init(iwram);
		nlive = top = depth[0] = depth[1] = 0;
		for (uint32_t op = 0; op < 20000; op++) {
			uint32_t r = agb_mt_below(&mt, 10), d, bytes;
			uint32_t side = agb_mt_below(&mt, 2), key = agb_mt_below(&mt, 64);
			if (r < 4 && nlive < 64) {
				uint32_t colors = agb_mt_below(&mt, 6) == 0 ? 17 + agb_mt_below(&mt, 40)
									   : 1 + agb_mt_below(&mt, 16);
				uint32_t b = agb_palstack_load(&P, side, key, pal_src(key), colors, &d);
				if (b != AGB_PAL_NONE) {
					banks[nlive][0] = side;
					banks[nlive++][1] = b;
				}
			} else if (r < 7 && nlive > 0) {
				uint32_t i = agb_mt_below(&mt, nlive);
				assert_int_equal(agb_palstack_free(&P, banks[i][0], banks[i][1], &d),
						 AGB_VERB_DONE);
				banks[i][0] = banks[--nlive][0];
				banks[i][1] = banks[nlive][1];
			} else if (r < 9 && top < 64) {
				uint32_t colors = 1 + agb_mt_below(&mt, 256);
				memcpy(saved[top],
				       agb_machine_host(M, AGB_MEM_PAL + side * AGB_PAL_SIDE_BYTES,
				                        AGB_PAL_SIDE_BYTES),
				       AGB_PAL_SIDE_BYTES);
				if (agb_palstack_push(&P, side, key, pal_src(key), colors, &bytes) ==
				    AGB_VERB_DONE) {
					sides[top++] = side;
					depth[side]++;
				}
			} else if (top > 0) {
				uint32_t s = sides[--top];
				assert_int_equal(agb_palstack_pop(&P, s, &bytes), AGB_VERB_DONE);
				depth[s]--;
				/* Pops come in global LIFO order and loads never touch covered
				 * banks, so the banks the frame saved are back exactly. */
				assert_memory_equal(
				        saved[top],
				        agb_machine_host(M, AGB_MEM_PAL + s * AGB_PAL_SIDE_BYTES,
				                         AGB_PAL_SIDE_BYTES),
				        bytes - 4u);
			}
			assert_int_equal(agb_palstack_depth(&P, 0), depth[0]);
			assert_int_equal(agb_palstack_depth(&P, 1), depth[1]);
			check_ok();
		}
		pal_bus_clean();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(identical_loads_are_copied_twice),
		cmocka_unit_test(push_saves_and_pop_restores),
		cmocka_unit_test(a_small_push_covers_only_its_banks),
		cmocka_unit_test(the_buffer_bounds_the_stack),
		cmocka_unit_test(random_stack_restores_palette_ram),
	};
	return cmocka_run_group_tests(tests, pal_setup, machine_teardown);
}
