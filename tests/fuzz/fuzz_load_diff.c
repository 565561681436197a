/* Differential fuzz target: the trace loader from a buffer (agb_trace_load_buffer) and from a
 * file (agb_trace_load_file: the file is mapped and its pages handed back as the loader passes
 * them, or read through a spool) must agree on everything: the status, the position and message
 * of a rejection, and for an accepted trace its header and every event. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (path[0] == '\0')
		snprintf(path, sizeof path, "/tmp/agbsim-fuzz-diff-%ld.json", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (f == NULL)
		return 0;
	int ok = fwrite(data, 1, size, f) == size;
	if (fclose(f) != 0 || !ok)
		return 0;
	char *text = malloc(size ? size : 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	struct agb_loaded_trace a, b;
	struct agb_diag da, db;
	int ra = agb_trace_load_buffer(path, text, size, &a, &da);
	int rb = agb_trace_load_file(path, &b, &db);
	free(text);
	if (ra != rb)
		abort();
	if (ra == AGB_LOAD_BAD_INPUT &&
	    (da.line != db.line || da.col != db.col || strcmp(da.message, db.message) != 0))
		abort();
	if (ra == AGB_LOAD_OK) {
		if (a.trace.event_count != b.trace.event_count || a.trace.arena != b.trace.arena ||
		    a.trace.arena_bytes != b.trace.arena_bytes || a.trace.slots != b.trace.slots)
			abort();
		if (a.trace.event_count != 0 &&
		    memcmp(a.trace.events, b.trace.events,
			   a.trace.event_count * sizeof *a.trace.events) != 0)
			abort();
		if ((a.name == NULL) != (b.name == NULL) || (a.name && strcmp(a.name, b.name) != 0))
			abort();
		agb_trace_release(&a);
		agb_trace_release(&b);
	}
	return 0;
}
