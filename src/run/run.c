/* One replay with metrics: shared by replay, bench and view. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "agbsim/cycle_model.h"
#include "cli/agbsim.h"
#include "trace/json_out.h"
#include "trace/trace_load.h"

uint32_t agbsim_min_arena_step(enum agb_arena arena)
{
	/* EWRAM pools in 1 KiB steps (as a game sizes its heap); VRAM in 32-byte tiles. */
	return arena == AGB_ARENA_EWRAM ? 1024u : 32u;
}

struct tap_pair {
	struct agb_metrics_acc *acc;
	const struct agbsim_tap *tap;
};

static void observe_both(void *ctx, const struct agb_replay_obs *obs)
{
	struct tap_pair *p = ctx;
	agb_metrics_observe(p->acc, obs);
	p->tap->fn(p->tap->ctx, obs);
}

int agbsim_run_fail(struct agbsim_run *run, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(run->error, sizeof run->error, fmt, ap);
	va_end(ap);
	run->status = rc;
	return rc;
}

#define fail agbsim_run_fail

/* "PATH:LINE:COL" of event EV in the trace file, for errors a replay finds after loading (the
 * contract's FILE:LINE:COL for bad input); just "PATH" when the file cannot be read again
 * (stdin, a pipe). Error path only: re-reads the file. */
static const char *event_where(const struct agbsim_run *run, uint32_t ev, char *buf, size_t n)
{
	struct agb_diag d;
	if (agb_trace_locate_event(run->trace_path, ev, &d) == 0)
		snprintf(buf, n, "%s:%u:%u", run->trace_path, d.line, d.col);
	else
		snprintf(buf, n, "%s", run->trace_path);
	return buf;
}

static const char *init_failure(int status)
{
	switch (status) {
	case AGB_HEAP_ARENA_TOO_SMALL:
		return "the arena is too small for this core";
	case AGB_HEAP_ARENA_TOO_LARGE:
		return "the arena is too large for this core";
	case AGB_HEAP_META_TOO_SMALL:
		return "no room for this core's bookkeeping (try --meta=iwram or a smaller arena)";
	case AGB_HEAP_BAD_ALIGNMENT:
		return "the arena is not aligned as this core needs";
	default:
		return "the core refused the arena";
	}
}

int agbsim_run_replay(struct agbsim_run *run, unsigned options, const struct agbsim_tap *tap)
{
	const struct agb_trace *t = run->trace;
	size_t ws_bytes = agb_replay_workspace_bytes(t);
	agb_machine *m = malloc(sizeof *m);
	void *ws = malloc(ws_bytes);
	uint32_t *cycles = malloc(((size_t)t->event_count + 1u) * sizeof *cycles);
	struct agb_metrics_acc acc;
	struct tap_pair pair = {&acc, tap};
	int rc = AGBSIM_EXIT_OK;

	run->error[0] = '\0';
	if (m == NULL || ws == NULL || cycles == NULL) {
		rc = fail(run, AGBSIM_EXIT_IO, "out of memory replaying %s", run->trace_path);
		goto done;
	}
	run->cfg.core = run->core;
	run->cycle_source = "model";
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	agb_metrics_begin(&acc, &run->metrics, t, run->core->unit, cycles);
	agb_metrics_set_load_rate(&acc, run->stream.load_rate);
	agb_metrics_set_cache(&acc,
			      run->stream.thrash_window != 0 ? run->stream.thrash_window
							     : AGB_THRASH_WINDOW,
			      run->stream.load_cost_milli != 0 ? run->stream.load_cost_milli
							       : AGB_LOAD_COST_COPY_MILLI);
	agb_replay_run(t, &run->cfg, m, ws, ws_bytes, tap != NULL ? observe_both : agb_metrics_observe,
		       tap != NULL ? (void *)&pair : (void *)&acc, &run->result);
	switch (run->result.status) {
	case AGB_REPLAY_OK:
		break;
	case AGB_REPLAY_INIT_FAILED:
		rc = fail(run, AGBSIM_EXIT_USAGE, "%s: core '%s' on %s (%u bytes): %s", run->trace_path,
			  run->core->name, agb_arena_name(t->arena), run->result.arena_bytes,
			  init_failure(run->result.init_status));
		goto done;
	case AGB_REPLAY_UNSUPPORTED:
	case AGB_REPLAY_BAD_EVENT: {
		const struct agb_event *ev = &t->events[run->result.failed_event];
		char where[600];
		event_where(run, run->result.failed_event, where, sizeof where);
		int tile = ev->op == AGB_OP_REF || ev->op == AGB_OP_UNREF;
		if (tile && run->result.status == AGB_REPLAY_BAD_EVENT)
			rc = fail(run, AGBSIM_EXIT_USAGE,
				  "%s: event %u (%s of ROM tile %u at %ubpp): core '%s' rejected it "
				  "(a tile number beyond what --rom-tiles covers?)",
				  where, run->result.failed_event, agb_op_name(ev->op), ev->id,
				  ev->size, run->core->name);
		else
			rc = fail(run, AGBSIM_EXIT_USAGE, "%s: event %u (%s): core '%s': %s",
				  where, run->result.failed_event, agb_op_name(ev->op),
				  run->core->name, run->result.why);
		goto done;
	}
	case AGB_REPLAY_CHECK_FAILED:
		rc = fail(run, AGBSIM_EXIT_IO, "%s: core '%s': invariant check failed after event %u (%s): %s",
			  run->trace_path, run->core->name, run->result.failed_event,
			  agb_op_name(t->events[run->result.failed_event].op), run->result.why);
		goto done;
	default:
		rc = fail(run, AGBSIM_EXIT_IO, "%s: internal error: replay status %d", run->trace_path,
			  run->result.status);
		goto done;
	}
	agb_metrics_end(&acc, &run->result);
	/* Tile and palette managers always take their whole region: no smaller pool to find. */
	if ((options & RUN_MIN_ARENA) != 0 && t->arena != AGB_ARENA_BG_VRAM &&
	    t->arena != AGB_ARENA_PAL_RAM) {
		struct agb_replay_config c = run->cfg;
		run->metrics.min_arena_bytes =
			agb_replay_min_arena(t, &c, m, ws, ws_bytes, agbsim_min_arena_step(t->arena));
	}
done:
	run->status = rc;
	free(cycles);
	free(ws);
	free(m);
	return rc;
}

void agbsim_note_extrapolated(const struct agbsim_run *runs, size_t n)
{
	size_t count = 0, shown = 0;
	for (size_t i = 0; i < n; i++)
		count += runs[i].status == AGBSIM_EXIT_OK && runs[i].result.extrapolated_ops != 0 &&
			 runs[i].cycle_source != NULL && runs[i].cycle_source[0] == 'm' &&
			 runs[i].cycle_source[1] == 'o';
	if (count == 0)
		return;
	fputs("agbsim: note: model cycles extrapolated beyond the calibration range for", stderr);
	for (size_t i = 0; i < n && shown < 4; i++) {
		const struct agbsim_run *r = &runs[i];
		if (r->status != AGBSIM_EXIT_OK || r->result.extrapolated_ops == 0 ||
		    r->cycle_source == NULL || r->cycle_source[1] != 'o')
			continue;
		fprintf(stderr, "%s %s on %s (%u ops from event %u)", shown == 0 ? "" : ",",
			r->trace->name != NULL ? r->trace->name : r->trace_path, r->core->name,
			r->result.extrapolated_ops, r->result.first_extrapolated);
		shown++;
	}
	if (count > shown)
		fprintf(stderr, " and %zu more runs", count - shown);
	fputs("; measure them with --cycles=mgba (about half a second per trace)\n", stderr);
}

/* offset and granted of a served request (offset null, granted 0 for one that failed). */
/* lock and touch: the inputs of the core calls the cache made, per kind (agb_replay_obs.nest):
 * [calls, bus_cycles, accesses, stores, rom_reads, work]. */
static void member_nest(struct agbsim_json *w, const struct agb_replay_obs *o)
{
	static const char *const kind[2] = {"nest_alloc", "nest_free"};
	for (unsigned k = 0; k < 2u; k++) {
		agbsim_json_key(w, kind[k]);
		agbsim_json_array(w, AGBSIM_JSON_INLINE);
		for (unsigned f = 0; f < 6u; f++)
			agbsim_json_u32(w, o->nest[k][f]);
		agbsim_json_end(w);
	}
}

static void member_block(struct agbsim_json *w, const struct agbsim_events_out *e,
			 const struct agb_replay_obs *o)
{
	agbsim_json_key(w, "offset");
	if (o->outcome == AGB_OUTCOME_OK)
		agbsim_json_u32(w, o->addr - e->arena_addr);
	else
		agbsim_json_null(w);
	agbsim_json_member_u32(w, "granted", o->outcome == AGB_OUTCOME_OK ? o->granted : 0u);
}

void agbsim_events_out_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct agbsim_events_out *e = ctx;
	static const char *const outcome[] = {"ok", "failed", "skipped"};
	struct agbsim_json w;
	agbsim_json_init(&w, e->out);
	agbsim_json_object(&w, AGBSIM_JSON_COMPACT);
	agbsim_json_member_u32(&w, "event", o->index);
	agbsim_json_member_string(&w, "op", agb_op_name(o->op));
	switch (o->op) {
	case AGB_OP_ALLOC:
	case AGB_OP_REALLOC:
		agbsim_json_member_u32(&w, "id", o->id);
		agbsim_json_member_u32(&w, "size", o->requested);
		member_block(&w, e, o);
		break;
	case AGB_OP_FREE:
		agbsim_json_member_u32(&w, "id", o->id);
		if (o->outcome == AGB_OUTCOME_OK)
			member_block(&w, e, o);
		break;
	case AGB_OP_REF:
	case AGB_OP_UNREF:
		agbsim_json_member_u32(&w, "tile", o->id);
		agbsim_json_member_u32(&w, "bpp", o->requested);
		agbsim_json_member_u32(&w, "result", o->result);
		break;
	case AGB_OP_LOCK:
	case AGB_OP_TOUCH:
		/* result: AGB_CACHE_HIT/_LOADED/_NOPE | evictions << 4 (agb/cache.h) */
		agbsim_json_member_u32(&w, "key", o->id);
		agbsim_json_member_u32(&w, "size", o->requested);
		member_block(&w, e, o);
		agbsim_json_member_u32(&w, "result", o->result);
		break;
	case AGB_OP_UNLOCK:
		agbsim_json_member_u32(&w, "key", o->id);
		break;
	default:
		break;
	}
	agbsim_json_member_string(&w, "outcome", outcome[o->outcome]);
	agbsim_json_member_u32(&w, "cycles", o->cycles);
	agbsim_json_member_u32(&w, "bus_cycles", o->bus_cycles);
	agbsim_json_member_u32(&w, "accesses", o->accesses);
	if (e->features) {
		agbsim_json_member_u32(&w, "stores", o->stores);
		agbsim_json_member_u32(&w, "rom_reads", o->rom_reads);
		agbsim_json_member_u32(&w, "size_log2", agb_cycle_size_log2(o->requested));
		agbsim_json_member_u32(&w, "work", o->work);
		if (o->op == AGB_OP_LOCK || o->op == AGB_OP_TOUCH)
			member_nest(&w, o);
	}
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
}
