/* agbsim measure: replay a trace on the emulated ARM7TDMI (the bench ROM in libmgba) and report
 * it like `replay`, with measured cycles (docs/design.md, "Cycle figures").
 *
 * How: the trace and run config are packed (src/trace/trace_bin.c) and appended to the bench
 * ROM; the ROM runs the same engine and core, bracketing each core call with host markers
 * (SWI 0xF0, timed by mGBA's global cycle counter) and reporting every outcome and the final
 * walk(). On the host the same trace is replayed too: the decisions must agree exactly (else
 * exit 3), the host run supplies everything but cycles (fragmentation, overhead, ...) through
 * the same metrics code, and the measured per-op cycles replace the model's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/gba_only.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "trace/trace_load.h"

#ifdef AGB_MEASURE_ENABLED
#include "bench_abi.h"
#include "mgba_runner.h"
#include "trace/trace_bin.h"
#endif

int agbsim_measure_available(void)
{
#ifdef AGB_MEASURE_ENABLED
	return 1;
#else
	return 0;
#endif
}

void agbsim_measured_free(struct agbsim_measured *m)
{
	if (m == NULL)
		return;
	free(m->model);
	free(m->mgba);
	m->model = m->mgba = NULL;
}

#ifdef AGB_MEASURE_ENABLED

#define fail agbsim_run_fail /* run.c: run->error, run->status */

/* What one side decided at one event. */
struct decision {
	uint32_t addr, granted, info; /* info: outcome | result << 8 */
	uint32_t seen;
};

struct walk_run {
	uint32_t addr, bytes, kind;
};

struct walk_list {
	struct walk_run *runs;
	size_t n, cap;
	int oom;
};

static void walk_push(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct walk_list *w = ctx;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct walk_run *nr = realloc(w->runs, cap * sizeof *nr);
		if (nr == NULL) {
			w->oom = 1;
			return;
		}
		w->runs = nr;
		w->cap = cap;
	}
	w->runs[w->n++] = (struct walk_run){addr, bytes, (uint32_t)kind};
}

/* The host side of the comparison: a plain replay that keeps every decision and model cost. */
struct host_ref {
	struct decision *d;
	uint32_t *model;
};

static void host_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct host_ref *h = ctx;
	h->d[o->index] = (struct decision){o->addr, o->granted, (uint32_t)o->outcome | o->result << 8, 1};
	h->model[o->index] = o->cycles;
}

/* Where the bench ROMs are: $AGBSIM_GBA_DIR, then gba/ next to this executable, then the build
 * tree this agbsim was configured in. */
static int rom_path(const struct agb_heap_core *core, enum agbsim_placement pl, char *out, size_t n)
{
	char name[96];
	if (pl == PLACEMENT_IWRAM) {
		char file[40];
		size_t i;
		for (i = 0; core->name[i] != '\0' && i + 1 < sizeof file; i++)
			file[i] = core->name[i] == '-' ? '_' : core->name[i];
		file[i] = '\0';
		snprintf(name, sizeof name, "agbsim-bench-iwram-%s.gba", file);
	} else {
		snprintf(name, sizeof name, "agbsim-bench.gba");
	}
	return agbsim_gba_rom_find(name, out, n);
}

/* The metrics pass: the host run's observations with the measured cycles and outcomes. */
struct subst {
	struct agb_metrics_acc acc;
	struct agbsim_table_figures *tf; /* or NULL: no direct calls */
	const uint32_t *mgba;
	const struct agbsim_rom_event *g;
	struct agbsim_events_out *eo;
};

static void subst_observe(void *ctx, const struct agb_replay_obs *obs)
{
	struct subst *s = ctx;
	struct agb_replay_obs o = *obs;
	o.cycles = s->mgba[o.index];
	agb_metrics_observe(&s->acc, &o);
	if (s->tf != NULL)
		agbsim_table_observe(s->tf, &o);
	if (s->eo != NULL) {
		/* --events-out reports what the GBA decided (the host's is checked against it). */
		const struct agbsim_rom_event *g = &s->g[o.index];
		o.addr = g->addr;
		o.granted = g->granted;
		o.outcome = (uint8_t)(g->info & 0xFFu);
		o.result = g->info >> 8;
		agbsim_events_out_observe(s->eo, &o);
	}
}

static const char *outcome_name(uint32_t info)
{
	static const char *const n[] = {"ok", "failed", "skipped"};
	return (info & 0xFFu) < 3u ? n[info & 0xFFu] : "?";
}

/* Everything one measured run holds; released in one place (measure_release). Per-event arrays
 * have event_count + 1 entries (the engine may report one past the last event). */
struct measure {
	struct agbsim_run *run;
	const struct agb_trace *t;
	uint32_t n;                /* t->event_count */
	struct host_ref host;      /* host decisions and model cycles */
	struct agbsim_rom_event *gba; /* the GBA's decisions and cycles */
	uint32_t *mgba;            /* measured cycles, marker overhead subtracted: the reported
				    * figures (direct calls where the ROM made them) */
	uint32_t *table;           /* the same through the core table (the replay's calls) */
	uint32_t *cyc2;            /* the metrics pass's cycle samples */
	struct walk_list hw, gw;   /* final memory maps: host, GBA */
	agb_machine *m;
	void *ws, *blob;
	size_t ws_bytes, blob_len;
	struct agb_mgba_result res;
	uint64_t model_total;      /* the host model's cycles over the trace */
	uint32_t overhead;         /* cycles of an empty marker pair */
};

static int measure_alloc(struct measure *s)
{
	size_t n1 = (size_t)s->n + 1u;
	s->host.d = calloc(n1, sizeof *s->host.d);
	s->host.model = calloc(n1, sizeof *s->host.model);
	s->gba = calloc(n1, sizeof *s->gba);
	s->mgba = calloc(n1, sizeof *s->mgba);
	s->table = calloc(n1, sizeof *s->table);
	s->cyc2 = malloc(n1 * sizeof *s->cyc2);
	s->m = malloc(sizeof *s->m);
	s->ws_bytes = agb_replay_workspace_bytes(s->t);
	s->ws = malloc(s->ws_bytes);
	if (!s->host.d || !s->host.model || !s->gba || !s->mgba || !s->table || !s->cyc2 || !s->m || !s->ws)
		return fail(s->run, AGBSIM_EXIT_IO, "out of memory measuring %s", s->run->trace_path);
	return AGBSIM_EXIT_OK;
}

static void measure_release(struct measure *s)
{
	agb_mgba_result_free(&s->res);
	free(s->blob);
	free(s->host.d);
	free(s->host.model);
	free(s->gba);
	free(s->mgba);
	free(s->table);
	free(s->cyc2);
	free(s->hw.runs);
	free(s->gw.runs);
	free(s->ws);
	free(s->m);
}

/* 1. Host reference: decisions, model cycles, final walk. */
static int host_reference(struct measure *s)
{
	struct agbsim_run *run = s->run;
	struct agb_replay_result hres;
	agb_machine_init(s->m, AGB_WAITCNT_DEFAULT);
	agb_replay_run(s->t, &run->cfg, s->m, s->ws, s->ws_bytes, host_observe, &s->host, &hres);
	if (hres.status != AGB_REPLAY_OK) {
		/* Let the regular path say why (same wording as replay). */
		int rc = agbsim_run_replay(run, 0, NULL);
		if (rc == AGBSIM_EXIT_OK)
			rc = fail(run, AGBSIM_EXIT_IO, "%s: host replay stopped (status %d)",
				  run->trace_path, hres.status);
		return rc;
	}
	run->core->walk(agb_replay_core_state(s->ws), walk_push, &s->hw);
	for (uint32_t i = 0; i < s->n; i++)
		s->model_total += s->host.model[i];
	return AGBSIM_EXIT_OK;
}

/* The trace and run config packed for the ROM (decisions do not depend on the observation
 * flags, so the GBA skips the costly ones). */
static int pack_payload(struct measure *s, const struct agbsim_measure_opts *mo)
{
	struct agb_bin_run br = {0};
	for (uint32_t i = 0; agb_heap_cores[i] != NULL; i++)
		if (agb_heap_cores[i] == s->run->core)
			br.core_index = i;
	br.core = s->run->core;
	br.cfg = s->run->cfg;
	br.cfg.flags = (s->run->cfg.flags & ~(uint32_t)(AGB_REPLAY_CHECK | AGB_REPLAY_CANARIES)) |
		       AGB_REPLAY_NO_STATS;
	/* The game's own calls beside the table's: the tiles loop, or the direct run of a core
	 * with a typed alloc/free (bench_abi.h; the ROM knows which cores have one). */
	br.bench_flags = AGB_BENCH_OBS | AGB_BENCH_DIRECT |
			 (mo->screen || mo->png_path ? AGB_BENCH_SCREEN : 0u);
	if (agb_trace_pack(s->t, &br, &s->blob, &s->blob_len) != 0)
		return fail(s->run, AGBSIM_EXIT_IO, "%s: cannot pack the trace for the ROM (too large?)",
			    s->run->trace_path);
	return AGBSIM_EXIT_OK;
}

/* 2. The GBA run: the ROM replays the packed trace in mGBA and must finish it. */
static int gba_run(struct measure *s, const char *rom, const struct agbsim_measure_opts *mo)
{
	struct agbsim_run *run = s->run;
	struct agb_mgba_options opt = {0};
	int rc = pack_payload(s, mo);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	opt.payload = s->blob;
	opt.payload_len = s->blob_len;
	opt.host_markers = 1;
	/* Generous: the model may be well off before it is fitted; the ROM stops on its own. */
	opt.max_frames = 3600u + s->model_total * 8u / AGB_FRAME_CYCLES + s->n / 64u;
	opt.png_path = mo->png_path;
	opt.extra_frames = mo->png_path != NULL ? 2u : 0u;
	return agbsim_gba_rom_run(run, rom, &opt, s->n, &s->res);
}

static void debug_dump(const struct measure *s)
{
	fprintf(stderr, "measure: marker pair overhead %u cycles, %zu markers, %llu emulated cycles\n",
		s->overhead, s->res.marker_count, (unsigned long long)s->res.cycles);
	for (uint32_t i = 0; i < s->n && i < 40u; i++)
		fprintf(stderr, "  event %u %s model %u mgba %u\n", i, agb_op_name(s->t->events[i].op),
			s->host.model[i], s->mgba[i]);
}

/* 3. Markers -> per-op cycles and the GBA's decisions. Work the engine counts as not done
 * costs 0 on both sides, as in the model: skipped ops, and frames or sprite ops a core passes
 * over (its event() is only a call and a return). Decided by the op and its outcome, never by
 * the model's figure: a model that predicts 0 must not erase a measurement. */
static void read_markers(struct measure *s)
{
	agbsim_rom_read_markers(&s->res, s->n, s->gba, &s->overhead, walk_push, &s->gw);
	for (uint32_t i = 0; i < s->n; i++)
		s->mgba[i] = s->gba[i].cycles;
	if (getenv("AGBSIM_MEASURE_DEBUG") != NULL)
		debug_dump(s);
	for (uint32_t i = 0; i < s->n; i++) {
		uint8_t op = s->t->events[i].op;
		int passive = op == AGB_OP_FRAME || op == AGB_OP_SPR_SHOW || op == AGB_OP_SPR_Z ||
			      op == AGB_OP_SPR_HIDE || op == AGB_OP_SYNC || op == AGB_OP_REFUSED;
		if ((s->host.d[i].info & 0xFFu) == AGB_OUTCOME_SKIPPED ||
		    (passive && s->host.model[i] == 0))
			s->mgba[i] = 0;
	}
	memcpy(s->table, s->mgba, (size_t)s->n * sizeof *s->table);
}

/* 4b. The direct run (when the ROM made one: a core with a typed API, a trace it serves) must
 * have made the replay's decisions, call by call (the ROM checked the final memory map); its
 * calls become the reported figures, the table's are kept beside them. */
static int direct_calls(struct measure *s)
{
	int rc;
	s->run->direct_calls = 0;
	if (s->res.results.values[AGB_BENCH_V_DIRECT_CALLS] == 0)
		return AGBSIM_EXIT_OK;
	rc = agbsim_direct_check(s->run, s->gba, s->gba);
	if (rc == AGBSIM_EXIT_OK)
		agbsim_direct_substitute(s->run, s->gba, s->gba, s->mgba, s->table);
	return rc;
}

/* 4. Same decisions at every event, and the same final memory map? */
static int check_agreement(struct measure *s)
{
	struct agbsim_run *run = s->run;
	int same = s->hw.n == s->gw.n && !s->hw.oom && !s->gw.oom;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct decision *h = &s->host.d[i];
		const struct agbsim_rom_event *g = &s->gba[i];
		if (!g->seen || h->addr != g->addr || h->granted != g->granted || h->info != g->info)
			return fail(run, AGBSIM_EXIT_IO,
				    "%s: core '%s': the GBA and the host disagree at event %u (%s): host "
				    "%s addr 0x%08x granted %u result %u, GBA %s addr 0x%08x granted %u "
				    "result %u",
				    run->trace_path, run->core->name, i, agb_op_name(s->t->events[i].op),
				    outcome_name(h->info), h->addr, h->granted, h->info >> 8,
				    g->seen ? outcome_name(g->info) : "(no report)", g->addr, g->granted,
				    g->info >> 8);
	}
	for (size_t i = 0; same && i < s->hw.n; i++)
		same = s->hw.runs[i].addr == s->gw.runs[i].addr &&
		       s->hw.runs[i].bytes == s->gw.runs[i].bytes &&
		       s->hw.runs[i].kind == s->gw.runs[i].kind;
	if (!same)
		return fail(run, AGBSIM_EXIT_IO,
			    "%s: core '%s': the final memory maps differ: host %zu runs, GBA %zu runs",
			    run->trace_path, run->core->name, s->hw.n, s->gw.n);
	return AGBSIM_EXIT_OK;
}

/* 5. The report: the host's metrics with measured cycles (and, for --events-out, the GBA's
 * outcomes). agbsim_run_replay fills run->metrics with model figures; ours go to a copy. */
static int measured_metrics(struct measure *s, unsigned options, FILE *events_out)
{
	struct agbsim_run *run = s->run;
	struct agbsim_events_out eo = {0};
	struct agbsim_table_figures tf = {0};
	struct subst sub = {.mgba = s->mgba, .g = s->gba, .eo = NULL};
	struct agbsim_tap tap = {subst_observe, &sub};
	struct agb_metrics measured;
	uint32_t min_arena;
	int rc, direct = run->direct_calls;
	if (events_out != NULL) {
		eo.out = events_out;
		eo.trace = s->t;
		eo.arena_addr = agb_arena_base(s->t->arena);
		eo.features = 1; /* the host's counts beside the measured cycles: what the fit needs */
		sub.eo = &eo;
	}
	agb_metrics_begin(&sub.acc, &measured, s->t, run->core->unit, s->cyc2);
	if (direct) {
		if (agbsim_table_begin(&tf, s->t, run->core->unit, s->table) != 0)
			return fail(run, AGBSIM_EXIT_IO, "out of memory measuring %s", run->trace_path);
		sub.tf = &tf;
	}
	rc = agbsim_run_replay(run, options, &tap);
	run->direct_calls = direct; /* the replay starts the run afresh */
	if (rc != AGBSIM_EXIT_OK) {
		free(tf.cyc);
		return rc;
	}
	agb_metrics_end(&sub.acc, &run->result);
	if (direct)
		agbsim_table_end(&tf, &run->result, run);
	min_arena = run->metrics.min_arena_bytes;
	run->metrics = measured;
	run->metrics.min_arena_bytes = min_arena;
	run->cycle_source = "mgba";
	return AGBSIM_EXIT_OK;
}

/* Hands the per-event arrays to the caller (they are not released with s then). */
static void give_per_event(struct measure *s, struct agbsim_measured *per_event)
{
	per_event->model = s->host.model;
	per_event->mgba = s->mgba;
	per_event->marker_overhead = s->overhead;
	per_event->emulated_cycles = s->res.cycles;
	per_event->direct_ops = s->res.results.values[AGB_BENCH_V_DIRECT_OPS];
	per_event->direct_cycles = s->res.results.values[AGB_BENCH_V_DIRECT_CYCLES];
	per_event->direct_empty = s->res.results.values[AGB_BENCH_V_DIRECT_EMPTY];
	s->host.model = NULL;
	s->mgba = NULL;
}

int agbsim_measure_run(struct agbsim_run *run, unsigned options,
		       const struct agbsim_measure_opts *mo, struct agbsim_measured *per_event)
{
	struct measure s = {.run = run, .t = run->trace, .n = run->trace->event_count};
	char rom[PATH_MAX + 256];
	int rc;

	if (agbsim_gba_only_rom(run->core) != NULL) /* no host run: the ROM's figures only */
		return agbsim_measure_gba_only(run, options, mo, per_event);
	run->cfg.core = run->core;
	run->error[0] = '\0';
	run->direct_calls = 0;
	if (rom_path(run->core, mo->placement, rom, sizeof rom) != 0)
		return fail(run, AGBSIM_EXIT_IO,
			    "no bench ROM for core '%s' (%s placement): build the GBA ROMs or set AGBSIM_GBA_DIR",
			    run->core->name, mo->placement == PLACEMENT_IWRAM ? "iwram" : "rom");
	rc = measure_alloc(&s);
	if (rc == AGBSIM_EXIT_OK)
		rc = host_reference(&s);
	if (rc == AGBSIM_EXIT_OK)
		rc = gba_run(&s, rom, mo);
	if (rc == AGBSIM_EXIT_OK) {
		int mrc;
		read_markers(&s);
		rc = check_agreement(&s);
		if (rc == AGBSIM_EXIT_OK)
			rc = direct_calls(&s);
		/* The metrics pass runs even when the sides disagree: --events-out is the evidence.
		 * Its replay clears run->error, which holds the disagreement: keep that. */
		char why[sizeof run->error];
		memcpy(why, run->error, sizeof why);
		mrc = measured_metrics(&s, options, mo->events_out);
		if (rc != AGBSIM_EXIT_OK)
			memcpy(run->error, why, sizeof why);
		else if (mrc != AGBSIM_EXIT_OK)
			rc = mrc;
		else if (per_event != NULL)
			give_per_event(&s, per_event);
	}
	if (rc != AGBSIM_EXIT_OK)
		run->status = rc;
	measure_release(&s);
	return rc;
}

#else /* !AGB_MEASURE_ENABLED */

int agbsim_measure_run(struct agbsim_run *run, unsigned options,
		       const struct agbsim_measure_opts *mo, struct agbsim_measured *per_event)
{
	(void)options;
	(void)mo;
	(void)per_event;
	snprintf(run->error, sizeof run->error,
		 "this agbsim was built without libmgba (or without the GBA ROMs): %s",
		 AGBSIM_MGBA_HINT);
	run->status = AGBSIM_EXIT_IO;
	return AGBSIM_EXIT_IO;
}

#endif

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: agbsim measure TRACE [OPTIONS]\n\n"
		"Replays TRACE on the emulated ARM7TDMI: the bench ROM (the same replay engine and\n"
		"cores, cross-compiled) runs in libmgba, headless, and every core call is timed with\n"
		"host markers. Prints the same report as 'replay' with cycle figures labelled 'mgba'.\n"
		"alloc/free/realloc (tiles: ref/unref) are timed a second time calling the core's own\n"
		"functions directly, as a game calls them: those figures are reported, the calls\n"
		"through the core table beside them.\n"
		"The host replays the trace too and the two must make identical decisions (every\n"
		"offset, failure and the final memory map), else exit 3.\n\n"
		"Options:\n"
		"  --allocator=NAME     core to run (default: the arena's own; see 'agbsim list')\n"
		"  --placement=WHERE    rom: Thumb code in ROM, WAITCNT=4317h (default, what games\n"
		"                       ship); iwram: ARM code in IWRAM\n"
		"  --format=FMT         table (default), json, csv or md\n"
		"  --events-out=FILE    one JSON line per event as the GBA decided it ('-': stdout,\n"
		"                       before the report), cycles measured; bus_cycles, accesses,\n"
		"                       stores, rom_reads, size_log2 and work are the host's cycle\n"
		"                       model inputs (lock and touch: nest_alloc and nest_free, the\n"
		"                       inputs of the core calls inside, [calls, bus_cycles,\n"
		"                       accesses, stores, rom_reads, work])\n"
		"  --png=FILE           save the ROM's last frame (memory map and figures) as PNG\n"
		"  --pool=N             pool size instead of the trace's arena_bytes\n"
		"                       (--arena-bytes=N: the same)\n"
		"  --no-min-arena       skip the min_arena_bytes search (host side)\n"
		"  -h, --help           show this help\n\n"
		"The ROMs are looked up in $AGBSIM_GBA_DIR, then gba/ beside this program, then the\n"
		"build tree. Exit status: 0 ok, 2 bad usage or input, 3 I/O error, no libmgba, or\n"
		"the GBA and the host disagree.\n");
}

struct measure_args {
	const char *allocator, *events_out;
	int format;
	unsigned options;
	struct agbsim_measure_opts mo;
	struct agbsim_run run;
};

static int measure_option(void *ctx, int opt, const char *arg)
{
	struct measure_args *a = ctx;
	switch (opt) {
	case 'f':
		return agbsim_cli_format("measure", arg, &a->format);
	case 'p':
		if (strcmp(arg, "rom") == 0)
			a->mo.placement = PLACEMENT_ROM;
		else if (strcmp(arg, "iwram") == 0)
			a->mo.placement = PLACEMENT_IWRAM;
		else
			return agbsim_usage_error("measure", "--placement wants rom or iwram, not '%s'",
						  arg);
		return AGBSIM_EXIT_OK;
	case 'm':
		a->options &= ~(unsigned)RUN_MIN_ARENA;
		return AGBSIM_EXIT_OK;
	case AGBSIM_OPT_ARENA_BYTES: /* --pool, as replay's: the ROM gets the run's config */
		return agbsim_replay_option("measure", opt, arg, &a->run.cfg);
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int parse_args(struct measure_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"format", required_argument, NULL, 'f'},
		{"events-out", required_argument, NULL, 'e'}, {"placement", required_argument, NULL, 'p'},
		{"png", required_argument, NULL, 'P'},        {"no-min-arena", no_argument, NULL, 'm'},
		{"pool", required_argument, NULL, AGBSIM_OPT_ARENA_BYTES},
		{"arena-bytes", required_argument, NULL, AGBSIM_OPT_ARENA_BYTES},
		{"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
		AGBSIM_CLI_TEXT('a', struct measure_args, allocator),
		AGBSIM_CLI_TEXT('e', struct measure_args, events_out),
		AGBSIM_CLI_TEXT('P', struct measure_args, mo.png_path), {0, 0}};
	const struct agbsim_cli cli = {"measure", "", longopts, usage, measure_option, a, NULL, texts};
	int first, rc;
	a->format = FORMAT_TABLE;
	a->options = RUN_MIN_ARENA;
	a->run.cfg.flags = AGB_REPLAY_CANARIES;
	a->mo.screen = 1;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	return agbsim_cli_one_trace("measure", argc, argv, first, &a->run.trace_path);
}

/* The measured run, with --events-out kept even when the runs disagree: it is the evidence.
 * *pe receives the per-event arrays and the direct-call figures. */
static int measure_with_events(struct measure_args *a, struct agbsim_measured *pe)
{
	struct agbsim_output events = {0};
	int rc, wrc;
	if (a->events_out != NULL) {
		rc = agbsim_output_open(&events, a->events_out);
		if (rc != AGBSIM_EXIT_OK)
			return rc;
		a->mo.events_out = events.f;
	}
	rc = agbsim_measure_run(&a->run, a->options, &a->mo, pe);
	if (rc != AGBSIM_EXIT_OK)
		agbsim_error("%s", a->run.error);
	if (a->events_out == NULL)
		return rc;
	wrc = agbsim_output_close(&events, 1);
	return rc != AGBSIM_EXIT_OK ? rc : wrc;
}

/* tiles: the direct-call figure under the table (docs/design.md, "Cycle figures"). */
static void print_direct(FILE *out, const struct agbsim_measured *pe)
{
	uint32_t net;
	if (pe->direct_ops == 0)
		return;
	net = pe->direct_cycles > pe->direct_empty ? pe->direct_cycles - pe->direct_empty : 0u;
	fprintf(out,
		"  direct call: ref+unref %u calls, mean %.1f cycles (inline agb_tiles_ref/unref "
		"from a loop, no core table; loop %u - empty loop %u cycles)\n",
		pe->direct_ops, (double)net / pe->direct_ops, pe->direct_cycles, pe->direct_empty);
}

/* Heap-like cores and tiles: the alloc/free/realloc (ref/unref) figures above are direct
 * calls; the same calls through the core table beside them (docs/design.md, "Cycle figures"). */
static void print_table_call(FILE *out, const struct agbsim_run *r)
{
	if (!r->direct_calls)
		return;
	fprintf(out, "  %s above: the core's functions called directly, as a game calls them;\n"
		     "  through the core table (mean/p99/max):",
		r->trace->arena == AGB_ARENA_BG_VRAM ? "ref/unref" : "alloc/free/realloc");
	for (int op = 0; op < AGB_OP_COUNT; op++) {
		const struct agb_cycle_stats *c = &r->table_call[op];
		if (c->count != 0)
			fprintf(out, " %s %.1f/%u/%u", agb_op_name((enum agb_op)op), c->mean, c->p99,
				c->max);
	}
	fputc('\n', out);
}

int agbsim_cmd_measure(int argc, char **argv)
{
	struct measure_args a = {0};
	struct agbsim_measured pe = {0};
	struct agb_loaded_trace loaded;
	int rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (!agbsim_measure_available()) {
		agbsim_error("measure: this agbsim was built without libmgba and the GBA ROMs; %s",
			     AGBSIM_MGBA_HINT);
		return AGBSIM_EXIT_IO;
	}
	rc = agbsim_load_trace(a.run.trace_path, &loaded);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	a.run.trace = &loaded.trace;
	a.run.core = agb_reference_core_find(a.allocator);
	rc = a.run.core != NULL ? AGBSIM_EXIT_OK
				: agbsim_pick_run_core("measure", a.allocator, &a.run);
	if (rc == AGBSIM_EXIT_OK && a.run.cfg.arena_bytes > agb_arena_region_bytes(a.run.trace->arena))
		rc = agbsim_usage_error("measure", "--pool %u is larger than %s (%u bytes)",
					a.run.cfg.arena_bytes, agb_arena_name(a.run.trace->arena),
					agb_arena_region_bytes(a.run.trace->arena));
	if (rc == AGBSIM_EXIT_OK)
		rc = measure_with_events(&a, &pe);
	if (rc == AGBSIM_EXIT_OK) {
		agbsim_report(stdout, (enum agbsim_format)a.format, &a.run, 1);
		if (a.format == FORMAT_TABLE) {
			print_table_call(stdout, &a.run);
			print_direct(stdout, &pe);
		}
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = AGBSIM_EXIT_IO;
	}
	agbsim_measured_free(&pe);
	agb_trace_release(&loaded);
	return rc;
}
