/* One full replay summarised for the viewer: the moments --at names (peak, first failure,
 * worst fragmentation) and the model cycles of every frame (see agb_view_scan in view.h).
 * SDL-free. */
#include <stdlib.h>
#include <string.h>

#include "agb/machine.h"
#include "agbsim/metrics.h"
#include "view/view.h"

int agb_view_scan_init(struct agb_view_scan *s, const struct agb_trace *t)
{
	memset(s, 0, sizeof *s);
	s->peak = s->first_failure = s->max_frag = -1;
	s->max_frag_value = -1.0;
	s->cap = t->frame_count + 1u;
	s->frame_cycles = calloc(s->cap, sizeof *s->frame_cycles);
	s->frame_load = calloc(s->cap, sizeof *s->frame_load);
	return s->frame_cycles != NULL && s->frame_load != NULL ? 0 : -1;
}

void agb_view_scan_free(struct agb_view_scan *s)
{
	free(s->frame_cycles);
	free(s->frame_load);
	memset(s, 0, sizeof *s);
	s->peak = s->first_failure = s->max_frag = -1;
}

static void close_frame(struct agb_view_scan *s, int loading)
{
	if (s->nframes < s->cap) {
		s->frame_cycles[s->nframes] = s->open_cycles;
		s->frame_load[s->nframes] = (uint8_t)loading;
		s->nframes++;
	}
	s->open_cycles = 0;
}

/* Referenced tile bytes after a ref/unref: an upload or a revival adds the tile, a release drops
 * it (it stays in VRAM, reclaimable: free to walk). */
static void track_tiles(struct agb_view_scan *s, const struct agb_replay_obs *o)
{
	uint32_t bytes = o->requested == 8u ? 64u : 32u;
	if (o->outcome != AGB_OUTCOME_OK)
		return;
	if (o->op == AGB_OP_REF && (o->result & (AGB_VERB_UPLOADED | AGB_VERB_REVIVED)) != 0)
		s->tile_bytes += bytes;
	else if (o->op == AGB_OP_UNREF && (o->result & AGB_VERB_RELEASED) != 0)
		s->tile_bytes -= bytes <= s->tile_bytes ? bytes : s->tile_bytes;
}

void agb_view_scan_observe(void *ctx, const struct agb_replay_obs *o)
{
	struct agb_view_scan *s = ctx;
	uint32_t inuse;
	track_tiles(s, o);
	inuse = o->live_bytes + s->tile_bytes;
	if (s->peak < 0 || inuse > s->peak_bytes) {
		s->peak = o->index;
		s->peak_bytes = inuse;
	}
	if (o->outcome == AGB_OUTCOME_FAILED && s->first_failure < 0)
		s->first_failure = o->index;
	if (o->sampled != AGB_SAMPLE_NONE) {
		double f = agb_frag_external(&o->stats);
		if (f > s->max_frag_value) {
			s->max_frag_value = f;
			s->max_frag = o->index;
		}
	}
	s->open_cycles += o->cycles;
	if (o->op == AGB_OP_FRAME) {
		s->any_frame = 1;
		close_frame(s, o->requested == AGB_FRAME_LOAD);
	}
}

void agb_view_scan_end(struct agb_view_scan *s)
{
	if (s->open_cycles != 0)
		close_frame(s, 0);
}

int agb_view_scan_run(struct agb_view_scan *s, const struct agb_trace *t,
		      const struct agb_replay_config *cfg)
{
	struct agb_replay_result res;
	size_t wsb = agb_replay_workspace_bytes(t);
	agb_machine *m = malloc(sizeof *m);
	void *ws = malloc(wsb);
	int rc = -1;
	if (agb_view_scan_init(s, t) == 0 && m != NULL && ws != NULL) {
		agb_machine_init(m, AGB_WAITCNT_DEFAULT);
		agb_replay_run(t, cfg, m, ws, wsb, agb_view_scan_observe, s, &res);
		agb_view_scan_end(s);
		rc = res.status == AGB_REPLAY_OK ? 0 : -1;
	}
	if (rc != 0) {
		agb_view_scan_free(s);
		s->cap = 0;
	}
	free(ws);
	free(m);
	return rc;
}

int64_t agb_view_scan_moment(const struct agb_view_scan *s, enum agb_view_moment m)
{
	switch (m) {
	case AGB_VIEW_AT_PEAK:
		return s->peak;
	case AGB_VIEW_AT_FIRST_FAILURE:
		return s->first_failure;
	default:
		return s->max_frag;
	}
}

int agb_view_moment_parse(const char *text, enum agb_view_moment *m)
{
	static const struct {
		const char *name;
		enum agb_view_moment m;
	} names[] = {
		{"peak", AGB_VIEW_AT_PEAK},
		{"first-failure", AGB_VIEW_AT_FIRST_FAILURE},
		{"max-frag", AGB_VIEW_AT_MAX_FRAG},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(text, names[i].name) == 0) {
			*m = names[i].m;
			return 0;
		}
	return -1;
}
