/* tiled_build.h - what the Tiled readers (JSON in tiled.c, TMX in tmx.c) share: a map is built
 * layer by layer (a grid, or chunks of an infinite map), tileset by tileset, then finished
 * (infinite layers placed on their common bounding box, flip flags counted and masked).
 * Internal to src/trace. */
#ifndef AGB_TRACE_TILED_BUILD_H
#define AGB_TRACE_TILED_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "trace/tiled.h"

/* A rectangle of cells at (x, y) (an infinite map's chunk, or a finite layer at 0, 0). */
struct agb_tiled_chunk {
	int32_t x, y;
	uint32_t w, h;
	uint32_t *gid; /* w * h, row-major, flip flags kept; owned by the builder once added */
};

struct agb_tiled_layer_build {
	char *name;
	struct agb_tiled_chunk *chunks;
	size_t count;
};

struct agb_tiled_build {
	struct agb_tilemap *map;
	struct agb_tiled_layer_build *layers;
	size_t count;
	char *dir; /* the map file's directory ("" for the current one), for external tilesets */
	uint64_t cells; /* every chunk's cells so far, all layers */
};

/* Caps on what a map may make the converter hold, whatever its file size (a few KB of zstd can
 * name 2^24 cells): tile layers, and cells of all layers together (the chunks as read, and the
 * layers placed on the map). 2^23 cells is 32 MiB of gids per copy, eight full-screen
 * 1024x1024 layers; a GBA background is at most 128x128 tiles (affine) or 64x64 (text). */
#define AGB_TILED_MAX_LAYERS 64u
#define AGB_TILED_MAX_CELLS (1u << 23)

/* Checked before a layer (NEW_LAYER) or a chunk of CELLS cells is added, so that nothing is
 * allocated past the caps: NULL when it fits, else the reason (a static string). O(1). */
const char *agb_tiled_build_room(const struct agb_tiled_build *b, int new_layer, uint64_t cells);

/* Starts a build of *map (already zeroed, cell size and, when finite, width/height set) for the
 * map file `path`. Returns 0 or -1 (out of memory). */
int agb_tiled_build_begin(struct agb_tiled_build *b, struct agb_tilemap *map, const char *path);

/* A new tile layer named `name`; its chunks follow. Returns 0 or -1 (out of memory). */
int agb_tiled_build_layer(struct agb_tiled_build *b, const char *name);

/* A chunk of w x h cells at (x, y) for the current layer: *gid receives room for w * h gids to
 * fill. Returns 0 or -1 (out of memory, or more than 2^24 cells). */
int agb_tiled_build_chunk(struct agb_tiled_build *b, int32_t x, int32_t y, uint32_t w, uint32_t h,
			  uint32_t **gid);

/* Adds a tileset (the strings are copied; any may be NULL). Returns 0 or -1 (out of memory). */
int agb_tiled_build_tileset(struct agb_tiled_build *b, const struct agb_tileset *ts);

/* The path of a file named `ref` in the map's directory (malloc'd), or NULL (out of memory). */
char *agb_tiled_build_path(const struct agb_tiled_build *b, const char *ref);

/* Places every layer on the map: a finite map's layers must cover it exactly; an infinite map
 * becomes the bounding box of all chunks. Counts and masks the flip flags. Returns 0, or -1 with
 * the reason in `why` (a chunk outside a finite map, a map over 2^24 cells, no tile layer, out of
 * memory). Frees the build's own memory in any case. */
int agb_tiled_build_finish(struct agb_tiled_build *b, char *why, size_t why_len);

/* Tileset files are read with agb_read_regular_file up to this many bytes. */
#define AGB_TILED_MAX_TILESET_FILE ((size_t)16 << 20)

/* A copy of `s` (malloc'd; NULL for NULL or out of memory): strdup is POSIX, not C11. */
char *agb_tiled_strdup(const char *s);

/* Adds the external tileset file `source` (named by the map; .tsx is TMX's XML, else Tiled
 * JSON), read next to the map: its fields, or tile_w 0 when it cannot be read (a warning, not an
 * error: streaming needs no tileset). Returns 0 or -1 (out of memory). In tiled.c. */
int agb_tiled_build_external_tileset(struct agb_tiled_build *b, const char *source,
				     uint32_t firstgid);

/* Adds the tileset of the .tsx file at `path` (tmx.c): ts gives firstgid and source, the file
 * the rest; tile_w stays 0 when the file cannot be read. Returns 0 or -1 (out of memory). */
int agb_tiled_build_tileset_tsx(struct agb_tiled_build *b, const char *path,
				struct agb_tileset *ts);

/* The end of a reader's parse: on failure the map is released and an out-of-memory failure gets
 * its message (the others already have theirs). Returns rc. */
int agb_tiled_parse_end(int rc, const char *name, struct agb_diag *diag, struct agb_tilemap *map);

/* Frees a build that is abandoned (the map is left to agb_tilemap_release). */
void agb_tiled_build_abort(struct agb_tiled_build *b);

#endif
