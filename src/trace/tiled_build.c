/* Building a tile map from the Tiled readers; see tiled_build.h. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include "trace/tiled_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform/platform.h"

#define GID_MASK 0x1FFFFFFFu
#define FLIP_H 0x80000000u
#define FLIP_V 0x40000000u
#define FLIP_D 0x20000000u
#define MAX_CELLS 0x1000000u /* 2^24 cells per layer: 16 M, far beyond a GBA level */
#define GBA_BACKGROUNDS 4u

char *agb_tiled_strdup(const char *s)
{
	if (s == NULL)
		return NULL;
	size_t n = strlen(s) + 1u;
	char *d = malloc(n);
	if (d != NULL)
		memcpy(d, s, n);
	return d;
}

int agb_tiled_build_begin(struct agb_tiled_build *b, struct agb_tilemap *map, const char *path)
{
	const char *slash = agb_path_last_sep(path);
	size_t n = slash != NULL ? (size_t)(slash - path) + 1u : 0u;
	memset(b, 0, sizeof *b);
	b->map = map;
	b->dir = malloc(n + 1u);
	if (b->dir == NULL)
		return -1;
	memcpy(b->dir, path, n);
	b->dir[n] = '\0';
	return 0;
}

char *agb_tiled_build_path(const struct agb_tiled_build *b, const char *ref)
{
	size_t dn = agb_path_is_absolute(ref) ? 0u : strlen(b->dir), rn = strlen(ref);
	char *p = malloc(dn + rn + 1u);
	if (p != NULL) {
		memcpy(p, b->dir, dn);
		memcpy(p + dn, ref, rn + 1u);
	}
	return p;
}

int agb_tiled_build_layer(struct agb_tiled_build *b, const char *name)
{
	struct agb_tiled_layer_build *grown = realloc(b->layers, (b->count + 1u) * sizeof *grown);
	if (grown == NULL)
		return -1;
	b->layers = grown;
	grown[b->count] = (struct agb_tiled_layer_build){agb_tiled_strdup(name != NULL ? name : ""), NULL, 0};
	if (grown[b->count].name == NULL)
		return -1;
	b->count++;
	return 0;
}

const char *agb_tiled_build_room(const struct agb_tiled_build *b, int new_layer, uint64_t cells)
{
	if (new_layer && b->count >= AGB_TILED_MAX_LAYERS)
		return "more than 64 tile layers (limit of this converter)";
	if (cells > AGB_TILED_MAX_CELLS || b->cells + cells > AGB_TILED_MAX_CELLS)
		return "more than 2^23 cells in all tile layers together (limit of this converter)";
	return NULL;
}

int agb_tiled_build_chunk(struct agb_tiled_build *b, int32_t x, int32_t y, uint32_t w, uint32_t h,
			  uint32_t **gid)
{
	struct agb_tiled_layer_build *l = &b->layers[b->count - 1u];
	if (w == 0 || h == 0 || (uint64_t)w * h > MAX_CELLS ||
	    agb_tiled_build_room(b, 0, (uint64_t)w * h) != NULL)
		return -1;
	b->cells += (uint64_t)w * h;
	struct agb_tiled_chunk *grown = realloc(l->chunks, (l->count + 1u) * sizeof *grown);
	if (grown == NULL)
		return -1;
	l->chunks = grown;
	*gid = calloc((size_t)w * h, sizeof **gid);
	if (*gid == NULL)
		return -1;
	grown[l->count++] = (struct agb_tiled_chunk){x, y, w, h, *gid};
	return 0;
}

int agb_tiled_build_tileset(struct agb_tiled_build *b, const struct agb_tileset *ts)
{
	struct agb_tilemap *m = b->map;
	struct agb_tileset *grown = realloc(m->tilesets, (m->tileset_count + 1u) * sizeof *grown);
	if (grown == NULL)
		return -1;
	m->tilesets = grown;
	struct agb_tileset *t = &grown[m->tileset_count];
	*t = *ts;
	t->name = agb_tiled_strdup(ts->name != NULL ? ts->name : "");
	t->source = agb_tiled_strdup(ts->source);
	t->image = agb_tiled_strdup(ts->image);
	m->tileset_count++; /* counted first: release frees whatever the copies got */
	return t->name == NULL || (ts->source != NULL && t->source == NULL) ||
			       (ts->image != NULL && t->image == NULL)
		       ? -1
		       : 0;
}

static void free_layers(struct agb_tiled_build *b)
{
	for (size_t i = 0; i < b->count; i++) {
		for (size_t c = 0; c < b->layers[i].count; c++)
			free(b->layers[i].chunks[c].gid);
		free(b->layers[i].chunks);
		free(b->layers[i].name);
	}
	free(b->layers);
	free(b->dir);
	memset(b, 0, sizeof *b);
}

int agb_tiled_parse_end(int rc, const char *name, struct agb_diag *diag, struct agb_tilemap *map)
{
	if (rc != AGB_LOAD_OK) {
		if (rc == AGB_LOAD_IO_ERROR) {
			snprintf(diag->file, sizeof diag->file, "%s", name);
			snprintf(diag->message, sizeof diag->message, "out of memory");
		}
		agb_tilemap_release(map);
	}
	return rc;
}

void agb_tiled_build_abort(struct agb_tiled_build *b)
{
	free_layers(b);
}

static int fail(struct agb_tiled_build *b, char *why, size_t why_len, const char *msg)
{
	snprintf(why, why_len, "%s", msg);
	free_layers(b);
	return -1;
}

/* The common rectangle: the map itself when finite, else the bounding box of every chunk. */
static int extent(const struct agb_tiled_build *b, int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1)
{
	int any = 0;
	*x0 = *y0 = 0;
	*x1 = b->map->width;
	*y1 = b->map->height;
	if (!b->map->infinite)
		return 1;
	for (size_t i = 0; i < b->count; i++)
		for (size_t c = 0; c < b->layers[i].count; c++) {
			const struct agb_tiled_chunk *k = &b->layers[i].chunks[c];
			int64_t cx1 = (int64_t)k->x + k->w, cy1 = (int64_t)k->y + k->h;
			if (!any || k->x < *x0)
				*x0 = k->x;
			if (!any || k->y < *y0)
				*y0 = k->y;
			if (!any || cx1 > *x1)
				*x1 = cx1;
			if (!any || cy1 > *y1)
				*y1 = cy1;
			any = 1;
		}
	return any;
}

/* Copies the chunks of layer `lb` into a grid of the map's size whose cell (0, 0) is (x0, y0),
 * counting and masking flip flags. */
static int place_layer(struct agb_tiled_build *b, struct agb_tiled_layer_build *lb, int64_t x0,
		       int64_t y0)
{
	struct agb_tilemap *m = b->map;
	struct agb_tilemap_layer *l = &m->layers[m->layer_count];
	l->gid = calloc((size_t)m->width * m->height, sizeof *l->gid);
	l->flip = calloc((size_t)m->width * m->height, 1);
	if (l->gid == NULL || l->flip == NULL) {
		free(l->gid);
		free(l->flip);
		l->gid = NULL;
		l->flip = NULL;
		return -1;
	}
	l->name = lb->name;
	lb->name = NULL;
	m->layer_count++;
	for (size_t c = 0; c < lb->count; c++) {
		const struct agb_tiled_chunk *k = &lb->chunks[c];
		if (k->x - x0 < 0 || k->y - y0 < 0 || k->x - x0 + k->w > m->width ||
		    k->y - y0 + k->h > m->height)
			return -2;
		for (uint32_t r = 0; r < k->h; r++)
			for (uint32_t q = 0; q < k->w; q++) {
				uint32_t g = k->gid[(size_t)r * k->w + q];
				m->flipped_cells += (g & (FLIP_H | FLIP_V)) != 0 && (g & GID_MASK) != 0;
				m->diagonal_cells += (g & FLIP_D) != 0 && (g & GID_MASK) != 0;
				l->gid[(size_t)(k->y - y0 + r) * m->width + (size_t)(k->x - x0 + q)] =
					g & GID_MASK;
				l->flip[(size_t)(k->y - y0 + r) * m->width + (size_t)(k->x - x0 + q)] =
					(uint8_t)(g >> 29);
			}
	}
	return 0;
}

int agb_tiled_build_finish(struct agb_tiled_build *b, char *why, size_t why_len)
{
	struct agb_tilemap *m = b->map;
	int64_t x0, y0, x1, y1;
	if (b->count == 0)
		return fail(b, why, why_len, "map has no tile layers");
	if (!extent(b, &x0, &y0, &x1, &y1))
		return fail(b, why, why_len, "infinite map has no chunks");
	if (x1 - x0 > 65536 || y1 - y0 > 65536 || (uint64_t)(x1 - x0) * (uint64_t)(y1 - y0) > MAX_CELLS)
		return fail(b, why, why_len, "map too large (more than 2^24 cells)");
	if ((uint64_t)(x1 - x0) * (uint64_t)(y1 - y0) * b->count > AGB_TILED_MAX_CELLS)
		return fail(b, why, why_len,
			    "map too large: its layers placed on it hold more than 2^23 cells "
			    "(limit of this converter)");
	m->width = (uint32_t)(x1 - x0);
	m->height = (uint32_t)(y1 - y0);
	m->layers = calloc(b->count, sizeof *m->layers);
	if (m->layers == NULL)
		return fail(b, why, why_len, "out of memory");
	for (size_t i = 0; i < b->count; i++) {
		int rc = place_layer(b, &b->layers[i], x0, y0);
		if (rc != 0)
			return fail(b, why, why_len,
				    rc == -2 ? "a layer's data lies outside the map" : "out of memory");
	}
	free_layers(b);
	return 0;
}

size_t agb_tilemap_warnings(const struct agb_tilemap *map, char *out, size_t len, size_t max)
{
	size_t n = 0;
#define WARN(...)                                                                                  \
	do {                                                                                       \
		if (n < max)                                                                       \
			snprintf(out + n * len, len, __VA_ARGS__);                                 \
		n++;                                                                               \
	} while (0)
	if (map->layer_count > GBA_BACKGROUNDS)
		WARN("%u tile layers: a GBA has %u backgrounds (the trace streams them all)",
		     map->layer_count, GBA_BACKGROUNDS);
	if (map->diagonal_cells != 0)
		WARN("%u cells are flipped diagonally (rotated): a GBA cannot; streamed unflipped",
		     map->diagonal_cells);
	for (uint32_t i = 0; i < map->tileset_count; i++) {
		const struct agb_tileset *t = &map->tilesets[i];
		if (t->tile_w == 0)
			WARN("tileset %s could not be read: its tile size is not checked",
			     t->source != NULL ? t->source : t->name);
		else if (t->tile_w != map->cell_px || t->tile_h != map->cell_px)
			WARN("tileset \"%s\" has %ux%u px tiles, the map %u px cells: cells are cut as "
			     "the map's",
			     t->name, t->tile_w, t->tile_h, map->cell_px);
	}
#undef WARN
	return n;
}
