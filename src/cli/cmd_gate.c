/* agbsim gate: `agbsim bench --baseline` under its own name, whose --help lists every metric
 * the gate compares with its unit and default tolerance (from the gate's own table). */
#include <stdio.h>
#include <string.h>

#include "cli/agbsim.h"
#include "gate/gate_metrics.h"
#include "gate/gate_traces.h"

static void usage(FILE *out)
{
	fputs("Usage: agbsim gate [TRACE|DIR ...] --baseline=FILE [BENCH OPTIONS]\n\n"
	      "The regression gate: 'agbsim bench' with --baseline (or --update-baseline) and the\n"
	      "same options (see 'agbsim bench --help'). Exit status: 0 ok, 1 the gate failed, 2 bad\n"
	      "usage or input (two traces with one name too: the gate keys pairs by trace name),\n"
	      "3 I/O error.\n\n"
	      "It fails on: a metric worse than the baseline's beyond its tolerance; a leak (more\n"
	      "bytes live at the end than in the baseline, with the call sites of the live blocks\n"
	      "when the trace names them); a pair replayed with another arena size than the\n"
	      "baseline's (not compared: pass the baseline's --pool); a limit broken; a baseline\n"
	      "pair missing (unless --allow-missing). A trace whose events differ from the\n"
	      "baseline's is reported as a workload change, before the metrics.\n\n"
	      "Metrics (every one lower-is-better; --tolerance=METRIC=N% or =N overrides the\n"
	      "default, a baseline's \"tolerances\" too; '*' ends a prefix):\n",
	      out);
	fprintf(out, "  %-26s %-7s %s\n", "metric", "unit", "default tolerance");
	for (size_t i = 0; i < agbsim_metric_count; i++) {
		const struct agbsim_metric_def *d = &agbsim_metric_defs[i];
		char tol[32];
		if (d->rel != 0)
			snprintf(tol, sizeof tol, "%g%%", d->rel * 100.0);
		else if (d->abs != 0)
			snprintf(tol, sizeof tol, "%g", d->abs);
		else
			snprintf(tol, sizeof tol, "exact");
		fprintf(out, "  %-26s %-7s %s\n", d->name, d->unit, tol);
	}
	fputs("\nWorkload facts (compared to tell a changed trace, never a regression by "
	      "themselves):\n ",
	      out);
	for (size_t i = 0; agbsim_workload_facts[i] != NULL; i++)
		fprintf(out, " %s", agbsim_workload_facts[i]);
	fputs(" (live_bytes_end rising: a leak)\n", out);
}

int agbsim_cmd_gate(int argc, char **argv)
{
	int has_baseline = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return fflush(stdout) == 0 ? AGBSIM_EXIT_OK : AGBSIM_EXIT_IO;
		}
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strncmp(argv[i], "--baseline", 10) == 0 ||
		    strncmp(argv[i], "--update-baseline", 17) == 0)
			has_baseline = 1;
	}
	if (!has_baseline)
		return agbsim_usage_error("gate", "needs --baseline=FILE (or --update-baseline=FILE)");
	return agbsim_cmd_bench(argc, argv);
}
