/* The gate's findings about traces (gate_traces.h). */
#include "gate/gate_traces.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/json_util.h"

/* Appends to buf (size n, holding a string) what fmt says, cut at the end of buf. */
static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;
	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

/* A run's error without the "PATH:LINE:COL: " it starts with when it is about the trace file:
 * the reader knows which trace it is. */
static const char *error_without_location(const char *error, const char *path)
{
	size_t len = strlen(path);
	const char *p = error + len;
	if (strncmp(error, path, len) != 0 || *p != ':')
		return error;
	for (int colons = 0; *p != '\0' && colons < 3; p++)
		colons += *p == ':';
	return *p == ' ' ? p + 1 : error;
}

/* why, for a trace no chosen core manages: the cores that do. */
static void why_no_core(char *why, size_t n, enum agb_arena arena)
{
	const char *sep = "";
	snprintf(why, n, "no selected core manages %s (", agb_arena_name(arena));
	for (size_t c = 0; agb_heap_cores[c] != NULL; c++)
		if (agb_heap_cores[c]->arenas & AGB_ARENA_BIT(arena)) {
			append(why, n, "%s%s", sep, agb_heap_cores[c]->name);
			sep = ", ";
		}
	append(why, n, " can)");
}

/* 1 when the default core of t's arena is among its runs (then naming it helps nobody). */
static int default_tried(const struct agb_trace *t, const struct agbsim_run *runs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (runs[k].trace == t && runs[k].core == agb_heap_core_default(t->arena))
			return 1;
	return 0;
}

/* The runs of trace t: 1 when one produced numbers; else why says what the others said. */
static int trace_gated(const struct agb_trace *t, const char *path, const struct agbsim_run *runs,
		       size_t n, char *why, size_t why_size)
{
	size_t tried = 0;
	snprintf(why, why_size, "no selected core can run it: ");
	for (size_t k = 0; k < n; k++) {
		if (runs[k].trace != t)
			continue;
		if (runs[k].status == AGBSIM_EXIT_OK)
			return 1;
		append(why, why_size, "%s%s", tried++ ? "; " : "",
		       error_without_location(runs[k].error, path));
	}
	if (tried == 0)
		why_no_core(why, why_size, t->arena);
	else if (!default_tried(t, runs, n))
		append(why, why_size, " (%s's default core: %s)", agb_arena_name(t->arena),
		       agb_heap_core_default(t->arena)->name);
	return 0;
}

int agbsim_gate_find_ungated(const struct agb_loaded_trace *traces, char *const *paths,
			     size_t n_traces, const struct agbsim_run *runs, size_t n,
			     struct agbsim_ungated_list *out)
{
	for (size_t i = 0; i < n_traces; i++) {
		const struct agb_trace *t = &traces[i].trace;
		struct agbsim_ungated u = {t->name != NULL ? t->name : paths[i], paths[i], t->arena, ""};
		void *v = out->v;
		if (trace_gated(t, paths[i], runs, n, u.why, sizeof u.why))
			continue;
		if (agbsim_gate_grow(&v, &out->cap, out->n, sizeof *out->v) != 0)
			return -1;
		out->v = v;
		out->v[out->n++] = u;
	}
	return 0;
}

const char *const agbsim_workload_facts[] = {"events", "allocs",          "frees",
					     "reallocs", "frames", "peak_live_bytes",
					     "live_bytes_end", NULL};

/* The fact's value in a run's metrics (the names of agbsim_workload_facts). */
static double workload_fact(const struct agb_metrics *m, const char *fact)
{
	const uint32_t values[] = {m->events,   m->allocs, m->frees,
				   m->reallocs, m->frames, m->peak_live_bytes,
				   m->live_bytes_end};
	for (size_t i = 0; agbsim_workload_facts[i] != NULL; i++)
		if (strcmp(agbsim_workload_facts[i], fact) == 0)
			return values[i];
	return 0;
}

/* A pair both sides replayed with numbers: the run and its baseline run. */
struct workload_pair {
	const struct agbsim_run *now;
	const cJSON *base;
	int clean; /* no failed request on either side: peak live bytes are the trace's */
};

/* The pair of the trace named `trace` the facts are read on: the first with no failures on
 * either side, else the first both sides replayed. Returns 1 with *p set, 0 when none. */
static int workload_pair(const cJSON *base_runs, const struct agbsim_run *runs, size_t n,
			 const char *trace, struct workload_pair *p)
{
	int found = 0;
	for (size_t k = 0; k < n; k++) {
		const cJSON *b;
		double base_failures = 0, events;
		if (runs[k].status != AGBSIM_EXIT_OK || strcmp(agbsim_trace_name(&runs[k]), trace) != 0)
			continue;
		b = agbsim_baseline_run(base_runs, trace, runs[k].core->name);
		if (b == NULL || agbsim_metric_of_json(b, "events", &events) != 1)
			continue;
		agbsim_metric_of_json(b, "failures", &base_failures);
		if (!found || (!p->clean && base_failures == 0 && runs[k].metrics.failures == 0)) {
			*p = (struct workload_pair){&runs[k], b,
						    base_failures == 0 && runs[k].metrics.failures == 0};
			found = 1;
		}
		if (p->clean)
			break;
	}
	return found;
}

/* 1 when an earlier run than k has the same trace name: that trace was looked at already. */
static int trace_seen(const struct agbsim_run *runs, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (strcmp(agbsim_trace_name(&runs[i]), agbsim_trace_name(&runs[k])) == 0)
			return 1;
	return 0;
}

int agbsim_gate_workload_changes(const cJSON *base_runs, const struct agbsim_run *runs, size_t n,
				 struct agbsim_findings *out)
{
	for (size_t k = 0; k < n; k++) {
		const char *trace = agbsim_trace_name(&runs[k]);
		struct workload_pair p;
		if (trace_seen(runs, k) || !workload_pair(base_runs, runs, n, trace, &p))
			continue;
		for (size_t i = 0; agbsim_workload_facts[i] != NULL; i++) {
			const char *fact = agbsim_workload_facts[i];
			double before, now = workload_fact(&p.now->metrics, fact);
			if ((strcmp(fact, "peak_live_bytes") == 0 ||
			     strcmp(fact, "live_bytes_end") == 0) &&
			    !p.clean)
				continue;
			if (agbsim_metric_of_json(p.base, fact, &before) != 1 || before == now)
				continue;
			if (agbsim_findings_add(out, (struct agbsim_finding){trace, p.now->core->name, fact,
									     before, now, 0, 0, NULL}) != 0)
				return -1;
		}
	}
	return 0;
}

int agbsim_gate_leaks(const struct agbsim_findings *workload, struct agbsim_findings *out)
{
	for (size_t i = 0; i < workload->n; i++) {
		const struct agbsim_finding *f = &workload->v[i];
		if (strcmp(f->metric, "live_bytes_end") == 0 && f->now > f->base &&
		    agbsim_findings_add(out, *f) != 0)
			return -1;
	}
	return 0;
}

int agbsim_gate_unique_names(const struct agb_loaded_trace *traces, char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *a = traces[i].trace.name != NULL ? traces[i].trace.name : paths[i];
		for (size_t k = 0; k < i; k++) {
			const char *b = traces[k].trace.name != NULL ? traces[k].trace.name : paths[k];
			if (strcmp(a, b) == 0) {
				agbsim_error("%s and %s are both named '%s': the gate keys its pairs by "
					     "trace name; give one another \"name\"",
					     paths[k], paths[i], a);
				return AGBSIM_EXIT_USAGE;
			}
		}
	}
	return AGBSIM_EXIT_OK;
}
