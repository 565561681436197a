/* `agbsim bench`'s closing recommendation (bench_recommend.c). */
#ifndef AGBSIM_BENCH_RECOMMEND_H
#define AGBSIM_BENCH_RECOMMEND_H

#include <stddef.h>
#include <stdio.h>

#include "cli/agbsim.h"

/* Prints, for each trace of the n runs (in run order), the smallest pool each core needs
 * (min arena, EWRAM and OBJ VRAM traces) and the fastest core with no failed request at the
 * pool the trace was replayed with (lowest mean cycles over the memory ops; its headroom: pool
 * - its min arena), then the heap with no failures and the lowest worst alloc/free when it is
 * another core. fmt FORMAT_TABLE prints plain lines, FORMAT_MD a list; other formats: nothing
 * should call it. Runs without numbers (n/a) are left out. min_arena_searched 0 (bench
 * --no-min-arena) leaves the smallest pools out: none was looked for. O(n^2) in runs. */
void agbsim_bench_recommend(FILE *out, enum agbsim_format fmt, const struct agbsim_run *runs,
			    size_t n, int min_arena_searched);

#endif
