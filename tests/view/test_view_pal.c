/* The viewer's palette RAM (issue 13, item 5): the model (owners, reference counts, stack frames,
 * the colours read back from the emulated palette RAM) and snapshots checked pixel by pixel.
 *
 * tests/view/data/small-pal.json places, as `agbsim replay --events-out` and the cores' rules
 * (4bpp from bank 15 down, 8bpp from bank 0) say:
 *   event 0 pal_load id 1 OBJ key 100 16 col  -> OBJ bank 15
 *   event 1 pal_load id 2 OBJ key 100 16 col  -> palbanks: shares OBJ 15; palstack: OBJ 14
 *   event 2 pal_load id 3 BG  key 7    4 col  -> BG bank 15 (colours 4-15 spare)
 *   event 3 pal_load id 4 OBJ key 500 40 col  -> OBJ banks 0-2
 *   event 5 pal_free id 1                     -> palbanks: id 2 owns OBJ 15 alone
 *   event 6 pal_load id 5 OBJ key 600 256 col -> FAILS (bank 15 is taken)
 * tests/view/data/small-palstack.json on palstack: id 1 key 100 at BG 15, id 2 key 200 at BG 14,
 * push id 10 key 900 (32 col: BG 0-1), push id 11 key 901 (16 col: BG 0), pop, pop, free id 1.
 * The property tests run the shipped traces/pal scenarios and check the model against the core
 * after every event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <SDL.h>
#include <SDL_image.h>

#include "agb/heap.h"
#include "agb/palbanks.h"
#include "trace/trace_load.h"
#include "view/view.h"
#include "snapshot_util.h"
#include "view/view_model.h"

#define OBJ(bank) (AGB_PAL_BANKS + (bank))

/* ---- the model, event by event --------------------------------------------------------------- */

struct run {
	struct view_model vm;
	struct agb_loaded_trace lt;
	struct agb_replay_config cfg;
	agb_machine *m;
	void *ws;
	size_t wsb;
	/* Optional per-event check, run with the model refreshed. */
	void (*each)(struct run *r, const struct agb_replay_obs *o);
	uint32_t checked; /* events `each` saw */
};

static void load(struct run *r, const char *dir, const char *trace, const char *core)
{
	struct agb_diag d;
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, trace);
	memset(r, 0, sizeof *r);
	if (agb_trace_load_file(path, &r->lt, &d) != AGB_LOAD_OK)
		fail_msg("%s: cannot load", path);
	r->cfg.core = agb_heap_core_find(core);
	r->cfg.flags = AGB_REPLAY_CANARIES | AGB_REPLAY_CHECK;
	assert_non_null(r->cfg.core);
	assert_int_equal(view_model_init(&r->vm, &r->lt.trace, &r->cfg), 0);
	assert_non_null(r->vm.pal);
	r->m = malloc(sizeof *r->m);
	r->wsb = agb_replay_workspace_bytes(&r->lt.trace);
	r->ws = malloc(r->wsb);
	assert_non_null(r->m);
	assert_non_null(r->ws);
}

static void observe(void *ctx, const struct agb_replay_obs *o)
{
	struct run *r = ctx;
	view_model_apply(&r->vm, agb_replay_core_state(r->ws), o);
	if (r->each != NULL) {
		view_model_refresh(&r->vm);
		r->each(r, o);
		r->checked++;
	}
}

/* Replays events 0..at (all when at is UINT32_MAX) and refreshes the model. */
static void play(struct run *r, uint32_t at)
{
	struct agb_trace upto = r->lt.trace;
	struct agb_replay_result res;
	if (at != UINT32_MAX)
		upto.event_count = at + 1u;
	view_model_reset(&r->vm);
	view_model_machine(&r->vm, r->m);
	agb_replay_run(&upto, &r->cfg, r->m, r->ws, r->wsb, observe, r, &res);
	if (res.status != AGB_REPLAY_OK)
		fail_msg("replay stopped at event %u: %s", res.failed_event,
			 res.why != NULL ? res.why : "?");
	r->vm.state = agb_replay_core_state(r->ws);
	view_model_refresh(&r->vm);
}

static void done(struct run *r)
{
	view_model_free(&r->vm);
	agb_trace_release(&r->lt);
	free(r->ws);
	free(r->m);
}

static const struct view_pal_bank *bank(const struct run *r, uint32_t k)
{
	return &r->vm.pal->shown[k];
}

/* The colours palette RAM holds at bank k are those of palette `key` from colour `from`. */
static void expect_colours(const struct run *r, uint32_t k, uint32_t key, uint32_t from,
			   uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		uint16_t got = r->vm.pal->ram[k * 16u + i], want = agb_view_pal_colour(key, from + i);
		if (got != want)
			fail_msg("bank %u colour %u: 0x%04x, expected 0x%04x (key %u colour %u)", k, i,
				 got, want, key, from + i);
	}
}

static void expect_bank(const struct run *r, uint32_t k, uint32_t id, uint32_t key, uint32_t refs,
			uint32_t level)
{
	const struct view_pal_bank *b = bank(r, k);
	if (!b->live || b->id != id || b->key != key || b->refs != refs || b->level != level)
		fail_msg("bank %u: live %u id %u key %u refs %u level %u, expected id %u key %u refs "
			 "%u level %u",
			 k, b->live, b->id, b->key, b->refs, b->level, id, key, refs, level);
	assert_int_equal(r->vm.kind[k * 16u], VK_USED);
}

static void expect_free(const struct run *r, uint32_t k)
{
	assert_false(bank(r, k)->live);
	assert_int_equal(r->vm.kind[k * 16u], VK_FREE);
}

static void test_model_palbanks_shares(void **st)
{
	struct run r;
	(void)st;
	load(&r, VIEW_TEST_DATA, "small-pal.json", "palbanks");
	play(&r, 1);
	expect_bank(&r, OBJ(15), 1, 100, 2, 0); /* the uploader owns it, two loads hold it */
	expect_colours(&r, OBJ(15), 100, 0, 16);
	expect_free(&r, OBJ(14));
	play(&r, 3);
	expect_bank(&r, 15, 3, 7, 1, 0);
	expect_colours(&r, 15, 7, 0, 4);
	assert_int_equal(bank(&r, 15)->colors, 4);
	for (uint32_t k = 0; k < 3; k++) { /* an 8bpp palette: one owner over three banks */
		expect_bank(&r, OBJ(k), 4, 500, 1, 0);
		assert_int_equal(bank(&r, OBJ(k))->first, 0);
		expect_colours(&r, OBJ(k), 500, k * 16u, k < 2 ? 16u : 8u);
	}
	play(&r, 5); /* the uploader goes: the sharer owns the bank */
	expect_bank(&r, OBJ(15), 2, 100, 1, 0);
	play(&r, 6);
	assert_int_equal(r.vm.failures, 1);
	assert_int_equal(r.vm.fail_index, 6);
	play(&r, UINT32_MAX);
	for (uint32_t k = 0; k < VIEW_PAL_BANKS; k++)
		if (k != 15)
			expect_free(&r, k);
	done(&r);
}

static void test_model_palstack_copies(void **st)
{
	struct run r;
	(void)st;
	load(&r, VIEW_TEST_DATA, "small-pal.json", "palstack");
	play(&r, 1); /* no sharing: two banks with the same colours */
	expect_bank(&r, OBJ(15), 1, 100, 1, 0);
	expect_bank(&r, OBJ(14), 2, 100, 1, 0);
	expect_colours(&r, OBJ(15), 100, 0, 16);
	expect_colours(&r, OBJ(14), 100, 0, 16);
	play(&r, 5);
	expect_free(&r, OBJ(15));
	expect_bank(&r, OBJ(14), 2, 100, 1, 0);
	done(&r);
}

static void test_model_palette_stack(void **st)
{
	struct run r;
	(void)st;
	load(&r, VIEW_TEST_DATA, "small-palstack.json", "palstack");
	play(&r, 2);
	expect_bank(&r, 0, 10, 900, 1, 1);
	expect_bank(&r, 1, 10, 900, 1, 1);
	expect_colours(&r, 0, 900, 0, 32);
	expect_bank(&r, 15, 1, 100, 1, 0);
	play(&r, 3); /* the second frame covers bank 0 only */
	expect_bank(&r, 0, 11, 901, 1, 2);
	expect_colours(&r, 0, 901, 0, 16);
	expect_bank(&r, 1, 10, 900, 1, 1);
	expect_colours(&r, 1, 900, 16, 16);
	assert_int_equal(r.vm.pal->depth[0], 2);
	play(&r, 5); /* pop: bank 0 restored from the work-RAM buffer */
	expect_bank(&r, 0, 10, 900, 1, 1);
	expect_colours(&r, 0, 900, 0, 16);
	play(&r, 6);
	expect_free(&r, 0);
	expect_free(&r, 1);
	assert_int_equal(r.vm.pal->depth[0], 0);
	expect_bank(&r, 14, 2, 200, 1, 0);
	expect_colours(&r, 14, 200, 0, 16);
	done(&r);
}

/* After every event: the model's reference counts are the core's (palbanks), every bank the
 * core walks as used has an owner, and palette RAM holds its owner's colours. */
static void check_event(struct run *r, const struct agb_replay_obs *o)
{
	(void)o;
	for (uint32_t k = 0; k < VIEW_PAL_BANKS; k++) {
		const struct view_pal_bank *b = bank(r, k);
		uint32_t in_bank = b->colors - (k % AGB_PAL_BANKS - b->first) * 16u;
		if ((r->vm.kind[k * 16u] == VK_USED) != (b->live != 0))
			fail_msg("event %u bank %u: walk says %s, model %s", o->index, k,
				 r->vm.kind[k * 16u] == VK_USED ? "used" : "free",
				 b->live ? "live" : "empty");
		if (!b->live)
			continue;
		expect_colours(r, k, b->key, (k % AGB_PAL_BANKS - b->first) * 16u,
		               in_bank < 16u ? in_bank : 16u);
		if (r->cfg.core == &agb_palbanks_core && b->level == 0 &&
		    k % AGB_PAL_BANKS == b->first)
			assert_int_equal(b->refs, agb_palbanks_refs(r->vm.state, k / AGB_PAL_BANKS,
			                                            k % AGB_PAL_BANKS));
	}
}

static void run_scenario(const char *trace, const char *core)
{
	struct run r;
	load(&r, VIEW_TEST_TRACES, trace, core);
	r.each = check_event;
	play(&r, UINT32_MAX);
	assert_int_equal(r.checked, r.lt.trace.event_count);
	assert_true(r.checked > 1000);
	done(&r);
}

static void test_model_follows_scenarios(void **st)
{
	(void)st;
	run_scenario("pal-action.json", "palbanks");
	run_scenario("pal-crowded.json", "palbanks");
	run_scenario("pal-action.json", "palstack");
	run_scenario("pal-crowded.json", "palstack");
	run_scenario("pal-menus.json", "palstack");
}

/* ---- snapshots ------------------------------------------------------------------------------- */

static SDL_Surface *snapshot(const char *trace, const char *core, uint32_t at)
{
	return view_test_snapshot(trace, core, at, "test-view-pal", 0);
}

/* The colour drawn for colour `i` of bank k (0..31). */
static uint32_t swatch(SDL_Surface *s, uint32_t k, uint32_t i)
{
	int x, y;
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_PAL_RAM, AGB_PAL_SIZE, k * 16u + i, &x, &y),
	                 0);
	return pixel(s, x, y);
}

static void expect_row(SDL_Surface *s, uint32_t k, uint32_t key, uint32_t from, uint32_t count)
{
	for (uint32_t i = 0; i < 16u; i++) {
		uint32_t want = i < count ? agb_view_bgr555_rgb(agb_view_pal_colour(key, from + i))
					  : AGB_VIEW_RGB_PAL_SPARE;
		uint32_t got = swatch(s, k, i);
		if (got != want)
			fail_msg("bank %u colour %u: %06x, expected %06x", k, i, got, want);
	}
}

static void expect_row_rgb(SDL_Surface *s, uint32_t k, uint32_t rgb)
{
	for (uint32_t i = 0; i < 16u; i++) {
		uint32_t got = swatch(s, k, i);
		if (got != rgb)
			fail_msg("bank %u colour %u: %06x, expected %06x", k, i, got, rgb);
	}
}

static void test_snapshot_swatches(void **st)
{
	SDL_Surface *s = snapshot("small-pal.json", "palbanks", 3);
	(void)st;
	expect_row(s, OBJ(15), 100, 0, 16);
	expect_row(s, 15, 7, 0, 4); /* 4 colours, then spare */
	expect_row(s, OBJ(0), 500, 0, 16);
	expect_row(s, OBJ(1), 500, 16, 16);
	expect_row(s, OBJ(2), 500, 32, 8);
	for (uint32_t k = 0; k < 15; k++)
		expect_row_rgb(s, k, AGB_VIEW_RGB_FREE);
	assert_int_equal(pixel(s, 5, 200), AGB_VIEW_RGB_BACKGROUND);
	SDL_FreeSurface(s);
}

static void test_snapshot_failure_flash(void **st)
{
	SDL_Surface *s = snapshot("small-pal.json", "palbanks", 6);
	(void)st;
	/* Free banks flash, palettes keep their colours, the map frame turns red. */
	for (uint32_t k = 0; k < 15; k++)
		expect_row_rgb(s, k, AGB_VIEW_RGB_FREE_FLASH);
	for (uint32_t k = OBJ(3); k < OBJ(15); k++)
		expect_row_rgb(s, k, AGB_VIEW_RGB_FREE_FLASH);
	expect_row(s, 15, 7, 0, 4);
	expect_row(s, OBJ(15), 100, 0, 16);
	expect_row(s, OBJ(0), 500, 0, 16);
	assert_int_equal(pixel(s, 5, 200), AGB_VIEW_RGB_FAIL_BORDER);
	SDL_FreeSurface(s);
}

static void test_snapshot_stack(void **st)
{
	SDL_Surface *s = snapshot("small-palstack.json", "palstack", 3);
	(void)st;
	expect_row(s, 0, 901, 0, 16); /* the top frame */
	expect_row(s, 1, 900, 16, 16); /* the frame below, where the top does not reach */
	expect_row(s, 14, 200, 0, 16);
	expect_row(s, 15, 100, 0, 16);
	SDL_FreeSurface(s);
	s = snapshot("small-palstack.json", "palstack", 6);
	expect_row_rgb(s, 0, AGB_VIEW_RGB_FREE);
	expect_row_rgb(s, 1, AGB_VIEW_RGB_FREE);
	expect_row(s, 14, 200, 0, 16);
	SDL_FreeSurface(s);
}

static void test_colours(void **st)
{
	int same_as_next = 0;
	(void)st;
	for (uint32_t key = 0; key < 4096; key++) {
		/* Keys alias mod 2048 as the replay's ROM source does; never free or failure red. */
		assert_int_equal(agb_view_pal_colour(key, 5), agb_view_pal_colour(key + 2048u, 5));
		for (uint32_t i = 0; i < 256; i += 17) {
			uint32_t c = agb_view_bgr555_rgb(agb_view_pal_colour(key, i));
			int r = (int)(c >> 16), g = (int)(c >> 8 & 0xff), b = (int)(c & 0xff);
			if (r > 120 && g < 90 && b < 90)
				fail_msg("key %u colour %u: %06x", key, i, c);
			assert_true(r >= 0x60 || g >= 0x60 || b >= 0x60); /* brighter than free */
		}
		same_as_next += agb_view_pal_colour(key, 0) == agb_view_pal_colour(key + 1u, 0);
	}
	assert_true(same_as_next < 40);
	assert_int_equal(agb_view_bgr555_rgb(0x7fff), 0xffffffu);
	assert_int_equal(agb_view_bgr555_rgb(0x001f), 0xff0000u);
	assert_int_equal(agb_view_bgr555_rgb(0x7c00), 0x0000ffu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_palbanks_shares),
		cmocka_unit_test(test_model_palstack_copies),
		cmocka_unit_test(test_model_palette_stack),
		cmocka_unit_test(test_model_follows_scenarios),
		cmocka_unit_test(test_snapshot_swatches),
		cmocka_unit_test(test_snapshot_failure_flash),
		cmocka_unit_test(test_snapshot_stack),
		cmocka_unit_test(test_colours),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
