/* Reports of replay runs: table (for people), json (stable keys, docs/trace-format.md "Metrics"), csv, md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/agbsim.h"
#include "trace/json_out.h"

static const enum agb_op reported_ops[] = {AGB_OP_ALLOC, AGB_OP_FREE, AGB_OP_REALLOC, AGB_OP_REF,
					   AGB_OP_UNREF};
#define REPORTED_OP_COUNT (sizeof reported_ops / sizeof reported_ops[0])
/* Shown in table and JSON only when some cycles were spent on them (CSV columns stay fixed):
 * sprite display ops and the frame event's own work (the shadow OAM copy at V-blank). */
static const enum agb_op extra_ops[] = {AGB_OP_SPR_SHOW, AGB_OP_SPR_Z, AGB_OP_SPR_HIDE,
					AGB_OP_PAL_LOAD, AGB_OP_PAL_FREE, AGB_OP_PAL_PUSH,
					AGB_OP_PAL_POP,  AGB_OP_LOCK,     AGB_OP_UNLOCK,
					AGB_OP_TOUCH,    AGB_OP_FRAME};
/* The palette ops, in the CSV and Markdown palette columns. */
static const enum agb_op pal_ops[] = {AGB_OP_PAL_LOAD, AGB_OP_PAL_FREE, AGB_OP_PAL_PUSH,
				      AGB_OP_PAL_POP};
#define PAL_OP_COUNT (sizeof pal_ops / sizeof pal_ops[0])
#define EXTRA_OP_COUNT (sizeof extra_ops / sizeof extra_ops[0])

const char *agbsim_trace_name(const struct agbsim_run *r)
{
	return r->trace->name != NULL ? r->trace->name : r->trace_path;
}

static int is_tile_trace(const struct agbsim_run *r)
{
	return r->trace->arena == AGB_ARENA_BG_VRAM;
}

static int is_pal_trace(const struct agbsim_run *r)
{
	return r->trace->arena == AGB_ARENA_PAL_RAM;
}

/* A run whose trace went through the resource cache (lock or touch ops). */
static int has_cache(const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	return m->cycles[AGB_OP_LOCK].count + m->cycles[AGB_OP_TOUCH].count != 0;
}

static int any_cache(const struct agbsim_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (has_cache(&runs[i]))
			return 1;
	return 0;
}

static int any_pal_trace(const struct agbsim_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_pal_trace(&runs[i]))
			return 1;
	return 0;
}

static void json_cycles(struct agbsim_json *w, const char *key, const struct agb_cycle_stats *c)
{
	agbsim_json_key(w, key);
	agbsim_json_object(w, AGBSIM_JSON_INLINE);
	agbsim_json_member_u32(w, "count", c->count);
	agbsim_json_key(w, "mean");
	agbsim_json_fixed(w, c->mean, 1);
	agbsim_json_member_u32(w, "p50", c->p50);
	agbsim_json_member_u32(w, "p95", c->p95);
	agbsim_json_member_u32(w, "p99", c->p99);
	agbsim_json_member_u32(w, "max", c->max);
	agbsim_json_member_u64(w, "total", c->total);
	agbsim_json_end(w);
}

static void json_frag(struct agbsim_json *w, const char *key, const struct agb_frag_stats *f)
{
	agbsim_json_key(w, key);
	agbsim_json_object(w, AGBSIM_JSON_INLINE);
	agbsim_json_key(w, "mean");
	agbsim_json_fixed(w, f->mean, 6);
	agbsim_json_key(w, "max");
	agbsim_json_fixed(w, f->max, 6);
	agbsim_json_key(w, "final");
	agbsim_json_fixed(w, f->final, 6);
	agbsim_json_end(w);
}

/* Members on the current line of a "lines" object: "a": 1, "b": 2, ... */
static void json_u32_row(struct agbsim_json *w, const char *const *keys, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i != 0)
			agbsim_json_same_line(w);
		agbsim_json_member_u32(w, keys[i], v[i]);
	}
}

static void json_u32_or_null(struct agbsim_json *w, const char *key, uint32_t v, int present)
{
	agbsim_json_key(w, key);
	if (present)
		agbsim_json_u32(w, v);
	else
		agbsim_json_null(w);
}

void agbsim_json_run_identity(struct agbsim_json *w, const struct agbsim_run *r)
{
	agbsim_json_member_string(w, "trace", agbsim_trace_name(r));
	agbsim_json_member_string(w, "path", r->trace_path);
	agbsim_json_member_string(w, "allocator", r->core->name);
	agbsim_json_member_string(w, "arena", agb_arena_name(r->trace->arena));
}

/* Who, where and how many: the run's identity and event counts. */
static void json_run_header(struct agbsim_json *w, const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	static const char *const counts[] = {"events", "allocs", "frees", "reallocs", "frames"};
	static const char *const live[] = {"peak_live_bytes", "internal_bytes", "live_bytes_end"};
	static const char *const fails[] = {"failures", "frag_failures", "skipped"};
	agbsim_json_run_identity(w, r);
	agbsim_json_member_u32(w, "arena_bytes", m->arena_bytes);
	json_u32_row(w, counts, (const uint32_t[]){m->events, m->allocs, m->frees, m->reallocs, m->frames}, 5);
	json_u32_row(w, live,
		     (const uint32_t[]){m->peak_live_bytes, m->internal_bytes, m->live_bytes_end}, 3);
	json_u32_row(w, fails, (const uint32_t[]){m->failures, m->frag_failures, m->skipped}, 3);
	if (m->refused != 0) { /* a recording with refused requests (["refused", ...] events) */
		agbsim_json_member_u32(w, "refused", m->refused);
		agbsim_json_member_u32(w, "refused_served", m->refused_served);
	}
}

/* The resource cache's figures (lock/unlock/touch traces). */
static void json_cache(struct agbsim_json *w, const struct agb_metrics *m)
{
	static const char *const looks[] = {"cache_hits", "cache_misses", "cache_loads", "cache_nopes"};
	static const char *const evict[] = {"cache_evictions", "cache_blocked_evictions",
					    "cache_thrash", "thrash_window"};
	agbsim_json_key(w, "cache_hit_rate");
	agbsim_json_fixed(w, m->cache_hit_rate, 6);
	agbsim_json_same_line(w);
	json_u32_row(w, looks,
		     (const uint32_t[]){m->cache_hits, m->cache_misses, m->cache_loads, m->cache_nopes},
		     4);
	json_u32_row(w, evict,
		     (const uint32_t[]){m->cache_evictions, m->cache_blocked_evictions,
					m->cache_thrash, m->thrash_window},
		     4);
	agbsim_json_member_u64(w, "cache_bytes_loaded", m->cache_bytes_loaded);
	agbsim_json_same_line(w);
	agbsim_json_key(w, "load_cost");
	agbsim_json_fixed(w, m->load_cost_milli / 1000.0, 3);
	agbsim_json_same_line(w);
	agbsim_json_member_u64(w, "load_cycles", m->load_cycles);
	agbsim_json_same_line(w);
	agbsim_json_key(w, "load_cycles_per_frame");
	agbsim_json_fixed(w, m->load_cycles_per_frame, 1);
}

/* Memory figures: failures, fragmentation, overhead, canaries, tiles. */
static void json_run_memory(struct agbsim_json *w, const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	int failed = m->first_failure_event >= 0;
	agbsim_json_key(w, "first_failure_event");
	if (failed)
		agbsim_json_i64(w, m->first_failure_event);
	else
		agbsim_json_null(w);
	agbsim_json_same_line(w);
	json_u32_or_null(w, "live_bytes_at_first_failure", m->live_bytes_at_first_failure, failed);
	json_frag(w, "frag_external", &m->frag_external);
	json_frag(w, "frag_umm", &m->frag_umm);
	agbsim_json_member_u32(w, "overhead_bytes", m->overhead_bytes);
	agbsim_json_same_line(w);
	agbsim_json_key(w, "overhead_ratio");
	agbsim_json_fixed(w, m->overhead_ratio, 6);
	json_u32_or_null(w, "min_arena_bytes", m->min_arena_bytes, m->min_arena_bytes != 0);
	agbsim_json_member_u32(w, "corrupted_bytes", m->corrupted_bytes);
	if (is_tile_trace(r)) {
		static const char *const tiles[] = {"tile_uploads", "peak_resident_tiles",
						    "tile_failures"};
		json_u32_row(w, tiles,
			     (const uint32_t[]){m->tile_uploads, m->peak_resident_tiles, m->tile_failures},
			     3);
	}
	if (is_pal_trace(r)) {
		static const char *const pal[] = {"pal_uploads", "pal_bytes_uploaded",
						  "pal_dedup_hits", "pal_failures"};
		static const char *const banks[] = {"pal_peak_banks_bg", "pal_peak_banks_obj"};
		static const char *const stack[] = {"pal_stack_peak_depth", "pal_stack_buffer_bytes"};
		json_u32_row(w, pal,
			     (const uint32_t[]){m->pal_uploads, m->pal_bytes_uploaded,
						m->pal_dedup_hits, m->pal_failures},
			     4);
		json_u32_row(w, banks, m->pal_peak_banks, 2);
		json_u32_row(w, stack,
			     (const uint32_t[]){m->pal_stack_peak_depth, m->pal_stack_buffer_bytes}, 2);
	}
	if (has_cache(r))
		json_cache(w, m);
	if (m->syncs != 0) {
		static const char *const sec[] = {"syncs", "largest_section_bytes",
						  "section_peak_bytes_low", "section_peak_bytes_high",
						  "load_rate", "stall_frames"};
		json_u32_row(w, sec,
			     (const uint32_t[]){m->syncs, m->largest_section_bytes,
						m->section_peak_bytes[0], m->section_peak_bytes[1],
						m->load_rate, m->stall_frames},
			     6);
	}
}

/* "cycles": per reported op, the extra ops that cost anything, all ops, frames, total. */
static void json_run_cycles(struct agbsim_json *w, const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	agbsim_json_key(w, "cycles");
	agbsim_json_object(w, AGBSIM_JSON_LINES);
	agbsim_json_member_string(w, "source", r->cycle_source);
	if (r->direct_calls) {
		/* alloc/free/realloc below are direct calls; the core-table calls beside them. */
		agbsim_json_member_string(w, "calls", "direct");
		agbsim_json_key(w, "table_call");
		agbsim_json_object(w, AGBSIM_JSON_LINES);
		for (int op = 0; op < AGB_OP_COUNT; op++)
			if (r->table_call[op].count != 0)
				json_cycles(w, agb_op_name((enum agb_op)op), &r->table_call[op]);
		agbsim_json_end(w);
	}
	for (size_t i = 0; i < REPORTED_OP_COUNT; i++)
		if (m->cycles[reported_ops[i]].count != 0)
			json_cycles(w, agb_op_name(reported_ops[i]), &m->cycles[reported_ops[i]]);
	for (size_t i = 0; i < EXTRA_OP_COUNT; i++)
		if (m->cycles[extra_ops[i]].total != 0 ||
		    (extra_ops[i] >= AGB_OP_PAL_LOAD && m->cycles[extra_ops[i]].count != 0))
			json_cycles(w,
				    extra_ops[i] == AGB_OP_FRAME ? "frame_event"
								 : agb_op_name(extra_ops[i]),
				    &m->cycles[extra_ops[i]]);
	json_cycles(w, "all_ops", &m->all_ops);
	agbsim_json_key(w, "frame");
	agbsim_json_object(w, AGBSIM_JSON_INLINE);
	agbsim_json_member_u32(w, "max", m->frame_max_cycles);
	agbsim_json_key(w, "max_frame_pct");
	agbsim_json_fixed(w, m->max_frame_pct, 4);
	agbsim_json_member_u32(w, "over_budget", m->frames_over_budget);
	agbsim_json_member_u32(w, "load_frames", m->load_frames);
	agbsim_json_member_u32(w, "load_max", m->load_frame_max_cycles);
	agbsim_json_key(w, "max_load_frame_pct");
	agbsim_json_fixed(w, m->max_load_frame_pct, 4);
	agbsim_json_end(w);
	if (m->frames != 0) {
		/* The frames named: number (1-based, as --at=frame:N), first event, ops in them
		 * (null: no such frame). */
		int game = m->frames > m->load_frames, load = m->load_frames != 0;
		agbsim_json_key(w, "worst_frames");
		agbsim_json_object(w, AGBSIM_JSON_INLINE);
		json_u32_or_null(w, "gameplay", m->frame_max_index + 1u, game);
		json_u32_or_null(w, "gameplay_first_event", m->frame_max_first_event, game);
		json_u32_or_null(w, "gameplay_ops", m->frame_max_ops, game);
		json_u32_or_null(w, "loading", m->load_frame_max_index + 1u, load);
		json_u32_or_null(w, "loading_first_event", m->load_frame_max_first_event, load);
		json_u32_or_null(w, "loading_ops", m->load_frame_max_ops, load);
		agbsim_json_end(w);
	}
	agbsim_json_member_u64(w, "total", m->total_cycles);
	agbsim_json_end(w);
}

/* Wall-clock figures (bench --timing): informative, never compared by the gate. */
static void json_run_timing(struct agbsim_json *w, const struct agbsim_run *r)
{
	agbsim_json_key(w, "timing");
	agbsim_json_object(w, AGBSIM_JSON_INLINE);
	agbsim_json_key(w, "host_ns_per_op");
	agbsim_json_fixed(w, r->host_ns_per_op, 1);
	if (r->plain_ns_per_op > 0) {
		agbsim_json_key(w, "plain_ns_per_op");
		agbsim_json_fixed(w, r->plain_ns_per_op, 1);
		agbsim_json_key(w, "simulation_overhead");
		agbsim_json_fixed(w, r->host_ns_per_op / r->plain_ns_per_op, 2);
	}
	agbsim_json_end(w);
}

void agbsim_report_json_run(struct agbsim_json *w, const struct agbsim_run *r)
{
	agbsim_json_object(w, AGBSIM_JSON_LINES);
	json_run_header(w, r);
	json_run_memory(w, r);
	json_run_cycles(w, r);
	if (r->host_ns_per_op > 0)
		json_run_timing(w, r);
	agbsim_json_end(w);
}

static void report_json(FILE *out, const struct agbsim_run *runs, size_t n)
{
	struct agbsim_json w;
	agbsim_json_init(&w, out);
	if (n != 1)
		agbsim_json_array(&w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < n; i++)
		agbsim_report_json_run(&w, &runs[i]);
	if (n != 1)
		agbsim_json_end(&w);
	agbsim_json_finish(&w);
}

static void fmt_opt_u32(char *buf, size_t len, uint32_t v, int present)
{
	if (present)
		snprintf(buf, len, "%u", v);
	else
		snprintf(buf, len, "-");
}

/* Streamed sections: the doors, the largest section against half the pool (what a one-sided
 * scheme could hold), each side's peak, and the frames the doors kept the player waiting. */
static void report_sections(FILE *out, const struct agb_metrics *m)
{
	fprintf(out,
		"sections     %u syncs; largest section %u bytes (%.1f%% of half the pool); peak low "
		"side %u, high side %u bytes; ",
		m->syncs, m->largest_section_bytes,
		m->arena_bytes != 0 ? 200.0 * m->largest_section_bytes / m->arena_bytes : 0.0,
		m->section_peak_bytes[0], m->section_peak_bytes[1]);
	if (m->load_rate != 0)
		fprintf(out, "%u stall frames at %u bytes/frame\n", m->stall_frames, m->load_rate);
	else
		fprintf(out, "stalls not judged (--load-rate=BYTES)\n");
}

/* The resource cache: lookups, what the misses did, what eviction cost, what loading cost. */
static void report_cache(FILE *out, const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	fprintf(out,
		"cache        lru over %s: hit rate %.1f%% (%u hits, %u misses: %u loads, %u nopes); "
		"%u evictions (%u did not make room); thrash %u (reloads within %u frames)\n",
		r->core->name, m->cache_hit_rate * 100.0, m->cache_hits, m->cache_misses,
		m->cache_loads, m->cache_nopes, m->cache_evictions, m->cache_blocked_evictions,
		m->cache_thrash, m->thrash_window);
	fprintf(out,
		"loading      %" PRIu64 " bytes x %.3f cycles/byte = %" PRIu64
		" cycles, %.1f per frame (%.2f%% of a frame)\n",
		m->cache_bytes_loaded, m->load_cost_milli / 1000.0, m->load_cycles,
		m->load_cycles_per_frame, m->load_cycles_per_frame * 100.0 / AGB_FRAME_CYCLES);
}

static void report_table_one(FILE *out, const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	char first[32], minar[32];
	fmt_opt_u32(first, sizeof first, (uint32_t)m->first_failure_event, m->first_failure_event >= 0);
	fmt_opt_u32(minar, sizeof minar, m->min_arena_bytes, m->min_arena_bytes != 0);

	fprintf(out, "trace        %s (%s)\n", agbsim_trace_name(r), r->trace_path);
	fprintf(out, "allocator    %s on %s, %u bytes at 0x%08X; metadata %u bytes (%.2f%%)\n",
		r->core->name, agb_arena_name(r->trace->arena), m->arena_bytes, r->result.arena_addr,
		m->overhead_bytes, m->overhead_ratio * 100.0);
	fprintf(out, "events       %u: %u alloc, %u free, %u realloc, %u frame", m->events, m->allocs,
		m->frees, m->reallocs, m->frames);
	if (is_tile_trace(r))
		fprintf(out, ", %u ref, %u unref", m->refs, m->unrefs);
	fprintf(out, "\n");
	if (!is_tile_trace(r)) {
		fprintf(out,
			"live         peak %u bytes requested, %u bytes internal waste at peak; %u "
			"bytes live at the end\n",
			m->peak_live_bytes, m->internal_bytes, m->live_bytes_end);
		fprintf(out, "failures     %u (%u from fragmentation), %u ops skipped; first at event %s",
			m->failures, m->frag_failures, m->skipped, first);
		if (m->first_failure_event >= 0)
			fprintf(out, " with %u bytes live", m->live_bytes_at_first_failure);
		fprintf(out, "\n");
		if (m->refused != 0)
			fprintf(out,
				"refused      %u requests the recorded allocator refused: %u failed here "
				"too (among the failures), %u served\n",
				m->refused, m->refused - m->refused_served, m->refused_served);
		fprintf(out, "min arena    %s bytes (smallest pool with no failures, %u-byte steps)\n",
			minar, agbsim_min_arena_step(r->trace->arena));
		fprintf(out, "fragmentation  external mean %.4f max %.4f final %.4f | umm mean %.4f max "
			     "%.4f final %.4f\n",
			m->frag_external.mean, m->frag_external.max, m->frag_external.final,
			m->frag_umm.mean, m->frag_umm.max, m->frag_umm.final);
	} else {
		fprintf(out, "tiles        %u uploads, peak %u resident, %u failures, %u unrefs skipped\n",
			m->tile_uploads, m->peak_resident_tiles, m->tile_failures, m->skipped);
	}
	if (is_pal_trace(r))
		fprintf(out,
			"palettes     %u uploads (%u bytes), %u dedup hits, %u failures; peak banks BG "
			"%u OBJ %u; stack peak depth %u, %u bytes of work RAM\n",
			m->pal_uploads, m->pal_bytes_uploaded, m->pal_dedup_hits, m->pal_failures,
			m->pal_peak_banks[0], m->pal_peak_banks[1], m->pal_stack_peak_depth,
			m->pal_stack_buffer_bytes);
	if (has_cache(r))
		report_cache(out, r);
	if (m->syncs != 0)
		report_sections(out, m);
	fprintf(out, "canaries     %u corrupted bytes%s\n", m->corrupted_bytes,
		m->corrupted_bytes != 0 ? "  <-- CORE BUG" : "");
	if (m->quirk_stores != 0 || m->unmapped_accesses != 0)
		fprintf(out, "bus          %u byte stores to VRAM/OAM/ROM, %u unmapped accesses  <-- CORE BUG\n",
			m->quirk_stores, m->unmapped_accesses);
	fprintf(out, "\ncycles (%s)    count       mean      p50      p95      p99      max\n",
		r->cycle_source);
	for (size_t i = 0; i < REPORTED_OP_COUNT; i++) {
		const struct agb_cycle_stats *c = &m->cycles[reported_ops[i]];
		if (c->count == 0)
			continue;
		fprintf(out, "  %-12s %7u %10.1f %8u %8u %8u %8u\n", agb_op_name(reported_ops[i]),
			c->count, c->mean, c->p50, c->p95, c->p99, c->max);
	}
	for (size_t i = 0; i < EXTRA_OP_COUNT; i++) {
		const struct agb_cycle_stats *c = &m->cycles[extra_ops[i]];
		if (c->total == 0)
			continue;
		fprintf(out, "  %-12s %7u %10.1f %8u %8u %8u %8u\n", agb_op_name(extra_ops[i]),
			c->count, c->mean, c->p50, c->p95, c->p99, c->max);
	}
	fprintf(out, "  %-12s %7u %10.1f %8u %8u %8u %8u\n", "all ops", m->all_ops.count,
		m->all_ops.mean, m->all_ops.p50, m->all_ops.p95, m->all_ops.p99, m->all_ops.max);
	fprintf(out, "  total %" PRIu64 " cycles", m->total_cycles);
	fprintf(out, "\n");
	if (m->frames != 0 && m->frames > m->load_frames)
		fprintf(out,
			"  worst gameplay frame %u (from event %u, %u ops): %u cycles = %.2f%% of a "
			"frame, %.0f%% of the %.0f%% budget%s\n",
			m->frame_max_index + 1u, m->frame_max_first_event, m->frame_max_ops,
			m->frame_max_cycles, m->max_frame_pct,
			m->max_frame_pct * 100.0 / AGB_FRAME_BUDGET_PCT, AGB_FRAME_BUDGET_PCT,
			m->frames_over_budget != 0 ? "  <-- over budget" : "");
	if (m->load_frames != 0)
		fprintf(out,
			"  worst loading frame %u (from event %u, %u ops; loading frames: %u, not "
			"judged): %u cycles = %.2f%% of a frame\n",
			m->load_frame_max_index + 1u, m->load_frame_max_first_event, m->load_frame_max_ops,
			m->load_frames, m->load_frame_max_cycles, m->max_load_frame_pct);
	if (m->frames != 0)
		fprintf(out, "  (agbsim replay --at=frame:N or view --at=frame:N shows frame N)\n");
}

static void report_table(FILE *out, const struct agbsim_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i != 0)
			fputc('\n', out);
		report_table_one(out, &runs[i]);
	}
}

/* CSV: one row per run; quoting per RFC 4180 for the free-text columns. */
static void csv_field(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Palette columns: present (for every row) only when some run replays a pal_ram trace, so
 * the columns of other reports stay as they were. */
static void csv_pal_header(FILE *out)
{
	fputs(",pal_uploads,pal_bytes_uploaded,pal_dedup_hits,pal_failures,pal_peak_banks_bg,"
	      "pal_peak_banks_obj,pal_stack_peak_depth,pal_stack_buffer_bytes",
	      out);
	for (size_t i = 0; i < PAL_OP_COUNT; i++) {
		const char *op = agb_op_name(pal_ops[i]);
		fprintf(out, ",%s_count,%s_mean,%s_p50,%s_p95,%s_p99,%s_max", op, op, op, op, op, op);
	}
}

static void csv_pal_row(FILE *out, const struct agb_metrics *m)
{
	fprintf(out, ",%u,%u,%u,%u,%u,%u,%u,%u", m->pal_uploads, m->pal_bytes_uploaded,
		m->pal_dedup_hits, m->pal_failures, m->pal_peak_banks[0], m->pal_peak_banks[1],
		m->pal_stack_peak_depth, m->pal_stack_buffer_bytes);
	for (size_t i = 0; i < PAL_OP_COUNT; i++) {
		const struct agb_cycle_stats *c = &m->cycles[pal_ops[i]];
		fprintf(out, ",%u,%.1f,%u,%u,%u,%u", c->count, c->mean, c->p50, c->p95, c->p99, c->max);
	}
}

/* Cache columns: present (for every row) only when some run went through the resource cache. */
static void csv_cache_header(FILE *out)
{
	fputs(",cache_hit_rate,cache_hits,cache_misses,cache_loads,cache_nopes,cache_evictions,"
	      "cache_blocked_evictions,cache_thrash,thrash_window,cache_bytes_loaded,load_cost,"
	      "load_cycles,load_cycles_per_frame",
	      out);
}

static void csv_cache_row(FILE *out, const struct agb_metrics *m)
{
	fprintf(out, ",%.6f,%u,%u,%u,%u,%u,%u,%u,%u,%" PRIu64 ",%.3f,%" PRIu64 ",%.1f",
		m->cache_hit_rate, m->cache_hits, m->cache_misses, m->cache_loads, m->cache_nopes,
		m->cache_evictions, m->cache_blocked_evictions, m->cache_thrash, m->thrash_window,
		m->cache_bytes_loaded, m->load_cost_milli / 1000.0, m->load_cycles,
		m->load_cycles_per_frame);
}

/* Direct-call runs (agbsim_run.direct_calls): which calls the alloc/free/realloc (ref/unref)
 * columns time, and the core-table figures beside them (empty for other runs). */
static const enum agb_op direct_ops[] = {AGB_OP_ALLOC, AGB_OP_FREE, AGB_OP_REALLOC, AGB_OP_REF,
					 AGB_OP_UNREF};
#define DIRECT_OP_COUNT (sizeof direct_ops / sizeof direct_ops[0])
static int any_direct(const struct agbsim_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].direct_calls)
			return 1;
	return 0;
}

static void csv_direct_header(FILE *out)
{
	fputs(",cycles_calls", out);
	for (size_t i = 0; i < DIRECT_OP_COUNT; i++) {
		const char *name = agb_op_name(direct_ops[i]);
		fprintf(out, ",table_%s_mean,table_%s_p99,table_%s_max", name, name, name);
	}
}

static void csv_direct_row(FILE *out, const struct agbsim_run *run)
{
	fputs(run->direct_calls ? ",direct" : ",table", out);
	for (size_t i = 0; i < DIRECT_OP_COUNT; i++) {
		const struct agb_cycle_stats *c = &run->table_call[direct_ops[i]];
		if (run->direct_calls && c->count != 0)
			fprintf(out, ",%.1f,%u,%u", c->mean, c->p99, c->max);
		else
			fputs(",,,", out);
	}
}

static void report_csv(FILE *out, const struct agbsim_run *runs, size_t n)
{
	const int pal = any_pal_trace(runs, n), cache = any_cache(runs, n);
	const int direct = any_direct(runs, n);
	fputs("trace,path,allocator,arena,arena_bytes,events,allocs,frees,reallocs,frames,"
	      "peak_live_bytes,internal_bytes,failures,frag_failures,skipped,first_failure_event,"
	      "live_bytes_at_first_failure,frag_external_mean,frag_external_max,frag_external_final,"
	      "frag_umm_mean,frag_umm_max,frag_umm_final,overhead_bytes,overhead_ratio,"
	      "min_arena_bytes,corrupted_bytes,tile_uploads,peak_resident_tiles,tile_failures,"
	      "cycles_source",
	      out);
	for (size_t i = 0; i < REPORTED_OP_COUNT; i++) {
		const char *op = agb_op_name(reported_ops[i]);
		fprintf(out, ",%s_count,%s_mean,%s_p50,%s_p95,%s_p99,%s_max", op, op, op, op, op, op);
	}
	fputs(",frame_max_cycles,max_frame_pct,total_cycles,load_frames,load_frame_max_cycles,"
	      "max_load_frame_pct",
	      out);
	if (pal)
		csv_pal_header(out);
	if (cache)
		csv_cache_header(out);
	if (direct)
		csv_direct_header(out);
	fputc('\n', out);
	for (size_t r = 0; r < n; r++) {
		const struct agbsim_run *run = &runs[r];
		const struct agb_metrics *m = &run->metrics;
		csv_field(out, agbsim_trace_name(run));
		fputc(',', out);
		csv_field(out, run->trace_path);
		fprintf(out, ",%s,%s,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,", run->core->name,
			agb_arena_name(run->trace->arena), m->arena_bytes, m->events, m->allocs,
			m->frees, m->reallocs, m->frames, m->peak_live_bytes, m->internal_bytes,
			m->failures, m->frag_failures, m->skipped);
		if (m->first_failure_event >= 0)
			fprintf(out, "%" PRId64 ",%u", m->first_failure_event,
				m->live_bytes_at_first_failure);
		else
			fputs(",", out);
		fprintf(out, ",%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%u,%.6f,", m->frag_external.mean,
			m->frag_external.max, m->frag_external.final, m->frag_umm.mean, m->frag_umm.max,
			m->frag_umm.final, m->overhead_bytes, m->overhead_ratio);
		if (m->min_arena_bytes != 0)
			fprintf(out, "%u", m->min_arena_bytes);
		fprintf(out, ",%u,%u,%u,%u,%s", m->corrupted_bytes, m->tile_uploads,
			m->peak_resident_tiles, m->tile_failures, run->cycle_source);
		for (size_t i = 0; i < REPORTED_OP_COUNT; i++) {
			const struct agb_cycle_stats *c = &m->cycles[reported_ops[i]];
			fprintf(out, ",%u,%.1f,%u,%u,%u,%u", c->count, c->mean, c->p50, c->p95, c->p99,
				c->max);
		}
		fprintf(out, ",%u,%.4f,%" PRIu64 ",%u,%u,%.4f", m->frame_max_cycles, m->max_frame_pct,
			m->total_cycles, m->load_frames, m->load_frame_max_cycles,
			m->max_load_frame_pct);
		if (pal)
			csv_pal_row(out, m);
		if (cache)
			csv_cache_row(out, m);
		if (direct)
			csv_direct_row(out, run);
		fputc('\n', out);
	}
}

static void md_cell_escape(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void md_cycles(FILE *out, const struct agb_cycle_stats *c)
{
	if (c->count == 0)
		fputs(" - |", out);
	else
		fprintf(out, " %.0f/%u/%u |", c->mean, c->p99, c->max);
}

/* The palette figures of the pal_ram runs, as a second table. */
static void report_md_pal(FILE *out, const struct agbsim_run *runs, size_t n)
{
	fputs("\n| trace | allocator | uploads | bytes uploaded | dedup hits | failures | peak banks "
	      "BG/OBJ | stack depth | stack work RAM | pal_load mean/p99/max | pal_free mean/p99/max "
	      "| pal_push mean/p99/max | pal_pop mean/p99/max |\n",
	      out);
	fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", out);
	for (size_t r = 0; r < n; r++) {
		const struct agb_metrics *m = &runs[r].metrics;
		if (!is_pal_trace(&runs[r]) || runs[r].status != AGBSIM_EXIT_OK)
			continue;
		fputs("| ", out);
		md_cell_escape(out, agbsim_trace_name(&runs[r]));
		fprintf(out, " | %s | %u | %u | %u | %u | %u/%u | %u | %u |", runs[r].core->name,
			m->pal_uploads, m->pal_bytes_uploaded, m->pal_dedup_hits, m->pal_failures,
			m->pal_peak_banks[0], m->pal_peak_banks[1], m->pal_stack_peak_depth,
			m->pal_stack_buffer_bytes);
		for (size_t i = 0; i < PAL_OP_COUNT; i++)
			md_cycles(out, &m->cycles[pal_ops[i]]);
		fputc('\n', out);
	}
}

/* Runs that produced no numbers (a core that cannot serve the trace) get a row saying why. */
static void report_md(FILE *out, const struct agbsim_run *runs, size_t n)
{
	fputs("| trace | allocator | arena bytes | failures | frag failures | min arena | "
	      "frag ext mean/max | frag umm mean | overhead | corrupted | alloc mean/p99/max | "
	      "free mean/p99/max | worst frame |\n",
	      out);
	fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", out);
	for (size_t r = 0; r < n; r++) {
		const struct agbsim_run *run = &runs[r];
		const struct agb_metrics *m = &run->metrics;
		fputs("| ", out);
		md_cell_escape(out, agbsim_trace_name(run));
		fprintf(out, " | %s |", run->core->name);
		if (run->status != AGBSIM_EXIT_OK) {
			const char *why = strstr(run->error, "core '");
			fputs(" n/a: ", out);
			md_cell_escape(out, why != NULL ? why : run->error);
			fputs(" |||||||||||\n", out);
			continue;
		}
		fprintf(out, " %u | %u | %u | ", m->arena_bytes, m->failures, m->frag_failures);
		if (m->min_arena_bytes != 0)
			fprintf(out, "%u", m->min_arena_bytes);
		else
			fputs("-", out);
		fprintf(out, " | %.3f/%.3f | %.3f | %.2f%% | %u |", m->frag_external.mean,
			m->frag_external.max, m->frag_umm.mean, m->overhead_ratio * 100.0,
			m->corrupted_bytes);
		md_cycles(out, &m->cycles[AGB_OP_ALLOC]);
		md_cycles(out, &m->cycles[AGB_OP_FREE]);
		if (m->frames != 0)
			fprintf(out, " %.2f%% |\n", m->max_frame_pct);
		else
			fputs(" - |\n", out);
	}
	if (any_pal_trace(runs, n))
		report_md_pal(out, runs, n);
	fprintf(out, "\nCycles: %s.\n", n > 0 ? runs[0].cycle_source : "model");
}

void agbsim_report(FILE *out, enum agbsim_format fmt, const struct agbsim_run *runs, size_t n)
{
	switch (fmt) {
	case FORMAT_JSON:
		report_json(out, runs, n);
		break;
	case FORMAT_CSV:
		report_csv(out, runs, n);
		break;
	case FORMAT_MD:
		report_md(out, runs, n);
		break;
	case FORMAT_TABLE:
	default:
		report_table(out, runs, n);
		break;
	}
}
