/* Fuzz target: the glibc mtrace converter (src/trace/mtrace.c).
 *
 * Byte 0 picks options (a small arena, skip_events, max_live); the rest is the log. Whatever the
 * converter accepts must be a trace the loader accepts (it writes nothing on failure), and that
 * trace is replayed, checked after every event, on the EWRAM default core. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay.h"
#include "trace/mtrace.h"
#include "trace/trace_load.h"

static void load_and_replay(const char *text, size_t len)
{
	struct agb_loaded_trace lt;
	struct agb_diag d;
	if (agb_trace_load_buffer("converted.json", text, len, &lt, &d) != AGB_LOAD_OK) {
		fprintf(stderr, "converted trace does not load: %u:%u: %s\n", d.line, d.col,
			d.message);
		abort();
	}
	const struct agb_heap_core *core = agb_heap_core_default(lt.trace.arena);
	if (core != NULL && lt.trace.event_count <= 4096)
		fuzz_replay_checked(&lt.trace, core);
	agb_trace_release(&lt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0];
	FILE *in = fmemopen((void *)(data + 1), size - 1, "r");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (in == NULL || out == NULL)
		abort();
	struct agb_mtrace_options opt;
	struct agb_mtrace_result res;
	char err[512];
	agb_mtrace_options_init(&opt);
	if (mode & 1)
		opt.arena_bytes = 4096;
	opt.skip_events = (mode >> 1) & 3u;
	if (mode & 8)
		opt.max_live = 1024;
	int st = agb_mtrace_convert(in, "fuzz.mtrace", out, &opt, &res, err, sizeof err);
	fclose(in);
	if (fclose(out) != 0)
		abort();
	if (st == AGB_MTRACE_OK)
		load_and_replay(text, len);
	else if (len != 0)
		abort(); /* "nothing is written to OUT unless the whole input converted" */
	free(text);
	return 0;
}
