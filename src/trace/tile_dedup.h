/* Identical tiles share VRAM: GBA 8x8 tiles identified by the content of their pixels.
 *
 * Without this, agb_tilemap_stream numbers the (W/8)^2 GBA tiles of a W px map cell by
 * (gid, position in the cell), so two cells that share a blank or a repeated 8x8 piece still
 * count as different ROM tiles. A game converts its tileset to GBA tiles once and keeps one copy
 * of each distinct tile: here each 8x8 piece of a cell is cut from the tileset image (PNG) with
 * the cell's Tiled flips applied, and gets a canonical content id:
 *
 *  - pixels whose alpha is 0 are all the same (the GBA's colour 0): a piece with no visible pixel
 *    is ROM tile 0, the transparent tile, and is never ref'd (as an empty cell);
 *  - a piece equal to another's horizontal, vertical or both flips is the same tile (a GBA screen
 *    map entry flips a tile for free);
 *  - Tiled's diagonal flip (x and y swapped, then the H and V flips) has no GBA equivalent: the
 *    transposed pixels are cut as they are drawn, so a rotated cell costs tiles of its own
 *    unless its pieces happen to equal (flips of) others;
 *  - ids are 1, 2, ... in the order the pieces are first met: gids ascending, then flip flags
 *    ascending, then the pieces of the cell row-major.
 *
 * Colours are compared as the image's RGBA values, so two pieces of the same pattern in other
 * colours stay distinct (a game might share them through palettes; not modelled). */
#ifndef AGB_TRACE_TILE_DEDUP_H
#define AGB_TRACE_TILE_DEDUP_H

#include <stddef.h>
#include <stdint.h>

#include "trace/tiled.h"
#include "trace/trace_load.h"

/* An image as 32-bit RGBA pixels (R in the low byte), a fully transparent pixel stored as 0. */
struct agb_image {
	uint32_t width, height;
	uint32_t *px; /* width * height, row-major */
};

/* Reads a PNG file (any colour type and depth) into *img. Returns AGB_LOAD_OK, or
 * AGB_LOAD_BAD_INPUT with "PATH: message" in *diag (cannot open, not a PNG, corrupt, larger
 * than 16384x16384), or AGB_LOAD_IO_ERROR (out of memory). */
int agb_png_read(const char *path, struct agb_image *img, struct agb_diag *diag);
/* agb_png_read refusing, from the PNG's header before anything is decoded, an image of more
 * than max_pixels pixels (the rest of a map's budget for its tileset images). */
int agb_png_read_max(const char *path, uint64_t max_pixels, struct agb_image *img,
		     struct agb_diag *diag);

void agb_image_release(struct agb_image *img);

/* Content ids for every (gid, flips) a map uses: built once, looked up while streaming. */
struct agb_tile_ids;

/* Cuts every piece of every cell the map uses out of its tileset's image (map->tilesets) and
 * numbers the distinct contents. images[i] is tileset i's image (px NULL for a tileset no cell
 * uses), image_paths[i] its file, for messages; name/text/len the map, for positions. Returns
 * AGB_LOAD_OK, AGB_LOAD_BAD_INPUT with *diag (a gid in no tileset or beyond its tileset's cells,
 * naming the layer and cell, at its LINE:COL in a JSON map; a tileset whose cells are not the
 * map's; an image too small for its cells), or AGB_LOAD_IO_ERROR. */
int agb_tile_ids_build(const struct agb_tilemap *map, const struct agb_image *images,
		       const char *const *image_paths, const char *name, const char *text,
		       size_t len, struct agb_tile_ids **out, struct agb_diag *diag);

/* The content id of piece k_index (row-major in the cell as drawn) of a cell holding gid with
 * Tiled flip flags `flip` (AGB_TILED_FLIP_*): 0 for a transparent piece. */
uint32_t agb_tile_ids_at(const struct agb_tile_ids *ids, uint32_t gid, uint32_t flip,
			 uint32_t k_index);

/* Distinct non-transparent contents among the map's pieces (the largest id). */
uint32_t agb_tile_ids_distinct(const struct agb_tile_ids *ids);

void agb_tile_ids_free(struct agb_tile_ids *ids);

/* What `agbsim convert` asks for. */
enum agb_dedup_mode {
	AGB_DEDUP_AUTO, /* by content when every used tileset's image is found, else by gid */
	AGB_DEDUP_ON,   /* by content, or an error */
	AGB_DEDUP_OFF   /* by gid */
};

/* The whole step for a Tiled map read from map_path (JSON or TMX, its text in text/len): the
 * images of the tilesets its cells use (each "image" relative to the file that names it: the
 * map, or an external tileset file; or its file name in images_dir when that is not NULL) and
 * the ids. *out is NULL when the ids are by gid: mode OFF, or AUTO when a used tileset cannot be
 * cut (its image not found, an external tileset not read, a tileset of images, tiles of another
 * size than the map's cells; why in `why`, e.g. "FILE: No such file or directory"). Returns
 * AGB_LOAD_OK, or a failure with *diag: an unreadable PNG, a gid beyond the tilesets, in mode ON
 * any of the AUTO reasons. */
int agb_tile_dedup_prepare(const struct agb_tilemap *map, const char *map_path, const char *text,
			   size_t len, enum agb_dedup_mode mode, const char *images_dir,
			   struct agb_tile_ids **out, char *why, size_t why_len,
			   struct agb_diag *diag);

#endif
