/* Shared by the view tests: a snapshot PNG written by agb_view_snapshot, read back as ARGB8888
 * and checked for the view's size; a snapshot of a test trace; one pixel of it (RGB). Include
 * after cmocka, agb/heap.h, trace/trace_load.h and view/view.h. */
#ifndef AGB_TESTS_VIEW_SNAPSHOT_UTIL_H
#define AGB_TESTS_VIEW_SNAPSHOT_UTIL_H

#include <SDL.h>
#include <SDL_image.h>

static inline SDL_Surface *view_test_read_png(const char *path)
{
	SDL_Surface *img = IMG_Load(path), *s;
	assert_non_null(img);
	s = SDL_ConvertSurfaceFormat(img, SDL_PIXELFORMAT_ARGB8888, 0);
	SDL_FreeSurface(img);
	assert_non_null(s);
	assert_int_equal(s->w, AGB_VIEW_WIDTH);
	assert_int_equal(s->h, AGB_VIEW_HEIGHT);
	return s;
}

/* The snapshot at event `at` of VIEW_TEST_DATA/trace on `core` (replay flags `flags`), written
 * to VIEW_TEST_OUT/PREFIX-CORE-AT.png and read back. */
static inline SDL_Surface *view_test_snapshot(const char *trace, const char *core, uint32_t at,
					      const char *prefix, uint32_t flags)
{
	struct agb_loaded_trace lt;
	struct agb_diag d;
	struct agb_view_config c = {0};
	char path[1024], out[1024], err[256];
	snprintf(path, sizeof path, "%s/%s", VIEW_TEST_DATA, trace);
	snprintf(out, sizeof out, "%s/%s-%s-%u.png", VIEW_TEST_OUT, prefix, core, at);
	assert_int_equal(agb_trace_load_file(path, &lt, &d), AGB_LOAD_OK);
	c.trace_path = path;
	c.trace = &lt.trace;
	c.replay.core = agb_heap_core_find(core);
	c.replay.flags = flags;
	assert_non_null(c.replay.core);
	if (agb_view_snapshot(&c, at, out, err, sizeof err) != 0)
		fail_msg("snapshot: %s", err);
	agb_trace_release(&lt);
	return view_test_read_png(out);
}

static inline uint32_t pixel(SDL_Surface *s, int x, int y)
{
	return ((uint32_t *)((uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch))[x] & 0xffffffu;
}

#endif
