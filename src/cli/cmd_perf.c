/* agbsim perf: host speed of the tool itself — trace loading (MB/s) and replay (events/s). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/options.h"
#include "trace/trace_load.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim perf TRACE [--allocator=NAME] [--repeat=N] [--replay-only]\n\n"
		"Measures agbsim's own speed on TRACE: JSON loading in MB/s, and replay in events/s\n"
		"with bus counting and canaries on (loading excluded), both with the per-event\n"
		"observation the reports use and without free-space sampling. Prints the median of N\n"
		"runs (default 5) as 'key value' lines. --replay-only loads once and times only the\n"
		"bare replay (what bench --timing uses).\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static void count_only(void *ctx, const struct agb_replay_obs *obs)
{
	(void)obs;
	++*(uint64_t *)ctx;
}

/* Most --repeat: the medians are taken over fixed arrays. */
#define PERF_MAX_REPEAT 64u

struct perf_args {
	const char *trace_path, *allocator;
	uint32_t repeat;
	int replay_only;
};

/* Seconds per pass of each measurement: loading, replay with metrics, bare replay. */
struct perf_times {
	double load[PERF_MAX_REPEAT], full[PERF_MAX_REPEAT], bare[PERF_MAX_REPEAT];
};

static int perf_option(void *ctx, int opt, const char *arg)
{
	struct perf_args *a = ctx;
	switch (opt) {
	case 'r':
		if (agbsim_parse_u32(arg, &a->repeat) != 0 || a->repeat == 0 ||
		    a->repeat > PERF_MAX_REPEAT)
			return agbsim_usage_error("perf", "--repeat wants 1..%u, not '%s'",
						  PERF_MAX_REPEAT, arg);
		return AGBSIM_EXIT_OK;
	case 'R':
		a->replay_only = 1;
		return AGBSIM_EXIT_OK;
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int parse_args(struct perf_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'},
		{"repeat", required_argument, NULL, 'r'},
		{"replay-only", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('a', struct perf_args, allocator), {0, 0}};
	const struct agbsim_cli cli = {"perf", "", longopts, usage, perf_option, a, NULL, texts};
	int first, rc;
	a->repeat = 5;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	return agbsim_cli_one_trace("perf", argc, argv, first, &a->trace_path);
}

/* Loads the trace `loads` times (timing each) and keeps the last load in *lt. */
static int time_loads(const char *path, uint32_t loads, struct agb_loaded_trace *lt, double *t)
{
	for (uint32_t i = 0; i < loads; i++) {
		double t0 = agb_now_seconds();
		int st = agbsim_load_trace(path, lt);
		t[i] = agb_now_seconds() - t0;
		if (st != AGBSIM_EXIT_OK)
			return st;
		if (i + 1 < loads)
			agb_trace_release(lt);
	}
	return AGBSIM_EXIT_OK;
}

/* The replay with the reports' per-event metrics, `repeat` times. */
static int time_full(const struct perf_args *a, const struct agb_trace *t,
		     const struct agb_heap_core *core, double *s)
{
	for (uint32_t i = 0; i < a->repeat; i++) {
		struct agbsim_run run = {0};
		double t0;
		run.trace_path = a->trace_path;
		run.trace = t;
		run.core = core;
		run.cfg.flags = AGB_REPLAY_CANARIES;
		t0 = agb_now_seconds();
		if (agbsim_run_replay(&run, 0, NULL) != AGBSIM_EXIT_OK) {
			agbsim_error("%s", run.error);
			return run.status;
		}
		s[i] = agb_now_seconds() - t0;
	}
	return AGBSIM_EXIT_OK;
}

/* The bare replay (a counting observer, no sampling), `repeat` times. */
static int time_bare(const struct agb_trace *t, const struct agb_heap_core *core, uint32_t repeat,
		     double *s)
{
	size_t ws_bytes = agb_replay_workspace_bytes(t);
	agb_machine *m = malloc(sizeof *m);
	void *ws = malloc(ws_bytes);
	struct agb_replay_config cfg = {core, 0, AGB_META_DEFAULT, 0,
					AGB_REPLAY_CANARIES | AGB_REPLAY_NO_STATS};
	struct agb_replay_result res;
	int rc = m != NULL && ws != NULL ? AGBSIM_EXIT_OK : AGBSIM_EXIT_IO;
	if (rc == AGBSIM_EXIT_OK)
		agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	for (uint32_t i = 0; rc == AGBSIM_EXIT_OK && i < repeat; i++) {
		uint64_t seen = 0;
		double t0 = agb_now_seconds();
		agb_replay_run(t, &cfg, m, ws, ws_bytes, count_only, &seen, &res);
		s[i] = agb_now_seconds() - t0;
	}
	free(m);
	free(ws);
	return rc;
}

static void print_perf(const struct perf_args *a, const struct agb_trace *t,
		       const struct agb_heap_core *core, off_t bytes, struct perf_times *pt)
{
	double mb = (double)bytes / 1e6, ev = (double)t->event_count;
	double lm = median(pt->load, a->replay_only ? 1 : (int)a->repeat),
	       fm = a->replay_only ? 0 : median(pt->full, (int)a->repeat),
	       bm = median(pt->bare, (int)a->repeat);
	printf("trace %s\nallocator %s\nbytes %lld\nevents %u\nrepeat %u\n", a->trace_path,
	       core->name, (long long)bytes, t->event_count, a->repeat);
	if (!a->replay_only)
		printf("load_mb_per_s %.1f\n", mb / lm);
	printf("replay_events_per_s %.0f\n", ev / bm);
	printf("replay_ns_per_event %.1f\n", bm * 1e9 / ev);
	if (!a->replay_only)
		printf("replay_with_metrics_events_per_s %.0f\n", ev / fm);
}

int agbsim_cmd_perf(int argc, char **argv)
{
	struct perf_args a = {0};
	struct agb_loaded_trace lt = {0};
	struct perf_times pt = {0};
	struct stat sb;
	const struct agb_heap_core *core;
	int rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (stat(a.trace_path, &sb) != 0) {
		agbsim_error("%s: cannot open: %s", a.trace_path, strerror(errno));
		return AGBSIM_EXIT_IO;
	}
	rc = time_loads(a.trace_path, a.replay_only ? 1u : a.repeat, &lt, pt.load);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	rc = agbsim_pick_core(a.allocator, &lt.trace, &core);
	if (rc == AGBSIM_EXIT_OK && !a.replay_only)
		rc = time_full(&a, &lt.trace, core, pt.full);
	if (rc == AGBSIM_EXIT_OK)
		rc = time_bare(&lt.trace, core, a.repeat, pt.bare);
	if (rc == AGBSIM_EXIT_OK)
		print_perf(&a, &lt.trace, core, sb.st_size, &pt);
	agb_trace_release(&lt);
	return rc;
}
