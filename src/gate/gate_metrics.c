/* The gate's metric table and the lookups of a metric in a run or a bench result document
 * (gate_metrics.h). */
#include "gate/gate_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/json_util.h"

#define M_U32(name, field, unit) {name, 0, 0, unit, METRIC_U32, offsetof(struct agb_metrics, field), 0}
#define M_PAL(name, field, unit) {name, 0, 0, unit, METRIC_PAL_U32, offsetof(struct agb_metrics, field), 0}
#define M_CACHE(name, field) {name, 0, 0, "count", METRIC_CACHE_U32, offsetof(struct agb_metrics, field), 0}
#define M_OP(name, op, stat, abs) {name, 0, abs, "cycles", METRIC_OP, offsetof(struct agb_cycle_stats, stat), op}
#define M_ALL(name, stat, abs) {name, 0, abs, "cycles", METRIC_ALL_OPS, offsetof(struct agb_cycle_stats, stat), 0}

/* Default tolerances (docs/gate-for-games.md, "Default tolerances"): counts and bytes exact;
 * cycles exact too (the model is deterministic; mean figures to 0.05, their printed precision).
 * Noisy metrics, the ones that move when only a recording's timing changed (which frame an op
 * lands in, so when free space is sampled and what a frame holds): the fragmentation figures
 * (sampled at frames) to 0.01 absolute, the worst frame's cycles to 5%. */
#define M_FRAG(name, field) {name, 0, 0.01, "ratio", METRIC_RATIO, offsetof(struct agb_metrics, field), 0}
const struct agbsim_metric_def agbsim_metric_defs[] = {
	M_U32("failures", failures, "count"),
	M_U32("frag_failures", frag_failures, "count"),
	M_U32("corrupted_bytes", corrupted_bytes, "bytes"),
	{"min_arena_bytes", 0, 0, "bytes", METRIC_U32_NULL0, offsetof(struct agb_metrics, min_arena_bytes), 0},
	M_U32("overhead_bytes", overhead_bytes, "bytes"),
	M_U32("internal_bytes", internal_bytes, "bytes"),
	M_FRAG("frag_external.mean", frag_external.mean),
	M_FRAG("frag_external.max", frag_external.max),
	M_FRAG("frag_umm.mean", frag_umm.mean),
	{"tile_failures", 0, 0, "count", METRIC_TILE_U32, offsetof(struct agb_metrics, tile_failures), 0},
	{"tile_uploads", 0, 0, "count", METRIC_TILE_U32, offsetof(struct agb_metrics, tile_uploads), 0},
	/* Palettes (pal_dedup_hits is not compared: more is better; pal_uploads carries it). */
	M_PAL("pal_failures", pal_failures, "count"),
	M_PAL("pal_uploads", pal_uploads, "count"),
	M_PAL("pal_bytes_uploaded", pal_bytes_uploaded, "bytes"),
	M_PAL("pal_peak_banks_bg", pal_peak_banks[0], "count"),
	M_PAL("pal_peak_banks_obj", pal_peak_banks[1], "count"),
	M_PAL("pal_stack_peak_depth", pal_stack_peak_depth, "count"),
	M_PAL("pal_stack_buffer_bytes", pal_stack_buffer_bytes, "bytes"),
	/* Resource cache (hits are not compared: more is better; misses carry them). */
	M_CACHE("cache_misses", cache_misses),
	M_CACHE("cache_nopes", cache_nopes),
	M_CACHE("cache_evictions", cache_evictions),
	M_CACHE("cache_thrash", cache_thrash),
	M_OP("cycles.lock.mean", AGB_OP_LOCK, mean, 0.05),
	M_OP("cycles.lock.max", AGB_OP_LOCK, max, 0),
	M_OP("cycles.touch.mean", AGB_OP_TOUCH, mean, 0.05),
	M_OP("cycles.touch.max", AGB_OP_TOUCH, max, 0),
	M_OP("cycles.pal_load.mean", AGB_OP_PAL_LOAD, mean, 0.05),
	M_OP("cycles.pal_load.max", AGB_OP_PAL_LOAD, max, 0),
	M_OP("cycles.pal_free.mean", AGB_OP_PAL_FREE, mean, 0.05),
	M_OP("cycles.pal_free.max", AGB_OP_PAL_FREE, max, 0),
	M_OP("cycles.pal_push.mean", AGB_OP_PAL_PUSH, mean, 0.05),
	M_OP("cycles.pal_push.max", AGB_OP_PAL_PUSH, max, 0),
	M_OP("cycles.pal_pop.mean", AGB_OP_PAL_POP, mean, 0.05),
	M_OP("cycles.pal_pop.max", AGB_OP_PAL_POP, max, 0),
	M_OP("cycles.alloc.mean", AGB_OP_ALLOC, mean, 0.05),
	M_OP("cycles.alloc.p99", AGB_OP_ALLOC, p99, 0),
	M_OP("cycles.alloc.max", AGB_OP_ALLOC, max, 0),
	M_OP("cycles.free.mean", AGB_OP_FREE, mean, 0.05),
	M_OP("cycles.free.p99", AGB_OP_FREE, p99, 0),
	M_OP("cycles.free.max", AGB_OP_FREE, max, 0),
	M_OP("cycles.realloc.mean", AGB_OP_REALLOC, mean, 0.05),
	M_OP("cycles.realloc.max", AGB_OP_REALLOC, max, 0),
	M_OP("cycles.ref.mean", AGB_OP_REF, mean, 0.05),
	M_OP("cycles.ref.max", AGB_OP_REF, max, 0),
	M_OP("cycles.unref.mean", AGB_OP_UNREF, mean, 0.05),
	M_OP("cycles.unref.max", AGB_OP_UNREF, max, 0),
	M_ALL("cycles.all_ops.mean", mean, 0.05),
	M_ALL("cycles.all_ops.p99", p99, 0),
	M_ALL("cycles.all_ops.max", max, 0),
	{"cycles.frame.max", 0.05, 0, "cycles", METRIC_U32, offsetof(struct agb_metrics, frame_max_cycles), 0},
	{"cycles.total", 0, 0, "cycles", METRIC_U64, offsetof(struct agb_metrics, total_cycles), 0},
};
const size_t agbsim_metric_count = sizeof agbsim_metric_defs / sizeof agbsim_metric_defs[0];

/* The figure as the report prints it, read back: what a baseline written from this run holds. */
static double as_printed(double v, int decimals)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.*f", decimals, v);
	return strtod(buf, NULL);
}

static uint32_t u32_at(const void *base, size_t at)
{
	uint32_t v;
	memcpy(&v, (const char *)base + at, sizeof v);
	return v;
}

int agbsim_metric_of_run(const struct agbsim_run *r, const struct agbsim_metric_def *d, double *v)
{
	const struct agb_metrics *m = &r->metrics;
	const struct agb_cycle_stats *c = d->kind == METRIC_OP ? &m->cycles[d->op] : &m->all_ops;
	if (r->status != AGBSIM_EXIT_OK)
		return -1;
	switch (d->kind) {
	case METRIC_TILE_U32:
		if (r->trace->arena != AGB_ARENA_BG_VRAM)
			return -1;
		/* fall through */
	case METRIC_PAL_U32:
		if (d->kind == METRIC_PAL_U32 && r->trace->arena != AGB_ARENA_PAL_RAM)
			return -1;
		/* fall through */
	case METRIC_CACHE_U32:
		if (d->kind == METRIC_CACHE_U32 &&
		    m->cycles[AGB_OP_LOCK].count + m->cycles[AGB_OP_TOUCH].count == 0)
			return -1;
		/* fall through */
	case METRIC_U32:
	case METRIC_U32_NULL0:
		*v = u32_at(m, d->at);
		return d->kind == METRIC_U32_NULL0 && *v == 0 ? 0 : 1;
	case METRIC_U64: {
		uint64_t x;
		memcpy(&x, (const char *)m + d->at, sizeof x);
		*v = (double)x;
		return 1;
	}
	case METRIC_RATIO: {
		double x;
		memcpy(&x, (const char *)m + d->at, sizeof x);
		*v = as_printed(x, 6);
		return 1;
	}
	case METRIC_OP:
	case METRIC_ALL_OPS:
		if (d->kind == METRIC_OP && c->count == 0)
			return -1;
		*v = d->at == offsetof(struct agb_cycle_stats, mean) ? as_printed(c->mean, 1)
									 : u32_at(c, d->at);
		return 1;
	}
	return -1;
}

int agbsim_metric_of_json(const cJSON *run, const char *name, double *v)
{
	char part[64];
	const cJSON *node = run;
	while (*name != '\0' && node != NULL) {
		size_t k = 0;
		while (*name != '\0' && *name != '.' && k + 1 < sizeof part)
			part[k++] = *name++;
		part[k] = '\0';
		if (*name == '.')
			name++;
		node = cJSON_GetObjectItemCaseSensitive(node, part);
	}
	if (node == NULL)
		return -1;
	if (cJSON_IsNull(node))
		return 0;
	if (!cJSON_IsNumber(node))
		return -2;
	*v = node->valuedouble;
	return 1;
}

int agbsim_metric_pattern_matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	if (n > 0 && pattern[n - 1] == '*')
		return strncmp(pattern, name, n - 1) == 0;
	return strcmp(pattern, name) == 0;
}

int agbsim_metric_pattern_known(const char *pattern)
{
	for (size_t i = 0; i < agbsim_metric_count; i++)
		if (agbsim_metric_pattern_matches(pattern, agbsim_metric_defs[i].name))
			return 1;
	return 0;
}

const cJSON *agbsim_baseline_run(const cJSON *runs, const char *trace, const char *allocator)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, runs)
	{
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "trace");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "allocator");
		if (cJSON_IsString(t) && cJSON_IsString(a) && strcmp(t->valuestring, trace) == 0 &&
		    strcmp(a->valuestring, allocator) == 0)
			return r;
	}
	return NULL;
}

int agbsim_gate_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t want = *cap ? *cap * 2 : 32;
	void *nv;
	if (n < *cap)
		return 0;
	nv = realloc(*v, want * elem);
	if (nv == NULL)
		return -1;
	*v = nv;
	*cap = want;
	return 0;
}

int agbsim_findings_add(struct agbsim_findings *f, struct agbsim_finding x)
{
	void *v = f->v;
	int rc = agbsim_gate_grow(&v, &f->cap, f->n, sizeof *f->v);
	f->v = v;
	if (rc == 0)
		f->v[f->n++] = x;
	return rc;
}
