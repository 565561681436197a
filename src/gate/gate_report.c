/* The gate's report (gate_report.h): what gate.c found, as a table or markdown, and as JSON. */
#include "gate/gate_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/json_out.h"
#include "cli/options.h"
#include "trace/json_util.h"

void agbsim_gate_result_free(struct agbsim_gate_result *g)
{
	free(g->reg.v);
	free(g->imp.v);
	free(g->missing.v);
	free(g->added.v);
	free(g->workload.v);
	free(g->leaks.v);
	free(g->arena.v);
	free(g->ungated.v);
	agbsim_limit_report_free(&g->limits);
}

int agbsim_gate_result_failed(const struct agbsim_gate_result *g)
{
	return g->reg.n != 0 || g->leaks.n != 0 || g->arena.n != 0 || g->limits.hits.n != 0 ||
	       (g->missing.n != 0 && !g->allow_missing);
}

static void fmt_value(char *buf, size_t n, double v, int is_null)
{
	if (is_null)
		snprintf(buf, n, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4f", v);
}

static void fmt_change(char *buf, size_t n, const struct agbsim_finding *f)
{
	if (f->base_null || f->now_null)
		snprintf(buf, n, "%s", f->now_null ? "now null" : "was null");
	else if (f->base == 0)
		snprintf(buf, n, "%+g", f->now - f->base);
	else
		snprintf(buf, n, "%+.2f%%", (f->now - f->base) * 100.0 / fabs(f->base));
}

static void print_findings(FILE *out, const char *title, const struct agbsim_findings *f, int md)
{
	if (f->n == 0)
		return;
	if (md) {
		fprintf(out, "\n**%s**\n\n| trace | allocator | metric | baseline | now | change |\n"
			     "|---|---|---|---:|---:|---:|\n",
			title);
	} else {
		fprintf(out, "\n%s\n%-24s %-9s %-22s %12s %12s %10s\n", title, "trace", "allocator",
			"metric", "baseline", "now", "change");
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct agbsim_finding *x = &f->v[i];
		char b[32], nw[32], ch[32];
		fmt_value(b, sizeof b, x->base, x->base_null);
		fmt_value(nw, sizeof nw, x->now, x->now_null);
		fmt_change(ch, sizeof ch, x);
		if (md)
			fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", x->trace, x->allocator,
				x->metric, b, nw, ch);
		else
			fprintf(out, "%-24s %-9s %-22s %12s %12s %10s\n", x->trace, x->allocator,
				x->metric, b, nw, ch);
	}
}

static void print_pairs(FILE *out, const char *title, const struct agbsim_findings *f, int md)
{
	if (f->n == 0)
		return;
	fprintf(out, md ? "\n**%s**\n\n" : "\n%s\n", title);
	for (size_t i = 0; i < f->n; i++)
		fprintf(out, md ? "- %s / %s%s%s\n" : "  %s / %s%s%s\n", f->v[i].trace,
			f->v[i].allocator, f->v[i].metric ? ": " : "",
			f->v[i].metric ? f->v[i].metric : "");
}

/* The baseline or current figure of a finding: null, an integer, or 4 decimals. */
static void json_finding_value(struct agbsim_json *w, double v, int is_null)
{
	if (is_null)
		agbsim_json_null(w);
	else
		agbsim_json_fixed(w, v, v == floor(v) && fabs(v) < 1e15 ? 0 : 4);
}

/* A string member of the object being written. */
static void json_member(struct agbsim_json *w, const char *key, const char *s)
{
	agbsim_json_member_string(w, key, s);
}

static void json_findings(struct agbsim_json *w, const char *key, const struct agbsim_findings *f)
{
	agbsim_json_key(w, key);
	agbsim_json_array(w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < f->n; i++) {
		const struct agbsim_finding *x = &f->v[i];
		agbsim_json_object(w, AGBSIM_JSON_INLINE);
		json_member(w, "trace", x->trace);
		json_member(w, "allocator", x->allocator);
		if (x->metric != NULL) {
			json_member(w, "metric", x->metric);
			if (x->limit != NULL) { /* a limit broken: the limit as written, and where */
				json_member(w, "limit", x->limit->text);
				json_member(w, "set_by", x->limit->origin);
			} else {
				agbsim_json_key(w, "baseline");
				json_finding_value(w, x->base, x->base_null);
			}
			agbsim_json_key(w, "now");
			json_finding_value(w, x->now, x->now_null);
		}
		agbsim_json_end(w);
	}
	agbsim_json_end(w);
}


/* The traces a list of workload findings names (they come grouped by trace). */
static size_t count_traces(const struct agbsim_findings *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		n += i == 0 || strcmp(f->v[i].trace, f->v[i - 1].trace) != 0;
	return n;
}

/* md's title: ok, regression (worse or missing), or limit exceeded (only limits broken). */
static const char *verdict_title(const struct agbsim_gate_result *g)
{
	if (!agbsim_gate_result_failed(g))
		return "ok";
	if (g->leaks.n != 0)
		return "leak";
	if (g->arena.n != 0 && g->reg.n == 0)
		return "arena differs from the baseline";
	return g->reg.n != 0 || (g->missing.n != 0 && !g->allow_missing) ? "regression"
									  : "limit exceeded";
}

/* The verdict: what was compared and how many of each finding; the parts of the gate a run
 * does not use (limits, workload changes, traces not gated) only when it has them. */
static void print_verdict(FILE *out, int md, const struct agbsim_gate_result *g)
{
	int failed = agbsim_gate_result_failed(g);
	if (md)
		fprintf(out, "### agbsim gate: %s\n\n", verdict_title(g));
	fprintf(out, "agbsim gate: %s — %zu pairs compared with %s: %zu regressed metrics, %zu "
		     "improved beyond tolerance, %zu pairs missing, %zu new",
		failed ? "FAIL" : "ok", g->compared, g->baseline, g->reg.n, g->imp.n, g->missing.n,
		g->added.n);
	if (g->n_limits != 0)
		fprintf(out, "; %zu limits (%zu values checked): %zu exceeded", g->n_limits,
			g->limits.n_checked, g->limits.hits.n);
	if (g->leaks.n != 0)
		fprintf(out, "; %zu traces leak", g->leaks.n);
	if (g->arena.n != 0)
		fprintf(out, "; %zu pairs not compared: arena differs from the baseline's", g->arena.n);
	if (g->workload.n != 0)
		fprintf(out, "; workload changed on %zu traces", count_traces(&g->workload));
	if (g->ungated.n != 0)
		fprintf(out, "; %zu traces not gated", g->ungated.n);
	fputc('\n', out);
}

static void print_ungated(FILE *out, const struct agbsim_ungated_list *u, int md)
{
	if (u->n == 0)
		return;
	fprintf(out, md ? "\n**%s**\n\n" : "\n%s\n",
		"Not gated (no selected core ran these traces: none of their figures is compared)");
	for (size_t i = 0; i < u->n; i++)
		fprintf(out, md ? "- %s (%s): %s\n" : "  %s (%s): %s\n", u->v[i].trace,
			agb_arena_name(u->v[i].arena), u->v[i].why);
}

/* Where a limit was set: on the command line or in the baseline. */
static const char *limit_origin(const struct agbsim_limit *l)
{
	return strcmp(l->origin, "--limit") == 0 ? "--limit" : "baseline";
}

static void print_limit_hits(FILE *out, const struct agbsim_limit_report *r, int md)
{
	if (r->hits.n == 0)
		return;
	if (md)
		fprintf(out, "\n**Limits exceeded**\n\n| trace | allocator | metric | limit | now | "
			     "set by |\n|---|---|---|---:|---:|---|\n");
	else
		fprintf(out, "\nLimits exceeded\n%-24s %-9s %-22s %14s %12s  %s\n", "trace",
			"allocator", "metric", "limit", "now", "set by");
	for (size_t i = 0; i < r->hits.n; i++) {
		const struct agbsim_finding *h = &r->hits.v[i];
		char lim[48], value[32], now[32];
		fmt_value(value, sizeof value, h->base, 0);
		snprintf(lim, sizeof lim, "%s %s", agbsim_limit_op_text(h->limit->op), value);
		fmt_value(now, sizeof now, h->now, h->now_null);
		fprintf(out, md ? "| %s | %s | %s | %s | %s | %s |\n" : "%-24s %-9s %-22s %14s %12s  %s\n",
			h->trace, h->allocator, h->metric, lim, now, limit_origin(h->limit));
	}
}

/* A cell of the figures table: the metrics' values in the baseline run `base`, or when base is
 * NULL in the run `now`, joined by '/'; "-" where one is not reported, "null" for no value. */
static void figure_cell(char *buf, size_t n, const char *const *metrics, const cJSON *base,
			const struct agbsim_run *now)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; metrics[i] != NULL && len + 1 < n; i++) {
		double v = 0;
		int has = -1;
		char one[32];
		if (base != NULL) {
			has = agbsim_metric_of_json(base, metrics[i], &v);
		} else {
			for (size_t k = 0; k < agbsim_metric_count; k++)
				if (strcmp(agbsim_metric_defs[k].name, metrics[i]) == 0)
					has = agbsim_metric_of_run(now, &agbsim_metric_defs[k], &v);
		}
		if (has < 0)
			snprintf(one, sizeof one, "-");
		else if (has == 0)
			snprintf(one, sizeof one, "null");
		else
			snprintf(one, sizeof one, v == floor(v) ? "%.0f" : "%.1f", v);
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "/" : "", one);
	}
}

/* md only: every pair with numbers, its headline figures now, "baseline → now" where they
 * differ (within tolerance or not): a passing run's comment shows what it passed with. */
static void print_figures_md(FILE *out, const struct agbsim_gate_result *g)
{
	static const char *const columns[][4] = {
		{"failures", NULL},
		{"min_arena_bytes", NULL},
		{"cycles.alloc.mean", "cycles.alloc.max", NULL},
		{"cycles.free.mean", "cycles.free.max", NULL},
		{"cycles.all_ops.mean", "cycles.all_ops.max", NULL},
		{"cycles.frame.max", NULL},
	};
	fprintf(out, "\n**Figures** (baseline → now where they differ)\n\n| trace | allocator | "
		     "failures | min arena | alloc mean/max | free mean/max | all ops mean/max | "
		     "frame max |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < g->n; i++) {
		const struct agbsim_run *r = &g->runs[i];
		const cJSON *base;
		if (r->status != AGBSIM_EXIT_OK)
			continue;
		base = agbsim_baseline_run(g->base_runs, agbsim_trace_name(r), r->core->name);
		if (base != NULL && cJSON_GetObjectItemCaseSensitive(base, "error") != NULL)
			base = NULL;
		fprintf(out, "| %s | %s |", agbsim_trace_name(r), r->core->name);
		for (size_t c = 0; c < sizeof columns / sizeof columns[0]; c++) {
			char was[96], now[96];
			figure_cell(now, sizeof now, columns[c], NULL, r);
			if (base != NULL)
				figure_cell(was, sizeof was, columns[c], base, NULL);
			if (base != NULL && strcmp(was, now) != 0)
				fprintf(out, " %s → %s |", was, now);
			else
				fprintf(out, " %s |", now);
		}
		fputc('\n', out);
	}
}

/* The run of this bench a finding names. */
static const struct agbsim_run *finding_run(const struct agbsim_gate_result *g,
					    const struct agbsim_finding *f)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(agbsim_trace_name(&g->runs[i]), f->trace) == 0 &&
		    strcmp(g->runs[i].core->name, f->allocator) == 0)
			return &g->runs[i];
	return NULL;
}

/* Leaks: the rise in bytes live at the end, and where the live blocks were allocated when the
 * trace names call sites (sites.h), largest first. */
static void print_leaks(FILE *out, const struct agbsim_gate_result *g, int md)
{
	if (g->leaks.n == 0)
		return;
	fprintf(out, md ? "\n**%s**\n\n" : "\n%s\n",
		"Leak (more bytes live at the end than in the baseline: blocks the game no longer frees)");
	for (size_t i = 0; i < g->leaks.n; i++) {
		const struct agbsim_finding *f = &g->leaks.v[i];
		const struct agbsim_run *r = finding_run(g, f);
		struct agbsim_site_total top[5];
		size_t n = 0;
		fprintf(out, md ? "- %s: %.0f bytes live at the end, was %.0f (+%.0f)\n"
				: "  %s: %.0f bytes live at the end, was %.0f (+%.0f)\n",
			f->trace, f->now, f->base, f->now - f->base);
		if (r != NULL && g->site != NULL)
			n = agbsim_top_sites(r->trace, g->site, g->site_ctx, 1, top, 5);
		if (r != NULL && n == 0)
			fputs(md ? "  - the trace names no call sites (agbsim record adds them)\n"
				 : "    the trace names no call sites (agbsim record adds them)\n",
			      out);
		for (size_t k = 0; k < n; k++)
			fprintf(out, md ? "  - %s: %u bytes in %u blocks live at the end\n"
					: "    %s: %u bytes in %u blocks live at the end\n",
				top[k].site, top[k].live_bytes, top[k].live_count);
	}
}

static void print_arena(FILE *out, const struct agbsim_gate_result *g, int md)
{
	if (g->arena.n == 0)
		return;
	fprintf(out, md ? "\n**%s**\n\n" : "\n%s\n",
		"Arena differs from the baseline's (not compared: replay with the baseline's pool, "
		"e.g. --pool=BYTES, or refresh the baseline)");
	for (size_t i = 0; i < g->arena.n; i++)
		fprintf(out, md ? "- %s / %s: baseline %.0f bytes, this run %.0f\n"
				: "  %s / %s: baseline %.0f bytes, this run %.0f\n",
			g->arena.v[i].trace, g->arena.v[i].allocator, g->arena.v[i].base,
			g->arena.v[i].now);
}

void agbsim_gate_report(FILE *out, int md, const struct agbsim_gate_result *g)
{
	print_verdict(out, md, g);
	print_leaks(out, g, md);
	print_arena(out, g, md);
	print_findings(out,
		       "Workload changed (these traces are not the ones the baseline replayed: their "
		       "figures moved with them; read on the pair named)",
		       &g->workload, md);
	print_ungated(out, &g->ungated, md);
	print_limit_hits(out, &g->limits, md);
	print_findings(out, "Regressed (worse than the baseline beyond tolerance)", &g->reg, md);
	print_findings(out, "Improved beyond tolerance (refresh the baseline with --update-baseline)",
		       &g->imp, md);
	print_pairs(out,
		    g->allow_missing ? "Missing from this run (allowed by --allow-missing)"
				     : "Missing from this run (a failure; --allow-missing accepts it)",
		    &g->missing, md);
	print_pairs(out, "New in this run (not in the baseline)", &g->added, md);
	if (md)
		print_figures_md(out, g);
}

void agbsim_gate_report_step_summary(const struct agbsim_gate_result *g)
{
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	FILE *s;
	if (summary == NULL || *summary == '\0')
		return;
	s = fopen(summary, "a");
	if (s == NULL)
		return;
	agbsim_gate_report(s, 1, g);
	fclose(s);
}

static void json_ungated(struct agbsim_json *w, const struct agbsim_ungated_list *u)
{
	agbsim_json_key(w, "not_gated");
	agbsim_json_array(w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < u->n; i++) {
		agbsim_json_object(w, AGBSIM_JSON_INLINE);
		json_member(w, "trace", u->v[i].trace);
		json_member(w, "path", u->v[i].path);
		json_member(w, "arena", agb_arena_name(u->v[i].arena));
		json_member(w, "why", u->v[i].why);
		agbsim_json_end(w);
	}
	agbsim_json_end(w);
}

int agbsim_gate_write_diff(const char *path, const struct agbsim_gate_result *g)
{
	struct agbsim_output o = {0};
	struct agbsim_json w;
	int rc = agbsim_output_open(&o, path);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	agbsim_json_init(&w, o.f);
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	agbsim_json_member_string(&w, "baseline", g->baseline);
	agbsim_json_key(&w, "pairs_compared");
	agbsim_json_size(&w, g->compared);
	json_findings(&w, "regressions", &g->reg);
	json_findings(&w, "improvements", &g->imp);
	json_findings(&w, "missing", &g->missing);
	json_findings(&w, "new", &g->added);
	json_findings(&w, "workload_changed", &g->workload);
	json_findings(&w, "leaks", &g->leaks);
	json_findings(&w, "arena_differs", &g->arena);
	json_ungated(&w, &g->ungated);
	agbsim_json_key(&w, "limits");
	agbsim_json_size(&w, g->n_limits);
	agbsim_json_key(&w, "limit_values_checked");
	agbsim_json_size(&w, g->limits.n_checked);
	json_findings(&w, "limits_exceeded", &g->limits.hits);
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
	return agbsim_output_close(&o, 1);
}

void agbsim_gate_warn_ungated(const struct agbsim_ungated_list *u)
{
	for (size_t i = 0; i < u->n; i++)
		fprintf(stderr, "agbsim: warning: %s (%s) is not gated: %s\n", u->v[i].trace,
			u->v[i].path, u->v[i].why);
}
