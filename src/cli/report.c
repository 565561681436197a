/* Reports of replay runs: table (for people), json (stable keys, docs/trace-format.md "Metrics"), csv, md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/agbsim.h"

static const enum agb_op reported_ops[] = {AGB_OP_ALLOC, AGB_OP_FREE, AGB_OP_REALLOC, AGB_OP_REF,
					   AGB_OP_UNREF};
#define REPORTED_OP_COUNT (sizeof reported_ops / sizeof reported_ops[0])
/* Shown in table and JSON only when some cycles were spent on them (CSV columns stay fixed):
 * sprite display ops and the frame event's own work (the shadow OAM copy at V-blank). */
static const enum agb_op extra_ops[] = {AGB_OP_SPR_SHOW, AGB_OP_SPR_Z, AGB_OP_SPR_HIDE,
					AGB_OP_FRAME};
#define EXTRA_OP_COUNT (sizeof extra_ops / sizeof extra_ops[0])

static const char *trace_name(const struct agbsim_run *r)
{
	return r->trace->name != NULL ? r->trace->name : r->trace_path;
}

static int is_tile_trace(const struct agbsim_run *r)
{
	return r->trace->arena == AGB_ARENA_BG_VRAM;
}

/* JSON string with the escapes JSON requires. */
static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void json_cycles(FILE *out, const char *key, const struct agb_cycle_stats *c)
{
	fprintf(out,
		"\"%s\": {\"count\": %u, \"mean\": %.1f, \"p50\": %u, \"p95\": %u, \"p99\": %u, "
		"\"max\": %u, \"total\": %" PRIu64 "}",
		key, c->count, c->mean, c->p50, c->p95, c->p99, c->max, c->total);
}

static void json_frag(FILE *out, const char *key, const struct agb_frag_stats *f)
{
	fprintf(out, "\"%s\": {\"mean\": %.6f, \"max\": %.6f, \"final\": %.6f}", key, f->mean,
		f->max, f->final);
}

void agbsim_report_json_run(FILE *out, const struct agbsim_run *r, const char *indent)
{
	const struct agb_metrics *m = &r->metrics;
	fprintf(out, "%s{\n%s  \"trace\": ", indent, indent);
	json_string(out, trace_name(r));
	fprintf(out, ",\n%s  \"path\": ", indent);
	json_string(out, r->trace_path);
	fprintf(out, ",\n%s  \"allocator\": \"%s\",\n", indent, r->core->name);
	fprintf(out, "%s  \"arena\": \"%s\",\n%s  \"arena_bytes\": %u,\n", indent,
		agb_arena_name(r->trace->arena), indent, m->arena_bytes);
	fprintf(out, "%s  \"events\": %u, \"allocs\": %u, \"frees\": %u, \"reallocs\": %u, "
		     "\"frames\": %u,\n",
		indent, m->events, m->allocs, m->frees, m->reallocs, m->frames);
	fprintf(out, "%s  \"peak_live_bytes\": %u, \"internal_bytes\": %u,\n", indent,
		m->peak_live_bytes, m->internal_bytes);
	fprintf(out, "%s  \"failures\": %u, \"frag_failures\": %u, \"skipped\": %u,\n", indent,
		m->failures, m->frag_failures, m->skipped);
	if (m->first_failure_event < 0)
		fprintf(out, "%s  \"first_failure_event\": null, \"live_bytes_at_first_failure\": null,\n",
			indent);
	else
		fprintf(out, "%s  \"first_failure_event\": %" PRId64
			     ", \"live_bytes_at_first_failure\": %u,\n",
			indent, m->first_failure_event, m->live_bytes_at_first_failure);
	fprintf(out, "%s  ", indent);
	json_frag(out, "frag_external", &m->frag_external);
	fprintf(out, ",\n%s  ", indent);
	json_frag(out, "frag_umm", &m->frag_umm);
	fprintf(out, ",\n%s  \"overhead_bytes\": %u, \"overhead_ratio\": %.6f,\n", indent,
		m->overhead_bytes, m->overhead_ratio);
	if (m->min_arena_bytes != 0)
		fprintf(out, "%s  \"min_arena_bytes\": %u,\n", indent, m->min_arena_bytes);
	else
		fprintf(out, "%s  \"min_arena_bytes\": null,\n", indent);
	fprintf(out, "%s  \"corrupted_bytes\": %u,\n", indent, m->corrupted_bytes);
	if (is_tile_trace(r))
		fprintf(out,
			"%s  \"tile_uploads\": %u, \"peak_resident_tiles\": %u, \"tile_failures\": %u,\n",
			indent, m->tile_uploads, m->peak_resident_tiles, m->tile_failures);
	fprintf(out, "%s  \"cycles\": {\n%s    \"source\": \"%s\",\n", indent, indent,
		r->cycle_source);
	for (size_t i = 0; i < REPORTED_OP_COUNT; i++) {
		const struct agb_cycle_stats *c = &m->cycles[reported_ops[i]];
		if (c->count == 0)
			continue;
		fprintf(out, "%s    ", indent);
		json_cycles(out, agb_op_name(reported_ops[i]), c);
		fprintf(out, ",\n");
	}
	for (size_t i = 0; i < EXTRA_OP_COUNT; i++) {
		const struct agb_cycle_stats *c = &m->cycles[extra_ops[i]];
		if (c->total == 0)
			continue;
		fprintf(out, "%s    ", indent);
		json_cycles(out, extra_ops[i] == AGB_OP_FRAME ? "frame_event" : agb_op_name(extra_ops[i]), c);
		fprintf(out, ",\n");
	}
	fprintf(out, "%s    ", indent);
	json_cycles(out, "all_ops", &m->all_ops);
	fprintf(out, ",\n%s    \"frame\": {\"max\": %u, \"max_frame_pct\": %.4f, \"over_budget\": %u},\n",
		indent, m->frame_max_cycles, m->max_frame_pct, m->frames_over_budget);
	fprintf(out, "%s    \"total\": %" PRIu64 "\n%s  }", indent, m->total_cycles, indent);
	if (r->host_ns_per_op > 0) {
		/* Wall-clock figures: informative, never compared by the gate. */
		fprintf(out, ",\n%s  \"timing\": {\"host_ns_per_op\": %.1f", indent, r->host_ns_per_op);
		if (r->plain_ns_per_op > 0)
			fprintf(out, ", \"plain_ns_per_op\": %.1f, \"simulation_overhead\": %.2f",
				r->plain_ns_per_op, r->host_ns_per_op / r->plain_ns_per_op);
		fputc('}', out);
	}
	fprintf(out, "\n%s}", indent);
}

static void report_json(FILE *out, const struct agbsim_run *runs, size_t n)
{
	if (n == 1) {
		agbsim_report_json_run(out, &runs[0], "");
		fputc('\n', out);
		return;
	}
	fputs("[\n", out);
	for (size_t i = 0; i < n; i++) {
		agbsim_report_json_run(out, &runs[i], "  ");
		fputs(i + 1 < n ? ",\n" : "\n", out);
	}
	fputs("]\n", out);
}

static void fmt_opt_u32(char *buf, size_t len, uint32_t v, int present)
{
	if (present)
		snprintf(buf, len, "%u", v);
	else
		snprintf(buf, len, "-");
}

static void report_table_one(FILE *out, const struct agbsim_run *r)
{
	const struct agb_metrics *m = &r->metrics;
	char first[32], minar[32];
	fmt_opt_u32(first, sizeof first, (uint32_t)m->first_failure_event, m->first_failure_event >= 0);
	fmt_opt_u32(minar, sizeof minar, m->min_arena_bytes, m->min_arena_bytes != 0);

	fprintf(out, "trace        %s (%s)\n", trace_name(r), r->trace_path);
	fprintf(out, "allocator    %s on %s, %u bytes at 0x%08X; metadata %u bytes (%.2f%%)\n",
		r->core->name, agb_arena_name(r->trace->arena), m->arena_bytes, r->result.arena_addr,
		m->overhead_bytes, m->overhead_ratio * 100.0);
	fprintf(out, "events       %u: %u alloc, %u free, %u realloc, %u frame", m->events, m->allocs,
		m->frees, m->reallocs, m->frames);
	if (is_tile_trace(r))
		fprintf(out, ", %u ref, %u unref", m->refs, m->unrefs);
	fprintf(out, "\n");
	if (!is_tile_trace(r)) {
		fprintf(out, "live         peak %u bytes requested, %u bytes internal waste at peak\n",
			m->peak_live_bytes, m->internal_bytes);
		fprintf(out, "failures     %u (%u from fragmentation), %u ops skipped; first at event %s",
			m->failures, m->frag_failures, m->skipped, first);
		if (m->first_failure_event >= 0)
			fprintf(out, " with %u bytes live", m->live_bytes_at_first_failure);
		fprintf(out, "\n");
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
	if (m->frames != 0)
		fprintf(out, "; worst frame %u cycles = %.2f%% of a frame%s", m->frame_max_cycles,
			m->max_frame_pct,
			m->frames_over_budget != 0 ? "  <-- over the 10% frame budget" : "");
	fprintf(out, "\n");
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

static void report_csv(FILE *out, const struct agbsim_run *runs, size_t n)
{
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
	fputs(",frame_max_cycles,max_frame_pct,total_cycles\n", out);
	for (size_t r = 0; r < n; r++) {
		const struct agbsim_run *run = &runs[r];
		const struct agb_metrics *m = &run->metrics;
		csv_field(out, trace_name(run));
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
		fprintf(out, ",%u,%.4f,%" PRIu64 "\n", m->frame_max_cycles, m->max_frame_pct,
			m->total_cycles);
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
		md_cell_escape(out, trace_name(run));
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
