/* The regression gate: bench results against a committed baseline (issue: gate CI on numbers). */
#ifndef AGBSIM_GATE_H
#define AGBSIM_GATE_H

#include <stddef.h>
#include <stdio.h>

#include "cli/agbsim.h"

struct agbsim_gate_options {
	const char *baseline_path;   /* compare with this baseline (NULL: no comparison) */
	const char *update_path;     /* rewrite this baseline from the run, keeping tolerances */
	const char *diff_out;        /* write the comparison as JSON here */
	const char **tolerances;     /* "METRIC=REL%" or "METRIC=ABS" overrides, n_tolerances */
	size_t n_tolerances;
	int allow_missing;           /* a pair missing from this run is not a failure */
	enum agbsim_format format;   /* table or md */
};

typedef struct cJSON cJSON;

/* Writes the bench result set as JSON (the baseline format), with a "tolerances" section when
 * tolerances is not NULL. Returns 0, or -1 when the section could not be printed (out of
 * memory; it is written as null then). */
int agbsim_bench_write_json(FILE *out, const struct agbsim_run *runs, size_t n,
			    const cJSON *tolerances);

/* Compares runs with the baseline and/or rewrites it, printing the comparison to out.
 * Returns AGBSIM_EXIT_OK, AGBSIM_EXIT_REGRESSION when a metric got worse beyond tolerance or
 * a baseline pair is missing (unless allow_missing), AGBSIM_EXIT_USAGE for a bad baseline or
 * tolerance (with FILE:LINE:COL), AGBSIM_EXIT_IO when a file cannot be read or written. */
int agbsim_gate(FILE *out, const struct agbsim_run *runs, size_t n,
		const struct agbsim_gate_options *opt);

/* --export=bmf|gab: the run as Bencher Metric Format or github-action-benchmark
 * customSmallerIsBetter JSON. Returns 0, or -1 for an unknown format. */
int agbsim_export(FILE *out, const char *format, const struct agbsim_run *runs, size_t n);

#endif
