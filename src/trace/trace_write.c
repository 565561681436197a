/* trace_write.c - write an event array as a v1 JSON trace (docs/trace-format.md).
 *
 * Written with stdio rather than by building a cJSON tree: a generated trace can hold millions of
 * events and the output shape (one compact event per line, fixed key order, so diffs of traces
 * stay readable) is simple. The only text that needs escaping is the name and source metadata. */
#include "trace/trace_load.h"

#include <string.h>

/* Writes S as a JSON string. UTF-8 passes through; '"', '\\' and control bytes are escaped. */
static void write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p != 0; p++) {
		unsigned c = *p;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", (int)c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc((int)c, out);
	}
	fputc('"', out);
}

int agb_trace_write_json(FILE *out, const struct agb_trace *t)
{
	fprintf(out, "{\"version\":1,\"arena\":\"%s\",\"arena_bytes\":%lu", agb_arena_name(t->arena),
		(unsigned long)t->arena_bytes);
	if (t->name != NULL) {
		fputs(",\"name\":", out);
		write_string(out, t->name);
	}
	if (t->source != NULL) {
		fputs(",\"source\":", out);
		write_string(out, t->source);
	}
	int bad = 0;
	fputs(",\"events\":[", out);
	for (uint32_t i = 0; i < t->event_count; i++) {
		const struct agb_event *e = &t->events[i];
		const char *sep = i + 1 < t->event_count ? "," : "";
		unsigned long id = e->id, size = e->size, align = e->align;
		switch ((enum agb_op)e->op) {
		case AGB_OP_ALLOC:
			if (align > 1)
				fprintf(out, "\n[\"alloc\",%lu,%lu,%lu]%s", id, size, align, sep);
			else
				fprintf(out, "\n[\"alloc\",%lu,%lu]%s", id, size, sep);
			break;
		case AGB_OP_FREE:
			fprintf(out, "\n[\"free\",%lu]%s", id, sep);
			break;
		case AGB_OP_REALLOC:
		case AGB_OP_REF:
		case AGB_OP_UNREF:
			fprintf(out, "\n[\"%s\",%lu,%lu]%s", agb_op_name((enum agb_op)e->op), id, size,
				sep);
			break;
		case AGB_OP_FRAME:
			fprintf(out, "\n[\"frame\"%s]%s", e->size == AGB_FRAME_LOAD ? ",\"load\"" : "",
				sep);
			break;
		case AGB_OP_SPR_SHOW:
		case AGB_OP_SPR_Z:
			fprintf(out, "\n[\"%s\",%lu,%lu]%s", agb_op_name((enum agb_op)e->op), id, size,
				sep);
			break;
		case AGB_OP_SPR_HIDE:
		case AGB_OP_MARK:
		case AGB_OP_RESET:
		case AGB_OP_SIDE:
			fprintf(out, "\n[\"%s\",%lu]%s", agb_op_name((enum agb_op)e->op), id, sep);
			break;
		case AGB_OP_PAL_LOAD:
		case AGB_OP_PAL_PUSH:
			fprintf(out, "\n[\"%s\",%lu,%lu,%lu,%lu]%s", agb_op_name((enum agb_op)e->op), id,
				(unsigned long)AGB_PAL_EV_SIDE(e->align),
				(unsigned long)AGB_PAL_EV_KEY(e->align), size, sep);
			break;
		case AGB_OP_PAL_FREE:
			fprintf(out, "\n[\"pal_free\",%lu]%s", id, sep);
			break;
		case AGB_OP_PAL_POP:
			fprintf(out, "\n[\"pal_pop\",%lu]%s", (unsigned long)AGB_PAL_EV_SIDE(e->align), sep);
			break;
		default:
			bad = 1; /* not an op of this format: the output would not load */
			break;
		}
	}
	fputs("\n]}\n", out);
	return ferror(out) || bad ? -1 : 0;
}
