/* The gate's report (gate.c finds, this prints): the table or markdown report on stdout (and
 * the CI job summary), the --diff-out JSON, and the warning for traces nothing gates. */
#ifndef AGBSIM_GATE_REPORT_H
#define AGBSIM_GATE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "cli/agbsim.h"
#include "gate/gate_limits.h"
#include "gate/gate_metrics.h"
#include "gate/gate_traces.h"
#include "report/sites.h"

/* What a gate run found, and what it compared (borrowed). */
struct agbsim_gate_result {
	const char *baseline;      /* the baseline's path */
	const cJSON *base_runs;    /* its "runs" */
	const struct agbsim_run *runs;
	size_t n;
	int allow_missing;
	struct agbsim_findings reg, imp, missing, added; /* metrics and pairs against the baseline */
	struct agbsim_findings workload;                 /* workload facts that differ */
	struct agbsim_findings leaks;    /* traces with more bytes live at the end (a failure) */
	struct agbsim_findings arena;    /* pairs replayed with another arena size than the
					  * baseline's: not compared (a failure) */
	agbsim_site_fn site;             /* call sites of a leak's live blocks (sites.h) */
	const void *site_ctx;
	struct agbsim_limit_report limits;               /* limits broken */
	size_t n_limits;                                 /* limits held (--limit and the baseline's) */
	struct agbsim_ungated_list ungated;              /* traces no run gates */
	size_t compared;                                 /* pairs compared */
};

void agbsim_gate_result_free(struct agbsim_gate_result *g);

/* 1 when the gate fails: a regression, a leak, an arena that differs from the baseline's, a
 * limit broken, or a pair missing (unless allowed). */
int agbsim_gate_result_failed(const struct agbsim_gate_result *g);

/* The report: the verdict line, then (each only when it has something) the traces whose
 * workload changed, the traces not gated, the limits broken, the regressions, the improvements,
 * the missing and the new pairs; md (a pull-request comment) ends with the figures of every
 * pair, baseline -> now, on a pass as on a failure. O(findings + runs x baseline runs). */
void agbsim_gate_report(FILE *out, int md, const struct agbsim_gate_result *g);

/* On CI (GITHUB_STEP_SUMMARY set), the markdown report appended to the job summary. */
void agbsim_gate_report_step_summary(const struct agbsim_gate_result *g);

/* --diff-out: the comparison as JSON, written whole or not at all. Returns an exit status. */
int agbsim_gate_write_diff(const char *path, const struct agbsim_gate_result *g);

/* One "agbsim: warning: TRACE (PATH) is not gated: WHY" line on stderr per trace. */
void agbsim_gate_warn_ungated(const struct agbsim_ungated_list *u);

#endif
