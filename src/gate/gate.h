/* The regression gate: bench results against a committed baseline (issue: gate CI on numbers). */
#ifndef AGBSIM_GATE_H
#define AGBSIM_GATE_H

#include <stddef.h>
#include <stdio.h>

#include "cli/agbsim.h"
#include "trace/trace_load.h"

struct agbsim_gate_options {
	const char *baseline_path;   /* compare with this baseline (NULL: no comparison) */
	const char *update_path;     /* rewrite this baseline from the run, keeping tolerances */
	const char *diff_out;        /* write the comparison as JSON here */
	const char **tolerances;     /* "METRIC=REL%" or "METRIC=ABS" overrides, n_tolerances */
	size_t n_tolerances;
	const char **limits;         /* --limit "[TRACE:CORE:]METRIC<=VALUE" (or >=), n_limits */
	size_t n_limits;
	int allow_missing;           /* a pair missing from this run is not a failure */
	enum agbsim_format format;   /* table or md */
	/* Every trace of the bench (n_traces, trace_paths[i] the file of traces[i]): a trace no
	 * run covers is named as not gated. */
	const struct agb_loaded_trace *traces;
	char *const *trace_paths;
	size_t n_traces;
};

typedef struct cJSON cJSON;

/* Writes the bench result set as JSON (the baseline format), with a "tolerances" section when
 * tolerances is not NULL and a "limits" section (an array of strings, checked) when limits is
 * not NULL. Returns 0, or -1 when the tolerances could not be printed (out of memory; they are
 * written as null then). */
int agbsim_bench_write_json(FILE *out, const struct agbsim_run *runs, size_t n,
			    const cJSON *tolerances, const cJSON *limits);

/* The command line's --tolerance and --limit values: known metrics (and cores), the right
 * syntax. Returns AGBSIM_EXIT_OK, or AGBSIM_EXIT_USAGE after printing why. O(options). */
int agbsim_gate_check_options(const struct agbsim_gate_options *opt);

/* Compares runs with the baseline and/or rewrites it, printing the comparison to out, after a
 * warning on stderr for each trace no run covers (opt checked by agbsim_gate_check_options).
 * Returns AGBSIM_EXIT_OK, AGBSIM_EXIT_REGRESSION when a metric got worse beyond tolerance, a
 * limit is exceeded or a baseline pair is missing (unless allow_missing), AGBSIM_EXIT_USAGE
 * for a bad baseline (with FILE:LINE:COL), AGBSIM_EXIT_IO when a file cannot be read or
 * written. */
int agbsim_gate(FILE *out, const struct agbsim_run *runs, size_t n,
		const struct agbsim_gate_options *opt);

/* --export=bmf|gab: the run as Bencher Metric Format or github-action-benchmark
 * customSmallerIsBetter JSON. Returns 0, or -1 for an unknown format. */
int agbsim_export(FILE *out, const char *format, const struct agbsim_run *runs, size_t n);

#endif
