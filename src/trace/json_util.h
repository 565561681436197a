/* JSON documents other than traces (bench results, baselines), read with the trace loader's
 * checks and line:col diagnostics. */
#ifndef AGB_JSON_UTIL_H
#define AGB_JSON_UTIL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "trace/trace_load.h"

/* Parses LEN bytes of TEXT (named NAME in messages) into *OUT (free with cJSON_Delete).
 * Rejects NUL bytes, invalid UTF-8, nesting deeper than AGB_TRACE_MAX_DEPTH, syntax errors and
 * trailing data with a positioned *DIAG. Returns AGB_LOAD_OK or AGB_LOAD_BAD_INPUT. O(len). */
int agb_json_parse(const char *name, const char *text, size_t len, cJSON **out,
		   struct agb_diag *diag);

/* cJSON_ParseWithLengthOpts(TEXT, LEN, END, 0) on strict JSON only (agb_json_strict first: a
 * text cJSON would take leniently is refused, *END at the error), that never reads past TEXT + LEN: cJSON 1.7.15
 * reads the byte at LEN when the text ends (whitespace aside) right after a ',' inside an object
 * (found by tests/fuzz), so such a text, never valid JSON, is refused here with *END = TEXT + LEN.
 * On failure *END is cJSON's error position (use it, not the global cJSON_GetErrorPtr, which is
 * stale when no parse ran). Every cJSON parse of the project goes through this. */
cJSON *agb_cjson_parse(const char *text, size_t len, const char **end);

/* The first RFC 8259 syntax error of TEXT[0, LEN) as one JSON text (a UTF-8 byte order mark
 * may come first; "\u0000" in a string is refused too): returns 1 with *OFF its offset and MSG
 * what was expected there, or 0 when the text is strict JSON. Bytes are not checked as UTF-8
 * (the readers' pre-scan does that). O(len), no allocation. */
int agb_json_strict(const char *text, size_t len, size_t *off, char *msg, size_t msgn);

/* Sets DIAG's line and col to the value reached from the root of TEXT by PATH, a '/'-separated
 * list of object keys and array indices ("runs/3/cycles"); stops at the deepest part found.
 * For error messages only: O(len). */
void agb_json_locate(const char *text, size_t len, const char *path, struct agb_diag *diag);

#endif
