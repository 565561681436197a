/* The recommendation rule (docs/recommendation.md, which states it as this file computes it):
 * gather each core's figures over the arena's traces, keep the cores with no failure, take the
 * smallest pool need, let a faster core within the margin win, name a tie, size the reserve. */
#include <stdio.h>
#include <string.h>

#include "report/bench_recommend.h"
#include "cli/gba_only.h"

/* The guide's "rarely" row: buddy and slots fail requests on fragmented pools, first fit has
 * no bound on its search. */
static const char *const avoided[] = {"buddy", "slots", "firstfit", NULL};

int agbsim_rec_avoided(const char *core)
{
	for (size_t i = 0; avoided[i] != NULL; i++)
		if (strcmp(avoided[i], core) == 0)
			return 1;
	return 0;
}

uint32_t agbsim_rec_reserve(uint32_t need, uint32_t region_bytes)
{
	uint64_t r;
	if (need == 0)
		return 0;
	r = (uint64_t)need + need / AGB_REC_HEADROOM_DIV;
	r = (r + AGB_REC_ROUND - 1) / AGB_REC_ROUND * AGB_REC_ROUND;
	return r > region_bytes ? region_bytes : (uint32_t)r;
}

/* Failed requests of a run: allocations and tile refs. */
static uint32_t run_failures(const struct agbsim_run *r)
{
	return r->metrics.failures + r->metrics.tile_failures;
}

/* Memory-op cycles and count (all but frame and the sprite display ops, which only a shadow
 * OAM serves: the others count them as free no-ops, which would flatter their mean). */
static void memory_ops(const struct agb_metrics *m, double *sum, uint64_t *count)
{
	for (int op = 0; op < AGB_OP_COUNT; op++) {
		if (op == AGB_OP_FRAME || op == AGB_OP_SPR_SHOW || op == AGB_OP_SPR_Z ||
		    op == AGB_OP_SPR_HIDE || op == AGB_OP_SYNC)
			continue;
		*sum += m->cycles[op].mean * (double)m->cycles[op].count;
		*count += m->cycles[op].count;
	}
}

/* Step 1: each core's figures over the arena's runs with numbers. */
static void gather(const struct agbsim_run *runs, size_t n, enum agb_arena arena, int searched,
		   struct agbsim_recommendation *rec)
{
	double sum[32] = {0};
	uint64_t count[32] = {0};
	int need_unknown[32] = {0};
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		struct agbsim_rec_core *c = NULL;
		size_t k;
		if (r->trace->arena != arena || r->status != AGBSIM_EXIT_OK)
			continue;
		for (k = 0; k < rec->ncores && c == NULL; k++)
			if (rec->cores[k].core == r->core)
				c = &rec->cores[k];
		if (c == NULL) {
			if (rec->ncores == sizeof rec->cores / sizeof rec->cores[0])
				continue;
			k = rec->ncores++;
			c = &rec->cores[k];
			*c = (struct agbsim_rec_core){
				.core = r->core,
				.avoid = agbsim_rec_avoided(r->core->name),
				.reference = agbsim_gba_only_rom(r->core) != NULL};
		} else {
			k--;
		}
		c->traces++;
		c->failed += run_failures(r) != 0;
		if (!searched || r->metrics.min_arena_bytes == 0)
			need_unknown[k] = 1;
		else if (r->metrics.min_arena_bytes > c->need)
			c->need = r->metrics.min_arena_bytes;
		if (r->metrics.all_ops.max > c->worst)
			c->worst = r->metrics.all_ops.max;
		memory_ops(&r->metrics, &sum[k], &count[k]);
	}
	for (size_t k = 0; k < rec->ncores; k++) {
		if (need_unknown[k])
			rec->cores[k].need = 0;
		rec->cores[k].mean = count[k] != 0 ? sum[k] / (double)count[k] : 0.0;
	}
}

/* The cores that produced numbers on no trace of the arena (each once, in listing order). */
static void collect_na(const struct agbsim_run *runs, size_t n, enum agb_arena arena,
		       struct agbsim_recommendation *rec)
{
	for (size_t i = 0; i < n; i++) {
		const struct agb_heap_core *core = runs[i].core;
		int known = 0;
		if (runs[i].trace->arena != arena || runs[i].status == AGBSIM_EXIT_OK)
			continue;
		for (size_t k = 0; k < rec->ncores && !known; k++)
			known = rec->cores[k].core == core;
		for (size_t k = 0; k < rec->nna && !known; k++)
			known = rec->na[k] == core;
		if (!known && rec->nna < sizeof rec->na / sizeof rec->na[0])
			rec->na[rec->nna++] = core;
	}
}

/* Step 2: a candidate ran every trace of the arena with no failed request, and (unless
 * with_avoided) is not a core the guide says to avoid. */
static int candidate(const struct agbsim_recommendation *rec, const struct agbsim_rec_core *c,
		     int with_avoided)
{
	return !c->reference && c->traces == rec->ntraces && c->failed == 0 &&
	       (with_avoided || !c->avoid) &&
	       (!rec->by_need || c->need != 0);
}

static int means_tie(double a, double b)
{
	double hi = a > b ? a : b, d = a > b ? a - b : b - a;
	return hi == 0.0 || d * 100.0 <= AGB_REC_TIE_PCT * hi;
}

/* Step 3: the smallest need, the margin, and the fastest candidate within it (a tie on the
 * mean goes to the smaller need, then the lower worst op, then the first listed). */

/* The order among candidates: the faster mean, then the smaller pool need, then the lower worst. */
static int preferred(const struct agbsim_rec_core *c, const struct agbsim_rec_core *best)
{
	if (!means_tie(c->mean, best->mean))
		return c->mean < best->mean;
	if (c->need != best->need)
		return c->need < best->need;
	return c->worst < best->worst;
}

static void choose(struct agbsim_recommendation *rec, int with_avoided)
{
	const struct agbsim_rec_core *best = NULL;
	uint32_t step = agbsim_min_arena_step(rec->arena);
	rec->smallest_need = 0;
	for (size_t k = 0; k < rec->ncores; k++) {
		const struct agbsim_rec_core *c = &rec->cores[k];
		if (candidate(rec, c, with_avoided) &&
		    (rec->smallest_need == 0 || c->need < rec->smallest_need))
			rec->smallest_need = c->need;
	}
	rec->margin = rec->smallest_need / AGB_REC_MARGIN_DIV;
	rec->margin = (rec->margin + step - 1) / step * step;
	if (rec->margin < step)
		rec->margin = step;
	if (!rec->by_need)
		rec->margin = 0;
	for (size_t k = 0; k < rec->ncores; k++) {
		const struct agbsim_rec_core *c = &rec->cores[k];
		if (!candidate(rec, c, with_avoided) ||
		    (rec->by_need && c->need > rec->smallest_need + rec->margin))
			continue;
		if (best == NULL || preferred(c, best))
			best = c;
	}
	rec->chosen = best;
	rec->tie = NULL;
	for (size_t k = 0; best != NULL && k < rec->ncores; k++) {
		const struct agbsim_rec_core *c = &rec->cores[k];
		if (c != best && candidate(rec, c, with_avoided) && c->need == best->need &&
		    means_tie(c->mean, best->mean) && c->worst == best->worst)
			rec->tie = c;
	}
}

int agbsim_recommend(const struct agbsim_run *runs, size_t n, enum agb_arena arena,
		     int min_arena_searched, struct agbsim_recommendation *out)
{
	const struct agb_trace *seen[256];
	size_t nseen = 0;
	memset(out, 0, sizeof *out);
	out->arena = arena;
	/* Tile and palette managers take their whole region: no pool need to compare. */
	out->by_need = min_arena_searched && arena != AGB_ARENA_BG_VRAM && arena != AGB_ARENA_PAL_RAM;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		if (runs[i].trace->arena != arena)
			continue;
		while (k < nseen && seen[k] != runs[i].trace)
			k++;
		if (k == nseen && nseen < sizeof seen / sizeof seen[0])
			seen[nseen++] = runs[i].trace;
		if (runs[i].status != AGBSIM_EXIT_OK)
			continue;
		if (out->pool == 0)
			out->pool = runs[i].metrics.arena_bytes;
		else if (runs[i].metrics.arena_bytes != out->pool)
			out->pools_differ = 1;
	}
	if (nseen == 0)
		return 0;
	if (out->pool == 0) /* no run produced numbers: the pool asked for */
		for (size_t i = 0; i < n && out->pool == 0; i++)
			if (runs[i].trace->arena == arena)
				out->pool = runs[i].cfg.arena_bytes != 0 ? runs[i].cfg.arena_bytes
									 : runs[i].trace->arena_bytes;
	out->ntraces = nseen;
	gather(runs, n, arena, out->by_need, out);
	collect_na(runs, n, arena, out);
	if (out->ncores == 0) {
		out->status = REC_NO_NUMBERS;
		return 1;
	}
	choose(out, 0);
	if (out->chosen == NULL) {
		choose(out, 1);
		out->avoided_only = out->chosen != NULL;
	}
	out->status = out->chosen != NULL ? REC_CHOSEN : REC_NOTHING_FITS;
	if (out->chosen != NULL && arena == AGB_ARENA_EWRAM)
		out->reserve = agbsim_rec_reserve(out->chosen->need, agb_arena_region_bytes(arena));
	return 1;
}

/* ---- printing ---------------------------------------------------------------------------- */

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

/* The traces, each once, in run order: their smallest pools per core. */
static void print_trace_needs(FILE *out, const struct agbsim_run *runs, size_t n, int md)
{
	for (size_t i = 0; i < n; i++) {
		const struct agb_trace *t = runs[i].trace;
		size_t k = 0, ok = 0;
		while (k < i && runs[k].trace != t)
			k++;
		if (k != i || t->arena == AGB_ARENA_BG_VRAM || t->arena == AGB_ARENA_PAL_RAM)
			continue;
		for (k = 0; k < n; k++)
			ok += runs[k].trace == t && runs[k].status == AGBSIM_EXIT_OK;
		if (ok == 0)
			continue;
		fprintf(out, md ? "- smallest pool per core for **%s**: " : "smallest pool per core for %s: ",
			agbsim_trace_name(&runs[i]));
		print_min_arenas(out, runs, n, t, md);
		fputc('\n', out);
	}
}

static void print_core_figures(FILE *out, const struct agbsim_recommendation *rec,
			       const struct agbsim_rec_core *c)
{
	if (rec->by_need)
		fprintf(out, "needs %u bytes, ", c->need);
	fprintf(out, "memory ops mean %.0f cycles, worst op %u", c->mean, c->worst);
}

/* "tree (needs ..., mean ...), tlsf (...)": the cores other than the chosen one that ran every
 * trace without failure (fits 1) or failed on some (fits 0). */
static void print_others(FILE *out, const struct agbsim_recommendation *rec, int fits,
			 const char *label, const char *lead)
{
	const char *sep = label;
	for (size_t k = 0; k < rec->ncores; k++) {
		const struct agbsim_rec_core *c = &rec->cores[k];
		int ok = c->failed == 0 && c->traces == rec->ntraces;
		if (c == rec->chosen || ok != fits)
			continue;
		fprintf(out, "%s%s%s (", sep == label ? lead : "", sep, c->core->name);
		if (fits)
			print_core_figures(out, rec, c);
		else if (c->failed != 0)
			fprintf(out, "failed on %zu of %zu", c->failed, rec->ntraces);
		else
			fprintf(out, "no numbers on %zu of %zu: see the n/a rows",
				rec->ntraces - c->traces, rec->ntraces);
		if (c->avoid)
			fputs("; the guide says avoid", out);
		if (c->reference)
			fputs("; a reference, not a candidate", out);
		fputc(')', out);
		sep = ", ";
	}
	if (sep != label)
		fputc('\n', out);
}

/* "n/a at this pool: slots, bump (see the n/a rows)" */
static void print_na(FILE *out, const struct agbsim_recommendation *rec, const char *lead)
{
	if (rec->nna == 0)
		return;
	fprintf(out, "%sn/a: ", lead);
	for (size_t k = 0; k < rec->nna; k++)
		fprintf(out, "%s%s", k != 0 ? ", " : "", rec->na[k]->name);
	fputs(" (no numbers: see the n/a rows)\n", out);
}

/* "ewram, 2 traces at --pool=65536" */
static void print_scope(FILE *out, const struct agbsim_recommendation *rec)
{
	fprintf(out, "%s, %zu trace%s ", agb_arena_name(rec->arena), rec->ntraces,
		rec->ntraces == 1 ? "" : "s");
	if (rec->arena == AGB_ARENA_EWRAM && rec->pools_differ)
		fputs("at each trace's arena_bytes", out);
	else if (rec->arena == AGB_ARENA_EWRAM)
		fprintf(out, "at --pool=%u", rec->pool);
	else
		fprintf(out, "in the %u-byte region", rec->pool);
}

static void print_verdict(FILE *out, const struct agbsim_recommendation *rec, int md)
{
	const struct agbsim_rec_core *c = rec->chosen;
	const char *ind = "  ";
	fputs(md ? "- **" : "", out);
	print_scope(out, rec);
	if (rec->status == REC_NO_NUMBERS) {
		fputs(md ? "**: no core produced numbers (see the n/a rows)\n"
			 : ": no core produced numbers (see the n/a rows)\n",
		      out);
		return;
	}
	if (rec->status == REC_NOTHING_FITS) {
		fputs(md ? "**: nothing fits" : ": nothing fits", out);
		fputs(": every core failed a request on some trace; a larger pool (see the smallest "
		      "pools above)\n",
		      out);
		print_others(out, rec, 0, "", ind);
		print_na(out, rec, ind);
		return;
	}
	fprintf(out, md ? "**: use **%s**" : ": use %s", c->core->name);
	fputs(" (", out);
	print_core_figures(out, rec, c);
	fputs(")\n", out);
	fputs(ind, out);
	if (!rec->by_need)
		fputs("why: the fastest core with no failed request", out);
	else if (c->need == rec->smallest_need)
		fprintf(out, "why: the smallest pool need (%u bytes) among the cores with no failed "
			     "request, and the fastest of those within %u bytes of it",
			rec->smallest_need, rec->margin);
	else
		fprintf(out, "why: faster than the smallest pool need (%u bytes) and needs %u bytes "
			     "more, within the %u-byte margin",
			rec->smallest_need, c->need - rec->smallest_need, rec->margin);
	if (rec->avoided_only)
		fputs("; only cores the guide says to avoid fit", out);
	fputc('\n', out);
	if (rec->tie != NULL)
		fprintf(out, "%stie: %s has the same pool need and worst op and a mean within %.0f%%; "
			     "either will do\n",
			ind, rec->tie->core->name, AGB_REC_TIE_PCT);
	if (rec->reserve != 0)
		fprintf(out, "%sreserve %u bytes (0x%X) = its largest min arena %u + 1/%u, rounded up "
			     "to %u bytes%s\n",
			ind, rec->reserve, rec->reserve, c->need, AGB_REC_HEADROOM_DIV, AGB_REC_ROUND,
			rec->reserve == agb_arena_region_bytes(rec->arena) ? " (capped at the region)"
									    : "");
	else if (rec->arena == AGB_ARENA_EWRAM && rec->by_need == 0)
		fprintf(out, "%sreserve: unknown (min arena not searched)\n", ind);
	print_others(out, rec, 1, "also fit: ", ind);
	print_others(out, rec, 0, "failed at this pool: ", ind);
	print_na(out, rec, ind);
}

void agbsim_bench_recommend(FILE *out, enum agbsim_format fmt, const struct agbsim_run *runs,
			    size_t n, int min_arena_searched)
{
	int md = fmt == FORMAT_MD;
	if (n == 0)
		return;
	fprintf(out,
		md ? "\n**What to use** (cycles: %s; the rule: docs/recommendation.md)\n\n"
		   : "== what to use (cycles: %s; the rule: docs/recommendation.md)\n",
		runs[0].cycle_source != NULL ? runs[0].cycle_source : "model");
	if (min_arena_searched)
		print_trace_needs(out, runs, n, md);
	for (int a = 0; a < AGB_ARENA_COUNT; a++) {
		static struct agbsim_recommendation rec; /* large; bench is single-threaded here */
		if (agbsim_recommend(runs, n, (enum agb_arena)a, min_arena_searched, &rec))
			print_verdict(out, &rec, md);
	}
	if (!md)
		fputc('\n', out);
}
