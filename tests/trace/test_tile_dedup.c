/* Tile deduplication by content (src/trace/tile_dedup.c): a tiny extruded tileset PNG written
 * here with libpng, whose cells hold duplicate, flipped and transposed 8x8 pieces, and a map that
 * uses its cells plainly and with Tiled's H, V and diagonal flips: the canonical ids, the stream
 * they give, the image found beside the map or not, and positioned errors. The map is JSON here;
 * the readers give TMX maps the same tilesets and flips (tests/cli: the shipped maps). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <png.h>

#include "platform/platform.h"
#include "trace/tile_dedup.h"
#include "trace/tiled.h"
#include "trace/trace_load.h"

/* The tileset: 16 px cells (2x2 pieces), margin 1, spacing 2, 2 columns, 2 rows: 36x36 px. */
#define CELL 16u
#define SIDE 36u

static char dir[256];

struct rgba {
	unsigned char r, g, b, a;
};

/* The pieces, each a function of (x, y) in 0..7, asymmetric unless said otherwise. */
static struct rgba piece_px(char p, unsigned x, unsigned y)
{
	switch (p) {
	case 'A':
		return (struct rgba){(unsigned char)(x * 30u), (unsigned char)(y * 30u), 10, 255};
	case 'B':
		return (struct rgba){200, (unsigned char)(x * 20u), (unsigned char)(y * 7u), 255};
	case 'C':
		return (struct rgba){(unsigned char)(x * 3u + y * 5u), 50, 100, 255};
	case 'D':
		return (struct rgba){(unsigned char)(x * 31u), 0, (unsigned char)(y * 13u + 5u), 255};
	case 'E': /* symmetric under transposition (x and y swapped) */
		return (struct rgba){0, 255, (unsigned char)(x * y), 255};
	default: /* blank: invisible, whatever its colour */
		return (struct rgba){(unsigned char)(x + 1u), 99, (unsigned char)y, 0};
	}
}

/* Piece p drawn with flips h (mirror x) and v (mirror y) at piece (tx, ty) of cell c. */
struct placed {
	char p;
	int h, v;
};

/* Cells: 1 = A B / C blank; 2 = hA vB / hvC A; 3 = D E / blank blank; 4 = hvE vD / blank A. */
static const struct placed cells[4][4] = {
	{{'A', 0, 0}, {'B', 0, 0}, {'C', 0, 0}, {'.', 0, 0}},
	{{'A', 1, 0}, {'B', 0, 1}, {'C', 1, 1}, {'A', 0, 0}},
	{{'D', 0, 0}, {'E', 0, 0}, {'.', 0, 0}, {'.', 0, 0}},
	{{'E', 1, 1}, {'D', 0, 1}, {'.', 0, 0}, {'A', 0, 0}},
};

static void write_tileset(const char *path)
{
	static unsigned char px[SIDE * SIDE * 4u];
	png_image pi;
	/* Extrusion, margins and spacing in an opaque colour no piece has: read there, a piece
	 * would change. */
	for (unsigned i = 0; i < SIDE * SIDE; i++) {
		px[4u * i] = 1;
		px[4u * i + 1u] = 2;
		px[4u * i + 2u] = 3;
		px[4u * i + 3u] = 255;
	}
	for (unsigned c = 0; c < 4u; c++)
		for (unsigned k = 0; k < 4u; k++)
			for (unsigned y = 0; y < 8u; y++)
				for (unsigned x = 0; x < 8u; x++) {
					const struct placed *pl = &cells[c][k];
					struct rgba v = piece_px(pl->p, pl->h ? 7u - x : x, pl->v ? 7u - y : y);
					unsigned ix = 1u + (c % 2u) * (CELL + 2u) + (k % 2u) * 8u + x;
					unsigned iy = 1u + (c / 2u) * (CELL + 2u) + (k / 2u) * 8u + y;
					unsigned char *o = px + 4u * (iy * SIDE + ix);
					o[0] = v.r;
					o[1] = v.g;
					o[2] = v.b;
					o[3] = v.a;
				}
	memset(&pi, 0, sizeof pi);
	pi.version = PNG_IMAGE_VERSION;
	pi.width = SIDE;
	pi.height = SIDE;
	pi.format = PNG_FORMAT_RGBA;
	assert_true(png_image_write_to_file(&pi, path, 0, px, 0, NULL));
}

/* The map: 4x2 cells of 16 px, one layer: 1 2 3 4 / 3|D 1|V 1|H 0. */
static const char map_fmt[] =
	"{\"width\": 4, \"height\": 2, \"tilewidth\": 16, \"tileheight\": 16,\n"
	" \"orientation\": \"orthogonal\", \"infinite\": false,\n"
	" \"layers\": [{\"type\": \"tilelayer\", \"name\": \"L\", \"width\": 4, \"height\": 2,\n"
	"   \"data\": [1, 2, 3, 4,\n"
	"    536870915, 1073741825, 2147483649, %u]}],\n"
	" \"tilesets\": [{\"firstgid\": 1, \"name\": \"t\", \"image\": \"%s\", \"imagewidth\": 36,\n"
	"   \"imageheight\": 36, \"tilewidth\": 16, \"tileheight\": 16, \"margin\": 1, \"spacing\": 2,\n"
	"   \"columns\": 2, \"tilecount\": 4}]}\n";

static char map_text[2048];
static char map_path[512];

/* Writes the map (last cell `last`, image `image`) beside the tileset; returns its length. */
static size_t write_map(uint32_t last, const char *image)
{
	FILE *f;
	int n = snprintf(map_text, sizeof map_text, map_fmt, last, image);
	assert_true(n > 0 && (size_t)n < sizeof map_text);
	snprintf(map_path, sizeof map_path, "%s/map.json", dir);
	f = fopen(map_path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(map_text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return (size_t)n;
}

static int setup(void **state)
{
	char png[300];
	(void)state;
	snprintf(dir, sizeof dir, "%s", AGB_TEST_TMP_DIR);
	snprintf(png, sizeof png, "%s/ts.png", dir);
	write_tileset(png);
	return 0;
}

static int teardown(void **state)
{
	char p[300];
	(void)state;
	snprintf(p, sizeof p, "%s/ts.png", dir);
	remove(p);
	snprintf(p, sizeof p, "%s/bad.png", dir);
	remove(p);
	snprintf(p, sizeof p, "%s/map.json", dir);
	remove(p);
	return 0;
}

/* Parses the map and prepares its ids in `mode`. */
static int prepare(uint32_t last, const char *image, enum agb_dedup_mode mode,
		   struct agb_tilemap *map, struct agb_tile_ids **ids, char *why, size_t why_len,
		   struct agb_diag *diag)
{
	size_t len = write_map(last, image);
	assert_int_equal(agb_tilemap_parse_tiled(map_path, map_text, len, map, diag), AGB_LOAD_OK);
	return agb_tile_dedup_prepare(map, map_path, map_text, len, mode, NULL, ids, why, why_len,
				      diag);
}

static void canonical_ids(void **state)
{
	/* Expected ids per (gid, flips) key, pieces row-major; keys in ascending order get ids in
	 * order of first appearance: A 1, B 2, C 3, D 4, E 5, transposed D 6. */
	static const struct {
		uint32_t gid, flip, id[4];
	} want[] = {
		{1, 0, {1, 2, 3, 0}},
		{2, 0, {1, 2, 3, 1}},  /* hA vB hvC A: flips of A B C, and A again */
		{3, 0, {4, 5, 0, 0}},
		{4, 0, {5, 4, 0, 1}},  /* hvE vD blank A */
		/* Diagonal: pieces transposed in place, (1,0) <-> (0,1); E is its own transpose. */
		{3, AGB_TILED_FLIP_D, {6, 0, 5, 0}},
		{1, AGB_TILED_FLIP_V, {3, 0, 1, 2}},  /* vC blank / vA vB */
		{1, AGB_TILED_FLIP_H, {2, 1, 0, 3}},  /* hB hA / blank hC */
	};
	struct agb_tilemap map;
	struct agb_tile_ids *ids = NULL;
	struct agb_diag diag;
	char why[256];
	(void)state;

	assert_int_equal(prepare(0, "ts.png", AGB_DEDUP_AUTO, &map, &ids, why, sizeof why, &diag),
			 AGB_LOAD_OK);
	assert_non_null(ids);
	assert_string_equal(why, "");
	assert_int_equal(map.layers[0].flip[4], AGB_TILED_FLIP_D);
	assert_int_equal(map.layers[0].flip[6], AGB_TILED_FLIP_H);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		for (uint32_t k = 0; k < 4u; k++) {
			uint32_t got = agb_tile_ids_at(ids, want[i].gid, want[i].flip, k);
			if (got != want[i].id[k])
				fail_msg("gid %u flip %u piece %u: id %u, want %u", want[i].gid, want[i].flip,
					 k, got, want[i].id[k]);
		}
	assert_int_equal(agb_tile_ids_distinct(ids), 6);
	/* Not in the map: 0. */
	assert_int_equal(agb_tile_ids_at(ids, 2, AGB_TILED_FLIP_H, 0), 0);
	agb_tile_ids_free(ids);
	agb_tilemap_release(&map);
}

/* The stream refs content ids only, never the transparent tile, and stays balanced; by gid the
 * same map refs (gid - 1) * 4 + k + 1 for every piece, blank or not. */
static void stream_by_content(void **state)
{
	struct agb_tilemap map;
	struct agb_tile_ids *ids = NULL;
	struct agb_diag diag;
	struct agb_stream_options o;
	struct agb_trace t;
	struct agb_event *ev;
	char why[256], err[256];
	uint32_t refs = 0, unrefs = 0, seen = 0;
	(void)state;

	assert_int_equal(prepare(0, "ts.png", AGB_DEDUP_ON, &map, &ids, why, sizeof why, &diag),
			 AGB_LOAD_OK);
	agb_stream_options_init(&o);
	o.tile_ids = ids;
	assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), 0);
	for (uint32_t i = 0; i < t.event_count; i++) {
		if (ev[i].op == AGB_OP_REF) {
			refs++;
			assert_true(ev[i].id >= 1 && ev[i].id <= 6);
			seen |= 1u << ev[i].id;
		} else if (ev[i].op == AGB_OP_UNREF) {
			unrefs++;
		}
	}
	assert_int_equal(refs, unrefs);
	assert_int_equal(seen, 0x7Eu); /* ids 1..6 all on screen (the map fits it) */
	/* 7 non-empty cells, 8 blank pieces among their 28: 20 refs. */
	assert_int_equal(refs, 20);
	free(ev);

	o.tile_ids = NULL;
	assert_int_equal(agb_tilemap_stream(&map, &o, &t, &ev, err, sizeof err), 0);
	refs = 0;
	for (uint32_t i = 0; i < t.event_count; i++)
		refs += ev[i].op == AGB_OP_REF;
	assert_int_equal(refs, 28);
	free(ev);
	agb_tile_ids_free(ids);
	agb_tilemap_release(&map);
}

/* AUTO without the image: by gid, and why; ON: an error naming the image; OFF: by gid. */
static void image_missing(void **state)
{
	struct agb_tilemap map;
	struct agb_tile_ids *ids = NULL;
	struct agb_diag diag;
	char why[512], want[1200], msg[1024];
	(void)state;

	assert_int_equal(prepare(0, "none.png", AGB_DEDUP_AUTO, &map, &ids, why, sizeof why, &diag),
			 AGB_LOAD_OK);
	assert_null(ids);
	snprintf(want, sizeof want, "%s/none.png: No such file or directory", dir);
	assert_string_equal(why, want);
	agb_tilemap_release(&map);

	assert_int_equal(prepare(0, "none.png", AGB_DEDUP_ON, &map, &ids, why, sizeof why, &diag),
			 AGB_LOAD_BAD_INPUT);
	assert_null(ids);
	agb_diag_format(&diag, msg, sizeof msg);
	snprintf(want, sizeof want,
		 "%s/none.png: cannot open the image of tileset \"t\": No such file or directory", dir);
	assert_string_equal(msg, want);
	agb_tilemap_release(&map);

	assert_int_equal(prepare(0, "none.png", AGB_DEDUP_OFF, &map, &ids, why, sizeof why, &diag),
			 AGB_LOAD_OK);
	assert_null(ids);
	assert_string_equal(why, "--no-dedup");
	agb_tilemap_release(&map);
}

/* A file that is not a PNG is an error even in AUTO; a gid beyond the tileset is placed at its
 * LINE:COL in the map. */
static void bad_input(void **state)
{
	struct agb_tilemap map;
	struct agb_tile_ids *ids = NULL;
	struct agb_diag diag;
	char why[512], want[1200], msg[1024], bad[300];
	FILE *f;
	(void)state;

	snprintf(bad, sizeof bad, "%s/bad.png", dir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("not a PNG\n", f);
	fclose(f);
	assert_int_equal(prepare(0, "bad.png", AGB_DEDUP_AUTO, &map, &ids, why, sizeof why, &diag),
			 AGB_LOAD_BAD_INPUT);
	agb_diag_format(&diag, msg, sizeof msg);
	/* At the tileset's "image" in the map (line 6, the value's first column), naming both. */
	snprintf(want, sizeof want,
	         "%s:6:53: tileset \"t\", image %s: not a readable PNG image (Not a PNG file)",
	         map_path, bad);
	assert_string_equal(msg, want);
	agb_tilemap_release(&map);

	assert_int_equal(prepare(5, "ts.png", AGB_DEDUP_AUTO, &map, &ids, why, sizeof why, &diag),
			 AGB_LOAD_BAD_INPUT);
	assert_null(ids);
	agb_diag_format(&diag, msg, sizeof msg);
	snprintf(want, sizeof want,
		 "%s:5:40: layer \"L\", cell (3, 1): tile id 5 is beyond tileset \"t\" (4 tiles "
		 "from 1)",
		 map_path);
	assert_string_equal(msg, want);
	agb_tilemap_release(&map);
}

/* The PNG reader: size, pixels as RGBA with invisible pixels 0, errors. */
static void png_reader(void **state)
{
	struct agb_image img;
	struct agb_diag diag;
	char path[300];
	(void)state;

	snprintf(path, sizeof path, "%s/ts.png", dir);
	assert_int_equal(agb_png_read(path, &img, &diag), AGB_LOAD_OK);
	assert_int_equal(img.width, SIDE);
	assert_int_equal(img.height, SIDE);
	assert_int_equal(img.px[0], 0xFF030201u);               /* the margin */
	assert_int_equal(img.px[1u * SIDE + 1u], 0xFF0A0000u);  /* A at (0, 0) */
	assert_int_equal(img.px[9u * SIDE + 9u], 0u);           /* cell 1's blank piece */
	agb_image_release(&img);
	snprintf(path, sizeof path, "%s/missing.png", dir);
	assert_int_equal(agb_png_read(path, &img, &diag), AGB_LOAD_BAD_INPUT);
	assert_null(img.px);
	/* Devices and FIFOs are refused before they are opened (a FIFO would block); so is a
	 * directory. (Windows has no /dev/zero, and msvcrt's stat does not see its NUL device.) */
	if (agb_path_kind("/dev/zero") != AGB_PATH_MISSING) {
		assert_int_equal(agb_png_read("/dev/zero", &img, &diag), AGB_LOAD_BAD_INPUT);
		assert_string_equal(diag.message, "not a regular file");
	}
	assert_int_equal(agb_png_read(dir, &img, &diag), AGB_LOAD_BAD_INPUT);
	assert_string_equal(diag.message, "not a regular file");
}

/* ts.png with `extra` (whole chunks, or a chunk header alone) inserted after IHDR, at path. */
static void write_with_chunk(const char *path, const unsigned char *extra, size_t extra_n)
{
	char src[300];
	static unsigned char png[1 << 16];
	snprintf(src, sizeof src, "%s/ts.png", dir);
	FILE *f = fopen(src, "rb");
	assert_non_null(f);
	size_t n = fread(png, 1, sizeof png, f);
	fclose(f);
	assert_true(n > 33u && n < sizeof png);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(png, 1, 33, f), 33); /* signature + IHDR (13 bytes of data) */
	assert_int_equal(fwrite(extra, 1, extra_n, f), extra_n);
	assert_int_equal(fwrite(png + 33, 1, n - 33, f), n - 33);
	assert_int_equal(fclose(f), 0);
}

/* Only the chunks that decide pixels reach libpng: a text chunk declaring 1 GiB is refused
 * before anything is allocated for it, and chunks that fit but change no pixel are skipped. */
static void png_chunks(void **state)
{
	struct agb_image img;
	struct agb_diag diag;
	char path[300];
	(void)state;
	snprintf(path, sizeof path, "%s/huge-text.png", dir);
	static const unsigned char huge[8] = {0x40, 0, 0, 0, 't', 'E', 'X', 't'};
	write_with_chunk(path, huge, sizeof huge);
	assert_int_equal(agb_png_read(path, &img, &diag), AGB_LOAD_BAD_INPUT);
	assert_null(img.px);
	assert_non_null(strstr(diag.message, "declares 1073741824 bytes, past the end of the file"));

	/* tEXt "k\0v" and a private chunk, CRCs wrong on purpose: they are not read at all. */
	static const unsigned char fits[] = {0, 0, 0, 3, 't', 'E', 'X', 't', 'k', 0, 'v', 1, 2, 3, 4,
	                                     0, 0, 0, 1, 'p', 'r', 'V', 't', 7, 9, 9, 9, 9};
	snprintf(path, sizeof path, "%s/with-text.png", dir);
	write_with_chunk(path, fits, sizeof fits);
	assert_int_equal(agb_png_read(path, &img, &diag), AGB_LOAD_OK);
	assert_int_equal(img.width, SIDE);
	assert_int_equal(img.px[1u * SIDE + 1u], 0xFF0A0000u);
	agb_image_release(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(canonical_ids), cmocka_unit_test(stream_by_content),
		cmocka_unit_test(image_missing), cmocka_unit_test(bad_input),
		cmocka_unit_test(png_reader), cmocka_unit_test(png_chunks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
