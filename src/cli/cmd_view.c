/* agbsim view: the live memory map (SDL2 window) and headless PNG snapshots of it (issue 7).
 * Built without SDL2 (AGBSIM_HAVE_VIEW undefined), the command still parses its arguments and
 * then says that this agbsim has no viewer, exit status 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/frame_at.h"
#include "cli/options.h"
#include "trace/trace_load.h"
#ifdef AGBSIM_HAVE_VIEW
#include "view/view.h"
#endif

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim view TRACE [OPTIONS]\n\n"
		"Replays TRACE on an allocator core and shows the arena as a live memory map: one cell\n"
		"per allocation unit (OBJ VRAM 32-byte blocks, BG VRAM tiles and screen maps, EWRAM\n"
		"8-byte blocks), each allocation in its own colour, free space dark, metadata hatched,\n"
		"the largest free run outlined in yellow, a failed request flashed red. A small pool\n"
		"is drawn in fewer, larger cells so it fills the map. Along the bottom: the model's\n"
		"cycles per frame, the 10%% frame budget as a red line, the frame shown in white\n"
		"(loading frames grey). Tile traces (ref/unref) show resident tiles and their\n"
		"reference counts instead of live bytes. Palette RAM: 32 rows of 16 colour swatches\n"
		"(BG banks 0-15, then OBJ), in the colours the core uploaded (derived from each\n"
		"palette's key); hover for owner and reference count.\n\n"
		"Options:\n"
		"  --allocator=NAME     core to run (default: the arena's own; see 'agbsim list')\n"
		"  --snapshot=OUT.png   write the picture as a PNG instead of opening a window\n"
		"                       (needs no display)\n"
		"  --at=WHEN            the moment to show: EVENT (0-based index; the state right\n"
		"                       after it), frame:N (the end of frame N, N >= 1: right after\n"
		"                       the N-th frame event, or the last event for the stretch after\n"
		"                       the last frame event; replay names its worst frames so),\n"
		"                       end (default for --snapshot), peak (the first event with the\n"
		"                       most bytes in use: live bytes, or resident tiles), first-failure\n"
		"                       (the first failed request; exit 2 when none fails) or max-frag\n"
		"                       (the sampled event with the highest frag_external: each frame,\n"
		"                       or each event of a trace without frames). In the window: start\n"
		"                       paused there.\n"
		"  --paused             window: start paused at the first event\n"
		"  --pool=N             pool size instead of the trace's arena_bytes\n"
		"                       (--arena-bytes=N: the same)\n"
		"  --meta=REGION        where the core keeps external bookkeeping: ewram or iwram\n"
		"  --obj-bitmap         OBJ VRAM cores: bitmap modes 3-5, only tiles 512-1023\n"
		"  -h, --help           show this help\n\n"
		"Window keys: space play/pause, right step one event, shift+right one frame, +/- speed,\n"
		"home restart, [ ] zoom, mouse wheel or page up/down scroll, hover a block for its\n"
		"offset, size, id and age, s save agbsim-NAME-eEVENT.png, q or Esc quit.\n\n"
		"Exit status: 0 ok, 2 bad usage or input, 3 I/O error, no display, or agbsim built\n"
		"without SDL2 (then only the viewer is missing).\n");
}

/* Resolves --at against the trace: 0 with *event set, or -1. */
static int parse_at(const char *s, const struct agb_trace *t, uint32_t *event)
{
	uint32_t k;
	if (strcmp(s, "end") == 0) {
		*event = t->event_count != 0 ? t->event_count - 1u : 0u;
		return 0;
	}
	if (strncmp(s, "frame:", 6) == 0) {
		uint32_t first;
		if (agbsim_parse_u32(s + 6, &k) != 0 || t->frame_count == 0)
			return -1; /* a trace without frame events has no frame:N */
		return agbsim_frame_range(t, k, &first, event);
	}
	if (agbsim_parse_u32(s, &k) != 0 || (t->event_count != 0 && k >= t->event_count) ||
	    (t->event_count == 0 && k != 0))
		return -1;
	*event = k;
	return 0;
}

int agbsim_view_open(const char *trace_path, const struct agb_trace *t,
		     const struct agb_replay_config *cfg, const char *snapshot, int64_t at,
		     int paused, const char *script)
{
#ifdef AGBSIM_HAVE_VIEW
	struct agb_view_config vc;
	char err[512];
	int rc;
	memset(&vc, 0, sizeof vc);
	vc.trace_path = trace_path;
	vc.trace = t;
	vc.replay = *cfg;
	vc.replay.flags &= ~(uint32_t)AGB_REPLAY_CHECK; /* the pre-run already checked, if asked */
	vc.start_at = at;
	vc.start_paused = paused;
	vc.script = script;
	if (snapshot != NULL)
		rc = agb_view_snapshot(&vc, at < 0 ? (t->event_count != 0 ? t->event_count - 1u : 0u)
						   : (uint32_t)at,
				       snapshot, err, sizeof err);
	else
		rc = agb_view_window(&vc, err, sizeof err);
	if (rc != 0) {
		agbsim_error("view: %s", err);
		return AGBSIM_EXIT_IO;
	}
	return AGBSIM_EXIT_OK;
#else
	(void)trace_path, (void)t, (void)cfg, (void)snapshot, (void)at, (void)paused, (void)script;
	agbsim_error("view: this agbsim was built without SDL2, so it has no viewer (%s)",
		     AGBSIM_SDL_HINT);
	return AGBSIM_EXIT_IO;
#endif
}

struct view_args {
	const char *allocator, *snapshot, *at_text, *script;
	int paused;
	struct agbsim_run run;
};

static int view_option(void *ctx, int opt, const char *arg)
{
	struct view_args *a = ctx;
	(void)arg;
	if (opt != 'p')
		return AGBSIM_CLI_UNKNOWN;
	a->paused = 1;
	return AGBSIM_EXIT_OK;
}

/* The options and the one TRACE operand. Returns AGBSIM_CLI_RUN or an exit status. */
static int parse_args(struct view_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"snapshot", required_argument, NULL, 'o'},
		{"at", required_argument, NULL, 't'},        {"paused", no_argument, NULL, 'p'},
		{"script", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},            AGBSIM_REPLAY_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('a', struct view_args, allocator),
		AGBSIM_CLI_TEXT('o', struct view_args, snapshot),
		AGBSIM_CLI_TEXT('t', struct view_args, at_text),
		/* hidden: synthetic keys for the window test (see src/view/view.h) */
		AGBSIM_CLI_TEXT('S', struct view_args, script), {0, 0}};
	const struct agbsim_cli cli = {"view", "", longopts, usage, view_option,
				       a, &a->run.cfg, texts};
	int first, rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
#ifndef AGBSIM_HAVE_VIEW
	/* Say so at once, before loading and replaying anything. */
	return agbsim_view_open(NULL, NULL, NULL, NULL, -1, 0, NULL);
#endif
	rc = agbsim_cli_one_trace("view", argc, argv, first, &a->run.trace_path);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (a->snapshot != NULL && a->snapshot[0] == '\0')
		return agbsim_usage_error("view", "--snapshot wants a file name");
	return AGBSIM_CLI_RUN;
}

/* --at against the loaded trace into *at (-1 when not given, or a named moment: *named = 1,
 * resolved by resolve_moment after the replay). Returns AGBSIM_EXIT_OK or AGBSIM_EXIT_USAGE after
 * printing why. */
static int resolve_at(const struct view_args *a, int64_t *at, int *named)
{
	const struct agb_trace *t = a->run.trace;
	uint32_t ev = 0;
	*at = -1;
	*named = 0;
	if (a->at_text == NULL)
		return AGBSIM_EXIT_OK;
#ifdef AGBSIM_HAVE_VIEW
	{
		enum agb_view_moment m;
		int frame_number = strncmp(a->at_text, "frame:", 6) == 0 && a->at_text[6] >= '0' &&
				   a->at_text[6] <= '9';
		if (!frame_number && agb_view_moment_parse(a->at_text, &m) == 0) {
			*named = 1;
			return AGBSIM_EXIT_OK;
		}
	}
#endif
	if (parse_at(a->at_text, t, &ev) != 0 && t->frame_count == 0)
		return agbsim_usage_error("view",
					  "--at wants an event 0..%u, end, peak, first-failure or "
					  "max-frag (frame:N needs frame events; this trace has none); "
					  "not '%s'",
					  t->event_count != 0 ? t->event_count - 1u : 0u, a->at_text);
	if (parse_at(a->at_text, t, &ev) != 0)
		return agbsim_usage_error("view",
					  "--at wants an event 0..%u, frame:N with N 1..%u, end, peak, "
					  "first-failure or max-frag; not '%s'",
					  t->event_count != 0 ? t->event_count - 1u : 0u, t->frame_count,
					  a->at_text);
	*at = ev;
	return AGBSIM_EXIT_OK;
}

#ifdef AGBSIM_HAVE_VIEW
/* The full replay every view starts with, which also finds the named moments: --at peak,
 * first-failure or max-frag into *at. Returns an exit status (2: the moment does not occur). */
static int replay_and_find(struct view_args *a, int named, int64_t *at)
{
	struct agb_view_scan scan;
	struct agbsim_tap tap = {agb_view_scan_observe, &scan};
	enum agb_view_moment m = AGB_VIEW_AT_PEAK;
	int rc;
	if (!named)
		return agbsim_run_replay(&a->run, 0, NULL);
	if (agb_view_scan_init(&scan, a->run.trace) != 0) {
		agb_view_scan_free(&scan);
		agbsim_error("view: out of memory");
		return AGBSIM_EXIT_IO;
	}
	rc = agbsim_run_replay(&a->run, 0, &tap);
	agb_view_scan_end(&scan);
	(void)agb_view_moment_parse(a->at_text, &m);
	*at = agb_view_scan_moment(&scan, m);
	agb_view_scan_free(&scan);
	if (rc == AGBSIM_EXIT_OK && *at < 0) {
		agbsim_error("view: --at %s: %s on '%s'", a->at_text,
			     m == AGB_VIEW_AT_FIRST_FAILURE ? "no request fails in this trace"
			     : a->run.trace->event_count == 0 ? "the trace has no events"
							      : "no event samples free space",
			     a->run.core->name);
		return AGBSIM_EXIT_USAGE;
	}
	return rc;
}
#else
static int replay_and_find(struct view_args *a, int named, int64_t *at)
{
	(void)named, (void)at;
	return agbsim_run_replay(&a->run, 0, NULL);
}
#endif

int agbsim_cmd_view(int argc, char **argv)
{
	struct view_args a = {0};
	struct agb_loaded_trace loaded;
	int64_t at;
	int named;
	int rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	rc = agbsim_load_trace(a.run.trace_path, &loaded);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	a.run.trace = &loaded.trace;
	rc = resolve_at(&a, &at, &named);
	if (rc == AGBSIM_EXIT_OK)
		rc = agbsim_pick_run_core("view", a.allocator, &a.run);
	/* A full replay first: a core that cannot run this trace is reported exactly as by
	 * `agbsim replay` (exit 2), before any window opens or any PNG is written. It also finds
	 * the moment a named --at asks for. */
	if (rc == AGBSIM_EXIT_OK) {
		rc = replay_and_find(&a, named, &at);
		if (rc != AGBSIM_EXIT_OK && a.run.error[0] != '\0')
			agbsim_error("%s", a.run.error);
	}
	if (rc == AGBSIM_EXIT_OK)
		rc = agbsim_view_open(a.run.trace_path, a.run.trace, &a.run.cfg, a.snapshot, at,
				      a.paused, a.script);
	agb_trace_release(&loaded);
	return rc;
}
