/* Tile-streaming traces from level maps (Tiled JSON or a plain CSV grid of tile ids).
 *
 * A map cell of W px is (W/8)^2 GBA 8x8 tiles: ROM tile number (gid - 1) * (W/8)^2 + k + 1 for the
 * k-th tile of the cell in row-major order, so ROM tile 0 stays the transparent tile; gid 0 (an
 * empty cell) is transparent and never ref'd. The high three bits of a Tiled gid are flip flags
 * and are masked off (0x1FFFFFFF): a horizontally or vertically flipped tile is the same tile
 * data on the GBA too (the screen map flips it for free). A diagonal flip (Tiled's 90-degree
 * rotation) has no GBA equivalent: such a cell is streamed as its unflipped tile and counted in
 * agb_tilemap.diagonal_cells so the converter can warn. With agb_stream_options.tile_ids the ROM
 * tile numbers are instead canonical ids of the content of the tileset's 8x8 pixels, the cell's
 * flips (the diagonal one too) applied as Tiled draws them (tile_dedup.h).
 *
 * Maps are read as Tiled saves them: JSON (.tmj/.json) or TMX (.tmx, XML), tile layer data as CSV
 * or base64 (uncompressed, zlib, gzip or zstd), finite or infinite (chunks: the map becomes the
 * bounding box of every layer's chunks), tilesets inline or external (.tsx/.tsj, resolved next to
 * the map file).
 *
 * Each tile layer is a BG layer with a 32x32-tile screen map used as a ring buffer: the map holds
 * the 256x256 px window at the camera, slot (x mod 32, y mod 32) holding level tile (x, y). When
 * the camera moves, every slot whose level tile changes gets an `unref` of the old tile and a
 * `ref` of the new one -- what a scrolling engine does as it rewrites the column or row that
 * scrolled in over the one that scrolled out. The first frame refs the whole window; a
 * `["frame"]` follows each frame; after the last frame the level is torn down (all unref'd),
 * so every trace is balanced. */
#ifndef AGB_TRACE_TILED_H
#define AGB_TRACE_TILED_H

#include <stddef.h>
#include <stdint.h>

#include "agbsim/trace.h"
#include "trace/trace_load.h"

struct agb_tile_ids;

/* A Tiled gid's flip flags as agb_tilemap_layer.flip keeps them (the gid's top three bits). */
#define AGB_TILED_FLIP_H 4u /* 0x80000000: horizontal */
#define AGB_TILED_FLIP_V 2u /* 0x40000000: vertical */
#define AGB_TILED_FLIP_D 1u /* 0x20000000: diagonal (x and y swapped, before H and V) */

struct agb_tilemap_layer {
	char *name;
	uint32_t *gid; /* width * height cells, row-major, flip bits already masked */
	uint8_t *flip; /* per cell the gid's flip flags (AGB_TILED_FLIP_*), or NULL for none */
};

/* A tileset as the map names it. An external one (source != NULL) that could not be read has
 * tile_w == 0. */
struct agb_tileset {
	uint32_t firstgid;
	uint32_t tile_w, tile_h; /* px */
	uint32_t columns, margin, spacing, tilecount;
	char *name;   /* "" when unnamed */
	char *source; /* the external tileset file as the map names it, or NULL when inline */
	char *image;  /* the tileset image as its file names it (relative to that file), or NULL */
};

struct agb_tilemap {
	uint32_t width, height; /* cells */
	uint32_t cell_px;       /* multiple of 8 */
	uint32_t layer_count;
	struct agb_tilemap_layer *layers;
	uint32_t tileset_count;
	struct agb_tileset *tilesets;
	uint32_t flipped_cells;  /* cells with a horizontal or vertical flip (free on the GBA) */
	uint32_t diagonal_cells; /* cells with a diagonal flip (streamed unflipped) */
	int infinite;            /* read from chunks */
};

/* The warnings a map deserves before it is streamed: more tile layers than a GBA's four
 * backgrounds, diagonal flips, tilesets whose tile size is not the map's cell size, external
 * tilesets that could not be read. Writes up to `max` messages of `len` bytes each into `out`
 * (row i at out + i * len) and returns how many there are (possibly more than max). */
size_t agb_tilemap_warnings(const struct agb_tilemap *map, char *out, size_t len, size_t max);

/* Parses a TMX map (Tiled's XML; same rules and returns as agb_tilemap_parse_tiled, positions
 * from the XML parser's lines). External tilesets are read relative to `name`. */
int agb_tilemap_parse_tmx(const char *name, const char *text, size_t len, struct agb_tilemap *out,
			  struct agb_diag *diag);

enum agb_camera_path {
	AGB_PATH_RIGHT,    /* along the bottom edge, left to right */
	AGB_PATH_LEFT,     /* along the bottom edge, right to left */
	AGB_PATH_PINGPONG, /* right, then back left, repeatedly */
	AGB_PATH_DOWN,     /* along the left edge, top to bottom */
	AGB_PATH_DIAGONAL  /* both axes at once, bouncing off the level's edges */
};

/* Most camera moves a stream may ask for: the trace's frame count (moves + 1) and event count
 * must stay 32-bit, and 10 M frames is already ~46 hours of 60 Hz scrolling. */
#define AGB_STREAM_MAX_FRAMES 10000000u

struct agb_layer_bpp {
	const char *name;
	uint32_t bpp;
};

struct agb_stream_options {
	enum agb_camera_path path;
	uint32_t speed;  /* px per frame, 1..8 */
	uint32_t frames; /* 0: one pass (right/left/down/diagonal) or one round trip (pingpong);
			  * at most AGB_STREAM_MAX_FRAMES */
	uint32_t bpp;    /* depth of layers not named in layer_bpp */
	const struct agb_layer_bpp *layer_bpp;
	size_t layer_bpp_count;
	const char *name;   /* trace name (may be NULL) */
	const char *source; /* trace source (may be NULL) */
	/* NULL: ROM tiles numbered by gid (above); else tile ids by 8x8 content (tile_dedup.h) */
	const struct agb_tile_ids *tile_ids;
};

/* Defaults: right, 8 px/frame, one pass, 4bpp. */
void agb_stream_options_init(struct agb_stream_options *o);

/* "right", "left", "pingpong", "down", "diagonal". Returns 0, or -1 when unknown. */
int agb_camera_path_parse(const char *s, enum agb_camera_path *out);

/* Parses a Tiled JSON map (orthogonal, square cells of a multiple of 8 px; group layers are
 * entered, other layer types ignored; external tilesets read relative to `name`). `name` is the
 * file name used in *diag. Returns AGB_LOAD_OK, or AGB_LOAD_BAD_INPUT with a positioned message (the
 * position of the offending key, or cJSON's error position for malformed JSON), or
 * AGB_LOAD_IO_ERROR when out of memory. On failure *out is empty. */
int agb_tilemap_parse_tiled(const char *name, const char *text, size_t len, struct agb_tilemap *out,
			    struct agb_diag *diag);

/* Parses a CSV grid of gids (one row per line, comma-separated, blank lines ignored, all rows the
 * same length) as one layer named "csv" with cells of cell_px (multiple of 8). Same returns. */
int agb_tilemap_parse_csv(const char *name, const char *text, size_t len, uint32_t cell_px,
			  struct agb_tilemap *out, struct agb_diag *diag);

/* Frees what a parse stored and zeroes *map. Safe on a zeroed map. */
void agb_tilemap_release(struct agb_tilemap *map);

/* Streams `map` through the camera into a bg_vram trace: *out gets the trace (events in
 * *events, which the caller frees). Returns 0, or -1 with a message in err (an unknown layer in
 * layer_bpp, a bad speed or bpp, a ROM tile number beyond 2^31 - 1, or out of memory). */
int agb_tilemap_stream(const struct agb_tilemap *map, const struct agb_stream_options *opt,
		       struct agb_trace *out, struct agb_event **events, char *err, size_t err_len);

#endif
