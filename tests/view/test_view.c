/* Viewer snapshots checked pixel by pixel (issue 7). tests/view/data/small-obj.json on the `obj`
 * core places, as `agbsim replay --events-out` shows:
 *   event 0 alloc id 1 128 B -> blocks 0-3      event 4 free id 1 (blocks 0-3 free)
 *   event 1 alloc id 2  64 B -> blocks 4-5      event 6 alloc id 4 32 B -> block 0
 *   event 3 alloc id 3 256 B -> blocks 8-15     event 7 alloc id 5 1024 B FAILS
 * in a 1024-byte arena (32 blocks). Each snapshot is written as a PNG and read back with
 * SDL2_image, so the whole path to the file is covered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <SDL.h>
#include <SDL_image.h>

#include "agb/heap.h"
#include "trace/trace_load.h"
#include "view/view.h"
#include "snapshot_util.h"

static SDL_Surface *snapshot(const char *trace, const char *core, uint32_t at)
{
	return view_test_snapshot(trace, core, at, "test-view", AGB_REPLAY_CANARIES);
}

/* Colour at the centre of OBJ block `unit` of the 1024-byte test arena. */
static uint32_t block(SDL_Surface *s, uint32_t unit)
{
	int x, y;
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_OBJ_VRAM, 1024, unit, &x, &y), 0);
	return pixel(s, x, y);
}

static void expect(SDL_Surface *s, uint32_t first, uint32_t end, uint32_t rgb)
{
	for (uint32_t u = first; u < end; u++) {
		uint32_t got = block(s, u);
		if (got != rgb)
			fail_msg("block %u: colour %06x, expected %06x", u, got, rgb);
	}
}

static void test_used_and_free_blocks(void **st)
{
	SDL_Surface *s = snapshot("small-obj.json", "obj", 3);
	(void)st;
	expect(s, 0, 4, agb_view_id_rgb(1));
	expect(s, 4, 6, agb_view_id_rgb(2));
	expect(s, 6, 8, AGB_VIEW_RGB_FREE);
	expect(s, 8, 16, agb_view_id_rgb(3));
	expect(s, 16, 32, AGB_VIEW_RGB_FREE);
	SDL_FreeSurface(s);
}

static void test_free_then_reuse(void **st)
{
	SDL_Surface *s = snapshot("small-obj.json", "obj", 4);
	(void)st;
	expect(s, 0, 4, AGB_VIEW_RGB_FREE); /* id 1 freed */
	expect(s, 4, 6, agb_view_id_rgb(2));
	SDL_FreeSurface(s);
	s = snapshot("small-obj.json", "obj", 6);
	expect(s, 0, 1, agb_view_id_rgb(4)); /* a new id, a new colour, in the same place */
	expect(s, 1, 4, AGB_VIEW_RGB_FREE);
	expect(s, 8, 16, agb_view_id_rgb(3)); /* unchanged: colours are stable */
	/* No failure yet: the frame around the map is background. */
	assert_int_equal(pixel(s, 5, 200), AGB_VIEW_RGB_BACKGROUND);
	SDL_FreeSurface(s);
}

static void test_failure_flash(void **st)
{
	SDL_Surface *s = snapshot("small-obj.json", "obj", 7);
	(void)st;
	/* The failed request: free blocks flash red, allocations keep their colours, the map frame
	 * turns red. */
	expect(s, 0, 1, agb_view_id_rgb(4));
	expect(s, 1, 4, AGB_VIEW_RGB_FREE_FLASH);
	expect(s, 4, 6, agb_view_id_rgb(2));
	expect(s, 6, 8, AGB_VIEW_RGB_FREE_FLASH);
	expect(s, 8, 16, agb_view_id_rgb(3));
	expect(s, 16, 32, AGB_VIEW_RGB_FREE_FLASH);
	assert_int_equal(pixel(s, 5, 200), AGB_VIEW_RGB_FAIL_BORDER);
	SDL_FreeSurface(s);
}

/* The first colour left of (x, y) that differs from the colour there: the cell's left edge. */
static uint32_t left_edge(SDL_Surface *s, int x, int y)
{
	uint32_t c = pixel(s, x, y);
	while (x > 0 && pixel(s, x, y) == c)
		x--;
	return pixel(s, x, y);
}

static void test_largest_free_run_outlined(void **st)
{
	/* At event 6 the largest free run is blocks 16-31: its cells' left edge on the run's left
	 * side is outlined, the free run at blocks 1-3 is not (its cell ends in the gap). */
	SDL_Surface *s = snapshot("small-obj.json", "obj", 6);
	int x, y;
	(void)st;
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_OBJ_VRAM, 1024, 16, &x, &y), 0);
	assert_int_equal(pixel(s, x, y), AGB_VIEW_RGB_FREE);
	assert_int_equal(left_edge(s, x, y), AGB_VIEW_RGB_LARGEST);
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_OBJ_VRAM, 1024, 1, &x, &y), 0);
	assert_int_equal(pixel(s, x, y), AGB_VIEW_RGB_FREE);
	assert_int_not_equal(left_edge(s, x, y), AGB_VIEW_RGB_LARGEST);
	SDL_FreeSurface(s);
}

static void test_bg_tiles_and_screen_maps(void **st)
{
	/* ref 5 (4bpp) and 9 (8bpp) stay resident, 12 is released; the last four rows (the four
	 * 2 KiB screen maps) are metadata. Placement is the core's business: find the colours. */
	SDL_Surface *s = snapshot("small-bg.json", "tiles", 5);
	int found5 = 0, found9 = 0, found12 = 0, x, y;
	(void)st;
	for (uint32_t u = 0; u < 1792; u++) {
		uint32_t c;
		assert_int_equal(agb_view_unit_centre(AGB_ARENA_BG_VRAM, 65536, u, &x, &y), 0);
		c = pixel(s, x, y);
		found5 += c == agb_view_tile_rgb(5, 4);
		found9 += c == agb_view_tile_rgb(9, 8);
		found12 += c == agb_view_tile_rgb(12, 4);
	}
	assert_int_equal(found5, 1); /* one 32-byte block */
	assert_int_equal(found9, 2); /* an 8bpp tile is two blocks */
	assert_int_equal(found12, 0);
	for (uint32_t u = 1792; u < 2048; u += 37) {
		uint32_t c;
		assert_int_equal(agb_view_unit_centre(AGB_ARENA_BG_VRAM, 65536, u, &x, &y), 0);
		c = pixel(s, x, y);
		assert_true(c == AGB_VIEW_RGB_META || c == AGB_VIEW_RGB_META_HATCH);
	}
	SDL_FreeSurface(s);
}

static void test_id_colours_avoid_red_and_differ(void **st)
{
	int same_as_next = 0;
	(void)st;
	for (uint32_t id = 0; id < 20000; id++) {
		uint32_t c = agb_view_id_rgb(id);
		int r = (int)(c >> 16), g = (int)(c >> 8 & 0xff), b = (int)(c & 0xff);
		/* Never the failure red, never the free colour. */
		assert_false(r > 120 && g < 90 && b < 90);
		assert_int_not_equal(c, AGB_VIEW_RGB_FREE);
		same_as_next += c == agb_view_id_rgb(id + 1u);
	}
	assert_true(same_as_next < 20);
}

static uint32_t channel(uint32_t rgb, int shift)
{
	return rgb >> shift & 0xFFu;
}

/* Cache entries: a locked one amber (red over blue), unlocked ones blue (blue over red), the
 * more recently used the brighter; an unlock turns an entry blue. small-cache.json on obj: key 1
 * (locked) at blocks 0-3, key 2 at 4-5, key 3 (most recent) at 8-15. */
static void test_cache_entries_by_recency(void **st)
{
	SDL_Surface *s = snapshot("small-cache.json", "obj", 2);
	uint32_t locked = block(s, 0), older = block(s, 4), newest = block(s, 8);
	(void)st;
	assert_true(channel(locked, 16) > channel(locked, 0));
	assert_true(channel(older, 0) > channel(older, 16));
	assert_true(channel(newest, 0) > channel(newest, 16));
	assert_true(channel(newest, 0) > channel(older, 0));
	assert_int_equal(block(s, 3), locked);
	assert_int_equal(block(s, 15), newest);
	assert_int_equal(block(s, 6), AGB_VIEW_RGB_FREE);
	SDL_FreeSurface(s);
	s = snapshot("small-cache.json", "obj", 3);
	locked = block(s, 0);
	assert_true(channel(locked, 0) > channel(locked, 16));
	SDL_FreeSurface(s);
}

static void test_layout_fits_the_map(void **st)
{
	int x, y;
	(void)st;
	/* Whole arenas fit at zoom 1: OBJ 32x32 blocks, BG 64x32 tiles, EWRAM 256x128 blocks. */
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_OBJ_VRAM, 32768, 1023, &x, &y), 0);
	assert_true(x < 8 + 512 && y < 8 + 512);
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_BG_VRAM, 65536, 2047, &x, &y), 0);
	assert_true(x < 8 + 512 && y < 8 + 512);
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_EWRAM, 262144, 32767, &x, &y), 0);
	assert_true(x < 8 + 512 && y < 8 + 512);
	assert_int_equal(agb_view_unit_centre(AGB_ARENA_OBJ_VRAM, 32768, 1024, &x, &y), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_used_and_free_blocks),
		cmocka_unit_test(test_free_then_reuse),
		cmocka_unit_test(test_failure_flash),
		cmocka_unit_test(test_largest_free_run_outlined),
		cmocka_unit_test(test_bg_tiles_and_screen_maps),
		cmocka_unit_test(test_id_colours_avoid_red_and_differ),
		cmocka_unit_test(test_layout_fits_the_map),
		cmocka_unit_test(test_cache_entries_by_recency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
