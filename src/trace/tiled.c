/* Level maps (Tiled JSON, CSV grids) into tile-streaming traces; see tiled.h. */
#include "trace/tiled.h"
#include "trace/json_util.h"
#include "trace/tiled_build.h"
#include "trace/tiled_data.h"
#include "trace/tile_dedup.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GID_MASK 0x1FFFFFFFu /* Tiled keeps flip flags in the top three bits */
#define SCREEN_TILES 32u     /* a 256x256 px screen map */

void agb_stream_options_init(struct agb_stream_options *o)
{
	memset(o, 0, sizeof *o);
	o->path = AGB_PATH_RIGHT;
	o->speed = 8;
	o->bpp = 4;
}

int agb_camera_path_parse(const char *s, enum agb_camera_path *out)
{
	static const char *const names[] = {"right", "left", "pingpong", "down", "diagonal"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum agb_camera_path)i;
			return 0;
		}
	return -1;
}

void agb_tilemap_release(struct agb_tilemap *map)
{
	for (uint32_t i = 0; i < map->layer_count; i++) {
		free(map->layers[i].name);
		free(map->layers[i].gid);
		free(map->layers[i].flip);
	}
	for (uint32_t i = 0; i < map->tileset_count; i++) {
		free(map->tilesets[i].name);
		free(map->tilesets[i].source);
		free(map->tilesets[i].image);
	}
	free(map->layers);
	free(map->tilesets);
	memset(map, 0, sizeof *map);
}

/* ---- diagnostics ---------------------------------------------------------------------- */

struct src {
	const char *name;
	const char *text;
	size_t len;
	struct agb_diag *diag;
};

static int fail_at(const struct src *s, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records "line:col: message" for byte offset `off` (1-based line and byte column). */
static int fail_at(const struct src *s, size_t off, const char *fmt, ...)
{
	va_list ap;
	unsigned line = 1, col = 1;
	for (size_t i = 0; i < off && i < s->len; i++) {
		if (s->text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(s->diag->file, sizeof s->diag->file, "%s", s->name);
	s->diag->line = line;
	s->diag->col = col;
	va_start(ap, fmt);
	vsnprintf(s->diag->message, sizeof s->diag->message, fmt, ap);
	va_end(ap);
	return AGB_LOAD_BAD_INPUT;
}

/* cJSON keeps no positions, so a semantic error is placed at the key it concerns: the offset
 * of the first `"key"` at or after `from` (or `from` when there is none). */
static size_t key_at(const struct src *s, size_t from, const char *key)
{
	size_t klen = strlen(key);
	for (size_t i = from; i + klen + 2u <= s->len; i++)
		if (s->text[i] == '"' && memcmp(s->text + i + 1, key, klen) == 0 &&
		    s->text[i + 1 + klen] == '"')
			return i;
	return from;
}

/* Offset of element `n` of the array that starts at the first '[' at or after `from`:
 * counts top-level commas, skipping strings and nested brackets. */
static size_t element_at(const struct src *s, size_t from, size_t n)
{
	size_t i = from;
	int depth = 0;
	while (i < s->len && s->text[i] != '[')
		i++;
	for (i++; i < s->len; i++) {
		char c = s->text[i];
		if (n == 0 && depth == 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return i;
		if (c == '"') {
			for (i++; i < s->len && s->text[i] != '"'; i++)
				if (s->text[i] == '\\')
					i++;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			if (depth-- == 0)
				return i;
		} else if (c == ',' && depth == 0) {
			n--;
		}
	}
	return from;
}

/* ---- Tiled JSON --------------------------------------------------------------------------- */

/* An integer member in [lo, hi]; returns 0, or fails at the key. */
static int int_member(const struct src *s, size_t at, const cJSON *obj, const char *key,
		      double lo, double hi, uint32_t *out, int required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (v == NULL) {
		if (!required)
			return 0;
		return fail_at(s, at, "map has no \"%s\"", key);
	}
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
	    v->valuedouble > hi)
		return fail_at(s, key_at(s, at, key), "\"%s\" must be an integer in %.0f..%.0f", key, lo,
			       hi);
	*out = (uint32_t)v->valuedouble;
	return 0;
}

/* A signed integer member in [lo, hi] (an infinite map's chunk position). */
static int sint_member(const struct src *s, size_t at, const cJSON *obj, const char *key,
		       double lo, double hi, int32_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (v == NULL)
		return fail_at(s, at, "chunk has no \"%s\"", key);
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
	    v->valuedouble > hi)
		return fail_at(s, key_at(s, at, key), "\"%s\" must be an integer in %.0f..%.0f", key, lo,
			       hi);
	*out = (int32_t)v->valuedouble;
	return 0;
}

static const char *string_member(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

struct walk {
	const struct src *s;
	struct agb_tilemap *map;
	struct agb_tiled_build *b;
	size_t cursor; /* text offset of the layer being read: keys are searched from here */
};

/* The `data` of `holder` (a finite layer, or a chunk of an infinite one) into n gids: an array of
 * ids, or a string encoded as the layer says ("encoding", "compression"). */
static int layer_data(struct walk *w, const cJSON *layer, const cJSON *holder, size_t data_at,
		      uint32_t *gid, uint32_t n, const char *lname)
{
	const struct src *s = w->s;
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(holder, "data"), *e;
	uint32_t i = 0;
	if (data == NULL)
		return fail_at(s, data_at, "tile layer \"%s\" has no \"data\"", lname);
	if (cJSON_IsString(data)) {
		char why[160];
		size_t at;
		if (agb_tiled_decode_data(data->valuestring, strlen(data->valuestring),
					  string_member(layer, "encoding"),
					  string_member(layer, "compression"), gid, n, why, sizeof why,
					  &at) != 0)
			return fail_at(s, data_at, "tile layer \"%s\": %s", lname, why);
		return AGB_LOAD_OK;
	}
	if (!cJSON_IsArray(data))
		return fail_at(s, data_at, "\"data\" must be an array of tile ids or an encoded string");
	if ((uint32_t)cJSON_GetArraySize(data) != n)
		return fail_at(s, data_at, "\"data\" has %d tile ids, the layer needs %u",
			       cJSON_GetArraySize(data), n);
	cJSON_ArrayForEach(e, data)
	{
		double d = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
		if (d != floor(d) || d < 0 || d > 4294967295.0)
			return fail_at(s, element_at(s, data_at, i),
				       "tile id %u of layer \"%s\" is not an integer in 0..4294967295", i,
				       lname);
		gid[i++] = (uint32_t)d;
	}
	return AGB_LOAD_OK;
}

/* An infinite map's layer: every chunk at its position. */
static int add_chunks(struct walk *w, const cJSON *layer, const char *lname)
{
	const struct src *s = w->s;
	const cJSON *chunks = cJSON_GetObjectItemCaseSensitive(layer, "chunks"), *c;
	size_t at = key_at(s, w->cursor, "chunks");
	if (!cJSON_IsArray(chunks))
		return fail_at(s, w->cursor, "tile layer \"%s\" of an infinite map has no \"chunks\"",
			       lname);
	cJSON_ArrayForEach(c, chunks)
	{
		int32_t x, y;
		uint32_t cw, ch, *gid;
		at = key_at(s, at + 1u, "data");
		if (sint_member(s, at, c, "x", -1e7, 1e7, &x) != 0 ||
		    sint_member(s, at, c, "y", -1e7, 1e7, &y) != 0 ||
		    int_member(s, at, c, "width", 1, 65536, &cw, 1) != 0 ||
		    int_member(s, at, c, "height", 1, 65536, &ch, 1) != 0)
			return AGB_LOAD_BAD_INPUT;
		if ((uint64_t)cw * ch > 0x1000000u)
			return fail_at(s, at, "chunk too large (%ux%u cells)", cw, ch);
		const char *cap = agb_tiled_build_room(w->b, 0, (uint64_t)cw * ch);
		if (cap != NULL)
			return fail_at(s, at, "layer \"%s\": %s", lname, cap);
		if (agb_tiled_build_chunk(w->b, x, y, cw, ch, &gid) != 0)
			return AGB_LOAD_IO_ERROR;
		int rc = layer_data(w, layer, c, at, gid, cw * ch, lname);
		if (rc != AGB_LOAD_OK)
			return rc;
	}
	return AGB_LOAD_OK;
}

static int add_layer(struct walk *w, const cJSON *layer)
{
	const struct src *s = w->s;
	struct agb_tilemap *map = w->map;
	const char *lname = string_member(layer, "name");
	uint32_t lw = map->width, lh = map->height, *gid;

	if (lname == NULL)
		lname = "";
	const char *cap = agb_tiled_build_room(w->b, 1, map->infinite ? 0 : (uint64_t)lw * lh);
	if (cap != NULL)
		return fail_at(s, w->cursor, "layer \"%s\": %s", lname, cap);
	if (agb_tiled_build_layer(w->b, lname) != 0)
		return AGB_LOAD_IO_ERROR;
	if (map->infinite)
		return add_chunks(w, layer, lname);
	if (int_member(s, w->cursor, layer, "width", 1, 1e6, &lw, 0) != 0 ||
	    int_member(s, w->cursor, layer, "height", 1, 1e6, &lh, 0) != 0)
		return AGB_LOAD_BAD_INPUT;
	if (lw != map->width || lh != map->height)
		return fail_at(s, key_at(s, w->cursor, "width"),
			       "layer is %ux%u cells, the map %ux%u (offset layers are not supported)", lw,
			       lh, map->width, map->height);
	if (agb_tiled_build_chunk(w->b, 0, 0, map->width, map->height, &gid) != 0)
		return AGB_LOAD_IO_ERROR;
	return layer_data(w, layer, layer, key_at(s, w->cursor, "data"), gid, map->width * map->height,
			  lname);
}

/* Tile layers in document order; group layers are entered. */
static int add_layers(struct walk *w, const cJSON *layers)
{
	const cJSON *layer;
	if (!cJSON_IsArray(layers))
		return fail_at(w->s, key_at(w->s, w->cursor, "layers"), "\"layers\" must be an array");
	cJSON_ArrayForEach(layer, layers)
	{
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(layer, "type");
		int rc;
		/* Each layer object is found again in the text by its "type" key, in order. */
		w->cursor = key_at(w->s, w->cursor + 1u, "type");
		if (!cJSON_IsObject(layer) || !cJSON_IsString(type))
			return fail_at(w->s, w->cursor, "layer without a \"type\"");
		if (strcmp(type->valuestring, "group") == 0)
			rc = add_layers(w, cJSON_GetObjectItemCaseSensitive(layer, "layers"));
		else if (strcmp(type->valuestring, "tilelayer") == 0)
			rc = add_layer(w, layer);
		else
			rc = AGB_LOAD_OK; /* objects, images: nothing to stream */
		if (rc != AGB_LOAD_OK)
			return rc;
	}
	return AGB_LOAD_OK;
}

static uint32_t u32_member(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 4294967295.0
		       ? (uint32_t)v->valuedouble
		       : 0u;
}

/* A tileset's fields from a JSON object (inline, or a .tsj file's). */
static void json_tileset(const cJSON *o, struct agb_tileset *t)
{
	t->tile_w = u32_member(o, "tilewidth");
	t->tile_h = u32_member(o, "tileheight");
	t->columns = u32_member(o, "columns");
	t->margin = u32_member(o, "margin");
	t->spacing = u32_member(o, "spacing");
	t->tilecount = u32_member(o, "tilecount");
	t->name = (char *)string_member(o, "name");
	t->image = (char *)string_member(o, "image");
}

int agb_tiled_build_external_tileset(struct agb_tiled_build *b, const char *source,
				     uint32_t firstgid)
{
	struct agb_tileset t = {firstgid, 0, 0, 0, 0, 0, 0, NULL, (char *)source, NULL};
	char *path = agb_tiled_build_path(b, source);
	size_t n = strlen(source);
	int rc;
	if (path == NULL)
		return -1;
	if (n >= 4u && strcmp(source + n - 4u, ".tsx") == 0) {
		rc = agb_tiled_build_tileset_tsx(b, path, &t);
	} else {
		char *text = NULL;
		size_t len = 0;
		const char *json_end = NULL;
		cJSON *o = agb_read_regular_file(path, AGB_TILED_MAX_TILESET_FILE, &text, &len) == 0
				   ? agb_cjson_parse(text, len, &json_end)
				   : NULL;
		if (cJSON_IsObject(o)) {
			json_tileset(o, &t);
			t.source = (char *)source;
		}
		rc = agb_tiled_build_tileset(b, &t);
		cJSON_Delete(o);
		free(text);
	}
	free(path);
	return rc;
}

static int add_tilesets(struct walk *w, const cJSON *root)
{
	const cJSON *sets = cJSON_GetObjectItemCaseSensitive(root, "tilesets"), *o;
	size_t at = key_at(w->s, 0, "tilesets");
	if (sets == NULL)
		return AGB_LOAD_OK;
	if (!cJSON_IsArray(sets))
		return fail_at(w->s, at, "\"tilesets\" must be an array");
	cJSON_ArrayForEach(o, sets)
	{
		uint32_t firstgid = 0;
		at = key_at(w->s, at + 1u, "firstgid");
		if (int_member(w->s, at, o, "firstgid", 1, GID_MASK, &firstgid, 1) != 0)
			return AGB_LOAD_BAD_INPUT;
		const char *source = string_member(o, "source");
		int rc;
		if (source != NULL) {
			rc = agb_tiled_build_external_tileset(w->b, source, firstgid) != 0
				     ? AGB_LOAD_IO_ERROR
				     : AGB_LOAD_OK;
		} else {
			struct agb_tileset t = {firstgid, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL};
			json_tileset(o, &t);
			rc = agb_tiled_build_tileset(w->b, &t) != 0 ? AGB_LOAD_IO_ERROR : AGB_LOAD_OK;
		}
		if (rc != AGB_LOAD_OK)
			return rc;
	}
	return AGB_LOAD_OK;
}

/* The map's own members: orientation, size (not of an infinite map), square cells. */
static int map_header(const struct src *s, const cJSON *root, struct agb_tilemap *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "orientation");
	uint32_t th = 0;
	out->infinite = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "infinite"));
	if (cJSON_IsString(v) && strcmp(v->valuestring, "orthogonal") != 0)
		return fail_at(s, key_at(s, 0, "orientation"),
			       "only orthogonal maps are supported, not %s", v->valuestring);
	/* Layers also have "width"/"height": a bad top-level value is placed at the first such
	 * key, which in Tiled's own output may be a layer's (best effort without positions). */
	if ((!out->infinite && (int_member(s, 0, root, "width", 1, 65536, &out->width, 1) != 0 ||
				int_member(s, 0, root, "height", 1, 65536, &out->height, 1) != 0)) ||
	    int_member(s, 0, root, "tilewidth", 8, 256, &out->cell_px, 1) != 0 ||
	    int_member(s, 0, root, "tileheight", 8, 256, &th, 1) != 0)
		return AGB_LOAD_BAD_INPUT;
	if (out->cell_px != th || out->cell_px % 8u != 0)
		return fail_at(s, key_at(s, 0, "tilewidth"),
			       "cells must be square and a multiple of 8 px, not %ux%u", out->cell_px,
			       th);
	if ((uint64_t)out->width * out->height > 0x1000000u)
		return fail_at(s, key_at(s, 0, "width"), "map too large (%ux%u cells)", out->width,
			       out->height);
	return AGB_LOAD_OK;
}

/* The whole document: header, tilesets, layers, then the build's finish. */
static int read_map(struct walk *w, const cJSON *root)
{
	char why[160];
	int rc = map_header(w->s, root, w->map);
	if (rc == AGB_LOAD_OK)
		rc = add_tilesets(w, root);
	if (rc != AGB_LOAD_OK)
		return rc;
	w->cursor = key_at(w->s, 0, "layers");
	rc = add_layers(w, cJSON_GetObjectItemCaseSensitive(root, "layers"));
	if (rc != AGB_LOAD_OK)
		return rc;
	if (agb_tiled_build_finish(w->b, why, sizeof why) != 0)
		return strcmp(why, "out of memory") == 0 ? AGB_LOAD_IO_ERROR
							  : fail_at(w->s, key_at(w->s, 0, "layers"), "%s", why);
	return AGB_LOAD_OK;
}

/* A NUL byte anywhere is an error at its position (cJSON would skip it as whitespace, and
 * agb_read_input stops reading after it: /dev/zero is 1:1, not a position past the read). */
static int has_nul(const struct src *s, int *rc)
{
	const char *nul = memchr(s->text, '\0', s->len);
	if (nul == NULL)
		return 0;
	*rc = fail_at(s, (size_t)(nul - s->text), "NUL byte in input (not a text file?)");
	return 1;
}

int agb_tilemap_parse_tiled(const char *name, const char *text, size_t len, struct agb_tilemap *out,
			    struct agb_diag *diag)
{
	struct src s = {name, text, len, diag};
	struct agb_tiled_build b;
	struct walk w = {&s, out, &b, 0};
	const char *end = NULL;
	cJSON *root;
	int rc;

	memset(out, 0, sizeof *out);
	memset(diag, 0, sizeof *diag);
	if (has_nul(&s, &rc))
		return rc;
	{
		size_t off = 0;
		char why[160];
		if (agb_json_strict(text, len, &off, why, sizeof why))
			return fail_at(&s, off, "malformed JSON: %s", why);
	}
	root = agb_cjson_parse(text, len, &end);
	if (root == NULL) {
		size_t off = end != NULL && end >= text && end <= text + len ? (size_t)(end - text) : 0;
		return fail_at(&s, off, "malformed JSON");
	}
	for (size_t i = (size_t)(end - text); i < len; i++)
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r') {
			cJSON_Delete(root);
			return fail_at(&s, i, "text after the map's JSON object");
		}
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return fail_at(&s, 0, "a Tiled map is a JSON object");
	}
	if (agb_tiled_build_begin(&b, out, name) != 0) {
		rc = AGB_LOAD_IO_ERROR;
	} else {
		rc = read_map(&w, root);
		agb_tiled_build_abort(&b); /* nothing left after a finish */
	}
	cJSON_Delete(root);
	return agb_tiled_parse_end(rc, name, diag, out);
}

/* ---- CSV ---------------------------------------------------------------------------------- */

/* The tile ids of a CSV grid as they are read, row after row. */
struct csv_grid {
	uint32_t *gid;
	size_t count, cap;
	uint32_t row_len, rows;
};

static int csv_oom(const struct src *s)
{
	snprintf(s->diag->file, sizeof s->diag->file, "%s", s->name);
	snprintf(s->diag->message, sizeof s->diag->message, "out of memory");
	return AGB_LOAD_IO_ERROR;
}

/* Whether the line at *i holds only blanks; if so, *i moves past it. */
static int csv_skip_blank_line(const struct src *s, size_t *i)
{
	for (size_t j = *i; j < s->len && s->text[j] != '\n'; j++)
		if (s->text[j] != ' ' && s->text[j] != '\t' && s->text[j] != '\r')
			return 0;
	while (*i < s->len && s->text[*i] != '\n')
		(*i)++;
	(*i)++;
	return 1;
}

/* One row from *i (left at its '\n' or the end) into g, its field count in *fields. Returns
 * AGB_LOAD_OK or the failure (diag set). */
static int csv_row(const struct src *s, size_t *i, struct csv_grid *g, uint32_t *fields)
{
	const char *text = s->text;
	size_t len = s->len;
	*fields = 0;
	for (;;) {
		size_t f;
		uint64_t v = 0;
		int digits = 0;
		while (*i < len && (text[*i] == ' ' || text[*i] == '\t'))
			(*i)++;
		f = *i;
		while (*i < len && text[*i] >= '0' && text[*i] <= '9' && v <= 0xFFFFFFFFu) {
			v = v * 10u + (uint64_t)(text[*i] - '0');
			digits++;
			(*i)++;
		}
		while (*i < len && (text[*i] == ' ' || text[*i] == '\t' || text[*i] == '\r'))
			(*i)++;
		if (digits == 0) {
			/* Tiled's CSV export ends rows with a comma: an empty last field is fine. */
			if (*fields > 0 && (*i >= len || text[*i] == '\n'))
				return AGB_LOAD_OK;
			return fail_at(s, f, "expected a tile id (a non-negative integer)");
		}
		if (v > 0xFFFFFFFFu)
			return fail_at(s, f, "tile id does not fit in 32 bits");
		if (g->count == g->cap) {
			size_t ncap = g->cap != 0 ? g->cap * 2u : 1024u;
			uint32_t *n = realloc(g->gid, ncap * sizeof *n);
			if (n == NULL)
				return csv_oom(s);
			g->gid = n;
			g->cap = ncap;
		}
		g->gid[g->count++] = (uint32_t)v & GID_MASK;
		(*fields)++;
		if (*i < len && text[*i] == ',') {
			(*i)++;
			continue;
		}
		if (*i >= len || text[*i] == '\n')
			return AGB_LOAD_OK;
		return fail_at(s, *i, "expected ',' or the end of the row");
	}
}

/* Every row of the text into g: at least one, all as long as the first. */
static int csv_rows(const struct src *s, struct csv_grid *g)
{
	size_t i = 0;
	while (i < s->len) {
		size_t line_start = i;
		uint32_t fields;
		int rc;
		if (csv_skip_blank_line(s, &i))
			continue;
		rc = csv_row(s, &i, g, &fields);
		if (rc != AGB_LOAD_OK)
			return rc;
		if (g->rows == 0)
			g->row_len = fields;
		else if (fields != g->row_len)
			return fail_at(s, line_start, "row has %u tile ids, the first row %u", fields,
				       g->row_len);
		g->rows++;
		i++;
	}
	return g->rows != 0 ? AGB_LOAD_OK : fail_at(s, 0, "no rows");
}

int agb_tilemap_parse_csv(const char *name, const char *text, size_t len, uint32_t cell_px,
			  struct agb_tilemap *out, struct agb_diag *diag)
{
	struct src s = {name, text, len, diag};
	struct csv_grid g = {0};
	int rc;

	memset(out, 0, sizeof *out);
	memset(diag, 0, sizeof *diag);
	if (has_nul(&s, &rc))
		return rc;
	if (cell_px < 8u || cell_px > 256u || cell_px % 8u != 0)
		return fail_at(&s, 0, "cell size must be a multiple of 8 px up to 256, not %u", cell_px);
	rc = csv_rows(&s, &g);
	if (rc == AGB_LOAD_OK) {
		out->layers = calloc(1, sizeof *out->layers);
		if (out->layers == NULL || (out->layers[0].name = agb_tiled_strdup("csv")) == NULL) {
			free(out->layers);
			out->layers = NULL;
			rc = csv_oom(&s);
		}
	}
	if (rc != AGB_LOAD_OK) {
		free(g.gid);
		return rc;
	}
	out->layers[0].gid = g.gid;
	out->layer_count = 1;
	out->width = g.row_len;
	out->height = g.rows;
	out->cell_px = cell_px;
	return AGB_LOAD_OK;
}

/* ---- the camera ----------------------------------------------------------------------------- */

struct stream {
	const struct agb_tile_ids *ids; /* content ids, or NULL: numbered by gid */
	struct agb_event *ev;
	size_t count, cap;
	int oom; /* out of memory, or (too_many) past UINT32_MAX - 1 events */
	int too_many;
};

static void emit(struct stream *st, enum agb_op op, uint32_t tile, uint32_t bpp)
{
	if (st->oom)
		return;
	if (st->count >= UINT32_MAX - 1u) {
		st->oom = st->too_many = 1;
		return;
	}
	if (st->count == st->cap) {
		size_t ncap = st->cap != 0 ? st->cap * 2u : 4096u;
		struct agb_event *e = realloc(st->ev, ncap * sizeof *e);
		if (e == NULL) {
			st->oom = 1;
			return;
		}
		st->ev = e;
		st->cap = ncap;
	}
	st->ev[st->count++] = (struct agb_event){.op = (uint8_t)op, .id = tile, .size = bpp};
}

/* ROM tile at level tile (x, y) of a layer, 0 outside the level or in an empty cell; with
 * content ids (ids), the canonical id of the cell's piece as drawn. */
static uint32_t tile_at(const struct agb_tile_ids *ids, const struct agb_tilemap *map,
			const struct agb_tilemap_layer *l, uint32_t k, uint32_t x, uint32_t y)
{
	uint32_t gid;
	size_t c;
	if (x >= map->width * k || y >= map->height * k)
		return 0;
	c = (size_t)(y / k) * map->width + x / k;
	gid = l->gid[c];
	if (gid == 0)
		return 0;
	if (ids != NULL)
		return agb_tile_ids_at(ids, gid, l->flip != NULL ? l->flip[c] : 0u, (y % k) * k + x % k);
	return (gid - 1u) * k * k + (y % k) * k + (x % k) + 1u;
}

/* A triangle wave 0..max..0 over a distance travelled d: the camera bouncing off the edges. */
static uint32_t bounce(uint64_t d, uint32_t max)
{
	uint64_t p;
	if (max == 0)
		return 0;
	p = d % (2u * (uint64_t)max);
	return (uint32_t)(p <= max ? p : 2u * (uint64_t)max - p);
}

static uint32_t min_u32(uint64_t a, uint32_t b)
{
	return a < b ? (uint32_t)a : b;
}

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
	return (a + b - 1u) / b;
}

/* Level tile held by screen-map slot s when the window starts at tile w (ring buffer). */
static uint32_t held(uint32_t s, uint32_t w)
{
	return w + (s + SCREEN_TILES - w % SCREEN_TILES) % SCREEN_TILES;
}

/* The largest scroll offsets of the camera over one streamed map (px). */
struct camera {
	uint32_t max_x, max_y;
};

/* The options a stream needs (speed, depth, frame limit) and ROM tile numbers that fit 31 bits.
 * Returns 0, or -1 with err set. */
static int check_stream(const struct agb_tilemap *map, const struct agb_stream_options *opt,
			uint32_t k, char *err, size_t err_len)
{
	if (opt->speed < 1u || opt->speed > 8u) {
		snprintf(err, err_len, "speed must be 1..8 px per frame, not %u", opt->speed);
		return -1;
	}
	if (opt->bpp != 4u && opt->bpp != 8u) {
		snprintf(err, err_len, "bpp must be 4 or 8, not %u", opt->bpp);
		return -1;
	}
	if (opt->frames > AGB_STREAM_MAX_FRAMES) {
		/* Also what keeps `f <= frames` below able to end and frames + 1 from wrapping. */
		snprintf(err, err_len, "frames must be at most %u, not %u", AGB_STREAM_MAX_FRAMES,
			 opt->frames);
		return -1;
	}
	if ((uint64_t)(GID_MASK - 1u) * k * k + (uint64_t)k * k <= 0x7FFFFFFFu)
		return 0; /* every gid fits for cells up to 64 px; larger cells need a check per tile */
	for (uint32_t li = 0; li < map->layer_count; li++)
		for (size_t c = 0; c < (size_t)map->width * map->height; c++)
			if ((uint64_t)map->layers[li].gid[c] * k * k > 0x7FFFFFFFu) {
				snprintf(err, err_len, "tile id %u of layer \"%s\" gives ROM tile numbers beyond 2^31-1",
					 map->layers[li].gid[c], map->layers[li].name);
				return -1;
			}
	return 0;
}

/* Each layer's depth: opt->bpp, or its entry in opt->layer_bpp. Returns a malloc'd array of
 * map->layer_count entries, or NULL with err set. */
static uint32_t *layer_depths(const struct agb_tilemap *map, const struct agb_stream_options *opt,
			      char *err, size_t err_len)
{
	uint32_t *bpp = malloc((map->layer_count + 1u) * sizeof *bpp); /* +1: never malloc(0) */
	if (bpp == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	for (uint32_t li = 0; li < map->layer_count; li++)
		bpp[li] = opt->bpp;
	for (size_t j = 0; j < opt->layer_bpp_count; j++) {
		int found = 0;
		if (opt->layer_bpp[j].bpp != 4u && opt->layer_bpp[j].bpp != 8u) {
			snprintf(err, err_len, "layer \"%s\": bpp must be 4 or 8, not %u",
				 opt->layer_bpp[j].name, opt->layer_bpp[j].bpp);
			free(bpp);
			return NULL;
		}
		for (uint32_t li = 0; li < map->layer_count; li++)
			if (strcmp(map->layers[li].name, opt->layer_bpp[j].name) == 0) {
				bpp[li] = opt->layer_bpp[j].bpp;
				found = 1;
			}
		if (!found) {
			snprintf(err, err_len, "the map has no tile layer \"%s\"", opt->layer_bpp[j].name);
			free(bpp);
			return NULL;
		}
	}
	return bpp;
}

/* The frames of one pass (one round trip for pingpong and diagonal) when none were asked. */
static uint32_t pass_frames(const struct agb_stream_options *opt, const struct camera *cam)
{
	switch (opt->path) {
	case AGB_PATH_DOWN:
		return ceil_div(cam->max_y, opt->speed);
	case AGB_PATH_PINGPONG:
		return 2u * ceil_div(cam->max_x, opt->speed);
	case AGB_PATH_DIAGONAL:
		return 2u * ceil_div(cam->max_x > cam->max_y ? cam->max_x : cam->max_y, opt->speed);
	default:
		return ceil_div(cam->max_x, opt->speed);
	}
}

/* The camera's tile position (*x, *y) at frame f. */
static void camera_at(const struct agb_stream_options *opt, const struct camera *cam, uint32_t f,
		      uint32_t *x, uint32_t *y)
{
	uint64_t d = (uint64_t)f * opt->speed;
	*x = 0;
	*y = cam->max_y;
	switch (opt->path) {
	case AGB_PATH_RIGHT:
		*x = min_u32(d, cam->max_x);
		break;
	case AGB_PATH_LEFT:
		*x = cam->max_x - min_u32(d, cam->max_x);
		break;
	case AGB_PATH_PINGPONG:
		*x = bounce(d, cam->max_x);
		break;
	case AGB_PATH_DOWN:
		*y = min_u32(d, cam->max_y);
		break;
	case AGB_PATH_DIAGONAL:
		*x = bounce(d, cam->max_x);
		*y = bounce(d, cam->max_y);
		break;
	}
	*x /= 8u;
	*y /= 8u;
}

/* One layer's screen map going from the camera at (ox, oy) to (x, y): a ref per cell that now
 * shows a tile, an unref per cell that showed one; on the first frame (first) only the refs. */
static void emit_layer_move(struct stream *st, const struct agb_tilemap *map,
			    const struct agb_tilemap_layer *l, uint32_t k, uint32_t bpp, int first,
			    uint32_t x, uint32_t y, uint32_t ox, uint32_t oy)
{
	for (uint32_t sy = 0; sy < SCREEN_TILES; sy++)
		for (uint32_t sx = 0; sx < SCREEN_TILES; sx++) {
			uint32_t nx = held(sx, x), ny = held(sy, y);
			uint32_t now = tile_at(st->ids, map, l, k, nx, ny), was;
			if (first) {
				if (now != 0)
					emit(st, AGB_OP_REF, now, bpp);
				continue;
			}
			if (nx == held(sx, ox) && ny == held(sy, oy))
				continue;
			was = tile_at(st->ids, map, l, k, held(sx, ox), held(sy, oy));
			/* New first, then old: a tile that stays on screen is never released and
			 * uploaded again in between. */
			if (now != 0)
				emit(st, AGB_OP_REF, now, bpp);
			if (was != 0)
				emit(st, AGB_OP_UNREF, was, bpp);
		}
}

/* Level exit: every screen map cleared (the camera last at ox, oy). */
static void emit_level_exit(struct stream *st, const struct agb_tilemap *map, uint32_t k,
			    const uint32_t *bpp, uint32_t ox, uint32_t oy)
{
	for (uint32_t li = 0; li < map->layer_count; li++)
		for (uint32_t sy = 0; sy < SCREEN_TILES; sy++)
			for (uint32_t sx = 0; sx < SCREEN_TILES; sx++) {
				uint32_t was = tile_at(st->ids, map, &map->layers[li], k, held(sx, ox),
						      held(sy, oy));
				if (was != 0)
					emit(st, AGB_OP_UNREF, was, bpp[li]);
			}
}

int agb_tilemap_stream(const struct agb_tilemap *map, const struct agb_stream_options *opt,
		       struct agb_trace *out, struct agb_event **events, char *err, size_t err_len)
{
	const uint32_t k = map->cell_px / 8u;
	const uint32_t lw_px = map->width * k * 8u, lh_px = map->height * k * 8u;
	const struct camera cam = {lw_px > 256u ? lw_px - 256u : 0, lh_px > 256u ? lh_px - 256u : 0};
	struct stream st = {.ids = opt->tile_ids};
	uint32_t *bpp, frames, ox = 0, oy = 0;

	memset(out, 0, sizeof *out);
	*events = NULL;
	if (check_stream(map, opt, k, err, err_len) != 0)
		return -1;
	bpp = layer_depths(map, opt, err, err_len);
	if (bpp == NULL)
		return -1;
	frames = opt->frames != 0 ? opt->frames : pass_frames(opt, &cam);
	for (uint32_t f = 0; f <= frames && !st.oom; f++) {
		uint32_t x, y;
		camera_at(opt, &cam, f, &x, &y);
		for (uint32_t li = 0; li < map->layer_count; li++)
			emit_layer_move(&st, map, &map->layers[li], k, bpp[li], f == 0, x, y, ox, oy);
		/* The first frame fills the screen maps: a loading frame, as the level exit is. */
		emit(&st, AGB_OP_FRAME, 0, f == 0 ? AGB_FRAME_LOAD : 0u);
		ox = x;
		oy = y;
	}
	emit_level_exit(&st, map, k, bpp, ox, oy);
	emit(&st, AGB_OP_FRAME, 0, AGB_FRAME_LOAD);
	free(bpp);
	if (st.oom) {
		free(st.ev);
		snprintf(err, err_len, st.too_many ? "more than %u events: ask for fewer --frames"
						   : "out of memory", UINT32_MAX - 2u);
		return -1;
	}
	out->arena = AGB_ARENA_BG_VRAM;
	out->arena_bytes = AGB_VRAM_BG_SIZE;
	out->event_count = (uint32_t)st.count;
	out->slots = 0;
	out->frame_count = frames + 2u;
	out->events = st.ev;
	out->name = opt->name;
	out->source = opt->source;
	*events = st.ev;
	return 0;
}
