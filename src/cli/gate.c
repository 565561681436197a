/* The regression gate. agbsim's figures are deterministic (no wall-clock), so a baseline can be
 * compared exactly; tolerances exist for deliberate slack, not for noise. */
#include "cli/gate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/gate_metrics.h"
#include "cli/json_out.h"
#include "cli/options.h"
#include "trace/json_util.h"

struct tolerance {
	double rel, abs;
};

/* A run that produced no numbers: who, and why. */
static void write_error_run(struct agbsim_json *w, const struct agbsim_run *r)
{
	agbsim_json_object(w, AGBSIM_JSON_INLINE);
	agbsim_json_key(w, "trace");
	agbsim_json_string(w, agbsim_trace_name(r));
	agbsim_json_key(w, "path");
	agbsim_json_string(w, r->trace_path);
	agbsim_json_key(w, "allocator");
	agbsim_json_string(w, r->core->name);
	agbsim_json_key(w, "arena");
	agbsim_json_string(w, agb_arena_name(r->trace->arena));
	agbsim_json_key(w, "error");
	agbsim_json_string(w, r->error);
	agbsim_json_end(w);
}

int agbsim_bench_write_json(FILE *out, const struct agbsim_run *runs, size_t n,
			    const cJSON *tolerances)
{
	struct agbsim_json w;
	int rc = 0;
	agbsim_json_init(&w, out);
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	agbsim_json_key(&w, "agbsim_bench");
	agbsim_json_u32(&w, 1);
	agbsim_json_key(&w, "cycles");
	agbsim_json_string(&w, n ? runs[0].cycle_source : "model");
	if (tolerances != NULL) {
		agbsim_json_key(&w, "tolerances");
		rc = agbsim_json_cjson(&w, tolerances);
		if (rc != 0)
			agbsim_json_null(&w);
	}
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

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (f == NULL)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *nb = realloc(buf, cap ? cap * 2 : 65536);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
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

/* Loads and checks the shape of a bench result document. On failure d still holds what was
 * loaded: free_doc() it either way. */
static int load_doc(struct gate_doc *d, const char *path)
{
	struct agb_diag diag;
	memset(d, 0, sizeof *d);
	d->path = path;
	d->text = read_file(path, &d->len);
	if (d->text == NULL) {
		agbsim_error("%s: cannot open: %s", path, strerror(errno));
		return AGBSIM_EXIT_IO;
	}
	if (agb_json_parse(path, d->text, d->len, &d->root, &diag) != AGB_LOAD_OK) {
		char msg[1024];
		agb_diag_format(&diag, msg, sizeof msg);
		agbsim_error("%s", msg);
		return AGBSIM_EXIT_USAGE;
	}
	if (!cJSON_IsObject(d->root))
		return doc_error(d, "", "a baseline is a JSON object as 'agbsim bench --format=json' writes");
	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(d->root, "agbsim_bench")))
		return doc_error(d, "", "not an agbsim bench result: no \"agbsim_bench\" key");
	d->runs = cJSON_GetObjectItemCaseSensitive(d->root, "runs");
	if (!cJSON_IsArray(d->runs))
		return doc_error(d, d->runs ? "runs" : "", "\"runs\" must be an array of runs");
	if (check_runs(d) != AGBSIM_EXIT_OK)
		return AGBSIM_EXIT_USAGE;
	return check_tolerances(d);
}

static void free_doc(struct gate_doc *d)
{
	cJSON_Delete(d->root);
	free(d->text);
}

static const cJSON *find_base_run(const cJSON *runs, const char *trace, const char *allocator)
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

/* What a comparison found: metrics worse or better beyond tolerance, pairs only on one side. */
struct gate_result {
	struct agbsim_findings reg, imp, missing, added;
	size_t compared;
};

static void free_result(struct gate_result *g)
{
	free(g->reg.v);
	free(g->imp.v);
	free(g->missing.v);
	free(g->added.v);
}

static int gate_failed(const struct gate_result *g, int allow_missing)
{
	return g->reg.n != 0 || (g->missing.n != 0 && !allow_missing);
}

/* The baseline or current figure of a finding: null, an integer, or 4 decimals. */
static void json_finding_value(struct agbsim_json *w, double v, int is_null)
{
	if (is_null)
		agbsim_json_null(w);
	else
		agbsim_json_fixed(w, v, v == floor(v) && fabs(v) < 1e15 ? 0 : 4);
}

static void json_findings(struct agbsim_json *w, const char *key, const struct agbsim_findings *f)
{
	agbsim_json_key(w, key);
	agbsim_json_array(w, AGBSIM_JSON_LINES);
	for (size_t i = 0; i < f->n; i++) {
		const struct agbsim_finding *x = &f->v[i];
		agbsim_json_object(w, AGBSIM_JSON_INLINE);
		agbsim_json_key(w, "trace");
		agbsim_json_string(w, x->trace);
		agbsim_json_key(w, "allocator");
		agbsim_json_string(w, x->allocator);
		if (x->metric != NULL) {
			agbsim_json_key(w, "metric");
			agbsim_json_string(w, x->metric);
			agbsim_json_key(w, "baseline");
			json_finding_value(w, x->base, x->base_null);
			agbsim_json_key(w, "now");
			json_finding_value(w, x->now, x->now_null);
		}
		agbsim_json_end(w);
	}
	agbsim_json_end(w);
}

/* --diff-out: the comparison as JSON, written whole or not at all. */
static int write_diff(const char *path, const char *baseline, const struct gate_result *g)
{
	struct agbsim_output o = {0};
	struct agbsim_json w;
	int rc = agbsim_output_open(&o, path);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	agbsim_json_init(&w, o.f);
	agbsim_json_object(&w, AGBSIM_JSON_LINES);
	agbsim_json_key(&w, "baseline");
	agbsim_json_string(&w, baseline);
	agbsim_json_key(&w, "pairs_compared");
	agbsim_json_size(&w, g->compared);
	json_findings(&w, "regressions", &g->reg);
	json_findings(&w, "improvements", &g->imp);
	json_findings(&w, "missing", &g->missing);
	json_findings(&w, "new", &g->added);
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
	return agbsim_output_close(&o, 1);
}

static void report(FILE *out, int md, const char *baseline, const struct gate_result *g,
		   int allow_missing)
{
	int failed = gate_failed(g, allow_missing);
	if (md)
		fprintf(out, "### agbsim gate: %s\n\n", failed ? "regression" : "ok");
	fprintf(out, "agbsim gate: %s — %zu pairs compared with %s: %zu regressed metrics, %zu "
		     "improved beyond tolerance, %zu pairs missing, %zu new\n",
		failed ? "FAIL" : "ok", g->compared, baseline, g->reg.n, g->imp.n, g->missing.n,
		g->added.n);
	print_findings(out, "Regressed (worse than the baseline beyond tolerance)", &g->reg, md);
	print_findings(out, "Improved beyond tolerance (refresh the baseline with --update-baseline)",
		       &g->imp, md);
	print_pairs(out,
		    allow_missing ? "Missing from this run (allowed by --allow-missing)"
				  : "Missing from this run (a failure; --allow-missing accepts it)",
		    &g->missing, md);
	print_pairs(out, "New in this run (not in the baseline)", &g->added, md);
}

/* On CI (GITHUB_STEP_SUMMARY set), the markdown report is appended to the job summary too. */
static void report_step_summary(const char *baseline, const struct gate_result *g,
				int allow_missing)
{
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	FILE *s;
	if (summary == NULL || *summary == '\0')
		return;
	s = fopen(summary, "a");
	if (s == NULL)
		return;
	report(s, 1, baseline, g, allow_missing);
	fclose(s);
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

/* One metric of one pair: a finding when it moved beyond tolerance. Returns 0, or -1 when out
 * of memory. */
static int compare_metric(struct gate_result *g, const cJSON *base, const struct agbsim_run *now,
			  const struct agbsim_metric_def *d, const cJSON *section,
			  const struct agbsim_gate_options *opt)
{
	double b = 0, c = 0;
	int hb = agbsim_metric_of_json(base, d->name, &b), hc = agbsim_metric_of_run(now, d, &c);
	struct agbsim_finding f = {str_of(base, "trace"), str_of(base, "allocator"), d->name, b, c,
			    hb == 0, hc == 0};
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

/* Every baseline pair against this run, then the pairs only this run has. */
static int compare(struct gate_result *g, const struct gate_doc *base,
		   const struct agbsim_run *runs, size_t n, const struct agbsim_gate_options *opt)
{
	const cJSON *section = cJSON_GetObjectItemCaseSensitive(base->root, "tolerances");
	const cJSON *r;
	int bad = 0;
	cJSON_ArrayForEach(r, base->runs)
	{
		const char *trace = str_of(r, "trace"), *alloc = str_of(r, "allocator");
		const struct agbsim_run *now = find_run(runs, n, trace, alloc);
		if (now == NULL) {
			bad |= agbsim_findings_add(&g->missing, (struct agbsim_finding){trace, alloc, NULL, 0, 0, 0, 0});
			continue;
		}
		if (now->status != AGBSIM_EXIT_OK &&
		    cJSON_GetObjectItemCaseSensitive(r, "error") == NULL) {
			bad |= agbsim_findings_add(&g->reg, (struct agbsim_finding){trace, alloc, "run (now n/a)", 0, 0, 0, 1});
			continue;
		}
		g->compared++;
		for (size_t k = 0; k < agbsim_metric_count; k++)
			bad |= compare_metric(g, r, now, &agbsim_metric_defs[k], section, opt);
	}
	for (size_t i = 0; i < n; i++) {
		const char *trace = agbsim_trace_name(&runs[i]), *alloc = runs[i].core->name;
		if (find_base_run(base->runs, trace, alloc) == NULL)
			bad |= agbsim_findings_add(&g->added, (struct agbsim_finding){trace, alloc, NULL, 0, 0, 0, 0});
	}
	return bad != 0 ? AGBSIM_EXIT_IO : AGBSIM_EXIT_OK;
}

/* --baseline: compare, print the report (and the CI summary, and --diff-out). */
static int gate_compare(FILE *out, const struct agbsim_run *runs, size_t n,
			const struct agbsim_gate_options *opt)
{
	struct gate_doc base;
	struct gate_result g = {0};
	int rc = load_doc(&base, opt->baseline_path);
	if (rc == AGBSIM_EXIT_OK)
		rc = compare(&g, &base, runs, n, opt);
	if (rc == AGBSIM_EXIT_OK) {
		report(out, opt->format == FORMAT_MD, opt->baseline_path, &g, opt->allow_missing);
		report_step_summary(opt->baseline_path, &g, opt->allow_missing);
		if (opt->diff_out != NULL)
			rc = write_diff(opt->diff_out, opt->baseline_path, &g);
	}
	if (rc == AGBSIM_EXIT_OK && gate_failed(&g, opt->allow_missing))
		rc = AGBSIM_EXIT_REGRESSION;
	free_result(&g);
	free_doc(&base);
	return rc;
}

/* --update-baseline: rewrite the file from this run, keeping its tolerance section (policy,
 * not a measurement), whole or not at all. */
static int update_baseline(const char *path, const struct agbsim_run *runs, size_t n)
{
	struct gate_doc old = {0};
	struct agbsim_output o = {0};
	struct stat sb;
	int rc = AGBSIM_EXIT_OK;
	if (stat(path, &sb) == 0 || errno != ENOENT)
		rc = load_doc(&old, path);
	if (rc == AGBSIM_EXIT_OK)
		rc = agbsim_output_open(&o, path);
	if (rc == AGBSIM_EXIT_OK) {
		int bad = agbsim_bench_write_json(
			o.f, runs, n, cJSON_GetObjectItemCaseSensitive(old.root, "tolerances"));
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
	int rc = check_cli_tolerances(opt);
	if (rc == AGBSIM_EXIT_OK && opt->baseline_path != NULL)
		rc = gate_compare(out, runs, n, opt);
	if ((rc == AGBSIM_EXIT_OK || rc == AGBSIM_EXIT_REGRESSION) && opt->update_path != NULL) {
		int urc = update_baseline(opt->update_path, runs, n);
		if (urc != AGBSIM_EXIT_OK)
			rc = urc;
	}
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
			agbsim_json_key(w, "name");
			agbsim_json_string(w, name);
			free(name);
			agbsim_json_key(w, "unit");
			agbsim_json_string(w, d->unit);
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
