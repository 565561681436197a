/* GBA-only reference allocators (see gba_only.h): their names for the CLI, and their measured
 * run, which has no host replay behind it: every figure comes from the ROM's markers. */
#include "cli/gba_only.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/cores.h"
#include "agbsim/metrics.h"
#include "platform/platform.h"

#ifdef AGB_MEASURE_ENABLED
#include "bench_abi.h"
#include "mgba_runner.h"
#include "trace/trace_bin.h"
#endif

/* The bench ROM of each reference allocator (agb_reference_cores, src/agbmem/registry.c). */
static const struct {
	const char *core, *rom;
} gba_only_roms[] = {
	{"newlib", "agbsim-bench-newlib.gba"},
	{"newlib-nano", "agbsim-bench-newlib-nano.gba"},
};

const char *agbsim_gba_only_rom(const struct agb_heap_core *core)
{
	for (size_t i = 0; core != NULL && i < sizeof gba_only_roms / sizeof gba_only_roms[0]; i++)
		if (agb_reference_core_find(gba_only_roms[i].core) == core)
			return gba_only_roms[i].rom;
	return NULL;
}

int agbsim_gba_only_refuse(const char *name)
{
	agbsim_error("%s runs only in the GBA bench ROM: use `agbsim measure` or `bench --cycles=mgba`",
		     name);
	return AGBSIM_EXIT_USAGE;
}

/* 1 when path can be opened for reading. */
static int readable(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return 0;
	fclose(f);
	return 1;
}

int agbsim_gba_rom_find(const char *file, char *out, size_t n)
{
	char dir[PATH_MAX + 8];
	const char *env = getenv("AGBSIM_GBA_DIR");
	if (env != NULL && *env != '\0') {
		snprintf(out, n, "%s/%s", env, file);
		return readable(out) ? 0 : -1;
	}
	if (agb_self_dir(dir, PATH_MAX) == 0) {
		snprintf(out, n, "%s/gba/%s", dir, file);
		if (readable(out))
			return 0;
	}
#ifdef AGBSIM_GBA_DIR
	snprintf(out, n, "%s/%s", AGBSIM_GBA_DIR, file);
	if (readable(out))
		return 0;
#endif
	return -1;
}

#define fail agbsim_run_fail /* run.c */

#ifdef AGB_MEASURE_ENABLED

int agbsim_gba_rom_run(struct agbsim_run *run, const char *rom, const struct agb_mgba_options *opt,
		       uint32_t events, struct agb_mgba_result *res)
{
	int mrc = agb_mgba_run_ex(rom, opt, res);
	if (mrc == AGB_MGBA_ERROR)
		return fail(run, AGBSIM_EXIT_IO, "mGBA: %s", res->error);
	if (mrc == AGB_MGBA_TIMEOUT || !res->done)
		return fail(run, AGBSIM_EXIT_IO, "%s: the ROM did not finish in %llu frames", rom,
			    (unsigned long long)opt->max_frames);
	if (res->status != AGB_BENCH_OK)
		return fail(run, AGBSIM_EXIT_IO, "%s: core '%s': the ROM stopped with status %d%s%s",
			    run->trace_path, run->core->name, (int)res->status,
			    res->log_len != 0 ? ": " : "", res->log_len != 0 ? res->log : "");
	if (res->results.count != AGB_BENCH_V_COUNT ||
	    res->results.values[AGB_BENCH_V_EVENTS] != events)
		return fail(run, AGBSIM_EXIT_IO, "%s: the ROM did not replay the trace (%u of %u events)",
			    rom, res->results.values[AGB_BENCH_V_EVENTS], events);
	return AGBSIM_EXIT_OK;
}

void agbsim_rom_read_markers(const struct agb_mgba_result *res, uint32_t n,
			     struct agbsim_rom_event *ev, uint32_t *overhead, agb_walk_fn walk,
			     void *ctx)
{
	uint32_t cur = AGB_MARK_CALIB_INDEX, obs = UINT32_MAX, least = UINT32_MAX, walk_addr = 0;
	uint64_t t0 = 0;
	int direct = 0; /* after the DIRECT marker: the pairs time the direct run's calls */
	uint32_t last = UINT32_MAX; /* the direct run's last timed event */
	for (size_t k = 0; k < res->marker_count; k++) {
		const struct agb_mgba_marker *mk = &res->markers[k];
		struct agbsim_rom_event *e = obs != UINT32_MAX ? &ev[obs] : NULL;
		switch (mk->id) {
		case AGB_MARK_OP_BEGIN:
			cur = mk->value;
			t0 = mk->cycle;
			break;
		case AGB_MARK_OP_END: {
			/* Calibration pairs come first: the overhead is known when an event is timed. */
			uint64_t d = mk->cycle - t0;
			uint32_t net = d > least ? (uint32_t)(d - least) : 0u;
			if (cur == AGB_MARK_CALIB_INDEX) {
				least = d < least ? (uint32_t)d : least;
			} else if (cur < n && direct) {
				ev[cur].direct_cycles = net;
				ev[cur].direct_addr = mk->value;
				ev[cur].direct_seen++;
				last = cur;
			} else if (cur < n) {
				ev[cur].cycles = net;
			}
			cur = AGB_MARK_CALIB_INDEX;
			break;
		}
		case AGB_MARK_DIRECT:
			direct = 1;
			break;
		case AGB_MARK_DIRECT_INFO:
			if (last != UINT32_MAX)
				ev[last].direct_info = mk->value;
			break;
		case AGB_MARK_OBS:
			obs = mk->value < n ? mk->value : UINT32_MAX;
			if (obs != UINT32_MAX)
				ev[obs].seen = 1;
			break;
		case AGB_MARK_OBS_ADDR:
			if (e != NULL)
				e->addr = mk->value;
			break;
		case AGB_MARK_OBS_GRANTED:
			if (e != NULL)
				e->granted = mk->value;
			break;
		case AGB_MARK_OBS_INFO:
			if (e != NULL)
				e->info = mk->value;
			break;
		case AGB_MARK_OBS_LIVE:
			if (e != NULL)
				e->live = mk->value;
			break;
		case AGB_MARK_OBS_LIVE_GRANTED:
			if (e != NULL)
				e->live_granted = mk->value;
			break;
		case AGB_MARK_WALK_ADDR:
			walk_addr = mk->value;
			break;
		case AGB_MARK_WALK_BYTES:
			walk(ctx, walk_addr, mk->value >> 2, (enum agb_run_kind)(mk->value & 3u));
			break;
		default:
			break;
		}
	}
	*overhead = least == UINT32_MAX ? 0u : least;
}

/* ---- direct calls (bench_abi.h, AGB_BENCH_DIRECT) ------------------------------------------ */

int agbsim_direct_op(uint8_t op)
{
	return op == AGB_OP_ALLOC || op == AGB_OP_FREE || op == AGB_OP_REALLOC || op == AGB_OP_REF ||
	       op == AGB_OP_UNREF;
}

/* What the direct call of event i must have reported: its returned address (alloc, realloc;
 * AGB_NULL when the replay's failed, for free) or its detail (ref, unref). */
static int direct_differs(uint8_t op, const struct agbsim_rom_event *d, const struct agbsim_rom_event *g,
			  uint32_t *want)
{
	uint32_t outcome = d->info & 0xFFu;
	if (op == AGB_OP_REF || op == AGB_OP_UNREF) {
		*want = d->info >> 8;
		return g->direct_info != *want;
	}
	*want = op == AGB_OP_FREE || outcome == AGB_OUTCOME_FAILED ? AGB_NULL : d->addr;
	return g->direct_addr != *want;
}

int agbsim_direct_check(struct agbsim_run *run, const struct agbsim_rom_event *dec,
			const struct agbsim_rom_event *dir)
{
	const struct agb_trace *t = run->trace;
	for (uint32_t i = 0; i < t->event_count; i++) {
		uint8_t op = t->events[i].op;
		int tiles = op == AGB_OP_REF || op == AGB_OP_UNREF; /* called even when skipped */
		int want = agbsim_direct_op(op) && (tiles || (dec[i].info & 0xFFu) != AGB_OUTCOME_SKIPPED);
		uint32_t expect = AGB_NULL;
		if (dir[i].direct_seen != want || (want && direct_differs(op, &dec[i], &dir[i], &expect)))
			return fail(run, AGBSIM_EXIT_IO,
				    "%s: core '%s': the direct calls and the replay disagree at event %u "
				    "(%s): replay %s 0x%08x, direct call %s 0x%08x",
				    run->trace_path, run->core->name, i, agb_op_name(op),
				    want ? "called" : "no call", expect,
				    dir[i].direct_seen == 0 ? "none" : dir[i].direct_seen == 1 ? "made" : "repeated",
				    tiles ? dir[i].direct_info : dir[i].direct_addr);
	}
	return AGBSIM_EXIT_OK;
}

void agbsim_direct_substitute(struct agbsim_run *run, const struct agbsim_rom_event *dec,
			      const struct agbsim_rom_event *dir, uint32_t *cycles, uint32_t *table)
{
	for (uint32_t i = 0; i < run->trace->event_count; i++) {
		table[i] = cycles[i];
		if (dir[i].direct_seen && (dec[i].info & 0xFFu) != AGB_OUTCOME_SKIPPED)
			cycles[i] = dir[i].direct_cycles;
	}
	run->direct_calls = 1;
}

int agbsim_table_begin(struct agbsim_table_figures *tf, const struct agb_trace *t, uint32_t unit,
		       const uint32_t *table)
{
	tf->table = table;
	tf->cyc = malloc(((size_t)t->event_count + 1u) * sizeof *tf->cyc);
	if (tf->cyc == NULL)
		return -1;
	agb_metrics_begin(&tf->acc, &tf->m, t, unit, tf->cyc);
	return 0;
}

void agbsim_table_observe(struct agbsim_table_figures *tf, const struct agb_replay_obs *o)
{
	struct agb_replay_obs to = *o;
	to.cycles = tf->table[o->index];
	agb_metrics_observe(&tf->acc, &to);
}

void agbsim_table_end(struct agbsim_table_figures *tf, const struct agb_replay_result *res,
		      struct agbsim_run *run)
{
	agb_metrics_end(&tf->acc, res);
	for (int op = 0; op < AGB_OP_COUNT; op++)
		run->table_call[op] = agbsim_direct_op((uint8_t)op) ? tf->m.cycles[op]
								   : (struct agb_cycle_stats){0};
	free(tf->cyc);
	tf->cyc = NULL;
}

/* One ROM run's figures. */
struct gba_run {
	struct agbsim_rom_event *ev;
	uint32_t peak, failures, overhead;
	uint64_t emulated_cycles;
	uint32_t marker_overhead;
	struct agb_heap_stats final_stats;
	uint32_t walk_runs, walk_hash; /* the final walk: runs, FNV-1a over (addr, bytes, kind) */
	uint32_t direct_calls;         /* AGB_BENCH_V_DIRECT_CALLS */
};

static uint32_t fnv_word(uint32_t h, uint32_t w)
{
	for (unsigned k = 0; k < 4u; k++) {
		h ^= (w >> (8u * k)) & 0xFFu;
		h *= 16777619u;
	}
	return h;
}

/* The final walk gives the final free-space summary, and a hash to compare runs by. */
static void walk_stats(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct gba_run *g = ctx;
	struct agb_heap_stats *st = &g->final_stats;
	g->walk_runs++;
	g->walk_hash = fnv_word(fnv_word(fnv_word(g->walk_hash, addr), bytes), (uint32_t)kind);
	if (kind != AGB_RUN_FREE)
		return;
	st->free_bytes += bytes;
	st->free_runs++;
	st->free_sq_sum += (uint64_t)bytes * bytes;
	if (bytes > st->largest_free)
		st->largest_free = bytes;
}

/* Runs the ROM once with cfg; fills g (g->ev must hold n entries, zeroed). With `direct` the
 * ROM makes the direct calls instead of replaying (AGB_BENCH_DIRECT_ONLY): no observations,
 * the figures and walk are the direct run's. */
static int run_rom(struct agbsim_run *run, const char *rom, const struct agb_replay_config *cfg,
		   const struct agbsim_measure_opts *mo, struct gba_run *g, int direct)
{
	const struct agb_trace *t = run->trace;
	struct agb_bin_run br = {0};
	struct agb_mgba_options opt = {0};
	struct agb_mgba_result res;
	void *blob = NULL;
	size_t blob_len = 0;
	int rc = AGBSIM_EXIT_OK;

	memset(&res, 0, sizeof res);
	br.core = run->core;
	br.core_index = 0;
	br.cfg = *cfg;
	br.cfg.flags = (cfg->flags & ~(uint32_t)(AGB_REPLAY_CHECK | AGB_REPLAY_CANARIES)) | AGB_REPLAY_NO_STATS;
	br.bench_flags = AGB_BENCH_OBS | AGB_BENCH_OBS_LIVE | (mo->screen || mo->png_path ? AGB_BENCH_SCREEN : 0u);
	if (direct)
		br.bench_flags = AGB_BENCH_DIRECT | AGB_BENCH_DIRECT_ONLY;
	g->walk_hash = 2166136261u;
	if (agb_trace_pack(t, &br, &blob, &blob_len) != 0)
		return fail(run, AGBSIM_EXIT_IO, "%s: cannot pack the trace for the ROM (too large?)",
			    run->trace_path);
	opt.payload = blob;
	opt.payload_len = blob_len;
	opt.host_markers = 1;
	opt.max_frames = 36000u + t->event_count / 16u; /* no model to size it by: ten minutes and more */
	opt.png_path = mo->png_path;
	opt.extra_frames = mo->png_path != NULL ? 2u : 0u;
	rc = agbsim_gba_rom_run(run, rom, &opt, t->event_count, &res);
	if (rc == AGBSIM_EXIT_OK) {
		agbsim_rom_read_markers(&res, t->event_count, g->ev, &g->marker_overhead, walk_stats, g);
		g->peak = res.results.values[AGB_BENCH_V_HEAP_PEAK];
		g->failures = res.results.values[AGB_BENCH_V_FAILURES];
		g->overhead = res.results.values[AGB_BENCH_V_OVERHEAD];
		g->emulated_cycles = res.cycles;
		g->direct_calls = res.results.values[AGB_BENCH_V_DIRECT_CALLS];
		for (uint32_t i = 0; i < t->event_count && rc == AGBSIM_EXIT_OK && !direct; i++)
			if (!g->ev[i].seen)
				rc = fail(run, AGBSIM_EXIT_IO, "%s: core '%s': no report for event %u",
					  run->trace_path, run->core->name, i);
	}
	agb_mgba_result_free(&res);
	free(blob);
	return rc;
}

/* The report's metrics from the ROM's observations, with the measured cycles `cycles` (per
 * event); tf (or NULL) gets the same observations for the table-call figures. */
static void fill_metrics(struct agbsim_run *run, const struct gba_run *g, uint32_t arena_bytes,
			 const uint32_t *cycles, uint32_t *cyc, struct agbsim_table_figures *tf,
			 FILE *events_out)
{
	const struct agb_trace *t = run->trace;
	struct agb_metrics_acc acc;
	struct agbsim_events_out eo = {events_out, t, agb_arena_base(t->arena), 0};
	struct agb_replay_result *res = &run->result;

	agb_metrics_begin(&acc, &run->metrics, t, run->core->unit, cyc);
	for (uint32_t i = 0; i < t->event_count; i++) {
		const struct agb_event *e = &t->events[i];
		const struct agbsim_rom_event *ge = &g->ev[i];
		struct agb_replay_obs o = {0};
		/* (A refused request's probe is not the game's work: unpriced, as on the host.) */
		int passive = e->op == AGB_OP_FRAME || e->op == AGB_OP_SPR_SHOW ||
			      e->op == AGB_OP_SPR_Z || e->op == AGB_OP_SPR_HIDE || e->op == AGB_OP_SYNC ||
			      e->op == AGB_OP_REFUSED;
		o.index = i;
		o.op = e->op;
		o.outcome = (uint8_t)(ge->info & 0xFFu);
		o.result = ge->info >> 8;
		o.id = e->id;
		o.requested = e->op == AGB_OP_ALLOC || e->op == AGB_OP_REALLOC || e->op == AGB_OP_FRAME ||
				      e->op == AGB_OP_REFUSED
				      ? e->size
				      : 0u;
		o.addr = ge->addr;
		o.granted = ge->granted;
		o.live_bytes = ge->live;
		o.live_granted = ge->live_granted;
		/* No core call behind these (newlib has no verbs): nothing to measure. */
		o.cycles = passive || o.outcome == AGB_OUTCOME_SKIPPED ? 0u : cycles[i];
		o.sampled = AGB_SAMPLE_NONE;
		agb_metrics_observe(&acc, &o);
		if (tf != NULL && !passive && o.outcome != AGB_OUTCOME_SKIPPED)
			agbsim_table_observe(tf, &o);
		else if (tf != NULL)
			agb_metrics_observe(&tf->acc, &o);
		if (events_out != NULL)
			agbsim_events_out_observe(&eo, &o);
	}
	memset(res, 0, sizeof *res);
	res->status = AGB_REPLAY_OK;
	res->arena_addr = agb_arena_base(t->arena);
	res->arena_bytes = arena_bytes;
	res->failures = g->failures;
	res->overhead_bytes = g->overhead;
	res->final_stats = g->final_stats;
	agb_metrics_end(&acc, res);
	if (tf != NULL)
		agbsim_table_end(tf, res, run);
}

static uint32_t round_up(uint32_t v, uint32_t step)
{
	return step != 0 ? (v + step - 1u) / step * step : v;
}

/* Whether this GBA-only core can measure this trace as asked: its arena, only ops malloc
 * serves, the shipped placement, a ROM found (its path in rom). Returns AGBSIM_EXIT_OK or the
 * failure (run->error set). */
static int check_applicable(struct agbsim_run *run, const struct agbsim_measure_opts *mo,
			    char *rom, size_t rom_len)
{
	const struct agb_trace *t = run->trace;
	const char *file = agbsim_gba_only_rom(run->core);
	if (file == NULL)
		return fail(run, AGBSIM_EXIT_IO, "core '%s' is not a GBA-only core", run->core->name);
	if ((run->core->arenas & AGB_ARENA_BIT(t->arena)) == 0)
		return fail(run, AGBSIM_EXIT_USAGE,
			    "%s: core '%s': not applicable to %s (malloc serves the EWRAM heap only)",
			    run->trace_path, run->core->name, agb_arena_name(t->arena));
	for (uint32_t i = 0; i < t->event_count; i++) {
		/* newlib has no verbs: the engine would stop at the first op it cannot serve. */
		uint8_t op = t->events[i].op;
		if (op != AGB_OP_ALLOC && op != AGB_OP_FREE && op != AGB_OP_REALLOC &&
		    op != AGB_OP_FRAME && op != AGB_OP_REFUSED &&
		    (op < AGB_OP_SPR_SHOW || op > AGB_OP_SPR_HIDE))
			return fail(run, AGBSIM_EXIT_USAGE,
				    "%s: event %u (%s): core '%s': this core cannot serve this op",
				    run->trace_path, i, agb_op_name(op), run->core->name);
	}
	if (mo->placement == PLACEMENT_IWRAM)
		return fail(run, AGBSIM_EXIT_USAGE,
			    "core '%s' is linked as shipped (Thumb code in ROM): --placement=iwram does "
			    "not apply", run->core->name);
	if (agbsim_gba_rom_find(file, rom, rom_len) != 0)
		return fail(run, AGBSIM_EXIT_IO,
			    "no bench ROM %s for core '%s': build the GBA ROMs or set AGBSIM_GBA_DIR", file,
			    run->core->name);
	return AGBSIM_EXIT_OK;
}

/* min_arena_bytes into *min_arena: the peak of run g when it had no failures; else, with
 * RUN_MIN_ARENA, the peak of a second ROM run on the whole region when that one has none; else
 * 0. Returns AGBSIM_EXIT_OK or the failure (run->error set). */
static int find_min_arena(struct agbsim_run *run, const char *rom, unsigned options,
			  const struct gba_run *g, uint32_t *min_arena)
{
	const struct agb_trace *t = run->trace;
	struct gba_run whole = {0};
	struct agb_replay_config cfg = run->cfg;
	struct agbsim_measure_opts quiet = {PLACEMENT_ROM, 0, NULL, NULL, 1};
	int rc;
	*min_arena = 0;
	if (g->failures == 0) {
		*min_arena = round_up(g->peak, agbsim_min_arena_step(t->arena));
		return AGBSIM_EXIT_OK;
	}
	if ((options & RUN_MIN_ARENA) == 0)
		return AGBSIM_EXIT_OK;
	/* Failures with this pool: how large a pool would serve the trace? Try the region. */
	cfg.arena_bytes = agb_arena_region_bytes(t->arena);
	whole.ev = calloc((size_t)t->event_count + 1u, sizeof *whole.ev);
	if (whole.ev == NULL)
		return fail(run, AGBSIM_EXIT_IO, "out of memory measuring %s", run->trace_path);
	rc = run_rom(run, rom, &cfg, &quiet, &whole, 0);
	if (rc == AGBSIM_EXIT_OK && whole.failures == 0)
		*min_arena = round_up(whole.peak, agbsim_min_arena_step(t->arena));
	free(whole.ev);
	return rc;
}

/* The per-event figures the caller asked for: mGBA's cycles, no model. Returns
 * AGBSIM_EXIT_OK or the failure (run->error set). */
static int keep_per_event(struct agbsim_run *run, const struct gba_run *g, const uint32_t *cycles,
			  struct agbsim_measured *per_event)
{
	const uint32_t n = run->trace->event_count;
	per_event->model = calloc((size_t)n + 1u, sizeof *per_event->model); /* no model */
	per_event->mgba = calloc((size_t)n + 1u, sizeof *per_event->mgba);
	if (per_event->model == NULL || per_event->mgba == NULL)
		return fail(run, AGBSIM_EXIT_IO, "out of memory measuring %s", run->trace_path);
	for (uint32_t i = 0; i < n; i++)
		per_event->mgba[i] = cycles[i];
	per_event->marker_overhead = g->marker_overhead;
	per_event->emulated_cycles = g->emulated_cycles;
	return AGBSIM_EXIT_OK;
}

/* The direct calls of run g's replay, into g->ev[].direct_*: a second ROM run with
 * AGB_BENCH_DIRECT_ONLY. newlib's state lives in its own globals and cannot be reset within one
 * ROM run, so the ROM that replayed cannot call malloc again on a fresh heap; a fresh ROM run
 * can. Its decisions must be run g's: every address (agbsim_direct_check) and the final memory
 * map. Sets *direct when the ROM made direct calls (a trace it serves). */
static int direct_rom_run(struct agbsim_run *run, const char *rom, struct gba_run *g, int *direct)
{
	const uint32_t n = run->trace->event_count;
	struct agbsim_measure_opts quiet = {PLACEMENT_ROM, 0, NULL, NULL, 1};
	struct gba_run d = {0};
	int rc;
	*direct = 0;
	d.ev = calloc((size_t)n + 1u, sizeof *d.ev);
	if (d.ev == NULL)
		return fail(run, AGBSIM_EXIT_IO, "out of memory measuring %s", run->trace_path);
	rc = run_rom(run, rom, &run->cfg, &quiet, &d, 1);
	if (rc == AGBSIM_EXIT_OK && d.direct_calls != 0) {
		if (d.walk_runs != g->walk_runs || d.walk_hash != g->walk_hash)
			rc = fail(run, AGBSIM_EXIT_IO,
				  "%s: core '%s': the direct calls did not end in the replay's memory map "
				  "(%u runs, replay %u runs)",
				  run->trace_path, run->core->name, d.walk_runs, g->walk_runs);
		if (rc == AGBSIM_EXIT_OK)
			rc = agbsim_direct_check(run, g->ev, d.ev);
		for (uint32_t i = 0; rc == AGBSIM_EXIT_OK && i < n; i++) {
			g->ev[i].direct_addr = d.ev[i].direct_addr;
			g->ev[i].direct_cycles = d.ev[i].direct_cycles;
			g->ev[i].direct_seen = d.ev[i].direct_seen;
		}
		*direct = rc == AGBSIM_EXIT_OK;
	}
	free(d.ev);
	return rc;
}

int agbsim_measure_gba_only(struct agbsim_run *run, unsigned options,
			    const struct agbsim_measure_opts *mo, struct agbsim_measured *per_event)
{
	const struct agb_trace *t = run->trace;
	const uint32_t n = t->event_count;
	struct gba_run g = {0};
	struct agbsim_table_figures tf = {0};
	uint32_t *cyc = NULL, *cycles = NULL, *table = NULL, min_arena = 0;
	char rom[PATH_MAX + 256];
	int rc, direct = 0;

	run->error[0] = '\0';
	run->direct_calls = 0;
	rc = check_applicable(run, mo, rom, sizeof rom);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	g.ev = calloc((size_t)n + 1u, sizeof *g.ev);
	cyc = calloc((size_t)n + 1u, sizeof *cyc);
	cycles = calloc((size_t)n + 1u, sizeof *cycles);
	table = calloc((size_t)n + 1u, sizeof *table);
	if (g.ev == NULL || cyc == NULL || cycles == NULL || table == NULL) {
		rc = fail(run, AGBSIM_EXIT_IO, "out of memory measuring %s", run->trace_path);
		goto done;
	}
	rc = run_rom(run, rom, &run->cfg, mo, &g, 0);
	if (rc == AGBSIM_EXIT_OK)
		rc = direct_rom_run(run, rom, &g, &direct);
	if (rc != AGBSIM_EXIT_OK)
		goto done;
	for (uint32_t i = 0; i < n; i++)
		cycles[i] = g.ev[i].cycles;
	if (direct) {
		agbsim_direct_substitute(run, g.ev, g.ev, cycles, table);
		if (agbsim_table_begin(&tf, t, run->core->unit, table) != 0) {
			rc = fail(run, AGBSIM_EXIT_IO, "out of memory measuring %s", run->trace_path);
			goto done;
		}
	}
	fill_metrics(run, &g, run->cfg.arena_bytes != 0 ? run->cfg.arena_bytes : t->arena_bytes,
		     cycles, cyc, direct ? &tf : NULL, mo->events_out);
	rc = find_min_arena(run, rom, options, &g, &min_arena);
	if (rc != AGBSIM_EXIT_OK)
		goto done;
	run->metrics.min_arena_bytes = min_arena;
	run->cycle_source = "mgba";
	run->status = AGBSIM_EXIT_OK;
	if (per_event != NULL)
		rc = keep_per_event(run, &g, cycles, per_event);
done:
	free(g.ev);
	free(cyc);
	free(cycles);
	free(table);
	return rc;
}

#else /* !AGB_MEASURE_ENABLED */

int agbsim_measure_gba_only(struct agbsim_run *run, unsigned options,
			    const struct agbsim_measure_opts *mo, struct agbsim_measured *per_event)
{
	(void)options;
	(void)mo;
	(void)per_event;
	return fail(run, AGBSIM_EXIT_IO,
		    "this agbsim was built without libmgba (or without the GBA ROMs): core '%s' runs "
		    "only in the GBA bench ROM%s",
		    run->core->name, AGBSIM_MGBA_NOTE);
}

#endif
