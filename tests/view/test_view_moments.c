/* The viewer's model functions behind issue 16 item 5, and the snapshots that show them: the
 * fit-to-arena zoom (a small pool fills the map), tile reference counts. */
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
#include "agb/metrics.h"
#include "trace/trace_load.h"
#include "view/view.h"
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

static SDL_Surface *snapshot(const char *trace, const char *core, uint32_t at)
{
	struct agb_loaded_trace lt;
	struct agb_view_config c = {0};
	char out[1024], err[256];
	SDL_Surface *img, *s;
	snprintf(out, sizeof out, "%s/test-moments-%s-%u.png", VIEW_TEST_OUT, core, at);
	load(VIEW_TEST_DATA, trace, &lt);
	c.trace_path = trace;
	c.trace = &lt.trace;
	c.replay = cfg_for(core);
	if (agb_view_snapshot(&c, at, out, err, sizeof err) != 0)
		fail_msg("snapshot: %s", err);
	agb_trace_release(&lt);
	img = IMG_Load(out);
	assert_non_null(img);
	s = SDL_ConvertSurfaceFormat(img, SDL_PIXELFORMAT_ARGB8888, 0);
	SDL_FreeSurface(img);
	assert_non_null(s);
	assert_int_equal(s->w, AGB_VIEW_WIDTH);
	assert_int_equal(s->h, AGB_VIEW_HEIGHT);
	return s;
}

static uint32_t pixel(SDL_Surface *s, int x, int y)
{
	return ((uint32_t *)((uint8_t *)s->pixels + y * s->pitch))[x] & 0xffffffu;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tile_refcounts),
		cmocka_unit_test(test_fit_cols),
		cmocka_unit_test(test_fit_fills_the_map),
		cmocka_unit_test(test_snapshot_small_pool_fills),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
