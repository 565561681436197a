/* agbsim convert: recordings and maps into v1 traces. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/options.h"
#include "trace/mtrace.h"
#include "trace/tile_dedup.h"
#include "trace/tiled.h"
#include "trace/trace_load.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim convert IN -o OUT [--from mtrace|tiled|tmx|csv] [OPTIONS]\n\n"
		"Turns a recording or a level map into a v1 trace (JSON).\n\n"
		"Sources:\n"
		"  --from mtrace        a glibc mtrace log (record one with scripts/record-mtrace)\n"
		"  --from tiled         a Tiled JSON map (.tmj/.json): a bg_vram tile-streaming trace of\n"
		"                       a camera scrolling through it (each tile layer is a BG layer);\n"
		"                       layers as CSV or base64 (zlib, gzip, zstd), finite or infinite,\n"
		"                       tilesets inline or external (.tsx/.tsj)\n"
		"  --from tmx           a Tiled TMX map (.tmx, XML), the same way\n"
		"  --from csv           a CSV grid of tile ids (one layer named 'csv'), same streaming\n"
		"  (no --from: the format follows the file's extension, else its first bytes;\n"
		"   stdin ('-') is an mtrace log)\n\n"
		"Map options (tiled, tmx, csv):\n"
		"  --path=PATH          camera path: right (default), left, pingpong, down, diagonal\n"
		"  --speed=PX           camera speed, 1..8 px per frame (default 8, the seed's maximum)\n"
		"  --frames=N           camera moves (default: one pass; pingpong and diagonal: there and back)\n"
		"  --bpp=4|8            depth of every layer (default 4)\n"
		"  --layer-bpp=L:B,...  depth per layer by name, e.g. Background:8,Ground:4\n"
		"  --cell=PX            csv: cell size in px, a multiple of 8 (default 8)\n"
		"  --dedup              tiled, tmx: ROM tiles by the content of their 8x8 pixels,\n"
		"                       flips shared, cut from the tilesets' PNG images (an error if\n"
		"                       one cannot be); default when every image is found\n"
		"  --no-dedup           tiled, tmx: ROM tiles numbered by (tile id, place in the cell)\n"
		"  --tileset-images=DIR tiled, tmx: find the images by file name in DIR (implies --dedup)\n\n"
		"Options:\n"
		"  -o, --output=OUT     trace to write ('-' for stdout); written whole or not at all\n"
		"  --name=NAME          the trace's name\n"
		"  --source=TEXT        how it was recorded (the exact command)\n"
		"  --arena-bytes=N      pool size recorded in the trace (default 262144)\n"
		"  --skip=N             drop the first N recorded events (program start-up)\n"
		"  --max-live=BYTES     end the trace before live bytes would exceed BYTES\n\n"
		"Recording options (mtrace):\n"
		"  --caller-include=PAT keep only allocations whose caller matches PAT (repeatable)\n"
		"  --caller-exclude=PAT leave out allocations whose caller matches PAT (repeatable);\n"
		"                       PAT: a glob on the function, on the object's file name or on\n"
		"                       FILE:FUNCTION, or an address range 0xLO-0xHI; a block's free\n"
		"                       and reallocs follow its allocation\n"
		"  --symbols=ELF        name unnamed callers from ELF (default: the object mtrace names)\n"
		"Frame marks: AGBSIM_FRAME() / AGBSIM_LOAD_FRAME() from scripts/agbsim-frame.h in the\n"
		"recorded program become [\"frame\"] / [\"frame\", \"load\"].\n\n"
		"  -h, --help           show this help\n");
}

/* Parses "Name:8,Other:4" into a malloc'd array. Layer names may contain anything but ','; the
 * depth follows the last ':'. Returns 0 or -1. */
static int parse_layer_bpp(char *spec, struct agb_layer_bpp **out, size_t *count)
{
	size_t n = 1;
	char *save = NULL;
	for (const char *c = spec; *c != '\0'; c++)
		n += *c == ',';
	*out = calloc(n, sizeof **out);
	*count = 0;
	if (*out == NULL)
		return -1;
	for (char *item = strtok_r(spec, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(item, ':');
		uint32_t bpp;
		if (colon == NULL || colon == item || agbsim_parse_u32(colon + 1, &bpp) != 0 ||
		    (bpp != 4u && bpp != 8u))
			return -1;
		*colon = '\0';
		(*out)[*count].name = item;
		(*out)[(*count)++].bpp = bpp;
	}
	return *count == 0 ? -1 : 0;
}

enum map_format { MAP_TILED, MAP_TMX, MAP_CSV };

/* How a map's tiles get their ROM tile numbers: the content ids of tile_dedup.h, or NULL (by
 * gid, `why` says why). */
struct map_tiles {
	enum agb_dedup_mode mode;
	const char *images_dir; /* --tileset-images */
	struct agb_tile_ids *ids;
	char why[768];
	uint32_t by_gid, by_content; /* distinct tiles the trace refs either way */
};

/* Says what the map deserves before it is streamed (more layers than backgrounds, diagonal
 * flips, tilesets of another tile size or not found). Cut by content, a diagonally flipped cell
 * is not streamed unflipped: it gets a warning of its own. */
static void map_warnings(const char *path, const struct agb_tilemap *map, const struct map_tiles *mt)
{
	char w[8][200];
	struct agb_tilemap shown = *map;
	size_t n;
	if (mt->ids != NULL)
		shown.diagonal_cells = 0;
	n = agb_tilemap_warnings(&shown, &w[0][0], sizeof w[0], 8);
	for (size_t i = 0; i < n && i < 8; i++)
		fprintf(stderr, "agbsim: warning: %s: %s\n", path, w[i]);
	if (mt->ids != NULL && map->diagonal_cells != 0)
		fprintf(stderr,
			"agbsim: warning: %s: %u cells are flipped diagonally (rotated): a GBA cannot; "
			"their pieces are cut rotated, as drawn, and are tiles of their own unless they "
			"equal (flips of) others\n",
			path, map->diagonal_cells);
}

/* Distinct (ROM tile, bpp) pairs among the trace's refs: the tiles the replay uploads. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint32_t distinct_tiles(const struct agb_event *ev, uint32_t n)
{
	uint64_t *k = malloc(((size_t)n + 1u) * sizeof *k);
	uint32_t m = 0, d = 0;
	if (k == NULL)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (ev[i].op == AGB_OP_REF)
			k[m++] = (uint64_t)ev[i].size << 32 | ev[i].id;
	qsort(k, m, sizeof *k, cmp_u64);
	for (uint32_t i = 0; i < m; i++)
		d += i == 0 || k[i] != k[i - 1u];
	free(k);
	return d;
}

/* The map's tiles by content when asked and possible (ids left NULL otherwise). Returns
 * AGBSIM_EXIT_OK or the exit status of a failure, reported. */
static int map_tiles_prepare(struct map_tiles *mt, const struct agb_tilemap *map, const char *path,
			     const char *text, size_t len, enum map_format fmt)
{
	struct agb_diag diag;
	char msg[1024];
	int rc;
	if (fmt == MAP_CSV) {
		snprintf(mt->why, sizeof mt->why, "a CSV grid has no tileset");
		return AGBSIM_EXIT_OK;
	}
	rc = agb_tile_dedup_prepare(map, path, text, len, mt->mode, mt->images_dir, &mt->ids, mt->why,
				    sizeof mt->why, &diag);
	if (rc == AGB_LOAD_OK)
		return AGBSIM_EXIT_OK;
	agb_diag_format(&diag, msg, sizeof msg);
	agbsim_error("%s", msg);
	return rc == AGB_LOAD_IO_ERROR ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
}

/* Streams the map; with content ids, also by gid first to count the tiles without them.
 * Returns 0, or -1 with err set. */
static int map_stream(const struct agb_tilemap *map, const struct agb_stream_options *so,
		      struct map_tiles *mt, struct agb_trace *t, struct agb_event **events, char *err,
		      size_t err_len)
{
	struct agb_stream_options o = *so;
	o.tile_ids = NULL;
	if (agb_tilemap_stream(map, &o, t, events, err, err_len) != 0)
		return -1;
	mt->by_gid = distinct_tiles(*events, t->event_count);
	if (mt->ids == NULL)
		return 0;
	free(*events);
	o.tile_ids = mt->ids;
	if (agb_tilemap_stream(map, &o, t, events, err, err_len) != 0)
		return -1;
	mt->by_content = distinct_tiles(*events, t->event_count);
	return 0;
}

/* The trace's source: the given one (or the conversion) and how its tiles are numbered. */
static char *map_source(const char *in_path, const struct agb_stream_options *so,
			const struct map_tiles *mt)
{
	char note[160];
	const char *base = so->source != NULL ? so->source : "agbsim convert";
	size_t n;
	char *s;
	if (mt->ids != NULL)
		snprintf(note, sizeof note,
			 "tiles by 8x8 content, flips shared: %u distinct (%u by tile id)",
			 mt->by_content, mt->by_gid);
	else
		snprintf(note, sizeof note, "tiles by tile id: %u distinct", mt->by_gid);
	n = strlen(base) + strlen(in_path) + strlen(note) + 8u;
	s = malloc(n);
	if (s == NULL)
		return NULL;
	if (so->source != NULL)
		snprintf(s, n, "%s; %s", base, note);
	else
		snprintf(s, n, "%s %s; %s", base, in_path, note);
	return s;
}

/* The tiles line of the summary: both counts, or why there is one. */
static void map_tiles_summary(const struct map_tiles *mt)
{
	if (mt->ids != NULL)
		fprintf(stderr,
			"agbsim:   tiles (distinct ROM tile and bpp pairs ref'd): %u by tile id, %u by "
			"8x8 content (deduplicated, flips shared; %u distinct contents in the whole "
			"map)\n",
			mt->by_gid, mt->by_content, agb_tile_ids_distinct(mt->ids));
	else
		fprintf(stderr,
			"agbsim:   tiles (distinct ROM tile and bpp pairs ref'd): %u by tile id (not "
			"deduplicated: %s)\n",
			mt->by_gid, mt->why);
}

/* The refs of a stream and the most tiles on its screen maps at once. */
static void count_refs(const struct agb_event *ev, uint32_t n, uint32_t *refs, uint32_t *peak)
{
	uint32_t live = 0;
	*refs = *peak = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (ev[i].op == AGB_OP_REF) {
			(*refs)++;
			if (++live > *peak)
				*peak = live;
		} else if (ev[i].op == AGB_OP_UNREF) {
			live--;
		}
	}
}

/* Map (Tiled JSON or TMX, or CSV) to a streaming trace, written through a temporary file. */
static int convert_map(const char *in_path, const char *out_path, enum map_format fmt,
		       uint32_t cell_px, const struct agb_stream_options *so, struct map_tiles *mt)
{
	struct agb_tilemap map;
	struct agb_diag diag = {0};
	struct agb_trace t;
	struct agb_event *events = NULL;
	char *text = NULL, *source = NULL, err[512];
	size_t len = 0;
	uint32_t refs, peak;
	struct agbsim_output out;
	int rc, bad;

	rc = agbsim_read_input(in_path, &text, &len);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	rc = fmt == MAP_CSV   ? agb_tilemap_parse_csv(in_path, text, len, cell_px, &map, &diag)
	     : fmt == MAP_TMX ? agb_tilemap_parse_tmx(in_path, text, len, &map, &diag)
			      : agb_tilemap_parse_tiled(in_path, text, len, &map, &diag);
	if (rc != AGB_LOAD_OK) {
		char msg[1024];
		free(text);
		agb_diag_format(&diag, msg, sizeof msg);
		agbsim_error("%s", msg);
		return rc == AGB_LOAD_IO_ERROR ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
	}
	rc = map_tiles_prepare(mt, &map, in_path, text, len, fmt);
	free(text);
	if (rc != AGBSIM_EXIT_OK) {
		agb_tilemap_release(&map);
		return rc;
	}
	map_warnings(in_path, &map, mt);
	if (map_stream(&map, so, mt, &t, &events, err, sizeof err) != 0) {
		agbsim_error("%s: %s", in_path, err);
		agb_tilemap_release(&map);
		return strcmp(err, "out of memory") == 0 ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
	}
	if (fmt != MAP_CSV && (source = map_source(in_path, so, mt)) == NULL) {
		agbsim_error("out of memory");
		free(events);
		agb_tilemap_release(&map);
		return AGBSIM_EXIT_IO;
	}
	if (source != NULL)
		t.source = source;
	count_refs(events, t.event_count, &refs, &peak);
	rc = agbsim_output_open(&out, out_path);
	if (rc != AGBSIM_EXIT_OK) {
		free(events);
		free(source);
		agb_tilemap_release(&map);
		return rc;
	}
	bad = agb_trace_write_json(out.f, &t) != 0;
	if (bad)
		agbsim_error("%s: cannot write: %s", out_path, strerror(errno));
	if (agbsim_output_close(&out, !bad) != AGBSIM_EXIT_OK)
		bad = 1;
	if (!bad) {
		fprintf(stderr,
			"agbsim: %s: %ux%u cells of %u px, %u layers: %u events, %u frames, %u refs, "
			"at most %u tiles on the screen maps\n",
			out_path, map.width, map.height, map.cell_px, map.layer_count, t.event_count,
			t.frame_count, refs, peak);
		map_tiles_summary(mt);
	}
	free(events);
	free(source);
	agb_tilemap_release(&map);
	return bad ? AGBSIM_EXIT_IO : AGBSIM_EXIT_OK;
}

/* What a recording holds besides its events: frames, what the caller filter left out, the top
 * call sites (to write a filter from), and what a host recording overstates. */
static void mtrace_summary(const struct agb_mtrace_result *res, const struct agb_mtrace_options *opt)
{
	if (res->frames == 0)
		fprintf(stderr, "agbsim:   no frame marks: mark frames with AGBSIM_FRAME() "
				"(scripts/agbsim-frame.h) to see the frame budget\n");
	else
		fprintf(stderr, "agbsim:   %lu frames (%lu loading)\n", res->frames, res->load_frames);
	if (opt->caller_include_count != 0 || opt->caller_exclude_count != 0)
		fprintf(stderr,
			"agbsim:   caller filter left out %lu allocations (and %lu frees, %lu reallocs "
			"of them)\n",
			res->filtered_allocs, res->filtered_frees, res->filtered_reallocs);
	if (res->top_count != 0)
		fprintf(stderr, "agbsim:   %lu call sites; most allocations from:\n", res->call_sites);
	for (size_t i = 0; i < res->top_count; i++)
		fprintf(stderr, "agbsim:     %8lu allocs %10lu bytes  %s%s\n", res->top[i].allocs,
			res->top[i].bytes, res->top[i].name, res->top[i].kept ? "" : "  (left out)");
	fprintf(stderr,
		"agbsim:   warning: recorded on this host, where pointers and size_t are %u bytes "
		"(4 on the GBA): structs holding them, and so these sizes, are larger than the GBA "
		"build allocates\n",
		(unsigned)sizeof(void *));
}

/* Writes through a temporary file beside OUT, renamed when complete. */
static int convert_mtrace(const char *in_path, const char *out_path,
			  const struct agb_mtrace_options *opt)
{
	FILE *in = strcmp(in_path, "-") == 0 ? stdin : fopen(in_path, "r");
	struct agbsim_output out;
	char err[1024];
	struct agb_mtrace_result res;
	struct agb_mtrace_options mo;
	int rc;

	if (in == NULL) {
		agbsim_error("%s: cannot open: %s", in_path, strerror(errno));
		return AGBSIM_EXIT_IO;
	}
	if (agbsim_output_open(&out, out_path) != AGBSIM_EXIT_OK) {
		if (in != stdin)
			fclose(in);
		return AGBSIM_EXIT_IO;
	}
	mo = *opt;
	mo.max_bytes = agbsim_max_input_bytes();
	rc = agb_mtrace_convert(in, in == stdin ? "<stdin>" : in_path, out.f, &mo, &res, err,
				sizeof err);
	if (in != stdin)
		fclose(in);
	if (agbsim_output_close(&out, rc == AGB_MTRACE_OK) != AGBSIM_EXIT_OK)
		return AGBSIM_EXIT_IO;
	if (rc != AGB_MTRACE_OK) {
		agbsim_error("%s", err);
		return rc == AGB_MTRACE_EPARSE ? AGBSIM_EXIT_USAGE : AGBSIM_EXIT_IO;
	}
	fprintf(stderr,
		"agbsim: %s: %lu events (%lu alloc, %lu free, %lu realloc, %lu frame), peak live %lu "
		"bytes; skipped %lu, dropped %lu unknown frees, %lu failed%s\n",
		out_path, res.events, res.allocs, res.frees, res.reallocs, res.frames,
		res.peak_live_bytes, res.skipped, res.dropped_unknown_frees, res.dropped_failed,
		res.truncated ? "; truncated by --max-live" : "");
	mtrace_summary(&res, opt);
	return AGBSIM_EXIT_OK;
}

struct convert_args {
	const char *from, *out;
	struct agb_mtrace_options mo;
	struct agb_stream_options so;
	struct agb_layer_bpp *layer_bpp; /* owned: so.layer_bpp */
	char *layer_spec;                /* owned copy of --layer-bpp: the names point into it */
	uint32_t cell_px;
	struct map_tiles tiles; /* --dedup, --no-dedup, --tileset-images */
	int map_opts; /* a map-only option was given */
	const char **include, **exclude; /* caller patterns: argc entries each */
};

/* A caller pattern that starts like an address range ("0x" hex digits then '-') must be one,
 * "0xLO-0xHI" with LO < HI (the range is [LO, HI)): otherwise it would be taken as a glob that
 * matches no caller, and the trace would silently keep nothing. */
static int check_caller_pattern(const char *opt, const char *arg)
{
	const char *p = arg + 2, *q;
	unsigned long long lo = 0, hi = 0;
	if (strncmp(arg, "0x", 2) != 0 && strncmp(arg, "0X", 2) != 0)
		return AGBSIM_EXIT_OK;
	for (q = p; isxdigit((unsigned char)*q); q++)
		;
	if (q == p || *q != '-')
		return AGBSIM_EXIT_OK;
	int ok = q - p <= 16 && (q[1] == '0' && (q[2] == 'x' || q[2] == 'X'));
	const char *r = q + 3, *e = r;
	for (; ok && isxdigit((unsigned char)*e); e++)
		;
	ok = ok && e != r && *e == '\0' && e - r <= 16;
	if (ok) {
		lo = strtoull(p, NULL, 16);
		hi = strtoull(r, NULL, 16);
	}
	if (!ok || lo >= hi)
		return agbsim_usage_error("convert",
					  "--%s wants an address range 0xLO-0xHI with LO < HI (hex), "
					  "not '%s'",
					  opt, arg);
	return AGBSIM_EXIT_OK;
}

static int parse_count(const char *arg, uint32_t *v)
{
	if (agbsim_parse_u32(arg, v) != 0)
		return agbsim_usage_error("convert", "'%s' is not a non-negative integer", arg);
	return AGBSIM_EXIT_OK;
}

/* --speed, --frames, --bpp, --cell: the map's numbers, each in its range. */
static int map_number_option(struct convert_args *a, int opt, const char *arg)
{
	uint32_t v;
	if (parse_count(arg, &v) != AGBSIM_EXIT_OK)
		return AGBSIM_EXIT_USAGE;
	if (opt == 'S' && (v < 1u || v > 8u))
		return agbsim_usage_error("convert", "--speed wants 1..8 px per frame, not %u", v);
	if (opt == 'B' && v != 4u && v != 8u)
		return agbsim_usage_error("convert", "--bpp wants 4 or 8, not %u", v);
	if (opt == 'W' && (v < 8u || v > 256u || v % 8u != 0))
		return agbsim_usage_error("convert", "--cell wants a multiple of 8 up to 256, not %u", v);
	if (opt == 'S')
		a->so.speed = v;
	else if (opt == 'N')
		a->so.frames = v;
	else if (opt == 'B')
		a->so.bpp = v;
	else
		a->cell_px = v;
	return AGBSIM_EXIT_OK;
}

/* Options of --from tiled|csv only. */
static int map_option(struct convert_args *a, int opt, const char *arg)
{
	a->map_opts = 1;
	switch (opt) {
	case 'P':
		if (agb_camera_path_parse(arg, &a->so.path) != 0)
			return agbsim_usage_error("convert",
						  "--path wants right, left, pingpong, down or diagonal, not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case 'Y':
		free(a->layer_bpp);
		free(a->layer_spec);
		a->layer_bpp = NULL;
		a->so.layer_bpp = NULL;
		a->layer_spec = strdup(arg);
		if (a->layer_spec == NULL)
			return AGBSIM_EXIT_IO;
		if (parse_layer_bpp(a->layer_spec, &a->layer_bpp, &a->so.layer_bpp_count) != 0)
			return agbsim_usage_error("convert",
						  "--layer-bpp wants NAME:4|8[,NAME:4|8...], not '%s'", arg);
		a->so.layer_bpp = a->layer_bpp;
		return AGBSIM_EXIT_OK;
	case 'D':
		a->tiles.mode = AGB_DEDUP_ON;
		return AGBSIM_EXIT_OK;
	case 'U':
		a->tiles.mode = AGB_DEDUP_OFF;
		return AGBSIM_EXIT_OK;
	case 'T':
		a->tiles.images_dir = arg;
		a->tiles.mode = AGB_DEDUP_ON;
		return AGBSIM_EXIT_OK;
	default:
		return map_number_option(a, opt, arg);
	}
}

static int convert_option(void *ctx, int opt, const char *arg)
{
	struct convert_args *a = ctx;
	uint32_t v;
	switch (opt) {
	case 'b':
	case 'k':
	case 'L':
		if (parse_count(arg, &v) != AGBSIM_EXIT_OK)
			return AGBSIM_EXIT_USAGE;
		*(opt == 'b' ? &a->mo.arena_bytes : opt == 'k' ? &a->mo.skip_events : &a->mo.max_live) = v;
		return AGBSIM_EXIT_OK;
	case 'I':
		if (check_caller_pattern("caller-include", arg) != AGBSIM_EXIT_OK)
			return AGBSIM_EXIT_USAGE;
		a->include[a->mo.caller_include_count++] = arg;
		return AGBSIM_EXIT_OK;
	case 'X':
		if (check_caller_pattern("caller-exclude", arg) != AGBSIM_EXIT_OK)
			return AGBSIM_EXIT_USAGE;
		a->exclude[a->mo.caller_exclude_count++] = arg;
		return AGBSIM_EXIT_OK;
	case 'P':
	case 'S':
	case 'N':
	case 'B':
	case 'W':
	case 'Y':
	case 'D':
	case 'U':
	case 'T':
		return map_option(a, opt, arg);
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The source format of `path` when --from is not given: its extension (.tmx, .tmj/.json, .csv,
 * .mtrace), else its first bytes ('<' TMX, '{' Tiled JSON, "= Start" or '@' an mtrace log, a
 * digit CSV); stdin is an mtrace log. NULL when neither tells. */
static const char *infer_format(const char *path)
{
	char head[64] = {0};
	size_t n = 0, i = 0;
	FILE *f;
	if (has_suffix(path, ".tmx"))
		return "tmx";
	if (has_suffix(path, ".tmj") || has_suffix(path, ".json"))
		return "tiled";
	if (has_suffix(path, ".csv"))
		return "csv";
	if (has_suffix(path, ".mtrace"))
		return "mtrace";
	if (strcmp(path, "-") == 0)
		return "mtrace"; /* a recording piped in, as before --from was inferred */
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	n = fread(head, 1, sizeof head - 1u, f);
	fclose(f);
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i == n)
		return NULL;
	if (head[i] == '<')
		return "tmx";
	if (head[i] == '{')
		return "tiled";
	if (strncmp(head + i, "= Start", 7) == 0 || head[i] == '@')
		return "mtrace";
	return head[i] >= '0' && head[i] <= '9' ? "csv" : NULL;
}

/* The conversion the options ask for, once they agree with each other. */
static int convert(struct convert_args *a, const char *input)
{
	int rc;
	if (a->out == NULL)
		return agbsim_usage_error("convert", "no output given (-o OUT)");
	if (a->from == NULL && (a->from = infer_format(input)) == NULL)
		return agbsim_usage_error("convert",
					  "cannot tell the format of '%s' from its name or its first "
					  "bytes: give --from mtrace|tiled|tmx|csv",
					  input);
	if (strcmp(a->from, "tiled") == 0 || strcmp(a->from, "tmx") == 0 ||
	    strcmp(a->from, "csv") == 0) {
		enum map_format fmt = a->from[1] == 'm' ? MAP_TMX : a->from[0] == 'c' ? MAP_CSV : MAP_TILED;
		if (a->mo.caller_include_count || a->mo.caller_exclude_count || a->mo.symbols)
			return agbsim_usage_error("convert", "caller options need --from mtrace");
		if (a->tiles.mode == AGB_DEDUP_OFF && a->tiles.images_dir != NULL)
			return agbsim_usage_error("convert", "--tileset-images and --no-dedup disagree");
		if (a->tiles.mode == AGB_DEDUP_ON && fmt == MAP_CSV)
			return agbsim_usage_error("convert",
						  "tile deduplication needs a Tiled map (a CSV grid has "
						  "no tileset)");
		a->so.name = a->mo.name;
		a->so.source = a->mo.source;
		rc = convert_map(input, a->out, fmt, a->cell_px, &a->so, &a->tiles);
		agb_tile_ids_free(a->tiles.ids);
		a->tiles.ids = NULL;
		return rc;
	}
	if (strcmp(a->from, "mtrace") != 0)
		return agbsim_usage_error("convert",
					  "unknown source format '%s' (mtrace, tiled, tmx, csv)", a->from);
	if (a->map_opts)
		return agbsim_usage_error("convert", "map options need a map (--from tiled, tmx or csv)");
	return convert_mtrace(input, a->out, &a->mo);
}

int agbsim_cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"from", required_argument, NULL, 'F'},   {"output", required_argument, NULL, 'o'},
		{"name", required_argument, NULL, 'n'},   {"source", required_argument, NULL, 's'},
		{"arena-bytes", required_argument, NULL, 'b'}, {"skip", required_argument, NULL, 'k'},
		{"max-live", required_argument, NULL, 'L'}, {"help", no_argument, NULL, 'h'},
		{"path", required_argument, NULL, 'P'},     {"speed", required_argument, NULL, 'S'},
		{"frames", required_argument, NULL, 'N'},   {"bpp", required_argument, NULL, 'B'},
		{"layer-bpp", required_argument, NULL, 'Y'}, {"cell", required_argument, NULL, 'W'},
		{"caller-include", required_argument, NULL, 'I'},
		{"caller-exclude", required_argument, NULL, 'X'},
		{"symbols", required_argument, NULL, 'Z'},
		{"dedup", no_argument, NULL, 'D'},        {"no-dedup", no_argument, NULL, 'U'},
		{"tileset-images", required_argument, NULL, 'T'},
		{NULL, 0, NULL, 0},
	};
	struct convert_args a = {.from = NULL, .cell_px = 8};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('F', struct convert_args, from),
		AGBSIM_CLI_TEXT('o', struct convert_args, out),
		AGBSIM_CLI_TEXT('n', struct convert_args, mo.name),
		AGBSIM_CLI_TEXT('s', struct convert_args, mo.source),
		AGBSIM_CLI_TEXT('Z', struct convert_args, mo.symbols), {0, 0}};
	const struct agbsim_cli cli = {"convert", "o:", longopts, usage, convert_option, &a, NULL,
				       texts};
	int first, rc;
	agb_mtrace_options_init(&a.mo);
	agb_stream_options_init(&a.so);
	a.include = calloc((size_t)argc + 1u, sizeof *a.include);
	a.exclude = calloc((size_t)argc + 1u, sizeof *a.exclude);
	if (a.include == NULL || a.exclude == NULL) {
		free(a.include);
		free(a.exclude);
		agbsim_error("out of memory");
		return AGBSIM_EXIT_IO;
	}
	a.mo.caller_include = a.include;
	a.mo.caller_exclude = a.exclude;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc == AGBSIM_CLI_RUN)
		rc = first != argc - 1 ? agbsim_usage_error("convert", "exactly one input file expected")
				       : convert(&a, argv[first]);
	free(a.layer_bpp);
	free(a.layer_spec);
	free(a.include);
	free(a.exclude);
	return rc;
}
