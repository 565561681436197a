/* What the gate says about traces rather than pairs: the traces no selected core ran (so
 * nothing of them is gated), and the traces whose workload differs from the baseline's (so
 * their figures moved because the trace changed, not only the cores). */
#ifndef AGBSIM_GATE_TRACES_H
#define AGBSIM_GATE_TRACES_H

#include <stddef.h>

#include "cli/agbsim.h"
#include "gate/gate_metrics.h"
#include "trace/trace_load.h"

/* A trace of the bench with no run that produced numbers. */
struct agbsim_ungated {
	const char *trace, *path; /* borrowed from the bench */
	enum agb_arena arena;
	char why[1024];
};

struct agbsim_ungated_list {
	struct agbsim_ungated *v;
	size_t n, cap;
};

/* Every trace of traces[0..n_traces) (paths[i] its file) that no run of runs[0..n) replayed
 * with numbers, in trace order, with why: no chosen core manages its arena (naming the cores
 * that do), or every chosen core that was tried could not run it (their errors). Returns 0, or
 * -1 when out of memory. O(traces x runs). */
int agbsim_gate_find_ungated(const struct agb_loaded_trace *traces, char *const *paths,
			     size_t n_traces, const struct agbsim_run *runs, size_t n,
			     struct agbsim_ungated_list *out);

/* The workload facts a bench result records for a run and that belong to its trace, not to
 * the core: event counts, and the peak live bytes and the bytes live at the end (compared only on
 * a pair with no failed request on either side: a failed alloc is not live). NULL-terminated. */
extern const char *const agbsim_workload_facts[];

/* The leaks among workload findings: live_bytes_end higher now than in the baseline (copied
 * into out). Returns 0, or -1 when out of memory. O(findings). */
int agbsim_gate_leaks(const struct agbsim_findings *workload, struct agbsim_findings *out);

/* Two traces with the same name (their "name", else their path) would make one baseline key:
 * AGBSIM_EXIT_USAGE after an error naming both files, else AGBSIM_EXIT_OK. O(n^2). */
int agbsim_gate_unique_names(const struct agb_loaded_trace *traces, char *const *paths, size_t n);

/* For each trace of runs (in run order, once), its workload facts against the baseline's,
 * read on one pair both sides replayed (a pair with no failures when there is one): a finding
 * (trace, that pair's core, the fact, before, now) for each fact that differs. Returns 0, or -1
 * when out of memory. O(runs^2 + runs x baseline runs). */
int agbsim_gate_workload_changes(const cJSON *base_runs, const struct agbsim_run *runs, size_t n,
				 struct agbsim_findings *out);

#endif
