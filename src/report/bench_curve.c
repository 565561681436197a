/* The resource cache's trade-off curve (bench_curve.h). */
#include "report/bench_curve.h"

#include <stdlib.h>
#include <string.h>

#ifdef AGBSIM_HAVE_VIEW
#include "view/view.h"
#endif

int agbsim_curve_parse_pools(const char *arg, uint32_t *pools, size_t *n)
{
	const char *p = arg;
	*n = 0;
	while (*p != '\0') {
		uint64_t v = 0;
		const char *start = p;
		for (; *p >= '0' && *p <= '9' && v <= AGB_EWRAM_SIZE; p++)
			v = v * 10u + (uint64_t)(*p - '0');
		if (*p == 'K' || *p == 'k') {
			v *= 1024u;
			p++;
		}
		if (p == start || (*p != ',' && *p != '\0') || v == 0 || v > AGB_EWRAM_SIZE ||
		    *n == AGBSIM_CURVE_MAX_POOLS)
			return agbsim_usage_error(
			        "bench",
			        "--arena-bytes wants up to %u sizes such as 8K,12K,16384 "
			        "(1..%u bytes each), not '%s'",
			        AGBSIM_CURVE_MAX_POOLS, AGB_EWRAM_SIZE, arg);
		pools[(*n)++] = (uint32_t)v;
		if (*p == ',')
			p++;
		if (*p == '\0' && p[-1] == ',')
			return agbsim_usage_error("bench", "--arena-bytes: empty size in '%s'", arg);
	}
	if (*n == 0)
		return agbsim_usage_error("bench", "--arena-bytes wants at least one size");
	return AGBSIM_EXIT_OK;
}

static int has_cache(const struct agb_metrics *m)
{
	return m->cycles[AGB_OP_LOCK].count + m->cycles[AGB_OP_TOUCH].count != 0;
}

void agbsim_curve_table(FILE *out, const struct agbsim_run *runs, size_t n)
{
	fprintf(out,
		"== resource cache trade-off (lru; load cost %.3f cycles/byte; thrash window %u "
		"frames)\n%-22s %-9s %7s %7s %6s %5s %9s %6s %10s %7s\n",
		n > 0 ? runs[0].metrics.load_cost_milli / 1000.0 : 0.0,
		n > 0 ? runs[0].metrics.thrash_window : 0u, "trace", "allocator", "pool", "hit%",
		"misses", "nopes", "evict(bl)", "thrash", "load c/fr", "frame%");
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		const struct agb_metrics *m = &r->metrics;
		char ev[24];
		fprintf(out, "%-22.22s %-9s %7u", agbsim_trace_name(r), r->core->name,
			r->cfg.arena_bytes);
		if (r->status != AGBSIM_EXIT_OK) {
			const char *why = strstr(r->error, "core '");
			fprintf(out, "  n/a: %s\n", why != NULL ? why : r->error);
			continue;
		}
		if (!has_cache(m)) {
			fprintf(out, "  no cache ops: %u failures (%u from fragmentation)\n", m->failures,
				m->frag_failures);
			continue;
		}
		snprintf(ev, sizeof ev, "%u(%u)", m->cache_evictions, m->cache_blocked_evictions);
		fprintf(out, " %6.1f%% %6u %5u %9s %6u %10.1f %6.2f%%\n", m->cache_hit_rate * 100.0,
			m->cache_misses, m->cache_nopes, ev, m->cache_thrash, m->load_cycles_per_frame,
			m->max_frame_pct);
	}
	fputc('\n', out);
}

#ifdef AGBSIM_HAVE_VIEW
/* One series per (trace, core): consecutive runs of the same pair, as bench plans them. */
static int plot(const char *path, const struct agbsim_run *runs, size_t n)
{
	struct agb_view_curve *series = calloc(n + 1u, sizeof *series);
	struct agb_view_curve_point *pts = calloc(n + 1u, sizeof *pts);
	char (*labels)[48] = calloc(n + 1u, sizeof *labels);
	char err[256], title[128];
	const struct agb_trace *last_trace = NULL;
	const struct agb_heap_core *last_core = NULL;
	size_t ns = 0, np = 0;
	int rc = AGBSIM_EXIT_IO;
	if (series == NULL || pts == NULL || labels == NULL)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		if (r->status != AGBSIM_EXIT_OK || !has_cache(&r->metrics))
			continue;
		if (r->trace != last_trace || r->core != last_core) {
			last_trace = r->trace;
			last_core = r->core;
			snprintf(labels[ns], sizeof labels[ns], "%s %s", agbsim_trace_name(r),
				 r->core->name);
			series[ns] = (struct agb_view_curve){labels[ns], &pts[np], 0};
			ns++;
		}
		pts[np++] = (struct agb_view_curve_point){r->cfg.arena_bytes, r->metrics.cache_hit_rate,
							  r->metrics.load_cycles_per_frame};
		series[ns - 1].n++;
	}
	if (ns == 0) {
		agbsim_error("bench: --plot: no run went through the resource cache");
		goto out;
	}
	snprintf(title, sizeof title, "resource cache (lru): hit rate and load cycles/frame "
		 "(%.3f cycles/byte) by pool size", runs[0].metrics.load_cost_milli / 1000.0);
	if (agb_view_plot_curves(path, title, series, ns, err, sizeof err) != 0)
		agbsim_error("%s", err);
	else
		rc = AGBSIM_EXIT_OK;
out:
	free(series);
	free(pts);
	free(labels);
	return rc;
}
#endif

int agbsim_curve_plot(const char *path, const struct agbsim_run *runs, size_t n)
{
#ifdef AGBSIM_HAVE_VIEW
	return plot(path, runs, n);
#else
	(void)runs;
	(void)n;
	agbsim_error("bench: --plot %s: this agbsim was built without the viewer (SDL2)", path);
	return AGBSIM_EXIT_IO;
#endif
}
