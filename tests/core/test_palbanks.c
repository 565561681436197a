/* The `palbanks` core: sharing by reference count, 4bpp from the top, 8bpp from bank 0, uploads
 * that land in palette RAM, failures, and a randomized run against a model with the checker. */
#include "pal_helpers.h"

#include "agb/palbanks.h"

static agb_palbanks P;

static void init(int iwram)
{
	struct agb_heap_config c = pal_config(iwram);
	agb_machine_reset_counters(M);
	assert_int_equal(agb_palbanks_init(&P, M, &c), AGB_HEAP_OK);
}

static void check_ok(void)
{
	const char *why = NULL;
	if (agb_palbanks_check(&P, &why) != 0)
		fail_msg("check: %s", why);
}

static void identical_loads_share_one_bank(void **state)
{
	(void)state;
	uint32_t d, b1, b2, b3;
	init(1);
	b1 = agb_palbanks_load(&P, 1, 7, pal_src(7), 16, &d);
	assert_int_equal(b1, 15);
	assert_int_equal(d, AGB_VERB_UPLOADED);
	assert_true(pal_bank_holds(1, 15, 7, 0, 16));
	b2 = agb_palbanks_load(&P, 1, 7, pal_src(7), 16, &d);
	assert_int_equal(b2, 15);
	assert_int_equal(d, AGB_VERB_SHARED);
	assert_int_equal(agb_palbanks_refs(&P, 1, 15), 2);
	/* Another side, another colour count or key: no sharing. */
	assert_int_equal(agb_palbanks_load(&P, 0, 7, pal_src(7), 16, &d), 15);
	assert_int_equal(d, AGB_VERB_UPLOADED);
	b3 = agb_palbanks_load(&P, 1, 7, pal_src(7), 15, &d);
	assert_int_equal(b3, 14);
	assert_true(pal_bank_holds(1, 14, 7, 0, 15)); /* odd count: a halfword at the end */
	check_ok();
	assert_int_equal(agb_palbanks_free(&P, 1, 15, &d), AGB_VERB_DONE);
	assert_int_equal(d, 0);
	assert_int_equal(agb_palbanks_free(&P, 1, 15, &d), AGB_VERB_DONE);
	assert_int_equal(d, AGB_VERB_RELEASED);
	assert_int_equal(agb_palbanks_free(&P, 1, 15, &d), AGB_VERB_BAD);
	assert_int_equal(agb_palbanks_load(&P, 1, 9, pal_src(9), 16, &d), 15);
	check_ok();
	pal_bus_clean();
}

static void eight_bpp_needs_the_low_banks(void **state)
{
	(void)state;
	uint32_t d;
	init(0);
	assert_int_equal(agb_palbanks_load(&P, 1, 3, pal_src(3), 48, &d), 0);
	assert_true(pal_bank_holds(1, 0, 3, 0, 16));
	assert_true(pal_bank_holds(1, 2, 3, 32, 16));
	assert_int_equal(agb_palbanks_load(&P, 1, 3, pal_src(3), 48, &d), 0);
	assert_int_equal(d, AGB_VERB_SHARED);
	assert_int_equal(agb_palbanks_load(&P, 1, 4, pal_src(4), 17, &d), AGB_PAL_NONE);
	assert_int_equal(d, 0);
	/* 13 banks left for 4bpp palettes, from the top. */
	for (uint32_t k = 0; k < 13; k++)
		assert_int_equal(agb_palbanks_load(&P, 1, 10 + k, pal_src(10 + k), 16, &d), 15 - k);
	assert_int_equal(agb_palbanks_load(&P, 1, 40, pal_src(40), 16, &d), AGB_PAL_NONE);
	check_ok();
	agb_palbanks_free(&P, 1, 0, &d);
	assert_int_equal(d, 0);
	agb_palbanks_free(&P, 1, 0, &d);
	assert_int_equal(d, AGB_VERB_RELEASED);
	assert_int_equal(agb_palbanks_load(&P, 1, 40, pal_src(40), 16, &d), 2);
	/* A 4bpp palette in bank 2 blocks a 3-bank 8bpp palette but not a 2-bank one. */
	assert_int_equal(agb_palbanks_load(&P, 1, 5, pal_src(5), 40, &d), AGB_PAL_NONE);
	assert_int_equal(agb_palbanks_load(&P, 1, 5, pal_src(5), 32, &d), 0);
	check_ok();
	pal_bus_clean();
}

static void init_refuses_other_arenas(void **state)
{
	(void)state;
	struct agb_heap_config c = pal_config(1);
	c.arena_bytes = 512;
	assert_int_equal(agb_palbanks_init(&P, M, &c), AGB_HEAP_ARENA_TOO_SMALL);
	c = pal_config(1);
	c.arena_addr = AGB_MEM_EWRAM;
	assert_int_equal(agb_palbanks_init(&P, M, &c), AGB_HEAP_BAD_ALIGNMENT);
	c = pal_config(1);
	c.meta_bytes = AGB_PALBANKS_META_BYTES - 4u;
	assert_int_equal(agb_palbanks_init(&P, M, &c), AGB_HEAP_META_TOO_SMALL);
	assert_int_equal(agb_palbanks_load(&P, 2, 1, pal_src(1), 16, &(uint32_t){0}), AGB_PAL_NONE);
}

/* Random loads and frees on both sides against a model of what is resident: a load shares
 * exactly when an identical palette is resident, and the checker holds after every op. */
static void random_loads_match_the_model(void **state)
{
	(void)state;
	struct agb_mt mt;
	struct {
		uint32_t side, key, colors, bank;
	} live[256];
	uint32_t n = 0;
	for (int iwram = 0; iwram < 2; iwram++) {
		agb_mt_seed(&mt, 13u + (uint32_t)iwram);
		init(iwram);
		n = 0;
		for (uint32_t op = 0; op < 20000; op++) {
			uint32_t d;
			if (n > 0 && (n == 256 || agb_mt_below(&mt, 2) == 0)) {
				uint32_t i = agb_mt_below(&mt, n), refs = 0;
				for (uint32_t j = 0; j < n; j++)
					refs += live[j].side == live[i].side && live[j].bank == live[i].bank;
				assert_int_equal(agb_palbanks_refs(&P, live[i].side, live[i].bank), refs);
				assert_int_equal(agb_palbanks_free(&P, live[i].side, live[i].bank, &d),
						 AGB_VERB_DONE);
				assert_int_equal(d, refs == 1 ? AGB_VERB_RELEASED : 0u);
				live[i] = live[--n];
			} else {
				uint32_t side = agb_mt_below(&mt, 2), key = agb_mt_below(&mt, 40);
				uint32_t colors = agb_mt_below(&mt, 8) == 0 ? 17 + agb_mt_below(&mt, 60)
									   : 1 + agb_mt_below(&mt, 16);
				uint32_t bank = agb_palbanks_load(&P, side, key, pal_src(key), colors, &d);
				int resident = 0;
				for (uint32_t j = 0; j < n; j++)
					if (live[j].side == side && live[j].key == key &&
					    live[j].colors == colors) {
						resident = 1;
						assert_int_equal(bank, live[j].bank);
					}
				assert_int_equal(d, bank == AGB_PAL_NONE ? 0u
						 : resident	    ? AGB_VERB_SHARED
								    : AGB_VERB_UPLOADED);
				if (bank != AGB_PAL_NONE) {
					assert_true(pal_bank_holds(side, bank, key, 0,
								   colors < 16 ? colors : 16));
					live[n].side = side;
					live[n].key = key;
					live[n].colors = colors;
					live[n++].bank = bank;
				}
			}
			check_ok();
		}
		pal_bus_clean();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(identical_loads_share_one_bank),
		cmocka_unit_test(eight_bpp_needs_the_low_banks),
		cmocka_unit_test(init_refuses_other_arenas),
		cmocka_unit_test(random_loads_match_the_model),
	};
	return cmocka_run_group_tests(tests, pal_setup, machine_teardown);
}
