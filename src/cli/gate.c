/* The regression gate. agbsim's figures are deterministic (no wall-clock), so a baseline can be
 * compared exactly; tolerances exist for deliberate slack, not for noise. */
#include "cli/gate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace/json_util.h"

/* Every compared metric is "lower is better". Names as users write them (dots); the JSON path
 * is the same with '/'. Default tolerances: counts and bytes exact, ratios to 5e-4 (the JSON
 * carries 6 decimals), cycles exact too: the model is deterministic. */
struct metric_def {
	const char *name;
	double rel, abs;
	const char *unit;
};

static const struct metric_def metric_defs[] = {
	{"failures", 0, 0, "count"},
	{"frag_failures", 0, 0, "count"},
	{"corrupted_bytes", 0, 0, "bytes"},
	{"min_arena_bytes", 0, 0, "bytes"},
	{"overhead_bytes", 0, 0, "bytes"},
	{"internal_bytes", 0, 0, "bytes"},
	{"frag_external.mean", 0, 5e-4, "ratio"},
	{"frag_external.max", 0, 5e-4, "ratio"},
	{"frag_umm.mean", 0, 5e-4, "ratio"},
	{"tile_failures", 0, 0, "count"},
	{"tile_uploads", 0, 0, "count"},
	{"cycles.alloc.mean", 0, 0.05, "cycles"},
	{"cycles.alloc.p99", 0, 0, "cycles"},
	{"cycles.alloc.max", 0, 0, "cycles"},
	{"cycles.free.mean", 0, 0.05, "cycles"},
	{"cycles.free.p99", 0, 0, "cycles"},
	{"cycles.free.max", 0, 0, "cycles"},
	{"cycles.realloc.mean", 0, 0.05, "cycles"},
	{"cycles.realloc.max", 0, 0, "cycles"},
	{"cycles.ref.mean", 0, 0.05, "cycles"},
	{"cycles.ref.max", 0, 0, "cycles"},
	{"cycles.unref.mean", 0, 0.05, "cycles"},
	{"cycles.unref.max", 0, 0, "cycles"},
	{"cycles.all_ops.mean", 0, 0.05, "cycles"},
	{"cycles.all_ops.p99", 0, 0, "cycles"},
	{"cycles.all_ops.max", 0, 0, "cycles"},
	{"cycles.frame.max", 0, 0, "cycles"},
	{"cycles.total", 0, 0, "cycles"},
};
#define METRIC_COUNT (sizeof metric_defs / sizeof metric_defs[0])

struct tolerance {
	double rel, abs;
};

struct finding {
	const char *trace, *allocator, *metric;
	double base, now; /* NAN: null (no value, e.g. no arena size works) or n/a */
	int base_null, now_null;
};

struct findings {
	struct finding *v;
	size_t n, cap;
};

static int add_finding(struct findings *f, struct finding x)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;
		struct finding *nv = realloc(f->v, cap * sizeof *nv);
		if (nv == NULL)
			return -1;
		f->v = nv;
		f->cap = cap;
	}
	f->v[f->n++] = x;
	return 0;
}

void agbsim_bench_write_json(FILE *out, const struct agbsim_run *runs, size_t n,
			     const char *tolerance_section)
{
	fprintf(out, "{\n  \"agbsim_bench\": 1,\n  \"cycles\": \"%s\",\n",
		n ? runs[0].cycle_source : "model");
	if (tolerance_section != NULL)
		fprintf(out, "  \"tolerances\": %s,\n", tolerance_section);
	fputs("  \"runs\": [\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct agbsim_run *r = &runs[i];
		if (r->status == AGBSIM_EXIT_OK) {
			agbsim_report_json_run(out, r, "    ");
		} else {
			fprintf(out, "    {\"trace\": \"%s\", \"path\": \"%s\", \"allocator\": \"%s\", "
				     "\"arena\": \"%s\", \"error\": \"",
				r->trace->name ? r->trace->name : r->trace_path, r->trace_path,
				r->core->name, agb_arena_name(r->trace->arena));
			for (const char *c = r->error; *c; c++)
				if (*c == '"' || *c == '\\')
					fprintf(out, "\\%c", *c);
				else
					fputc(*c, out);
			fputs("\"}", out);
		}
		fputs(i + 1 < n ? ",\n" : "\n", out);
	}
	fputs("  ]\n}\n", out);
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

/* The value at a dotted metric name: 1 with *v set, 0 for JSON null, -1 when absent. */
static int metric_value(const cJSON *run, const char *name, double *v)
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

static int pattern_matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	if (n > 0 && pattern[n - 1] == '*')
		return strncmp(pattern, name, n - 1) == 0;
	return strcmp(pattern, name) == 0;
}

static int pattern_is_known(const char *pattern)
{
	for (size_t i = 0; i < METRIC_COUNT; i++)
		if (pattern_matches(pattern, metric_defs[i].name))
			return 1;
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

/* Loads and checks the shape of a bench result document. */
static int load_doc(struct gate_doc *d, const char *path)
{
	struct agb_diag diag;
	int st;
	memset(d, 0, sizeof *d);
	d->path = path;
	d->text = read_file(path, &d->len);
	if (d->text == NULL) {
		agbsim_error("%s: cannot open: %s", path, strerror(errno));
		return AGBSIM_EXIT_IO;
	}
	st = agb_json_parse(path, d->text, d->len, &d->root, &diag);
	if (st != AGB_LOAD_OK) {
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
			for (size_t k = 0; k < METRIC_COUNT; k++) {
				double v;
				if (metric_value(r, metric_defs[k].name, &v) == -2) {
					char mp[160];
					snprintf(mp, sizeof mp, "%s/", jp);
					for (const char *c = metric_defs[k].name; *c; c++) {
						size_t l = strlen(mp);
						mp[l] = *c == '.' ? '/' : *c;
						mp[l + 1] = '\0';
					}
					return doc_error(d, mp, "\"%s\" must be a number or null",
							 metric_defs[k].name);
				}
			}
			i++;
		}
	}
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
			if (!pattern_is_known(t->string))
				return doc_error(d, jp, "unknown metric \"%s\" in tolerances", t->string);
			if (cJSON_IsNumber(t) ? t->valuedouble < 0
					      : (!cJSON_IsString(t) ||
						 parse_tolerance_text(t->valuestring, &x) != 0))
				return doc_error(d, jp,
						 "tolerance must be a number (absolute) or \"N%%\" (relative)");
		}
	}
	return AGBSIM_EXIT_OK;
}

static void free_doc(struct gate_doc *d)
{
	cJSON_Delete(d->root);
	free(d->text);
}

static const cJSON *find_run(const cJSON *runs, const char *trace, const char *allocator)
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
	for (size_t i = 0; i < METRIC_COUNT; i++)
		if (strcmp(metric_defs[i].name, metric) == 0)
			t = (struct tolerance){metric_defs[i].rel, metric_defs[i].abs};
	cJSON_ArrayForEach(e, section)
	{
		if (!pattern_matches(e->string, metric))
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
		if (pattern_matches(pat, metric))
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

static void fmt_change(char *buf, size_t n, const struct finding *f)
{
	if (f->base_null || f->now_null)
		snprintf(buf, n, "%s", f->now_null ? "now null" : "was null");
	else if (f->base == 0)
		snprintf(buf, n, "%+g", f->now - f->base);
	else
		snprintf(buf, n, "%+.2f%%", (f->now - f->base) * 100.0 / fabs(f->base));
}

static void print_findings(FILE *out, const char *title, const struct findings *f, int md)
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
		const struct finding *x = &f->v[i];
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

static void print_pairs(FILE *out, const char *title, const struct findings *f, int md)
{
	if (f->n == 0)
		return;
	fprintf(out, md ? "\n**%s**\n\n" : "\n%s\n", title);
	for (size_t i = 0; i < f->n; i++)
		fprintf(out, md ? "- %s / %s%s%s\n" : "  %s / %s%s%s\n", f->v[i].trace,
			f->v[i].allocator, f->v[i].metric ? ": " : "",
			f->v[i].metric ? f->v[i].metric : "");
}

static void json_findings(FILE *out, const char *key, const struct findings *f, int last)
{
	fprintf(out, "  \"%s\": [", key);
	for (size_t i = 0; i < f->n; i++) {
		const struct finding *x = &f->v[i];
		char b[32], nw[32];
		fmt_value(b, sizeof b, x->base, x->base_null);
		fmt_value(nw, sizeof nw, x->now, x->now_null);
		fprintf(out, "%s\n    {\"trace\": \"%s\", \"allocator\": \"%s\"", i ? "," : "",
			x->trace, x->allocator);
		if (x->metric != NULL)
			fprintf(out, ", \"metric\": \"%s\", \"baseline\": %s, \"now\": %s", x->metric, b,
				nw);
		fputc('}', out);
	}
	fprintf(out, "%s]%s\n", f->n ? "\n  " : "", last ? "" : ",");
}

static void report(FILE *out, int md, const char *baseline, const struct findings *reg,
		   const struct findings *imp, const struct findings *missing,
		   const struct findings *added, size_t compared, int allow_missing)
{
	int failed = reg->n != 0 || (missing->n != 0 && !allow_missing);
	if (md)
		fprintf(out, "### agbsim gate: %s\n\n", failed ? "regression" : "ok");
	fprintf(out, "%sagbsim gate: %s — %zu pairs compared with %s: %zu regressed metrics, %zu "
		     "improved beyond tolerance, %zu pairs missing, %zu new%s\n",
		md ? "" : "", failed ? "FAIL" : "ok", compared, baseline, reg->n, imp->n,
		missing->n, added->n, md ? "" : "");
	print_findings(out, "Regressed (worse than the baseline beyond tolerance)", reg, md);
	print_findings(out, "Improved beyond tolerance (refresh the baseline with --update-baseline)",
		       imp, md);
	print_pairs(out,
		    allow_missing ? "Missing from this run (allowed by --allow-missing)"
				  : "Missing from this run (a failure; --allow-missing accepts it)",
		    missing, md);
	print_pairs(out, "New in this run (not in the baseline)", added, md);
}

int agbsim_gate(FILE *out, const struct agbsim_run *runs, size_t n,
		const struct agbsim_gate_options *opt)
{
	struct gate_doc base = {0}, cur = {0};
	struct findings reg = {0}, imp = {0}, missing = {0}, added = {0};
	char *mem = NULL;
	size_t mem_len = 0, compared = 0;
	int rc = AGBSIM_EXIT_OK;
	FILE *ms;

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
		if (!pattern_is_known(pat))
			return agbsim_usage_error("bench", "--tolerance: unknown metric '%s'", pat);
	}

	/* The current run as the same JSON a baseline holds: one comparison path for both. */
	ms = open_memstream(&mem, &mem_len);
	if (ms == NULL)
		return AGBSIM_EXIT_IO;
	agbsim_bench_write_json(ms, runs, n, NULL);
	fclose(ms);
	{
		struct agb_diag diag;
		cur.path = "<this run>";
		cur.text = mem;
		cur.len = mem_len;
		if (agb_json_parse(cur.path, mem, mem_len, &cur.root, &diag) != AGB_LOAD_OK) {
			agbsim_error("internal error: bench JSON does not parse");
			free(mem);
			return AGBSIM_EXIT_IO;
		}
		cur.runs = cJSON_GetObjectItemCaseSensitive(cur.root, "runs");
	}

	if (opt->baseline_path != NULL) {
		const cJSON *r, *section;
		rc = load_doc(&base, opt->baseline_path);
		if (rc != AGBSIM_EXIT_OK)
			goto done;
		section = cJSON_GetObjectItemCaseSensitive(base.root, "tolerances");
		cJSON_ArrayForEach(r, base.runs)
		{
			const char *trace = str_of(r, "trace"), *alloc = str_of(r, "allocator");
			const cJSON *now = find_run(cur.runs, trace, alloc);
			if (now == NULL) {
				add_finding(&missing, (struct finding){trace, alloc, NULL, 0, 0, 0, 0});
				continue;
			}
			if (cJSON_GetObjectItemCaseSensitive(now, "error") != NULL &&
			    cJSON_GetObjectItemCaseSensitive(r, "error") == NULL) {
				add_finding(&reg, (struct finding){trace, alloc, "run (now n/a)", 0, 0, 0, 1});
				continue;
			}
			compared++;
			for (size_t k = 0; k < METRIC_COUNT; k++) {
				const char *metric = metric_defs[k].name;
				double b = 0, c = 0;
				int hb = metric_value(r, metric, &b), hc = metric_value(now, metric, &c);
				struct tolerance t;
				struct finding f = {trace, alloc, metric, b, c, hb == 0, hc == 0};
				if (hb < 0 || hc < 0)
					continue; /* not measured on one side (e.g. no realloc) */
				if (hb == 0 || hc == 0) {
					/* null = no arena size works: worse than any number */
					if (hb != hc)
						add_finding(hc == 0 ? &reg : &imp, f);
					continue;
				}
				t = tolerance_for(metric, section, opt);
				{
					double slack = fmax(t.abs, t.rel * fabs(b));
					if (c > b + slack + 1e-9)
						add_finding(&reg, f);
					else if (c < b - slack - 1e-9)
						add_finding(&imp, f);
				}
			}
		}
		cJSON_ArrayForEach(r, cur.runs)
		{
			const char *trace = str_of(r, "trace"), *alloc = str_of(r, "allocator");
			if (find_run(base.runs, trace, alloc) == NULL)
				add_finding(&added, (struct finding){trace, alloc, NULL, 0, 0, 0, 0});
		}
		report(out, opt->format == FORMAT_MD, opt->baseline_path, &reg, &imp, &missing, &added,
		       compared, opt->allow_missing);
		{
			const char *summary = getenv("GITHUB_STEP_SUMMARY");
			if (summary != NULL && *summary != '\0') {
				FILE *s = fopen(summary, "a");
				if (s != NULL) {
					report(s, 1, opt->baseline_path, &reg, &imp, &missing, &added,
					       compared, opt->allow_missing);
					fclose(s);
				}
			}
		}
		if (opt->diff_out != NULL) {
			FILE *d = fopen(opt->diff_out, "w");
			if (d == NULL) {
				agbsim_error("%s: cannot write: %s", opt->diff_out, strerror(errno));
				rc = AGBSIM_EXIT_IO;
				goto done;
			}
			fprintf(d, "{\n  \"baseline\": \"%s\",\n  \"pairs_compared\": %zu,\n",
				opt->baseline_path, compared);
			json_findings(d, "regressions", &reg, 0);
			json_findings(d, "improvements", &imp, 0);
			json_findings(d, "missing", &missing, 0);
			json_findings(d, "new", &added, 1);
			fputs("}\n", d);
			if (fclose(d) != 0) {
				rc = AGBSIM_EXIT_IO;
				goto done;
			}
		}
		if (reg.n != 0 || (missing.n != 0 && !opt->allow_missing))
			rc = AGBSIM_EXIT_REGRESSION;
	}

	if (opt->update_path != NULL) {
		/* Keep the baseline's own tolerance section: it is policy, not a measurement. */
		struct gate_doc old = {0};
		char *section = NULL, tmp[4096];
		FILE *f;
		if (fopen(opt->update_path, "r") != NULL || errno != ENOENT) {
			int st = load_doc(&old, opt->update_path);
			if (st != AGBSIM_EXIT_OK) {
				free_doc(&old);
				rc = st;
				goto done;
			}
			{
				const cJSON *tol = cJSON_GetObjectItemCaseSensitive(old.root, "tolerances");
				if (tol != NULL)
					section = cJSON_Print(tol);
			}
			free_doc(&old);
		}
		snprintf(tmp, sizeof tmp, "%s.part", opt->update_path);
		f = fopen(tmp, "w");
		if (f == NULL) {
			agbsim_error("%s: cannot write: %s", opt->update_path, strerror(errno));
			free(section);
			rc = AGBSIM_EXIT_IO;
			goto done;
		}
		agbsim_bench_write_json(f, runs, n, section);
		free(section);
		if (fclose(f) != 0 || rename(tmp, opt->update_path) != 0) {
			agbsim_error("%s: cannot write: %s", opt->update_path, strerror(errno));
			remove(tmp);
			rc = AGBSIM_EXIT_IO;
			goto done;
		}
		fprintf(stderr, "agbsim: wrote baseline %s (%zu runs)\n", opt->update_path, n);
	}
done:
	free(reg.v);
	free(imp.v);
	free(missing.v);
	free(added.v);
	if (base.root != NULL || base.text != NULL)
		free_doc(&base);
	cJSON_Delete(cur.root);
	free(mem);
	return rc;
}

int agbsim_export(FILE *out, const char *format, const struct agbsim_run *runs, size_t n)
{
	int bmf = strcmp(format, "bmf") == 0, gab = strcmp(format, "gab") == 0;
	char *mem = NULL;
	size_t mem_len = 0;
	struct agb_diag diag;
	cJSON *root = NULL;
	const cJSON *r;
	FILE *ms;
	int first = 1;
	if (!bmf && !gab)
		return -1;
	ms = open_memstream(&mem, &mem_len);
	if (ms == NULL)
		return -1;
	agbsim_bench_write_json(ms, runs, n, NULL);
	fclose(ms);
	if (agb_json_parse("<this run>", mem, mem_len, &root, &diag) != AGB_LOAD_OK) {
		free(mem);
		return -1;
	}
	fputs(bmf ? "{\n" : "[\n", out);
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "runs"))
	{
		const char *trace = str_of(r, "trace"), *alloc = str_of(r, "allocator");
		int first_metric = 1;
		if (cJSON_GetObjectItemCaseSensitive(r, "error") != NULL)
			continue;
		if (bmf)
			fprintf(out, "%s  \"%s/%s\": {", first ? "" : ",\n", trace, alloc);
		for (size_t k = 0; k < METRIC_COUNT; k++) {
			double v;
			if (metric_value(r, metric_defs[k].name, &v) != 1)
				continue;
			if (bmf)
				fprintf(out, "%s\n    \"%s\": {\"value\": %.6g}", first_metric ? "" : ",",
					metric_defs[k].name, v);
			else
				fprintf(out, "%s  {\"name\": \"%s/%s %s\", \"unit\": \"%s\", \"value\": %.6g}",
					first && first_metric ? "" : ",\n", trace, alloc,
					metric_defs[k].name, metric_defs[k].unit, v);
			first_metric = 0;
		}
		if (bmf)
			fputs("\n  }", out);
		first = 0;
	}
	fputs(bmf ? "\n}\n" : "\n]\n", out);
	cJSON_Delete(root);
	free(mem);
	return 0;
}
