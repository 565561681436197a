/* Shared by the fuzz targets: replay a trace on one core with the invariant checker after every
 * event and canaries in every live block, and stop the fuzzer (abort) on anything that is a core
 * or engine bug rather than a refusal: a broken invariant, damaged canary bytes, a byte store
 * the hardware would drop or widen, an access outside mapped memory. A core that cannot serve
 * an op (UNSUPPORTED, BAD_EVENT) or refuses the arena (INIT_FAILED) is a fine outcome. */
#ifndef AGB_FUZZ_REPLAY_H
#define AGB_FUZZ_REPLAY_H

#include <stdio.h>
#include <stdlib.h>

#include "agb/heap.h"
#include "agb/machine.h"
#include "agbsim/replay.h"

/* One machine per fuzz process (about 600 KiB: too big for the stack, reset by each replay). */
static agb_machine *fuzz_machine(void)
{
	static agb_machine *m;
	if (m == NULL) {
		m = malloc(sizeof *m);
		if (m == NULL)
			abort();
		agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	}
	return m;
}

static void fuzz_replay_checked(const struct agb_trace *t, const struct agb_heap_core *core)
{
	struct agb_replay_config cfg = {core, 0, AGB_META_DEFAULT, 0,
					AGB_REPLAY_CANARIES | AGB_REPLAY_CHECK};
	struct agb_replay_result r;
	size_t ws_bytes = agb_replay_workspace_bytes(t);
	void *ws = malloc(ws_bytes);
	if (ws == NULL)
		return;
	int st = agb_replay_run(t, &cfg, fuzz_machine(), ws, ws_bytes, NULL, NULL, &r);
	const char *why = "?";
	if (st == AGB_REPLAY_CHECK_FAILED) {
		fprintf(stderr, "%s: invariant broken at event %u: %s\n", core->name, r.failed_event,
			r.why != NULL ? r.why : "?");
		abort();
	}
	if (r.corrupted_bytes != 0 || r.quirk_stores != 0 || r.unmapped_accesses != 0) {
		fprintf(stderr, "%s: %u corrupted bytes, %u quirk stores, %u unmapped accesses\n",
			core->name, r.corrupted_bytes, r.quirk_stores, r.unmapped_accesses);
		abort();
	}
	if (st != AGB_REPLAY_INIT_FAILED && st != AGB_REPLAY_NO_WORKSPACE &&
	    core->check(agb_replay_core_state(ws), &why) != 0) {
		fprintf(stderr, "%s: check() fails after the replay: %s\n", core->name, why);
		abort();
	}
	free(ws);
}

#endif
