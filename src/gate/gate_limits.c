/* Absolute limits of the gate (gate_limits.h). */
#include "gate/gate_limits.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gba_only.h"

const char *agbsim_limit_op_text(enum agbsim_limit_op op)
{
	return op == LIMIT_AT_MOST ? "<=" : ">=";
}

static int fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Copies [s, s + len) into dst (size n) as a string. Returns 0, or -1 when empty or too long. */
static int copy_part(char *dst, size_t n, const char *s, size_t len)
{
	if (len == 0 || len >= n)
		return -1;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* The comparison "<=" or ">=" in text: its position, or NULL. The first one counts. */
static const char *find_op(const char *text, enum agbsim_limit_op *op)
{
	const char *le = strstr(text, "<="), *ge = strstr(text, ">=");
	if (le == NULL && ge == NULL)
		return NULL;
	*op = ge == NULL || (le != NULL && le < ge) ? LIMIT_AT_MOST : LIMIT_AT_LEAST;
	return *op == LIMIT_AT_MOST ? le : ge;
}

/* "TRACE:CORE:METRIC" or "METRIC" (sel, len bytes) into the three patterns. The metric is
 * after the last ':', the core between the last two (a core name has no ':'), the trace is the
 * rest (a trace's name may). Returns 0, or -1 with why set. */
static int split_selector(const char *sel, size_t len, struct agbsim_limit *out, char *why,
			  size_t n)
{
	const char *last = NULL, *prev = NULL;
	for (const char *c = sel; c < sel + len; c++)
		if (*c == ':') {
			prev = last;
			last = c;
		}
	if (last == NULL) {
		strcpy(out->trace, "*");
		strcpy(out->core, "*");
		return copy_part(out->metric, sizeof out->metric, sel, len) == 0
			       ? 0
			       : fail(why, n, "no metric, or a metric name too long");
	}
	if (prev == NULL)
		return fail(why, n, "a scope is TRACE:CORE: ('*' for any), not '%.*s:'",
			    (int)(last - sel), sel);
	if (copy_part(out->trace, sizeof out->trace, sel, (size_t)(prev - sel)) != 0 ||
	    copy_part(out->core, sizeof out->core, prev + 1, (size_t)(last - prev - 1)) != 0)
		return fail(why, n, "an empty or too long trace or core in the scope (use '*' for any)");
	if (copy_part(out->metric, sizeof out->metric, last + 1, (size_t)(sel + len - last - 1)) != 0)
		return fail(why, n, "no metric, or a metric name too long");
	return 0;
}

/* A core pattern names a core (or is a '*' pattern): a misspelt core must not pass unseen. */
static int core_is_known(const char *pattern)
{
	if (strchr(pattern, '*') != NULL)
		return 1;
	return agb_heap_core_find(pattern) != NULL || agb_reference_core_find(pattern) != NULL;
}

int agbsim_limit_parse(const char *text, struct agbsim_limit *out, char *why, size_t why_size)
{
	const char *op = find_op(text, &out->op);
	char *end;
	if (op == NULL)
		return fail(why, why_size,
			    "a limit is [TRACE:CORE:]METRIC<=VALUE or ...>=VALUE, not '%s'", text);
	errno = 0;
	out->value = strtod(op + 2, &end);
	if (end == op + 2 || *end != '\0' || errno != 0 || !isfinite(out->value))
		return fail(why, why_size, "the limit's value must be a number, not '%s'", op + 2);
	if (split_selector(text, (size_t)(op - text), out, why, why_size) != 0)
		return -1;
	if (!agbsim_metric_pattern_known(out->metric))
		return fail(why, why_size, "unknown metric '%s' in limit '%s'", out->metric, text);
	if (!core_is_known(out->core))
		return fail(why, why_size, "unknown allocator '%s' in limit '%s' (see 'agbsim list')",
			    out->core, text);
	out->text = text;
	return 0;
}

/* Whether value v (null: no value, worse than any number) breaks the limit. */
static int breaks(const struct agbsim_limit *l, double v, int is_null)
{
	if (l->op == LIMIT_AT_MOST)
		return is_null || v > l->value;
	return !is_null && v < l->value;
}

/* One limit against one run: every metric it names. Returns the values checked, or -1 when
 * out of memory. */
static long check_run(const struct agbsim_limit *l, const struct agbsim_run *r,
		      struct agbsim_limit_report *out)
{
	long checked = 0;
	for (size_t k = 0; k < agbsim_metric_count; k++) {
		const struct agbsim_metric_def *d = &agbsim_metric_defs[k];
		double v = 0;
		int has;
		if (!agbsim_metric_pattern_matches(l->metric, d->name))
			continue;
		has = agbsim_metric_of_run(r, d, &v);
		if (has < 0)
			continue;
		checked++;
		if (breaks(l, v, has == 0) &&
		    agbsim_findings_add(&out->hits,
					(struct agbsim_finding){agbsim_trace_name(r), r->core->name,
								d->name, l->value, v, 0, has == 0,
								l}) != 0)
			return -1;
	}
	return checked;
}

int agbsim_limits_check(const struct agbsim_limit *limits, size_t n_limits,
			const struct agbsim_run *runs, size_t n, struct agbsim_limit_report *out)
{
	for (size_t i = 0; i < n_limits; i++) {
		const struct agbsim_limit *l = &limits[i];
		size_t checked = 0;
		for (size_t k = 0; k < n; k++) {
			long c;
			if (runs[k].status != AGBSIM_EXIT_OK ||
			    !agbsim_metric_pattern_matches(l->trace, agbsim_trace_name(&runs[k])) ||
			    !agbsim_metric_pattern_matches(l->core, runs[k].core->name))
				continue;
			c = check_run(l, &runs[k], out);
			if (c < 0)
				return -1;
			checked += (size_t)c;
		}
		if (checked == 0)
			fprintf(stderr, "agbsim: warning: limit '%s' (%s) applies to no pair of this run\n",
				l->text, l->origin);
		out->n_checked += checked;
	}
	return 0;
}

void agbsim_limit_report_free(struct agbsim_limit_report *r)
{
	free(r->hits.v);
	r->hits = (struct agbsim_findings){0};
}
