/* agbsim bench: every (trace x core) pair that makes sense, in parallel, side by side. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "report/bench_curve.h"
#include "report/bench_recommend.h"
#include "cli/cli_opts.h"
#include "gate/gate.h"
#include "gate/gate_traces.h"
#include "cli/gba_only.h"
#include "report/html_report.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "platform/path_link.h"
#include "trace/trace_load.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim bench [TRACE|DIR ...] [OPTIONS]\n\n"
		"Replays every trace on every chosen core that can manage its arena, in parallel, and\n"
		"prints one comparison table per arena. A DIR contributes its *.json traces and those\n"
		"of its subdirectories (except 'maps', 'inputs' and 'calib' — the cycle model's\n"
		"calibration set — and baseline*.json files).\n"
		"Default: traces/.\n\n"
		"Options:\n"
		"  --allocator=LIST     comma-separated cores, or 'all' (default: each arena's default)\n"
		"  -j, --jobs=N         parallel replays (default: number of CPUs)\n"
		"  --format=FMT         table (default), json (the whole result set), csv or md\n"
		"  --check              run each core's invariant checker after every event (slow)\n"
		"  --no-min-arena       skip the min_arena_bytes search\n"
		"  --pool=BYTES         replay EWRAM traces with a pool of BYTES (the heap your game\n"
		"                       reserves) instead of each trace's arena_bytes\n"
		"  --baseline=FILE      gate: compare with a baseline (a --format=json result); exit 1\n"
		"                       when a metric got worse beyond tolerance or a pair is missing\n"
		"  --tolerance=M=T      tolerance for metric M (a name, or a prefix ending in '*'):\n"
		"                       T is N%% (relative) or N (absolute); repeatable\n"
		"  --limit=L            an absolute limit: [TRACE:CORE:]METRIC<=VALUE or >=VALUE\n"
		"                       (TRACE, CORE: a name, '*' for any, or a prefix ending in\n"
		"                       '*'); exit 1 when a pair's metric breaks it; repeatable, and\n"
		"                       added to the baseline's \"limits\"\n"
		"  --allow-missing      a baseline pair absent from this run is not a failure\n"
		"  --diff-out=FILE      write the comparison as JSON\n"
		"  --update-baseline=FILE  rewrite FILE from this run, keeping its tolerances and\n"
		"                       limits\n"
		"  --cycles=SRC         model (default: the host's cycle model), mgba (every pair\n"
		"                       measured on the emulated ARM7TDMI, serially), or both (model\n"
		"                       figures plus the model's error against mgba per pair)\n"
		"  --timing             also time each pair on this host (ns per event) and against\n"
		"                       agbsim-plain, the same cores with plain memory access: the\n"
		"                       simulation overhead (wall clock: informative, never gated)\n"
		"  --export=bmf|gab     print Bencher Metric Format or github-action-benchmark\n"
		"                       (customSmallerIsBetter) JSON instead of the table\n");
	fputs("  --arena-bytes=LIST   replay every pair at each pool size of LIST (8K,12K,16K,...;\n"
		"                       N or NK bytes): the table becomes the resource cache's\n"
		"                       trade-off curve (hit rate, misses, nopes, evictions, thrash,\n"
		"                       load cycles per frame for each pool size)\n"
		"  --plot=OUT.png       with --arena-bytes: draw hit rate and load cycles per frame\n"
		"                       against the pool size\n"
		"  --html=OUT.html      also write a self-contained HTML report: the cores side by\n"
		"                       side, what to use, and the recommended core's charts and\n"
		"                       memory maps per trace (docs/html-report.md)\n"
		AGBSIM_STREAM_USAGE, out);
	fprintf(out, "  -h, --help           show this help\n\n"
		"A pair whose core cannot serve the trace's ops (free on bump) is listed as n/a with\n"
		"the reason, never with numbers. Exit status: 0 ok, 1 the gate found a regression,\n"
		"2 bad usage or input (a bad baseline too), 3 when a core broke an invariant or\n"
		"corrupted a block.\n\n"
		"table and md end with what to use: the smallest pool each core needs per trace (min\n"
		"arena: no headroom), then per arena one answer by the recommendation rule\n"
		"(docs/recommendation.md): among the cores with no failure at the pool (--pool, default\n"
		"the trace's arena_bytes) the smallest pool need, unless a faster core needs at most\n"
		"1/16 more; never buddy, slots or firstfit unless nothing else fits; never the GBA-only\n"
		"references. It names a tie, says when nothing fits, and gives the pool to reserve: the\n"
		"largest min arena + 1/4, rounded up to 1 KiB. 'agbsim gate --help' lists the metrics\n"
		"the gate compares, their units and default tolerances.\n");
}

struct trace_list {
	char **paths;
	size_t n, cap;
};

static int push_path(struct trace_list *l, const char *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **np = realloc(l->paths, cap * sizeof *np);
		if (np == NULL)
			return -1;
		l->paths = np;
		l->cap = cap;
	}
	l->paths[l->n] = strdup(p);
	return l->paths[l->n++] == NULL ? -1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* One entry of a directory being scanned: a subdirectory (except the traces' side files'
 * ones; a link to a directory is not followed, so a link loop cannot make the scan endless) or
 * a trace file (a regular file, or a link to one: a FIFO or a device is never opened), into
 * the list. */
struct scan_ctx {
	struct trace_list *here;
	const char *dir;
};

static int scan_entry(void *ctx, const char *name)
{
	struct scan_ctx *c = ctx;
	char path[4096];
	enum agb_path_kind kind;
	if (name[0] == '.')
		return 0;
	snprintf(path, sizeof path, "%s/%s", c->dir, name);
	kind = agb_path_kind(path);
	if (kind == AGB_PATH_DIR) {
		if (agb_path_is_link(path))
			return 0;
		if (strcmp(name, "maps") != 0 && strcmp(name, "inputs") != 0 &&
		    strcmp(name, "calib") != 0 && strcmp(name, "tilesets") != 0)
			push_path(c->here, path);
	} else if (kind == AGB_PATH_FILE && ends_with(name, ".json") &&
		   strncmp(name, "baseline", 8) != 0) {
		push_path(c->here, path);
	}
	return 0;
}

/* Collects traces below dir in a stable (sorted) order. */
static int scan_dir(struct trace_list *l, const char *dir)
{
	struct trace_list here = {0};
	struct scan_ctx ctx = {&here, dir};
	int err = agb_dir_list(dir, scan_entry, &ctx);
	if (err != 0) {
		agbsim_error("%s: cannot open: %s", dir, strerror(err));
		return AGBSIM_EXIT_IO;
	}
	if (here.n > 1) /* qsort's pointer must be valid even for no elements */
		qsort(here.paths, here.n, sizeof *here.paths, cmp_str);
	for (size_t i = 0; i < here.n; i++) {
		if (agb_path_kind(here.paths[i]) == AGB_PATH_DIR)
			scan_dir(l, here.paths[i]);
		else
			push_path(l, here.paths[i]);
		free(here.paths[i]);
	}
	free(here.paths);
	return AGBSIM_EXIT_OK;
}

struct pool {
	struct agbsim_run *runs;
	size_t n;
	atomic_size_t next;
	unsigned options;
};

static void worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			return;
		if (agbsim_gba_only_rom(p->runs[i].core) == NULL) /* GBA-only: measured later */
			agbsim_run_replay(&p->runs[i], p->options, NULL);
	}
}

static int core_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p != '\0';) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return 1;
		p += len + (comma ? 1 : 0);
	}
	return 0;
}

/* Every name in the list must be a core: a typo must not silently shrink the comparison. A
 * GBA-only core (gba_only.h) is one only when the cycles are measured (`mgba`). */
static int check_core_list(const char *list, int mgba)
{
	char buf[256];
	for (const char *p = list; *p != '\0';) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof buf)
			return agbsim_usage_error("bench", "bad --allocator list '%s'", list);
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (agb_heap_core_find(buf) == NULL && agb_reference_core_find(buf) != NULL && !mgba)
			return agbsim_gba_only_refuse(buf);
		if (agb_heap_core_find(buf) == NULL && agb_reference_core_find(buf) == NULL)
			return agbsim_usage_error("bench", "unknown allocator '%s' (see 'agbsim list')",
						  buf);
		p += len + (comma ? 1 : 0);
	}
	return AGBSIM_EXIT_OK;
}

/* ns per event of a bare replay (counting and canaries on, no sampling): median of 3. */
static double time_replay(const struct agbsim_run *r)
{
	size_t ws_bytes = agb_replay_workspace_bytes(r->trace);
	agb_machine *m = malloc(sizeof *m);
	void *ws = malloc(ws_bytes);
	struct agb_replay_config cfg = r->cfg;
	struct agb_replay_result res;
	double t[3];
	if (m == NULL || ws == NULL || r->trace->event_count == 0) {
		free(m);
		free(ws);
		return 0;
	}
	cfg.flags = AGB_REPLAY_CANARIES | AGB_REPLAY_NO_STATS;
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	for (int i = 0; i < 3; i++) {
		double t0 = agb_now_seconds();
		agb_replay_run(r->trace, &cfg, m, ws, ws_bytes, NULL, NULL, &res);
		t[i] = agb_now_seconds() - t0;
	}
	free(m);
	free(ws);
	if (t[0] > t[1]) {
		double x = t[0];
		t[0] = t[1];
		t[1] = x;
	}
	return (t[2] < t[0] ? t[0] : t[2] > t[1] ? t[1] : t[2]) * 1e9 / r->trace->event_count;
}

/* The same replay in agbsim-plain (built beside this binary with plain loads and stores). */
static double time_plain(const struct agbsim_run *r)
{
	char self[4096], prog[4200], core[300], line[256];
	const char *argv[] = {prog, "perf", r->trace_path, core, "--repeat=3", "--replay-only", NULL};
	double ns = 0;
	FILE *p;
	if (agb_self_dir(self, sizeof self) != 0)
		return 0;
	snprintf(prog, sizeof prog, "%s/agbsim-plain", self);
	snprintf(core, sizeof core, "--allocator=%s", r->core->name);
	p = agb_popen_read(argv);
	if (p == NULL)
		return 0;
	while (fgets(line, sizeof line, p) != NULL)
		if (strncmp(line, "replay_ns_per_event ", 20) == 0)
			ns = strtod(line + 20, NULL);
	if (agb_pclose(p) != 0)
		return 0;
	return ns;
}

static void timing_table(FILE *out, const struct agbsim_run *runs, size_t n)
{
	fprintf(out, "== host timing (ns per event, median of 3; counting and canaries on, no "
		     "sampling; serial)\n%-30s %-9s %12s %12s %10s\n",
		"trace", "allocator", "simulated", "plain", "overhead");
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		char name[96], plain[16], ratio[16];
		if (r->host_ns_per_op <= 0)
			continue;
		snprintf(name, sizeof name, "%s", r->trace->name ? r->trace->name : r->trace_path);
		snprintf(plain, sizeof plain, r->plain_ns_per_op > 0 ? "%.1f" : "n/a", r->plain_ns_per_op);
		snprintf(ratio, sizeof ratio, r->plain_ns_per_op > 0 ? "%.2fx" : "n/a",
			 r->host_ns_per_op / r->plain_ns_per_op);
		fprintf(out, "%-30s %-9s %12.1f %12s %10s\n", name, r->core->name, r->host_ns_per_op,
			plain, ratio);
	}
	fputc('\n', out);
}

/* Relative error of the model against mGBA, in percent (0 when both are 0). */
static double rel_err(double model, double mgba)
{
	if (mgba == 0)
		return model == 0 ? 0 : 100.0;
	return (model - mgba) * 100.0 / mgba;
}

/* --cycles=both: how far the model is from the measurement, per pair: total cycles, and the
 * worst per-op-type p95 (the figures a frame budget is planned with). */
static void model_error_table(FILE *out, const struct agbsim_run *model,
			      const struct agbsim_run *mgba, size_t n)
{
	static const enum agb_op ops[] = {AGB_OP_ALLOC, AGB_OP_FREE, AGB_OP_REALLOC, AGB_OP_REF,
					  AGB_OP_UNREF};
	fprintf(out, "== cycle model vs mgba (targets: total within 5%%, p95 within 15%%)\n"
		     "%-30s %-9s %12s %12s %8s %9s %-8s\n",
		"trace", "allocator", "model", "mgba", "total", "worst p95", "op");
	for (size_t i = 0; i < n; i++) {
		char name[96];
		double worst = 0;
		const char *worst_op = "-";
		if (model[i].status != AGBSIM_EXIT_OK)
			continue;
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
			const struct agb_cycle_stats *a = &model[i].metrics.cycles[ops[k]];
			const struct agb_cycle_stats *b = &mgba[i].metrics.cycles[ops[k]];
			double e;
			if (b->count == 0)
				continue;
			e = rel_err(a->p95, b->p95);
			if (e < 0 ? -e > worst : e > worst) {
				worst = e < 0 ? -e : e;
				worst_op = agb_op_name(ops[k]);
			}
		}
		snprintf(name, sizeof name, "%s",
			 model[i].trace->name ? model[i].trace->name : model[i].trace_path);
		fprintf(out, "%-30s %-9s %12llu %12llu %+7.1f%% %8.1f%% %-8s\n", name,
			model[i].core->name, (unsigned long long)model[i].metrics.total_cycles,
			(unsigned long long)mgba[i].metrics.total_cycles,
			rel_err((double)model[i].metrics.total_cycles,
				(double)mgba[i].metrics.total_cycles),
			worst, worst_op);
	}
	fputc('\n', out);
}

static void print_cell_na(FILE *out, const struct agbsim_run *r)
{
	const char *why = strstr(r->error, "core '");
	fprintf(out, "  n/a: %s\n", why != NULL ? why : r->error);
}

/* pal_ram runs: uploads, sharing, failures, banks per side, the stack's work RAM, cycles per
 * palette op (mean/max). */
static void pal_table_header(FILE *out)
{
	fprintf(out, "%-30s %-9s %7s %6s %5s %7s %5s %7s  %-11s %-11s %-11s %-11s %7s\n", "trace",
		"allocator", "uploads", "dedup", "fail", "banks", "stack", "stackB", "load m/max",
		"free m/max", "push m/max", "pop m/max", "frame%");
}

static void pal_table_row(FILE *out, const struct agb_metrics *m)
{
	static const enum agb_op ops[] = {AGB_OP_PAL_LOAD, AGB_OP_PAL_FREE, AGB_OP_PAL_PUSH,
					  AGB_OP_PAL_POP};
	char banks[16];
	snprintf(banks, sizeof banks, "%u/%u", m->pal_peak_banks[0], m->pal_peak_banks[1]);
	fprintf(out, " %7u %6u %5u %7s %5u %7u ", m->pal_uploads, m->pal_dedup_hits,
		m->pal_failures, banks, m->pal_stack_peak_depth, m->pal_stack_buffer_bytes);
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		const struct agb_cycle_stats *c = &m->cycles[ops[k]];
		char cell[32];
		if (c->count != 0)
			snprintf(cell, sizeof cell, "%.0f/%u", c->mean, c->max);
		else
			snprintf(cell, sizeof cell, "-");
		fprintf(out, " %-11s", cell);
	}
	fprintf(out, " %6.2f%%\n", m->max_frame_pct);
}

static void table_for_arena(FILE *out, enum agb_arena arena, const struct agbsim_run *runs,
			    size_t n)
{
	size_t count = 0, ok = 0, direct = 0;
	for (size_t i = 0; i < n; i++) {
		count += runs[i].trace->arena == arena;
		ok += runs[i].trace->arena == arena && runs[i].status == AGBSIM_EXIT_OK;
		direct += runs[i].trace->arena == arena && runs[i].direct_calls;
	}
	if (count == 0)
		return;
	/* mgba: alloc/free/realloc (ref/unref) are direct calls where the ROM made them (the
	 * core-table figures are in --format=json/csv); "in n runs" when not every run with
	 * figures has them. */
	fprintf(out, "== %s (%zu runs; cycles: %s", agb_arena_name(arena), count, runs[0].cycle_source);
	if (direct != 0 && direct == ok)
		fputs(", direct calls", out);
	else if (direct != 0)
		fprintf(out, ", direct calls in %zu runs", direct);
	fputs(")\n", out);
	if (arena == AGB_ARENA_BG_VRAM) {
		fprintf(out, "%-30s %-9s %7s %7s %7s %8s %7s  %-20s %7s\n", "trace", "allocator",
			"uploads", "peak", "t.fail", "overhead", "corrupt", "ref+unref mean/p99/max",
			"frame%");
	} else if (arena == AGB_ARENA_PAL_RAM) {
		pal_table_header(out);
	} else {
		fprintf(out, "%-30s %-9s %5s %5s %9s %13s %6s %8s %7s  %-20s %-20s %7s\n", "trace",
			"allocator", "fail", "fragf", "min_arena", "frag_ext m/max", "umm", "overhead",
			"corrupt", "alloc mean/p99/max", "free mean/p99/max", "frame%");
	}
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		const struct agb_metrics *m = &r->metrics;
		char name[96], a[32], f[32];
		if (r->trace->arena != arena)
			continue;
		snprintf(name, sizeof name, "%s", r->trace->name ? r->trace->name : r->trace_path);
		fprintf(out, "%-30s %-9s", name, r->core->name);
		if (r->status != AGBSIM_EXIT_OK) {
			print_cell_na(out, r);
			continue;
		}
		if (arena == AGB_ARENA_PAL_RAM) {
			pal_table_row(out, m);
			continue;
		}
		if (arena == AGB_ARENA_BG_VRAM) {
			const struct agb_cycle_stats *c = &m->all_ops;
			snprintf(a, sizeof a, "%.0f/%u/%u", c->mean, c->p99, c->max);
			fprintf(out, " %7u %7u %7u %7.2f%% %7u  %-20s %6.2f%%\n", m->tile_uploads,
				m->peak_resident_tiles, m->tile_failures, m->overhead_ratio * 100.0,
				m->corrupted_bytes, a, m->max_frame_pct);
			continue;
		}
		{
			const struct agb_cycle_stats *ca = &m->cycles[AGB_OP_ALLOC];
			const struct agb_cycle_stats *cf = &m->cycles[AGB_OP_FREE];
			char minar[16], fe[24];
			if (m->min_arena_bytes != 0)
				snprintf(minar, sizeof minar, "%u", m->min_arena_bytes);
			else
				snprintf(minar, sizeof minar, "-");
			snprintf(fe, sizeof fe, "%.3f/%.3f", m->frag_external.mean, m->frag_external.max);
			if (ca->count != 0)
				snprintf(a, sizeof a, "%.0f/%u/%u", ca->mean, ca->p99, ca->max);
			else
				snprintf(a, sizeof a, "-");
			if (cf->count != 0)
				snprintf(f, sizeof f, "%.0f/%u/%u", cf->mean, cf->p99, cf->max);
			else
				snprintf(f, sizeof f, "-");
			fprintf(out, " %5u %5u %9s %13s %6.3f %7.2f%% %7u  %-20s %-20s", m->failures,
				m->frag_failures, minar, fe, m->frag_umm.mean, m->overhead_ratio * 100.0,
				m->corrupted_bytes, a, f);
			if (m->frames != 0)
				fprintf(out, " %6.2f%%\n", m->max_frame_pct);
			else
				fprintf(out, " %7s\n", "-");
		}
	}
	fputc('\n', out);
}

/* Most parallel replays (-j): more threads than that only contend for the pool's lock. */
#define BENCH_MAX_JOBS 256u

enum bench_cycles { CYCLES_MODEL, CYCLES_MGBA, CYCLES_BOTH };

struct bench_args {
	const char *allocators; /* --allocator list, "all", or NULL: each arena's default */
	uint32_t jobs;
	int format;
	unsigned options; /* RUN_* */
	uint32_t flags;   /* AGB_REPLAY_* of every run */
	struct agbsim_gate_options gate;
	const char **tolerances; /* gate.tolerances' storage: argc entries */
	const char **limits;     /* gate.limits' storage: argc entries after those */
	const char *export_format;
	int timing;
	enum bench_cycles cycles;
	uint32_t pool; /* --pool: EWRAM traces' pool, 0 for each trace's own */
	uint32_t pools[AGBSIM_CURVE_MAX_POOLS]; /* --arena-bytes=LIST: the curve's pool sizes */
	size_t npools;
	const char *plot; /* --plot=OUT.png */
	const char *html; /* --html=OUT.html */
	struct agbsim_stream_opts stream;
};

/* What a bench holds; released in one place (bench_release). */
struct bench {
	struct trace_list list;
	struct agb_loaded_trace *loaded; /* list.n entries, `n_loaded` of them loaded */
	size_t n_loaded;
	struct agbsim_run *runs;
	size_t nruns;
	struct agbsim_run *measured; /* --cycles=mgba|both: the runs with mGBA's cycles */
};

static int parse_cycles(const char *arg, enum bench_cycles *out)
{
	static const char *const names[] = {"model", "mgba", "both"};
	for (int i = 0; i < 3; i++)
		if (strcmp(arg, names[i]) == 0) {
			*out = (enum bench_cycles)i;
			return AGBSIM_EXIT_OK;
		}
	return agbsim_usage_error("bench", "--cycles wants model, mgba or both, not '%s'", arg);
}

/* The options that feed the gate (agbsim_gate_options). */
static int gate_option(struct bench_args *a, int opt, const char *arg)
{
	switch (opt) {
	case 'B':
		a->gate.baseline_path = arg;
		return AGBSIM_EXIT_OK;
	case 'U':
		a->gate.update_path = arg;
		return AGBSIM_EXIT_OK;
	case 'T':
		a->tolerances[a->gate.n_tolerances++] = arg;
		return AGBSIM_EXIT_OK;
	case 'L':
		a->limits[a->gate.n_limits++] = arg;
		return AGBSIM_EXIT_OK;
	case 'A':
		a->gate.allow_missing = 1;
		return AGBSIM_EXIT_OK;
	case 'D':
		a->gate.diff_out = arg;
		return AGBSIM_EXIT_OK;
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int bench_option(void *ctx, int opt, const char *arg)
{
	struct bench_args *a = ctx;
	switch (opt) {
	case 'j':
		if (agbsim_parse_u32(arg, &a->jobs) != 0 || a->jobs == 0 || a->jobs > BENCH_MAX_JOBS)
			return agbsim_usage_error("bench", "--jobs wants 1..%u, not '%s'", BENCH_MAX_JOBS,
						  arg);
		return AGBSIM_EXIT_OK;
	case 'f':
		return agbsim_cli_format("bench", arg, &a->format);
	case 'c':
		a->flags |= AGB_REPLAY_CHECK;
		return AGBSIM_EXIT_OK;
	case 'm':
		a->options &= ~(unsigned)RUN_MIN_ARENA;
		return AGBSIM_EXIT_OK;
	case 't':
		a->timing = 1;
		return AGBSIM_EXIT_OK;
	case 'Y':
		return parse_cycles(arg, &a->cycles);
	case 'P':
		if (agbsim_parse_u32(arg, &a->pool) != 0 || a->pool == 0 ||
		    a->pool > agb_arena_region_bytes(AGB_ARENA_EWRAM))
			return agbsim_usage_error("bench", "--pool wants 1..%u bytes (EWRAM), not '%s'",
						  agb_arena_region_bytes(AGB_ARENA_EWRAM), arg);
		return AGBSIM_EXIT_OK;
	case 'E':
		if (strcmp(arg, "bmf") != 0 && strcmp(arg, "gab") != 0)
			return agbsim_usage_error("bench", "--export wants bmf or gab, not '%s'", arg);
		a->export_format = arg;
		return AGBSIM_EXIT_OK;
	case 'R':
		return agbsim_curve_parse_pools(arg, a->pools, &a->npools);
	case 'G':
		a->plot = arg;
		return AGBSIM_EXIT_OK;
	case 'W':
		a->html = arg;
		return AGBSIM_EXIT_OK;
	default: {
		int rc = agbsim_stream_option("bench", opt, arg, &a->stream);
		return rc >= 0 ? rc : gate_option(a, opt, arg);
	}
	}
}

/* Options that only make sense together, the core list, the default job count. */
static int check_args(struct bench_args *a)
{
	if (a->gate.baseline_path != NULL && a->format != FORMAT_TABLE && a->format != FORMAT_MD)
		return agbsim_usage_error("bench", "with --baseline, --format is table or md");
	if ((a->gate.diff_out != NULL || a->gate.n_tolerances != 0 || a->gate.n_limits != 0 ||
	     a->gate.allow_missing) &&
	    a->gate.baseline_path == NULL)
		return agbsim_usage_error(
			"bench", "--tolerance, --limit, --allow-missing and --diff-out need --baseline");
	if (agbsim_gate_check_options(&a->gate) != AGBSIM_EXIT_OK)
		return AGBSIM_EXIT_USAGE;
	if (a->npools != 0 && (a->gate.baseline_path != NULL || a->gate.update_path != NULL ||
			       a->pool != 0 || a->export_format != NULL))
		return agbsim_usage_error("bench", "--arena-bytes=LIST goes without --baseline, "
						   "--update-baseline, --pool and --export (a pair "
						   "has one figure per pool size)");
	if (a->html != NULL && a->npools != 0)
		return agbsim_usage_error("bench", "--html goes without --arena-bytes=LIST");
	if (a->plot != NULL && a->npools == 0)
		return agbsim_usage_error("bench", "--plot needs --arena-bytes=LIST (the pool sizes)");
	a->gate.format = (enum agbsim_format)a->format;
	if (a->allocators != NULL && strcmp(a->allocators, "all") != 0 &&
	    check_core_list(a->allocators, a->cycles == CYCLES_MGBA) != AGBSIM_EXIT_OK)
		return AGBSIM_EXIT_USAGE;
	if (a->jobs == 0) {
		unsigned n = agb_cpu_count();
		a->jobs = n > BENCH_MAX_JOBS ? BENCH_MAX_JOBS : (uint32_t)n;
	}
	return AGBSIM_CLI_RUN;
}

/* Returns AGBSIM_CLI_RUN with the traces' operands from *first, or an exit status. */
static int parse_args(struct bench_args *a, int argc, char **argv, int *first)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"jobs", required_argument, NULL, 'j'},
		{"format", required_argument, NULL, 'f'},    {"check", no_argument, NULL, 'c'},
		{"no-min-arena", no_argument, NULL, 'm'},    {"help", no_argument, NULL, 'h'},
		{"baseline", required_argument, NULL, 'B'},  {"update-baseline", required_argument, NULL, 'U'},
		{"tolerance", required_argument, NULL, 'T'}, {"allow-missing", no_argument, NULL, 'A'},
		{"diff-out", required_argument, NULL, 'D'},  {"export", required_argument, NULL, 'E'},
		{"limit", required_argument, NULL, 'L'},
		{"timing", no_argument, NULL, 't'},
		{"cycles", required_argument, NULL, 'Y'},
		{"pool", required_argument, NULL, 'P'},
		{"arena-bytes", required_argument, NULL, 'R'},
		{"plot", required_argument, NULL, 'G'},
		{"html", required_argument, NULL, 'W'},
		AGBSIM_STREAM_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('a', struct bench_args, allocators), {0, 0}};
	const struct agbsim_cli cli = {"bench", "j:", longopts, usage, bench_option, a, NULL, texts};
	int rc;
	a->format = FORMAT_TABLE;
	a->options = RUN_MIN_ARENA;
	a->flags = AGB_REPLAY_CANARIES;
	a->gate.tolerances = a->tolerances;
	a->gate.limits = a->limits;
	rc = agbsim_cli_parse(&cli, argc, argv, first);
	return rc != AGBSIM_CLI_RUN ? rc : check_args(a);
}

/* The traces named on the command line (a DIR: its traces), or those below traces/. */
static int collect_traces(struct trace_list *list, int argc, char **argv, int first)
{
	int rc = AGBSIM_EXIT_OK;
	if (first == argc)
		rc = scan_dir(list, "traces");
	for (int i = first; i < argc && rc == AGBSIM_EXIT_OK; i++) {
		if (agb_path_kind(argv[i]) == AGB_PATH_DIR)
			rc = scan_dir(list, argv[i]);
		else if (push_path(list, argv[i]) != 0)
			rc = AGBSIM_EXIT_IO;
	}
	if (rc == AGBSIM_EXIT_OK && list->n == 0)
		rc = agbsim_usage_error("bench", "no traces found");
	return rc;
}

/* Load everything first: bad input is reported before any replay, and nothing is printed. */
static int load_traces(struct bench *b)
{
	b->loaded = calloc(b->list.n + 1u, sizeof *b->loaded); /* +1: never calloc(0) */
	if (b->loaded == NULL)
		return AGBSIM_EXIT_IO;
	for (; b->n_loaded < b->list.n; b->n_loaded++) {
		int rc = agbsim_load_trace(b->list.paths[b->n_loaded], &b->loaded[b->n_loaded]);
		if (rc != AGBSIM_EXIT_OK)
			return rc;
	}
	return AGBSIM_EXIT_OK;
}

static size_t count_cores(const struct agb_heap_core *const *cores)
{
	size_t n = 0;
	while (cores[n] != NULL)
		n++;
	return n;
}

static struct agbsim_run *add_run(struct bench *b, const struct bench_args *a, size_t trace,
				  const struct agb_heap_core *core)
{
	struct agbsim_run *r = &b->runs[b->nruns++];
	*r = (struct agbsim_run){.trace_path = b->list.paths[trace], .trace = &b->loaded[trace].trace,
				 .core = core};
	r->cfg.flags = a->flags;
	r->stream = a->stream;
	if (a->pool != 0 && r->trace->arena == AGB_ARENA_EWRAM)
		r->cfg.arena_bytes = a->pool;
	return r;
}

/* The host cores chosen for trace i that can manage its arena. */
static void plan_host_runs(struct bench *b, const struct bench_args *a, size_t i)
{
	const struct agb_trace *t = &b->loaded[i].trace;
	for (size_t c = 0; agb_heap_cores[c] != NULL; c++) {
		const struct agb_heap_core *core = agb_heap_cores[c];
		int wanted;
		if ((core->arenas & AGB_ARENA_BIT(t->arena)) == 0)
			continue;
		if (a->allocators == NULL)
			wanted = core == agb_heap_core_default(t->arena);
		else
			wanted = strcmp(a->allocators, "all") == 0 || core_listed(a->allocators, core->name);
		if (wanted && a->npools == 0)
			add_run(b, a, i, core);
		for (size_t k = 0; wanted && k < a->npools; k++)
			add_run(b, a, i, core)->cfg.arena_bytes = a->pools[k];
	}
}

/* --cycles=mgba: the GBA-only cores named (or all of them for the arenas they manage); one
 * named for an arena it cannot manage gets an n/a row that says so. */
static void plan_gba_only_runs(struct bench *b, const struct bench_args *a, size_t i)
{
	const struct agb_trace *t = &b->loaded[i].trace;
	for (size_t c = 0; agb_reference_cores[c] != NULL; c++) {
		const struct agb_heap_core *core = agb_reference_cores[c];
		int named = core_listed(a->allocators, core->name);
		struct agbsim_run *r;
		if (!named && (strcmp(a->allocators, "all") != 0 ||
			       (core->arenas & AGB_ARENA_BIT(t->arena)) == 0))
			continue;
		r = add_run(b, a, i, core);
		if ((core->arenas & AGB_ARENA_BIT(t->arena)) == 0) {
			r->status = AGBSIM_EXIT_USAGE;
			snprintf(r->error, sizeof r->error,
				 "core '%s': not applicable to %s (malloc serves the EWRAM heap only)",
				 core->name, agb_arena_name(t->arena));
		}
	}
}

/* Every (trace x core) pair to run: at most one per core for each trace. */
static int plan_runs(struct bench *b, const struct bench_args *a)
{
	size_t per_trace = (count_cores(agb_heap_cores) + count_cores(agb_reference_cores)) *
			   (a->npools != 0 ? a->npools : 1u);
	b->runs = calloc(b->list.n * per_trace + 1u, sizeof *b->runs); /* +1: never calloc(0) */
	if (b->runs == NULL)
		return AGBSIM_EXIT_IO;
	for (size_t i = 0; i < b->list.n; i++) {
		plan_host_runs(b, a, i);
		if (a->cycles == CYCLES_MGBA && a->allocators != NULL)
			plan_gba_only_runs(b, a, i);
	}
	if (b->nruns == 0)
		return agbsim_usage_error("bench", "none of the chosen allocators can manage these traces");
	return AGBSIM_EXIT_OK;
}

/* The replays, on up to `jobs` threads (on this one when none can be started). */
static int run_pool(struct bench *b, const struct bench_args *a)
{
	struct pool p = {b->runs, b->nruns, 0, a->options};
	uint32_t want = a->jobs < b->nruns ? a->jobs : (uint32_t)b->nruns;
	if (agb_run_threads(want, worker, &p) == 0)
		worker(&p);
	return AGBSIM_EXIT_OK;
}

/* A core that broke an invariant or corrupted a block: no numbers, no baseline. */
static int check_broken(const struct bench *b)
{
	int rc = AGBSIM_EXIT_OK;
	for (size_t i = 0; i < b->nruns; i++) {
		const struct agbsim_run *r = &b->runs[i];
		if (r->status == AGBSIM_EXIT_IO) {
			agbsim_error("%s", r->error);
			rc = AGBSIM_EXIT_IO;
		} else if (r->status == AGBSIM_EXIT_OK && r->metrics.corrupted_bytes != 0) {
			agbsim_error("%s: core '%s' corrupted %u bytes of live blocks", r->trace_path,
				     r->core->name, r->metrics.corrupted_bytes);
			rc = AGBSIM_EXIT_IO;
		}
	}
	return rc;
}

/* --cycles=mgba|both: every pair again in mGBA, serially (mGBA's logger is process-wide). */
static int measure_runs(struct bench *b, const struct bench_args *a)
{
	struct agbsim_measure_opts mo = {PLACEMENT_ROM, 0, NULL, NULL, 1};
	if (!agbsim_measure_available()) {
		agbsim_error("bench: --cycles=%s needs libmgba and the bench ROMs; this agbsim was "
			     "built without them%s",
			     a->cycles == CYCLES_MGBA ? "mgba" : "both", AGBSIM_MGBA_NOTE);
		return AGBSIM_EXIT_IO;
	}
	b->measured = calloc(b->nruns + 1u, sizeof *b->measured); /* +1: never calloc(0) */
	if (b->measured == NULL)
		return AGBSIM_EXIT_IO;
	for (size_t i = 0; i < b->nruns; i++) {
		struct agbsim_run *m = &b->measured[i];
		int gba_only = agbsim_gba_only_rom(b->runs[i].core) != NULL, mrc;
		*m = b->runs[i];
		/* Every pair of the set is labelled with the set's source, n/a ones too: tables,
		 * recommendations and a baseline take the label from the first pair. */
		m->cycle_source = "mgba";
		if (m->status != AGBSIM_EXIT_OK)
			continue;
		mrc = agbsim_measure_run(m, gba_only ? a->options : 0, &mo, NULL);
		if (mrc == AGBSIM_EXIT_USAGE && gba_only)
			continue; /* cannot serve this trace: an n/a row, as for host cores */
		if (mrc != AGBSIM_EXIT_OK) {
			agbsim_error("%s", m->error);
			return AGBSIM_EXIT_IO;
		}
		/* Memory figures are the same run's; only the cycles come from mGBA (a GBA-only
		 * core's min arena is measured on the GBA). */
		if (!gba_only)
			m->metrics.min_arena_bytes = b->runs[i].metrics.min_arena_bytes;
	}
	if (a->cycles == CYCLES_MGBA)
		memcpy(b->runs, b->measured, b->nruns * sizeof *b->runs);
	return AGBSIM_EXIT_OK;
}

/* --timing: serial, after the parallel part: wall-clock figures need a quiet machine. */
static void time_runs(struct bench *b)
{
	for (size_t i = 0; i < b->nruns; i++) {
		struct agbsim_run *r = &b->runs[i];
		if (r->status != AGBSIM_EXIT_OK || agbsim_gba_only_rom(r->core) != NULL)
			continue;
		r->host_ns_per_op = time_replay(r);
		r->plain_ns_per_op = time_plain(r);
	}
}

/* csv: the per-run report of the runs that produced numbers; the others said on stderr. */
static int print_csv(const struct bench *b)
{
	struct agbsim_run *ok = calloc(b->nruns + 1u, sizeof *ok); /* +1: never calloc(0) */
	size_t k = 0;
	if (ok == NULL)
		return AGBSIM_EXIT_IO;
	for (size_t i = 0; i < b->nruns; i++)
		if (b->runs[i].status == AGBSIM_EXIT_OK)
			ok[k++] = b->runs[i];
	agbsim_report(stdout, FORMAT_CSV, ok, k);
	for (size_t i = 0; i < b->nruns; i++)
		if (b->runs[i].status != AGBSIM_EXIT_OK)
			fprintf(stderr, "agbsim: n/a: %s\n", b->runs[i].error);
	free(ok);
	return AGBSIM_EXIT_OK;
}

/* The result in the chosen format (n/a runs get a row in table and md). */
static int print_results(const struct bench *b, const struct bench_args *a)
{
	switch (a->format) {
	case FORMAT_JSON:
		agbsim_bench_write_json(stdout, b->runs, b->nruns, NULL, NULL);
		return AGBSIM_EXIT_OK;
	case FORMAT_TABLE:
		if (a->npools != 0) {
			agbsim_curve_table(stdout, b->runs, b->nruns);
			return AGBSIM_EXIT_OK;
		}
		for (int k = 0; k < AGB_ARENA_COUNT; k++)
			table_for_arena(stdout, (enum agb_arena)k, b->runs, b->nruns);
		if (a->timing)
			timing_table(stdout, b->runs, b->nruns);
		if (a->cycles == CYCLES_BOTH)
			model_error_table(stdout, b->runs, b->measured, b->nruns);
		agbsim_bench_recommend(stdout, FORMAT_TABLE, b->runs, b->nruns,
				       (a->options & RUN_MIN_ARENA) != 0);
		return AGBSIM_EXIT_OK;
	case FORMAT_MD:
		agbsim_report(stdout, FORMAT_MD, b->runs, b->nruns);
		agbsim_bench_recommend(stdout, FORMAT_MD, b->runs, b->nruns,
				       (a->options & RUN_MIN_ARENA) != 0);
		return AGBSIM_EXIT_OK;
	default:
		return print_csv(b);
	}
}

/* The gate (--baseline: its report is the output), --export, or the report. */
static int output(const struct bench *b, const struct bench_args *a)
{
	int rc = AGBSIM_EXIT_OK;
	struct agbsim_gate_options gate = a->gate;
	gate.traces = b->loaded; /* to name the traces no chosen core ran */
	gate.trace_paths = b->list.paths;
	gate.n_traces = b->n_loaded;
	agbsim_note_extrapolated(b->runs, b->nruns);
	if (a->gate.baseline_path != NULL || a->gate.update_path != NULL)
		rc = agbsim_gate(stdout, b->runs, b->nruns, &gate);
	if (a->gate.baseline_path == NULL) {
		if (a->export_format != NULL)
			agbsim_export(stdout, a->export_format, b->runs, b->nruns);
		else
			rc = print_results(b, a) != AGBSIM_EXIT_OK ? AGBSIM_EXIT_IO : rc;
	}
	if (fflush(stdout) != 0)
		rc = AGBSIM_EXIT_IO;
	return rc;
}

static void bench_release(struct bench *b)
{
	for (size_t i = 0; i < b->n_loaded; i++)
		agb_trace_release(&b->loaded[i]);
	free(b->loaded);
	free(b->runs);
	free(b->measured);
	for (size_t i = 0; i < b->list.n; i++)
		free(b->list.paths[i]);
	free(b->list.paths);
}

int agbsim_cmd_bench(int argc, char **argv)
{
	struct bench_args a = {0};
	struct bench b = {0};
	int first, rc;
	a.tolerances = calloc(2 * (size_t)argc, sizeof *a.tolerances);
	if (a.tolerances == NULL)
		return AGBSIM_EXIT_IO;
	a.limits = a.tolerances + argc;
	rc = parse_args(&a, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN) {
		free(a.tolerances);
		return rc; /* --help or bad usage: nothing held yet */
	}
	rc = collect_traces(&b.list, argc, argv, first);
	if (rc == AGBSIM_EXIT_OK)
		rc = load_traces(&b);
	/* The gate keys pairs by trace name: two traces of one name would compare one with the
	 * other's baseline. */
	if (rc == AGBSIM_EXIT_OK && (a.gate.baseline_path != NULL || a.gate.update_path != NULL))
		rc = agbsim_gate_unique_names(b.loaded, b.list.paths, b.n_loaded);
	if (rc == AGBSIM_EXIT_OK)
		rc = plan_runs(&b, &a);
	if (rc == AGBSIM_EXIT_OK)
		rc = run_pool(&b, &a);
	if (rc == AGBSIM_EXIT_OK)
		rc = check_broken(&b);
	if (rc == AGBSIM_EXIT_OK && a.cycles != CYCLES_MODEL)
		rc = measure_runs(&b, &a);
	if (rc == AGBSIM_EXIT_OK && a.timing)
		time_runs(&b);
	/* The picture first: when it cannot be written, nothing is printed either. */
	if (rc == AGBSIM_EXIT_OK && a.plot != NULL)
		rc = agbsim_curve_plot(a.plot, b.runs, b.nruns);
	if (rc == AGBSIM_EXIT_OK && a.html != NULL)
		rc = agbsim_html_bench(a.html, b.runs, b.nruns, (a.options & RUN_MIN_ARENA) != 0);
	if (rc == AGBSIM_EXIT_OK)
		rc = output(&b, &a);
	bench_release(&b);
	free(a.tolerances);
	return rc;
}
