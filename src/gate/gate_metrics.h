/* The gate's vocabulary (gate.c, gate_limits.c, gate_traces.c): the metrics it compares and
 * where each lives in a run and in a bench result document, and the list of findings a check
 * produces. */
#ifndef AGBSIM_GATE_METRICS_H
#define AGBSIM_GATE_METRICS_H

#include <stddef.h>

#include "cli/agbsim.h"

typedef struct cJSON cJSON;

/* Where a compared metric lives in a run (struct agb_metrics) and when it is in the report:
 * the same presence rules as report.c's JSON, so a run and a baseline written from one compare
 * equal. */
enum agbsim_metric_kind {
	METRIC_U32,       /* a uint32_t of struct agb_metrics, always present */
	METRIC_U64,       /* a uint64_t of struct agb_metrics, always present */
	METRIC_U32_NULL0, /* the same, JSON null when 0 (no arena size works) */
	METRIC_TILE_U32,  /* the same, present for tile (BG VRAM) traces only */
	METRIC_PAL_U32,   /* the same, present for palette (pal_ram) traces only */
	METRIC_CACHE_U32, /* the same, present for runs through the resource cache only */
	METRIC_RATIO,     /* a double of struct agb_metrics, printed with 6 decimals */
	METRIC_OP,        /* a figure of cycles[op], present when that op ran (count != 0) */
	METRIC_ALL_OPS    /* a figure of all_ops, always present */
};

/* One compared metric. Every one is "lower is better". Names as users write them (dots); the
 * JSON path is the same with '/'. rel/abs: the default tolerance. For METRIC_OP and
 * METRIC_ALL_OPS, `at` is the figure's offset in struct agb_cycle_stats. */
struct agbsim_metric_def {
	const char *name;
	double rel, abs;
	const char *unit;
	enum agbsim_metric_kind kind;
	size_t at;
	enum agb_op op;
};

extern const struct agbsim_metric_def agbsim_metric_defs[];
extern const size_t agbsim_metric_count;

/* The value of metric d in run r: 1 with *v set (as the report prints it), 0 for null, -1 when
 * the report leaves it out (a run with no numbers leaves out all of them). O(1). */
int agbsim_metric_of_run(const struct agbsim_run *r, const struct agbsim_metric_def *d, double *v);

/* The value at a dotted metric name in a bench result run object: 1 with *v set, 0 for JSON
 * null, -1 when absent, -2 when present but not a number. O(depth). */
int agbsim_metric_of_json(const cJSON *run, const char *name, double *v);

/* The run of a bench result document's "runs" array with that trace name and core, or NULL.
 * O(runs). */
const cJSON *agbsim_baseline_run(const cJSON *runs, const char *trace, const char *allocator);

/* A pattern (of metrics, or of trace and core names in a limit): a name, or a prefix ending
 * in '*' ("cycles.*"; "*" matches any). Returns 1 on a match. O(length). */
int agbsim_metric_pattern_matches(const char *pattern, const char *name);

/* 1 when the pattern matches at least one compared metric. O(metrics). */
int agbsim_metric_pattern_known(const char *pattern);

struct agbsim_limit;

/* One line of a gate report: a metric (or workload fact) of a pair, before and now. metric NULL:
 * the pair as a whole (missing, new). For a limit broken, base is the limit's value and limit
 * the limit (else NULL). */
struct agbsim_finding {
	const char *trace, *allocator, *metric;
	double base, now; /* the values, unless base_null / now_null */
	int base_null, now_null;
	const struct agbsim_limit *limit;
};

struct agbsim_findings {
	struct agbsim_finding *v;
	size_t n, cap;
};

/* Makes room for element n of the array *v of *cap elements of elem bytes (doubling it, from
 * 32). Returns 0, or -1 when out of memory (*v unchanged). Amortised O(1). */
int agbsim_gate_grow(void **v, size_t *cap, size_t n, size_t elem);

/* Appends x (its strings are borrowed, not copied). Returns 0, or -1 when out of memory.
 * Amortised O(1). */
int agbsim_findings_add(struct agbsim_findings *f, struct agbsim_finding x);

#endif
