/* GBA tiles by the content of their 8x8 pixels; see tile_dedup.h. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "trace/tile_dedup.h"
#include "trace/tiled_build.h"
#include "trace/trace_load.h"
#include "trace/json_util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform/platform.h"

#define PIECE_PX 64u                      /* an 8x8 GBA tile */
#define MAX_IMAGE_SIDE 16384u             /* px a side: larger images are refused */
#define MAX_IMAGE_PIXELS (1u << 25)       /* 8192 x 4096: a 128 MiB RGBA buffer */
/* Every tileset image of one map, decoded (each file once): the same 128 MiB in all. */
#define MAX_MAP_IMAGE_PIXELS (1u << 25)
#define MAX_IMAGE_FILE ((long)64 << 20) /* bytes of a PNG file */
#define FLIP_SHIFT 29u         /* Tiled's flags are the gid's top three bits */

static int diag_set(struct agb_diag *diag, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A message without a position (about a file as a whole). Returns AGB_LOAD_BAD_INPUT. */
static int diag_set(struct agb_diag *diag, const char *file, const char *fmt, ...)
{
	va_list ap;
	memset(diag, 0, sizeof *diag);
	snprintf(diag->file, sizeof diag->file, "%s", file);
	va_start(ap, fmt);
	vsnprintf(diag->message, sizeof diag->message, fmt, ap);
	va_end(ap);
	return AGB_LOAD_BAD_INPUT;
}

static int oom(struct agb_diag *diag, const char *file)
{
	diag_set(diag, file, "out of memory");
	return AGB_LOAD_IO_ERROR;
}

/* ---- tilesets ------------------------------------------------------------------------------ */

/* The tileset holding gid: the one with the largest firstgid <= gid, or -1. */
static long tileset_of(const struct agb_tilemap *map, uint32_t gid)
{
	long best = -1;
	for (uint32_t i = 0; i < map->tileset_count; i++)
		if (map->tilesets[i].firstgid <= gid &&
		    (best < 0 || map->tilesets[i].firstgid > map->tilesets[best].firstgid))
			best = (long)i;
	return best;
}

/* ---- PNG ----------------------------------------------------------------------------------- */

void agb_image_release(struct agb_image *img)
{
	free(img->px);
	memset(img, 0, sizeof *img);
}

int agb_png_read(const char *path, struct agb_image *img, struct agb_diag *diag)
{
	return agb_png_read_max(path, MAX_IMAGE_PIXELS, img, diag);
}

/* Whether libpng needs chunk `type` to decode the pixels as RGBA: the image, its palette and
 * transparency, and what its colour conversion reads. The others (text, ICC profiles, private
 * chunks) can be large or compressed and change no pixel. */
static int pixel_chunk(const unsigned char *type)
{
	static const char keep[][5] = {"IHDR", "PLTE", "IDAT", "IEND", "tRNS",
	                               "gAMA", "sRGB", "cHRM", "sBIT"};
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
		if (memcmp(type, keep[i], 4) == 0)
			return 1;
	return 0;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Checks that every chunk of the PNG in buf[0..*n) lies inside it and drops, in place, the
 * chunks pixel_chunk() does not keep: libpng then never allocates what a chunk merely declares
 * or inflates a text or profile chunk. *n becomes the kept length. Returns 0 (also for a file
 * without the signature, left to libpng), or -1 with why. */
static int keep_pixel_chunks(unsigned char *buf, size_t *n, char *why, size_t why_size)
{
	static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	size_t at = 8, out = 8;
	if (*n < 8 || memcmp(buf, signature, 8) != 0)
		return 0; /* not a PNG: libpng says so in its words */
	while (at < *n) {
		if (*n - at < 12) {
			snprintf(why, why_size, "a chunk header cut at byte %zu", at);
			return -1;
		}
		uint32_t len = be32(buf + at);
		const unsigned char *type = buf + at + 4;
		if (len > 0x7FFFFFFFu || len > *n - at - 12) {
			snprintf(why, why_size,
			         "chunk at byte %zu declares %u bytes, past the end of the file", at,
			         (unsigned)len);
			return -1;
		}
		size_t whole = 12u + len;
		int end = memcmp(type, "IEND", 4) == 0;
		if (pixel_chunk(type)) {
			memmove(buf + out, buf + at, whole);
			out += whole;
		}
		at += whole;
		if (end)
			break;
	}
	*n = out;
	return 0;
}

int agb_png_read_max(const char *path, uint64_t max_pixels, struct agb_image *img,
		     struct agb_diag *diag)
{
	png_image pi;
	struct stat st;
	size_t n;

	memset(img, 0, sizeof *img);
	if (path == NULL)
		return diag_set(diag, "", "no image file named");
	/* Only regular files of a bounded size: a path naming a FIFO or a device cannot hang or
	 * exhaust the converter. */
	if (stat(path, &st) != 0)
		return diag_set(diag, path, "cannot open: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return diag_set(diag, path, "not a regular file");
	if (st.st_size > MAX_IMAGE_FILE)
		return diag_set(diag, path, "PNG file larger than %ld MiB", MAX_IMAGE_FILE >> 20);
	char *text = NULL;
	size_t bytes = 0;
	if (agb_read_regular_file(path, (size_t)MAX_IMAGE_FILE, &text, &bytes) != 0)
		return diag_set(diag, path, "cannot read the file");
	unsigned char *file = (unsigned char *)text;
	char why[96];
	if (keep_pixel_chunks(file, &bytes, why, sizeof why) != 0) {
		free(file);
		return diag_set(diag, path, "not a readable PNG image (%s)", why);
	}
	memset(&pi, 0, sizeof pi);
	pi.version = PNG_IMAGE_VERSION;
	int began = png_image_begin_read_from_memory(&pi, file, bytes);
	if (!began) {
		diag_set(diag, path, "not a readable PNG image (%s)", pi.message);
		png_image_free(&pi);
		free(file);
		return AGB_LOAD_BAD_INPUT;
	}
	if (pi.width == 0 || pi.height == 0 || pi.width > MAX_IMAGE_SIDE ||
	    pi.height > MAX_IMAGE_SIDE || (uint64_t)pi.width * pi.height > MAX_IMAGE_PIXELS) {
		diag_set(diag, path, "image is %ux%u px: at most %u pixels, %u a side, are read",
			 pi.width, pi.height, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE);
		png_image_free(&pi);
		free(file);
		return AGB_LOAD_BAD_INPUT;
	}
	if ((uint64_t)pi.width * pi.height > max_pixels) {
		diag_set(diag, path,
			 "image is %ux%u px: with the map's other tileset images, more than %u "
			 "pixels (limit of this converter)",
			 pi.width, pi.height, MAX_MAP_IMAGE_PIXELS);
		png_image_free(&pi);
		free(file);
		return AGB_LOAD_BAD_INPUT;
	}
	pi.format = PNG_FORMAT_RGBA;
	n = (size_t)pi.width * pi.height;
	img->px = malloc(n * sizeof *img->px);
	if (img->px == NULL) {
		png_image_free(&pi);
		free(file);
		return oom(diag, path);
	}
	if (!png_image_finish_read(&pi, NULL, img->px, 0, NULL)) {
		diag_set(diag, path, "not a readable PNG image (%s)", pi.message);
		png_image_free(&pi);
		free(file);
		agb_image_release(img);
		return AGB_LOAD_BAD_INPUT;
	}
	free(file); /* png_image_finish_read freed libpng's state */
	/* R, G, B, A bytes into one value each, in place (the same 4 bytes), whatever the host's
	 * byte order; an invisible pixel becomes 0 whatever its colour. */
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)&img->px[i];
		uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			     (uint32_t)p[3] << 24;
		img->px[i] = p[3] == 0 ? 0u : v;
	}
	img->width = pi.width;
	img->height = pi.height;
	return AGB_LOAD_OK;
}

/* ---- content ids ----------------------------------------------------------------------------- */

struct agb_tile_ids {
	uint32_t k;        /* pieces per cell side */
	size_t count;      /* distinct (gid, flips) the map uses */
	uint32_t *key;     /* sorted: gid | flips << 29 */
	uint32_t *id;      /* count * k * k: the pieces' content ids, row-major per cell */
	uint32_t distinct; /* ids handed out */
	/* The contents met so far, for the lookup while building: an open-addressing table of
	 * indexes into `content` (canonical pixels of id i + 1 at content[i * 64]). */
	uint32_t *content;
	uint32_t *slot; /* 0: empty, else id */
	size_t slots;   /* a power of two */
};

uint32_t agb_tile_ids_distinct(const struct agb_tile_ids *ids)
{
	return ids->distinct;
}

void agb_tile_ids_free(struct agb_tile_ids *ids)
{
	if (ids == NULL)
		return;
	free(ids->key);
	free(ids->id);
	free(ids->content);
	free(ids->slot);
	free(ids);
}

uint32_t agb_tile_ids_at(const struct agb_tile_ids *ids, uint32_t gid, uint32_t flip,
			 uint32_t k_index)
{
	uint32_t key = gid | flip << FLIP_SHIFT;
	size_t lo = 0, hi = ids->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2u;
		if (ids->key[mid] < key)
			lo = mid + 1u;
		else
			hi = mid;
	}
	if (lo == ids->count || ids->key[lo] != key || k_index >= ids->k * ids->k)
		return 0;
	return ids->id[lo * ids->k * ids->k + k_index];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The distinct gid | flips << 29 of every non-empty cell, sorted, into ids->key. */
static int collect_keys(const struct agb_tilemap *map, struct agb_tile_ids *ids)
{
	size_t cells = (size_t)map->width * map->height, n = 0;
	uint32_t *all = malloc(cells * map->layer_count * sizeof *all);
	if (all == NULL)
		return -1;
	for (uint32_t li = 0; li < map->layer_count; li++) {
		const struct agb_tilemap_layer *l = &map->layers[li];
		for (size_t c = 0; c < cells; c++)
			if (l->gid[c] != 0)
				all[n++] = l->gid[c] | (uint32_t)(l->flip != NULL ? l->flip[c] : 0u)
							       << FLIP_SHIFT;
	}
	qsort(all, n, sizeof *all, cmp_u32);
	ids->count = 0;
	for (size_t i = 0; i < n; i++)
		if (ids->count == 0 || all[ids->count - 1u] != all[i])
			all[ids->count++] = all[i];
	ids->key = all;
	return 0;
}

static uint64_t hash_piece(const uint32_t *p)
{
	uint64_t h = 1469598103934665603u;
	for (uint32_t i = 0; i < PIECE_PX; i++) {
		h ^= p[i];
		h *= 1099511628211u;
	}
	return h;
}

/* The canonical form of an 8x8 piece: the least of it and its H, V and HV flips. */
static void canonical(const uint32_t *p, uint32_t *out)
{
	uint32_t v[3][PIECE_PX];
	for (uint32_t y = 0; y < 8u; y++)
		for (uint32_t x = 0; x < 8u; x++) {
			v[0][y * 8u + x] = p[y * 8u + (7u - x)];
			v[1][y * 8u + x] = p[(7u - y) * 8u + x];
			v[2][y * 8u + x] = p[(7u - y) * 8u + (7u - x)];
		}
	memcpy(out, p, sizeof v[0]);
	for (int i = 0; i < 3; i++)
		if (memcmp(v[i], out, sizeof v[0]) < 0)
			memcpy(out, v[i], sizeof v[0]);
}

/* The id of a piece: 0 when it has no visible pixel, else its content's id (a new one for new
 * content). Returns 0 with *fail set when out of memory. */
static uint32_t intern(struct agb_tile_ids *ids, const uint32_t *piece, size_t cap, int *fail)
{
	uint32_t c[PIECE_PX];
	size_t i;
	int blank = 1;
	for (uint32_t j = 0; j < PIECE_PX && blank; j++)
		blank = piece[j] == 0;
	if (blank)
		return 0;
	canonical(piece, c);
	for (i = (size_t)hash_piece(c) & (ids->slots - 1u); ids->slot[i] != 0;
	     i = (i + 1u) & (ids->slots - 1u))
		if (memcmp(&ids->content[(size_t)(ids->slot[i] - 1u) * PIECE_PX], c, sizeof c) == 0)
			return ids->slot[i];
	if (ids->distinct >= cap) {
		*fail = 1;
		return 0;
	}
	memcpy(&ids->content[(size_t)ids->distinct * PIECE_PX], c, sizeof c);
	ids->slot[i] = ++ids->distinct;
	return ids->distinct;
}

/* Piece (tx, ty) of a w px cell drawn with `flip`, whose pixels start at src (row stride
 * `stride`), into out: Tiled draws the diagonal flip (x and y swapped) first, then H, then V. */
static void cut_piece(const uint32_t *src, size_t stride, uint32_t w, uint32_t flip, uint32_t tx,
		      uint32_t ty, uint32_t *out)
{
	for (uint32_t py = 0; py < 8u; py++)
		for (uint32_t px = 0; px < 8u; px++) {
			uint32_t x = tx * 8u + px, y = ty * 8u + py, sx, sy;
			if (flip & AGB_TILED_FLIP_V)
				y = w - 1u - y;
			if (flip & AGB_TILED_FLIP_H)
				x = w - 1u - x;
			sx = flip & AGB_TILED_FLIP_D ? y : x;
			sy = flip & AGB_TILED_FLIP_D ? x : y;
			out[py * 8u + px] = src[(size_t)sy * stride + sx];
		}
}

/* Path in the map's JSON of the li-th tile layer (in document order, groups entered), into buf;
 * returns whether it was found. *seen counts tile layers passed. */
static int layer_path(const cJSON *layers, uint32_t li, uint32_t *seen, char *buf, size_t n)
{
	const cJSON *l;
	size_t at = strlen(buf), i = 0;
	cJSON_ArrayForEach(l, layers)
	{
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(l, "type");
		snprintf(buf + at, n - at, "/%zu", i++);
		if (!cJSON_IsString(type))
			continue;
		if (strcmp(type->valuestring, "group") == 0) {
			size_t end = strlen(buf);
			snprintf(buf + end, n - end, "/layers");
			if (layer_path(cJSON_GetObjectItemCaseSensitive(l, "layers"), li, seen, buf, n))
				return 1;
		} else if (strcmp(type->valuestring, "tilelayer") == 0 && (*seen)++ == li) {
			return 1;
		}
	}
	buf[at] = '\0';
	return 0;
}

/* *diag placed at cell c of tile layer li in the map's text (no position if not found). */
static void locate_cell(const char *text, size_t len, uint32_t li, size_t c,
			struct agb_diag *diag)
{
	const char *end = NULL;
	cJSON *root = agb_cjson_parse(text, len, &end);
	char path[512] = "layers";
	uint32_t seen = 0;
	if (root != NULL &&
	    layer_path(cJSON_GetObjectItemCaseSensitive(root, "layers"), li, &seen, path, sizeof path)) {
		size_t at = strlen(path);
		snprintf(path + at, sizeof path - at, "/data/%zu", c);
		agb_json_locate(text, len, path, diag);
	}
	cJSON_Delete(root);
}

struct build {
	const struct agb_tilemap *map;
	const struct agb_image *images;
	const char *const *image_paths;
	const char *name, *text;
	size_t len;
	struct agb_diag *diag;
};

/* The first cell holding key (for a message about it): its layer and index. */
static void find_cell(const struct agb_tilemap *map, uint32_t key, uint32_t *li, size_t *c)
{
	size_t cells = (size_t)map->width * map->height;
	for (*li = 0; *li < map->layer_count; (*li)++)
		for (*c = 0; *c < cells; (*c)++) {
			const struct agb_tilemap_layer *l = &map->layers[*li];
			uint32_t f = l->flip != NULL ? l->flip[*c] : 0u;
			if (l->gid[*c] != 0 && (l->gid[*c] | f << FLIP_SHIFT) == key)
				return;
		}
	*li = 0;
	*c = 0;
}

static int cell_fail(const struct build *b, uint32_t key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A message about the first cell holding key, naming its layer and cell, at its LINE:COL in a
 * JSON map with the layer's data as an array (no position in a TMX or infinite map). */
static int cell_fail(const struct build *b, uint32_t key, const char *fmt, ...)
{
	uint32_t li;
	size_t c, at;
	va_list ap;
	find_cell(b->map, key, &li, &c);
	memset(b->diag, 0, sizeof *b->diag);
	snprintf(b->diag->file, sizeof b->diag->file, "%s", b->name);
	if (!b->map->infinite)
		locate_cell(b->text, b->len, li, c, b->diag);
	snprintf(b->diag->message, sizeof b->diag->message, "layer \"%s\", cell (%zu, %zu): ",
		 b->map->layers[li].name, c % b->map->width, c / b->map->width);
	at = strlen(b->diag->message);
	va_start(ap, fmt);
	vsnprintf(b->diag->message + at, sizeof b->diag->message - at, fmt, ap);
	va_end(ap);
	return AGB_LOAD_BAD_INPUT;
}

/* The columns and rows of tiles of S in IMG as Tiled computes them (Tileset::columnCountForWidth:
 * (width - margin + spacing) / (tile width + spacing), the same down), checked against what the
 * tileset says: a saved "columns" that differs (Tiled only writes it; it cuts by the image)
 * would make every tile past the first row the wrong one, and a tilecount beyond the grid has
 * tiles outside the image. Tiled 1.0 saved no columns: they come from the image. Returns
 * AGB_LOAD_OK, else the failure in b->diag. */
static int tileset_grid(const struct build *b, long t, uint32_t *cols)
{
	const struct agb_tileset *s = &b->map->tilesets[t];
	const struct agb_image *img = &b->images[t];
	uint64_t step = (uint64_t)s->tile_w + s->spacing, c = 0, r = 0;
	if (img->width + (uint64_t)s->spacing >= s->margin)
		c = (img->width - (uint64_t)s->margin + s->spacing) / step;
	if (img->height + (uint64_t)s->spacing >= s->margin)
		r = (img->height - (uint64_t)s->margin + s->spacing) / step;
	/* A last column the margin leaves no room for on the far side is still cut by Tiled. */
	if (c == 0 || r == 0)
		return diag_set(b->diag, b->image_paths[t],
				"image is %ux%u px: no %ux%u px tile of tileset \"%s\" fits in it with "
				"margin %u and spacing %u",
				img->width, img->height, s->tile_w, s->tile_h, s->name, s->margin,
				s->spacing);
	if (s->columns != 0 && s->columns != c)
		return diag_set(b->diag, b->name,
				"tileset \"%s\" says %u columns, but its image (%u px wide, margin %u, "
				"spacing %u, %u px tiles) has %u",
				s->name, s->columns, img->width, s->margin, s->spacing, s->tile_w,
				(unsigned)c);
	if (s->tilecount != 0 && s->tilecount > c * r)
		return diag_set(b->diag, b->name,
				"tileset \"%s\" says %u tiles, but its image holds %u (%u columns, %u "
				"rows)",
				s->name, s->tilecount, (unsigned)(c * r), (unsigned)c, (unsigned)r);
	*cols = (uint32_t)c;
	return AGB_LOAD_OK;
}

/* Where the cell of key's gid starts in its tileset's image (checked against the map and the
 * image), its rows *stride pixels apart; NULL with *rc the failure when it cannot be cut. */
static const uint32_t *cell_origin(const struct build *b, uint32_t key, size_t *stride, int *rc)
{
	uint32_t gid = key & 0x1FFFFFFFu, local, ox, oy, w = b->map->cell_px, cols = 0;
	long t = tileset_of(b->map, gid);
	const struct agb_tileset *s;
	const struct agb_image *img;
	*rc = AGB_LOAD_BAD_INPUT;
	if (t < 0) {
		cell_fail(b, key, "tile id %u is in no tileset of the map", gid);
		return NULL;
	}
	s = &b->map->tilesets[t];
	img = &b->images[t];
	local = gid - s->firstgid;
	if (img->px == NULL)
		cell_fail(b, key, "tile id %u is in tileset \"%s\", whose image is not read", gid,
			  s->name);
	else if (s->tile_w != w || s->tile_h != w)
		cell_fail(b, key,
			  "tile id %u is in tileset \"%s\" of %ux%u px tiles; the map's cells are %u px",
			  gid, s->name, s->tile_w, s->tile_h, w);
	else if (s->tilecount != 0 && local >= s->tilecount)
		cell_fail(b, key, "tile id %u is beyond tileset \"%s\" (%u tiles from %u)", gid,
			  s->name, s->tilecount, s->firstgid);
	else
		*rc = tileset_grid(b, t, &cols);
	if (*rc != AGB_LOAD_OK)
		return NULL;
	ox = s->margin + (local % cols) * (w + s->spacing);
	oy = s->margin + (local / cols) * (w + s->spacing);
	if ((uint64_t)ox + w > img->width || (uint64_t)oy + w > img->height) {
		*rc = diag_set(b->diag, b->image_paths[t],
			       "image is %ux%u px: tile %u of tileset \"%s\" (tile id %u) lies outside it",
			       img->width, img->height, local, s->name, gid);
		return NULL;
	}
	*stride = img->width;
	return img->px + (size_t)oy * img->width + ox;
}

static int build_ids(const struct build *b, struct agb_tile_ids *ids)
{
	const uint32_t kk = ids->k * ids->k;
	size_t cap = ids->count * kk;
	uint32_t piece[PIECE_PX];
	int fail = 0;

	for (ids->slots = 16u; ids->slots < 2u * cap; ids->slots *= 2u)
		;
	ids->id = malloc((cap != 0 ? cap : 1u) * sizeof *ids->id);
	ids->content = malloc((cap != 0 ? cap : 1u) * PIECE_PX * sizeof *ids->content);
	ids->slot = calloc(ids->slots, sizeof *ids->slot);
	if (ids->id == NULL || ids->content == NULL || ids->slot == NULL)
		return oom(b->diag, b->name);
	for (size_t i = 0; i < ids->count; i++) {
		size_t stride = 0;
		int rc;
		const uint32_t *src = cell_origin(b, ids->key[i], &stride, &rc);
		if (src == NULL)
			return rc;
		for (uint32_t j = 0; j < kk; j++) {
			cut_piece(src, stride, b->map->cell_px, ids->key[i] >> FLIP_SHIFT, j % ids->k,
				  j / ids->k, piece);
			ids->id[i * kk + j] = intern(ids, piece, cap, &fail);
		}
		if (fail)
			return oom(b->diag, b->name);
	}
	return AGB_LOAD_OK;
}

int agb_tile_ids_build(const struct agb_tilemap *map, const struct agb_image *images,
		       const char *const *image_paths, const char *name, const char *text,
		       size_t len, struct agb_tile_ids **out, struct agb_diag *diag)
{
	const struct build b = {map, images, image_paths, name, text, len, diag};
	struct agb_tile_ids *ids = calloc(1, sizeof *ids);
	int rc;

	*out = NULL;
	memset(diag, 0, sizeof *diag);
	if (ids == NULL)
		return oom(diag, name);
	ids->k = map->cell_px / 8u;
	if (collect_keys(map, ids) != 0) {
		agb_tile_ids_free(ids);
		return oom(diag, name);
	}
	rc = build_ids(&b, ids);
	if (rc != AGB_LOAD_OK) {
		agb_tile_ids_free(ids);
		return rc;
	}
	/* Only the lookup is needed from here on. */
	free(ids->content);
	free(ids->slot);
	ids->content = ids->slot = NULL;
	*out = ids;
	return AGB_LOAD_OK;
}

/* ---- the whole step ------------------------------------------------------------------------- */

/* The directory part of path, with its separator ("" for none), appended to buf at *at. */
static void append_dir(char *buf, size_t n, size_t *at, const char *path)
{
	const char *slash = agb_path_last_sep(path);
	size_t k = slash != NULL ? (size_t)(slash - path) + 1u : 0u;
	if (agb_path_is_absolute(path))
		*at = 0; /* an absolute path replaces what came before */
	if (*at < n)
		*at += (size_t)snprintf(buf + *at, n - *at, "%.*s", (int)k, path);
}

/* Where the image of tileset t is: relative to the file that names it (the map, or the external
 * tileset file, itself relative to the map), or (images_dir) its file name in images_dir.
 * Returns 0, or -1 when the path does not fit. */
static int image_path(const char *map_path, const struct agb_tileset *t, const char *images_dir,
		      char *buf, size_t n)
{
	const char *slash = agb_path_last_sep(t->image);
	size_t at = 0;
	int w;
	buf[0] = '\0';
	if (images_dir != NULL) {
		w = snprintf(buf, n, "%s/%s", images_dir, slash != NULL ? slash + 1 : t->image);
		return w >= 0 && (size_t)w < n ? 0 : -1;
	}
	append_dir(buf, n, &at, map_path);
	if (t->source != NULL)
		append_dir(buf, n, &at, t->source);
	if (agb_path_is_absolute(t->image))
		at = 0;
	if (at >= n)
		return -1;
	w = snprintf(buf + at, n - at, "%s", t->image);
	return w >= 0 && (size_t)w < n - at ? 0 : -1;
}

/* Whether some cell of the map uses tileset i. */
static int tileset_used(const struct agb_tilemap *map, uint32_t i)
{
	size_t cells = (size_t)map->width * map->height;
	for (uint32_t li = 0; li < map->layer_count; li++)
		for (size_t c = 0; c < cells; c++) {
			uint32_t g = map->layers[li].gid[c];
			if (g != 0 && tileset_of(map, g) == (long)i)
				return 1;
		}
	return 0;
}

struct prep {
	uint32_t count;
	struct agb_image *images;
	char **paths;
	unsigned char *shared; /* images[i] is an earlier tileset's (the same file): not freed */
};

static void prep_release(struct prep *p)
{
	for (uint32_t i = 0; i < p->count && p->images != NULL && p->paths != NULL; i++) {
		if (p->shared == NULL || !p->shared[i])
			agb_image_release(&p->images[i]);
		free(p->paths[i]);
	}
	free(p->shared);
	free(p->images);
	free(p->paths);
}

/* Finds the image of tileset i: its path into p->paths[i], or why it is not at hand into why (in
 * mode ON an error, naming the missing file or the map). Returns AGB_LOAD_OK or a failure. */
static int find_image(struct prep *p, const struct agb_tilemap *map, uint32_t i,
		      const char *map_path, enum agb_dedup_mode mode, const char *images_dir,
		      char *why, size_t why_len, struct agb_diag *diag)
{
	const struct agb_tileset *s = &map->tilesets[i];
	char path[1024];
	struct stat st;
	if (s->tile_w == 0)
		snprintf(why, why_len, "tileset %s could not be read",
			 s->source != NULL ? s->source : s->name);
	else if (s->image == NULL)
		snprintf(why, why_len, "tileset \"%s\" has no single image", s->name);
	else if (s->tile_w != map->cell_px || s->tile_h != map->cell_px)
		snprintf(why, why_len, "tileset \"%s\" has %ux%u px tiles, the map %u px cells",
			 s->name, s->tile_w, s->tile_h, map->cell_px);
	else if (image_path(map_path, s, images_dir, path, sizeof path) != 0)
		snprintf(why, why_len, "tileset \"%s\": image path too long", s->name);
	if (why[0] != '\0')
		return mode == AGB_DEDUP_ON
			       ? diag_set(diag, map_path, "cannot deduplicate tiles: %s", why)
			       : AGB_LOAD_OK;
	if (stat(path, &st) != 0) {
		int e = errno;
		snprintf(why, why_len, "%s: %s", path, strerror(e));
		return mode == AGB_DEDUP_ON
			       ? diag_set(diag, path, "cannot open the image of tileset \"%s\": %s",
					  s->name, strerror(e))
			       : AGB_LOAD_OK;
	}
	p->paths[i] = agb_tiled_strdup(path);
	return p->paths[i] != NULL ? AGB_LOAD_OK : oom(diag, map_path);
}

/* A PNG reader's message about tileset i's image, moved to the map: FILE is the map, at the
 * tileset's "image" member (LINE:COL in a JSON map; a TMX map is named without a position), and
 * the message names the tileset and the image. */
static void at_tileset_image(const struct agb_tilemap *map, uint32_t i, const char *map_path,
                             const char *text, size_t len, const char *image,
                             struct agb_diag *diag)
{
	char was[sizeof diag->message], where[32];
	snprintf(was, sizeof was, "%s", diag->message);
	memset(diag, 0, sizeof *diag);
	snprintf(diag->file, sizeof diag->file, "%s", map_path);
	size_t first = 0;
	while (text != NULL && first < len && strchr(" \t\r\n", text[first]) != NULL)
		first++;
	if (text != NULL && first < len && text[first] == '{') {
		snprintf(where, sizeof where, "tilesets/%u/image", (unsigned)i);
		agb_json_locate(text, len, where, diag);
	}
	/* Long names are cut, not the reason (the return value read: a cut is meant). */
	int w = snprintf(diag->message, sizeof diag->message, "tileset \"%.40s\", image %.120s: %s",
	                 map->tilesets[i].name != NULL ? map->tilesets[i].name : "", image, was);
	if (w < 0)
		snprintf(diag->message, sizeof diag->message, "%s", was);
}

int agb_tile_dedup_prepare(const struct agb_tilemap *map, const char *map_path, const char *text,
			   size_t len, enum agb_dedup_mode mode, const char *images_dir,
			   struct agb_tile_ids **out, char *why, size_t why_len,
			   struct agb_diag *diag)
{
	struct prep p = {map->tileset_count, NULL, NULL, NULL};
	uint64_t budget = MAX_MAP_IMAGE_PIXELS;
	int rc = AGB_LOAD_OK;

	*out = NULL;
	why[0] = '\0';
	memset(diag, 0, sizeof *diag);
	if (mode == AGB_DEDUP_OFF) {
		snprintf(why, why_len, "--no-dedup");
		return AGB_LOAD_OK;
	}
	if (map->tileset_count == 0) {
		snprintf(why, why_len, "the map has no tilesets");
		return mode == AGB_DEDUP_ON
			       ? diag_set(diag, map_path, "cannot deduplicate tiles: %s", why)
			       : AGB_LOAD_OK;
	}
	p.images = calloc(p.count, sizeof *p.images);
	p.paths = calloc(p.count, sizeof *p.paths);
	p.shared = calloc(p.count, 1);
	if (p.images == NULL || p.paths == NULL || p.shared == NULL) {
		prep_release(&p);
		return oom(diag, map_path);
	}
	for (uint32_t i = 0; i < p.count && rc == AGB_LOAD_OK && why[0] == '\0'; i++) {
		if (!tileset_used(map, i))
			continue;
		rc = find_image(&p, map, i, map_path, mode, images_dir, why, why_len, diag);
		if (rc != AGB_LOAD_OK || why[0] != '\0')
			break;
		/* Each file is decoded once, however many tilesets name it. */
		for (uint32_t j = 0; j < i && !p.shared[i]; j++)
			if (p.paths[j] != NULL && p.images[j].px != NULL &&
			    strcmp(p.paths[j], p.paths[i]) == 0) {
				p.images[i] = p.images[j];
				p.shared[i] = 1;
			}
		if (p.shared[i])
			continue;
		rc = agb_png_read_max(p.paths[i], budget, &p.images[i], diag);
		if (rc == AGB_LOAD_OK)
			budget -= (uint64_t)p.images[i].width * p.images[i].height;
		else
			at_tileset_image(map, i, map_path, text, len, p.paths[i], diag);
	}
	if (rc == AGB_LOAD_OK && why[0] == '\0')
		rc = agb_tile_ids_build(map, p.images, (const char *const *)p.paths, map_path, text,
					len, out, diag);
	prep_release(&p);
	return rc;
}
