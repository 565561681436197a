/* TMX maps (Tiled's XML) into a tile map, with libxml2; see agb_tilemap_parse_tmx in tiled.h.
 *
 * What is read: <map> (orientation, width, height, tilewidth, tileheight, infinite), <tileset>
 * (inline, or external through `source`: a .tsx file read the same way, or a .tsj/.json one),
 * <layer> with <data> as CSV, base64 (optionally zlib, gzip or zstd), <tile gid="..."/>
 * elements, or <chunk>s for an infinite map, and <group>s of layers. Object and image layers are
 * skipped. The document is parsed without network access or entity expansion. */
#include "trace/tiled.h"
#include "trace/json_util.h"
#include "trace/tiled_build.h"
#include "trace/tiled_data.h"

#include <cjson/cJSON.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tmx {
	const char *name, *text;
	size_t len;
	struct agb_diag *diag;
	struct agb_tiled_build *b;
	struct agb_tilemap *map;
};

static int fail_line(struct tmx *x, long line, long col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_line(struct tmx *x, long line, long col, const char *fmt, ...)
{
	va_list ap;
	snprintf(x->diag->file, sizeof x->diag->file, "%s", x->name);
	x->diag->line = line > 0 ? (unsigned)line : 1u;
	x->diag->col = col > 0 ? (unsigned)col : 1u;
	va_start(ap, fmt);
	vsnprintf(x->diag->message, sizeof x->diag->message, fmt, ap);
	va_end(ap);
	return AGB_LOAD_BAD_INPUT;
}

/* The column of ` attr=` on the element's line (libxml2 keeps lines, not columns); else the
 * first non-blank byte of the line. */
static long column_of(const struct tmx *x, long line, const char *attr)
{
	size_t i = 0;
	for (long l = 1; l < line && i < x->len; i++)
		if (x->text[i] == '\n')
			l++;
	size_t start = i, end = i;
	while (end < x->len && x->text[end] != '\n')
		end++;
	if (attr != NULL) {
		size_t n = strlen(attr);
		for (size_t j = start; j + n + 1u < end; j++)
			if ((x->text[j] == ' ' || x->text[j] == '\t') && memcmp(x->text + j + 1, attr, n) == 0 &&
			    x->text[j + 1 + n] == '=')
				return (long)(j + 1 - start) + 1;
	}
	while (start < end && (x->text[start] == ' ' || x->text[start] == '\t'))
		start++;
	return (long)(start - i) + 1;
}

/* Fails at element `n` (at its attribute `attr` when given). */
static int fail_node(struct tmx *x, xmlNodePtr n, const char *attr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_node(struct tmx *x, xmlNodePtr n, const char *attr, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	long line = xmlGetLineNo(n);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return fail_line(x, line, column_of(x, line, attr), "%s", msg);
}

static int is(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Attribute `key` as a string (malloc'd by libxml2: xmlFree it), or NULL. */
static char *attr(xmlNodePtr n, const char *key)
{
	return (char *)xmlGetProp(n, (const xmlChar *)key);
}

/* Integer attribute in [lo, hi]: 0 with *out set, 1 absent (when !required), else fails. */
static int int_attr(struct tmx *x, xmlNodePtr n, const char *key, long lo, long hi, long *out,
		    int required)
{
	char *v = attr(n, key), *end = NULL;
	if (v == NULL)
		return required ? fail_node(x, n, NULL, "<%s> has no %s", (const char *)n->name, key) : 1;
	long d = strtol(v, &end, 10);
	int bad = end == v || *end != '\0' || d < lo || d > hi;
	xmlFree(v);
	if (bad)
		return fail_node(x, n, key, "%s must be an integer in %ld..%ld", key, lo, hi);
	*out = d;
	return 0;
}

static uint32_t u32_attr(xmlNodePtr n, const char *key)
{
	char *v = attr(n, key);
	unsigned long d = v != NULL ? strtoul(v, NULL, 10) : 0;
	xmlFree(v);
	return d <= UINT32_MAX ? (uint32_t)d : 0u;
}

/* A <tileset> element's fields (inline, or a .tsx file's root). */
static int tileset_fields(struct agb_tiled_build *b, xmlNodePtr n, struct agb_tileset *t)
{
	char *name = attr(n, "name"), *image = NULL;
	for (xmlNodePtr c = n->children; c != NULL; c = c->next)
		if (is(c, "image") && image == NULL)
			image = attr(c, "source");
	t->tile_w = u32_attr(n, "tilewidth");
	t->tile_h = u32_attr(n, "tileheight");
	t->columns = u32_attr(n, "columns");
	t->margin = u32_attr(n, "margin");
	t->spacing = u32_attr(n, "spacing");
	t->tilecount = u32_attr(n, "tilecount");
	t->name = name;
	t->image = image;
	int rc = agb_tiled_build_tileset(b, t);
	xmlFree(name);
	xmlFree(image);
	return rc;
}

static xmlDocPtr read_xml(const char *text, size_t len, const char *name)
{
	if (len > INT_MAX)
		return NULL;
	return xmlReadMemory(text, (int)len, name, NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

int agb_tiled_build_tileset_tsx(struct agb_tiled_build *b, const char *path, struct agb_tileset *ts)
{
	char *text = NULL;
	size_t len = 0;
	xmlDocPtr doc = agb_read_regular_file(path, AGB_TILED_MAX_TILESET_FILE, &text, &len) == 0 ? read_xml(text, len, path) : NULL;
	xmlNodePtr root = doc != NULL ? xmlDocGetRootElement(doc) : NULL;
	int rc = root != NULL && is(root, "tileset") ? tileset_fields(b, root, ts)
						     : agb_tiled_build_tileset(b, ts);
	xmlFreeDoc(doc);
	free(text);
	return rc;
}

static int add_tileset(struct tmx *x, xmlNodePtr n)
{
	long firstgid = 0;
	int rc = int_attr(x, n, "firstgid", 1, 0x1FFFFFFF, &firstgid, 1);
	struct agb_tileset t = {(uint32_t)firstgid, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL};
	if (rc != 0)
		return AGB_LOAD_BAD_INPUT;
	char *source = attr(n, "source");
	if (source == NULL) {
		rc = tileset_fields(x->b, n, &t);
	} else {
		rc = agb_tiled_build_external_tileset(x->b, source, (uint32_t)firstgid);
		xmlFree(source);
	}
	return rc != 0 ? AGB_LOAD_IO_ERROR : AGB_LOAD_OK;
}

/* The gids of one <data> or <chunk> (n cells): its text as `encoding`/`compression` say, or
 * <tile gid="..."/> children (TMX's XML encoding). */
static int read_cells(struct tmx *x, xmlNodePtr holder, const char *encoding,
		      const char *compression, uint32_t *gid, uint32_t n, const char *lname)
{
	if (encoding == NULL) {
		uint32_t i = 0;
		for (xmlNodePtr c = holder->children; c != NULL; c = c->next) {
			if (!is(c, "tile"))
				continue;
			if (i == n)
				return fail_node(x, c, NULL, "layer \"%s\" has more <tile>s than cells", lname);
			gid[i++] = u32_attr(c, "gid");
		}
		if (i != n)
			return fail_node(x, holder, NULL, "layer \"%s\" has %u <tile>s, the layer needs %u",
					 lname, i, n);
		return AGB_LOAD_OK;
	}
	xmlChar *content = xmlNodeGetContent(holder);
	char why[160];
	size_t at = 0;
	int rc = agb_tiled_decode_data(content != NULL ? (const char *)content : "",
				       content != NULL ? strlen((const char *)content) : 0u, encoding,
				       compression, gid, n, why, sizeof why, &at);
	xmlFree(content);
	if (rc != 0)
		return fail_node(x, holder, NULL, "layer \"%s\": %s", lname, why);
	return AGB_LOAD_OK;
}

/* An infinite map's <data>: each <chunk> at its position. */
static int read_chunks(struct tmx *x, xmlNodePtr data, const char *enc, const char *comp,
		       const char *lname)
{
	for (xmlNodePtr c = data->children; c != NULL; c = c->next) {
		long cx, cy, cw, ch;
		uint32_t *gid;
		if (!is(c, "chunk"))
			continue;
		if (int_attr(x, c, "x", -10000000, 10000000, &cx, 1) != 0 ||
		    int_attr(x, c, "y", -10000000, 10000000, &cy, 1) != 0 ||
		    int_attr(x, c, "width", 1, 65536, &cw, 1) != 0 ||
		    int_attr(x, c, "height", 1, 65536, &ch, 1) != 0)
			return AGB_LOAD_BAD_INPUT;
		if ((uint64_t)cw * (uint64_t)ch > 0x1000000u)
			return fail_node(x, c, NULL, "chunk too large (%ldx%ld cells)", cw, ch);
		const char *cap = agb_tiled_build_room(x->b, 0, (uint64_t)cw * (uint64_t)ch);
		if (cap != NULL)
			return fail_node(x, c, NULL, "layer \"%s\": %s", lname, cap);
		if (agb_tiled_build_chunk(x->b, (int32_t)cx, (int32_t)cy, (uint32_t)cw, (uint32_t)ch,
					  &gid) != 0)
			return AGB_LOAD_IO_ERROR;
		int rc = read_cells(x, c, enc, comp, gid, (uint32_t)(cw * ch), lname);
		if (rc != AGB_LOAD_OK)
			return rc;
	}
	return AGB_LOAD_OK;
}

static int add_layer(struct tmx *x, xmlNodePtr n)
{
	xmlNodePtr data = NULL;
	char *lname = attr(n, "name");
	const char *shown = lname != NULL ? lname : "";
	const char *cap = agb_tiled_build_room(
		x->b, 1, x->map->infinite ? 0 : (uint64_t)x->map->width * x->map->height);
	if (cap != NULL) {
		int r = fail_node(x, n, NULL, "layer \"%s\": %s", shown, cap);
		xmlFree(lname);
		return r;
	}
	int rc = agb_tiled_build_layer(x->b, shown) != 0 ? AGB_LOAD_IO_ERROR : AGB_LOAD_OK;
	for (xmlNodePtr c = n->children; c != NULL && data == NULL; c = c->next)
		if (is(c, "data"))
			data = c;
	if (rc != AGB_LOAD_OK || data == NULL) {
		if (rc == AGB_LOAD_OK)
			rc = fail_node(x, n, NULL, "layer \"%s\" has no <data>", shown);
		xmlFree(lname);
		return rc;
	}
	char *enc = attr(data, "encoding"), *comp = attr(data, "compression");
	if (x->map->infinite) {
		rc = read_chunks(x, data, enc, comp, shown);
	} else {
		long lw = (long)x->map->width, lh = (long)x->map->height; /* <= 65536 */
		uint32_t *gid;
		/* int_attr: 0 read, 1 absent (the map's size), else the failure. */
		if (int_attr(x, n, "width", 1, 65536, &lw, 0) > 1 ||
		    int_attr(x, n, "height", 1, 65536, &lh, 0) > 1)
			rc = AGB_LOAD_BAD_INPUT;
		if (rc == AGB_LOAD_OK && ((uint32_t)lw != x->map->width || (uint32_t)lh != x->map->height))
			rc = fail_node(x, n, "width",
				       "layer is %ldx%ld cells, the map %ux%u (offset layers are not supported)",
				       lw, lh, x->map->width, x->map->height);
		if (rc == AGB_LOAD_OK)
			rc = agb_tiled_build_chunk(x->b, 0, 0, x->map->width, x->map->height, &gid) != 0
				     ? AGB_LOAD_IO_ERROR
				     : read_cells(x, data, enc, comp, gid, x->map->width * x->map->height,
						  shown);
	}
	xmlFree(enc);
	xmlFree(comp);
	xmlFree(lname);
	return rc;
}

/* The children of <map> or a <group>, in document order. */
static int add_children(struct tmx *x, xmlNodePtr parent)
{
	for (xmlNodePtr c = parent->children; c != NULL; c = c->next) {
		int rc = AGB_LOAD_OK;
		if (is(c, "tileset") && parent == xmlDocGetRootElement(c->doc))
			rc = add_tileset(x, c);
		else if (is(c, "layer"))
			rc = add_layer(x, c);
		else if (is(c, "group"))
			rc = add_children(x, c);
		if (rc != AGB_LOAD_OK)
			return rc;
	}
	return AGB_LOAD_OK;
}

static int map_header(struct tmx *x, xmlNodePtr root)
{
	char *orient = attr(root, "orientation"), *inf = attr(root, "infinite");
	long w = 0, h = 0, tw = 0, th = 0;
	int ortho = orient == NULL || strcmp(orient, "orthogonal") == 0;
	x->map->infinite = inf != NULL && strcmp(inf, "1") == 0;
	xmlFree(inf);
	if (!ortho) {
		int rc = fail_node(x, root, "orientation", "only orthogonal maps are supported, not %s",
				   orient);
		xmlFree(orient);
		return rc;
	}
	xmlFree(orient);
	if ((!x->map->infinite && (int_attr(x, root, "width", 1, 65536, &w, 1) != 0 ||
				   int_attr(x, root, "height", 1, 65536, &h, 1) != 0)) ||
	    int_attr(x, root, "tilewidth", 8, 256, &tw, 1) != 0 ||
	    int_attr(x, root, "tileheight", 8, 256, &th, 1) != 0)
		return AGB_LOAD_BAD_INPUT;
	if (tw != th || tw % 8 != 0)
		return fail_node(x, root, "tilewidth",
				 "cells must be square and a multiple of 8 px, not %ldx%ld", tw, th);
	if ((uint64_t)w * (uint64_t)h > 0x1000000u)
		return fail_node(x, root, "width", "map too large (%ldx%ld cells)", w, h);
	x->map->width = (uint32_t)w;
	x->map->height = (uint32_t)h;
	x->map->cell_px = (uint32_t)tw;
	return AGB_LOAD_OK;
}

static int read_doc(struct tmx *x, xmlDocPtr doc)
{
	xmlNodePtr root = xmlDocGetRootElement(doc);
	char why[160];
	if (root == NULL || !is(root, "map"))
		return fail_line(x, root != NULL ? xmlGetLineNo(root) : 1, 1,
				 "a TMX file's root element is <map>");
	int rc = map_header(x, root);
	if (rc == AGB_LOAD_OK)
		rc = add_children(x, root);
	if (rc != AGB_LOAD_OK)
		return rc;
	if (agb_tiled_build_finish(x->b, why, sizeof why) != 0)
		return strcmp(why, "out of memory") == 0 ? AGB_LOAD_IO_ERROR
							  : fail_node(x, root, NULL, "%s", why);
	return AGB_LOAD_OK;
}

int agb_tilemap_parse_tmx(const char *name, const char *text, size_t len, struct agb_tilemap *out,
			  struct agb_diag *diag)
{
	struct agb_tiled_build b;
	struct tmx x = {name, text, len, diag, &b, out};
	int rc;
	memset(out, 0, sizeof *out);
	memset(diag, 0, sizeof *diag);
	xmlResetLastError();
	xmlDocPtr doc = read_xml(text, len, name);
	if (doc == NULL) {
		const xmlError *e = xmlGetLastError();
		char msg[160] = "not well-formed XML";
		if (e != NULL && e->message != NULL) {
			snprintf(msg, sizeof msg, "malformed XML: %s", e->message);
			size_t n = strlen(msg);
			while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
				msg[--n] = '\0';
		}
		return fail_line(&x, e != NULL ? e->line : 1, e != NULL ? e->int2 : 1, "%s", msg);
	}
	if (agb_tiled_build_begin(&b, out, name) != 0) {
		rc = AGB_LOAD_IO_ERROR;
	} else {
		rc = read_doc(&x, doc);
		agb_tiled_build_abort(&b);
	}
	xmlFreeDoc(doc);
	return agb_tiled_parse_end(rc, name, diag, out);
}
