/* The one JSON writer: every JSON document the project writes goes through it -- the CLI's
 * (replay/measure reports, bench results and baselines, the gate's --diff-out, --export, the
 * --events-out lines) and the trace files (agb_trace_write_json, the mtrace converter) -- so every
 * string is escaped in one place and the separators are never written by hand.
 *
 * A streaming writer, not a tree: numbers keep the fixed formats the documents have always had
 * (a tree such as cJSON's would print them with up to 17 digits), and nothing is built only to
 * be printed. Layouts of a container:
 *   LINES    each member on its own line, indented two spaces per depth, "key": value;
 *   INLINE   the members on one line, separated by ", ", "key": value;
 *   COMPACT  no spaces at all: "key":value, members separated by ",";
 *   ROWS     each member on a line of its own at column 0 (long arrays of COMPACT rows, as in
 *            trace files), the closer on a line of its own too, indented like the container's
 *            own line when the parent is LINES.
 * agbsim_json_same_line() keeps the next member of a LINES container on the current line. */
#ifndef AGBSIM_JSON_OUT_H
#define AGBSIM_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>

typedef struct cJSON cJSON;

#define AGBSIM_JSON_MAX_DEPTH 16

enum agbsim_json_layout { AGBSIM_JSON_INLINE, AGBSIM_JSON_LINES, AGBSIM_JSON_COMPACT, AGBSIM_JSON_ROWS };

struct agbsim_json {
	FILE *out;
	unsigned depth;
	unsigned char layout[AGBSIM_JSON_MAX_DEPTH]; /* of each open container */
	unsigned char empty[AGBSIM_JSON_MAX_DEPTH]; /* no member written yet */
	char closer[AGBSIM_JSON_MAX_DEPTH];         /* '}' or ']' */
	int same_line;                              /* the next member stays on this line */
	int after_key;                              /* a key was written: the value follows it */
};

/* Starts a document on out. Never fails (write errors are the stream's, seen at its close). */
void agbsim_json_init(struct agbsim_json *w, FILE *out);

/* Containers. Nesting deeper than AGBSIM_JSON_MAX_DEPTH is a programming error (asserted). */
void agbsim_json_object(struct agbsim_json *w, enum agbsim_json_layout layout);
void agbsim_json_array(struct agbsim_json *w, enum agbsim_json_layout layout);
void agbsim_json_end(struct agbsim_json *w); /* closes the innermost object or array */

/* The member name of the next value in an object (escaped like any string). */
void agbsim_json_key(struct agbsim_json *w, const char *key);
/* Keeps the next member of a "lines" container on the current line, after ", ". */
void agbsim_json_same_line(struct agbsim_json *w);

/* Values: as an array element, or after agbsim_json_key(). Strings are UTF-8 passed through;
 * '"', '\\', and control bytes are escaped (\\n, \\t, \\r by name, the rest and DEL as \\u00XX). */
void agbsim_json_string(struct agbsim_json *w, const char *s);
void agbsim_json_null(struct agbsim_json *w);
void agbsim_json_bool(struct agbsim_json *w, int v);
void agbsim_json_u32(struct agbsim_json *w, uint32_t v);
void agbsim_json_u64(struct agbsim_json *w, uint64_t v);
void agbsim_json_i64(struct agbsim_json *w, int64_t v);
void agbsim_json_size(struct agbsim_json *w, size_t v);
/* v with `decimals` digits after the point ("%.*f"); null when v is not finite. */
void agbsim_json_fixed(struct agbsim_json *w, double v, int decimals);
/* v with `digits` significant digits ("%.*g"); null when v is not finite. */
void agbsim_json_sig(struct agbsim_json *w, double v, int digits);
/* A parsed value written back compactly (cJSON_PrintUnformatted), e.g. a section kept from a
 * file being rewritten. Returns 0, or -1 when out of memory (nothing written). */
int agbsim_json_cjson(struct agbsim_json *w, const cJSON *v);

/* A member of an object in one call: agbsim_json_key(w, key) and the value. */
void agbsim_json_member_string(struct agbsim_json *w, const char *key, const char *s);
void agbsim_json_member_u32(struct agbsim_json *w, const char *key, uint32_t v);
void agbsim_json_member_u64(struct agbsim_json *w, const char *key, uint64_t v);

/* Ends the document with a newline (all containers must be closed). */
void agbsim_json_finish(struct agbsim_json *w);

#endif
