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
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "cli/gba_only.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "trace/trace_load.h"

#ifdef AGB_MEASURE_ENABLED
#include "gba/bench_abi.h"
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

static int fail(struct agbsim_run *run, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct agbsim_run *run, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(run->error, sizeof run->error, fmt, ap);
	va_end(ap);
	run->status = rc;
	return rc;
}

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
	const uint32_t *mgba;
	const struct decision *g;
	struct agbsim_events_out *eo;
};

static void subst_observe(void *ctx, const struct agb_replay_obs *obs)
{
	struct subst *s = ctx;
	struct agb_replay_obs o = *obs;
	o.cycles = s->mgba[o.index];
	agb_metrics_observe(&s->acc, &o);
	if (s->eo != NULL) {
		/* --events-out reports what the GBA decided (the host's is checked against it). */
		const struct decision *g = &s->g[o.index];
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

int agbsim_measure_run(struct agbsim_run *run, unsigned options,
		       const struct agbsim_measure_opts *mo, struct agbsim_measured *per_event)
{
	const struct agb_trace *t = run->trace;
	const uint32_t n = t->event_count;
	struct agb_bin_run br = {0};
	struct host_ref host = {0};
	struct decision *gba = NULL;
	uint32_t *mgba = NULL, *cyc2 = NULL;
	struct walk_list hw = {0}, gw = {0};
	struct agb_mgba_options opt = {0};
	struct agb_mgba_result res;
	struct agb_replay_result hres;
	agb_machine *m = NULL;
	void *ws = NULL, *blob = NULL;
	size_t blob_len = 0, ws_bytes = agb_replay_workspace_bytes(t);
	char rom[PATH_MAX + 256];
	uint64_t model_total = 0;
	uint32_t overhead = UINT32_MAX, cur = AGB_MARK_CALIB_INDEX, obs_i = UINT32_MAX;
	uint64_t t0 = 0;
	int rc = AGBSIM_EXIT_OK, mrc;
	struct subst sub;
	struct agbsim_tap tap = {subst_observe, &sub};
	uint32_t min_arena;

	if (agbsim_gba_only_rom(run->core) != NULL) /* no host run: the ROM's figures only */
		return agbsim_measure_gba_only(run, options, mo, per_event);
	memset(&res, 0, sizeof res);
	run->cfg.core = run->core;
	run->error[0] = '\0';
	for (uint32_t i = 0; agb_heap_cores[i] != NULL; i++)
		if (agb_heap_cores[i] == run->core)
			br.core_index = i;
	if (rom_path(run->core, mo->placement, rom, sizeof rom) != 0)
		return fail(run, AGBSIM_EXIT_IO,
			    "no bench ROM for core '%s' (%s placement): build the GBA ROMs or set AGBSIM_GBA_DIR",
			    run->core->name, mo->placement == PLACEMENT_IWRAM ? "iwram" : "rom");

	host.d = calloc((size_t)n + 1u, sizeof *host.d);
	host.model = calloc((size_t)n + 1u, sizeof *host.model);
	gba = calloc((size_t)n + 1u, sizeof *gba);
	mgba = calloc((size_t)n + 1u, sizeof *mgba);
	cyc2 = malloc(((size_t)n + 1u) * sizeof *cyc2);
	m = malloc(sizeof *m);
	ws = malloc(ws_bytes);
	if (!host.d || !host.model || !gba || !mgba || !cyc2 || !m || !ws) {
		rc = fail(run, AGBSIM_EXIT_IO, "out of memory measuring %s", run->trace_path);
		goto done;
	}

	/* 1. Host reference: decisions, model cycles, final walk. */
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	agb_replay_run(t, &run->cfg, m, ws, ws_bytes, host_observe, &host, &hres);
	if (hres.status != AGB_REPLAY_OK) {
		/* Let the regular path say why (same wording as replay). */
		rc = agbsim_run_replay(run, 0, NULL);
		if (rc == AGBSIM_EXIT_OK)
			rc = fail(run, AGBSIM_EXIT_IO, "%s: host replay stopped (status %d)",
				  run->trace_path, hres.status);
		goto done;
	}
	run->core->walk(agb_replay_core_state(ws), walk_push, &hw);
	for (uint32_t i = 0; i < n; i++)
		model_total += host.model[i];

	/* 2. The GBA run. */
	br.core = run->core;
	br.cfg = run->cfg;
	/* Decisions do not depend on these observation flags; the GBA skips the costly ones. */
	br.cfg.flags = (run->cfg.flags & ~(uint32_t)(AGB_REPLAY_CHECK | AGB_REPLAY_CANARIES)) |
		       AGB_REPLAY_NO_STATS;
	br.bench_flags = AGB_BENCH_OBS | (mo->screen || mo->png_path ? AGB_BENCH_SCREEN : 0u);
	if (agb_trace_pack(t, &br, &blob, &blob_len) != 0) {
		rc = fail(run, AGBSIM_EXIT_IO, "%s: cannot pack the trace for the ROM (too large?)",
			  run->trace_path);
		goto done;
	}
	opt.payload = blob;
	opt.payload_len = blob_len;
	opt.host_markers = 1;
	/* Generous: the model may be well off before it is fitted; the ROM stops on its own. */
	opt.max_frames = 3600u + model_total * 8u / AGB_FRAME_CYCLES + n / 64u;
	opt.png_path = mo->png_path;
	opt.extra_frames = mo->png_path != NULL ? 2u : 0u;
	mrc = agb_mgba_run_ex(rom, &opt, &res);
	if (mrc == AGB_MGBA_ERROR) {
		rc = fail(run, AGBSIM_EXIT_IO, "mGBA: %s", res.error);
		goto done;
	}
	if (mrc == AGB_MGBA_TIMEOUT || !res.done) {
		rc = fail(run, AGBSIM_EXIT_IO, "%s: the ROM did not finish in %llu frames", rom,
			  (unsigned long long)opt.max_frames);
		goto done;
	}
	if (res.status != AGB_BENCH_OK) {
		rc = fail(run, AGBSIM_EXIT_IO, "%s: core '%s': the ROM stopped with status %d%s%s",
			  run->trace_path, run->core->name, (int)res.status,
			  res.log_len != 0 ? ": " : "", res.log_len != 0 ? res.log : "");
		goto done;
	}

	if (res.results.count != AGB_BENCH_V_COUNT || res.results.values[AGB_BENCH_V_EVENTS] != n) {
		rc = fail(run, AGBSIM_EXIT_IO, "%s: the ROM did not replay the trace (%u of %u events)",
			  rom, res.results.values[AGB_BENCH_V_EVENTS], n);
		goto done;
	}

	/* 3. Markers -> per-op cycles and the GBA's decisions. */
	for (size_t k = 0; k < res.marker_count; k++) {
		const struct agb_mgba_marker *mk = &res.markers[k];
		switch (mk->id) {
		case AGB_MARK_OP_BEGIN:
			cur = mk->value;
			t0 = mk->cycle;
			break;
		case AGB_MARK_OP_END: {
			uint64_t d = mk->cycle - t0;
			if (cur == AGB_MARK_CALIB_INDEX) {
				if (d < overhead)
					overhead = (uint32_t)d;
			} else if (cur < n) {
				/* Calibration pairs come first: overhead is known by now. */
				mgba[cur] = d > overhead ? (uint32_t)(d - overhead) : 0u;
			}
			cur = AGB_MARK_CALIB_INDEX;
			break;
		}
		case AGB_MARK_OBS:
			obs_i = mk->value < n ? mk->value : UINT32_MAX;
			if (obs_i != UINT32_MAX)
				gba[obs_i].seen = 1;
			break;
		case AGB_MARK_OBS_ADDR:
			if (obs_i != UINT32_MAX)
				gba[obs_i].addr = mk->value;
			break;
		case AGB_MARK_OBS_GRANTED:
			if (obs_i != UINT32_MAX)
				gba[obs_i].granted = mk->value;
			break;
		case AGB_MARK_OBS_INFO:
			if (obs_i != UINT32_MAX)
				gba[obs_i].info = mk->value;
			break;
		case AGB_MARK_WALK_ADDR:
			walk_push(&gw, mk->value, 0, AGB_RUN_FREE);
			break;
		case AGB_MARK_WALK_BYTES:
			if (gw.n != 0) {
				gw.runs[gw.n - 1].bytes = mk->value >> 2;
				gw.runs[gw.n - 1].kind = mk->value & 3u;
			}
			break;
		default:
			break;
		}
	}
	if (overhead == UINT32_MAX)
		overhead = 0;
	if (getenv("AGBSIM_MEASURE_DEBUG") != NULL) {
		fprintf(stderr, "measure: marker pair overhead %u cycles, %zu markers, %llu emulated cycles\n",
			overhead, res.marker_count, (unsigned long long)res.cycles);
		for (uint32_t i = 0; i < n && i < 40u; i++)
			fprintf(stderr, "  event %u %s model %u mgba %u\n", i, agb_op_name(t->events[i].op),
				host.model[i], mgba[i]);
	}
	/* Work the engine counts as not done costs 0 on both sides, as in the model: skipped ops,
	 * and frames or sprite ops a core passes over (its event() is only a call and a return).
	 * Decided by the op and its outcome, never by the model's figure: a model that predicts 0
	 * must not erase a measurement. */
	for (uint32_t i = 0; i < n; i++) {
		uint8_t op = t->events[i].op;
		int passive = op == AGB_OP_FRAME || op == AGB_OP_SPR_SHOW || op == AGB_OP_SPR_Z ||
			      op == AGB_OP_SPR_HIDE;
		if ((host.d[i].info & 0xFFu) == AGB_OUTCOME_SKIPPED || (passive && host.model[i] == 0))
			mgba[i] = 0;
	}

	/* 4. Same decisions? */
	for (uint32_t i = 0; i < n; i++) {
		const struct decision *h = &host.d[i], *g = &gba[i];
		if (!g->seen || h->addr != g->addr || h->granted != g->granted || h->info != g->info) {
			rc = fail(run, AGBSIM_EXIT_IO,
				  "%s: core '%s': the GBA and the host disagree at event %u (%s): host %s "
				  "addr 0x%08x granted %u result %u, GBA %s addr 0x%08x granted %u result %u",
				  run->trace_path, run->core->name, i, agb_op_name(t->events[i].op),
				  outcome_name(h->info), h->addr, h->granted, h->info >> 8,
				  g->seen ? outcome_name(g->info) : "(no report)", g->addr, g->granted,
				  g->info >> 8);
			break;
		}
	}
	if (rc == AGBSIM_EXIT_OK) {
		int same = hw.n == gw.n && !hw.oom && !gw.oom;
		for (size_t i = 0; same && i < hw.n; i++)
			same = hw.runs[i].addr == gw.runs[i].addr && hw.runs[i].bytes == gw.runs[i].bytes &&
			       hw.runs[i].kind == gw.runs[i].kind;
		if (!same)
			rc = fail(run, AGBSIM_EXIT_IO,
				  "%s: core '%s': the final memory maps differ: host %zu runs, GBA %zu runs",
				  run->trace_path, run->core->name, hw.n, gw.n);
	}

	/* 5. The report: the host's metrics with measured cycles (and the GBA's outcomes). */
	sub.mgba = mgba;
	sub.g = gba;
	sub.eo = NULL;
	if (mo->events_out != NULL) {
		static struct agbsim_events_out eo;
		eo.out = mo->events_out;
		eo.trace = t;
		eo.arena_addr = agb_arena_base(t->arena);
		eo.features = 1; /* the host's counts beside the measured cycles: what the fit needs */
		sub.eo = &eo;
	}
	{
		/* agbsim_run_replay fills run->metrics with model figures; ours go to a copy. */
		struct agb_metrics measured;
		agb_metrics_begin(&sub.acc, &measured, t, run->core->unit, cyc2);
		int rr = agbsim_run_replay(run, options, &tap);
		if (rr != AGBSIM_EXIT_OK) {
			rc = rr;
			goto done;
		}
		agb_metrics_end(&sub.acc, &run->result);
		min_arena = run->metrics.min_arena_bytes;
		run->metrics = measured;
		run->metrics.min_arena_bytes = min_arena;
		run->cycle_source = "mgba";
	}
	if (per_event != NULL) {
		per_event->model = host.model;
		per_event->mgba = mgba;
		per_event->marker_overhead = overhead;
		per_event->emulated_cycles = res.cycles;
		host.model = NULL;
		mgba = NULL;
	}
	if (rc != AGBSIM_EXIT_OK)
		run->status = rc;

done:
	if (rc != AGBSIM_EXIT_OK)
		run->status = rc;
	agb_mgba_result_free(&res);
	free(blob);
	free(host.d);
	free(host.model);
	free(gba);
	free(mgba);
	free(cyc2);
	free(hw.runs);
	free(gw.runs);
	free(ws);
	free(m);
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
		 "this agbsim was built without libmgba (or without the GBA ROMs): install "
		 "libmgba-dev and gcc-arm-none-eabi (scripts/setup) and rebuild");
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
		"                       model inputs\n"
		"  --png=FILE           save the ROM's last frame (memory map and figures) as PNG\n"
		"  --no-min-arena       skip the min_arena_bytes search (host side)\n"
		"  -h, --help           show this help\n\n"
		"The ROMs are looked up in $AGBSIM_GBA_DIR, then gba/ beside this program, then the\n"
		"build tree. Exit status: 0 ok, 2 bad usage or input, 3 I/O error, no libmgba, or\n"
		"the GBA and the host disagree.\n");
}

int agbsim_cmd_measure(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'}, {"format", required_argument, NULL, 'f'},
		{"events-out", required_argument, NULL, 'e'}, {"placement", required_argument, NULL, 'p'},
		{"png", required_argument, NULL, 'P'},        {"no-min-arena", no_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0},
	};
	const char *allocator = NULL, *events_out = NULL;
	int format = FORMAT_TABLE, opt, rc;
	unsigned options = RUN_MIN_ARENA;
	struct agbsim_measure_opts mo = {0};
	struct agbsim_run run = {0};
	struct agb_loaded_trace loaded;
	struct agbsim_output events = {0};

	run.cfg.flags = AGB_REPLAY_CANARIES;
	mo.screen = 1;
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
				return agbsim_usage_error("measure", "unknown format '%s' (table, json, csv, md)",
							  optarg);
			break;
		case 'e':
			events_out = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "rom") == 0)
				mo.placement = PLACEMENT_ROM;
			else if (strcmp(optarg, "iwram") == 0)
				mo.placement = PLACEMENT_IWRAM;
			else
				return agbsim_usage_error("measure", "--placement wants rom or iwram, not '%s'",
							  optarg);
			break;
		case 'P':
			mo.png_path = optarg;
			break;
		case 'm':
			options &= ~(unsigned)RUN_MIN_ARENA;
			break;
		case 'h':
			usage(stdout);
			return AGBSIM_EXIT_OK;
		case ':':
			return agbsim_usage_error("measure", "option '%s' needs a value", argv[optind - 1]);
		default:
			return agbsim_usage_error("measure", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return agbsim_usage_error("measure", optind >= argc ? "no TRACE given"
								    : "exactly one TRACE expected");
	if (!agbsim_measure_available()) {
		agbsim_error("measure: this agbsim was built without libmgba and the GBA ROMs; install "
			     "libmgba-dev, gcc-arm-none-eabi and libnewlib-arm-none-eabi (scripts/setup) "
			     "and rebuild");
		return AGBSIM_EXIT_IO;
	}
	run.trace_path = argv[optind];
	rc = agbsim_load_trace(run.trace_path, &loaded);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	run.trace = &loaded.trace;
	run.core = agbsim_gba_only_find(allocator);
	rc = run.core != NULL ? AGBSIM_EXIT_OK : agbsim_pick_core(allocator, run.trace, &run.core);
	if (rc != AGBSIM_EXIT_OK)
		goto done;
	if (events_out != NULL) {
		rc = agbsim_output_open(&events, events_out);
		if (rc != AGBSIM_EXIT_OK)
			goto done;
		mo.events_out = events.f;
	}
	rc = agbsim_measure_run(&run, options, &mo, NULL);
	if (rc != AGBSIM_EXIT_OK)
		agbsim_error("%s", run.error);
	if (events_out != NULL) {
		/* Kept even when the runs disagree: it is the evidence. */
		int wrc = agbsim_output_close(&events, 1);
		if (rc == AGBSIM_EXIT_OK)
			rc = wrc;
	}
	if (rc == AGBSIM_EXIT_OK) {
		agbsim_report(stdout, (enum agbsim_format)format, &run, 1);
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = AGBSIM_EXIT_IO;
	}
done:
	agbsim_output_close(&events, 0);
	agb_trace_release(&loaded);
	return rc;
}
