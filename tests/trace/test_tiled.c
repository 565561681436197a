/* The map converter: a golden trace of a small hand-made Tiled map (tests/trace/data), the ROM
 * tile numbering (flip flags masked, gid 0 transparent), balance of refs and unrefs, CSV grids,
 * and positioned errors for bad maps. Refresh the golden file with
 *   build/agbsim convert --from tiled tests/trace/data/tiny-map.json --layer-bpp=Front:8 \
 *     --name=tiny-map --source=golden -o tests/trace/data/tiny-map.trace.json
 * and review the diff. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace/tiled.h"
#include "platform/platform.h"
#include "trace/trace_load.h"

static char data_dir[1024];

static char *read_all(const char *name, size_t *len)
{
	char path[1200];
	FILE *f;
	char *buf;
	long n;
	snprintf(path, sizeof path, "%s/%s", data_dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1u);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void golden_tiny_map(void **state)
{
	(void)state;
	size_t len, want_len, got_len = 0;
	char *text = read_all("tiny-map.json", &len), *want = read_all("tiny-map.trace.json", &want_len);
	char *got = NULL;
	struct agb_tilemap map;
	struct agb_diag diag;
	struct agb_stream_options o;
	struct agb_layer_bpp front8 = {"Front", 8};
	struct agb_trace t;
	struct agb_event *ev;
	struct agb_loaded_trace loaded;
	char err[256];
	struct agb_memstream ms;

	assert_int_equal(agb_tilemap_parse_tiled("tiny-map.json", text, len, &map, &diag), AGB_LOAD_OK);
	assert_int_equal(map.width, 20);
	assert_int_equal(map.cell_px, 16);
	assert_int_equal(map.layer_count, 2); /* the group's "Back" and "Front"; objects ignored */
	assert_string_equal(map.layers[0].name, "Back");
	assert_string_equal(map.layers[1].name, "Front");
	assert_int_equal(map.layers[1].gid[6], 4); /* 0x80000004: horizontally flipped gid 4 */
	agb_stream_options_init(&o);
	o.layer_bpp = &front8;
	o.layer_bpp_count = 1;
	o.name = "tiny-map";
	o.source = "golden";
	assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), 0);
	/* 320 px wide: 64 px of scrolling at 8 px per frame, plus the first frame (the screen fill,
	 * a loading frame) and the level exit's loading frame. */
	assert_int_equal(t.frame_count, 10);
	/* Cell (0,0) gid 1 of 16 px: ROM tiles 1, 2 (row 0), then cell (1,0) again 1, 2. */
	assert_int_equal(ev[0].op, AGB_OP_REF);
	assert_int_equal(ev[0].id, 1);
	assert_int_equal(ev[0].size, 4);
	assert_int_equal(ev[1].id, 2);
	assert_int_equal(ev[4].id, 5); /* cell (2,0) has gid 2: tiles 5..8 */

	assert_int_equal(agb_memstream_open(&ms), 0);
	assert_int_equal(agb_trace_write_json(ms.f, &t), 0);
	assert_int_equal(agb_memstream_close(&ms), 0);
	got = ms.data;
	got_len = ms.len;
	if (got_len != want_len || memcmp(got, want, want_len) != 0)
		fail_msg("converter output differs from tests/trace/data/tiny-map.trace.json");
	/* The loader accepts it (every unref has a live ref). */
	assert_int_equal(agb_trace_load_buffer("golden", got, got_len, &loaded, &diag), AGB_LOAD_OK);
	assert_int_equal(loaded.trace.event_count, t.event_count);
	agb_trace_release(&loaded);
	free(got);
	free(ev);
	free(text);
	free(want);
	agb_tilemap_release(&map);
}

/* Every path leaves nothing live at the end and never unrefs what is not live. */
static void balanced_on_every_path(void **state)
{
	(void)state;
	size_t len;
	char *text = read_all("tiny-map.json", &len);
	struct agb_tilemap map;
	struct agb_diag diag;
	const enum agb_camera_path paths[] = {AGB_PATH_RIGHT, AGB_PATH_LEFT, AGB_PATH_PINGPONG,
					      AGB_PATH_DOWN, AGB_PATH_DIAGONAL};
	assert_int_equal(agb_tilemap_parse_tiled("tiny-map.json", text, len, &map, &diag), AGB_LOAD_OK);
	for (size_t p = 0; p < 5; p++)
		for (uint32_t speed = 1; speed <= 8; speed += 7) {
			static int32_t live[2][64];
			struct agb_stream_options o;
			struct agb_trace t;
			struct agb_event *ev;
			char err[256];
			agb_stream_options_init(&o);
			o.path = paths[p];
			o.speed = speed;
			o.frames = p == 2 ? 100 : 0;
			assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), 0);
			memset(live, 0, sizeof live);
			for (uint32_t i = 0; i < t.event_count; i++) {
				if (ev[i].op == AGB_OP_FRAME)
					continue;
				assert_true(ev[i].id >= 1 && ev[i].id <= 20);
				if (ev[i].op == AGB_OP_REF)
					live[ev[i].size == 8][ev[i].id]++;
				else
					assert_true(--live[ev[i].size == 8][ev[i].id] >= 0);
			}
			for (int d = 0; d < 2; d++)
				for (int k = 0; k < 64; k++)
					assert_int_equal(live[d][k], 0);
			free(ev);
		}
	free(text);
	agb_tilemap_release(&map);
}

static void csv_grid(void **state)
{
	(void)state;
	size_t len;
	char *text = read_all("tiny-grid.csv", &len);
	struct agb_tilemap map;
	struct agb_diag diag;
	struct agb_stream_options o;
	struct agb_trace t;
	struct agb_event *ev;
	char err[256];
	const uint32_t want[][2] = {{AGB_OP_REF, 1}, {AGB_OP_REF, 2}, {AGB_OP_REF, 3}, {AGB_OP_REF, 4},
				    {AGB_OP_FRAME, 0}, {AGB_OP_UNREF, 1}, {AGB_OP_UNREF, 2},
				    {AGB_OP_UNREF, 3}, {AGB_OP_UNREF, 4}, {AGB_OP_FRAME, 0}};
	/* 8 px cells: the ROM tile is the gid itself; the trailing commas are Tiled's CSV style. */
	assert_int_equal(agb_tilemap_parse_csv("tiny-grid.csv", text, len, 8, &map, &diag), AGB_LOAD_OK);
	assert_int_equal(map.width, 3);
	assert_int_equal(map.height, 2);
	agb_stream_options_init(&o);
	assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), 0);
	assert_int_equal(t.event_count, 10);
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(ev[i].op, want[i][0]);
		assert_int_equal(ev[i].id, want[i][1]);
	}
	/* The screen fill and the level exit are loading frames. */
	assert_int_equal(ev[4].size, AGB_FRAME_LOAD);
	assert_int_equal(ev[9].size, AGB_FRAME_LOAD);
	free(ev);
	agb_tilemap_release(&map);
	/* 16 px cells: 4 ROM tiles per cell. */
	assert_int_equal(agb_tilemap_parse_csv("tiny-grid.csv", text, len, 16, &map, &diag), AGB_LOAD_OK);
	assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), 0);
	assert_int_equal(ev[0].id, 1);
	assert_int_equal(ev[1].id, 2);
	assert_int_equal(ev[2].id, 5); /* cell (2,0), gid 2 */
	free(ev);
	agb_tilemap_release(&map);
	free(text);
}

static void expect_error(int csv, const char *text, unsigned line, unsigned col, const char *what)
{
	struct agb_tilemap map;
	struct agb_diag diag;
	int rc = csv ? agb_tilemap_parse_csv("bad", text, strlen(text), 8, &map, &diag)
		     : agb_tilemap_parse_tiled("bad", text, strlen(text), &map, &diag);
	assert_int_equal(rc, AGB_LOAD_BAD_INPUT);
	if (diag.line != line || diag.col != col || strstr(diag.message, what) == NULL)
		fail_msg("got %u:%u: %s; want %u:%u: ...%s...", diag.line, diag.col, diag.message, line,
			 col, what);
	assert_int_equal(map.layer_count, 0);
}

static void errors_are_positioned(void **state)
{
	(void)state;
	expect_error(0, "{\n \"width\": 3,\n \"a\" 5}", 3, 6, "malformed JSON");
	expect_error(0, "{\n \"width\": 3,\n \"a\": [1,2,}", 3, 12, "malformed JSON");
	expect_error(0, "{\"width\":2,\"height\":1,\"tilewidth\":12,\"tileheight\":12,\"layers\":[]}", 1, 23,
		     "multiple of 8");
	expect_error(0,
		     "{\"width\":2,\"height\":1,\"tilewidth\":8,\"tileheight\":8,\"layers\":[\n"
		     " {\"type\":\"tilelayer\",\"name\":\"L\",\"data\":[1,\n   \"x\"]}]}",
		     3, 4, "tile id 1 of layer \"L\"");
	expect_error(0,
		     "{\"width\":2,\"height\":1,\"tilewidth\":8,\"tileheight\":8,\"layers\":[\n"
		     " {\"type\":\"tilelayer\",\"name\":\"L\",\"data\":[1,2,3]}]}",
		     2, 33, "has 3 tile ids, the layer needs 2");
	expect_error(0,
		     "{\"width\":2,\"height\":1,\"tilewidth\":8,\"tileheight\":8,\"layers\":[\n"
		     " {\"type\":\"tilelayer\",\"data\":\"eJzt\"}]}",
		     2, 22, "expected a tile id");
	expect_error(0, "{\"width\":2,\"height\":1,\"tilewidth\":8,\"tileheight\":8,\"layers\":[]}", 1, 52,
		     "no tile layers");
	expect_error(0, "{\"infinite\":true}", 1, 1, "no \"tilewidth\"");
	expect_error(0,
		     "{\"width\":2,\"height\":1,\"tilewidth\":8,\"tileheight\":8,\"layers\":[\n"
		     " {\"type\":\"tilelayer\",\"encoding\":\"base64\",\"compression\":\"zlib\",\n"
		     "  \"data\":\"AAAA\"}]}",
		     3, 3, "does not decompress");
	expect_error(0,
		     "{\"width\":2,\"height\":1,\"tilewidth\":8,\"tileheight\":8,\"layers\":[\n"
		     " {\"type\":\"tilelayer\",\"encoding\":\"base64\",\"data\":\"AQAAAA==\"}]}",
		     2, 42, "does not hold one gid per cell");
	expect_error(1, "1,2,3\n4,5\n", 2, 1, "row has 2 tile ids, the first row 3");
	expect_error(1, "1,2\n3,x\n", 2, 3, "expected a tile id");
	expect_error(1, "1,99999999999\n", 1, 3, "32 bits");
}

static void bad_options(void **state)
{
	(void)state;
	const char *text = "1,2\n";
	struct agb_tilemap map;
	struct agb_diag diag;
	struct agb_stream_options o;
	struct agb_layer_bpp nope = {"Nope", 8};
	struct agb_trace t;
	struct agb_event *ev;
	char err[256];
	enum agb_camera_path p;
	assert_int_equal(agb_tilemap_parse_csv("g", text, strlen(text), 8, &map, &diag), AGB_LOAD_OK);
	agb_stream_options_init(&o);
	o.layer_bpp = &nope;
	o.layer_bpp_count = 1;
	assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), -1);
	assert_non_null(strstr(err, "no tile layer \"Nope\""));
	o.layer_bpp_count = 0;
	o.speed = 9;
	assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), -1);
	agb_tilemap_release(&map);
	assert_int_equal(agb_camera_path_parse("pingpong", &p), 0);
	assert_int_equal(p, AGB_PATH_PINGPONG);
	assert_int_equal(agb_camera_path_parse("up", &p), -1);
}

/* The converter's trace of `file` (a JSON or TMX map) as the golden test writes it. */
static char *convert_to_json(const char *file, struct agb_tilemap *map, size_t *out_len)
{
	char path[1200], err[256], *got = NULL;
	size_t len, n = strlen(file);
	struct agb_diag diag;
	struct agb_stream_options o;
	struct agb_layer_bpp front8 = {"Front", 8};
	struct agb_trace t;
	struct agb_event *ev;
	char *text = read_all(file, &len);
	int rc;
	snprintf(path, sizeof path, "%s/%s", data_dir, file);
	rc = n > 4 && strcmp(file + n - 4, ".tmx") == 0 ? agb_tilemap_parse_tmx(path, text, len, map, &diag)
							: agb_tilemap_parse_tiled(path, text, len, map, &diag);
	if (rc != AGB_LOAD_OK)
		fail_msg("%s: %u:%u: %s", file, diag.line, diag.col, diag.message);
	agb_stream_options_init(&o);
	o.layer_bpp = &front8;
	o.layer_bpp_count = 1;
	o.name = "tiny-map";
	o.source = "golden";
	assert_int_equal(agb_tilemap_stream(map, &o, &t, &ev, err, sizeof err), 0);
	struct agb_memstream ms;
	assert_int_equal(agb_memstream_open(&ms), 0);
	assert_int_equal(agb_trace_write_json(ms.f, &t), 0);
	assert_int_equal(agb_memstream_close(&ms), 0);
	got = ms.data;
	*out_len = ms.len;
	free(ev);
	free(text);
	return got;
}

/* Every way Tiled saves the tiny map (data/encodings, made by its make.py) streams to the golden
 * trace: base64 layers plain and zlib/gzip/zstd-compressed, infinite maps (chunks at negative x),
 * TMX with CSV, base64+zlib and <tile> layers, external .tsx and .tsj tilesets. */
static void every_encoding_streams_the_same_trace(void **state)
{
	(void)state;
	static const char *const files[] = {
		"encodings/tiny-map.b64.json",      "encodings/tiny-map.b64-zlib.json",
		"encodings/tiny-map.b64-gzip.json", "encodings/tiny-map.b64-zstd.json",
		"encodings/tiny-map.infinite.json", "encodings/tiny-map.tsj.json",
		"encodings/tiny-map.csv.tmx",       "encodings/tiny-map.b64-zlib.tmx",
		"encodings/tiny-map.xml.tmx",       "encodings/tiny-map.infinite.tmx",
	};
	size_t want_len, got_len;
	char *want = read_all("tiny-map.trace.json", &want_len);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct agb_tilemap map;
		char *got = convert_to_json(files[i], &map, &got_len);
		if (got_len != want_len || memcmp(got, want, want_len) != 0)
			fail_msg("%s streams another trace than tiny-map.json", files[i]);
		/* The tileset, inline or external, with its tile size and image. */
		assert_int_equal(map.tileset_count, 1);
		assert_int_equal(map.tilesets[0].firstgid, 1);
		assert_int_equal(map.tilesets[0].tile_w, 16);
		assert_string_equal(map.tilesets[0].image, "tiny.png");
		/* Front's 0x80000004 (H) and 0x60000005 (V and diagonal): one warning. */
		assert_int_equal(map.flipped_cells, 2);
		assert_int_equal(map.diagonal_cells, 1);
		assert_int_equal(agb_tilemap_warnings(&map, NULL, 0, 0), 1);
		agb_tilemap_release(&map);
		free(got);
	}
	free(want);
}

/* More layers than backgrounds, diagonal flips, a tileset of another tile size and one that
 * cannot be read are each worth a warning. */
static void warnings(void **state)
{
	(void)state;
	const char *text =
		"{\"width\":1,\"height\":1,\"tilewidth\":16,\"tileheight\":16,\"tilesets\":["
		"{\"firstgid\":1,\"name\":\"big\",\"tilewidth\":32,\"tileheight\":32},"
		"{\"firstgid\":9,\"source\":\"missing.tsx\"}],\"layers\":["
		"{\"type\":\"tilelayer\",\"name\":\"a\",\"data\":[536870913]},"
		"{\"type\":\"tilelayer\",\"name\":\"b\",\"data\":[1]},"
		"{\"type\":\"tilelayer\",\"name\":\"c\",\"data\":[1]},"
		"{\"type\":\"tilelayer\",\"name\":\"d\",\"data\":[1]},"
		"{\"type\":\"tilelayer\",\"name\":\"e\",\"data\":[0]}]}";
	struct agb_tilemap map;
	struct agb_diag diag;
	char w[8][160];
	assert_int_equal(agb_tilemap_parse_tiled("/nonexistent/w.json", text, strlen(text), &map, &diag),
			 AGB_LOAD_OK);
	assert_int_equal(map.layers[0].gid[0], 1); /* the flags are masked */
	assert_int_equal(agb_tilemap_warnings(&map, &w[0][0], sizeof w[0], 8), 4);
	assert_non_null(strstr(w[0], "5 tile layers"));
	assert_non_null(strstr(w[1], "1 cells are flipped diagonally"));
	assert_non_null(strstr(w[2], "32x32 px tiles, the map 16 px cells"));
	assert_non_null(strstr(w[3], "missing.tsx could not be read"));
	agb_tilemap_release(&map);
}

static void expect_tmx_error(const char *text, unsigned line, unsigned col, const char *what)
{
	struct agb_tilemap map;
	struct agb_diag diag;
	assert_int_equal(agb_tilemap_parse_tmx("bad.tmx", text, strlen(text), &map, &diag),
			 AGB_LOAD_BAD_INPUT);
	if (diag.line != line || diag.col != col || strstr(diag.message, what) == NULL)
		fail_msg("got %u:%u: %s; want %u:%u: ...%s...", diag.line, diag.col, diag.message, line,
			 col, what);
	assert_int_equal(map.layer_count, 0);
}

static void tmx_errors_are_positioned(void **state)
{
	(void)state;
	expect_tmx_error("<map width=\"2\"\n  height=\"1\" <layer/></map>", 2, 14, "malformed XML");
	expect_tmx_error("<tileset/>", 1, 1, "root element is <map>");
	expect_tmx_error("<map width=\"2\" height=\"1\"\n tilewidth=\"12\" tileheight=\"12\"/>", 2, 2,
			 "multiple of 8");
	expect_tmx_error("<map width=\"2\" height=\"x\" tilewidth=\"8\" tileheight=\"8\"/>", 1, 16,
			 "height must be an integer");
	expect_tmx_error("<map width=\"2\" height=\"1\" tilewidth=\"8\" tileheight=\"8\">\n"
			 " <layer name=\"L\" width=\"2\" height=\"1\">\n  <data encoding=\"csv\">1,2,3</data>\n"
			 " </layer>\n</map>",
			 3, 3, "more tile ids than the layer's cells");
	expect_tmx_error("<map width=\"2\" height=\"1\" tilewidth=\"8\" tileheight=\"8\">\n"
			 " <layer name=\"L\" width=\"2\" height=\"1\">\n  <data encoding=\"base64\" "
			 "compression=\"lz4\">AAAA</data>\n </layer>\n</map>",
			 3, 3, "unknown layer data compression");
	expect_tmx_error("<map width=\"2\" height=\"1\" tilewidth=\"8\" tileheight=\"8\"/>", 1, 1,
			 "no tile layers");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_tiny_map),     cmocka_unit_test(balanced_on_every_path),
		cmocka_unit_test(csv_grid),            cmocka_unit_test(errors_are_positioned),
		cmocka_unit_test(bad_options),         cmocka_unit_test(every_encoding_streams_the_same_trace),
		cmocka_unit_test(warnings),            cmocka_unit_test(tmx_errors_are_positioned),
	};
	const char *slash;
	/* The data sit beside this file; __FILE__ is the absolute path CMake compiled. */
	snprintf(data_dir, sizeof data_dir, "%s", __FILE__);
	slash = strrchr(data_dir, '/');
	if (slash != NULL)
		snprintf(data_dir + (slash - data_dir), sizeof data_dir - (size_t)(slash - data_dir), "/data");
	else
		snprintf(data_dir, sizeof data_dir, "data");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
