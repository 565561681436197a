/* Fuzz target: the JSON trace loader (src/trace/trace_json.c).
 *
 * For any bytes: the loader returns OK or BAD_INPUT (never crashes, never reads outside the
 * buffer), a failure leaves the output zeroed with a positioned diagnostic, and an accepted
 * trace writes back to JSON that loads to the same events (agb_trace_write_json's contract).
 * An accepted trace is then replayed, checked after every event, on its arena's default core. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay.h"
#include "trace/trace_load.h"

static int same_events(const struct agb_trace *a, const struct agb_trace *b)
{
	if (a->event_count != b->event_count || a->arena != b->arena ||
	    a->arena_bytes != b->arena_bytes)
		return 0;
	for (uint32_t i = 0; i < a->event_count; i++) {
		const struct agb_event *x = &a->events[i], *y = &b->events[i];
		uint32_t ax = x->align <= 1 ? 1 : x->align, ay = y->align <= 1 ? 1 : y->align;
		if (x->op != y->op || x->id != y->id || x->size != y->size ||
		    (x->op == AGB_OP_ALLOC && ax != ay))
			return 0;
	}
	return 1;
}

static void round_trip(const struct agb_loaded_trace *lt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (f == NULL)
		return;
	int w = agb_trace_write_json(f, &lt->trace);
	if (fclose(f) != 0 || w != 0) {
		free(text);
		return; /* out of memory in the stream: nothing to compare */
	}
	struct agb_loaded_trace again;
	struct agb_diag d;
	int st = agb_trace_load_buffer("round-trip", text, len, &again, &d);
	if (st != AGB_LOAD_OK || !same_events(&lt->trace, &again.trace)) {
		fprintf(stderr, "written trace does not load back the same (%d: %s)\n", st, d.message);
		abort();
	}
	agb_trace_release(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: a read one byte past the input is an ASan report. */
	char *text = malloc(size ? size : 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	struct agb_loaded_trace lt;
	struct agb_diag d;
	int st = agb_trace_load_buffer("fuzz.json", text, size, &lt, &d);
	free(text);
	if (st != AGB_LOAD_OK) {
		if (st != AGB_LOAD_BAD_INPUT && st != AGB_LOAD_IO_ERROR)
			abort();
		if (lt.trace.event_count != 0 || lt.events != NULL || d.message[0] == '\0')
			abort(); /* half-loaded, or an error without a message */
		return 0;
	}
	round_trip(&lt);
	const struct agb_heap_core *core = agb_heap_core_default(lt.trace.arena);
	if (core != NULL && lt.trace.event_count <= 4096)
		fuzz_replay_checked(&lt.trace, core);
	agb_trace_release(&lt);
	return 0;
}
