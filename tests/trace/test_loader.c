/* The v1 trace loader and writer (docs/trace-format.md): every class of bad input is rejected with
 * status 2, its exact line:col and a clear message; good traces load into the compact array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform/platform.h"
#include "trace/trace_load.h"

/* Events start on line 2, so an element's column is its column in the literal event text. */
#define HEAP "{\"version\":1,\"arena\":\"ewram\",\"events\":[\n"
#define TILES "{\"version\":1,\"arena\":\"bg_vram\",\"events\":[\n"
#define PALS "{\"version\":1,\"arena\":\"pal_ram\",\"events\":[\n"

static void check_bad_n(const char *text, size_t len, int status, unsigned line, unsigned col,
			const char *substr)
{
	struct agb_loaded_trace t;
	struct agb_diag d;
	int r = agb_trace_load_buffer("t.json", text, len, &t, &d);
	char buf[1024];
	agb_diag_format(&d, buf, sizeof buf);
	if (r != status || d.line != line || d.col != col || strstr(d.message, substr) == NULL)
		print_error("got status %d, \"%s\"; want status %d at %u:%u with \"%s\"\n", r, buf,
			    status, line, col, substr);
	assert_int_equal(r, status);
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
	assert_non_null(strstr(d.message, substr));
	assert_null(t.events);
	assert_int_equal(t.trace.event_count, 0);
	agb_trace_release(&t);
}

static void check_bad(const char *text, unsigned line, unsigned col, const char *substr)
{
	check_bad_n(text, strlen(text), AGB_LOAD_BAD_INPUT, line, col, substr);
}

static void load_ok(const char *text, struct agb_loaded_trace *t)
{
	struct agb_diag d;
	int r = agb_trace_load_buffer("t.json", text, strlen(text), t, &d);
	if (r != AGB_LOAD_OK) {
		char buf[1024];
		agb_diag_format(&d, buf, sizeof buf);
		print_error("unexpected failure: %s\n", buf);
	}
	assert_int_equal(r, AGB_LOAD_OK);
}

/* ---- syntax and encoding ---- */

static void malformed_json_says_what_was_expected(void **state)
{
	(void)state;
	check_bad("{\"version\":1 \"arena\":\"ewram\"}", 1, 14, "expected ',' or '}', got '\"'");
	check_bad("{\"version\" 1}", 1, 12, "expected ':' after the object key");
	check_bad("{version:1}", 1, 2, "expected a string key or '}'");
	check_bad(HEAP "[\"frame\"],]}", 2, 11, "expected a value after ','");
	check_bad(HEAP "[\"alloc\",1 2]]}", 2, 12, "expected ',' or ']', got '2'");
	check_bad(HEAP "[\"alloc\",1,tru]]}", 2, 12, "invalid literal");
	check_bad(HEAP "[\"alloc\",1,-]]}", 2, 13, "expected a digit after '-'");
	check_bad("{\"name\":\"a\\qb\"}", 1, 11, "invalid escape");
}

static void truncated_file_is_unexpected_eof(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",1,", 2, 12, "unexpected end of file (expected a value)");
	check_bad(HEAP "[\"frame\"]\n", 3, 1, "unexpected end of file (expected ',' or ']')");
	check_bad("{\"name\":\"abc", 1, 13, "unexpected end of file inside a string");
}

static void empty_file(void **state)
{
	(void)state;
	check_bad("", 1, 1, "empty file");
	check_bad("  \n ", 2, 2, "empty file");
}

static void binary_garbage_is_rejected_before_parsing(void **state)
{
	(void)state;
	static const char nul[] = "{\"version\":\0 1}";
	check_bad_n(nul, sizeof nul - 1, AGB_LOAD_BAD_INPUT, 1, 12, "NUL byte");
	/* At the sequence's first byte (col 10), not the valid '(' after it. */
	check_bad("{\"name\":\"\xc3\x28\"}", 1, 10, "byte 0x28 cannot follow 0xC3");
	check_bad("\x7f\x45\x4c\x46\x02\x01\xff", 1, 7, "invalid UTF-8 byte 0xFF");
	check_bad("{\"name\":\"\xed\xa0\x80\"}", 1, 10, "byte 0xA0 cannot follow 0xED"); /* surrogate */
	check_bad("{\"name\":\"\xe2\x82", 1, 9 + 1, "cut off by the end of file");
}

static void deep_nesting_is_rejected_without_recursion(void **state)
{
	(void)state;
	size_t n = 1000000;
	char *deep = malloc(n);
	assert_non_null(deep);
	memset(deep, '[', n);
	check_bad_n(deep, n, AGB_LOAD_BAD_INPUT, 1, AGB_TRACE_MAX_DEPTH + 1,
		    "nesting deeper than 64 levels");
	free(deep);
	/* Brackets inside strings do not count. */
	struct agb_loaded_trace t;
	load_ok("{\"version\":1,\"arena\":\"ewram\",\"name\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\",\"events\":[]}",
		&t);
	agb_trace_release(&t);
}

static void trailing_data_after_the_document(void **state)
{
	(void)state;
	check_bad(HEAP "]}\nxyz", 3, 1, "trailing data after the JSON document: 'x'");
}

/* ---- the document ---- */

static void top_level_must_be_an_object(void **state)
{
	(void)state;
	check_bad("\n  [1, 2]", 2, 3, "top level must be a JSON object, got an array");
}

static void duplicate_top_level_key(void **state)
{
	(void)state;
	check_bad("{\"version\":1,\"arena\":\"ewram\",\"arena\":\"bg_vram\",\"events\":[]}", 1, 30,
		  "duplicate top-level key \"arena\"");
}

static void version_missing_wrong_type_or_unsupported(void **state)
{
	(void)state;
	check_bad(" {\"arena\":\"ewram\",\"events\":[]}", 1, 2, "missing required key \"version\"");
	check_bad("{\"version\":\"1\",\"arena\":\"ewram\",\"events\":[]}", 1, 12,
		  "\"version\" must be the integer 1, got a string");
	check_bad("{\"version\":2,\"arena\":\"ewram\",\"events\":[]}", 1, 12,
		  "unsupported trace version 2");
	check_bad("{\"version\":1.5,\"arena\":\"ewram\",\"events\":[]}", 1, 12,
		  "unsupported trace version 1.5");
}

static void arena_missing_or_unknown(void **state)
{
	(void)state;
	check_bad("{\"version\":1,\"events\":[]}", 1, 1, "missing required key \"arena\"");
	check_bad("{\"version\":1,\"arena\":\"iwram\",\"events\":[]}", 1, 22,
		  "unknown arena \"iwram\"");
	check_bad("{\"version\":1,\"arena\":2,\"events\":[]}", 1, 22,
		  "\"arena\" must be a string, got a number");
}

static void arena_bytes_must_be_a_positive_integer_within_the_region(void **state)
{
	(void)state;
	check_bad("{\"version\":1,\"arena\":\"ewram\",\"arena_bytes\":1.5,\"events\":[]}", 1, 44,
		  "\"arena_bytes\" must be an integer, got 1.5");
	check_bad("{\"version\":1,\"arena\":\"ewram\",\"arena_bytes\":0,\"events\":[]}", 1, 44,
		  "\"arena_bytes\" must be >= 1, got 0");
	check_bad("{\"version\":1,\"arena\":\"obj_vram\",\"arena_bytes\":32769,\"events\":[]}", 1,
		  47, "larger than the obj_vram region (32768 bytes)");
	check_bad("{\"version\":1,\"arena\":\"ewram\",\"arena_bytes\":\"all\",\"events\":[]}", 1, 44,
		  "must be an integer, got a string");
}

static void events_missing_or_not_an_array(void **state)
{
	(void)state;
	check_bad("{\"version\":1,\"arena\":\"ewram\"}", 1, 1, "missing required key \"events\"");
	check_bad("{\"version\":1,\"arena\":\"ewram\",\"events\":{}}", 1, 39,
		  "\"events\" must be an array, got an object");
}

static void metadata_name_must_be_a_string(void **state)
{
	(void)state;
	check_bad("{\"version\":1,\"arena\":\"ewram\",\"name\":7,\"events\":[]}", 1, 37,
		  "\"name\" must be a string, got a number");
}

/* ---- events ---- */

static void event_not_an_array_or_empty(void **state)
{
	(void)state;
	check_bad(HEAP "[\"frame\"],\n {\"op\":\"frame\"}]}", 3, 2,
		  "event must be an array such as [\"alloc\", id, size], got an object");
	check_bad(HEAP "[\"frame\"], []]}", 2, 12, "empty event");
}

static void op_not_a_string(void **state)
{
	(void)state;
	check_bad(HEAP "[5, 1]]}", 2, 2, "op name must be a string, got a number");
}

static void unknown_op_is_rejected(void **state)
{
	(void)state;
	check_bad(HEAP "[\"frame\"],\n[ \"malloc\", 3]]}", 3, 3, "unknown op \"malloc\"");
}

/* ["sync", m] needs an earlier ["mark", m]; it keeps the marker in id. */
static void sync_needs_a_mark(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	check_bad(HEAP "[\"mark\",1],\n[\"sync\",2]]}", 3, 9, "sync of marker 2, which no earlier mark set");
	check_bad(TILES "[\"sync\",1]]}", 2, 2, "\"sync\"");
	load_ok(HEAP "[\"side\",1],[\"mark\",7],[\"alloc\",1,64],[\"frame\"],[\"sync\",7],[\"reset\",7]]}", &t);
	assert_int_equal(t.trace.events[4].op, AGB_OP_SYNC);
	assert_int_equal(t.trace.events[4].id, 7);
	agb_trace_release(&t);
}

/* ["refused", size(, align)]: a recording's NULL return. Any size a game may ask (above the
 * pool too); no id, nothing live after it. */
static void refused_requests(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	check_bad(HEAP "[\"refused\",\n0]]}", 3, 1, "size must be >= 1");
	check_bad(HEAP "[\"refused\",16,\n3]]}", 3, 1, "align must be a power of two");
	check_bad(TILES "[\"refused\",16]]}", 2, 2, "\"refused\"");
	load_ok(HEAP "[\"refused\",300000,{\"site\":\"main+0x4\"}],[\"alloc\",1,64],[\"refused\",8,16]]}", &t);
	assert_int_equal(t.trace.event_count, 3);
	assert_int_equal(t.trace.events[0].op, AGB_OP_REFUSED);
	assert_int_equal(t.trace.events[0].size, 300000);
	assert_int_equal(t.trace.events[0].align, 1);
	assert_int_equal(t.trace.events[2].size, 8);
	assert_int_equal(t.trace.events[2].align, 16);
	assert_int_equal(t.trace.slots, 1);
	assert_string_equal(agb_trace_event_site(&t.trace, 0), "main+0x4");
	agb_trace_release(&t);
}

/* lock/unlock/touch: keys get dense handles in order of first use; an unlock needs a lock still
 * held (locks nest), and a key keeps its size. */
static void cache_ops(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	check_bad(HEAP "[\"lock\",1,64],\n[\"unlock\",2]]}", 3, 11,
		  "unlock of key 2, which is not locked");
	check_bad(HEAP "[\"lock\",1,64],[\"unlock\",1],\n[\"unlock\",1]]}", 3, 11,
		  "unlock of key 1, which is not locked");
	check_bad(HEAP "[\"touch\",1,64],\n[\"lock\",1,65]]}", 3, 11,
		  "lock of key 1 with size 65, but its earlier size was 64");
	check_bad(HEAP "[\"lock\",1,64],\n[\"touch\",1,8]]}", 3, 12,
		  "touch of key 1 with size 8, but its earlier size was 64");
	check_bad(TILES "[\"lock\",1,64]]}", 2, 2, "\"lock\"");
	load_ok(HEAP "[\"touch\",9,64],[\"lock\",5,32],[\"lock\",9,64],[\"unlock\",9],"
		     "[\"lock\",5,32],[\"unlock\",5],[\"unlock\",5],[\"alloc\",1,8]]}",
		&t);
	assert_int_equal(t.trace.events[0].op, AGB_OP_TOUCH);
	assert_int_equal(t.trace.events[0].slot, 0);
	assert_int_equal(t.trace.events[1].op, AGB_OP_LOCK);
	assert_int_equal(t.trace.events[1].slot, 1);
	assert_int_equal(t.trace.events[2].slot, 0);
	assert_int_equal(t.trace.events[3].op, AGB_OP_UNLOCK);
	assert_int_equal(t.trace.events[3].id, 9);
	assert_int_equal(t.trace.events[3].size, 64);
	assert_int_equal(t.trace.events[6].slot, 1);
	/* Two keys, one allocation slot: the table bound covers both. */
	assert_int_equal(t.trace.slots, 2);
	agb_trace_release(&t);
}

static void wrong_arity(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",1,8],[\"free\",1,2]]}", 2, 25,
		  "wrong number of arguments: \"free\" takes 1 argument");
	check_bad(HEAP "[\"alloc\",1]]}", 2, 1, "\"alloc\" takes 2 or 3 arguments");
	check_bad(HEAP "[\"frame\",\"load\",1]]}", 2, 17, "\"frame\" takes 0 or 1 arguments");
	/* The one argument of frame is its kind: "load" and nothing else. */
	check_bad(HEAP "[\"frame\",1]]}", 2, 10, "frame kind must be \"load\" (a loading frame), got a number");
	check_bad(HEAP "[\"frame\",\"Load\"]]}", 2, 10, "got \"Load\"");
	check_bad(TILES "[\"ref\",1,4,4]]}", 2, 12, "\"ref\" takes 2 arguments");
}

static void fractional_numbers_are_not_integers(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",1,24.5]]}", 2, 12, "size must be an integer, got 24.5");
	check_bad(HEAP "[\"alloc\",2.5e-1,8]]}", 2, 10, "id must be an integer, got 0.25");
	check_bad(HEAP "[\"alloc\",\"1\",8]]}", 2, 10, "id must be an integer, got a string");
}

static void numbers_out_of_range(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",-1,8]]}", 2, 10, "id must be >= 0, got -1");
	check_bad(HEAP "[\"alloc\",2147483648,8]]}", 2, 10,
		  "id must be at most 2147483647, got 2147483648");
	check_bad(HEAP "[\"alloc\",1,0]]}", 2, 12, "size must be >= 1, got 0");
	check_bad(HEAP "[\"alloc\",1,262145]]}", 2, 12,
		  "size 262145 is larger than arena_bytes (262144)");
	check_bad("{\"version\":1,\"arena\":\"ewram\",\"arena_bytes\":1024,\"events\":[\n"
		  "[\"alloc\",1,8],[\"realloc\",1,1025]]}",
		  2, 28, "size 1025 is larger than arena_bytes (1024)");
	check_bad(HEAP "[\"alloc\",1,8,3]]}", 2, 14, "align must be a power of two, got 3");
	check_bad(HEAP "[\"alloc\",1,8,0]]}", 2, 14, "align must be a power of two, got 0");
	check_bad(HEAP "[\"alloc\",1,8,524288]]}", 2, 14, "align 524288 is larger than arena_bytes");
	check_bad(TILES "[\"ref\",3,16]]}", 2, 10, "bpp must be 4 or 8, got 16");
	check_bad(TILES "[\"ref\",3,6]]}", 2, 10, "bpp must be 4 or 8, got 6");
	check_bad(TILES "[\"ref\",-3,4]]}", 2, 8, "rom_tile must be >= 0, got -3");
	check_bad(TILES "[\"ref\",4294967296,4]]}", 2, 8, "rom_tile must be at most 2147483647");
}

static void huge_exponents_overflow_but_exact_exponents_are_integers(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",1,1e400]]}", 2, 12, "size is out of range (number too large)");
	check_bad(HEAP "[\"alloc\",1e20,8]]}", 2, 10, "id must be at most 2147483647");
	struct agb_loaded_trace t;
	load_ok(HEAP "[\"alloc\",1e3,2.4e1,1.6E1]]}", &t);
	assert_int_equal(t.trace.events[0].id, 1000);
	assert_int_equal(t.trace.events[0].size, 24);
	assert_int_equal(t.trace.events[0].align, 16);
	agb_trace_release(&t);
	/* 1E1 = 10 is an integer, so the error is about the value, not its spelling. */
	check_bad(HEAP "[\"alloc\",1e3,2.4e1,1E1]]}", 2, 20, "align must be a power of two, got 10");
}

static void free_or_realloc_of_an_id_never_allocated(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",1,8],\n[\"free\",2]]}", 3, 9, "free of id 2, which was never allocated");
	check_bad(HEAP "[\"realloc\",7,8]]}", 2, 12, "realloc of id 7, which was never allocated");
}

static void free_or_realloc_of_an_id_not_live(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",1,8],[\"free\",1],[\"free\",1]]}", 2, 34,
		  "free of id 1, which is not live (already freed)");
	check_bad(HEAP "[\"alloc\",1,8],[\"free\",1],[\"realloc\",1,4]]}", 2, 37,
		  "realloc of id 1, which is not live (already freed)");
}

static void alloc_of_a_live_id(void **state)
{
	(void)state;
	check_bad(HEAP "[\"alloc\",1,8],[\"alloc\",1,8]]}", 2, 24,
		  "alloc of id 1, which is already live");
}

static void unref_without_a_live_ref(void **state)
{
	(void)state;
	check_bad(TILES "[\"unref\",17,4]]}", 2, 10, "unref of tile 17 at 4bpp, which has no live ref");
	/* A ref at one depth does not cover the other depth, and the last unref ends the ref. */
	check_bad(TILES "[\"ref\",17,4],[\"unref\",17,8]]}", 2, 23, "tile 17 at 8bpp");
	check_bad(TILES "[\"ref\",17,4],[\"unref\",17,4],[\"unref\",17,4]]}", 2, 38, "no live ref");
}

static void ops_must_match_the_arena(void **state)
{
	(void)state;
	check_bad(HEAP "[\"ref\",1,4]]}", 2, 2, "op \"ref\" is only valid in a bg_vram trace");
	check_bad(TILES "[\"alloc\",1,4]]}", 2, 2, "op \"alloc\" is not valid in a bg_vram trace");
}

static void io_errors_have_no_position(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	struct agb_diag d;
	char buf[1024];
	assert_int_equal(agb_trace_load_file("/nonexistent/agbsim.json", &t, &d), AGB_LOAD_IO_ERROR);
	assert_int_equal(d.line, 0);
	agb_diag_format(&d, buf, sizeof buf);
	assert_string_equal(buf, "/nonexistent/agbsim.json: cannot open: No such file or directory");
	assert_int_equal(agb_trace_load_file(".", &t, &d), AGB_LOAD_IO_ERROR);
	agb_diag_format(&d, buf, sizeof buf);
	assert_string_equal(buf, ".: cannot open: Is a directory");
	agb_trace_release(&t);
}

/* ---- issue 12: control bytes, streaming, limits, positions after loading ---- */

/* check_bad on an exact-size heap copy without a terminator, so a read past the end is an
 * ASan error (the asan preset) and not a lucky NUL. COL_AT is the text the error must point
 * at (its first occurrence after FROM). */
static void check_bad_exact(const char *text, const char *from, const char *col_at,
			    const char *substr)
{
	size_t len = strlen(text);
	char *copy = malloc(len);
	const char *at = strstr(strstr(text, from), col_at);
	unsigned line = 1, col = 1;
	assert_non_null(copy);
	assert_non_null(at);
	memcpy(copy, text, len);
	for (const char *c = text; c < at; c++, col++)
		if (*c == '\n') {
			line++;
			col = 0;
		}
	check_bad_n(copy, len, AGB_LOAD_BAD_INPUT, line, col, substr);
	free(copy);
}

static void control_bytes_are_not_whitespace(void **state)
{
	(void)state;
	/* RFC 8259 whitespace is space, tab, LF and CR; cJSON would skip every byte 0x01..0x20. The
	 * byte itself is the error, before any semantic error after it. */
	check_bad_exact("{\"version\":1,\"arena\":\"ewram\",\"events\":\x0b[[\"alloc\",1,16],"
			"[\"frame\"],[\"alloc\",1,8]]}",
			"{", "\x0b", "expected a value, got byte 0x0B");
	check_bad_exact("{\"version\":1,\"arena\":\"ewram\",\"events\":[[\"alloc\",1,16],\x0c"
			"[\"free\",2]]}",
			"{", "\x0c", "got byte 0x0C");
	check_bad_exact("\x1f{\"version\":1,\"arena\":\"ewram\",\"events\":[]}", "\x1f", "\x1f",
			"expected a value, got byte 0x1F");
	/* Tab, CR and LF everywhere whitespace may be: positions stay right. */
	check_bad_exact("\t{\"version\":1,\"arena\":\"ewram\",\t\"events\"\r:\n[\t[\t\"bogus\"\t]"
			"\t]\t}\t",
			"{", "\"bogus\"", "unknown op");
}

static void a_syntax_error_is_reported_before_an_earlier_semantic_error(void **state)
{
	(void)state;
	/* As if the whole document were parsed first: event 0 is bad, event 2 is not JSON. */
	check_bad(HEAP "[\"free\",5],\n[\"frame\"],\n[\"frame\" 1]\n]}", 4, 10,
		  "expected ',' or ']'");
	/* A header error waits for the events' syntax too. */
	check_bad("{\"version\":2,\"arena\":\"ewram\",\"events\":[\n[\"frame\",]]}", 2, 10,
		  "trailing comma");
	check_bad(HEAP "[\"frame\"],\n[\"free\",1]\n]}   x", 4, 6, "trailing data");
}

static void events_key_spelled_with_escapes_still_loads(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok("{\"version\":1,\"arena\":\"ewram\",\"ev\\u0065nts\":[[\"alloc\",1,16],[\"free\",1]]}",
		&t);
	assert_int_equal(t.trace.event_count, 2);
	assert_int_equal(t.events[1].op, AGB_OP_FREE);
	agb_trace_release(&t);
}

static void ids_can_be_reused_after_free_many_times(void **state)
{
	(void)state;
	/* The life-cycle maps drop freed ids and hidden sprites: reuse must still be checked. */
	char text[64 * 40 + 200];
	size_t n = (size_t)snprintf(text, sizeof text, "%s", HEAP);
	for (int i = 0; i < 60; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "[\"alloc\",%d,8],[\"free\",%d],",
				      i % 7, i % 7);
	snprintf(text + n, sizeof text - n, "[\"frame\"]]}");
	struct agb_loaded_trace t;
	load_ok(text, &t);
	assert_int_equal(t.trace.event_count, 121);
	assert_int_equal(t.trace.slots, 1);
	agb_trace_release(&t);
}

static char *write_temp(const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/input.json", AGB_TEST_TMP_DIR);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void input_beyond_the_limit_is_bad_input_without_position(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	struct agb_diag d;
	char *path = write_temp(HEAP "[\"frame\"],[\"frame\"],[\"frame\"]]}");
	assert_int_equal(agb_trace_load_file_max(path, 40, &t, &d), AGB_LOAD_BAD_INPUT);
	assert_int_equal(d.line, 0);
	assert_non_null(strstr(d.message, "larger than 40 bytes"));
	assert_int_equal(agb_trace_load_file_max(path, 1000, &t, &d), AGB_LOAD_OK);
	assert_int_equal(t.trace.event_count, 3);
	agb_trace_release(&t);
	remove(path);
}

static void an_event_is_located_again_after_loading(void **state)
{
	(void)state;
	struct agb_diag d;
	char *path = write_temp(HEAP "  [\"alloc\",1,8],\n\t[\"reset\",7],\n[\"free\",1]\n]}");
	assert_int_equal(agb_trace_locate_event(path, 1, &d), 0);
	assert_int_equal(d.line, 3);
	assert_int_equal(d.col, 2);
	assert_int_equal(agb_trace_locate_event(path, 0, &d), 0);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 3);
	assert_int_equal(agb_trace_locate_event(path, 3, &d), -1);
	assert_int_equal(d.line, 0);
	assert_int_equal(agb_trace_locate_event("-", 0, &d), -1);
	remove(path);
}

static void diag_format_has_file_line_col(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	struct agb_diag d;
	char buf[1024];
	const char *text = HEAP "[\"frame\"],\n  [\"boom\"]]}";
	assert_int_equal(agb_trace_load_buffer("traces/x.json", text, strlen(text), &t, &d), 2);
	agb_diag_format(&d, buf, sizeof buf);
	/* Extension ops are listed after the v1 ones; the v1 list comes first, always. */
	const char *want = "traces/x.json:3:4: unknown op \"boom\" (version 1 has alloc, free, "
			   "realloc, frame, ref, unref";
	assert_int_equal(strncmp(buf, want, strlen(want)), 0);
}

/* ---- good traces ---- */

static void all_heap_ops_load(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok("{\"version\":1,\"arena\":\"obj_vram\",\"events\":[\n"
		"[\"alloc\",1,24],[\"alloc\",2,4096,32],[\"realloc\",1,40],[\"free\",2],[\"frame\"],"
		"[\"free\",1],[\"frame\"]]}",
		&t);
	const struct agb_trace *tr = &t.trace;
	assert_int_equal(tr->arena, AGB_ARENA_OBJ_VRAM);
	assert_int_equal(tr->arena_bytes, 32768); /* default: the whole region */
	assert_int_equal(tr->event_count, 7);
	assert_int_equal(tr->frame_count, 2);
	assert_int_equal(tr->slots, 2);
	assert_null(tr->name);
	const struct agb_event *e = tr->events;
	assert_int_equal(e[0].op, AGB_OP_ALLOC);
	assert_int_equal(e[0].id, 1);
	assert_int_equal(e[0].size, 24);
	assert_int_equal(e[0].align, 1);
	assert_int_equal(e[0].slot, 0);
	assert_int_equal(e[1].align, 32);
	assert_int_equal(e[1].slot, 1);
	assert_int_equal(e[2].op, AGB_OP_REALLOC);
	assert_int_equal(e[2].size, 40);
	assert_int_equal(e[2].slot, 0);
	assert_int_equal(e[3].op, AGB_OP_FREE);
	assert_int_equal(e[3].slot, 1);
	assert_int_equal(e[4].op, AGB_OP_FRAME);
	assert_int_equal(e[5].slot, 0);
	agb_trace_release(&t);
}

static void tile_ops_load(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok(TILES "[\"ref\",0,4],[\"ref\",17,8],[\"ref\",17,8],[\"unref\",17,8],[\"frame\"],"
		      "[\"unref\",17,8],[\"unref\",0,4],[\"ref\",2147483647,4]]}",
		&t);
	assert_int_equal(t.trace.arena, AGB_ARENA_BG_VRAM);
	assert_int_equal(t.trace.arena_bytes, 65536);
	assert_int_equal(t.trace.event_count, 8);
	assert_int_equal(t.trace.frame_count, 1);
	assert_int_equal(t.trace.slots, 0);
	assert_int_equal(t.trace.events[1].op, AGB_OP_REF);
	assert_int_equal(t.trace.events[1].id, 17);
	assert_int_equal(t.trace.events[1].size, 8);
	assert_int_equal(t.trace.events[6].op, AGB_OP_UNREF);
	assert_int_equal(t.trace.events[7].id, 2147483647u);
	agb_trace_release(&t);
}

/* Palette ops: handles from the slot numbers, side and key packed in align, and frees and pops
 * repeating what they release. */
static void pal_ops_load(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok(PALS "[\"pal_load\",7,1,2147483647,16],[\"pal_load\",8,0,5,256],[\"frame\"],"
		     "[\"pal_push\",9,0,6,17],[\"pal_free\",7],[\"pal_pop\",0],"
		     "[\"pal_load\",7,1,3,1]]}",
		&t);
	const struct agb_event *e = t.trace.events;
	assert_int_equal(t.trace.arena, AGB_ARENA_PAL_RAM);
	assert_int_equal(t.trace.arena_bytes, 1024);
	assert_int_equal(t.trace.event_count, 7);
	assert_int_equal(t.trace.slots, 2);
	assert_int_equal(e[0].op, AGB_OP_PAL_LOAD);
	assert_int_equal(e[0].id, 7);
	assert_int_equal(e[0].slot, 0);
	assert_int_equal(e[0].size, 16);
	assert_int_equal(AGB_PAL_EV_SIDE(e[0].align), 1);
	assert_int_equal(AGB_PAL_EV_KEY(e[0].align), 2147483647u);
	assert_int_equal(e[1].slot, 1);
	assert_int_equal(AGB_PAL_EV_SIDE(e[3].align), 0);
	assert_int_equal(e[3].size, 17);
	assert_int_equal(e[4].op, AGB_OP_PAL_FREE);
	assert_int_equal(e[4].slot, 0);
	assert_int_equal(e[4].size, 16);
	assert_int_equal(e[4].align, e[0].align);
	assert_int_equal(e[5].op, AGB_OP_PAL_POP);
	assert_int_equal(e[5].id, 9);
	assert_int_equal(e[5].size, 17);
	assert_int_equal(e[6].slot, 0); /* the freed handle again */
	agb_trace_release(&t);
}

static void pal_ops_are_validated(void **state)
{
	(void)state;
	check_bad(HEAP "[\"pal_load\",1,0,1,16]]}", 2, 2,
		  "op \"pal_load\" is only valid in a pal_ram trace");
	check_bad(PALS "[\"alloc\",1,4]]}", 2, 2, "op \"alloc\" is not valid in a pal_ram trace");
	check_bad(PALS "[\"pal_load\",1,0,1]]}", 2, 1, "\"pal_load\" takes 4 arguments");
	check_bad(PALS "[\"pal_load\",1,2,1,16]]}", 2, 15, "side must be at most 1, got 2");
	check_bad(PALS "[\"pal_load\",1,0,1,0]]}", 2, 19, "colors must be >= 1, got 0");
	check_bad(PALS "[\"pal_load\",1,0,1,257]]}", 2, 19, "colors must be at most 256, got 257");
	check_bad(PALS "[\"pal_load\",1,0,2147483648,16]]}", 2, 17, "key must be at most");
	check_bad(PALS "[\"pal_load\",1,0,1,16],[\"pal_push\",1,0,2,16]]}", 2, 35,
		  "pal_push of palette 1, which is already live (pal_free it first)");
	check_bad(PALS "[\"pal_free\",3]]}", 2, 13, "pal_free of palette 3, which is not loaded");
	check_bad(PALS "[\"pal_push\",3,1,1,16],[\"pal_free\",3]]}", 2, 35,
		  "pal_free of palette 3, which is on the palette stack");
	check_bad(PALS "[\"pal_push\",3,1,1,16],[\"pal_pop\",0]]}", 2, 34,
		  "pal_pop of side 0, whose palette stack is empty");
	check_bad(PALS "[\"pal_pop\",1]]}", 2, 12, "pal_pop of side 1");
}

static void slots_are_dense_and_reused_lifo(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok(HEAP "[\"alloc\",100,8],[\"alloc\",2000000000,8],[\"alloc\",3,8],[\"free\",2000000000],"
		     "[\"alloc\",4,8],[\"free\",100],[\"free\",3],[\"alloc\",5,8],[\"alloc\",100,8],"
		     "[\"alloc\",6,8]]}",
		&t);
	const struct agb_event *e = t.trace.events;
	assert_int_equal(e[0].slot, 0);
	assert_int_equal(e[1].slot, 1);
	assert_int_equal(e[2].slot, 2);
	assert_int_equal(e[3].slot, 1);
	assert_int_equal(e[4].slot, 1); /* reuses the slot freed just before */
	assert_int_equal(e[7].slot, 2); /* last freed (id 3) first */
	assert_int_equal(e[8].slot, 0); /* id 100 may be allocated again after its free */
	assert_int_equal(e[9].slot, 3);
	assert_int_equal(t.trace.slots, 4);
	agb_trace_release(&t);
}

static void metadata_is_kept_and_unknown_keys_ignored(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok("{\"version\":1,\"arena\":\"ewram\",\"arena_bytes\":196608,\"name\":\"lua-entities\","
		"\"source\":\"glibc mtrace \\\"x\\\" \\u00e9\",\"mtrace\":{\"lines\":[1,2]},"
		"\"comment\":null,\"events\":[[\"frame\"]]}",
		&t);
	assert_int_equal(t.trace.arena_bytes, 196608);
	assert_string_equal(t.trace.name, "lua-entities");
	assert_string_equal(t.trace.source, "glibc mtrace \"x\" \xc3\xa9");
	assert_int_equal(t.trace.frame_count, 1);
	agb_trace_release(&t);
}

static void options_object_is_ignored(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok(HEAP "[\"alloc\",1,8,{\"tag\":\"hero\"}],[\"alloc\",2,8,16,{\"a\":[1,{}]}],"
		     "[\"frame\",{}],[\"free\",1,{}]]}",
		&t);
	assert_int_equal(t.trace.event_count, 4);
	assert_int_equal(t.trace.events[0].align, 1);
	assert_int_equal(t.trace.events[1].align, 16);
	assert_int_equal(t.trace.frame_count, 1);
	agb_trace_release(&t);
	/* Only as the last element: an object in an argument position is a type error. */
	check_bad(HEAP "[\"alloc\",{},1,8]]}", 2, 10, "id must be an integer, got an object");
}

static void empty_event_list_and_crlf(void **state)
{
	(void)state;
	struct agb_loaded_trace t;
	load_ok("\xEF\xBB\xBF{\"version\":1,\r\n\"arena\":\"ewram\",\"events\":[]}\r\n", &t);
	assert_int_equal(t.trace.event_count, 0);
	assert_null(t.trace.events);
	agb_trace_release(&t);
}

static void load_file_reads_a_file(void **state)
{
	(void)state;
	const char *path = "test_loader_tmp.json";
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(HEAP "[\"alloc\",1,8],[\"frame\"]]}\n", f);
	fclose(f);
	struct agb_loaded_trace t;
	struct agb_diag d;
	assert_int_equal(agb_trace_load_file(path, &t, &d), AGB_LOAD_OK);
	assert_int_equal(t.trace.event_count, 2);
	agb_trace_release(&t);
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs(HEAP "[\"free\",1]]}\n", f);
	fclose(f);
	assert_int_equal(agb_trace_load_file(path, &t, &d), AGB_LOAD_BAD_INPUT);
	assert_string_equal(d.file, path);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 9);
	remove(path);
}

/* A file bigger than the loader's window (8 MiB) is viewed and its pages handed back behind the
 * parser; loading it gives the same events as the buffer it holds, and an error far past the
 * window still gets its exact position (the error path reads the handed-back pages again). */
static void big_file_loads_like_its_buffer(void **state)
{
	(void)state;
	const char *path = "test_loader_big.json";
	const unsigned n = 1500000; /* ~21 MB of events */
	struct agb_memstream ms;
	assert_int_equal(agb_memstream_open(&ms), 0);
	fputs(HEAP "\n", ms.f);
	for (unsigned i = 0; i < n; i++)
		fprintf(ms.f, "[\"alloc\",%u,%u],\n[\"free\",%u],\n", i, 8u + i % 64u, i);
	fputs("[\"frame\"]]}\n", ms.f);
	assert_int_equal(agb_memstream_close(&ms), 0);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(ms.data, 1, ms.len, f), ms.len);
	assert_int_equal(fclose(f), 0);

	struct agb_loaded_trace from_file, from_buffer;
	struct agb_diag d;
	assert_int_equal(agb_trace_load_file(path, &from_file, &d), AGB_LOAD_OK);
	assert_int_equal(agb_trace_load_buffer("b", ms.data, ms.len, &from_buffer, &d), AGB_LOAD_OK);
	assert_int_equal(from_file.trace.event_count, 2u * n + 1u);
	assert_int_equal(from_file.trace.event_count, from_buffer.trace.event_count);
	assert_int_equal(from_file.trace.slots, from_buffer.trace.slots);
	assert_memory_equal(from_file.events, from_buffer.events,
			    from_file.trace.event_count * sizeof *from_file.events);
	agb_trace_release(&from_file);
	agb_trace_release(&from_buffer);

	/* The last event (line 2n + 3: the header, an empty line, 2n events) loses its closing bracket:
	 * ["frame",]} is refused at its column 10. */
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)ms.len - 4, SEEK_SET), 0);
	assert_int_equal(fputc(',', f), ',');
	assert_int_equal(fclose(f), 0);
	assert_int_equal(agb_trace_load_file(path, &from_file, &d), AGB_LOAD_BAD_INPUT);
	assert_int_equal(d.line, 2u * n + 3u);
	assert_int_equal(d.col, 10);
	free(ms.data);
	remove(path);
}

static void writer_round_trips(void **state)
{
	(void)state;
	struct agb_loaded_trace a, b;
	load_ok("{\"version\":1,\"arena\":\"ewram\",\"arena_bytes\":4096,\"name\":\"tab\\there\","
		"\"source\":\"q\\\"b\\\\s\\u0001 \xe2\x82\xac\",\"events\":[\n"
		"[\"alloc\",1,24],[\"alloc\",2147483647,4096,32],[\"realloc\",1,40],[\"free\",2147483647],"
		"[\"frame\"],[\"alloc\",9,1,4096],[\"free\",1],[\"frame\",\"load\"]]}",
		&a);
	assert_int_equal(a.trace.events[a.trace.event_count - 1u].size, AGB_FRAME_LOAD);
	assert_int_equal(a.trace.events[4].size, 0);
	struct agb_memstream ms;
	assert_int_equal(agb_memstream_open(&ms), 0);
	assert_int_equal(agb_trace_write_json(ms.f, &a.trace), 0);
	assert_int_equal(agb_memstream_close(&ms), 0);
	char *text = ms.data;
	size_t len = ms.len;
	/* Stable shape: key order and one event per line. */
	static const char head[] = "{\"version\":1,\"arena\":\"ewram\",\"arena_bytes\":4096,\"name\":";
	assert_true(strncmp(text, head, sizeof head - 1) == 0);
	assert_non_null(strstr(text, "\"events\":[\n[\"alloc\",1,24],\n[\"alloc\",2147483647,4096,32],\n"));
	struct agb_diag d;
	assert_int_equal(agb_trace_load_buffer("rt.json", text, len, &b, &d), AGB_LOAD_OK);
	assert_int_equal(b.trace.arena, a.trace.arena);
	assert_int_equal(b.trace.arena_bytes, 4096);
	assert_int_equal(b.trace.event_count, a.trace.event_count);
	assert_int_equal(b.trace.frame_count, a.trace.frame_count);
	assert_int_equal(b.trace.slots, a.trace.slots);
	assert_string_equal(b.trace.name, "tab\there");
	assert_string_equal(b.trace.source, a.trace.source);
	assert_memory_equal(b.trace.events, a.trace.events, a.trace.event_count * sizeof(struct agb_event));
	free(text);
	agb_trace_release(&a);

	/* A bg_vram trace without metadata. */
	load_ok(TILES "[\"ref\",5,8],[\"frame\"],[\"unref\",5,8]]}", &a);
	assert_int_equal(agb_memstream_open(&ms), 0);
	assert_int_equal(agb_trace_write_json(ms.f, &a.trace), 0);
	assert_int_equal(agb_memstream_close(&ms), 0);
	text = ms.data;
	len = ms.len;
	agb_trace_release(&b);
	assert_int_equal(agb_trace_load_buffer("rt.json", text, len, &b, &d), AGB_LOAD_OK);
	assert_null(b.trace.name);
	assert_memory_equal(b.trace.events, a.trace.events, a.trace.event_count * sizeof(struct agb_event));
	free(text);
	agb_trace_release(&a);
	agb_trace_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(malformed_json_says_what_was_expected),
		cmocka_unit_test(truncated_file_is_unexpected_eof),
		cmocka_unit_test(empty_file),
		cmocka_unit_test(binary_garbage_is_rejected_before_parsing),
		cmocka_unit_test(deep_nesting_is_rejected_without_recursion),
		cmocka_unit_test(trailing_data_after_the_document),
		cmocka_unit_test(top_level_must_be_an_object),
		cmocka_unit_test(duplicate_top_level_key),
		cmocka_unit_test(version_missing_wrong_type_or_unsupported),
		cmocka_unit_test(arena_missing_or_unknown),
		cmocka_unit_test(arena_bytes_must_be_a_positive_integer_within_the_region),
		cmocka_unit_test(events_missing_or_not_an_array),
		cmocka_unit_test(metadata_name_must_be_a_string),
		cmocka_unit_test(event_not_an_array_or_empty),
		cmocka_unit_test(op_not_a_string),
		cmocka_unit_test(unknown_op_is_rejected),
		cmocka_unit_test(wrong_arity), cmocka_unit_test(sync_needs_a_mark),
		cmocka_unit_test(refused_requests),
		cmocka_unit_test(fractional_numbers_are_not_integers),
		cmocka_unit_test(numbers_out_of_range),
		cmocka_unit_test(huge_exponents_overflow_but_exact_exponents_are_integers),
		cmocka_unit_test(free_or_realloc_of_an_id_never_allocated),
		cmocka_unit_test(free_or_realloc_of_an_id_not_live),
		cmocka_unit_test(alloc_of_a_live_id),
		cmocka_unit_test(unref_without_a_live_ref),
		cmocka_unit_test(ops_must_match_the_arena),
		cmocka_unit_test(io_errors_have_no_position),
		cmocka_unit_test(diag_format_has_file_line_col),
		cmocka_unit_test(control_bytes_are_not_whitespace),
		cmocka_unit_test(a_syntax_error_is_reported_before_an_earlier_semantic_error),
		cmocka_unit_test(events_key_spelled_with_escapes_still_loads),
		cmocka_unit_test(ids_can_be_reused_after_free_many_times),
		cmocka_unit_test(input_beyond_the_limit_is_bad_input_without_position),
		cmocka_unit_test(cache_ops),
		cmocka_unit_test(an_event_is_located_again_after_loading),
		cmocka_unit_test(all_heap_ops_load),
		cmocka_unit_test(tile_ops_load),
		cmocka_unit_test(pal_ops_load),
		cmocka_unit_test(pal_ops_are_validated),
		cmocka_unit_test(slots_are_dense_and_reused_lifo),
		cmocka_unit_test(metadata_is_kept_and_unknown_keys_ignored),
		cmocka_unit_test(options_object_is_ignored),
		cmocka_unit_test(empty_event_list_and_crlf),
		cmocka_unit_test(load_file_reads_a_file),
		cmocka_unit_test(big_file_loads_like_its_buffer),
		cmocka_unit_test(writer_round_trips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
