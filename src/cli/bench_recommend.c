/* The end of `agbsim bench` (table and md): what to use for each trace. README, "Which heap,
 * how big", explains how to read it. */
#include <stdio.h>
#include <string.h>

#include "cli/bench_recommend.h"

/* Failed requests of a run: allocations and tile refs. */
static uint32_t run_failures(const struct agbsim_run *r)
{
	return r->metrics.failures + r->metrics.tile_failures;
}

/* Mean cycles of the memory ops (all but frame and the sprite display ops, which only a shadow
 * OAM serves: the others count them as free no-ops, which would flatter their mean). */
static double memory_mean(const struct agb_metrics *m)
{
	double sum = 0.0;
	uint64_t count = 0;
	for (int op = 0; op < AGB_OP_COUNT; op++) {
		if (op == AGB_OP_FRAME || op == AGB_OP_SPR_SHOW || op == AGB_OP_SPR_Z ||
		    op == AGB_OP_SPR_HIDE || op == AGB_OP_SYNC)
			continue;
		sum += m->cycles[op].mean * (double)m->cycles[op].count;
		count += m->cycles[op].count;
	}
	return count != 0 ? sum / (double)count : 0.0;
}

/* The fastest run of trace t with numbers and no failures at its pool: lowest memory_mean,
 * then lowest max over all ops, then the first listed. NULL when every run fails or has no
 * numbers. */
static const struct agbsim_run *fastest_clean(const struct agbsim_run *runs, size_t n,
					      const struct agb_trace *t)
{
	const struct agbsim_run *best = NULL;
	double best_mean = 0.0;
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		double mean;
		if (r->trace != t || r->status != AGBSIM_EXIT_OK || run_failures(r) != 0)
			continue;
		mean = memory_mean(&r->metrics);
		if (best == NULL || mean < best_mean ||
		    (mean == best_mean && r->metrics.all_ops.max < best->metrics.all_ops.max)) {
			best = r;
			best_mean = mean;
		}
	}
	return best;
}

/* Worst alloc or free (realloc's copy grows with the block, whatever the core). */
static uint32_t worst_alloc_free(const struct agb_metrics *m)
{
	uint32_t a = m->cycles[AGB_OP_ALLOC].max, f = m->cycles[AGB_OP_FREE].max;
	return a > f ? a : f;
}

/* The run of trace t with no failures whose worst alloc/free is lowest (a game's frame budget
 * is spent by the worst call, not the mean); NULL as for fastest_clean. Only heaps (runs with
 * allocs) qualify. */
static const struct agbsim_run *steadiest_clean(const struct agbsim_run *runs, size_t n,
						const struct agb_trace *t)
{
	const struct agbsim_run *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		if (r->trace != t || r->status != AGBSIM_EXIT_OK || run_failures(r) != 0 ||
		    r->metrics.cycles[AGB_OP_ALLOC].count == 0)
			continue;
		if (best == NULL || worst_alloc_free(&r->metrics) < worst_alloc_free(&best->metrics))
			best = r;
	}
	return best;
}

/* "tree 210944, tlsf 227328, slots -" for the runs of trace t with numbers. */
static void print_min_arenas(FILE *out, const struct agbsim_run *runs, size_t n,
			     const struct agb_trace *t, int md)
{
	const char *sep = "";
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		if (r->trace != t || r->status != AGBSIM_EXIT_OK)
			continue;
		if (r->metrics.min_arena_bytes != 0)
			fprintf(out, "%s%s %u", sep, r->core->name, r->metrics.min_arena_bytes);
		else
			fprintf(out, "%s%s %s", sep, r->core->name, md ? "- (fails in the whole region)" : "-");
		sep = ", ";
	}
}

/* "tlsf (alloc mean 860 max 1276, ...); headroom ..." for the chosen run. */
static void print_choice(FILE *out, const struct agbsim_run *r, int md)
{
	const struct agb_metrics *m = &r->metrics;
	const struct agb_cycle_stats *ca = &m->cycles[AGB_OP_ALLOC], *cf = &m->cycles[AGB_OP_FREE];
	fprintf(out, md ? "**%s** (" : "%s (", r->core->name);
	if (ca->count != 0)
		fprintf(out, "alloc mean %.0f max %u, ", ca->mean, ca->max);
	if (cf->count != 0)
		fprintf(out, "free mean %.0f max %u, ", cf->mean, cf->max);
	fprintf(out, "memory ops mean %.0f, worst op %u cycles)", memory_mean(m), m->all_ops.max);
	if (r->trace->arena == AGB_ARENA_BG_VRAM || r->trace->arena == AGB_ARENA_PAL_RAM)
		return;
	if (m->min_arena_bytes == 0)
		fputs("; headroom unknown (min arena not searched)", out);
	else
		fprintf(out, "; headroom %lld bytes (%u - min arena %u)",
			(long long)m->arena_bytes - (long long)m->min_arena_bytes, m->arena_bytes,
			m->min_arena_bytes);
}

/* The pool trace t was replayed with (every run of a trace has the same one). */
static uint32_t trace_pool(const struct agbsim_run *runs, size_t n, const struct agb_trace *t)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].trace == t && runs[i].status == AGBSIM_EXIT_OK)
			return runs[i].metrics.arena_bytes;
	return 0;
}

static void recommend_trace(FILE *out, const struct agbsim_run *runs, size_t n,
			    const struct agb_trace *t, const char *name, int md, int searched)
{
	uint32_t pool = trace_pool(runs, n, t);
	const struct agbsim_run *best = fastest_clean(runs, n, t), *steady;
	if (pool == 0)
		return; /* no core produced numbers: the n/a rows say why */
	/* Tile and palette managers take their whole region: no pool size to choose. */
	const int whole = t->arena == AGB_ARENA_BG_VRAM || t->arena == AGB_ARENA_PAL_RAM;
	fprintf(out, md ? "- **%s**: " : "for %s:\n", name);
	if (!whole && searched) {
		fputs(md ? "smallest pool per core: " : "  smallest pool per core: ", out);
		print_min_arenas(out, runs, n, t, md);
		fputs(md ? ". " : "\n", out);
	}
	if (t->arena == AGB_ARENA_EWRAM)
		fprintf(out, md ? "Fastest core with no failures at `--pool=%u`: " :
				  "  fastest core with no failures at --pool=%u: ", pool);
	else /* --pool sizes the EWRAM heap only */
		fprintf(out, md ? "Fastest core with no failures in its %u-byte arena: " :
				  "  fastest core with no failures in its %u-byte arena: ", pool);
	if (best != NULL)
		print_choice(out, best, md);
	else
		fputs(!whole && searched ? "none (a larger pool: see the smallest pools)" : "none",
		      out);
	steady = steadiest_clean(runs, n, t);
	if (steady != NULL && steady != best) {
		fprintf(out, md ? ". Lowest worst alloc/free (%u cycles): " :
				  "\n  lowest worst alloc/free (%u cycles): ",
			worst_alloc_free(&steady->metrics));
		print_choice(out, steady, md);
	}
	fputs(md ? ".\n" : "\n", out);
}

void agbsim_bench_recommend(FILE *out, enum agbsim_format fmt, const struct agbsim_run *runs,
			    size_t n, int min_arena_searched)
{
	int md = fmt == FORMAT_MD;
	if (n == 0)
		return;
	fprintf(out, md ? "\n**What to use** (cycles: %s; min arena has no headroom: reserve more)\n\n"
			: "== what to use (cycles: %s; min arena has no headroom: reserve more)\n",
		runs[0].cycle_source != NULL ? runs[0].cycle_source : "model");
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < i && runs[k].trace != runs[i].trace)
			k++;
		if (k == i) /* first run of its trace: one entry per trace, in run order */
			recommend_trace(out, runs, n, runs[i].trace, agbsim_trace_name(&runs[i]), md,
					min_arena_searched);
	}
	if (!md)
		fputc('\n', out);
}
