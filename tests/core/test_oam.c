/* `oam`: shadow OAM order after copies, Z changes, hides, BG priority from layer depths,
 * hardware OAM written with 16/32-bit stores only, the trace-op adapter, random sequences with
 * the invariant checker after every op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agb/machine.h"
#include "agb/oam.h"
#include "agb/obj.h"
#include "agbsim/trace.h"

struct oamt {
	agb_machine *m;
	agb_oam o;
};

static struct oamt *oamt_new(void)
{
	struct oamt *t = calloc(1, sizeof *t);
	struct agb_heap_config cfg = {AGB_MEM_VRAM_OBJ, 0x8000u, AGB_MEM_EWRAM, 0x10000u, 0};
	assert_non_null(t);
	t->m = malloc(sizeof *t->m);
	assert_non_null(t->m);
	agb_machine_init(t->m, AGB_WAITCNT_DEFAULT);
	assert_int_equal(agb_oam_core.init(&t->o, t->m, &cfg), AGB_HEAP_OK);
	agb_machine_reset_counters(t->m);
	return t;
}

static void oamt_done(struct oamt *t)
{
	free(t->m);
	free(t);
}

static void check(struct oamt *t)
{
	const char *why = NULL;
	if (agb_oam_core.check(&t->o, &why) != 0)
		fail_msg("oam: %s", why);
}

/* Tags each slot's attr1 with its slot number so hardware OAM shows which entry landed where. */
static void tag(struct oamt *t, uint32_t slot)
{
	AGB_ST16(t->m, agb_oam_shadow_addr(&t->o, slot) + 2u, 0x100u + slot);
}

static uint32_t hw_attr(struct oamt *t, uint32_t entry, uint32_t half)
{
	return AGB_PEEK16(t->m, AGB_MEM_OAM + 8u * entry + 2u * half);
}

static void copy_is_in_z_order(void **state)
{
	(void)state;
	struct oamt *t = oamt_new();
	uint32_t a = agb_oam_show(&t->o, 0x5000), b = agb_oam_show(&t->o, 0x2000);
	uint32_t c = agb_oam_show(&t->o, 0x9000), d = agb_oam_show(&t->o, 0x2000);
	uint8_t order[8];
	tag(t, a);
	tag(t, b);
	tag(t, c);
	tag(t, d);
	/* Slots are fixed in show order... */
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_int_equal(c, 2);
	assert_int_equal(d, 3);
	/* ...the list is nearest first, equal z in show order. */
	assert_int_equal(agb_oam_order(&t->o, order, 8), 4);
	assert_int_equal(order[0], b);
	assert_int_equal(order[1], d);
	assert_int_equal(order[2], a);
	assert_int_equal(order[3], c);
	assert_int_equal(agb_oam_copy(&t->o), 4);
	assert_int_equal(hw_attr(t, 0, 1), 0x100u + b);
	assert_int_equal(hw_attr(t, 1, 1), 0x100u + d);
	assert_int_equal(hw_attr(t, 2, 1), 0x100u + a);
	assert_int_equal(hw_attr(t, 3, 1), 0x100u + c);
	assert_int_equal(hw_attr(t, 4, 0), AGB_OAM_HIDDEN_ATTR0);
	check(t);

	/* Z change: c comes to the front; slots stay, hardware order follows. */
	agb_oam_set_z(&t->o, c, 0x1000);
	agb_oam_copy(&t->o);
	assert_int_equal(hw_attr(t, 0, 1), 0x100u + c);
	assert_int_equal(hw_attr(t, 1, 1), 0x100u + b);
	check(t);

	/* Hide: the entry left over from the last frame is disabled. */
	agb_oam_hide(&t->o, b);
	assert_int_equal(agb_oam_copy(&t->o), 3);
	assert_int_equal(hw_attr(t, 0, 1), 0x100u + c);
	assert_int_equal(hw_attr(t, 1, 1), 0x100u + d);
	assert_int_equal(hw_attr(t, 2, 1), 0x100u + a);
	assert_int_equal(hw_attr(t, 3, 0), AGB_OAM_HIDDEN_ATTR0);
	check(t);
	/* The freed slot is reused first. */
	assert_int_equal(agb_oam_show(&t->o, 0x7000), b);
	assert_int_equal(t->m->quirk_stores, 0);
	assert_int_equal(t->m->counts[AGB_REGION_OAM][AGB_STORE8], 0);
	oamt_done(t);
}

static void priority_from_layer_depths(void **state)
{
	(void)state;
	struct oamt *t = oamt_new();
	static const uint16_t depths[4] = {100, 200, 300, 400};
	uint32_t s;
	agb_oam_set_layer_depths(&t->o, depths);
	assert_int_equal(agb_oam_priority(&t->o, 50), 0);
	assert_int_equal(agb_oam_priority(&t->o, 100), 0); /* same depth: sprite in front */
	assert_int_equal(agb_oam_priority(&t->o, 101), 1);
	assert_int_equal(agb_oam_priority(&t->o, 250), 2);
	assert_int_equal(agb_oam_priority(&t->o, 399), 3);
	assert_int_equal(agb_oam_priority(&t->o, 9999), 3); /* behind all four: capped */
	s = agb_oam_show(&t->o, 250);
	agb_oam_copy(&t->o);
	assert_int_equal((hw_attr(t, 0, 2) >> 10) & 3u, 2);
	agb_oam_set_z(&t->o, s, 150);
	agb_oam_copy(&t->o);
	assert_int_equal((hw_attr(t, 0, 2) >> 10) & 3u, 1);
	/* Moving the layers recomputes the bits of shown sprites. */
	static const uint16_t nearer[4] = {10, 20, 30, 40};
	agb_oam_set_layer_depths(&t->o, nearer);
	agb_oam_copy(&t->o);
	assert_int_equal((hw_attr(t, 0, 2) >> 10) & 3u, 3);
	check(t);
	oamt_done(t);
}

static void all_128_slots_then_none(void **state)
{
	(void)state;
	struct oamt *t = oamt_new();
	for (uint32_t i = 0; i < AGB_OAM_ENTRIES; i++)
		assert_int_equal(agb_oam_show(&t->o, (uint16_t)(1000u - i)), i);
	assert_int_equal(agb_oam_show(&t->o, 5), AGB_OAM_NONE);
	assert_int_equal(agb_oam_copy(&t->o), 128);
	/* z fell with i, so hardware entry 0 holds slot 127. */
	for (uint32_t i = 0; i < AGB_OAM_ENTRIES; i++)
		assert_int_equal(AGB_PEEK16(t->m, agb_oam_shadow_addr(&t->o, 127u - i) + 6u),
				 1000u - (127u - i));
	check(t);
	oamt_done(t);
}

/* The core-table verbs a replay drives: show returns the entry, z and hide take it, frame copies. */
static void table_verbs(void **state)
{
	(void)state;
	struct oamt *t = oamt_new();
	uint8_t order[4];
	uint32_t s40 = agb_oam_core.sprite_show(&t->o, 0x3000);
	uint32_t s41 = agb_oam_core.sprite_show(&t->o, 0x2000);
	assert_int_not_equal(s40, AGB_SPRITE_NONE);
	assert_int_not_equal(s41, AGB_SPRITE_NONE);
	assert_int_equal(agb_oam_order(&t->o, order, 4), 2);
	assert_int_equal(order[0], s41);
	agb_oam_core.sprite_z(&t->o, s40, 0x1000);
	assert_int_equal(agb_oam_order(&t->o, order, 4), 2);
	assert_int_equal(order[0], s40);
	agb_oam_core.sprite_hide(&t->o, s41);
	agb_machine_reset_counters(t->m);
	assert_int_equal(agb_oam_core.frame(&t->o), AGB_VERB_DONE);
	assert_true(t->m->counts[AGB_REGION_OAM][AGB_STORE32] == 1);
	check(t);
	/* OBJ VRAM through the embedded obj-fast: the article's example still holds. */
	{
		uint32_t g, a = agb_oam_core.alloc(&t->o, 32, 1, &g);
		uint32_t b = agb_oam_core.alloc(&t->o, 64, 1, &g);
		assert_int_equal(a, AGB_MEM_VRAM_OBJ);
		assert_int_equal(b, AGB_MEM_VRAM_OBJ + 64u);
		agb_oam_core.free(&t->o, a);
		assert_int_equal(agb_oam_core.alloc(&t->o, 64, 1, &g), AGB_MEM_VRAM_OBJ);
	}
	check(t);
	oamt_done(t);
}

static uint32_t xs(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* Random shows, Z changes, hides and copies; after every op the checker, and after each copy
 * hardware OAM must hold the shown sprites in non-decreasing z. */
static void random_sequences(void **state)
{
	(void)state;
	struct oamt *t = oamt_new();
	uint32_t seed = 99, shown[128], n = 0;
	for (uint32_t i = 0; i < 20000; i++) {
		uint32_t k = xs(&seed) % 10u;
		if (k < 4u && n < 128) {
			uint32_t s = agb_oam_show(&t->o, (uint16_t)(xs(&seed) & 0xFFFFu));
			assert_int_not_equal(s, AGB_OAM_NONE);
			shown[n++] = s;
		} else if (k < 6u && n > 0) {
			uint32_t j = xs(&seed) % n;
			agb_oam_hide(&t->o, shown[j]);
			shown[j] = shown[--n];
		} else if (k < 9u && n > 0) {
			agb_oam_set_z(&t->o, shown[xs(&seed) % n], (uint16_t)(xs(&seed) & 0xFFFFu));
		} else {
			uint32_t c = agb_oam_copy(&t->o), last = 0;
			assert_int_equal(c, n);
			for (uint32_t e = 0; e < c; e++) {
				/* z is not copied; recover it from the slot tag in attr1. */
				uint32_t slot = hw_attr(t, e, 1) - 0x100u;
				uint32_t z = AGB_PEEK16(t->m, agb_oam_shadow_addr(&t->o, slot) + 6u);
				assert_true(z >= last);
				last = z;
			}
			for (uint32_t e = c; e < 128; e++)
				assert_int_equal(hw_attr(t, e, 0), AGB_OAM_HIDDEN_ATTR0);
		}
		for (uint32_t j = 0; j < n; j++)
			tag(t, shown[j]);
		check(t);
	}
	assert_int_equal(t->m->quirk_stores, 0);
	oamt_done(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copy_is_in_z_order),
		cmocka_unit_test(priority_from_layer_depths),
		cmocka_unit_test(all_128_slots_then_none),
		cmocka_unit_test(table_verbs),
		cmocka_unit_test(random_sequences),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
