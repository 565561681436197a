/* agbsim replay: one trace on one core, one report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/frame_at.h"
#include "report/html_report.h"
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
		"  --pool=N             pool size instead of the trace's arena_bytes\n"
		"                       (--arena-bytes=N: the same)\n"
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
		"  --at=WHEN            after the report, every event of one frame with its cycles:\n"
		"                       frame:N (the report's worst gameplay and loading frames are\n"
		"                       named so; view --at=frame:N shows the map there) or EVENT (the\n"
		"                       frame holding that 0-based event)\n"
		"  --html=OUT.html      also write a self-contained HTML report (charts over frames,\n"
		"                       the memory map at peak and at the first failure)\n"
		"  -h, --help           show this help\n\n"
		"The default core for EWRAM traces is the recommended heap, bestfit\n"
		"(docs/recommendation.md). Cycle figures are labelled 'model': bus accesses x GBA wait\n"
		"states plus per-core instruction coefficients. Exit status: 0 ok, 2 bad usage or\n"
		"input, 3 I/O error.\n");
}

struct replay_args {
	const char *allocator, *events_out, *at_text, *html;
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
		{"at", required_argument, NULL, 't'},        {"html", required_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},            AGBSIM_REPLAY_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('a', struct replay_args, allocator),
		AGBSIM_CLI_TEXT('e', struct replay_args, events_out),
		AGBSIM_CLI_TEXT('t', struct replay_args, at_text),
		AGBSIM_CLI_TEXT('H', struct replay_args, html), {0, 0}};
	const struct agbsim_cli cli = {"replay", "", longopts, usage, replay_option,
				       a, &a->run.cfg, texts};
	int first, rc;
	a->format = FORMAT_TABLE;
	a->options = RUN_MIN_ARENA;
	a->run.cfg.flags = AGB_REPLAY_CANARIES;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (a->at_text != NULL && a->format != FORMAT_TABLE)
		return agbsim_usage_error("replay", "--at goes with --format=table");
	return agbsim_cli_one_trace("replay", argc, argv, first, &a->run.trace_path);
}

/* --at: the events of one frame, kept as the replay observes them. */
struct frame_keep {
	uint32_t n, first, last;
	struct agb_replay_obs *obs; /* last - first + 1 */
	const struct agbsim_tap *next; /* --events-out, or NULL */
};

static void frame_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct frame_keep *k = ctx;
	if (o->index >= k->first && o->index <= k->last)
		k->obs[o->index - k->first] = *o;
	if (k->next != NULL)
		k->next->fn(k->next->ctx, o);
}

/* --at=WHEN into the frame it names. Returns AGBSIM_EXIT_OK or a usage error. */
static int resolve_frame(const char *text, const struct agb_trace *t, struct frame_keep *k)
{
	uint32_t v;
	if (strncmp(text, "frame:", 6) == 0 && agbsim_parse_u32(text + 6, &v) == 0 &&
	    agbsim_frame_range(t, v, &k->first, &k->last) == 0) {
		k->n = v;
	} else if (agbsim_parse_u32(text, &v) == 0 && v < t->event_count) {
		k->n = agbsim_frame_of_event(t, v);
		(void)agbsim_frame_range(t, k->n, &k->first, &k->last);
	} else {
		return agbsim_usage_error("replay", "--at wants frame:N (a frame of the trace) or an "
						    "event 0..%u, not '%s'",
					  t->event_count != 0 ? t->event_count - 1u : 0u, text);
	}
	k->obs = calloc((size_t)(k->last - k->first) + 1u, sizeof *k->obs);
	return k->obs != NULL ? AGBSIM_EXIT_OK : AGBSIM_EXIT_IO;
}

/* The frame's events: op, id, size, where, outcome, cycles; then the frame's total. */
static void print_frame(FILE *out, const struct agbsim_run *r, const struct frame_keep *k)
{
	static const char *const outcome[] = {"", "  FAILED", "  skipped"};
	uint64_t sum = 0;
	int loading = r->trace->events[k->last].op == AGB_OP_FRAME &&
		      r->trace->events[k->last].size == AGB_FRAME_LOAD;
	fprintf(out, "\nframe %u (%s): events %u-%u\n  %8s %-10s %8s %9s %-10s %8s\n", k->n,
		loading ? "loading" : "gameplay", k->first, k->last, "event", "op", "id", "bytes",
		"address", "cycles");
	for (uint32_t i = 0; i <= k->last - k->first; i++) {
		const struct agb_replay_obs *o = &k->obs[i];
		char addr[16] = "-";
		if (o->addr != AGB_NULL && o->outcome == AGB_OUTCOME_OK &&
		    (o->op == AGB_OP_ALLOC || o->op == AGB_OP_REALLOC))
			snprintf(addr, sizeof addr, "0x%08X", o->addr);
		fprintf(out, "  %8u %-10s %8u %9u %-10s %8u%s\n", o->index,
			agb_op_name((enum agb_op)o->op), o->id, o->requested, addr, o->cycles,
			o->outcome < 3 ? outcome[o->outcome] : "");
		sum += o->cycles;
	}
	fprintf(out, "  %u events, %llu cycles = %.2f%% of a frame (%.0f%% of the %.0f%% budget%s)\n",
		k->last - k->first + 1u, (unsigned long long)sum,
		(double)sum * 100.0 / AGB_FRAME_CYCLES,
		(double)sum * 100.0 / AGB_FRAME_CYCLES * 100.0 / AGB_FRAME_BUDGET_PCT,
		AGB_FRAME_BUDGET_PCT, loading ? "; a loading frame is not judged" : "");
}

/* The replay, with --events-out streamed (and kept only when the replay succeeded). */
static int run_with_events(struct replay_args *a, struct frame_keep *keep)
{
	struct agbsim_run *run = &a->run;
	struct agbsim_events_out eo = {0};
	struct agbsim_tap tap = {agbsim_events_out_observe, &eo};
	struct agbsim_tap ftap = {frame_observe, keep};
	struct agbsim_output events = {0};
	int rc, wrc;
	if (a->events_out == NULL) {
		rc = agbsim_run_replay(run, a->options, keep->obs != NULL ? &ftap : NULL);
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
	keep->next = &tap;
	rc = agbsim_run_replay(run, a->options, keep->obs != NULL ? &ftap : &tap);
	keep->next = NULL; /* tap lives on this frame only */
	if (rc != AGBSIM_EXIT_OK)
		agbsim_error("%s", run->error);
	/* Events stream first when both go to stdout. */
	wrc = agbsim_output_close(&events, rc == AGBSIM_EXIT_OK);
	return rc != AGBSIM_EXIT_OK ? rc : wrc;
}

int agbsim_cmd_replay(int argc, char **argv)
{
	struct replay_args a = {0};
	struct frame_keep keep = {0};
	struct agb_loaded_trace loaded;
	int rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	rc = agbsim_load_trace(a.run.trace_path, &loaded);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	a.run.trace = &loaded.trace;
	rc = agbsim_pick_run_core("replay", a.allocator, &a.run);
	if (rc == AGBSIM_EXIT_OK && a.at_text != NULL)
		rc = resolve_frame(a.at_text, a.run.trace, &keep);
	if (rc == AGBSIM_EXIT_OK)
		rc = run_with_events(&a, &keep);
	/* The picture first: when it cannot be written, nothing is printed either. */
	if (rc == AGBSIM_EXIT_OK && a.html != NULL)
		rc = agbsim_html_replay(a.html, &a.run);
	if (rc == AGBSIM_EXIT_OK) {
		agbsim_report(stdout, (enum agbsim_format)a.format, &a.run, 1);
		if (keep.obs != NULL && a.format == FORMAT_TABLE)
			print_frame(stdout, &a.run, &keep);
		agbsim_note_extrapolated(&a.run, 1);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = AGBSIM_EXIT_IO;
	}
	if (rc == AGBSIM_EXIT_OK && a.view)
		rc = agbsim_view_open(a.run.trace_path, a.run.trace, &a.run.cfg, NULL, -1, 0, NULL);
	free(keep.obs);
	agb_trace_release(&loaded);
	return rc;
}
