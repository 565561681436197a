/* The project's JSON writer (json_out.h). */
#include "trace/json_out.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

void agbsim_json_init(struct agbsim_json *w, FILE *out)
{
	*w = (struct agbsim_json){0};
	w->out = out;
}

static void newline_indent(struct agbsim_json *w, unsigned depth)
{
	fputc('\n', w->out);
	for (unsigned i = 0; i < depth; i++)
		fputs("  ", w->out);
}

/* What goes before a member (a value in an array, a key in an object): nothing before the
 * document, else the separator the innermost container's layout asks for. */
static void member_separator(struct agbsim_json *w)
{
	unsigned d = w->depth;
	int same = w->same_line, first;
	w->same_line = 0;
	if (d == 0)
		return;
	first = w->empty[d - 1];
	w->empty[d - 1] = 0;
	switch ((enum agbsim_json_layout)w->layout[d - 1]) {
	case AGBSIM_JSON_LINES:
		if (first) {
			newline_indent(w, d);
		} else if (!same) {
			fputc(',', w->out);
			newline_indent(w, d);
		} else {
			fputs(", ", w->out);
		}
		break;
	case AGBSIM_JSON_ROWS:
		fputs(first ? "\n" : ",\n", w->out);
		break;
	case AGBSIM_JSON_COMPACT:
		if (!first)
			fputc(',', w->out);
		break;
	case AGBSIM_JSON_INLINE:
		if (!first)
			fputs(", ", w->out);
		break;
	}
}

/* Before a value: the separator, unless the value follows its key. */
static void value_prefix(struct agbsim_json *w)
{
	if (w->after_key)
		w->after_key = 0;
	else
		member_separator(w);
}

static void open_container(struct agbsim_json *w, char c, char closer,
			   enum agbsim_json_layout layout)
{
	value_prefix(w);
	assert(w->depth < AGBSIM_JSON_MAX_DEPTH);
	fputc(c, w->out);
	w->layout[w->depth] = (unsigned char)layout;
	w->empty[w->depth] = 1;
	w->closer[w->depth] = closer;
	w->depth++;
}

void agbsim_json_object(struct agbsim_json *w, enum agbsim_json_layout layout)
{
	open_container(w, '{', '}', layout);
}

void agbsim_json_array(struct agbsim_json *w, enum agbsim_json_layout layout)
{
	open_container(w, '[', ']', layout);
}

void agbsim_json_end(struct agbsim_json *w)
{
	unsigned d;
	assert(w->depth > 0);
	d = --w->depth;
	if (w->layout[d] == AGBSIM_JSON_LINES && !w->empty[d]) {
		newline_indent(w, d);
	} else if (w->layout[d] == AGBSIM_JSON_ROWS) {
		if (d > 0 && w->layout[d - 1] == AGBSIM_JSON_LINES)
			newline_indent(w, d);
		else
			fputc('\n', w->out);
	}
	fputc(w->closer[d], w->out);
}

static void write_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p == '\r')
			fputs("\\r", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void agbsim_json_key(struct agbsim_json *w, const char *key)
{
	assert(w->depth > 0);
	member_separator(w);
	write_escaped(w->out, key);
	fputs(w->layout[w->depth - 1] == AGBSIM_JSON_COMPACT ? ":" : ": ", w->out);
	w->after_key = 1;
}

void agbsim_json_same_line(struct agbsim_json *w)
{
	w->same_line = 1;
}

void agbsim_json_string(struct agbsim_json *w, const char *s)
{
	value_prefix(w);
	write_escaped(w->out, s);
}

void agbsim_json_null(struct agbsim_json *w)
{
	value_prefix(w);
	fputs("null", w->out);
}

void agbsim_json_bool(struct agbsim_json *w, int v)
{
	value_prefix(w);
	fputs(v ? "true" : "false", w->out);
}

void agbsim_json_u32(struct agbsim_json *w, uint32_t v)
{
	value_prefix(w);
	fprintf(w->out, "%" PRIu32, v);
}

void agbsim_json_u64(struct agbsim_json *w, uint64_t v)
{
	value_prefix(w);
	fprintf(w->out, "%" PRIu64, v);
}

void agbsim_json_i64(struct agbsim_json *w, int64_t v)
{
	value_prefix(w);
	fprintf(w->out, "%" PRId64, v);
}

void agbsim_json_size(struct agbsim_json *w, size_t v)
{
	value_prefix(w);
	fprintf(w->out, "%zu", v);
}

void agbsim_json_fixed(struct agbsim_json *w, double v, int decimals)
{
	value_prefix(w);
	if (isfinite(v))
		fprintf(w->out, "%.*f", decimals, v);
	else
		fputs("null", w->out);
}

void agbsim_json_sig(struct agbsim_json *w, double v, int digits)
{
	value_prefix(w);
	if (isfinite(v))
		fprintf(w->out, "%.*g", digits, v);
	else
		fputs("null", w->out);
}

int agbsim_json_cjson(struct agbsim_json *w, const cJSON *v)
{
	char *text = cJSON_PrintUnformatted(v);
	if (text == NULL)
		return -1;
	value_prefix(w);
	fputs(text, w->out);
	cJSON_free(text);
	return 0;
}

void agbsim_json_member_string(struct agbsim_json *w, const char *key, const char *s)
{
	agbsim_json_key(w, key);
	agbsim_json_string(w, s);
}

void agbsim_json_member_u32(struct agbsim_json *w, const char *key, uint32_t v)
{
	agbsim_json_key(w, key);
	agbsim_json_u32(w, v);
}

void agbsim_json_member_u64(struct agbsim_json *w, const char *key, uint64_t v)
{
	agbsim_json_key(w, key);
	agbsim_json_u64(w, v);
}

void agbsim_json_finish(struct agbsim_json *w)
{
	assert(w->depth == 0);
	fputc('\n', w->out);
}
