/* agbsim replay: one trace on one core, one report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "cli/cli_opts.h"
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
		AGBSIM_STREAM_USAGE
		"  --obj-bitmap         OBJ VRAM cores: bitmap modes 3-5, only tiles 512-1023\n"
		"  --view               after the report, show the replay in a window ('agbsim view')\n"
		"  -h, --help           show this help\n\n"
		"Cycle figures are labelled 'model': bus accesses x GBA wait states plus per-core\n"
		"instruction coefficients. Exit status: 0 ok, 2 bad usage or input, 3 I/O error.\n");
}

struct replay_args {
	const char *allocator, *events_out;
	int format, view;
	unsigned options;
	struct agbsim_run run;
};

static int replay_option(void *ctx, int opt, const char *arg)
{
	struct replay_args *a = ctx;
	switch (opt) {
	case 'f':
		return agbsim_cli_format("replay", arg, &a->format);
	case 'c':
		a->run.cfg.flags |= AGB_REPLAY_CHECK;
		return AGBSIM_EXIT_OK;
	case 'C':
		a->run.cfg.flags &= ~AGB_REPLAY_CANARIES;
		return AGBSIM_EXIT_OK;
	case 'm':
		a->options &= ~(unsigned)RUN_MIN_ARENA;
		return AGBSIM_EXIT_OK;
	case 'V':
		a->view = 1;
		return AGBSIM_EXIT_OK;
	default: {
		int rc = agbsim_stream_option("replay", opt, arg, &a->run.stream);
		return rc < 0 ? AGBSIM_CLI_UNKNOWN : rc;
	}
	}
}

static int parse_args(struct replay_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"format", required_argument, NULL, 'f'},
		{"events-out", required_argument, NULL, 'e'}, {"check", no_argument, NULL, 'c'},
		{"no-canaries", no_argument, NULL, 'C'},     {"no-min-arena", no_argument, NULL, 'm'},
		{"view", no_argument, NULL, 'V'},          AGBSIM_STREAM_LONGOPTS,
		{"help", no_argument, NULL, 'h'},            AGBSIM_REPLAY_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('a', struct replay_args, allocator),
		AGBSIM_CLI_TEXT('e', struct replay_args, events_out), {0, 0}};
	const struct agbsim_cli cli = {"replay", "", longopts, usage, replay_option,
				       a, &a->run.cfg, texts};
	int first, rc;
	a->format = FORMAT_TABLE;
	a->options = RUN_MIN_ARENA;
	a->run.cfg.flags = AGB_REPLAY_CANARIES;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	return agbsim_cli_one_trace("replay", argc, argv, first, &a->run.trace_path);
}

/* The replay, with --events-out streamed (and kept only when the replay succeeded). */
static int run_with_events(struct replay_args *a)
{
	struct agbsim_run *run = &a->run;
	struct agbsim_events_out eo = {0};
	struct agbsim_tap tap = {agbsim_events_out_observe, &eo};
	struct agbsim_output events = {0};
	int rc, wrc;
	if (a->events_out == NULL) {
		rc = agbsim_run_replay(run, a->options, NULL);
		if (rc != AGBSIM_EXIT_OK)
			agbsim_error("%s", run->error);
		return rc;
	}
	rc = agbsim_output_open(&events, a->events_out);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	eo.out = events.f;
	eo.trace = run->trace;
	eo.arena_addr = agb_arena_base(run->trace->arena);
	rc = agbsim_run_replay(run, a->options, &tap);
	if (rc != AGBSIM_EXIT_OK)
		agbsim_error("%s", run->error);
	/* Events stream first when both go to stdout. */
	wrc = agbsim_output_close(&events, rc == AGBSIM_EXIT_OK);
	return rc != AGBSIM_EXIT_OK ? rc : wrc;
}

int agbsim_cmd_replay(int argc, char **argv)
{
	struct replay_args a = {0};
	struct agb_loaded_trace loaded;
	int rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	rc = agbsim_load_trace(a.run.trace_path, &loaded);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	a.run.trace = &loaded.trace;
	rc = agbsim_pick_run_core("replay", a.allocator, &a.run);
	if (rc == AGBSIM_EXIT_OK)
		rc = run_with_events(&a);
	if (rc == AGBSIM_EXIT_OK) {
		agbsim_report(stdout, (enum agbsim_format)a.format, &a.run, 1);
		agbsim_note_extrapolated(&a.run, 1);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = AGBSIM_EXIT_IO;
	}
	if (rc == AGBSIM_EXIT_OK && a.view)
		rc = agbsim_view_open(a.run.trace_path, a.run.trace, &a.run.cfg, NULL, -1, 0, NULL);
	agb_trace_release(&loaded);
	return rc;
}
