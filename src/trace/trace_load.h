/* Host API of the trace loader and writer (docs/trace-format.md).
 *
 * The loader reads a version-1 JSON trace with cJSON, validates all of it and produces the
 * compact event array of agbsim/trace.h. Nothing is half-loaded: on any error the output is empty
 * and a diagnostic with the exact position (1-based line, 1-based column in bytes) is returned.
 *
 * JSON: what cJSON accepts is accepted (it also takes leading zeros such as 01 and raw tabs in
 * strings); the document must be UTF-8 without NUL bytes, nested at most AGB_TRACE_MAX_DEPTH deep,
 * with nothing but whitespace after it. Top-level keys must be unique; keys other than version,
 * arena, arena_bytes, name, source and events are metadata and ignored. An event may end with an
 * options object (an extension), which is ignored.
 *
 * Numbers: cJSON keeps only a double, so a number is accepted as an integer when its value is
 * exactly an integer: 24, 24.0, 1e3 (= 1000) and 2.4e1 are accepted, 24.5 and 1e400 are not.
 * (A numeral with more than ~15 significant digits that rounds to an integer, such as
 * 5.0000000000000001, is therefore read as that integer.)
 *
 * Not thread-safe: while a document is parsed, the loader points cJSON's process-global
 * allocation hooks at a private bump arena (the per-node malloc is the main cost of cJSON)
 * and restores the default hooks before returning. Do not use cJSON on another thread then.
 * Whitespace is what cJSON skips: any byte 0x01..0x20 between tokens.
 */
#ifndef AGB_TRACE_LOAD_H
#define AGB_TRACE_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agbsim/trace.h"

/* Deepest array/object nesting the loader accepts. A v1 trace needs 3 (document, events, event)
 * plus whatever an options object holds; the limit keeps hostile input from costing stack. */
#define AGB_TRACE_MAX_DEPTH 64

/* Largest trace text the loader reads: 1 GiB (~50 M events). A larger file, or a pipe or device
 * that goes on past it, is rejected with "larger than N bytes" (bad input) instead of growing a
 * buffer until memory runs out. */
#define AGB_TRACE_MAX_BYTES ((size_t)1 << 30)

/* Largest id / ROM tile number a trace may use: 2^31 - 1. */
#define AGB_TRACE_MAX_ID 0x7fffffffu

/* Where and why loading failed. line and col are 1-based (col counts bytes); both are 0 when
 * the error has no position (I/O errors). */
struct agb_diag {
	char file[512];
	unsigned line, col;
	char message[256];
};

/* A loaded trace and the storage it owns. `trace` points into the other members. */
struct agb_loaded_trace {
	struct agb_trace trace;
	struct agb_event *events; /* trace.event_count entries (NULL when there are none) */
	char *name;               /* "name" metadata, or NULL */
	char *source;             /* "source" metadata, or NULL */
	/* Call sites ({"site": S} in an event's options object): per event the index + 1 of its
	 * site in site_names, 0 none; both NULL when no event names one. */
	uint32_t *site_of;
	char **site_names;
	size_t site_count, site_cap;
};

/* The call site event EVENT of T names, or NULL: T as a trace this process loaded and has not
 * released (found by its event array), else NULL for every event. O(loaded traces). */
const char *agb_trace_event_site(const struct agb_trace *t, uint32_t event);

enum agb_load_status {
	AGB_LOAD_OK = 0,
	AGB_LOAD_BAD_INPUT = 2, /* the CLI exits with 2 */
	AGB_LOAD_IO_ERROR = 3   /* cannot open/read, or out of memory: the CLI exits with 3 */
};

/* Loads the trace file PATH ("-" reads stdin and is named "<stdin>" in messages) into *OUT.
 * A regular file (stdin redirected from one too) is viewed (platform.h: mapped where the system
 * can) and its pages handed back as each pass of the parser goes by them, so the peak is the
 * event array plus a window of the text; a pipe, a FIFO or a character device is copied to a
 * temporary file (agb_spool_file) first and then viewed the same way (read whole where neither
 * can be done: Windows). Returns an agb_load_status. On failure *OUT is zeroed (release is still
 * safe) and *DIAG says why: "cannot open: <strerror>" (line/col 0) for I/O errors, else a
 * positioned message. */
int agb_trace_load_file(const char *path, struct agb_loaded_trace *out, struct agb_diag *diag);

/* agb_trace_load_file with a text limit of MAX_BYTES instead of AGB_TRACE_MAX_BYTES: a bigger
 * regular file is rejected before it is read, other input once it passes the limit (status
 * AGB_LOAD_BAD_INPUT, no position). Input is also read no further than a chunk holding a NUL
 * byte, which is rejected anyway (so /dev/zero costs 64 KiB, not all memory). */
int agb_trace_load_file_max(const char *path, size_t max_bytes, struct agb_loaded_trace *out,
			    struct agb_diag *diag);

/* Reads all of PATH ("-": stdin, named "<stdin>" in *DIAG) into *BUF (malloc'd, *LEN bytes, not
 * NUL-terminated), under the same bounds as agb_trace_load_file_max: a regular file larger than
 * MAX_BYTES is rejected before it is read, other input once it passes MAX_BYTES ("larger than N
 * bytes", AGB_LOAD_BAD_INPUT), and reading stops after a chunk holding a NUL byte (the parsers
 * reject it with its position). For every text input of the CLI (traces, baselines, maps).
 * Returns an agb_load_status; on failure *BUF is NULL and *DIAG says why. */
int agb_read_input(const char *path, size_t max_bytes, char **buf, size_t *len,
		   struct agb_diag *diag);

/* Reads the regular file PATH whole (at most MAX_BYTES) into *BUF (malloc'd, *LEN bytes and a
 * NUL after them; binary content is kept). For side files a document names (external tilesets,
 * a program's symbols): a device, a FIFO or a larger file is refused, so a name such as
 * /dev/zero cannot hang the reader. Returns 0, or -1 (missing, not regular, too large,
 * unreadable, out of memory). */
int agb_read_regular_file(const char *path, size_t max_bytes, char **buf, size_t *len);

/* Sets DIAG's file, line and col to where event INDEX starts in the trace file PATH (message
 * empty): for errors found after loading, such as a core refusing event N during a replay. The
 * loader keeps no text, so the file is read again: O(file), error path only. Returns 0, or -1
 * (line and col 0) when PATH is stdin or not a regular file, or no longer has that event. */
int agb_trace_locate_event(const char *path, uint32_t index, struct agb_diag *diag);

/* Same as agb_trace_load_file for LEN bytes of TEXT (need not be NUL-terminated, may contain
 * NUL bytes, which are rejected). NAME is used as the file name in *DIAG. */
int agb_trace_load_buffer(const char *name, const char *text, size_t len,
			  struct agb_loaded_trace *out, struct agb_diag *diag);

/* Frees what a load stored in *T and zeroes it. Safe on a zeroed or failed trace. */
void agb_trace_release(struct agb_loaded_trace *t);

/* Formats D as "FILE:LINE:COL: message", or "FILE: message" when it has no position, into BUF
 * (N bytes, always terminated when N > 0). Returns the length snprintf would return. */
int agb_diag_format(const struct agb_diag *d, char *buf, size_t n);

/* Writes T as a v1 JSON trace: keys in the order version, arena, arena_bytes, name, source,
 * events (name/source omitted when NULL), one compact event per line. An alloc whose align is
 * <= 1 is written without the align element (alignment 1 is no constraint). Returns 0, or -1
 * when the stream reports a write error or an event has an op this format does not know.
 * Loading the output of a loaded trace gives back the same events, slots and metadata. */
int agb_trace_write_json(FILE *out, const struct agb_trace *t);

/* agb_trace_write_json with more top-level members (metadata, which loaders ignore): META, when
 * not NULL, writes them (agbsim_json_key + value pairs) after "source", before "events". */
struct agbsim_json;
int agb_trace_write_json_meta(FILE *out, const struct agb_trace *t,
			      void (*meta)(struct agbsim_json *w, void *ctx), void *ctx);

/* agb_trace_write_json_meta that also ends event I with the options object {"site": S} when
 * SITE (may be NULL) returns a string S for it: the event's call site; with "line": L in it
 * when SITE also sets *line to a string L, its source line (docs/trace-format.md). */
int agb_trace_write_json_sites(FILE *out, const struct agb_trace *t,
			       void (*meta)(struct agbsim_json *w, void *ctx),
			       const char *(*site)(void *ctx, uint32_t event, const char **line),
			       void *ctx);

#endif
