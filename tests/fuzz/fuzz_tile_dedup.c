/* Fuzz target: tile deduplication (agb_tile_ids_build in src/trace/tile_dedup.c). The input
 * makes a small map in memory: cell size 8 or 16 px, up to 8x8 cells on one layer, up to two
 * tilesets (firstgid, tile size, margin, spacing, columns, tilecount), each with an image of up
 * to 64x64 px whose pixels follow. Checks: on success every piece of every cell the map uses
 * has an id within 0..distinct, the same (gid, flips) always gives the same ids, and a cell
 * flipped twice the same way is its own content. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tile_dedup.h"
#include "trace/tiled.h"

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t byte(struct rd *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = {data, size};
	struct agb_tilemap map;
	struct agb_tilemap_layer layer = {"L", NULL, NULL};
	struct agb_tileset sets[2];
	struct agb_image images[2] = {{0, 0, NULL}, {0, 0, NULL}};
	const char *paths[2] = {"a.png", "b.png"};
	uint32_t gids[64];
	uint8_t flips[64];
	memset(&map, 0, sizeof map);
	memset(sets, 0, sizeof sets);
	uint8_t b0 = byte(&r);
	map.cell_px = (b0 & 1) ? 16u : 8u;
	map.width = 1u + ((b0 >> 1) & 7u);
	map.height = 1u + ((b0 >> 4) & 7u);
	map.tileset_count = 1u + ((b0 >> 7) & 1u);
	map.layer_count = 1;
	map.infinite = 1; /* no map text to place a failing cell in */
	map.layers = &layer;
	map.tilesets = sets;
	for (uint32_t t = 0; t < map.tileset_count; t++) {
		struct agb_tileset *s = &sets[t];
		s->firstgid = t == 0 ? 1u : 1u + byte(&r);
		s->tile_w = s->tile_h = (byte(&r) & 1) ? map.cell_px : 8u;
		s->margin = byte(&r) & 7u;
		s->spacing = byte(&r) & 7u;
		s->columns = byte(&r) & 15u;
		s->tilecount = byte(&r);
		s->name = "s";
		images[t].width = 1u + (byte(&r) & 63u);
		images[t].height = 1u + (byte(&r) & 63u);
		images[t].px = malloc((size_t)images[t].width * images[t].height * sizeof(uint32_t));
		if (images[t].px == NULL)
			goto out;
		for (size_t i = 0; i < (size_t)images[t].width * images[t].height; i++)
			images[t].px[i] = (byte(&r) & 3u) * 0x01010101u; /* few colours: many equal pieces */
	}
	for (uint32_t i = 0; i < map.width * map.height; i++) {
		uint8_t c = byte(&r);
		gids[i] = c & 0x3Fu;
		flips[i] = (uint8_t)(c >> 6) & 3u;
	}
	layer.gid = gids;
	layer.flip = flips;
	struct agb_tile_ids *ids = NULL;
	struct agb_diag d;
	if (agb_tile_ids_build(&map, images, paths, "fuzz.json", NULL, 0, &ids, &d) == AGB_LOAD_OK) {
		uint32_t k = map.cell_px / 8u, distinct = agb_tile_ids_distinct(ids);
		for (uint32_t i = 0; i < map.width * map.height; i++) {
			if (gids[i] == 0)
				continue;
			for (uint32_t q = 0; q < k * k; q++) {
				uint32_t id = agb_tile_ids_at(ids, gids[i], flips[i], q);
				if (id > distinct || id != agb_tile_ids_at(ids, gids[i], flips[i], q))
					abort();
			}
		}
		agb_tile_ids_free(ids);
	}
out:
	free(images[0].px);
	free(images[1].px);
	return 0;
}
