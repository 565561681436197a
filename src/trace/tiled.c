/* Level maps (Tiled JSON, CSV grids) into tile-streaming traces; see tiled.h. */
#include "trace/tiled.h"
#include "trace/json_util.h"

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
	}
	free(map->layers);
	memset(map, 0, sizeof *map);
}

/* strdup is POSIX, not C11. */
static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1u;
	char *d = malloc(n);
	if (d != NULL)
		memcpy(d, s, n);
	return d;
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

struct walk {
	const struct src *s;
	struct agb_tilemap *map;
	size_t cursor; /* text offset of the layer being read: keys are searched from here */
};

static int add_layer(struct walk *w, const cJSON *layer)
{
	const struct src *s = w->s;
	struct agb_tilemap *map = w->map;
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(layer, "data");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(layer, "name");
	size_t data_at = key_at(s, w->cursor, "data");
	uint32_t lw = map->width, lh = map->height, n = map->width * map->height, i = 0;
	struct agb_tilemap_layer *grown, *l;
	const cJSON *e;

	if (int_member(s, w->cursor, layer, "width", 1, 1e6, &lw, 0) != 0 ||
	    int_member(s, w->cursor, layer, "height", 1, 1e6, &lh, 0) != 0)
		return AGB_LOAD_BAD_INPUT;
	if (lw != map->width || lh != map->height)
		return fail_at(s, key_at(s, w->cursor, "width"),
			       "layer is %ux%u cells, the map %ux%u (offset layers are not supported)", lw,
			       lh, map->width, map->height);
	if (data == NULL)
		return fail_at(s, w->cursor, "tile layer has no \"data\" (infinite maps are not supported)");
	if (cJSON_IsString(data))
		return fail_at(s, data_at,
			       "tile layer data is encoded; save the map with the CSV layer format");
	if (!cJSON_IsArray(data))
		return fail_at(s, data_at, "\"data\" must be an array of tile ids");
	if ((uint32_t)cJSON_GetArraySize(data) != n)
		return fail_at(s, data_at, "\"data\" has %d tile ids, the map needs %u",
			       cJSON_GetArraySize(data), n);
	grown = realloc(map->layers, (map->layer_count + 1u) * sizeof *grown);
	if (grown == NULL)
		return AGB_LOAD_IO_ERROR;
	map->layers = grown;
	l = &map->layers[map->layer_count];
	l->name = dup_str(cJSON_IsString(name) ? name->valuestring : "");
	l->gid = malloc((size_t)n * sizeof *l->gid);
	if (l->name == NULL || l->gid == NULL) {
		free(l->name);
		free(l->gid);
		return AGB_LOAD_IO_ERROR;
	}
	map->layer_count++;
	cJSON_ArrayForEach(e, data)
	{
		double d = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
		if (d != floor(d) || d < 0 || d > 4294967295.0)
			return fail_at(s, element_at(s, data_at, i),
				       "tile id %u of layer \"%s\" is not an integer in 0..4294967295", i,
				       l->name);
		l->gid[i++] = (uint32_t)d & GID_MASK;
	}
	return AGB_LOAD_OK;
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
	struct walk w = {&s, out, 0};
	const char *end = NULL;
	cJSON *root;
	const cJSON *v;
	uint32_t th = 0;
	int rc;

	memset(out, 0, sizeof *out);
	memset(diag, 0, sizeof *diag);
	if (has_nul(&s, &rc))
		return rc;
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
	rc = AGB_LOAD_BAD_INPUT;
	if (!cJSON_IsObject(root)) {
		fail_at(&s, 0, "a Tiled map is a JSON object");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "infinite");
	if (cJSON_IsTrue(v)) {
		fail_at(&s, key_at(&s, 0, "infinite"), "infinite maps are not supported");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "orientation");
	if (cJSON_IsString(v) && strcmp(v->valuestring, "orthogonal") != 0) {
		fail_at(&s, key_at(&s, 0, "orientation"), "only orthogonal maps are supported, not %s",
			v->valuestring);
		goto out;
	}
	/* Layers also have "width"/"height": a bad top-level value is placed at the first such
	 * key, which in Tiled's own output may be a layer's (best effort without positions). */
	if (int_member(&s, 0, root, "width", 1, 65536, &out->width, 1) != 0 ||
	    int_member(&s, 0, root, "height", 1, 65536, &out->height, 1) != 0 ||
	    int_member(&s, 0, root, "tilewidth", 8, 256, &out->cell_px, 1) != 0 ||
	    int_member(&s, 0, root, "tileheight", 8, 256, &th, 1) != 0)
		goto out;
	if (out->cell_px != th || out->cell_px % 8u != 0) {
		fail_at(&s, key_at(&s, 0, "tilewidth"),
			"cells must be square and a multiple of 8 px, not %ux%u", out->cell_px, th);
		goto out;
	}
	if ((uint64_t)out->width * out->height > 0x1000000u) {
		fail_at(&s, key_at(&s, 0, "width"), "map too large (%ux%u cells)", out->width, out->height);
		goto out;
	}
	w.cursor = key_at(&s, 0, "layers");
	rc = add_layers(&w, cJSON_GetObjectItemCaseSensitive(root, "layers"));
	if (rc == AGB_LOAD_OK && out->layer_count == 0)
		rc = fail_at(&s, key_at(&s, 0, "layers"), "map has no tile layers");
out:
	cJSON_Delete(root);
	if (rc != AGB_LOAD_OK) {
		if (rc == AGB_LOAD_IO_ERROR) {
			snprintf(diag->file, sizeof diag->file, "%s", name);
			snprintf(diag->message, sizeof diag->message, "out of memory");
		}
		agb_tilemap_release(out);
	}
	return rc;
}

/* ---- CSV ---------------------------------------------------------------------------------- */

int agb_tilemap_parse_csv(const char *name, const char *text, size_t len, uint32_t cell_px,
			  struct agb_tilemap *out, struct agb_diag *diag)
{
	struct src s = {name, text, len, diag};
	size_t cap = 0, count = 0, i = 0;
	uint32_t *gid = NULL, row_len = 0, rows = 0;

	memset(out, 0, sizeof *out);
	memset(diag, 0, sizeof *diag);
	int rc;
	if (has_nul(&s, &rc))
		return rc;
	if (cell_px < 8u || cell_px > 256u || cell_px % 8u != 0)
		return fail_at(&s, 0, "cell size must be a multiple of 8 px up to 256, not %u", cell_px);
	while (i < len) {
		size_t line_start = i;
		uint32_t fields = 0;
		int blank = 1;
		for (size_t j = i; j < len && text[j] != '\n'; j++)
			if (text[j] != ' ' && text[j] != '\t' && text[j] != '\r')
				blank = 0;
		if (blank) {
			while (i < len && text[i] != '\n')
				i++;
			i++;
			continue;
		}
		for (;;) {
			uint64_t v = 0;
			int digits = 0;
			while (i < len && (text[i] == ' ' || text[i] == '\t'))
				i++;
			size_t f = i;
			while (i < len && text[i] >= '0' && text[i] <= '9' && v <= 0xFFFFFFFFu) {
				v = v * 10u + (uint64_t)(text[i] - '0');
				digits++;
				i++;
			}
			while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
				i++;
			if (digits == 0) {
				/* Tiled's CSV export ends rows with a comma: an empty last field is fine. */
				if (fields > 0 && (i >= len || text[i] == '\n'))
					break;
				free(gid);
				return fail_at(&s, f, "expected a tile id (a non-negative integer)");
			}
			if (v > 0xFFFFFFFFu) {
				free(gid);
				return fail_at(&s, f, "tile id does not fit in 32 bits");
			}
			if (count == cap) {
				size_t ncap = cap != 0 ? cap * 2u : 1024u;
				uint32_t *g = realloc(gid, ncap * sizeof *g);
				if (g == NULL) {
					free(gid);
					snprintf(diag->file, sizeof diag->file, "%s", name);
					snprintf(diag->message, sizeof diag->message, "out of memory");
					return AGB_LOAD_IO_ERROR;
				}
				gid = g;
				cap = ncap;
			}
			gid[count++] = (uint32_t)v & GID_MASK;
			fields++;
			if (i < len && text[i] == ',') {
				i++;
				continue;
			}
			if (i >= len || text[i] == '\n')
				break;
			free(gid);
			return fail_at(&s, i, "expected ',' or the end of the row");
		}
		if (rows == 0)
			row_len = fields;
		else if (fields != row_len) {
			free(gid);
			return fail_at(&s, line_start, "row has %u tile ids, the first row %u", fields,
				       row_len);
		}
		rows++;
		i++;
	}
	if (rows == 0) {
		free(gid);
		return fail_at(&s, 0, "no rows");
	}
	out->layers = calloc(1, sizeof *out->layers);
	if (out->layers == NULL || (out->layers[0].name = dup_str("csv")) == NULL) {
		free(out->layers);
		out->layers = NULL;
		free(gid);
		snprintf(diag->file, sizeof diag->file, "%s", name);
		snprintf(diag->message, sizeof diag->message, "out of memory");
		return AGB_LOAD_IO_ERROR;
	}
	out->layers[0].gid = gid;
	out->layer_count = 1;
	out->width = row_len;
	out->height = rows;
	out->cell_px = cell_px;
	return AGB_LOAD_OK;
}

/* ---- the camera ----------------------------------------------------------------------------- */

struct stream {
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

/* ROM tile at level tile (x, y) of a layer, 0 outside the level or in an empty cell. */
static uint32_t tile_at(const struct agb_tilemap *map, const struct agb_tilemap_layer *l,
			uint32_t k, uint32_t x, uint32_t y)
{
	uint32_t gid;
	if (x >= map->width * k || y >= map->height * k)
		return 0;
	gid = l->gid[(size_t)(y / k) * map->width + x / k];
	if (gid == 0)
		return 0;
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

int agb_tilemap_stream(const struct agb_tilemap *map, const struct agb_stream_options *opt,
		       struct agb_trace *out, struct agb_event **events, char *err, size_t err_len)
{
	const uint32_t k = map->cell_px / 8u;
	const uint32_t lw_px = map->width * k * 8u, lh_px = map->height * k * 8u;
	const uint32_t max_x = lw_px > 256u ? lw_px - 256u : 0, max_y = lh_px > 256u ? lh_px - 256u : 0;
	struct stream st = {0};
	uint32_t *bpp = NULL, frames = opt->frames, ox = 0, oy = 0;

	memset(out, 0, sizeof *out);
	*events = NULL;
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
	if ((uint64_t)(GID_MASK - 1u) * k * k + (uint64_t)k * k > 0x7FFFFFFFu) {
		/* Every gid fits for cells up to 64 px; larger cells need a check per tile. */
		for (uint32_t li = 0; li < map->layer_count; li++)
			for (size_t c = 0; c < (size_t)map->width * map->height; c++)
				if ((uint64_t)map->layers[li].gid[c] * k * k > 0x7FFFFFFFu) {
					snprintf(err, err_len, "tile id %u of layer \"%s\" gives ROM tile numbers beyond 2^31-1",
						 map->layers[li].gid[c], map->layers[li].name);
					return -1;
				}
	}
	bpp = malloc((map->layer_count + 1u) * sizeof *bpp); /* +1: never malloc(0) */
	if (bpp == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	for (uint32_t li = 0; li < map->layer_count; li++)
		bpp[li] = opt->bpp;
	for (size_t j = 0; j < opt->layer_bpp_count; j++) {
		int found = 0;
		if (opt->layer_bpp[j].bpp != 4u && opt->layer_bpp[j].bpp != 8u) {
			snprintf(err, err_len, "layer \"%s\": bpp must be 4 or 8, not %u",
				 opt->layer_bpp[j].name, opt->layer_bpp[j].bpp);
			free(bpp);
			return -1;
		}
		for (uint32_t li = 0; li < map->layer_count; li++)
			if (strcmp(map->layers[li].name, opt->layer_bpp[j].name) == 0) {
				bpp[li] = opt->layer_bpp[j].bpp;
				found = 1;
			}
		if (!found) {
			snprintf(err, err_len, "the map has no tile layer \"%s\"", opt->layer_bpp[j].name);
			free(bpp);
			return -1;
		}
	}
	if (frames == 0) {
		switch (opt->path) {
		case AGB_PATH_DOWN:
			frames = ceil_div(max_y, opt->speed);
			break;
		case AGB_PATH_PINGPONG:
			frames = 2u * ceil_div(max_x, opt->speed);
			break;
		case AGB_PATH_DIAGONAL:
			frames = 2u * ceil_div(max_x > max_y ? max_x : max_y, opt->speed);
			break;
		default:
			frames = ceil_div(max_x, opt->speed);
			break;
		}
	}

	for (uint32_t f = 0; f <= frames && !st.oom; f++) {
		uint64_t d = (uint64_t)f * opt->speed;
		uint32_t x = 0, y = max_y;
		switch (opt->path) {
		case AGB_PATH_RIGHT:
			x = min_u32(d, max_x);
			break;
		case AGB_PATH_LEFT:
			x = max_x - min_u32(d, max_x);
			break;
		case AGB_PATH_PINGPONG:
			x = bounce(d, max_x);
			break;
		case AGB_PATH_DOWN:
			y = min_u32(d, max_y);
			break;
		case AGB_PATH_DIAGONAL:
			x = bounce(d, max_x);
			y = bounce(d, max_y);
			break;
		}
		x /= 8u;
		y /= 8u;
		for (uint32_t li = 0; li < map->layer_count; li++) {
			const struct agb_tilemap_layer *l = &map->layers[li];
			for (uint32_t sy = 0; sy < SCREEN_TILES; sy++)
				for (uint32_t sx = 0; sx < SCREEN_TILES; sx++) {
					uint32_t nx = held(sx, x), ny = held(sy, y);
					uint32_t now = tile_at(map, l, k, nx, ny), was;
					if (f == 0) {
						if (now != 0)
							emit(&st, AGB_OP_REF, now, bpp[li]);
						continue;
					}
					if (nx == held(sx, ox) && ny == held(sy, oy))
						continue;
					was = tile_at(map, l, k, held(sx, ox), held(sy, oy));
					/* New first, then old: a tile that stays on screen is never released
					 * and uploaded again in between. */
					if (now != 0)
						emit(&st, AGB_OP_REF, now, bpp[li]);
					if (was != 0)
						emit(&st, AGB_OP_UNREF, was, bpp[li]);
				}
		}
		emit(&st, AGB_OP_FRAME, 0, 0);
		ox = x;
		oy = y;
	}
	/* Level exit: every screen map cleared. */
	for (uint32_t li = 0; li < map->layer_count; li++)
		for (uint32_t sy = 0; sy < SCREEN_TILES; sy++)
			for (uint32_t sx = 0; sx < SCREEN_TILES; sx++) {
				uint32_t was = tile_at(map, &map->layers[li], k, held(sx, ox), held(sy, oy));
				if (was != 0)
					emit(&st, AGB_OP_UNREF, was, bpp[li]);
			}
	free(bpp);
	if (st.oom) {
		free(st.ev);
		snprintf(err, err_len, st.too_many ? "more than %u events: ask for fewer --frames"
						   : "out of memory", UINT32_MAX - 2u);
		return -1;
	}
	out->arena = AGB_ARENA_BG_VRAM;
	out->arena_bytes = VRAM_BG_SIZE;
	out->event_count = (uint32_t)st.count;
	out->slots = 0;
	out->frame_count = frames + 1u;
	out->events = st.ev;
	out->name = opt->name;
	out->source = opt->source;
	*events = st.ev;
	return 0;
}
