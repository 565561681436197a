/* The HTML report (docs/html-report.md): one self-contained file, inline CSS and SVG, no
 * script from anywhere and no network, that opens from a CI artifact. */
#ifndef AGBSIM_HTML_REPORT_H
#define AGBSIM_HTML_REPORT_H

#include <stddef.h>

#include "cli/agbsim.h"

/* One replay (replay --html): live bytes, free bytes and fragmentation over frames, cycles per
 * frame against the budget line (gameplay and loading frames told apart), the memory map at
 * peak and at the first failure, the top call sites when the trace has them, the figures.
 * Replays the trace again (run->cfg) to sample it. Written whole or not at all. Returns an
 * exit status after printing why on failure. O(events x core cost + arena units). */
int agbsim_html_replay(const char *path, const struct agbsim_run *run);

/* A bench (bench --html): the cores side by side per trace with the recommendation
 * (bench_recommend.h), then for each trace the recommended core's replay as above. Returns an
 * exit status. */
int agbsim_html_bench(const char *path, const struct agbsim_run *runs, size_t n,
		      int min_arena_searched);

#endif
