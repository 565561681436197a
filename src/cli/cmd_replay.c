/* agbsim replay: one trace on one core, one report. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "cli/options.h"
#include "trace/trace_load.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim replay TRACE [OPTIONS]\n\n"
		"Replays TRACE (JSON, format v1; '-' reads stdin) on an allocator core running on the\n"
		"emulated GBA bus and reports fragmentation, overhead and cycle costs.\n\n"
		"Options:\n"
		"  --allocator=NAME     core to run (default: the arena's own; see 'agbsim list')\n"
		"  --format=FMT         table (default), json, csv or md\n"
		"  --events-out=FILE    write one JSON line per event with its outcome ('-': stdout,\n"
		"                       before the report)\n"
		"  --arena-bytes=N      pool size instead of the trace's arena_bytes\n"
		"  --meta=REGION        where the core keeps external bookkeeping: ewram or iwram\n"
		"  --rom-tiles=N        tiles: ROM tiles per depth the ROM->VRAM maps cover\n"
		"                       (default 24576; metadata = 8 + 4 x 1792 + 4 x N bytes)\n"
		"  --screen-maps=N      tiles: 2 KiB screen maps kept at the top of BG VRAM (default 4)\n"
		"  --check              run the core's invariant checker after every event (slow)\n"
		"  --no-canaries        do not fill and check live blocks\n"
		"  --no-min-arena       skip the min_arena_bytes search (about 16 more replays)\n"
		"  --obj-bitmap         OBJ VRAM cores: bitmap modes 3-5, only tiles 512-1023\n"
		"  --view               after the report, show the replay in a window ('agbsim view')\n"
		"  -h, --help           show this help\n\n"
		"Cycle figures are labelled 'model': bus accesses x GBA wait states plus per-core\n"
		"instruction coefficients. Exit status: 0 ok, 2 bad usage or input, 3 I/O error.\n");
}

int agbsim_cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"format", required_argument, NULL, 'f'},
		{"events-out", required_argument, NULL, 'e'}, {"check", no_argument, NULL, 'c'},
		{"no-canaries", no_argument, NULL, 'C'},     {"no-min-arena", no_argument, NULL, 'm'},
		{"view", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},            AGBSIM_REPLAY_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *allocator = NULL, *events_out = NULL;
	int format = FORMAT_TABLE, opt;
	unsigned options = RUN_MIN_ARENA;
	struct agbsim_run run = {0};
	struct agb_loaded_trace loaded;
	struct agbsim_events_out eo = {0};
	struct agbsim_tap tap = {agbsim_events_out_observe, &eo};
	struct agbsim_output events = {0};
	int rc, view = 0;

	run.cfg.flags = AGB_REPLAY_CANARIES;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			allocator = optarg;
			break;
		case 'f':
			format = agbsim_parse_format(optarg);
			if (format < 0)
				return agbsim_usage_error("replay", "unknown format '%s' (table, json, csv, md)",
							  optarg);
			break;
		case 'e':
			events_out = optarg;
			break;
		case 'c':
			run.cfg.flags |= AGB_REPLAY_CHECK;
			break;
		case 'C':
			run.cfg.flags &= ~AGB_REPLAY_CANARIES;
			break;
		case 'm':
			options &= ~(unsigned)RUN_MIN_ARENA;
			break;
		case 'V':
			view = 1;
			break;
		case 'h':
			usage(stdout);
			return AGBSIM_EXIT_OK;
		case ':':
			return agbsim_usage_error("replay", "option '%s' needs a value", argv[optind - 1]);
		default: {
			int r = agbsim_replay_option("replay", opt, optarg, &run.cfg);
			if (r == -1)
				return agbsim_usage_error("replay", "unknown option '%s'", argv[optind - 1]);
			if (r != AGBSIM_EXIT_OK)
				return r;
			break;
		}
		}
	}
	if (optind != argc - 1)
		return agbsim_usage_error("replay", optind >= argc ? "no TRACE given"
								   : "exactly one TRACE expected");
	run.trace_path = argv[optind];

	rc = agbsim_load_trace(run.trace_path, &loaded);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	run.trace = &loaded.trace;
	rc = agbsim_pick_core(allocator, run.trace, &run.core);
	if (rc != AGBSIM_EXIT_OK)
		goto done;
	if (run.cfg.arena_bytes > agb_arena_region_bytes(run.trace->arena)) {
		rc = agbsim_usage_error("replay", "--arena-bytes %u is larger than %s (%u bytes)",
					run.cfg.arena_bytes, agb_arena_name(run.trace->arena),
					agb_arena_region_bytes(run.trace->arena));
		goto done;
	}
	if (events_out != NULL) {
		rc = agbsim_output_open(&events, events_out);
		if (rc != AGBSIM_EXIT_OK)
			goto done;
		eo.out = events.f;
		eo.trace = run.trace;
		eo.arena_addr = agb_arena_base(run.trace->arena);
	}
	rc = agbsim_run_replay(&run, options, events_out != NULL ? &tap : NULL);
	if (rc != AGBSIM_EXIT_OK)
		agbsim_error("%s", run.error);
	if (events_out != NULL) {
		/* Events stream first when both go to stdout. */
		int wrc = agbsim_output_close(&events, rc == AGBSIM_EXIT_OK);
		if (rc == AGBSIM_EXIT_OK)
			rc = wrc;
	}
	if (rc == AGBSIM_EXIT_OK) {
		agbsim_report(stdout, (enum agbsim_format)format, &run, 1);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = AGBSIM_EXIT_IO;
	}
	if (rc == AGBSIM_EXIT_OK && view)
		rc = agbsim_view_open(run.trace_path, run.trace, &run.cfg, NULL, -1, 0, NULL);
done:
	agbsim_output_close(&events, 0);
	agb_trace_release(&loaded);
	return rc;
}
