/* agbsim perf: host speed of the tool itself — trace loading (MB/s) and replay (events/s). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/agbsim.h"
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

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

int agbsim_cmd_perf(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'},
		{"repeat", required_argument, NULL, 'r'},
		{"replay-only", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *allocator = NULL;
	uint32_t repeat = 5;
	int replay_only = 0;
	int opt, rc = AGBSIM_EXIT_OK;
	struct agb_loaded_trace lt;
	struct stat sb;
	double load_s[64], full_s[64], bare_s[64];
	const struct agb_heap_core *core;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			allocator = optarg;
			break;
		case 'r':
			if (agbsim_parse_u32(optarg, &repeat) != 0 || repeat == 0 || repeat > 64)
				return agbsim_usage_error("perf", "--repeat wants 1..64, not '%s'", optarg);
			break;
		case 'R':
			replay_only = 1;
			break;
		case 'h':
			usage(stdout);
			return AGBSIM_EXIT_OK;
		case ':':
			return agbsim_usage_error("perf", "option '%s' needs a value", argv[optind - 1]);
		default:
			return agbsim_usage_error("perf", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return agbsim_usage_error("perf", "exactly one TRACE expected");
	if (stat(argv[optind], &sb) != 0) {
		agbsim_error("%s: cannot open: %s", argv[optind], strerror(errno));
		return AGBSIM_EXIT_IO;
	}
	for (uint32_t i = 0; i < (replay_only ? 1u : repeat); i++) {
		double t0 = now_seconds();
		int st = agbsim_load_trace(argv[optind], &lt);
		load_s[i] = now_seconds() - t0;
		if (st != AGBSIM_EXIT_OK)
			return st;
		if (i + 1 < (replay_only ? 1u : repeat))
			agb_trace_release(&lt);
	}
	rc = agbsim_pick_core(allocator, &lt.trace, &core);
	if (rc != AGBSIM_EXIT_OK)
		goto done;
	for (uint32_t i = 0; i < (replay_only ? 0u : repeat); i++) {
		struct agbsim_run run = {0};
		double t0;
		run.trace_path = argv[optind];
		run.trace = &lt.trace;
		run.core = core;
		run.cfg.flags = AGB_REPLAY_CANARIES;
		t0 = now_seconds();
		rc = agbsim_run_replay(&run, 0, NULL);
		full_s[i] = now_seconds() - t0;
		if (rc != AGBSIM_EXIT_OK) {
			agbsim_error("%s", run.error);
			goto done;
		}
	}
	{
		size_t ws_bytes = agb_replay_workspace_bytes(&lt.trace);
		agb_machine *m = malloc(sizeof *m);
		void *ws = malloc(ws_bytes);
		struct agb_replay_config cfg = {core, 0, AGB_META_DEFAULT, 0,
						AGB_REPLAY_CANARIES | AGB_REPLAY_NO_STATS};
		struct agb_replay_result res;
		if (m == NULL || ws == NULL) {
			free(m);
			free(ws);
			rc = AGBSIM_EXIT_IO;
			goto done;
		}
		agb_machine_init(m, AGB_WAITCNT_DEFAULT);
		for (uint32_t i = 0; i < repeat; i++) {
			uint64_t seen = 0;
			double t0 = now_seconds();
			agb_replay_run(&lt.trace, &cfg, m, ws, ws_bytes, count_only, &seen, &res);
			bare_s[i] = now_seconds() - t0;
		}
		free(m);
		free(ws);
	}
	{
		double mb = (double)sb.st_size / 1e6, ev = (double)lt.trace.event_count;
		double lm = median(load_s, replay_only ? 1 : (int)repeat),
		       fm = replay_only ? 0 : median(full_s, (int)repeat),
		       bm = median(bare_s, (int)repeat);
		printf("trace %s\nallocator %s\nbytes %lld\nevents %u\nrepeat %u\n", argv[optind],
		       core->name, (long long)sb.st_size, lt.trace.event_count, repeat);
		if (!replay_only)
			printf("load_mb_per_s %.1f\n", mb / lm);
		printf("replay_events_per_s %.0f\n", ev / bm);
		printf("replay_ns_per_event %.1f\n", bm * 1e9 / ev);
		if (!replay_only)
			printf("replay_with_metrics_events_per_s %.0f\n", ev / fm);
	}
done:
	agb_trace_release(&lt);
	return rc;
}
