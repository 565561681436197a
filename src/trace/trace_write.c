/* trace_write.c - write an event array as a v1 JSON trace (docs/trace-format.md).
 *
 * Streamed through the JSON writer (json_out.h) rather than built as a cJSON tree: a generated
 * trace can hold millions of events. The shape: a COMPACT top-level object, the events as ROWS
 * (one compact event per line, fixed member order), so diffs of traces stay readable. */
#include "trace/trace_load.h"

#include <string.h>

#include "trace/json_out.h"

/* One event as its compact array, with {"site": SITE} at its end when SITE is not NULL (and
 * "line": LINE in it when LINE is not NULL). Returns 0, or -1 for an op this format does not
 * have. */
static int write_event(struct agbsim_json *w, const struct agb_event *e, const char *site,
		       const char *line)
{
	enum agb_op op = (enum agb_op)e->op;
	if (op >= AGB_OP_COUNT)
		return -1; /* not an op of this format: the output would not load */
	agbsim_json_array(w, AGBSIM_JSON_COMPACT);
	agbsim_json_string(w, agb_op_name(op));
	switch (op) {
	case AGB_OP_ALLOC:
		agbsim_json_u32(w, e->id);
		agbsim_json_u32(w, e->size);
		if (e->align > 1)
			agbsim_json_u32(w, e->align);
		break;
	case AGB_OP_REFUSED:
		agbsim_json_u32(w, e->size);
		if (e->align > 1)
			agbsim_json_u32(w, e->align);
		break;
	case AGB_OP_REALLOC:
	case AGB_OP_LOCK:
	case AGB_OP_TOUCH:
	case AGB_OP_REF:
	case AGB_OP_UNREF:
	case AGB_OP_SPR_SHOW:
	case AGB_OP_SPR_Z:
		agbsim_json_u32(w, e->id);
		agbsim_json_u32(w, e->size);
		break;
	case AGB_OP_FREE:
	case AGB_OP_SPR_HIDE:
	case AGB_OP_MARK:
	case AGB_OP_RESET:
	case AGB_OP_SIDE:
	case AGB_OP_SYNC:
	case AGB_OP_UNLOCK:
	case AGB_OP_PAL_FREE:
		agbsim_json_u32(w, e->id);
		break;
	case AGB_OP_PAL_LOAD:
	case AGB_OP_PAL_PUSH:
		agbsim_json_u32(w, e->id);
		agbsim_json_u32(w, AGB_PAL_EV_SIDE(e->align));
		agbsim_json_u32(w, AGB_PAL_EV_KEY(e->align));
		agbsim_json_u32(w, e->size);
		break;
	case AGB_OP_PAL_POP:
		agbsim_json_u32(w, AGB_PAL_EV_SIDE(e->align));
		break;
	case AGB_OP_FRAME:
		if (e->size == AGB_FRAME_LOAD)
			agbsim_json_string(w, "load");
		break;
	case AGB_OP_COUNT:
		break;
	}
	if (site != NULL) {
		agbsim_json_object(w, AGBSIM_JSON_COMPACT);
		agbsim_json_member_string(w, "site", site);
		if (line != NULL)
			agbsim_json_member_string(w, "line", line);
		agbsim_json_end(w);
	}
	agbsim_json_end(w);
	return 0;
}

int agb_trace_write_json(FILE *out, const struct agb_trace *t)
{
	return agb_trace_write_json_meta(out, t, NULL, NULL);
}

int agb_trace_write_json_meta(FILE *out, const struct agb_trace *t,
			      void (*meta)(struct agbsim_json *w, void *ctx), void *ctx)
{
	return agb_trace_write_json_sites(out, t, meta, NULL, ctx);
}

int agb_trace_write_json_sites(FILE *out, const struct agb_trace *t,
			       void (*meta)(struct agbsim_json *w, void *ctx),
			       const char *(*site)(void *ctx, uint32_t event, const char **line),
			       void *ctx)
{
	struct agbsim_json w;
	int bad = 0;
	agbsim_json_init(&w, out);
	agbsim_json_object(&w, AGBSIM_JSON_COMPACT);
	agbsim_json_member_u32(&w, "version", 1);
	agbsim_json_member_string(&w, "arena", agb_arena_name(t->arena));
	agbsim_json_member_u32(&w, "arena_bytes", t->arena_bytes);
	if (t->name != NULL) {
		agbsim_json_member_string(&w, "name", t->name);
	}
	if (t->source != NULL) {
		agbsim_json_member_string(&w, "source", t->source);
	}
	if (meta != NULL)
		meta(&w, ctx);
	agbsim_json_key(&w, "events");
	agbsim_json_array(&w, AGBSIM_JSON_ROWS);
	for (uint32_t i = 0; i < t->event_count; i++) {
		const char *line = NULL;
		const char *at = site != NULL ? site(ctx, i, &line) : NULL;
		bad |= write_event(&w, &t->events[i], at, at != NULL ? line : NULL) != 0;
	}
	agbsim_json_end(&w);
	agbsim_json_end(&w);
	agbsim_json_finish(&w);
	return ferror(out) || bad ? -1 : 0;
}
