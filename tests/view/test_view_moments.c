/* The viewer's whole-trace scan and the model functions behind issue 16 item 5: the moments
 * --at names (peak, first failure, max-frag), per-frame cycles for the cycle strip, the
 * fit-to-arena zoom, tile reference counts; and snapshots showing them.
 *
 * tests/view/data/small-obj.json on `obj` (see test_view.c) has live bytes 128, 192, -, 448,
 * 320, -, 352 after events 0..6 (peak: event 3); frames end at events 2 and 5; event 7 fails;
 * free space is one run at event 2 (frag 0), 128 + 64 + 512 bytes at event 5 (frag 0.273) and
 * 96 + 64 + 512 at the failure (0.238): max-frag is event 5. */
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
#include "agb/machine.h"
#include "agbsim/metrics.h"
#include "trace/trace_load.h"
#include "view/view.h"
#include "snapshot_util.h"
#include "view/view_draw.h"
#include "view/view_model.h"

static void load(const char *dir, const char *name, struct agb_loaded_trace *lt)
{
	char path[1024];
	struct agb_diag d;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (agb_trace_load_file(path, lt, &d) != AGB_LOAD_OK)
		fail_msg("cannot load %s", path);
}

static struct agb_replay_config cfg_for(const char *core)
{
	struct agb_replay_config c = {0};
	c.core = agb_heap_core_find(core);
	c.flags = AGB_REPLAY_CANARIES;
	assert_non_null(c.core);
	return c;
}

/* ---- moments -------------------------------------------------------------------------------- */

static void test_moments_small_obj(void **st)
{
	struct agb_loaded_trace lt;
	struct agb_view_scan s;
	struct agb_replay_config c = cfg_for("obj");
	(void)st;
	load(VIEW_TEST_DATA, "small-obj.json", &lt);
	assert_int_equal(agb_view_scan_run(&s, &lt.trace, &c), 0);
	assert_int_equal(agb_view_scan_moment(&s, AGB_VIEW_AT_PEAK), 3);
	assert_int_equal(s.peak_bytes, 448);
	assert_int_equal(agb_view_scan_moment(&s, AGB_VIEW_AT_FIRST_FAILURE), 7);
	assert_int_equal(agb_view_scan_moment(&s, AGB_VIEW_AT_MAX_FRAG), 5);
	assert_true(s.max_frag_value > 0.27 && s.max_frag_value < 0.28);
	agb_view_scan_free(&s);
	agb_trace_release(&lt);
}

static void test_moments_none(void **st)
{
	/* small-bg never fails: no first failure; its peak counts resident tile bytes (live bytes
	 * stay 0 for tiles): 5 (32 B) and 9 (64 B) are resident from event 1 on, 12 (32 B) only
	 * at event 4. */
	struct agb_loaded_trace lt;
	struct agb_view_scan s;
	struct agb_replay_config c = cfg_for("tiles");
	(void)st;
	load(VIEW_TEST_DATA, "small-bg.json", &lt);
	assert_int_equal(agb_view_scan_run(&s, &lt.trace, &c), 0);
	assert_int_equal(agb_view_scan_moment(&s, AGB_VIEW_AT_FIRST_FAILURE), -1);
	assert_int_equal(agb_view_scan_moment(&s, AGB_VIEW_AT_PEAK), 4);
	assert_int_equal(s.peak_bytes, 128);
	agb_view_scan_free(&s);
	agb_trace_release(&lt);
}

static void test_moment_names(void **st)
{
	enum agb_view_moment m;
	(void)st;
	assert_int_equal(agb_view_moment_parse("peak", &m), 0);
	assert_int_equal(m, AGB_VIEW_AT_PEAK);
	assert_int_equal(agb_view_moment_parse("first-failure", &m), 0);
	assert_int_equal(m, AGB_VIEW_AT_FIRST_FAILURE);
	assert_int_equal(agb_view_moment_parse("max-frag", &m), 0);
	assert_int_equal(m, AGB_VIEW_AT_MAX_FRAG);
	assert_int_equal(agb_view_moment_parse("Peak", &m), -1);
	assert_int_equal(agb_view_moment_parse("bogus", &m), -1);
	assert_int_equal(agb_view_moment_parse("", &m), -1);
}

/* Hand-made observations: ties go to the first event, failures and samples as marked. */
static void test_moments_synthetic(void **st)
{
	struct agb_trace t = {0};
	struct agb_view_scan s;
	struct agb_replay_obs o;
	static const struct {
		uint8_t op, outcome;
		uint32_t live, cycles, free_bytes, largest;
		int sampled;
	} ev[] = {
		{AGB_OP_ALLOC, AGB_OUTCOME_OK, 100, 10, 900, 900, AGB_SAMPLE_NONE},
		{AGB_OP_ALLOC, AGB_OUTCOME_OK, 300, 20, 700, 400, AGB_SAMPLE_NONE}, /* unsampled */
		{AGB_OP_FRAME, AGB_OUTCOME_OK, 300, 5, 700, 500, AGB_SAMPLE_REGULAR},
		{AGB_OP_FREE, AGB_OUTCOME_OK, 200, 7, 800, 400, AGB_SAMPLE_NONE},
		{AGB_OP_ALLOC, AGB_OUTCOME_FAILED, 200, 9, 800, 400, AGB_SAMPLE_AT_FAILURE},
		{AGB_OP_ALLOC, AGB_OUTCOME_OK, 300, 1, 700, 300, AGB_SAMPLE_NONE},
		{AGB_OP_ALLOC, AGB_OUTCOME_FAILED, 300, 2, 700, 300, AGB_SAMPLE_AT_FAILURE},
	};
	(void)st;
	t.frame_count = 1;
	assert_int_equal(agb_view_scan_init(&s, &t), 0);
	for (uint32_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
		memset(&o, 0, sizeof o);
		o.index = i;
		o.op = ev[i].op;
		o.outcome = ev[i].outcome;
		o.live_bytes = ev[i].live;
		o.cycles = ev[i].cycles;
		o.sampled = ev[i].sampled;
		o.stats.free_bytes = ev[i].free_bytes;
		o.stats.largest_free = ev[i].largest;
		o.stats.free_runs = 2;
		agb_view_scan_observe(&s, &o);
	}
	agb_view_scan_end(&s);
	assert_int_equal(s.peak, 1);          /* 300 first reached at event 1 */
	assert_int_equal(s.first_failure, 4);
	/* frag 0.29 at 2, 0.5 at 4, 0.57 at 6 (event 1's 0.43 is no sample) */
	assert_int_equal(s.max_frag, 6);
	assert_int_equal(s.nframes, 2);       /* one frame event, then a partial frame */
	assert_int_equal(s.frame_cycles[0], 35);
	assert_int_equal(s.frame_cycles[1], 19);
	agb_view_scan_free(&s);
}

/* Per-frame cycles agree with the frame budget the reports give (agb_metrics), loading frames
 * included, on a shipped trace with loading frames and one without. */
static void check_against_metrics(const char *dir, const char *name, const char *core)
{
	struct agb_loaded_trace lt;
	struct agb_view_scan s;
	struct agb_replay_config c = cfg_for(core);
	struct agb_metrics_acc acc;
	struct agb_metrics out;
	struct agb_replay_result res;
	agb_machine *m = malloc(sizeof *m);
	size_t wsb;
	void *ws;
	uint32_t *cyc;
	uint64_t sum = 0;
	uint32_t game_max = 0, load_max = 0, loads = 0;
	load(dir, name, &lt);
	wsb = agb_replay_workspace_bytes(&lt.trace);
	ws = malloc(wsb);
	cyc = malloc(((size_t)lt.trace.event_count + 1u) * sizeof *cyc);
	assert_non_null(m);
	assert_non_null(ws);
	assert_non_null(cyc);
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	agb_metrics_begin(&acc, &out, &lt.trace, c.core->unit, cyc);
	agb_replay_run(&lt.trace, &c, m, ws, wsb, agb_metrics_observe, &acc, &res);
	assert_int_equal(res.status, AGB_REPLAY_OK);
	agb_metrics_end(&acc, &res);
	assert_int_equal(agb_view_scan_run(&s, &lt.trace, &c), 0);
	assert_true(s.nframes >= lt.trace.frame_count);
	for (uint32_t f = 0; f < s.nframes; f++) {
		sum += s.frame_cycles[f];
		if (s.frame_load[f]) {
			loads++;
			load_max = s.frame_cycles[f] > load_max ? s.frame_cycles[f] : load_max;
		} else if (s.frame_cycles[f] > game_max) {
			game_max = s.frame_cycles[f];
		}
	}
	assert_true(sum == out.total_cycles);
	assert_int_equal(game_max, out.frame_max_cycles);
	assert_int_equal(load_max, out.load_frame_max_cycles);
	assert_int_equal(loads, out.load_frames);
	agb_view_scan_free(&s);
	agb_trace_release(&lt);
	free(cyc);
	free(ws);
	free(m);
}

static void test_frame_cycles_match_metrics(void **st)
{
	(void)st;
	check_against_metrics(VIEW_TEST_DATA, "small-ewram.json", "tree");
	check_against_metrics(VIEW_TRACES, "ewram/ai-scratch.json", "tree");
	check_against_metrics(VIEW_TRACES, "bg/kenney-simple-map.json", "tiles");
}

static void test_frame_cycles_small_ewram(void **st)
{
	/* Frames: events 0-2 (a loading frame), 3-5, 6-7, 8-9. */
	struct agb_loaded_trace lt;
	struct agb_view_scan s;
	struct agb_replay_config c = cfg_for("tree");
	(void)st;
	load(VIEW_TEST_DATA, "small-ewram.json", &lt);
	assert_int_equal(agb_view_scan_run(&s, &lt.trace, &c), 0);
	assert_int_equal(s.nframes, 4);
	assert_int_equal(s.frame_load[0], 1);
	assert_int_equal(s.frame_load[1], 0);
	assert_int_equal(s.frame_load[3], 0);
	assert_true(s.frame_cycles[0] > 0 && s.frame_cycles[3] > 0);
	assert_int_equal(agb_view_scan_moment(&s, AGB_VIEW_AT_FIRST_FAILURE), 8);
	agb_view_scan_free(&s);
	agb_trace_release(&lt);
}

/* ---- the model: current frame, tile reference counts -------------------------------------- */

struct model_run {
	struct view_model vm;
	void *ws;
	int64_t stop; /* apply events up to and including this one */
};

static void model_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct model_run *mr = ctx;
	if ((int64_t)o->index <= mr->stop)
		view_model_apply(&mr->vm, agb_replay_core_state(mr->ws), o);
}

/* The model after event `stop` of trace `name` on `core` (free with model_done). */
static void model_at(struct model_run *mr, struct agb_loaded_trace *lt, const char *name,
		     const char *core, int64_t stop)
{
	struct agb_replay_config c = cfg_for(core);
	struct agb_replay_result res;
	agb_machine *m = malloc(sizeof *m);
	size_t wsb;
	load(VIEW_TEST_DATA, name, lt);
	wsb = agb_replay_workspace_bytes(&lt->trace);
	mr->ws = malloc(wsb);
	mr->stop = stop;
	assert_non_null(m);
	assert_non_null(mr->ws);
	assert_int_equal(view_model_init(&mr->vm, &lt->trace, &c), 0);
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	agb_replay_run(&lt->trace, &c, m, mr->ws, wsb, model_observe, mr, &res);
	assert_int_equal(res.status, AGB_REPLAY_OK);
	free(m);
}

static void model_done(struct model_run *mr, struct agb_loaded_trace *lt)
{
	view_model_free(&mr->vm);
	free(mr->ws);
	agb_trace_release(lt);
}

static void test_current_frame(void **st)
{
	/* small-obj: frame events 2 and 5; a frame event belongs to the frame it closes. */
	static const uint32_t want[] = {0, 0, 0, 1, 1, 1, 2, 2};
	(void)st;
	for (int64_t e = -1; e < 8; e++) {
		struct model_run mr;
		struct agb_loaded_trace lt;
		model_at(&mr, &lt, "small-obj.json", "obj", e);
		assert_int_equal(view_model_current_frame(&mr.vm), e < 0 ? 0u : want[e]);
		model_done(&mr, &lt);
	}
}

static void test_tile_refcounts(void **st)
{
	struct model_run mr;
	struct agb_loaded_trace lt;
	struct view_tile_summary ts;
	(void)st;
	/* After ref 5, ref 9 (8bpp), ref 5: tile 5 held twice, 9 once. */
	model_at(&mr, &lt, "small-bg.json", "tiles", 2);
	assert_true(view_model_has_tiles(&mr.vm));
	assert_int_equal(view_model_tile_refs(&mr.vm, 5, 4), 2);
	assert_int_equal(view_model_tile_refs(&mr.vm, 9, 8), 1);
	assert_int_equal(view_model_tile_refs(&mr.vm, 9, 4), 0); /* another depth, another tile */
	assert_int_equal(view_model_tile_refs(&mr.vm, 777, 4), 0);
	view_model_tile_summary(&mr.vm, &ts);
	assert_int_equal(ts.resident, 2);
	assert_int_equal(ts.bytes, 32 + 64);
	assert_int_equal(ts.refs, 3);
	assert_int_equal(ts.max_refs, 2);
	assert_int_equal(ts.max_tile, 5);
	assert_int_equal(ts.max_bpp, 4);
	assert_int_equal(ts.hist[0], 1);
	assert_int_equal(ts.hist[1], 1);
	assert_int_equal(ts.hist[2] + ts.hist[3], 0);
	model_done(&mr, &lt);
	/* ref 12 then unref 12: uploaded and released again. */
	model_at(&mr, &lt, "small-bg.json", "tiles", 4);
	view_model_tile_summary(&mr.vm, &ts);
	assert_int_equal(view_model_tile_refs(&mr.vm, 12, 4), 1);
	assert_int_equal(ts.resident, 3);
	model_done(&mr, &lt);
	model_at(&mr, &lt, "small-bg.json", "tiles", 5);
	view_model_tile_summary(&mr.vm, &ts);
	assert_int_equal(view_model_tile_refs(&mr.vm, 12, 4), 0);
	assert_int_equal(ts.resident, 2);
	assert_int_equal(ts.refs, 3);
	model_done(&mr, &lt);
	/* An allocation trace has no tiles: the panel keeps "live bytes". */
	model_at(&mr, &lt, "small-obj.json", "obj", 7);
	assert_false(view_model_has_tiles(&mr.vm));
	model_done(&mr, &lt);
}

/* ---- fit-to-arena zoom -------------------------------------------------------------------- */

static void test_fit_cols(void **st)
{
	(void)st;
	/* Whole regions keep their natural width. */
	assert_int_equal(view_fit_cols(256, 32768, MAP_W, MAP_H), 256); /* EWRAM 256 KiB */
	assert_int_equal(view_fit_cols(32, 1024, MAP_W, MAP_H), 32);    /* OBJ VRAM 32 KiB */
	assert_int_equal(view_fit_cols(64, 2048, MAP_W, MAP_H), 64);    /* BG VRAM 64 KiB */
	/* Small pools get fewer, larger cells: 4 KiB EWRAM (512 blocks) 32 per row of 16 px,
	 * 64 KiB (8192 blocks) 128 per row, a 1 KiB OBJ pool the minimum of 8. */
	assert_int_equal(view_fit_cols(256, 512, MAP_W, MAP_H), 32);
	assert_int_equal(view_fit_cols(256, 8192, MAP_W, MAP_H), 128);
	assert_int_equal(view_fit_cols(32, 32, MAP_W, MAP_H), 8);
	assert_int_equal(view_fit_cols(256, 0, MAP_W, MAP_H), 8);
}

static void test_fit_fills_the_map(void **st)
{
	struct view_layout L;
	int x0, y0, x1, y1;
	(void)st;
	/* A 4 KiB pool: 16 rows of 32 cells, 16 x 32 px, the whole 512 x 512 map. */
	view_layout_make(AGB_ARENA_EWRAM, 512, 0, 0, &L);
	assert_int_equal(L.cols, 32);
	assert_int_equal(L.rows, 16);
	assert_int_equal(L.cell_w, 16);
	assert_int_equal(L.cell_h, 32);
	assert_int_equal(L.vis_rows, 16);
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_EWRAM, 4096, 0, &x0, &y0), 0);
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_EWRAM, 4096, 511, &x1, &y1), 0);
	assert_true(x0 < MAP_X + 16 && y0 < MAP_Y + 32);
	assert_true(x1 > MAP_X + MAP_W - 16 && y1 > MAP_Y + MAP_H - 32);
	/* Zooming in from there halves the row again (and scrolls). */
	view_layout_make(AGB_ARENA_EWRAM, 512, 1, 0, &L);
	assert_int_equal(L.cols, 16);
	assert_true(L.vis_rows < L.rows);
	/* The hit test inverts the mapping. */
	view_layout_make(AGB_ARENA_EWRAM, 512, 0, 0, &L);
	assert_int_equal(view_layout_hit(&L, 512, x1, y1), 511);
	assert_int_equal(view_layout_hit(&L, 512, x0, y0), 0);
}

/* ---- snapshots ---------------------------------------------------------------------------- */

static SDL_Surface *snapshot(const char *trace, const char *core, uint32_t at)
{
	struct agb_loaded_trace lt;
	struct agb_view_config c = {0};
	char out[1024], err[256];
	snprintf(out, sizeof out, "%s/test-moments-%s-%u.png", VIEW_TEST_OUT, core, at);
	load(VIEW_TEST_DATA, trace, &lt);
	c.trace_path = trace;
	c.trace = &lt.trace;
	c.replay = cfg_for(core);
	if (agb_view_snapshot(&c, at, out, err, sizeof err) != 0)
		fail_msg("snapshot: %s", err);
	agb_trace_release(&lt);
	return view_test_read_png(out);
}

static void test_snapshot_small_pool_fills(void **st)
{
	/* After event 6 of small-ewram: id 1 at +136 (blocks 17..144), id 4 at +1928 (blocks
	 * 241..432); the pool's last block (511) is free and drawn at the map's bottom right. */
	SDL_Surface *s = snapshot("small-ewram.json", "tree", 6);
	int x, y;
	(void)st;
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_EWRAM, 4096, 100, &x, &y), 0);
	assert_int_equal(pixel(s, x, y), agb_view_id_rgb(1));
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_EWRAM, 4096, 300, &x, &y), 0);
	assert_int_equal(pixel(s, x, y), agb_view_id_rgb(4));
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_EWRAM, 4096, 511, &x, &y), 0);
	assert_true(y > MAP_Y + MAP_H - 32);
	assert_int_not_equal(pixel(s, x, y), AGB_VIEW_RGB_BACKGROUND);
	SDL_FreeSurface(s);
}

static void test_strip_columns(void **st)
{
	static const uint32_t counts[] = {1, 3, 829, 830, 831, 3601};
	(void)st;
	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
		uint32_t n = counts[k], w = 830, a, b, pa = 0, pb = 0;
		for (uint32_t c = 0; c < w; c++) {
			view_strip_range(c, n, w, &a, &b);
			assert_true(a < b && b <= n);
			if (c == 0)
				assert_int_equal(a, 0);
			else if (n > w)
				assert_int_equal(a, pb); /* each frame in exactly one column */
			else
				assert_true(a == pa || a == pa + 1u); /* one frame over neighbouring columns */
			pa = a;
			pb = b;
		}
		assert_int_equal(pb, n);
		view_strip_range(w, n, w, &a, &b);
		assert_int_equal(a, b);
	}
}

/* x of the first strip column showing frame f. */
static int strip_x(uint32_t f, uint32_t n)
{
	const uint32_t iw = STRIP_W - 2;
	uint32_t a, b;
	for (uint32_t c = 0; c < iw; c++) {
		view_strip_range(c, n, iw, &a, &b);
		if (f >= a && f < b)
			return STRIP_X + 1 + (int)c;
	}
	fail_msg("frame %u is in no column", f);
	return -1;
}

static void test_snapshot_cycle_strip(void **st)
{
	/* small-obj has 3 frames (the last one partial). At event 3 the shown frame is frame 1:
	 * its column has the white tick above the box and a white bar; frame 0 has neither. The
	 * frames are far below the budget, so the scale tops out at 1.15 x the budget and the red
	 * budget line is 42 px above the floor (48 px inside the box). */
	SDL_Surface *s = snapshot("small-obj.json", "obj", 3);
	const int floor_y = STRIP_BOX_Y + 1 + (STRIP_BOX_H - 2);
	int x1 = strip_x(1, 3) + 5, x0 = strip_x(0, 3) + 5, budget_y = floor_y - 42;
	int found_budget = 0;
	(void)st;
	assert_int_equal(pixel(s, x1, STRIP_BOX_Y - 2), AGB_VIEW_RGB_STRIP_CURRENT);
	assert_int_equal(pixel(s, x1, floor_y - 1), AGB_VIEW_RGB_STRIP_CURRENT);
	assert_int_not_equal(pixel(s, x0, STRIP_BOX_Y - 2), AGB_VIEW_RGB_STRIP_CURRENT);
	assert_int_equal(pixel(s, x0, floor_y - 1), AGB_VIEW_RGB_STRIP_BAR);
	for (int x = STRIP_X + 1; x < STRIP_X + 40; x++)
		found_budget += pixel(s, x, budget_y) == AGB_VIEW_RGB_STRIP_BUDGET;
	assert_true(found_budget >= 10);
	SDL_FreeSurface(s);
}

static void test_snapshot_loading_frame_grey(void **st)
{
	/* small-ewram's first frame is a loading frame: drawn grey, not green. */
	SDL_Surface *s = snapshot("small-ewram.json", "tree", 8);
	const int floor_y = STRIP_BOX_Y + 1 + (STRIP_BOX_H - 2);
	(void)st;
	assert_int_equal(pixel(s, strip_x(0, 4) + 5, floor_y - 1), AGB_VIEW_RGB_STRIP_LOAD);
	assert_int_equal(pixel(s, strip_x(1, 4) + 5, floor_y - 1), AGB_VIEW_RGB_STRIP_BAR);
	assert_int_equal(pixel(s, strip_x(3, 4) + 5, STRIP_BOX_Y - 2), AGB_VIEW_RGB_STRIP_CURRENT);
	SDL_FreeSurface(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moments_small_obj),
		cmocka_unit_test(test_moments_none),
		cmocka_unit_test(test_moment_names),
		cmocka_unit_test(test_moments_synthetic),
		cmocka_unit_test(test_frame_cycles_match_metrics),
		cmocka_unit_test(test_frame_cycles_small_ewram),
		cmocka_unit_test(test_current_frame),
		cmocka_unit_test(test_tile_refcounts),
		cmocka_unit_test(test_fit_cols),
		cmocka_unit_test(test_fit_fills_the_map),
		cmocka_unit_test(test_snapshot_small_pool_fills),
		cmocka_unit_test(test_strip_columns),
		cmocka_unit_test(test_snapshot_cycle_strip),
		cmocka_unit_test(test_snapshot_loading_frame_grey),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
