/* agbsim view: the live memory map (SDL2 window) and headless PNG snapshots of it (issue 7).
 * Built without SDL2 (AGBSIM_HAVE_VIEW undefined), the command still parses its arguments and
 * then says that this agbsim has no viewer, exit status 3. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agbsim.h"
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
		"the largest free run outlined in yellow, a failed request flashed red.\n\n"
		"Options:\n"
		"  --allocator=NAME     core to run (default: the arena's own; see 'agbsim list')\n"
		"  --snapshot=OUT.png   write the picture as a PNG instead of opening a window\n"
		"                       (needs no display)\n"
		"  --at=WHEN            the moment to show: EVENT (0-based index; the state right\n"
		"                       after it), frame:N (right after the N-th frame event, N >= 1)\n"
		"                       or end (default for --snapshot). In the window: start paused\n"
		"                       there.\n"
		"  --paused             window: start paused at the first event\n"
		"  --arena-bytes=N      pool size instead of the trace's arena_bytes\n"
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
		uint32_t seen = 0;
		if (agbsim_parse_u32(s + 6, &k) != 0 || k == 0)
			return -1;
		for (uint32_t i = 0; i < t->event_count; i++)
			if (t->events[i].op == AGB_OP_FRAME && ++seen == k) {
				*event = i;
				return 0;
			}
		return -1;
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
	agbsim_error("view: this agbsim was built without SDL2, so it has no viewer (install "
		     "libsdl2-dev and libsdl2-image-dev and rebuild with -DAGBSIM_WITH_SDL=ON)");
	return AGBSIM_EXIT_IO;
#endif
}

int agbsim_cmd_view(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"snapshot", required_argument, NULL, 'o'},
		{"at", required_argument, NULL, 't'},        {"paused", no_argument, NULL, 'p'},
		{"script", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},            AGBSIM_REPLAY_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *allocator = NULL, *snapshot = NULL, *at_text = NULL, *script = NULL;
	int opt, paused = 0, rc;
	int64_t at = -1;
	uint32_t ev = 0;
	struct agbsim_run run = {0};
	struct agb_loaded_trace loaded;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			allocator = optarg;
			break;
		case 'o':
			snapshot = optarg;
			break;
		case 't':
			at_text = optarg;
			break;
		case 'p':
			paused = 1;
			break;
		case 'S': /* hidden: synthetic keys for the window test (see src/view/view.h) */
			script = optarg;
			break;
		case 'h':
			usage(stdout);
			return AGBSIM_EXIT_OK;
		case ':':
			return agbsim_usage_error("view", "option '%s' needs a value", argv[optind - 1]);
		default: {
			int r = agbsim_replay_option("view", opt, optarg, &run.cfg);
			if (r == -1)
				return agbsim_usage_error("view", "unknown option '%s'", argv[optind - 1]);
			if (r != AGBSIM_EXIT_OK)
				return r;
			break;
		}
		}
	}
#ifndef AGBSIM_HAVE_VIEW
	/* Say so at once, before loading and replaying anything. */
	(void)allocator, (void)snapshot, (void)at_text, (void)paused, (void)script;
	return agbsim_view_open(NULL, NULL, NULL, NULL, -1, 0, NULL);
#endif
	if (optind != argc - 1)
		return agbsim_usage_error("view", optind >= argc ? "no TRACE given"
								 : "exactly one TRACE expected");
	if (snapshot != NULL && snapshot[0] == '\0')
		return agbsim_usage_error("view", "--snapshot wants a file name");
	run.trace_path = argv[optind];

	rc = agbsim_load_trace(run.trace_path, &loaded);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	run.trace = &loaded.trace;
	if (at_text != NULL) {
		if (parse_at(at_text, run.trace, &ev) != 0) {
			rc = agbsim_usage_error("view",
						"--at wants an event 0..%u, frame:N with N 1..%u, or end; not '%s'",
						run.trace->event_count != 0 ? run.trace->event_count - 1u : 0u,
						run.trace->frame_count, at_text);
			goto done;
		}
		at = ev;
	}
	rc = agbsim_pick_core(allocator, run.trace, &run.core);
	if (rc != AGBSIM_EXIT_OK)
		goto done;
	if (run.cfg.arena_bytes > agb_arena_region_bytes(run.trace->arena)) {
		rc = agbsim_usage_error("view", "--arena-bytes %u is larger than %s (%u bytes)",
					run.cfg.arena_bytes, agb_arena_name(run.trace->arena),
					agb_arena_region_bytes(run.trace->arena));
		goto done;
	}
	/* A full replay first: a core that cannot run this trace is reported exactly as by
	 * `agbsim replay` (exit 2), before any window opens or any PNG is written. */
	rc = agbsim_run_replay(&run, 0, NULL);
	if (rc != AGBSIM_EXIT_OK) {
		agbsim_error("%s", run.error);
		goto done;
	}
	rc = agbsim_view_open(run.trace_path, run.trace, &run.cfg, snapshot, at, paused, script);
done:
	agb_trace_release(&loaded);
	return rc;
}
