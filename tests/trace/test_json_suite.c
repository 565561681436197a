/* Issue 35 item 3: strict RFC 8259 JSON in every reader. JSONTestSuite's test_parsing cases
 * (tests/data/json-test-suite, MIT) embedded in a trace wherever a value may be ignored: an
 * unknown top-level member's value before the events, after them, and in an event's options
 * object. Every n_ case is rejected with a position (also as a whole trace, a whole Tiled map
 * and a whole JSON document such as a baseline); every y_ case is accepted; every i_ case
 * either, never anything else (the loaders return OK or BAD_INPUT, and ASan/UBSan builds check
 * the rest). In process: 1 500 loads in well under a second. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform/platform.h"
#include "trace/json_util.h"
#include "trace/tiled.h"
#include "trace/trace_load.h"

#define SUITE AGB_SOURCE_DIR "/tests/data/json-test-suite/test_parsing"

struct names {
	char **v;
	size_t n, cap;
};

static int collect(void *ctx, const char *name)
{
	struct names *l = ctx;
	size_t n = strlen(name);
	if (n < 7 || strcmp(name + n - 5, ".json") != 0 || name[1] != '_')
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 512;
		l->v = realloc(l->v, l->cap * sizeof *l->v);
		assert_non_null(l->v);
	}
	l->v[l->n] = malloc(n + 1);
	assert_non_null(l->v[l->n]);
	memcpy(l->v[l->n++], name, n + 1);
	return 0;
}

static char *slurp(const char *name, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", SUITE, name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t cap = 1 << 16, n = 0, r;
	char *b = malloc(cap);
	assert_non_null(b);
	while ((r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap);
			assert_non_null(b);
		}
	}
	fclose(f);
	*len = n;
	return b;
}

static const char *const pre[3] = {
    "{\"version\":1,\"arena\":\"ewram\",\"meta\":",
    "{\"version\":1,\"arena\":\"ewram\",\"events\":[[\"alloc\",1,8],[\"frame\"]],\"meta\":",
    "{\"version\":1,\"arena\":\"ewram\",\"events\":[[\"alloc\",1,8,{\"x\":"};
static const char *const post[3] = {",\"events\":[[\"alloc\",1,8],[\"frame\"]]}", "}",
				    "}],[\"frame\"]]}"};

static unsigned failures;

static void report(const char *name, const char *where, const char *what, const struct agb_diag *d)
{
	print_error("%s (%s): %s [%u:%u %s]\n", name, where, what, d->line, d->col, d->message);
	failures++;
}

/* One load of TEXT; checks the outcome against the case's kind. */
static void trace_case(const char *name, const char *where, const char *text, size_t len)
{
	struct agb_loaded_trace t;
	struct agb_diag d;
	int r = agb_trace_load_buffer("t.json", text, len, &t, &d);
	if (r == AGB_LOAD_OK)
		agb_trace_release(&t);
	if (r != AGB_LOAD_OK && r != AGB_LOAD_BAD_INPUT)
		report(name, where, "neither accepted nor rejected", &d);
	else if (name[0] == 'y' && r != AGB_LOAD_OK)
		report(name, where, "rejected", &d);
	else if (name[0] == 'n' && r != AGB_LOAD_BAD_INPUT)
		report(name, where, "accepted", &d);
	else if (r == AGB_LOAD_BAD_INPUT && (d.line == 0 || d.col == 0))
		report(name, where, "rejected without a position", &d);
}

static void every_case(void **state)
{
	(void)state;
	struct names l = {0};
	unsigned counts[3] = {0, 0, 0};
	assert_int_equal(agb_dir_list(SUITE, collect, &l), 0);
	for (size_t i = 0; i < l.n; i++) {
		const char *name = l.v[i];
		size_t len;
		char *c = slurp(name, &len);
		counts[name[0] == 'y' ? 0 : name[0] == 'n' ? 1 : 2]++;
		for (int p = 0; p < 3; p++) {
			size_t a = strlen(pre[p]), b = strlen(post[p]);
			char *text = malloc(a + len + b);
			assert_non_null(text);
			memcpy(text, pre[p], a);
			memcpy(text + a, c, len);
			memcpy(text + a + len, post[p], b);
			trace_case(name, p == 0 ? "before" : p == 1 ? "after" : "options", text,
				   a + len + b);
			free(text);
		}
		if (name[0] == 'n') {
			struct agb_diag d;
			struct agb_tilemap map;
			cJSON *root = NULL;
			trace_case(name, "whole trace", c, len);
			int r = agb_tilemap_parse_tiled("m.json", c, len, &map, &d);
			if (r == AGB_LOAD_OK)
				agb_tilemap_release(&map);
			if (r != AGB_LOAD_BAD_INPUT || d.line == 0)
				report(name, "whole Tiled map", "not rejected with a position", &d);
			r = agb_json_parse("b.json", c, len, &root, &d);
			cJSON_Delete(root);
			if (r != AGB_LOAD_BAD_INPUT || d.line == 0)
				report(name, "whole baseline", "not rejected with a position", &d);
		}
		free(c);
		free(l.v[i]);
	}
	free(l.v);
	print_message("json suite: %u y_, %u n_, %u i_ cases, %u failures\n", counts[0], counts[1],
		      counts[2], failures);
	assert_true(counts[0] >= 95 && counts[1] >= 188);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(every_case)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
