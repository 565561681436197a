/* `agbsim bench --arena-bytes=LIST`: the memory-vs-time trade-off curve of a resource cache
 * (bench_curve.c): one table row per (trace, core, pool size), and --plot's picture. */
#ifndef AGBSIM_BENCH_CURVE_H
#define AGBSIM_BENCH_CURVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/agbsim.h"

#define AGBSIM_CURVE_MAX_POOLS 32u

/* Parses "8K,12K,16384,...": 1..AGBSIM_CURVE_MAX_POOLS sizes in bytes (N, NK for KiB),
 * each 1..region. Returns AGBSIM_EXIT_OK with *n sizes, else AGBSIM_EXIT_USAGE after
 * printing why (as `bench`). O(length). */
int agbsim_curve_parse_pools(const char *arg, uint32_t *pools, size_t *n);

/* The curve table: for each run (grouped as planned: trace, core, then pool size) the pool,
 * hit rate, misses, nopes, evictions (blocked), thrash, load cycles per frame and the worst
 * frame; runs without a cache show their failures instead; n/a runs say why. */
void agbsim_curve_table(FILE *out, const struct agbsim_run *runs, size_t n);

/* Writes the curve of the runs through a cache as a PNG (agb_view_plot_curves). Returns
 * AGBSIM_EXIT_OK, or AGBSIM_EXIT_IO after printing why (also when agbsim was built without the
 * viewer, or no run went through a cache). */
int agbsim_curve_plot(const char *path, const struct agbsim_run *runs, size_t n);

#endif
