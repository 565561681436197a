/* Fuzz target: the baseline parser and comparison of the regression gate (src/gate/gate.c).
 *
 * The input is written to a scratch file and compared, as `agbsim bench --baseline` does, with
 * one synthetic run (trace "fuzz" on the first core, zero metrics), so a baseline naming that
 * pair also goes through the metric comparison and the tolerance lookup. Any exit status is fine;
 * a crash, a leak or an out-of-bounds access is not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/agbsim.h"
#include "gate/gate.h"

static char scratch[] = "/tmp/agbsim-fuzz-gate-XXXXXX";
static int scratch_fd = -1;
static FILE *devnull;

static void cleanup(void)
{
	if (scratch_fd >= 0)
		unlink(scratch);
}

static int setup(void)
{
	scratch_fd = mkstemp(scratch);
	devnull = fopen("/dev/null", "w");
	if (scratch_fd < 0 || devnull == NULL)
		return -1;
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (scratch_fd < 0 && setup() != 0)
		abort();
	if (ftruncate(scratch_fd, 0) != 0 || pwrite(scratch_fd, data, size, 0) != (ssize_t)size)
		abort();
	static const struct agb_trace trace = {.arena = AGB_ARENA_EWRAM, .name = "fuzz"};
	static struct agbsim_run run;
	run.trace_path = "fuzz.json";
	run.trace = &trace;
	run.core = agb_heap_cores[0];
	run.cycle_source = "model";
	run.status = AGBSIM_EXIT_OK;
	struct agbsim_gate_options opt = {0};
	opt.baseline_path = scratch;
	opt.format = size > 0 && (data[0] & 1) ? FORMAT_MD : FORMAT_TABLE;
	opt.allow_missing = 1;
	int rc = agbsim_gate(devnull, &run, 1, &opt);
	if (rc != AGBSIM_EXIT_OK && rc != AGBSIM_EXIT_REGRESSION && rc != AGBSIM_EXIT_USAGE &&
	    rc != AGBSIM_EXIT_IO)
		abort();
	return 0;
}
