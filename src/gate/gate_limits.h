/* Absolute limits of the gate: "this metric must stay <= (or >=) this value", on every pair or
 * on some traces and cores, from --limit or the baseline's "limits" section. Unlike a
 * tolerance (how far a metric may move from the baseline), a limit holds whatever the baseline
 * says: the heap a game reserves does not grow because the baseline did.
 *
 * Syntax (README, "Gating CI on the numbers"): [TRACE:CORE:]METRIC<=VALUE or ...>=VALUE.
 * METRIC is a compared metric or a prefix ending in '*'; TRACE and CORE are names, '*' for
 * any, or a prefix ending in '*'. Without a scope the limit applies to every pair. */
#ifndef AGBSIM_GATE_LIMITS_H
#define AGBSIM_GATE_LIMITS_H

#include <stddef.h>

#include "cli/agbsim.h"
#include "gate/gate_metrics.h"

enum agbsim_limit_op { LIMIT_AT_MOST, LIMIT_AT_LEAST };

struct agbsim_limit {
	char trace[256], core[64], metric[64]; /* patterns; "*" when unscoped */
	enum agbsim_limit_op op;
	double value;
	const char *text;   /* as written (borrowed) */
	const char *origin; /* "--limit" or the baseline's path (borrowed) */
};

/* Parses text into *out. Returns 0, or -1 with why[] saying what is wrong (the syntax, an
 * unknown metric, an unknown core). O(length). */
int agbsim_limit_parse(const char *text, struct agbsim_limit *out, char *why, size_t why_size);

/* The limits broken: findings (trace, allocator, metric, the limit's value, the value now, the
 * limit), and how many values were held against a limit. */
struct agbsim_limit_report {
	struct agbsim_findings hits;
	size_t n_checked;
};

/* Holds every run with numbers against each limit that scopes it. A null value (min arena: no
 * arena size works) breaks an upper limit and meets a lower one; a metric the pair does not
 * report (no realloc in the trace) is not checked. Prints a warning on stderr for a limit that
 * applies to no pair of the runs (a misspelt trace must not pass silently). Returns 0, or -1
 * when out of memory. O(limits x runs x metrics). */
int agbsim_limits_check(const struct agbsim_limit *limits, size_t n_limits,
			const struct agbsim_run *runs, size_t n, struct agbsim_limit_report *out);

void agbsim_limit_report_free(struct agbsim_limit_report *r);

/* "<=" or ">=". */
const char *agbsim_limit_op_text(enum agbsim_limit_op op);

#endif
