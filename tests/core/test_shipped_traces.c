/* Every shipped trace (traces/<dir>/<name>.json, globbed at test time) on every core that can
 * serve it: the replay engine runs with canaries, and each run must finish with corrupted_bytes == 0, no byte stores the hardware would drop, no unmapped
 * access, and check() holding at the end. A core that cannot serve an op of a trace (free on
 * bump, ref on tlsf) or refuses the arena is skipped - that is the CLI's "cannot" path, tested
 * elsewhere - but every trace must run on at least one core. */
#include <dirent.h>
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
#include "trace/trace_load.h"

#ifndef AGB_SOURCE_DIR
#error "build with -DAGB_SOURCE_DIR=\"...\" (the repository root)"
#endif

#include "machine_fixture.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Runs one trace on every core; returns the number of (trace, core) runs that completed. */
static unsigned replay_everywhere(const char *path)
{
	struct agb_loaded_trace lt;
	struct agb_diag d;
	unsigned ran = 0;
	if (agb_trace_load_file(path, &lt, &d) != AGB_LOAD_OK) {
		char msg[1024];
		agb_diag_format(&d, msg, sizeof msg);
		fail_msg("shipped trace does not load: %s", msg);
	}
	size_t ws_bytes = agb_replay_workspace_bytes(&lt.trace);
	void *ws = malloc(ws_bytes);
	assert_non_null(ws);
	for (size_t i = 0; agb_heap_cores[i] != NULL; i++) {
		const struct agb_heap_core *core = agb_heap_cores[i];
		/* Checking after every event is test_properties' job (and --check's); here the
		 * end state is checked, which keeps the suite fast on long traces. */
		struct agb_replay_config cfg = {core, 0, AGB_META_DEFAULT, 0, AGB_REPLAY_CANARIES};
		struct agb_replay_result r;
		if ((core->arenas & AGB_ARENA_BIT(lt.trace.arena)) == 0)
			continue;
		int st = agb_replay_run(&lt.trace, &cfg, M, ws, ws_bytes, NULL, NULL, &r);
		if (st == AGB_REPLAY_UNSUPPORTED || st == AGB_REPLAY_INIT_FAILED)
			continue;
		if (st != AGB_REPLAY_OK)
			fail_msg("%s on %s: replay stopped at event %u: %s", core->name, path,
				 r.failed_event, r.why != NULL ? r.why : "?");
		if (r.corrupted_bytes != 0)
			fail_msg("%s on %s: %u corrupted bytes", core->name, path, r.corrupted_bytes);
		if (r.quirk_stores != 0 || r.unmapped_accesses != 0)
			fail_msg("%s on %s: %u byte stores, %u unmapped accesses", core->name, path,
				 r.quirk_stores, r.unmapped_accesses);
		/* The engine keeps the core's state at the start of the workspace. */
		const char *why = "?";
		if (core->check(ws, &why) != 0)
			fail_msg("%s on %s: check() fails at the end: %s", core->name, path, why);
		printf("# %-28s %-9s failures %u\n", strrchr(path, '/') + 1, core->name, r.failures);
		ran++;
	}
	free(ws);
	agb_trace_release(&lt);
	return ran;
}

static void every_shipped_trace_on_every_core(void **state)
{
	const char *root = AGB_SOURCE_DIR "/traces";
	unsigned traces = 0;
	DIR *top = opendir(root);
	struct dirent *e;
	(void)state;
	assert_non_null(top);
	while ((e = readdir(top)) != NULL) {
		char dir[4096];
		DIR *sub;
		struct dirent *f;
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
		if ((sub = opendir(dir)) == NULL)
			continue; /* a file, not a directory */
		while ((f = readdir(sub)) != NULL) {
			char path[8192];
			if (f->d_name[0] == '.' || !ends_with(f->d_name, ".json"))
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
			if (replay_everywhere(path) == 0)
				fail_msg("%s: no core could replay it", path);
			traces++;
		}
		closedir(sub);
	}
	closedir(top);
	assert_true(traces >= 4); /* the four recorded EWRAM traces at least */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_shipped_trace_on_every_core),
	};
	return cmocka_run_group_tests(tests, machine_setup, machine_teardown);
}
