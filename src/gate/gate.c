/* The regression gate. agbsim's figures are deterministic (no wall-clock), so a baseline can be
 * compared exactly; tolerances exist for deliberate slack, not for noise. */
#include "gate/gate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gate/gate_limits.h"
#include "gate/gate_metrics.h"
#include "gate/gate_report.h"
#include "gate/gate_traces.h"
#include "trace/json_out.h"
#include "cli/options.h"
#include "trace/json_util.h"

struct tolerance {
	double rel, abs;
};

/* A run that produced no numbers: who, and why. */
static void write_error_run(struct agbsim_json *w, const struct agbsim_run *r)
{
	agbsim_json_object(w, AGBSIM_JSON_INLINE);
	agbsim_json_run_identity(w, r);
	agbsim_json_member_string(w, "error", r->error);
	agbsim_json_end(w);
}

/* A baseline's "limits" kept: one limit a line, so a change to one is one line of a diff. */
static void write_limits(struct agbsim_json *w, const cJSON *limits)
{
	const cJSON *l;
	agbsim_json_key(w, "limits");
	agbsim_json_array(w, AGBSIM_JSON_LINES);
	cJSON_ArrayForEach(l, limits)
	{
		agbsim_json_string(w, l->valuestring);
	}
	agbsim_json_end(w);
}

int agbsim_bench_write_json(FILE *out, const struct agbsim_run *runs, size_t n,
			    const cJSON *tolerances, const cJSON *limits)
{
	struct agbsim_json w;
	int rc = 0;
	agbsim_json_init(&w, out);
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	agbsim_json_member_u32(&w, "agbsim_bench", 1);
	agbsim_json_member_string(&w, "cycles", n ? runs[0].cycle_source : "model");
	if (tolerances != NULL) {
		agbsim_json_key(&w, "tolerances");
		rc = agbsim_json_cjson(&w, tolerances);
		if (rc != 0)
			agbsim_json_null(&w);
	}
	if (limits != NULL)
		write_limits(&w, limits);
	agbsim_json_key(&w, "runs");
	agbsim_json_array(&w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < n; i++) {
		if (runs[i].status == AGBSIM_EXIT_OK)
			agbsim_report_json_run(&w, &runs[i]);
		else
			write_error_run(&w, &runs[i]);
	}
	agbsim_json_end(&w);
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
	return rc;
}

static int parse_tolerance_text(const char *s, struct tolerance *t)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || v < 0 || !isfinite(v))
		return -1;
	if (*end == '%' && end[1] == '\0') {
		t->rel = v / 100.0;
		t->abs = 0;
		return 0;
	}
	if (*end != '\0')
		return -1;
	t->rel = 0;
	t->abs = v;
	return 0;
}


struct gate_doc {
	const char *path;
	char *text;
	size_t len;
	cJSON *root;
	const cJSON *runs;
};

static int doc_error(const struct gate_doc *d, const char *json_path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int doc_error(const struct gate_doc *d, const char *json_path, const char *fmt, ...)
{
	struct agb_diag diag = {0};
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	agb_json_locate(d->text, d->len, json_path, &diag);
	agbsim_error("%s:%u:%u: %s", d->path, diag.line, diag.col, msg);
	return AGBSIM_EXIT_USAGE;
}

/* The JSON path of metric `name` in run `jp` ("runs/3/cycles/alloc/mean"). */
static void metric_json_path(char *out, size_t n, const char *jp, const char *name)
{
	size_t k = (size_t)snprintf(out, n, "%s/", jp);
	for (const char *c = name; *c != '\0' && k + 1 < n; c++)
		out[k++] = *c == '.' ? '/' : *c;
	out[k < n ? k : n - 1] = '\0';
}

/* Each run: an object with "trace" and "allocator" strings, every metric a number or null. */
static int check_runs(const struct gate_doc *d)
{
	int i = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, d->runs)
	{
		char jp[64];
		snprintf(jp, sizeof jp, "runs/%d", i);
		if (!cJSON_IsObject(r))
			return doc_error(d, jp, "run %d must be an object", i);
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "trace")) ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "allocator")))
			return doc_error(d, jp, "run %d needs \"trace\" and \"allocator\" strings", i);
		for (size_t k = 0; k < agbsim_metric_count; k++) {
			double v;
			if (agbsim_metric_of_json(r, agbsim_metric_defs[k].name, &v) == -2) {
				char mp[160];
				metric_json_path(mp, sizeof mp, jp, agbsim_metric_defs[k].name);
				return doc_error(d, mp, "\"%s\" must be a number or null",
						 agbsim_metric_defs[k].name);
			}
		}
		i++;
	}
	return AGBSIM_EXIT_OK;
}

/* "tolerances": known metric patterns, each a number (absolute) or "N%" (relative). */
static int check_tolerances(const struct gate_doc *d)
{
	const cJSON *tol = cJSON_GetObjectItemCaseSensitive(d->root, "tolerances");
	const cJSON *t;
	if (tol != NULL && !cJSON_IsObject(tol))
		return doc_error(d, "tolerances", "\"tolerances\" must be an object");
	cJSON_ArrayForEach(t, tol)
	{
		char jp[200];
		struct tolerance x;
		snprintf(jp, sizeof jp, "tolerances/%s", t->string);
		if (!agbsim_metric_pattern_known(t->string))
			return doc_error(d, jp, "unknown metric \"%s\" in tolerances", t->string);
		if (cJSON_IsNumber(t) ? t->valuedouble < 0
				      : (!cJSON_IsString(t) || parse_tolerance_text(t->valuestring, &x) != 0))
			return doc_error(d, jp,
					 "tolerance must be a number (absolute) or \"N%%\" (relative)");
	}
	return AGBSIM_EXIT_OK;
}

/* "limits": an array of limits (gate_limits.h), each a string. */
static int check_limits(const struct gate_doc *d)
{
	const cJSON *limits = cJSON_GetObjectItemCaseSensitive(d->root, "limits");
	const cJSON *l;
	int i = 0;
	if (limits != NULL && !cJSON_IsArray(limits))
		return doc_error(d, "limits", "\"limits\" must be an array of strings");
	cJSON_ArrayForEach(l, limits)
	{
		char jp[32], why[512];
		struct agbsim_limit x;
		snprintf(jp, sizeof jp, "limits/%d", i++);
		if (!cJSON_IsString(l))
			return doc_error(d, jp, "a limit is a string: \"[TRACE:CORE:]METRIC<=VALUE\"");
		if (agbsim_limit_parse(l->valuestring, &x, why, sizeof why) != 0)
			return doc_error(d, jp, "%s", why);
	}
	return AGBSIM_EXIT_OK;
}

/* Loads and checks the shape of a bench result document. On failure d still holds what was
 * loaded: free_doc() it either way. */
static int load_doc(struct gate_doc *d, const char *path)
{
	struct agb_diag diag;
	memset(d, 0, sizeof *d);
	d->path = path;
	int rc = agbsim_read_input(path, &d->text, &d->len);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	if (agb_json_parse(path, d->text, d->len, &d->root, &diag) != AGB_LOAD_OK) {
		char msg[1024];
		agb_diag_format(&diag, msg, sizeof msg);
		agbsim_error("%s", msg);
		return AGBSIM_EXIT_USAGE;
	}
	if (!cJSON_IsObject(d->root))
		return doc_error(d, "", "a baseline is a JSON object as 'agbsim bench --format=json' writes");
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(d->root, "agbsim_bench");
	if (!cJSON_IsNumber(version))
		return doc_error(d, "", "not an agbsim bench result: no \"agbsim_bench\" key");
	if (version->valuedouble != 1.0)
		return doc_error(d, "agbsim_bench",
				 "\"agbsim_bench\" must be 1 (the format this agbsim reads and writes), "
				 "got %.17g",
				 version->valuedouble);
	const cJSON *cycles = cJSON_GetObjectItemCaseSensitive(d->root, "cycles");
	if (cycles != NULL && (!cJSON_IsString(cycles) || (strcmp(cycles->valuestring, "model") != 0 &&
							   strcmp(cycles->valuestring, "mgba") != 0)))
		return doc_error(d, "cycles", "\"cycles\" must be \"model\" or \"mgba\"");
	d->runs = cJSON_GetObjectItemCaseSensitive(d->root, "runs");
	if (!cJSON_IsArray(d->runs))
		return doc_error(d, d->runs ? "runs" : "", "\"runs\" must be an array of runs");
	if (check_runs(d) != AGBSIM_EXIT_OK || check_tolerances(d) != AGBSIM_EXIT_OK)
		return AGBSIM_EXIT_USAGE;
	return check_limits(d);
}

static void free_doc(struct gate_doc *d)
{
	cJSON_Delete(d->root);
	free(d->text);
}

/* The first run of this bench with that trace name and core, or NULL. */
static const struct agbsim_run *find_run(const struct agbsim_run *runs, size_t n, const char *trace,
					 const char *allocator)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(agbsim_trace_name(&runs[i]), trace) == 0 &&
		    strcmp(runs[i].core->name, allocator) == 0)
			return &runs[i];
	return NULL;
}

static const char *str_of(const cJSON *run, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, key);
	return cJSON_IsString(v) ? v->valuestring : "?";
}

static struct tolerance tolerance_for(const char *metric, const cJSON *section,
				      const struct agbsim_gate_options *opt)
{
	struct tolerance t = {0, 0};
	const cJSON *e;
	for (size_t i = 0; i < agbsim_metric_count; i++)
		if (strcmp(agbsim_metric_defs[i].name, metric) == 0)
			t = (struct tolerance){agbsim_metric_defs[i].rel, agbsim_metric_defs[i].abs};
	cJSON_ArrayForEach(e, section)
	{
		if (!agbsim_metric_pattern_matches(e->string, metric))
			continue;
		if (cJSON_IsNumber(e))
			t = (struct tolerance){0, e->valuedouble};
		else if (cJSON_IsString(e))
			parse_tolerance_text(e->valuestring, &t);
	}
	for (size_t i = 0; i < opt->n_tolerances; i++) {
		const char *eq = strchr(opt->tolerances[i], '=');
		char pat[128];
		size_t n = (size_t)(eq - opt->tolerances[i]);
		if (n >= sizeof pat)
			continue;
		memcpy(pat, opt->tolerances[i], n);
		pat[n] = '\0';
		if (agbsim_metric_pattern_matches(pat, metric))
			parse_tolerance_text(eq + 1, &t);
	}
	return t;
}


/* --tolerance values: METRIC=REL% or METRIC=ABS, METRIC a known name or prefix pattern. */
static int check_cli_tolerances(const struct agbsim_gate_options *opt)
{
	for (size_t i = 0; i < opt->n_tolerances; i++) {
		const char *eq = strchr(opt->tolerances[i], '=');
		struct tolerance t;
		char pat[128];
		size_t len = eq ? (size_t)(eq - opt->tolerances[i]) : 0;
		if (eq == NULL || len == 0 || len >= sizeof pat || parse_tolerance_text(eq + 1, &t) != 0)
			return agbsim_usage_error("bench", "--tolerance wants METRIC=REL%% or METRIC=ABS, "
							   "not '%s'",
						  opt->tolerances[i]);
		memcpy(pat, opt->tolerances[i], len);
		pat[len] = '\0';
		if (!agbsim_metric_pattern_known(pat))
			return agbsim_usage_error("bench", "--tolerance: unknown metric '%s'", pat);
	}
	return AGBSIM_EXIT_OK;
}

int agbsim_gate_check_options(const struct agbsim_gate_options *opt)
{
	int rc = check_cli_tolerances(opt);
	for (size_t i = 0; i < opt->n_limits && rc == AGBSIM_EXIT_OK; i++) {
		struct agbsim_limit l;
		char why[512];
		if (agbsim_limit_parse(opt->limits[i], &l, why, sizeof why) != 0)
			rc = agbsim_usage_error("bench", "--limit: %s", why);
	}
	return rc;
}

/* One metric of one pair: a finding when it moved beyond tolerance. Returns 0, or -1 when out
 * of memory. */
static int compare_metric(struct agbsim_gate_result *g, const cJSON *base,
			  const struct agbsim_run *now, const struct agbsim_metric_def *d,
			  const cJSON *section, const struct agbsim_gate_options *opt)
{
	double b = 0, c = 0;
	int hb = agbsim_metric_of_json(base, d->name, &b), hc = agbsim_metric_of_run(now, d, &c);
	struct agbsim_finding f = {str_of(base, "trace"), str_of(base, "allocator"), d->name, b, c,
				   hb == 0, hc == 0, NULL};
	struct tolerance t;
	double slack;
	if (hb < 0 || hc < 0)
		return 0; /* not measured on one side (e.g. no realloc) */
	if (hb == 0 || hc == 0) /* null = no arena size works: worse than any number */
		return hb == hc ? 0 : agbsim_findings_add(hc == 0 ? &g->reg : &g->imp, f);
	t = tolerance_for(d->name, section, opt);
	slack = fmax(t.abs, t.rel * fabs(b));
	if (c > b + slack + 1e-9)
		return agbsim_findings_add(&g->reg, f);
	if (c < b - slack - 1e-9)
		return agbsim_findings_add(&g->imp, f);
	return 0;
}

/* A pair as a whole (missing, new) or a run that produced no numbers. */
static int add_pair(struct agbsim_findings *f, const char *trace, const char *alloc,
		    const char *what)
{
	struct agbsim_finding x = {trace, alloc, what, 0, 0, 0, what != NULL, NULL};
	return agbsim_findings_add(f, x);
}

/* Every baseline pair against this run, then the pairs only this run has. */
static int compare(struct agbsim_gate_result *g, const struct gate_doc *base,
		   const struct agbsim_gate_options *opt)
{
	const cJSON *section = cJSON_GetObjectItemCaseSensitive(base->root, "tolerances");
	const cJSON *r;
	int bad = 0;
	cJSON_ArrayForEach(r, base->runs)
	{
		const char *trace = str_of(r, "trace"), *alloc = str_of(r, "allocator");
		const struct agbsim_run *now = find_run(g->runs, g->n, trace, alloc);
		if (now == NULL) {
			bad |= add_pair(&g->missing, trace, alloc, NULL);
			continue;
		}
		if (now->status != AGBSIM_EXIT_OK &&
		    cJSON_GetObjectItemCaseSensitive(r, "error") == NULL) {
			bad |= add_pair(&g->reg, trace, alloc, "run (now n/a)");
			continue;
		}
		if (now->status == AGBSIM_EXIT_OK && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "arena_bytes")) &&
		    cJSON_GetObjectItemCaseSensitive(r, "arena_bytes")->valuedouble !=
			    (double)now->metrics.arena_bytes) {
			/* Another pool: every figure moves with it, none is a regression. */
			struct agbsim_finding x = {
				trace, alloc, "arena_bytes",
				cJSON_GetObjectItemCaseSensitive(r, "arena_bytes")->valuedouble,
				(double)now->metrics.arena_bytes, 0, 0, NULL};
			bad |= agbsim_findings_add(&g->arena, x);
			continue;
		}
		g->compared++;
		for (size_t k = 0; k < agbsim_metric_count; k++)
			bad |= compare_metric(g, r, now, &agbsim_metric_defs[k], section, opt);
	}
	for (size_t i = 0; i < g->n; i++) {
		const char *trace = agbsim_trace_name(&g->runs[i]), *alloc = g->runs[i].core->name;
		if (agbsim_baseline_run(base->runs, trace, alloc) == NULL)
			bad |= add_pair(&g->added, trace, alloc, NULL);
	}
	return bad != 0 ? AGBSIM_EXIT_IO : AGBSIM_EXIT_OK;
}

/* The limits in force: the baseline's "limits" (checked by load_doc), then --limit's (checked
 * by agbsim_gate_check_options). Returns the count with *out allocated (free it), or -1 when
 * out of memory. */
static long collect_limits(const struct gate_doc *base, const struct agbsim_gate_options *opt,
			   struct agbsim_limit **out)
{
	const cJSON *section = cJSON_GetObjectItemCaseSensitive(base->root, "limits");
	size_t n = 0, cap = (size_t)cJSON_GetArraySize(section) + opt->n_limits;
	const cJSON *l;
	char why[512];
	*out = calloc(cap ? cap : 1, sizeof **out);
	if (*out == NULL)
		return -1;
	cJSON_ArrayForEach(l, section)
	{
		if (agbsim_limit_parse(l->valuestring, &(*out)[n], why, sizeof why) == 0)
			(*out)[n++].origin = base->path;
	}
	for (size_t i = 0; i < opt->n_limits; i++)
		if (agbsim_limit_parse(opt->limits[i], &(*out)[n], why, sizeof why) == 0)
			(*out)[n++].origin = "--limit";
	return (long)n;
}

/* What is found beyond the pairwise comparison: the traces whose workload changed, and the
 * limits broken (limits must outlive g's report: they are its hits' limits). */
static int check_traces_and_limits(struct agbsim_gate_result *g, const struct gate_doc *base,
				   const struct agbsim_gate_options *opt, struct agbsim_limit **limits)
{
	long n_limits = collect_limits(base, opt, limits);
	if (n_limits < 0 || agbsim_gate_workload_changes(base->runs, g->runs, g->n, &g->workload) != 0 ||
	    agbsim_gate_leaks(&g->workload, &g->leaks) != 0)
		return AGBSIM_EXIT_IO;
	g->n_limits = (size_t)n_limits;
	if (agbsim_limits_check(*limits, g->n_limits, g->runs, g->n, &g->limits) != 0)
		return AGBSIM_EXIT_IO;
	return AGBSIM_EXIT_OK;
}

/* --baseline: compare, print the report (and the CI summary, and --diff-out). */
static int gate_compare(FILE *out, struct agbsim_gate_result *g,
			const struct agbsim_gate_options *opt)
{
	struct gate_doc base;
	struct agbsim_limit *limits = NULL;
	int rc = load_doc(&base, opt->baseline_path);
	g->base_runs = base.runs;
	if (rc == AGBSIM_EXIT_OK && g->n > 0) {
		/* Model estimates and mGBA's counts differ by design: compared figure by figure they
		 * would read as regressions (or hide them). */
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(base.root, "cycles");
		const char *was = cJSON_IsString(c) ? c->valuestring : "model";
		const char *now = g->runs[0].cycle_source != NULL ? g->runs[0].cycle_source : "model";
		if (strcmp(was, now) != 0)
			rc = doc_error(&base, c != NULL ? "cycles" : "",
				       "the baseline's cycles are %s figures, this run's %s: they cannot "
				       "be compared (run with --cycles=%s, or refresh the baseline with "
				       "--update-baseline)",
				       was, now, was);
	}
	if (rc == AGBSIM_EXIT_OK)
		rc = compare(g, &base, opt);
	if (rc == AGBSIM_EXIT_OK)
		rc = check_traces_and_limits(g, &base, opt, &limits);
	if (rc == AGBSIM_EXIT_OK) {
		agbsim_gate_report(out, opt->format == FORMAT_MD, g);
		agbsim_gate_report_step_summary(g);
		if (opt->diff_out != NULL)
			rc = agbsim_gate_write_diff(opt->diff_out, g);
	}
	if (rc == AGBSIM_EXIT_OK && agbsim_gate_result_failed(g))
		rc = AGBSIM_EXIT_REGRESSION;
	agbsim_limit_report_free(&g->limits); /* its findings point at limits and base's texts */
	free(limits);
	free_doc(&base);
	g->base_runs = NULL;
	return rc;
}

/* --update-baseline: rewrite the file from this run, keeping its tolerances and limits (policy,
 * not a measurement), whole or not at all. */
static int update_baseline(const char *path, const struct agbsim_run *runs, size_t n)
{
	struct gate_doc old = {0};
	struct agbsim_output o = {0};
	struct stat sb;
	int rc = AGBSIM_EXIT_OK;
	/* Only a regular file (or a link to one) holds tolerances to keep: a device or FIFO is
	 * written through, never read (a FIFO would block, /dev/full reads as endless zeros). */
	if (stat(path, &sb) == 0 ? S_ISREG(sb.st_mode) : errno != ENOENT)
		rc = load_doc(&old, path);
	if (rc == AGBSIM_EXIT_OK)
		rc = agbsim_output_open(&o, path);
	if (rc == AGBSIM_EXIT_OK) {
		int bad = agbsim_bench_write_json(
			o.f, runs, n, cJSON_GetObjectItemCaseSensitive(old.root, "tolerances"),
			cJSON_GetObjectItemCaseSensitive(old.root, "limits"));
		if (bad)
			agbsim_error("%s: out of memory keeping the tolerances", path);
		rc = agbsim_output_close(&o, !bad);
		if (bad)
			rc = AGBSIM_EXIT_IO;
	}
	if (rc == AGBSIM_EXIT_OK)
		fprintf(stderr, "agbsim: wrote baseline %s (%zu runs)\n", path, n);
	free_doc(&old);
	return rc;
}

int agbsim_gate(FILE *out, const struct agbsim_run *runs, size_t n,
		const struct agbsim_gate_options *opt)
{
	struct agbsim_gate_result g = {.baseline = opt->baseline_path,
				       .runs = runs,
				       .n = n,
				       .allow_missing = opt->allow_missing,
				       .site = agbsim_trace_site};
	int rc = AGBSIM_EXIT_OK;
	if (agbsim_gate_find_ungated(opt->traces, opt->trace_paths, opt->n_traces, runs, n,
				     &g.ungated) != 0)
		rc = AGBSIM_EXIT_IO;
	agbsim_gate_warn_ungated(&g.ungated);
	if (rc == AGBSIM_EXIT_OK && opt->baseline_path != NULL)
		rc = gate_compare(out, &g, opt);
	if ((rc == AGBSIM_EXIT_OK || rc == AGBSIM_EXIT_REGRESSION) && opt->update_path != NULL) {
		int urc = update_baseline(opt->update_path, runs, n);
		if (urc != AGBSIM_EXIT_OK)
			rc = urc;
	}
	agbsim_gate_result_free(&g);
	return rc;
}

/* "TRACE/ALLOCATOR" plus, when metric is not NULL, " METRIC": the export's names. */
static char *pair_name(const struct agbsim_run *r, const char *metric)
{
	const char *trace = agbsim_trace_name(r);
	size_t len = strlen(trace) + strlen(r->core->name) + (metric ? strlen(metric) : 0) + 3;
	char *s = malloc(len);
	if (s != NULL)
		snprintf(s, len, "%s/%s%s%s", trace, r->core->name, metric ? " " : "",
			 metric ? metric : "");
	return s;
}

/* One run's metrics: BMF's {"METRIC": {"value": V}} members, or gab's array entries. */
static int export_run(struct agbsim_json *w, int bmf, const struct agbsim_run *r)
{
	for (size_t k = 0; k < agbsim_metric_count; k++) {
		const struct agbsim_metric_def *d = &agbsim_metric_defs[k];
		double v;
		if (agbsim_metric_of_run(r, d, &v) != 1)
			continue;
		if (bmf) {
			agbsim_json_key(w, d->name);
			agbsim_json_object(w, AGBSIM_JSON_INLINE);
		} else {
			char *name = pair_name(r, d->name);
			if (name == NULL)
				return -1;
			agbsim_json_object(w, AGBSIM_JSON_INLINE);
			agbsim_json_member_string(w, "name", name);
			free(name);
			agbsim_json_member_string(w, "unit", d->unit);
		}
		agbsim_json_key(w, "value");
		agbsim_json_sig(w, v, 6);
		agbsim_json_end(w);
	}
	return 0;
}

int agbsim_export(FILE *out, const char *format, const struct agbsim_run *runs, size_t n)
{
	int bmf = strcmp(format, "bmf") == 0;
	struct agbsim_json w;
	if (!bmf && strcmp(format, "gab") != 0)
		return -1;
	agbsim_json_init(&w, out);
	if (bmf)
		agbsim_json_object(&w, AGBSIM_JSON_LINES);
	else
		agbsim_json_array(&w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < n; i++) {
		if (runs[i].status != AGBSIM_EXIT_OK)
			continue;
		if (bmf) {
			char *key = pair_name(&runs[i], NULL);
			if (key == NULL)
				return -1;
			agbsim_json_key(&w, key);
			free(key);
			agbsim_json_object(&w, AGBSIM_JSON_LINES);
		}
		if (export_run(&w, bmf, &runs[i]) != 0)
			return -1;
		if (bmf)
			agbsim_json_end(&w);
	}
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
	return 0;
}
