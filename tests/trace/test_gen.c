/* agbsim gen scenarios: same seed -> byte-identical JSON, different seed -> different; the
 * output loads and replays (OBJ VRAM on oam, EWRAM on the default core) without errors. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agb/cores.h"
#include "agbsim/replay.h"
#include "platform/platform.h"
#include "trace/gen.h"
#include "trace/trace_load.h"

/* The scenario as JSON text in a malloc'd buffer. */
static char *gen_json(const char *scenario, uint32_t seed, uint32_t frames, size_t *len)
{
	struct agb_gen_trace t;
	struct agb_memstream ms;
	assert_int_equal(agb_memstream_open(&ms), 0);
	assert_int_equal(agb_gen(scenario, seed, frames, &t), 0);
	assert_int_equal(agb_trace_write_json(ms.f, &t.trace), 0);
	assert_int_equal(agb_memstream_close(&ms), 0);
	agb_gen_release(&t);
	*len = ms.len;
	return ms.data;
}

static void same_seed_same_bytes(void **state)
{
	(void)state;
	for (size_t i = 0; agb_gen_scenarios[i] != NULL; i++) {
		size_t la, lb, lc;
		char *a = gen_json(agb_gen_scenarios[i], 42, 600, &la);
		char *b = gen_json(agb_gen_scenarios[i], 42, 600, &lb);
		char *c = gen_json(agb_gen_scenarios[i], 43, 600, &lc);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		assert_true(la != lc || memcmp(a, c, la) != 0);
		free(a);
		free(b);
		free(c);
	}
}

static void output_loads_and_replays(void **state)
{
	(void)state;
	agb_machine *m = malloc(sizeof *m);
	assert_non_null(m);
	for (size_t i = 0; agb_gen_scenarios[i] != NULL; i++) {
		size_t len;
		char *text = gen_json(agb_gen_scenarios[i], 7, 900, &len);
		struct agb_loaded_trace lt;
		struct agb_diag d;
		struct agb_replay_result r;
		struct agb_replay_config cfg = {0};
		void *ws;
		int rc = agb_trace_load_buffer("gen", text, len, &lt, &d);
		if (rc != AGB_LOAD_OK)
			fail_msg("%s: %u:%u: %s", agb_gen_scenarios[i], d.line, d.col, d.message);
		assert_int_equal(lt.trace.frame_count, 900);
		/* Sprites need oam; mark/reset need a linear core. */
		cfg.core = lt.trace.arena == AGB_ARENA_OBJ_VRAM
				   ? agb_heap_core_find("oam")
				   : strcmp(agb_gen_scenarios[i], "levels-linear") == 0
					     ? agb_heap_core_find("bump")
				   : strcmp(agb_gen_scenarios[i], "sections") == 0
					     ? agb_heap_core_find("stack2")
					     : agb_heap_core_default(lt.trace.arena);
		cfg.flags = AGB_REPLAY_CANARIES | AGB_REPLAY_CHECK;
		ws = malloc(agb_replay_workspace_bytes(&lt.trace));
		agb_machine_init(m, AGB_WAITCNT_DEFAULT);
		assert_int_equal(agb_replay_run(&lt.trace, &cfg, m, ws,
						agb_replay_workspace_bytes(&lt.trace), NULL, NULL, &r),
				 AGB_REPLAY_OK);
		assert_int_equal(r.corrupted_bytes, 0);
		free(ws);
		agb_trace_release(&lt);
		free(text);
	}
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_seed_same_bytes),
		cmocka_unit_test(output_loads_and_replays),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
