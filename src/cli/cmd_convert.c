/* agbsim convert: recordings and maps into v1 traces. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/options.h"
#include "trace/mtrace.h"
#include "trace/tiled.h"
#include "trace/trace_load.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim convert IN -o OUT [--from mtrace|tiled|csv] [OPTIONS]\n\n"
		"Turns a recording or a level map into a v1 trace (JSON).\n\n"
		"Sources:\n"
		"  --from mtrace        a glibc mtrace log (record one with scripts/record-mtrace)\n"
		"  --from tiled         a Tiled JSON map: a bg_vram tile-streaming trace of a camera\n"
		"                       scrolling through it (each tile layer is a BG layer)\n"
		"  --from csv           a CSV grid of tile ids (one layer named 'csv'), same streaming\n\n"
		"Map options (tiled, csv):\n"
		"  --path=PATH          camera path: right (default), left, pingpong, down, diagonal\n"
		"  --speed=PX           camera speed, 1..8 px per frame (default 8, the seed's maximum)\n"
		"  --frames=N           camera moves (default: one pass; pingpong and diagonal: there and back)\n"
		"  --bpp=4|8            depth of every layer (default 4)\n"
		"  --layer-bpp=L:B,...  depth per layer by name, e.g. Background:8,Ground:4\n"
		"  --cell=PX            csv: cell size in px, a multiple of 8 (default 8)\n\n"
		"Options:\n"
		"  -o, --output=OUT     trace to write ('-' for stdout); written whole or not at all\n"
		"  --name=NAME          the trace's name\n"
		"  --source=TEXT        how it was recorded (the exact command)\n"
		"  --arena-bytes=N      pool size recorded in the trace (default 262144)\n"
		"  --skip=N             drop the first N recorded events (program start-up)\n"
		"  --max-live=BYTES     end the trace before live bytes would exceed BYTES\n"
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

/* Map (Tiled JSON or CSV) to a streaming trace, written through a temporary file. */
static int convert_map(const char *in_path, const char *out_path, int csv, uint32_t cell_px,
		       const struct agb_stream_options *so)
{
	struct agb_tilemap map;
	struct agb_diag diag = {0};
	struct agb_trace t;
	struct agb_event *events = NULL;
	char *text = NULL, err[512];
	size_t len = 0;
	uint32_t refs = 0, peak = 0, live = 0;
	struct agbsim_output out;
	int rc, bad;

	rc = agbsim_read_input(in_path, &text, &len);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	rc = csv ? agb_tilemap_parse_csv(in_path, text, len, cell_px, &map, &diag)
		 : agb_tilemap_parse_tiled(in_path, text, len, &map, &diag);
	free(text);
	if (rc != AGB_LOAD_OK) {
		char msg[1024];
		agb_diag_format(&diag, msg, sizeof msg);
		agbsim_error("%s", msg);
		return rc == AGB_LOAD_IO_ERROR ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
	}
	rc = agb_tilemap_stream(&map, so, &t, &events, err, sizeof err);
	if (rc != 0) {
		agbsim_error("%s: %s", in_path, err);
		agb_tilemap_release(&map);
		return strcmp(err, "out of memory") == 0 ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
	}
	for (uint32_t i = 0; i < t.event_count; i++) {
		if (events[i].op == AGB_OP_REF) {
			refs++;
			if (++live > peak)
				peak = live;
		} else if (events[i].op == AGB_OP_UNREF) {
			live--;
		}
	}
	rc = agbsim_output_open(&out, out_path);
	if (rc != AGBSIM_EXIT_OK) {
		free(events);
		agb_tilemap_release(&map);
		return rc;
	}
	bad = agb_trace_write_json(out.f, &t) != 0;
	if (bad)
		agbsim_error("%s: cannot write: %s", out_path, strerror(errno));
	if (agbsim_output_close(&out, !bad) != AGBSIM_EXIT_OK)
		bad = 1;
	if (!bad)
		fprintf(stderr,
			"agbsim: %s: %ux%u cells of %u px, %u layers: %u events, %u frames, %u refs, "
			"at most %u tiles on the screen maps\n",
			out_path, map.width, map.height, map.cell_px, map.layer_count, t.event_count,
			t.frame_count, refs, peak);
	free(events);
	agb_tilemap_release(&map);
	return bad ? AGBSIM_EXIT_IO : AGBSIM_EXIT_OK;
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
		"agbsim: %s: %lu events (%lu alloc, %lu free, %lu realloc), peak live %lu bytes; "
		"skipped %lu, dropped %lu unknown frees, %lu failed%s\n",
		out_path, res.events, res.allocs, res.frees, res.reallocs, res.peak_live_bytes,
		res.skipped, res.dropped_unknown_frees, res.dropped_failed,
		res.truncated ? "; truncated by --max-live" : "");
	return AGBSIM_EXIT_OK;
}

struct convert_args {
	const char *from, *out;
	struct agb_mtrace_options mo;
	struct agb_stream_options so;
	struct agb_layer_bpp *layer_bpp; /* owned: so.layer_bpp */
	char *layer_spec;                /* owned copy of --layer-bpp: the names point into it */
	uint32_t cell_px;
	int map_opts; /* a map-only option was given */
};

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
	default:
		return map_number_option(a, opt, arg);
	}
}

static int convert_option(void *ctx, int opt, const char *arg)
{
	struct convert_args *a = ctx;
	uint32_t v;
	switch (opt) {
	case 'F':
		a->from = arg;
		return AGBSIM_EXIT_OK;
	case 'o':
		a->out = arg;
		return AGBSIM_EXIT_OK;
	case 'n':
		a->mo.name = arg;
		return AGBSIM_EXIT_OK;
	case 's':
		a->mo.source = arg;
		return AGBSIM_EXIT_OK;
	case 'b':
	case 'k':
	case 'L':
		if (parse_count(arg, &v) != AGBSIM_EXIT_OK)
			return AGBSIM_EXIT_USAGE;
		*(opt == 'b' ? &a->mo.arena_bytes : opt == 'k' ? &a->mo.skip_events : &a->mo.max_live) = v;
		return AGBSIM_EXIT_OK;
	case 'P':
	case 'S':
	case 'N':
	case 'B':
	case 'W':
	case 'Y':
		return map_option(a, opt, arg);
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

/* The conversion the options ask for, once they agree with each other. */
static int convert(struct convert_args *a, const char *input)
{
	if (a->out == NULL)
		return agbsim_usage_error("convert", "no output given (-o OUT)");
	if (strcmp(a->from, "tiled") == 0 || strcmp(a->from, "csv") == 0) {
		a->so.name = a->mo.name;
		a->so.source = a->mo.source;
		return convert_map(input, a->out, strcmp(a->from, "csv") == 0, a->cell_px, &a->so);
	}
	if (strcmp(a->from, "mtrace") != 0)
		return agbsim_usage_error("convert", "unknown source format '%s' (mtrace, tiled, csv)",
					  a->from);
	if (a->map_opts)
		return agbsim_usage_error("convert", "map options need --from tiled or --from csv");
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
		{NULL, 0, NULL, 0},
	};
	struct convert_args a = {.from = "mtrace", .cell_px = 8};
	const struct agbsim_cli cli = {"convert", "o:", longopts, usage, convert_option, &a, NULL};
	int first, rc;
	agb_mtrace_options_init(&a.mo);
	agb_stream_options_init(&a.so);
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc == AGBSIM_CLI_RUN)
		rc = first != argc - 1 ? agbsim_usage_error("convert", "exactly one input file expected")
				       : convert(&a, argv[first]);
	free(a.layer_bpp);
	free(a.layer_spec);
	return rc;
}
