/* trace_json.c - load and validate a v1 JSON trace (docs/trace-format.md) into the compact event
 * array of agbsim/trace.h. See trace_load.h for the contract.
 *
 * Pipeline, cheapest rejection first:
 *   1. pre-scan of the raw bytes: NUL bytes and invalid UTF-8 (binary input) and nesting deeper
 *      than AGB_TRACE_MAX_DEPTH are rejected with their position before cJSON sees anything
 *      (cJSON recurses per level, so a million '[' must never reach it);
 *   2. cJSON_ParseWithLength builds the tree, its nodes coming from a bump arena;
 *   3. one walk over the tree validates types, ranges and the id/tile life cycle and fills the
 *      event array.
 * cJSON keeps no positions, so positions are only computed on the error path: syntax errors are
 * re-scanned by a small recognizer that knows what was expected (cJSON's own error pointer is
 * vague: it points at the last byte on truncation), semantic errors are located by skipping
 * over the (already valid) text to the Nth event and its Kth element.
 */
#define _POSIX_C_SOURCE 200809L

#include "platform/platform.h"
#include "platform/view_guard.h"
#include "trace/json_util.h"
#include "trace/trace_load.h"

#include "agb/cache.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__GNUC__)
#define AGB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AGB_PRINTF(f, a)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Op table. A new op (an extension such as "mark" or "spr_show") is one entry here plus its
 * enum agb_op value; arity and argument checks are driven by the table. */

enum arg_kind {
	ARG_ID,    /* 0 .. 2^31-1 */
	ARG_SIZE,  /* 1 .. arena_bytes */
	ARG_ALIGN, /* power of two, 1 .. arena_bytes */
	ARG_TILE,  /* 0 .. 2^31-1 */
	ARG_BPP,   /* 4 or 8 */
	ARG_DEPTH, /* sprite depth z: 0 .. 65535 */
	ARG_MARKER, /* mark/reset marker: 0 .. 2^31-1 */
	ARG_SIDE,   /* stack2 side: 0 (low, grows up) or 1 (high, grows down); palette side */
	ARG_KEY,    /* palette colour key: 0 .. 2^31-1 */
	ARG_COLORS, /* palette colours: 1 .. 256 */
	ARG_FRAME,  /* frame kind: the string "load" (a loading frame), stored as AGB_FRAME_LOAD */
	ARG_REQUEST /* a refused request's size: 1 .. 2^32-1 (a game may ask for more than any pool) */
};

#define ARENAS_HEAP (AGB_ARENA_BIT(AGB_ARENA_EWRAM) | AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM))
#define ARENAS_TILES AGB_ARENA_BIT(AGB_ARENA_BG_VRAM)
#define ARENAS_ALL (ARENAS_HEAP | ARENAS_TILES)
#define ARENAS_SPRITES AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM)
#define ARENAS_PAL AGB_ARENA_BIT(AGB_ARENA_PAL_RAM)
#define MAX_ARGS 4

struct op_spec {
	const char *name;
	enum agb_op op;
	unsigned min_args, max_args; /* not counting the op name or a trailing options object */
	unsigned arenas;             /* AGB_ARENA_BIT mask of the arenas the op is valid in */
	const char *usage;           /* for arity messages */
	enum arg_kind args[MAX_ARGS];
};

static const struct op_spec op_table[] = {
	{"alloc", AGB_OP_ALLOC, 2, 3, ARENAS_HEAP, "[\"alloc\", id, size] or [\"alloc\", id, size, align]",
	 {ARG_ID, ARG_SIZE, ARG_ALIGN}},
	{"free", AGB_OP_FREE, 1, 1, ARENAS_HEAP, "[\"free\", id]", {ARG_ID}},
	{"realloc", AGB_OP_REALLOC, 2, 2, ARENAS_HEAP, "[\"realloc\", id, size]", {ARG_ID, ARG_SIZE}},
	{"frame", AGB_OP_FRAME, 0, 1, ARENAS_ALL | ARENAS_PAL, "[\"frame\"] or [\"frame\", \"load\"]",
	 {ARG_FRAME}},
	{"ref", AGB_OP_REF, 2, 2, ARENAS_TILES, "[\"ref\", rom_tile, bpp]", {ARG_TILE, ARG_BPP}},
	{"unref", AGB_OP_UNREF, 2, 2, ARENAS_TILES, "[\"unref\", rom_tile, bpp]", {ARG_TILE, ARG_BPP}},
	/* Shadow-OAM extension (docs/trace-format.md). */
	{"spr_show", AGB_OP_SPR_SHOW, 2, 2, ARENAS_SPRITES, "[\"spr_show\", id, z]", {ARG_ID, ARG_DEPTH}},
	{"spr_z", AGB_OP_SPR_Z, 2, 2, ARENAS_SPRITES, "[\"spr_z\", id, z]", {ARG_ID, ARG_DEPTH}},
	{"spr_hide", AGB_OP_SPR_HIDE, 1, 1, ARENAS_SPRITES, "[\"spr_hide\", id]", {ARG_ID}},
	/* Linear-allocator extension (bump, stack2; docs/trace-format.md). */
	{"mark", AGB_OP_MARK, 1, 1, ARENAS_HEAP, "[\"mark\", marker]", {ARG_MARKER}},
	{"reset", AGB_OP_RESET, 1, 1, ARENAS_HEAP, "[\"reset\", marker]", {ARG_MARKER}},
	{"side", AGB_OP_SIDE, 1, 1, ARENAS_HEAP, "[\"side\", 0 or 1]", {ARG_SIDE}},
	/* Palette extension (pal_ram; docs/trace-format.md). */
	{"pal_load", AGB_OP_PAL_LOAD, 4, 4, ARENAS_PAL, "[\"pal_load\", id, side, key, colors]",
	 {ARG_ID, ARG_SIDE, ARG_KEY, ARG_COLORS}},
	{"pal_free", AGB_OP_PAL_FREE, 1, 1, ARENAS_PAL, "[\"pal_free\", id]", {ARG_ID}},
	{"pal_push", AGB_OP_PAL_PUSH, 4, 4, ARENAS_PAL, "[\"pal_push\", id, side, key, colors]",
	 {ARG_ID, ARG_SIDE, ARG_KEY, ARG_COLORS}},
	{"pal_pop", AGB_OP_PAL_POP, 1, 1, ARENAS_PAL, "[\"pal_pop\", side]", {ARG_SIDE}},
	/* Streamed-sections extension (stack2 and bump; docs/trace-format.md). */
	{"sync", AGB_OP_SYNC, 1, 1, ARENAS_HEAP, "[\"sync\", marker]", {ARG_MARKER}},
	/* Resource-cache extension (agb/cache.h; docs/trace-format.md). */
	{"lock", AGB_OP_LOCK, 2, 2, ARENAS_HEAP, "[\"lock\", key, size]", {ARG_ID, ARG_SIZE}},
	{"unlock", AGB_OP_UNLOCK, 1, 1, ARENAS_HEAP, "[\"unlock\", key]", {ARG_ID}},
	{"touch", AGB_OP_TOUCH, 2, 2, ARENAS_HEAP, "[\"touch\", key, size]", {ARG_ID, ARG_SIZE}},
	/* Refused-request extension (a recording's NULL returns; docs/trace-format.md). */
	{"refused", AGB_OP_REFUSED, 1, 2, ARENAS_HEAP,
	 "[\"refused\", size] or [\"refused\", size, align]", {ARG_REQUEST, ARG_ALIGN}},
};
#define OP_TABLE_LEN (sizeof op_table / sizeof op_table[0])

static const struct op_spec *find_op(const char *name)
{
	for (size_t i = 0; i < OP_TABLE_LEN; i++)
		if (strcmp(op_table[i].name, name) == 0)
			return &op_table[i];
	return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Bump arena behind cJSON's hooks: a 1M-event trace is ~5M nodes, and one malloc per node was
 * the largest cost of loading. Nothing is freed individually; the whole arena goes at once. */

struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

static struct chunk *arena_head;
static int arena_oom;

static void *arena_alloc(size_t n)
{
	n = (n + 15u) & ~(size_t)15u;
	struct chunk *c = arena_head;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = c == NULL ? (size_t)1 << 20 : c->cap * 2;
		if (cap > (size_t)64 << 20)
			cap = (size_t)64 << 20;
		if (cap < n)
			cap = n;
		struct chunk *nc = malloc(sizeof *nc + cap);
		if (nc == NULL) {
			arena_oom = 1;
			return NULL;
		}
		nc->next = c;
		nc->used = 0;
		nc->cap = cap;
		arena_head = nc;
		c = nc;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

static void arena_free(void *p)
{
	(void)p; /* released with the arena */
}

/* Empties the arena for the next event, keeping its newest chunk. */
static void arena_reset(void)
{
	while (arena_head != NULL && arena_head->next != NULL) {
		struct chunk *old = arena_head->next;
		arena_head->next = old->next;
		free(old);
	}
	if (arena_head != NULL)
		arena_head->used = 0;
}

static void arena_release(void)
{
	while (arena_head != NULL) {
		struct chunk *next = arena_head->next;
		free(arena_head);
		arena_head = next;
	}
	arena_oom = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Diagnostics */

struct loader {
	const char *text;
	size_t len;
	struct agb_diag *diag;
	enum agb_arena arena;
	uint32_t arena_bytes;
	size_t event_opens; /* '[' and '{' at nesting depth 3: an upper bound on the events */
	size_t ev_pos;      /* offset of the event being checked, when ev_known */
	int ev_known;
	struct agb_file_view *view; /* the text, when it is a viewed file (else NULL) */
	size_t passed_upto;         /* this pass has handed back a viewed file's pages before it */
};

/* How far behind the reader a viewed file's pages are handed back: big enough that the calls
 * cost nothing next to parsing, small next to the text (the loader's memory is then its event
 * array and this window, not the file). */
#define LOADER_WINDOW_BYTES ((size_t)8 << 20)

/* The reader is at offset OFF of the text and will not come back to what is before it in this
 * pass (the error path may, and reads the file again): a viewed file's pages behind it are given
 * back, so a pass holds a window of the file in memory, not all of it. A pass starts with
 * passed_upto = 0 (each pass reads the pages in again). O(1) but every LOADER_WINDOW_BYTES / 2. */
static void loader_pass(struct loader *L, size_t off)
{
	if (L->view != NULL && off > L->passed_upto && off - L->passed_upto > LOADER_WINDOW_BYTES)
		L->passed_upto =
			agb_file_view_pass(L->view, L->passed_upto, off - LOADER_WINDOW_BYTES / 2);
}

static void set_file(struct agb_diag *d, const char *name)
{
	snprintf(d->file, sizeof d->file, "%s", name);
}

/* Offset -> 1-based line and byte column. Only ever run once, on the error path. */
static void set_position(struct agb_diag *d, const char *text, size_t len, size_t off)
{
	unsigned line = 1;
	size_t bol = 0;
	if (off > len)
		off = len; /* one past the end: "at the end of the file", never a read beyond it */
	for (size_t i = 0; i < off; i++)
		if (text[i] == '\n') {
			line++;
			bol = i + 1;
		}
	d->line = line;
	d->col = (unsigned)(off - bol + 1);

}

static int vfail(struct loader *L, size_t off, const char *fmt, va_list ap)
{
	set_position(L->diag, L->text, L->len, off);
	vsnprintf(L->diag->message, sizeof L->diag->message, fmt, ap);
	return AGB_LOAD_BAD_INPUT;
}

AGB_PRINTF(3, 4) static int fail_at(struct loader *L, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfail(L, off, fmt, ap);
	va_end(ap);
	return r;
}

static const char *kind_name(const cJSON *v)
{
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	return "null";
}

/* ------------------------------------------------------------------------------------------ */
/* Step 1: pre-scan */

/* Bytes the pre-scan must look at; everything else (digits, letters, ',', ':', spaces) is skipped
 * by a tight loop, which is what keeps this pass cheap next to cJSON. */
static unsigned char prescan_special[256];

static void prescan_init(void)
{
	if (prescan_special['"'])
		return;
	for (unsigned c = 0x80; c < 0x100; c++)
		prescan_special[c] = 1;
	prescan_special[0] = prescan_special['"'] = prescan_special['\\'] = 1;
	prescan_special['['] = prescan_special[']'] = prescan_special['{'] = prescan_special['}'] = 1;
}

static int prescan(struct loader *L)
{
	const unsigned char *s = (const unsigned char *)L->text;
	size_t n = L->len, i = 0;
	unsigned depth = 0;
	int in_str = 0;
	prescan_init();
	L->passed_upto = 0;
	while (i < n) {
		while (i < n && !prescan_special[s[i]])
			i++;
		loader_pass(L, i);
		if (i >= n)
			break;
		unsigned c = s[i];
		if (c < 0x80) {
			if (c == 0)
				return fail_at(L, i, "NUL byte in input (not a text file?)");
			if (in_str) {
				if (c == '"')
					in_str = 0;
				else if (c == '\\' && i + 1 < n && s[i + 1] != 0 && s[i + 1] < 0x80)
					i++; /* the escaped byte cannot end the string */
			} else if (c == '"') {
				in_str = 1;
			} else if (c == '[' || c == '{') {
				if (++depth > AGB_TRACE_MAX_DEPTH)
					return fail_at(L, i,
						       "nesting deeper than %u levels (a trace needs 3; "
						       "limit of this loader)",
						       AGB_TRACE_MAX_DEPTH);
				L->event_opens += depth == 3;
			} else if ((c == ']' || c == '}') && depth > 0) {
				depth--;
			}
			i++;
			continue;
		}
		/* UTF-8 sequence (Unicode table 3-7: no overlongs, no surrogates, <= U+10FFFF). */
		unsigned need, lo = 0x80, hi = 0xBF;
		if (c >= 0xC2 && c <= 0xDF)
			need = 1;
		else if (c >= 0xE0 && c <= 0xEF) {
			need = 2;
			if (c == 0xE0)
				lo = 0xA0;
			else if (c == 0xED)
				hi = 0x9F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3;
			if (c == 0xF0)
				lo = 0x90;
			else if (c == 0xF4)
				hi = 0x8F;
		} else
			return fail_at(L, i, "invalid UTF-8 byte 0x%02X (not a text file?)", c);
		for (unsigned k = 1; k <= need; k++) {
			if (i + k >= n)
				return fail_at(L, i, "invalid UTF-8: sequence cut off by the end of file");
			unsigned b = s[i + k];
			/* At the sequence's first byte: that is where the bad character starts (the
			 * byte after it may be a valid one, as '(' in C3 28). */
			if (b < lo || b > hi)
				return fail_at(L, i,
					       "invalid UTF-8 sequence: byte 0x%02X cannot follow 0x%02X "
					       "(not a text file?)",
					       b, c);
			lo = 0x80;
			hi = 0xBF;
		}
		i += need + 1;
	}
	return AGB_LOAD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Error path for syntax errors: a strict JSON recognizer that stops at the first error and
 * says what was expected there. It builds nothing; cJSON remains the parser. Nesting is
 * already bounded by the pre-scan. Returns 1 and fills *off/msg when it finds an error. */

/* Whitespace as RFC 8259 has it: space, tab, LF, CR. cJSON reads every byte 0x01..0x20 as
 * whitespace, but it only ever sees text the strict pass (strict_syntax) has accepted, so the
 * scanners and cJSON agree about where each value starts. */
static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

enum expect { X_VALUE, X_VALUE_OR_CLOSE, X_KEY_OR_CLOSE, X_KEY, X_COLON, X_COMMA_OR_CLOSE, X_END };

static const char *describe_expect(enum expect e, char top)
{
	switch (e) {
	case X_VALUE:
		return "a value";
	case X_VALUE_OR_CLOSE:
		return "a value or ']'";
	case X_KEY_OR_CLOSE:
		return "a string key or '}'";
	case X_KEY:
		return "a string key";
	case X_COLON:
		return "':' after the key";
	case X_COMMA_OR_CLOSE:
		return top == '[' ? "',' or ']'" : "',' or '}'";
	case X_END:
		break;
	}
	return "the end of the document";
}

static void describe_byte(char *buf, size_t n, unsigned char c)
{
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, n, "'%c'", c);
	else
		snprintf(buf, n, "byte 0x%02X", c);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#define DIAG(o, ...)                                                                              \
	do {                                                                                      \
		*off = (o);                                                                       \
		snprintf(msg, msgn, __VA_ARGS__);                                                 \
		return 1;                                                                         \
	} while (0)

/* Scans the string starting at s[*pi] == '"'; leaves *pi after the closing quote. "\u0000" is
 * refused unless NUL_OK (the string is inside a value the reader ignores). */
static int diag_string(const char *s, size_t n, size_t *pi, int nul_ok, size_t *off, char *msg,
		       size_t msgn)
{
	size_t i = *pi + 1;
	for (;;) {
		if (i >= n)
			DIAG(n, "unexpected end of file inside a string (missing closing '\"')");
		unsigned char c = (unsigned char)s[i];
		if (c == '"')
			break;
		if (c < 0x20)
			DIAG(i, "control character 0x%02X inside a string (must be escaped)", c);
		if (c != '\\') {
			i++;
			continue;
		}
		if (i + 1 >= n)
			DIAG(n, "unexpected end of file inside a string (missing closing '\"')");
		c = (unsigned char)s[i + 1];
		if (c == 'u') {
			unsigned cp = 0;
			for (size_t k = 2; k < 6; k++) {
				if (i + k >= n)
					DIAG(n, "unexpected end of file inside a \\u escape");
				int h = hexval((unsigned char)s[i + k]);
				if (h < 0)
					DIAG(i, "invalid \\u escape (expected 4 hex digits)");
				cp = cp * 16 + (unsigned)h;
			}
			if (cp == 0 && !nul_ok)
				DIAG(i, "\\u0000 in a string (refused: a name would end there)");
			if (cp >= 0xDC00 && cp <= 0xDFFF)
				DIAG(i, "invalid \\u escape: unpaired low surrogate");
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				unsigned lo = 0;
				int ok = i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u';
				for (size_t k = 8; ok && k < 12; k++) {
					int h = hexval((unsigned char)s[i + k]);
					ok = h >= 0;
					lo = lo * 16 + (unsigned)(h < 0 ? 0 : h);
				}
				if (!ok || lo < 0xDC00 || lo > 0xDFFF)
					DIAG(i, "invalid \\u escape: high surrogate without a low one");
				i += 6;
			}
			i += 6;
		} else if (strchr("\"\\/bfnrt", c) != NULL && c != 0) {
			i += 2;
		} else {
			DIAG(i, "invalid escape sequence in a string");
		}
	}
	*pi = i + 1;
	return 0;
}

static int diag_number(const char *s, size_t n, size_t *pi, size_t *off, char *msg, size_t msgn)
{
	size_t i = *pi;
#define DIGIT(k) ((k) < n && s[k] >= '0' && s[k] <= '9')
	if (s[i] == '-')
		i++;
	if (i >= n)
		DIAG(n, "unexpected end of file inside a number");
	if (!DIGIT(i))
		DIAG(i, "invalid number (expected a digit after '-')");
	if (s[i] == '0' && DIGIT(i + 1))
		DIAG(i, "invalid number (leading zeros are not allowed)");
	while (DIGIT(i))
		i++;
	if (i < n && s[i] == '.') {
		i++;
		if (i >= n)
			DIAG(n, "unexpected end of file inside a number");
		if (!DIGIT(i))
			DIAG(i, "invalid number (expected a digit after '.')");
		while (DIGIT(i))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n)
			DIAG(n, "unexpected end of file inside a number");
		if (!DIGIT(i))
			DIAG(i, "invalid number (expected a digit in the exponent)");
		while (DIGIT(i))
			i++;
	}
#undef DIGIT
	*pi = i;
	return 0;
}

/* A scalar at s[*pi]: a string, a number, or true/false/null; leaves *pi after it. */
static int diag_scalar(const char *s, size_t n, size_t *pi, int nul_ok, size_t *off, char *msg,
		       size_t msgn)
{
	unsigned char c = (unsigned char)s[*pi];
	const char *lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
	size_t ll = strlen(lit), k = 0;
	if (c == '"')
		return diag_string(s, n, pi, nul_ok, off, msg, msgn);
	if (c == '-' || (c >= '0' && c <= '9'))
		return diag_number(s, n, pi, off, msg, msgn);
	while (k < ll && *pi + k < n && s[*pi + k] == lit[k])
		k++;
	if (k < ll && *pi + k >= n)
		DIAG(n, "unexpected end of file inside '%s'", lit);
	if (k < ll)
		DIAG(*pi, "invalid literal (expected true, false or null)");
	*pi += ll;
	return 0;
}

/* The syntax scan: the text, the position, the open containers and what may come next. */
struct syn {
	const char *s;
	size_t n, i, sp;
	char stack[AGB_TRACE_MAX_DEPTH + 1];
	enum expect state;
	char what[16];       /* the byte at i, described for messages */
	struct loader *pass; /* a loader whose viewed file is handed back behind the scan, or NULL */
	/* A trace (a reader that ignores some values): "\u0000" is allowed inside the value of an
	 * unknown top-level key and inside an event's options object, refused elsewhere. */
	int trace;
	int next_ignored; /* the value after the current top-level key is ignored */
	size_t ign_sp;    /* nonzero: the containers from stack[ign_sp - 1] on are ignored */
};

/* A top-level key (raw text s[b, e), quotes excluded) whose value the trace loader ignores:
 * not one of the header keys. A key spelled with escapes counts as known. */
static int ignored_key(const char *s, size_t b, size_t e)
{
	static const char *const known[] = {"version", "arena", "arena_bytes",
					    "name",    "source", "events"}; /* header_key_names */
	if (memchr(s + b, '\\', e - b) != NULL)
		return 0;
	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
		if (strlen(known[k]) == e - b && memcmp(known[k], s + b, e - b) == 0)
			return 0;
	return 1;
}

/* Inside an ignored value (for the value about to be scanned at y->i). */
static int syn_nul_ok(const struct syn *y)
{
	if (!y->trace)
		return 0;
	if (y->ign_sp != 0 && y->sp >= y->ign_sp)
		return 1;
	return y->sp == 1 && y->next_ignored;
}

/* The byte at y->i described for a message (only ever on the error path: snprintf per token
 * would cost the strict pass more than the scan). */
static const char *syn_what(struct syn *y)
{
	describe_byte(y->what, sizeof y->what, (unsigned char)y->s[y->i]);
	return y->what;
}

/* Closes the innermost container at y->i; a value has ended. */
static void syn_close(struct syn *y, int *done)
{
	y->sp--;
	if (y->ign_sp != 0 && y->sp < y->ign_sp)
		y->ign_sp = 0;
	y->i++;
	*done = 1;
}

/* X_VALUE, X_VALUE_OR_CLOSE: a container opens, a scalar is scanned (*done), or an empty
 * array closes (*done). Returns 1 with the diagnosis, else 0. */
static int syn_value(struct syn *y, unsigned char c, int *done, size_t *off, char *msg,
		     size_t msgn)
{
	if (y->state == X_VALUE_OR_CLOSE && c == ']') {
		syn_close(y, done);
		return 0;
	}
	if (c == '{' || c == '[') {
		if (y->sp >= AGB_TRACE_MAX_DEPTH)
			DIAG(y->i, "nesting too deep");
		/* An ignored top-level value, or an object in an event (its options object). */
		if (y->trace && y->ign_sp == 0 &&
		    ((y->sp == 1 && y->next_ignored) ||
		     (c == '{' && y->sp == 3 && y->stack[1] == '[' && y->stack[2] == '[')))
			y->ign_sp = y->sp + 1;
		y->stack[y->sp++] = (char)c;
		y->i++;
		y->state = c == '{' ? X_KEY_OR_CLOSE : X_VALUE_OR_CLOSE;
		return 0;
	}
	if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
		*done = 1;
		return diag_scalar(y->s, y->n, &y->i, syn_nul_ok(y), off, msg, msgn);
	}
	if ((c == ']' || c == '}') && y->state == X_VALUE && y->sp > 0)
		DIAG(y->i, "expected a value after ',', got %s (trailing comma?)", syn_what(y));
	DIAG(y->i, "expected a value, got %s", syn_what(y));
}

/* X_KEY, X_KEY_OR_CLOSE: a key string, or an empty object closes (*done). */
static int syn_key(struct syn *y, unsigned char c, char top, int *done, size_t *off, char *msg,
		   size_t msgn)
{
	if (c == '}' && y->state == X_KEY_OR_CLOSE) {
		syn_close(y, done);
		return 0;
	}
	if (c == '"') {
		size_t b = y->i;
		int nul_ok = y->trace && y->ign_sp != 0 && y->sp >= y->ign_sp;
		y->state = X_COLON;
		if (diag_string(y->s, y->n, &y->i, nul_ok, off, msg, msgn))
			return 1;
		if (y->sp == 1)
			y->next_ignored = y->trace && ignored_key(y->s, b + 1, y->i - 1);
		return 0;
	}
	if (c == '}')
		DIAG(y->i, "expected a string key after ',', got '}' (trailing comma?)");
	DIAG(y->i, "expected %s, got %s (keys must be double-quoted strings)",
	     describe_expect(y->state, top), syn_what(y));
}

/* X_COMMA_OR_CLOSE: the next member or element, or the container closes (*done). */
static int syn_comma(struct syn *y, unsigned char c, char top, int *done, size_t *off, char *msg,
		     size_t msgn)
{
	if (c == ',') {
		y->i++;
		y->state = top == '[' ? X_VALUE : X_KEY;
		return 0;
	}
	if ((c == ']' && top == '[') || (c == '}' && top == '{')) {
		syn_close(y, done);
		return 0;
	}
	DIAG(y->i, "expected %s, got %s", describe_expect(y->state, top), syn_what(y));
}

static int scan_syntax(const char *s, size_t n, struct loader *pass, int trace, size_t *off,
		       char *msg, size_t msgn)
{
	struct syn y = {.s = s, .n = n, .state = X_VALUE, .pass = pass, .trace = trace};
	if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		y.i = 3; /* cJSON skips a UTF-8 byte order mark too */
	for (;;) {
		int done = 0, bad = 0;
		while (y.i < n && is_ws(s[y.i]))
			y.i++;
		char top = y.sp > 0 ? y.stack[y.sp - 1] : 0;
		if (y.i >= n) {
			if (y.state == X_END)
				return 0;
			DIAG(n, "unexpected end of file (expected %s)", describe_expect(y.state, top));
		}
		unsigned char c = (unsigned char)s[y.i];
		if (y.pass != NULL)
			loader_pass(y.pass, y.i);
		switch (y.state) {
		case X_VALUE_OR_CLOSE:
		case X_VALUE:
			bad = syn_value(&y, c, &done, off, msg, msgn);
			break;
		case X_KEY_OR_CLOSE:
		case X_KEY:
			bad = syn_key(&y, c, top, &done, off, msg, msgn);
			break;
		case X_COLON:
			if (c != ':')
				DIAG(y.i, "expected ':' after the object key, got %s", syn_what(&y));
			y.i++;
			y.state = X_VALUE;
			break;
		case X_COMMA_OR_CLOSE:
			bad = syn_comma(&y, c, top, &done, off, msg, msgn);
			break;
		case X_END:
			DIAG(y.i, "trailing data after the JSON document: %s", syn_what(&y));
		}
		if (bad)
			return 1;
		if (done)
			y.state = y.sp > 0 ? X_COMMA_OR_CLOSE : X_END;
	}
}

#undef DIAG

/* The first RFC 8259 syntax error of s[0, n) (one JSON text, a UTF-8 byte order mark allowed
 * before it): 1 with *off and msg, else 0. O(n), no allocation. */
static int diagnose_syntax(const char *s, size_t n, size_t *off, char *msg, size_t msgn)
{
	return scan_syntax(s, n, NULL, 0, off, msg, msgn);
}

int agb_json_strict(const char *text, size_t len, size_t *off, char *msg, size_t msgn)
{
	return diagnose_syntax(text, len, off, msg, msgn);
}

/* The strict pass of the loader: the whole text must be RFC 8259 JSON before cJSON (which
 * takes leading zeros, "2.", control bytes in strings and any byte <= 0x20 as whitespace) sees
 * any of it. A pass over a viewed file (its pages handed back behind the scan). */
static int strict_syntax(struct loader *L)
{
	size_t off = 0;
	char msg[sizeof L->diag->message];
	L->passed_upto = 0;
	if (scan_syntax(L->text, L->len, L, 1, &off, msg, sizeof msg))
		return fail_at(L, off, "%s", msg);
	return AGB_LOAD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Error path for semantic errors: skip over valid JSON text to locate an element. */

/* Never returns more than N. */
static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && is_ws(s[i]))
		i++;
	return i < n ? i : n;
}

static size_t skip_string(const char *s, size_t n, size_t i)
{
	for (i++; i < n && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

struct loader;
static void loader_pass(struct loader *L, size_t off);

/* The offset just after the array or object opening at I (N when it is not closed). With a
 * loader PASSING (else NULL), the pages behind each member are handed back as it goes: the
 * events array is most of a trace. */
static size_t skip_nested(const char *s, size_t n, size_t i, struct loader *passing)
{
	size_t depth = 0;
	while (i < n) {
		char c = s[i];
		if (c == '"') {
			i = skip_string(s, n, i);
			continue;
		}
		if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			if (--depth == 0)
				return i + 1;
			if (depth == 1 && passing != NULL)
				loader_pass(passing, i);
		}
		i++;
	}
	return n;
}

static size_t skip_value(const char *s, size_t n, size_t i)
{
	if (i >= n)
		return n;
	if (s[i] == '"')
		return skip_string(s, n, i);
	if (s[i] == '[' || s[i] == '{')
		return skip_nested(s, n, i, NULL);
	while (i < n && s[i] != ',' && s[i] != ']' && s[i] != '}' && !is_ws(s[i]))
		i++;
	return i;
}

static size_t root_offset(const struct loader *L)
{
	size_t i = L->len >= 3 && memcmp(L->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	return skip_ws(L->text, L->len, i);
}

/* Offset of the OCCURRENCE-th (0-based) top-level member named KEY: of its key when WANT_KEY,
 * else of its value. Falls back to the document's '{' (e.g. a key spelled with escapes). */
static size_t member_offset(const struct loader *L, const char *key, int occurrence, int want_key)
{
	const char *s = L->text;
	size_t n = L->len, root = root_offset(L), i = root + 1, klen = strlen(key);
	for (;;) {
		i = skip_ws(s, n, i);
		if (i >= n || s[i] != '"')
			return root;
		size_t k = i, after = skip_string(s, n, i);
		int match = after - k == klen + 2 && memcmp(s + k + 1, key, klen) == 0;
		i = skip_ws(s, n, after) + 1; /* past ':' */
		i = skip_ws(s, n, i);
		if (match && occurrence-- == 0)
			return want_key ? k : i;
		i = skip_ws(s, n, skip_value(s, n, i));
		if (i >= n || s[i] != ',')
			return root;
		i++;
	}
}

/* Offset of the INDEX-th element of the array starting at s[i] == '['. */
static size_t element_offset(const char *s, size_t n, size_t i, size_t index)
{
	i = skip_ws(s, n, i + 1);
	for (size_t k = 0; k < index && i < n; k++) {
		i = skip_ws(s, n, skip_value(s, n, i));
		i = skip_ws(s, n, i + 1); /* past ',' */
	}
	return i;
}

/* Event EV (0-based), element EL of it, or the event itself when EL < 0. */
static size_t event_offset(const struct loader *L, size_t ev, long el)
{
	size_t i = L->ev_known ? L->ev_pos
			       : element_offset(L->text, L->len, member_offset(L, "events", 0, 0), ev);
	if (el >= 0 && i < L->len && L->text[i] == '[')
		i = element_offset(L->text, L->len, i, (size_t)el);
	return i;
}

AGB_PRINTF(4, 5)
static int fail_event(struct loader *L, size_t ev, long el, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfail(L, event_offset(L, ev, el), fmt, ap);
	va_end(ap);
	return r;
}

AGB_PRINTF(5, 6)
static int fail_member(struct loader *L, const char *key, int want_key, int occurrence,
		       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfail(L, member_offset(L, key, occurrence, want_key), fmt, ap);
	va_end(ap);
	return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Integer checks */

static int is_integral(double d)
{
	/* Beyond 2^53 every double is an integer; below, compare with its truncation. */
	if (d >= 9007199254740992.0 || d <= -9007199254740992.0)
		return 1;
	return d == (double)(long long)d;
}

/* Why V is not an integer in [LO, HI], or NULL when it is (then *OUT holds it). */
static const char *check_uint(const cJSON *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	if (!cJSON_IsNumber(v))
		return "type";
	double d = v->valuedouble;
	if (!isfinite(d))
		return "overflow";
	if (!is_integral(d))
		return "fraction";
	if (d < (double)lo)
		return "low";
	if (d > (double)hi)
		return "high";
	*out = (uint32_t)d;
	return NULL;
}

static const char *const arg_names[] = {"id",     "size", "align", "rom_tile", "bpp",
					"z",      "marker", "side", "key",   "colors", "frame kind",
					"size"};

/* Checks argument EL of event EV against its kind; stores the value in *OUT. */
static int get_arg(struct loader *L, const cJSON *v, size_t ev, long el, enum arg_kind kind,
		   uint32_t *out)
{
	const char *what = arg_names[kind];
	uint32_t lo = 0, hi = AGB_TRACE_MAX_ID;
	if (kind == ARG_FRAME) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "load") == 0) {
			*out = AGB_FRAME_LOAD;
			return AGB_LOAD_OK;
		}
		if (cJSON_IsString(v))
			return fail_event(L, ev, el,
					  "frame kind must be \"load\" (a loading frame), got \"%.32s\"",
					  v->valuestring);
		return fail_event(L, ev, el, "frame kind must be \"load\" (a loading frame), got %s",
				  kind_name(v));
	}
	if (kind == ARG_SIZE || kind == ARG_ALIGN) {
		lo = 1;
		hi = L->arena_bytes;
	} else if (kind == ARG_BPP) {
		lo = 4;
		hi = 8;
	} else if (kind == ARG_DEPTH) {
		hi = 0xFFFFu;
	} else if (kind == ARG_SIDE) {
		hi = 1;
	} else if (kind == ARG_COLORS) {
		lo = 1;
		hi = 256;
	} else if (kind == ARG_REQUEST) {
		lo = 1;
		hi = UINT32_MAX;
	}
	const char *why = check_uint(v, lo, hi, out);
	if (why == NULL) {
		if (kind == ARG_BPP && *out != 4 && *out != 8)
			return fail_event(L, ev, el, "bpp must be 4 or 8, got %u", *out);
		if (kind == ARG_ALIGN && (*out & (*out - 1)) != 0)
			return fail_event(L, ev, el, "align must be a power of two, got %u", *out);
		return AGB_LOAD_OK;
	}
	double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
	if (strcmp(why, "type") == 0)
		return fail_event(L, ev, el, "%s must be an integer, got %s", what, kind_name(v));
	if (strcmp(why, "overflow") == 0)
		return fail_event(L, ev, el, "%s is out of range (number too large)", what);
	if (strcmp(why, "fraction") == 0)
		return fail_event(L, ev, el, "%s must be an integer, got %.15g", what, d);
	if (kind == ARG_BPP)
		return fail_event(L, ev, el, "bpp must be 4 or 8, got %.15g", d);
	if (kind == ARG_ALIGN && strcmp(why, "low") == 0)
		return fail_event(L, ev, el, "align must be a power of two, got %.15g", d);
	if (strcmp(why, "low") == 0)
		return fail_event(L, ev, el, "%s must be >= %u, got %.15g", what, lo, d);
	if (kind == ARG_SIZE || kind == ARG_ALIGN)
		return fail_event(L, ev, el, "%s %.15g is larger than arena_bytes (%u)", what, d, hi);
	return fail_event(L, ev, el, "%s must be at most %u, got %.15g", what, hi, d);
}

/* ------------------------------------------------------------------------------------------ */
/* uint32 -> uint32 hash map (open addressing, linear probing). Key 0 marks an empty cell, so
 * callers store key + 1 (ids and tile keys are < 2^32 - 1). */

struct cell {
	uint32_t key, val;
};

struct u32map {
	struct cell *cells;
	uint32_t shift; /* 32 - log2(capacity) */
	size_t cap, count;
};

static int map_init(struct u32map *m, size_t want)
{
	m->cap = 64;
	m->shift = 26;
	while (m->cap < want * 2) {
		m->cap *= 2;
		m->shift--;
	}
	m->count = 0;
	m->cells = calloc(m->cap, sizeof *m->cells);
	return m->cells != NULL;
}

static size_t map_home(const struct u32map *m, uint32_t key)
{
	return (size_t)((key * 2654435769u) >> m->shift); /* Fibonacci hashing */
}

/* Value cell of KEY, or NULL when absent. */
static uint32_t *map_find(struct u32map *m, uint32_t key)
{
	size_t mask = m->cap - 1;
	for (size_t i = map_home(m, key);; i = (i + 1) & mask) {
		if (m->cells[i].key == key)
			return &m->cells[i].val;
		if (m->cells[i].key == 0)
			return NULL;
	}
}

/* Removes KEY (if present) by shifting later cells of its probe run back, so lookups never
 * need tombstones and the map holds only live keys. O(run length). */
static void map_del(struct u32map *m, uint32_t key)
{
	size_t mask = m->cap - 1, i = map_home(m, key);
	while (m->cells[i].key != key) {
		if (m->cells[i].key == 0)
			return;
		i = (i + 1) & mask;
	}
	for (size_t j = (i + 1) & mask; m->cells[j].key != 0; j = (j + 1) & mask) {
		size_t home = map_home(m, m->cells[j].key);
		if (((j - home) & mask) >= ((j - i) & mask)) { /* home not in (i, j]: move back */
			m->cells[i] = m->cells[j];
			i = j;
		}
	}
	m->cells[i].key = 0;
	m->count--;
}

/* Value cell of KEY, inserted with value INIT when absent; NULL when out of memory. */
static uint32_t *map_get(struct u32map *m, uint32_t key, uint32_t init)
{
	size_t mask = m->cap - 1;
	for (size_t i = map_home(m, key);; i = (i + 1) & mask) {
		if (m->cells[i].key == key)
			return &m->cells[i].val;
		if (m->cells[i].key == 0)
			break;
	}
	if ((m->count + 1) * 2 > m->cap) {
		struct u32map g = {NULL, m->shift - 1, m->cap * 2, m->count};
		g.cells = calloc(g.cap, sizeof *g.cells);
		if (g.cells == NULL)
			return NULL;
		for (size_t j = 0; j < m->cap; j++) {
			if (m->cells[j].key == 0)
				continue;
			size_t k = map_home(&g, m->cells[j].key);
			while (g.cells[k].key != 0)
				k = (k + 1) & (g.cap - 1);
			g.cells[k] = m->cells[j];
		}
		free(m->cells);
		*m = g;
		mask = m->cap - 1;
	}
	size_t i = map_home(m, key);
	while (m->cells[i].key != 0)
		i = (i + 1) & mask;
	m->cells[i].key = key;
	m->cells[i].val = init;
	m->count++;
	return &m->cells[i].val;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 3: the document */

static char *dup_string(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d != NULL)
		memcpy(d, s, n);
	return d;
}

static int oom(struct loader *L)
{
	L->diag->line = L->diag->col = 0;
	snprintf(L->diag->message, sizeof L->diag->message, "out of memory");
	return AGB_LOAD_IO_ERROR;
}

/* The top-level keys a trace may have, in the order of struct header_keys. */
enum { KEY_VERSION, KEY_ARENA, KEY_ARENA_BYTES, KEY_NAME, KEY_SOURCE, KEY_EVENTS, KEY_COUNT };
static const char *const header_key_names[KEY_COUNT] = {"version", "arena", "arena_bytes",
							 "name",    "source", "events"};

/* The root is an object without duplicate keys; found[k] = its member header_key_names[k], or
 * NULL. Duplicate keys: cJSON keeps both and lookups would silently take the first. Metadata
 * keys are checked too: a trace with two "name"s is as suspicious as two "arena"s. */
static int header_members(struct loader *L, const cJSON *root, const cJSON *found[KEY_COUNT])
{
	if (!cJSON_IsObject(root))
		return fail_at(L, root_offset(L), "top level must be a JSON object, got %s",
			       kind_name(root));
	for (const cJSON *m = root->child; m != NULL; m = m->next) {
		int occurrence = 0;
		for (const cJSON *p = root->child; p != m; p = p->next)
			if (strcmp(p->string, m->string) == 0)
				occurrence++;
		if (occurrence > 0)
			return fail_member(L, m->string, 1, occurrence,
					   "duplicate top-level key \"%s\"", m->string);
		for (size_t k = 0; k < KEY_COUNT; k++)
			if (strcmp(m->string, header_key_names[k]) == 0)
				found[k] = m;
	}
	return AGB_LOAD_OK;
}

/* "version": required, the integer 1. */
static int header_version(struct loader *L, const cJSON *version)
{
	uint32_t u = 0;
	if (version == NULL)
		return fail_at(L, root_offset(L),
			       "missing required key \"version\" (the integer 1)");
	if (!cJSON_IsNumber(version))
		return fail_member(L, "version", 0, 0, "\"version\" must be the integer 1, got %s",
				   kind_name(version));
	if (check_uint(version, 1, 1, &u) != NULL)
		return fail_member(L, "version", 0, 0,
				   "unsupported trace version %.15g (this reader reads version 1)",
				   version->valuedouble);
	return AGB_LOAD_OK;
}

/* "arena": required, one of the arena names, into L->arena. */
static int header_arena(struct loader *L, const cJSON *arena)
{
	int a = 0;
	if (arena == NULL)
		return fail_at(L, root_offset(L),
			       "missing required key \"arena\" (\"ewram\", \"obj_vram\" or \"bg_vram\")");
	if (!cJSON_IsString(arena))
		return fail_member(L, "arena", 0, 0, "\"arena\" must be a string, got %s",
				   kind_name(arena));
	while (a < AGB_ARENA_COUNT &&
	       strcmp(agb_arena_name((enum agb_arena)a), arena->valuestring) != 0)
		a++;
	if (a == AGB_ARENA_COUNT)
		return fail_member(L, "arena", 0, 0,
				   "unknown arena \"%.64s\" (expected \"ewram\", \"obj_vram\", "
				   "\"bg_vram\" or \"pal_ram\")",
				   arena->valuestring);
	L->arena = (enum agb_arena)a;
	return AGB_LOAD_OK;
}

/* "arena_bytes": optional, 1 .. the arena's region (its default), into L->arena_bytes. */
static int header_arena_bytes(struct loader *L, const cJSON *bytes)
{
	uint32_t region = agb_arena_region_bytes(L->arena);
	const char *why;
	double d;
	L->arena_bytes = region;
	if (bytes == NULL)
		return AGB_LOAD_OK;
	why = check_uint(bytes, 1, region, &L->arena_bytes);
	d = cJSON_IsNumber(bytes) ? bytes->valuedouble : 0;
	if (why == NULL)
		return AGB_LOAD_OK;
	if (strcmp(why, "type") == 0)
		return fail_member(L, "arena_bytes", 0, 0,
				   "\"arena_bytes\" must be an integer, got %s", kind_name(bytes));
	if (strcmp(why, "fraction") == 0)
		return fail_member(L, "arena_bytes", 0, 0,
				   "\"arena_bytes\" must be an integer, got %.15g", d);
	if (strcmp(why, "overflow") == 0)
		return fail_member(L, "arena_bytes", 0, 0,
				   "\"arena_bytes\" is out of range (number too large)");
	if (strcmp(why, "low") == 0)
		return fail_member(L, "arena_bytes", 0, 0,
				   "\"arena_bytes\" must be >= 1, got %.15g", d);
	return fail_member(L, "arena_bytes", 0, 0,
			   "\"arena_bytes\" %.15g is larger than the %s region (%u bytes)", d,
			   agb_arena_name(L->arena), region);
}

/* "name" or "source" (key k): optional, a string or null; a string is copied into *out. */
static int header_text(struct loader *L, int k, const cJSON *v, char **out)
{
	if (v == NULL || cJSON_IsNull(v))
		return AGB_LOAD_OK;
	if (!cJSON_IsString(v))
		return fail_member(L, header_key_names[k], 0, 0, "\"%s\" must be a string, got %s",
				   header_key_names[k], kind_name(v));
	*out = dup_string(v->valuestring);
	return *out != NULL ? AGB_LOAD_OK : oom(L);
}

static int load_header(struct loader *L, const cJSON *root, struct agb_loaded_trace *out,
		       const cJSON **events)
{
	const cJSON *found[KEY_COUNT] = {NULL};
	int rc = header_members(L, root, found);
	if (rc == AGB_LOAD_OK)
		rc = header_version(L, found[KEY_VERSION]);
	if (rc == AGB_LOAD_OK)
		rc = header_arena(L, found[KEY_ARENA]);
	if (rc == AGB_LOAD_OK)
		rc = header_arena_bytes(L, found[KEY_ARENA_BYTES]);
	if (rc == AGB_LOAD_OK)
		rc = header_text(L, KEY_NAME, found[KEY_NAME], &out->name);
	if (rc == AGB_LOAD_OK)
		rc = header_text(L, KEY_SOURCE, found[KEY_SOURCE], &out->source);
	if (rc != AGB_LOAD_OK)
		return rc;
	*events = found[KEY_EVENTS];
	if (*events == NULL)
		return fail_at(L, root_offset(L),
			       "missing required key \"events\" (an array of events)");
	if (!cJSON_IsArray(*events))
		return fail_member(L, "events", 0, 0, "\"events\" must be an array, got %s",
				   kind_name(*events));
	return AGB_LOAD_OK;
}

struct life {
	struct u32map ids;     /* live id + 1 -> slot (freed ids are removed) */
	struct u32map tiles;   /* (tile << 1 | bpp == 8) + 1 -> live ref count (0: removed) */
	struct u32map sprites; /* shown sprite id + 1 -> handle + 1 (hidden: removed) */
	struct u32map pals;    /* live palette id + 1 -> its pal_load/pal_push event index */
	struct u32map marks;   /* marker + 1 -> 1 once a mark set it (a sync needs one) */
	struct u32map keys;    /* cache key + 1 -> its index in key_info (handle, size, locks) */
	struct u32map sites;   /* FNV-1a of a site name (0 read as 1) -> first such site's index + 1 */
	size_t site_names_cap; /* entries allocated in out->site_names */
	struct key_info {
		uint32_t handle, size, locks;
	} *key_info;
	size_t key_count, key_cap;
	uint32_t *pal_stack[2]; /* per side: event indices of the pushed palettes, oldest first */
	size_t pal_depth[2], pal_cap[2];
	uint32_t *free_slots, *free_handles;
	size_t free_count, free_cap, free_handle_count, free_handle_cap;
	uint32_t slots, handles;
	size_t cap; /* entries of out->events */
};

static void life_free(struct life *lf)
{
	free(lf->ids.cells);
	free(lf->tiles.cells);
	free(lf->sprites.cells);
	free(lf->pals.cells);
	free(lf->marks.cells);
	free(lf->keys.cells);
	free(lf->sites.cells);
	free(lf->key_info);
	free(lf->pal_stack[0]);
	free(lf->pal_stack[1]);
	free(lf->free_slots);
	free(lf->free_handles);
}

/* Appends V to the array *A (*COUNT used of *CAP, doubled when full). Returns 0, or -1 when out
 * of memory. Amortized O(1). */
static int push_u32(uint32_t **a, size_t *count, size_t *cap, uint32_t v)
{
	if (*count == *cap) {
		size_t ncap = *cap != 0 ? *cap * 2 : 256;
		uint32_t *g = realloc(*a, ncap * sizeof *g);
		if (g == NULL)
			return -1;
		*a = g;
		*cap = ncap;
	}
	(*a)[(*count)++] = v;
	return 0;
}

/* Makes room for event N. The first allocation takes the pre-scan's count of arrays at event
 * depth, an upper bound on the events, so a well-formed trace is never copied by a doubling
 * (which would need 1.5x the event array at once). */
static int reserve_event(struct loader *L, size_t n, struct agb_loaded_trace *out, struct life *lf)
{
	if (n < lf->cap)
		return AGB_LOAD_OK;
	if (n >= UINT32_MAX)
		return fail_event(L, n, -1, "too many events (at most %u)", UINT32_MAX - 1u);
	size_t cap = lf->cap != 0 ? lf->cap * 2 : L->event_opens > 4096 ? L->event_opens : 4096;
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	struct agb_event *grown = realloc(out->events, cap * sizeof *grown);
	if (grown == NULL)
		return oom(L);
	out->events = grown;
	lf->cap = cap;
	return AGB_LOAD_OK;
}

static int arity_error(struct loader *L, size_t n, const struct op_spec *spec, unsigned nargs)
{
	char takes[32];
	if (spec->min_args == spec->max_args)
		snprintf(takes, sizeof takes, "%u argument%s", spec->min_args,
			 spec->min_args == 1 ? "" : "s");
	else
		snprintf(takes, sizeof takes, "%u or %u arguments", spec->min_args, spec->max_args);
	return fail_event(L, n, nargs > spec->max_args ? (long)spec->max_args + 1 : -1,
			  "wrong number of arguments: \"%s\" takes %s (%s), got %u", spec->name, takes,
			  spec->usage, nargs);
}

static int arena_error(struct loader *L, size_t n, const struct op_spec *spec)
{
	if (spec->arenas == ARENAS_SPRITES)
		return fail_event(L, n, 0,
				  "op \"%s\" is only valid in an obj_vram trace (this trace's arena is "
				  "\"%s\")",
				  spec->name, agb_arena_name(L->arena));
	if (spec->arenas == ARENAS_PAL)
		return fail_event(L, n, 0,
				  "op \"%s\" is only valid in a pal_ram trace (this trace's arena is "
				  "\"%s\")",
				  spec->name, agb_arena_name(L->arena));
	if (L->arena == AGB_ARENA_PAL_RAM)
		return fail_event(L, n, 0,
				  "op \"%s\" is not valid in a pal_ram trace (pal_ram traces use "
				  "pal_load, pal_free, pal_push, pal_pop, sync)",
				  spec->name);
	if (L->arena == AGB_ARENA_BG_VRAM)
		return fail_event(L, n, 0,
				  "op \"%s\" is not valid in a bg_vram trace (bg_vram traces stream "
				  "tiles with ref/unref)",
				  spec->name);
	return fail_event(L, n, 0,
			  "op \"%s\" is only valid in a bg_vram trace (this trace's arena is \"%s\")",
			  spec->name, agb_arena_name(L->arena));
}

/* Checks the shape of event node E (event N): an array whose first element names an op valid in
 * this arena, followed by the op's arguments (a trailing options object is ignored). Stores the
 * op in *SPEC and its checked argument values in V. O(arguments). */
static int event_shape(struct loader *L, const cJSON *e, size_t n, const struct op_spec **spec,
		       uint32_t v[MAX_ARGS])
{
	if (!cJSON_IsArray(e))
		return fail_event(L, n, -1, "event must be an array such as [\"alloc\", id, size], got %s",
				  kind_name(e));
	const cJSON *op = e->child;
	if (op == NULL)
		return fail_event(L, n, -1, "empty event (expected an op name first)");
	if (!cJSON_IsString(op))
		return fail_event(L, n, 0, "op name must be a string, got %s", kind_name(op));
	const struct op_spec *sp = find_op(op->valuestring);
	if (sp == NULL)
		return fail_event(L, n, 0,
				  "unknown op \"%.48s\" (version 1 has alloc, free, realloc, frame, ref, "
				  "unref; extensions spr_show, spr_z, spr_hide, mark, reset, side, "
				  "pal_load, pal_free, pal_push, pal_pop, sync, lock, unlock, touch, "
				  "refused)",
				  op->valuestring);
	if ((sp->arenas & AGB_ARENA_BIT(L->arena)) == 0)
		return arena_error(L, n, sp);
	const cJSON *args[MAX_ARGS + 1];
	unsigned nargs = 0;
	const cJSON *last = op;
	for (const cJSON *a = op->next; a != NULL; a = a->next) {
		if (nargs <= MAX_ARGS)
			args[nargs] = a;
		nargs++;
		last = a;
	}
	if (nargs > 0 && cJSON_IsObject(last))
		nargs--; /* trailing options object: an extension, ignored by v1 */
	if (nargs < sp->min_args || nargs > sp->max_args)
		return arity_error(L, n, sp, nargs);
	v[0] = v[1] = v[3] = 0;
	v[2] = 1;
	for (unsigned k = 0; k < nargs; k++) {
		int r = get_arg(L, args[k], n, (long)k + 1, sp->args[k], &v[k]);
		if (r != AGB_LOAD_OK)
			return r;
	}
	*spec = sp;
	return AGB_LOAD_OK;
}

/* Whether id ID was allocated by one of the first N events (error path only: O(N)). */
static int allocated_before(const struct agb_event *ev, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].op == AGB_OP_ALLOC && ev[i].id == id)
			return 1;
	return 0;
}

/* alloc/free/realloc: the id life cycle and dense slots. O(1) expected. */
static int apply_heap(struct loader *L, size_t n, enum agb_op op, const uint32_t v[MAX_ARGS],
		      struct agb_loaded_trace *out, struct life *lf)
{
	struct agb_event *ev = &out->events[n];
	uint32_t *slot = map_find(&lf->ids, v[0] + 1u);
	if (op == AGB_OP_ALLOC) {
		if (slot != NULL)
			return fail_event(L, n, 1, "alloc of id %u, which is already live (free it first)",
					  v[0]);
		slot = map_get(&lf->ids, v[0] + 1u, lf->free_count > 0 ? lf->free_slots[lf->free_count - 1]
									 : lf->slots);
		if (slot == NULL)
			return oom(L);
		if (lf->free_count > 0)
			lf->free_count--;
		else
			lf->slots++;
		ev->size = v[1];
		ev->align = v[2];
	} else if (slot == NULL) {
		return fail_event(L, n, 1,
				  allocated_before(out->events, n, v[0])
					  ? "%s of id %u, which is not live (already freed)"
					  : "%s of id %u, which was never allocated",
				  op == AGB_OP_FREE ? "free" : "realloc", v[0]);
	} else if (op == AGB_OP_REALLOC) {
		ev->size = v[1];
	}
	ev->id = v[0];
	ev->slot = *slot;
	if (op == AGB_OP_FREE) {
		if (push_u32(&lf->free_slots, &lf->free_count, &lf->free_cap, *slot) != 0)
			return oom(L);
		map_del(&lf->ids, v[0] + 1u);
	}
	return AGB_LOAD_OK;
}

/* ref/unref: every unref matches a live ref of the same tile and depth. O(1) expected. */
static int apply_tiles(struct loader *L, size_t n, enum agb_op op, const uint32_t v[MAX_ARGS],
		       struct agb_loaded_trace *out, struct life *lf)
{
	uint32_t key = ((v[0] << 1) | (v[1] == 8)) + 1u;
	uint32_t *refs = map_get(&lf->tiles, key, 0);
	if (refs == NULL)
		return oom(L);
	if (op == AGB_OP_REF) {
		++*refs;
	} else if (*refs == 0) {
		map_del(&lf->tiles, key);
		return fail_event(L, n, 1, "unref of tile %u at %ubpp, which has no live ref", v[0],
				  v[1]);
	} else if (--*refs == 0) {
		map_del(&lf->tiles, key);
	}
	out->events[n].id = v[0];
	out->events[n].size = v[1];
	return AGB_LOAD_OK;
}

/* spr_show/spr_z/spr_hide: sprites have their own id space; the dense handle (slot) is what a
 * game keeps. O(1) expected. */
static int apply_sprites(struct loader *L, size_t n, const struct op_spec *spec,
			 const uint32_t v[MAX_ARGS], struct agb_loaded_trace *out, struct life *lf)
{
	uint32_t *h = map_find(&lf->sprites, v[0] + 1u);
	if (spec->op == AGB_OP_SPR_SHOW) {
		if (h != NULL)
			return fail_event(L, n, 1,
					  "spr_show of sprite %u, which is already shown (hide it first)",
					  v[0]);
		h = map_get(&lf->sprites, v[0] + 1u,
			    1u + (lf->free_handle_count > 0 ? lf->free_handles[lf->free_handle_count - 1]
							    : lf->handles));
		if (h == NULL)
			return oom(L);
		if (lf->free_handle_count > 0)
			lf->free_handle_count--;
		else
			lf->handles++;
	} else if (h == NULL) {
		return fail_event(L, n, 1, "%s of sprite %u, which is not shown", spec->name, v[0]);
	}
	struct agb_event *ev = &out->events[n];
	ev->id = v[0];
	ev->slot = *h - 1u;
	ev->size = v[1];
	if (spec->op == AGB_OP_SPR_HIDE) {
		if (push_u32(&lf->free_handles, &lf->free_handle_count, &lf->free_handle_cap,
			     *h - 1u) != 0)
			return oom(L);
		map_del(&lf->sprites, v[0] + 1u);
	}
	return AGB_LOAD_OK;
}

/* pal_load/pal_push: palette ids have their own space; a loaded palette gets a dense handle from
 * the slot numbers (pal_ram traces have no alloc), a pushed one goes on its side's stack. The
 * event keeps colours in size, side and key in align (AGB_PAL_EV_ALIGN). O(1) expected. */
static int apply_pal_open(struct loader *L, size_t n, enum agb_op op, const uint32_t v[MAX_ARGS],
			  struct agb_loaded_trace *out, struct life *lf)
{
	struct agb_event *ev = &out->events[n];
	uint32_t *at = map_find(&lf->pals, v[0] + 1u);
	if (at != NULL)
		return fail_event(L, n, 1, "%s of palette %u, which is already live (%s it first)",
				  op == AGB_OP_PAL_LOAD ? "pal_load" : "pal_push", v[0],
				  out->events[*at].op == AGB_OP_PAL_LOAD ? "pal_free" : "pal_pop");
	if (map_get(&lf->pals, v[0] + 1u, (uint32_t)n) == NULL)
		return oom(L);
	ev->id = v[0];
	ev->size = v[3];
	ev->align = AGB_PAL_EV_ALIGN(v[1], v[2]);
	if (op == AGB_OP_PAL_PUSH)
		return push_u32(&lf->pal_stack[v[1]], &lf->pal_depth[v[1]], &lf->pal_cap[v[1]],
				(uint32_t)n) != 0
			       ? oom(L)
			       : AGB_LOAD_OK;
	ev->slot = lf->free_count > 0 ? lf->free_slots[--lf->free_count] : lf->slots++;
	return AGB_LOAD_OK;
}

/* pal_free/pal_pop: the event repeats the released palette's handle, colours, side and key. */
static int apply_pal_close(struct loader *L, size_t n, enum agb_op op, const uint32_t v[MAX_ARGS],
			   struct agb_loaded_trace *out, struct life *lf)
{
	const struct agb_event *from;
	uint32_t *at;
	if (op == AGB_OP_PAL_POP) {
		if (lf->pal_depth[v[0]] == 0)
			return fail_event(L, n, 1, "pal_pop of side %u, whose palette stack is empty",
					  v[0]);
		from = &out->events[lf->pal_stack[v[0]][--lf->pal_depth[v[0]]]];
	} else {
		at = map_find(&lf->pals, v[0] + 1u);
		if (at == NULL)
			return fail_event(L, n, 1, "pal_free of palette %u, which is not loaded", v[0]);
		from = &out->events[*at];
		if (from->op != AGB_OP_PAL_LOAD)
			return fail_event(L, n, 1,
					  "pal_free of palette %u, which is on the palette stack (pal_pop "
					  "it)",
					  v[0]);
		if (push_u32(&lf->free_slots, &lf->free_count, &lf->free_cap, from->slot) != 0)
			return oom(L);
	}
	map_del(&lf->pals, from->id + 1u);
	out->events[n].id = from->id;
	out->events[n].slot = from->slot;
	out->events[n].size = from->size;
	out->events[n].align = from->align;
	return AGB_LOAD_OK;
}

/* lock/unlock/touch: a key gets a dense handle at its first op and keeps its size; an unlock
 * needs a lock still held (locks nest, up to AGB_CACHE_MAX_LOCKS). O(1) expected. */
static int apply_cache(struct loader *L, size_t n, enum agb_op op, const uint32_t v[MAX_ARGS],
		       struct agb_loaded_trace *out, struct life *lf)
{
	struct agb_event *ev = &out->events[n];
	uint32_t *at = map_find(&lf->keys, v[0] + 1u);
	struct key_info *k;
	if (at == NULL) {
		if (op == AGB_OP_UNLOCK)
			return fail_event(L, n, 1, "unlock of key %u, which is not locked", v[0]);
		if (lf->key_count == lf->key_cap) {
			size_t cap = lf->key_cap != 0 ? lf->key_cap * 2 : 64;
			struct key_info *g = realloc(lf->key_info, cap * sizeof *g);
			if (g == NULL)
				return oom(L);
			lf->key_info = g;
			lf->key_cap = cap;
		}
		if (lf->key_count >= AGB_CACHE_MAX_KEYS)
			return fail_event(L, n, 1, "too many distinct cache keys (at most %u)",
					  AGB_CACHE_MAX_KEYS);
		at = map_get(&lf->keys, v[0] + 1u, (uint32_t)lf->key_count);
		if (at == NULL)
			return oom(L);
		lf->key_info[lf->key_count] = (struct key_info){(uint32_t)lf->key_count, v[1], 0};
		lf->key_count++;
	}
	k = &lf->key_info[*at];
	if (op == AGB_OP_UNLOCK) {
		if (k->locks == 0)
			return fail_event(L, n, 1, "unlock of key %u, which is not locked", v[0]);
		k->locks--;
	} else if (v[1] != k->size) {
		return fail_event(L, n, 2, "%s of key %u with size %u, but its earlier size was %u",
				  op == AGB_OP_LOCK ? "lock" : "touch", v[0], v[1], k->size);
	} else if (op == AGB_OP_LOCK && ++k->locks > AGB_CACHE_MAX_LOCKS) {
		return fail_event(L, n, 1, "lock of key %u, which holds %u locks already (at most %u)",
				  v[0], AGB_CACHE_MAX_LOCKS, AGB_CACHE_MAX_LOCKS);
	}
	ev->id = v[0];
	ev->slot = k->handle;
	ev->size = k->size;
	return AGB_LOAD_OK;
}

static uint32_t site_hash(const char *name)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *name != '\0'; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h != 0u ? h : 1u; /* the map's key 0 marks an empty cell */
}

/* The index of site NAME in out->site_names, added when new; (size_t)-1 when out of memory.
 * O(1) expected: a hash finds the name; names whose hashes collide are searched in turn. */
static size_t intern_site(struct agb_loaded_trace *out, struct life *lf, const char *name)
{
	uint32_t key = site_hash(name);
	uint32_t *first = map_get(&lf->sites, key, 0u);
	if (first == NULL)
		return (size_t)-1;
	if (*first != 0u) {
		if (strcmp(out->site_names[*first - 1u], name) == 0)
			return *first - 1u;
		for (size_t i = *first; i < out->site_count; i++) /* a collision: rare */
			if (strcmp(out->site_names[i], name) == 0)
				return i;
	}
	if (out->site_count == lf->site_names_cap) {
		size_t cap = lf->site_names_cap != 0 ? lf->site_names_cap * 2u : 16u;
		char **names = realloc(out->site_names, cap * sizeof *names);
		if (names == NULL)
			return (size_t)-1;
		out->site_names = names;
		lf->site_names_cap = cap;
	}
	char *copy = dup_string(name);
	if (copy == NULL)
		return (size_t)-1;
	if (*first == 0u)
		*first = (uint32_t)out->site_count + 1u;
	out->site_names[out->site_count] = copy;
	return out->site_count++;
}

/* An event's call site: the string "site" of its trailing options object, interned into
 * out->site_names. O(1) expected per event. */
static int keep_site(struct loader *L, const cJSON *e, size_t n, struct agb_loaded_trace *out,
		     struct life *lf)
{
	const cJSON *last = e->child;
	while (last != NULL && last->next != NULL)
		last = last->next;
	if (!cJSON_IsObject(last))
		return AGB_LOAD_OK;
	const cJSON *site = cJSON_GetObjectItemCaseSensitive(last, "site");
	if (!cJSON_IsString(site) || site->valuestring == NULL)
		return AGB_LOAD_OK;
	if (out->site_of == NULL || out->site_cap < lf->cap) {
		uint32_t *g = realloc(out->site_of, lf->cap * sizeof *g);
		if (g == NULL)
			return oom(L);
		memset(g + out->site_cap, 0, (lf->cap - out->site_cap) * sizeof *g);
		out->site_of = g;
		out->site_cap = lf->cap;
	}
	size_t i = intern_site(out, lf, site->valuestring);
	if (i == (size_t)-1)
		return oom(L);
	out->site_of[n] = (uint32_t)i + 1u;
	return AGB_LOAD_OK;
}

/* Validates event node E as event N and stores it in out->events[N]. */
static int load_event(struct loader *L, const cJSON *e, size_t n, struct agb_loaded_trace *out,
		      struct life *lf)
{
	const struct op_spec *spec = NULL;
	uint32_t v[MAX_ARGS];
	int r = reserve_event(L, n, out, lf);
	if (r == AGB_LOAD_OK)
		r = event_shape(L, e, n, &spec, v);
	if (r != AGB_LOAD_OK)
		return r;
	if (spec == NULL) /* (event_shape sets it whenever it succeeds; says so to the analyzer) */
		return AGB_LOAD_BAD_INPUT;
	memset(&out->events[n], 0, sizeof out->events[n]);
	out->events[n].op = (uint8_t)spec->op;
	r = keep_site(L, e, n, out, lf);
	if (r != AGB_LOAD_OK)
		return r;
	switch (spec->op) {
	case AGB_OP_ALLOC:
	case AGB_OP_FREE:
	case AGB_OP_REALLOC:
		return apply_heap(L, n, spec->op, v, out, lf);
	case AGB_OP_REF:
	case AGB_OP_UNREF:
		return apply_tiles(L, n, spec->op, v, out, lf);
	case AGB_OP_SPR_SHOW:
	case AGB_OP_SPR_Z:
	case AGB_OP_SPR_HIDE:
		return apply_sprites(L, n, spec, v, out, lf);
	case AGB_OP_FRAME:
		out->events[n].size = v[0]; /* 0: gameplay, AGB_FRAME_LOAD: loading */
		out->trace.frame_count++;
		return AGB_LOAD_OK;
	case AGB_OP_PAL_LOAD:
	case AGB_OP_PAL_PUSH:
		return apply_pal_open(L, n, spec->op, v, out, lf);
	case AGB_OP_PAL_FREE:
	case AGB_OP_PAL_POP:
		return apply_pal_close(L, n, spec->op, v, out, lf);
	case AGB_OP_SYNC:
		/* A door waits for a section: its marker must have been set. */
		if (map_find(&lf->marks, v[0] + 1u) == NULL)
			return fail_event(L, n, 1, "sync of marker %u, which no earlier mark set", v[0]);
		out->events[n].id = v[0];
		return AGB_LOAD_OK;
	case AGB_OP_LOCK:
	case AGB_OP_UNLOCK:
	case AGB_OP_TOUCH:
		return apply_cache(L, n, spec->op, v, out, lf);
	case AGB_OP_REFUSED:
		/* No id: nothing becomes live (the game got NULL). */
		out->events[n].size = v[0];
		out->events[n].align = v[1] != 0 ? v[1] : 1u;
		return AGB_LOAD_OK;
	case AGB_OP_MARK:
		if (map_get(&lf->marks, v[0] + 1u, 1u) == NULL)
			return AGB_LOAD_IO_ERROR;
		out->events[n].id = v[0];
		return AGB_LOAD_OK;
	default:
		/* reset/side: ids a reset releases stay live for this check; a trace gives the
		 * next level's blocks fresh ids (the loader does not model any core's markers). */
		out->events[n].id = v[0];
		return AGB_LOAD_OK;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Streaming the events array: each event is parsed by cJSON on its own (its few nodes reuse one
 * arena chunk), validated and dropped, so the whole-document tree is never built. */

/* A syntax error somewhere in the document: the recognizer finds the first one and says what
 * was expected; FALLBACK is cJSON's own position for what the recognizer lets through. */
static int syntax_error(struct loader *L, size_t fallback)
{
	size_t off = 0;
	char msg[sizeof L->diag->message];
	if (scan_syntax(L->text, L->len, NULL, 1, &off, msg, sizeof msg))
		return fail_at(L, off, "%s", msg);
	return fail_at(L, fallback, "malformed JSON (rejected by cJSON here)");
}

/* cJSON over text the strict pass has accepted (or a part of it: one value). */
static cJSON *cjson_parse_checked(const char *text, size_t len, const char **end)
{
	size_t last = len;
	while (last > 0 && (unsigned char)text[last - 1] <= 0x20)
		last--;
	if (last > 0 && text[last - 1] == ',') {
		*end = text + len;
		return NULL;
	}
	*end = NULL;
	return cJSON_ParseWithLengthOpts(text, len, end, 0);
}

cJSON *agb_cjson_parse(const char *text, size_t len, const char **end)
{
	size_t off = 0;
	char msg[160];
	if (diagnose_syntax(text, len, &off, msg, sizeof msg)) {
		*end = text + off;
		return NULL;
	}
	return cjson_parse_checked(text, len, end);
}

/* The one JSON value in text[P, E) parsed by cJSON, or NULL when it is not exactly one value
 * (*ERR then holds cJSON's error offset). */
/* A big event (more than EVENT_CUT_BYTES of text) with every container element emptied ("{}",
 * "[]"): an options object, ignored, or a wrong-typed element, reported by its kind and its
 * position in the original text. cJSON then never holds more than the event's own elements.
 * Returns a malloc'd copy (*N bytes), or NULL (out of memory, or nothing to cut). */
#define EVENT_CUT_BYTES 4096u
static char *cut_event(const char *s, size_t p, size_t e, size_t *n)
{
	char *out = malloc(e - p + 1);
	size_t at = 0, i = p + 1;
	int cut = 0;
	if (out == NULL || s[p] != '[') {
		free(out);
		return NULL;
	}
	out[at++] = '[';
	for (i = skip_ws(s, e, i); i < e && s[i] != ']';) {
		size_t ve = skip_value(s, e, i);
		if (s[i] == '{' || s[i] == '[') {
			out[at++] = s[i];
			out[at++] = s[i] == '{' ? '}' : ']';
			cut = 1;
		} else {
			memcpy(out + at, s + i, ve - i);
			at += ve - i;
		}
		i = skip_ws(s, e, ve);
		if (i < e && s[i] == ',') {
			out[at++] = ',';
			i = skip_ws(s, e, i + 1);
		}
	}
	out[at++] = ']';
	if (!cut) {
		free(out);
		return NULL;
	}
	*n = at;
	return out;
}

static cJSON *parse_event(struct loader *L, size_t p, size_t e, size_t *err)
{
	const char *end = NULL;
	arena_reset();
	if (e - p > EVENT_CUT_BYTES) {
		size_t n = 0;
		char *cut = cut_event(L->text, p, e, &n);
		if (cut != NULL) {
			cJSON *v = cjson_parse_checked(cut, n, &end);
			int whole = v != NULL && end == cut + n;
			free(cut);
			if (whole)
				return v;
			*err = p;
			return NULL;
		}
	}
	cJSON *v = e > p ? cjson_parse_checked(L->text + p, e - p, &end) : NULL;
	if (v != NULL && end == L->text + e)
		return v;
	const char *ep = v == NULL ? end : NULL;
	*err = ep != NULL && ep >= L->text + p && ep <= L->text + e ? (size_t)(ep - L->text) : p;
	return NULL;
}

/* After an event ending at *P: 1 with *P at the next event, 0 at the array's ']' (*P past it),
 * -1 on anything else (a syntax error). */
static int next_event(const struct loader *L, size_t *p)
{
	size_t i = skip_ws(L->text, L->len, *p);
	if (i < L->len && L->text[i] == ']') {
		*p = i + 1;
		return 0;
	}
	if (i >= L->len || L->text[i] != ',')
		return -1;
	*p = skip_ws(L->text, L->len, i + 1);
	return 1;
}

static int syntax_first(struct loader *L, int r, size_t from, int after_event);

/* Walks the events array text from P: just past its '[' (AFTER_EVENT 0) or just past an event
 * (AFTER_EVENT 1). With OUT each event is validated and stored, numbered from *COUNT; without,
 * events are only parsed. Leaves the number of events in *COUNT. Returns an agb_load_status. */
static int walk_events(struct loader *L, size_t p, int after_event, struct agb_loaded_trace *out,
		       struct life *lf, size_t *count)
{
	size_t n = *count, err = p;
	int more;
	L->passed_upto = p;
	if (after_event) {
		more = next_event(L, &p);
	} else {
		p = skip_ws(L->text, L->len, p);
		more = p < L->len && L->text[p] == ']' ? 0 : 1;
	}
	while (more == 1) {
		size_t e = skip_value(L->text, L->len, p);
		cJSON *ev = parse_event(L, p, e, &err);
		if (ev == NULL)
			return arena_oom ? oom(L) : syntax_error(L, err);
		if (out != NULL) {
			L->ev_pos = p;
			L->ev_known = 1;
			int r = load_event(L, ev, n, out, lf);
			L->ev_known = 0;
			if (r != AGB_LOAD_OK)
				return r == AGB_LOAD_BAD_INPUT ? syntax_first(L, r, e, 1) : r;
		}
		n++;
		p = e;
		more = next_event(L, &p);
		err = p;
		loader_pass(L, p);
	}
	*count = n;
	return more < 0 ? syntax_error(L, err) : AGB_LOAD_OK;
}

/* A semantic error R was found before offset FROM of the events array (just past its '[', or
 * AFTER_EVENT just past an event): a syntax error after it is still reported first, as when the
 * whole document was parsed before any check. Error path only: O(rest of the array). */
static int syntax_first(struct loader *L, int r, size_t from, int after_event)
{
	struct agb_diag saved = *L->diag;
	size_t n = 0;
	int s = walk_events(L, from, after_event, NULL, NULL, &n);
	if (s != AGB_LOAD_OK && s != AGB_LOAD_IO_ERROR)
		return s;
	*L->diag = saved;
	return r;
}

/* Events left in the cJSON tree (a key spelled with escapes hid them from the stream scan). */
static int tree_events(struct loader *L, const cJSON *events, struct agb_loaded_trace *out,
		       struct life *lf, size_t *count)
{
	size_t n = 0;
	for (const cJSON *e = events->child; e != NULL; e = e->next, n++) {
		int r = load_event(L, e, n, out, lf);
		if (r != AGB_LOAD_OK)
			return r;
	}
	*count = n;
	return AGB_LOAD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The document without its events: the top-level object is parsed by cJSON with the events
 * array's text cut down to "[]". */

/* Offsets of the first top-level "events" member's array: B at its '[', E just past its ']'.
 * Returns 0 when the document does not scan as an object with such a member (cJSON then parses
 * the whole text and reports what is wrong). O(text up to the array's end): a pass, handing a
 * viewed file's pages back behind the array's members. */
static int find_events(struct loader *L, size_t *b, size_t *e)
{
	const char *s = L->text;
	size_t n = L->len, i = root_offset(L);
	if (i >= n || s[i] != '{')
		return 0;
	for (i = skip_ws(s, n, i + 1); i < n && s[i] == '"';) {
		size_t k = i, after = skip_string(s, n, i);
		i = skip_ws(s, n, after);
		if (i >= n || s[i] != ':')
			return 0;
		i = skip_ws(s, n, i + 1);
		if (after - k == 8 && memcmp(s + k, "\"events\"", 8) == 0 && i < n && s[i] == '[') {
			*b = i;
			L->passed_upto = 0;
			*e = skip_nested(s, n, i, L);
			return 1;
		}
		i = skip_ws(s, n, skip_value(s, n, i));
		if (i >= n || s[i] != ',')
			return 0;
		i = skip_ws(s, n, i + 1);
	}
	return 0;
}

/* The skeleton: the document with its first top-level "events" array emptied (its '[' at *B)
 * and the value of every ignored top-level member (ignored_key) longer than a number cut down to
 * 0, so that cJSON's tree holds the header, not the metadata (a node per value is ~50 bytes:
 * 43x the text of a big array of small numbers). Keys stay, for the duplicate-key check.
 * Returns the malloc'd text (*LEN bytes), or NULL with *LEN 0 when the document is not an
 * object of members (cJSON then gets the whole text) or out of memory (*LEN 1). Runs on text
 * the strict pass accepted. O(text): a pass, handing a viewed file's pages back. */
static char *skeleton_text(struct loader *L, size_t *len, size_t *b)
{
	const char *s = L->text;
	size_t n = L->len, i = root_offset(L), cap = 4096, at = 0;
	int events_seen = 0;
	char *out;
	*len = 0;
	*b = SIZE_MAX;
	if (i >= n || s[i] != '{')
		return NULL;
	out = malloc(cap);
	if (out == NULL) {
		*len = 1;
		return NULL;
	}
#define PUT(p, k)                                                                                 \
	do {                                                                                      \
		size_t k_ = (k);                                                                  \
		if (at + k_ + 2 > cap) {                                                          \
			while (at + k_ + 2 > cap)                                                 \
				cap *= 2;                                                         \
			char *g_ = realloc(out, cap);                                             \
			if (g_ == NULL) {                                                         \
				free(out);                                                        \
				*len = 1;                                                         \
				return NULL;                                                      \
			}                                                                         \
			out = g_;                                                                 \
		}                                                                                 \
		memcpy(out + at, (p), k_);                                                        \
		at += k_;                                                                         \
	} while (0)
	L->passed_upto = 0;
	PUT("{", 1);
	for (i = skip_ws(s, n, i + 1); i < n && s[i] == '"';) {
		size_t k = i, after = skip_string(s, n, i), v, ve;
		v = skip_ws(s, n, skip_ws(s, n, after) + 1); /* past the ':' */
		if (!events_seen && after - k == 8 && memcmp(s + k, "\"events\"", 8) == 0 &&
		    v < n && s[v] == '[') {
			events_seen = 1;
			*b = v;
			ve = skip_nested(s, n, v, L);
			PUT(s + k, after - k);
			PUT(":[]", 3);
		} else {
			ve = s[v] == '[' || s[v] == '{' ? skip_nested(s, n, v, L) : skip_value(s, n, v);
			PUT(s + k, after - k);
			if (ve - v > 24 && ignored_key(s, k + 1, after - 1))
				PUT(":0", 2);
			else {
				PUT(":", 1);
				PUT(s + v, ve - v);
			}
		}
		loader_pass(L, ve);
		i = skip_ws(s, n, ve);
		if (i >= n || s[i] != ',')
			break;
		PUT(",", 1);
		i = skip_ws(s, n, i + 1);
	}
	PUT("}", 1);
#undef PUT
	*len = at;
	return out;
}

/* Parses the document into *ROOT: the skeleton (skeleton_text), its events array found at
 * *EV_BEGIN (else SIZE_MAX). The strict pass has accepted the text, so cJSON fails only when out
 * of memory. */
static int parse_skeleton(struct loader *L, cJSON **root, size_t *ev_begin)
{
	size_t len = 0;
	char *cut = skeleton_text(L, &len, ev_begin);
	const char *text = cut != NULL ? cut : L->text, *end = NULL;
	if (cut == NULL && len == 1)
		return oom(L);
	if (cut == NULL)
		len = L->len;
	*root = cjson_parse_checked(text, len, &end);
	int r = AGB_LOAD_OK;
	if (*root == NULL && arena_oom)
		r = oom(L);
	else if (*root == NULL)
		r = syntax_error(L, 0);
	free(cut);
	return r;
}

/* Header, then events: streamed from the text, or from the tree when they stayed in it. */
static int load_document(struct loader *L, struct agb_loaded_trace *out, struct life *lf)
{
	cJSON *root = NULL;
	const cJSON *events = NULL;
	size_t b = SIZE_MAX, n = 0;
	int r = parse_skeleton(L, &root, &b);
	if (L->view != NULL) /* finding the events array walked all of it */
		agb_file_view_pass(L->view, 0, L->len);
	if (r == AGB_LOAD_OK)
		r = load_header(L, root, out, &events);
	if (r == AGB_LOAD_BAD_INPUT && root != NULL && b != SIZE_MAX)
		r = syntax_first(L, r, b + 1, 0);
	if (r != AGB_LOAD_OK)
		return r;
	if (events == NULL) /* (load_header returns an error first) */
		return AGB_LOAD_BAD_INPUT;
	if (b != SIZE_MAX && events->child == NULL)
		r = walk_events(L, b + 1, 0, out, lf, &n);
	else
		r = tree_events(L, events, out, lf, &n);
	if (r != AGB_LOAD_OK)
		return r;
	if (n < lf->cap && n > 0) { /* give back what the upper bound over-counted */
		struct agb_event *fit = realloc(out->events, n * sizeof *fit);
		if (fit != NULL)
			out->events = fit;
	}
	out->trace.event_count = (uint32_t)n;
	/* Cache key handles index the same table bound (agbsim/replay.h). */
	out->trace.slots = lf->slots > lf->key_count ? lf->slots : (uint32_t)lf->key_count;
	return AGB_LOAD_OK;
}

/* agb_trace_load_buffer, for a text that is VIEW's file when VIEW is not NULL. */
/* The loaded traces that name call sites, by their event array: what they point at is on the
 * heap, so a copy of the loaded trace or of its agb_trace finds the same sites. A trace beyond
 * the table's room just has no sites in the reports. */
#define SITE_TRACES 64u
static struct site_reg {
	const struct agb_event *events;
	const uint32_t *site_of;
	char *const *names;
	size_t cap;
} site_regs[SITE_TRACES];

static void sites_register(const struct agb_loaded_trace *t)
{
	for (size_t i = 0; i < SITE_TRACES; i++)
		if (site_regs[i].events == NULL) {
			site_regs[i] = (struct site_reg){t->events, t->site_of, t->site_names,
							 t->site_cap};
			return;
		}
}

static void sites_unregister(const struct agb_event *events)
{
	for (size_t i = 0; i < SITE_TRACES && events != NULL; i++)
		if (site_regs[i].events == events)
			memset(&site_regs[i], 0, sizeof site_regs[i]);
}

const char *agb_trace_event_site(const struct agb_trace *t, uint32_t event)
{
	for (size_t i = 0; i < SITE_TRACES && t->events != NULL; i++)
		if (site_regs[i].events == t->events) {
			const struct site_reg *g = &site_regs[i];
			if (event >= g->cap || g->site_of[event] == 0)
				return NULL;
			return g->names[g->site_of[event] - 1u];
		}
	return NULL;
}

static int load_text(const char *name, const char *text, size_t len, struct agb_file_view *view,
		     struct agb_loaded_trace *out, struct agb_diag *diag)
{
	struct loader L = {
	    .text = text, .len = len, .diag = diag, .arena = AGB_ARENA_EWRAM, .view = view};
	struct life lf;
	memset(out, 0, sizeof *out);
	memset(diag, 0, sizeof *diag);
	memset(&lf, 0, sizeof lf);
	set_file(diag, name);

	size_t first = root_offset(&L);
	if (first >= len)
		return fail_at(&L, len == 0 ? 0 : first,
			       "empty file (expected a JSON object with \"version\", \"arena\" and "
			       "\"events\")");
	int r = prescan(&L);
	if (r == AGB_LOAD_OK)
		r = strict_syntax(&L);
	if (r != AGB_LOAD_OK)
		return r;
	if (!map_init(&lf.ids, 1024) || !map_init(&lf.tiles, 64) || !map_init(&lf.sprites, 64) ||
	    !map_init(&lf.pals, 64) || !map_init(&lf.marks, 16) || !map_init(&lf.keys, 64) ||
	    !map_init(&lf.sites, 64)) {
		life_free(&lf);
		return oom(&L);
	}
	cJSON_Hooks hooks = {arena_alloc, arena_free};
	cJSON_InitHooks(&hooks);
	r = load_document(&L, out, &lf);
	cJSON_InitHooks(NULL);
	arena_release();
	life_free(&lf);
	if (r != AGB_LOAD_OK) {
		agb_trace_release(out);
		return r;
	}
	out->trace.arena = L.arena;
	out->trace.arena_bytes = L.arena_bytes;
	out->trace.events = out->events;
	out->trace.name = out->name;
	out->trace.source = out->source;
	if (out->site_count != 0)
		sites_register(out);
	return AGB_LOAD_OK;
}

int agb_trace_load_buffer(const char *name, const char *text, size_t len,
			  struct agb_loaded_trace *out, struct agb_diag *diag)
{
	return load_text(name, text, len, NULL, out, diag);
}

static int io_error(struct agb_diag *diag, const char *what, int err)
{
	diag->line = diag->col = 0;
	snprintf(diag->message, sizeof diag->message, "%s: %s", what, strerror(err));
	return AGB_LOAD_IO_ERROR;
}

static int too_large(struct agb_diag *diag, size_t max)
{
	diag->line = diag->col = 0;
	snprintf(diag->message, sizeof diag->message,
		 "larger than %zu bytes, the most agbsim reads from one input (a trace of 10 M "
		 "events is ~200 MB)",
		 max);
	return AGB_LOAD_BAD_INPUT;
}

static int out_of_memory(struct agb_diag *diag)
{
	snprintf(diag->message, sizeof diag->message, "out of memory");
	return AGB_LOAD_IO_ERROR;
}

/* Where read_bounded puts what it reads: CHUNK's N bytes. 0, or an agb_load_status. */
typedef int (*chunk_sink)(void *ctx, const char *chunk, size_t n, struct agb_diag *diag);

/* Reads F to its end, handing each chunk to SINK: at most MAX bytes, and no further than the
 * first chunk holding a NUL byte (the loader rejects it with its position anyway; /dev/zero
 * must not fill memory or a disk). *LEN: the bytes read. Returns an agb_load_status. */
static int read_bounded(FILE *f, size_t max, chunk_sink sink, void *ctx, size_t *len,
			struct agb_diag *diag)
{
	char chunk[1 << 16];
	size_t n = 0;
	*len = 0;
	for (;;) {
		size_t got = fread(chunk, 1, sizeof chunk, f);
		if (ferror(f))
			return io_error(diag, "cannot read", errno != 0 ? errno : EIO);
		n += got;
		if (n > max)
			return too_large(diag, max);
		int r = got > 0 ? sink(ctx, chunk, got, diag) : AGB_LOAD_OK;
		if (r != AGB_LOAD_OK)
			return r;
		if (feof(f) || memchr(chunk, 0, got) != NULL)
			break;
	}
	*len = n;
	return AGB_LOAD_OK;
}

/* A growing buffer: read_all's sink. */
struct growing {
	char *b;
	size_t n, cap;
};

static int append_chunk(void *ctx, const char *chunk, size_t n, struct agb_diag *diag)
{
	struct growing *g = ctx;
	if (g->cap - g->n < n) {
		size_t cap = g->cap > 0 ? g->cap : (size_t)1 << 16;
		while (cap - g->n < n)
			cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
		char *bigger = realloc(g->b, cap);
		if (bigger == NULL)
			return out_of_memory(diag);
		g->b = bigger;
		g->cap = cap;
	}
	memcpy(g->b + g->n, chunk, n);
	g->n += n;
	return AGB_LOAD_OK;
}

/* Reads all of F into *BUF (*LEN bytes; free it), under read_bounded's bounds. SIZE is the
 * file's size when known (regular files: one allocation), else 0. Returns an agb_load_status. */
static int read_all(FILE *f, size_t size, size_t max, char **buf, size_t *len,
		    struct agb_diag *diag)
{
	struct growing g = {.b = NULL, .n = 0, .cap = size > 0 && size <= max ? size : 0};
	*buf = NULL;
	*len = 0;
	if (g.cap > 0 && (g.b = malloc(g.cap)) == NULL)
		return out_of_memory(diag);
	size_t n = 0;
	int r = read_bounded(f, max, append_chunk, &g, &n, diag);
	if (r == AGB_LOAD_OK && g.b == NULL && (g.b = malloc(1)) == NULL) /* empty: a buffer still */
		r = out_of_memory(diag);
	if (r != AGB_LOAD_OK) {
		free(g.b);
		return r;
	}
	*buf = g.b;
	*len = g.n;
	return AGB_LOAD_OK;
}

int agb_read_input(const char *path, size_t max_bytes, char **buf, size_t *len,
		   struct agb_diag *diag)
{
	int is_stdin = strcmp(path, "-") == 0;
	*buf = NULL;
	*len = 0;
	memset(diag, 0, sizeof *diag);
	set_file(diag, is_stdin ? "<stdin>" : path);
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (f == NULL)
		return io_error(diag, "cannot open", agb_open_errno(path, errno));
	struct stat st;
	size_t size = 0;
	int r = AGB_LOAD_OK;
	if (fstat(fileno(f), &st) == 0) {
		if (S_ISDIR(st.st_mode))
			r = io_error(diag, "cannot open", EISDIR);
		else if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max_bytes)
			r = too_large(diag, max_bytes);
		else if (S_ISREG(st.st_mode))
			size = (size_t)st.st_size;
	}
	if (r == AGB_LOAD_OK)
		r = read_all(f, size, max_bytes, buf, len, diag);
	if (!is_stdin)
		fclose(f);
	return r;
}

/* Loads the regular file PATH (or stdin, "-", redirected from one and not yet read) through a
 * view of it (agb_file_view_open), so a big trace's text is never held whole. Returns -1, having
 * read nothing, where it cannot be viewed (not a regular file, empty, too large, a system that
 * does not map files): the caller reads it instead. */
/* load_text over a viewed file, run under agb_view_guard. */
struct viewed_load {
	const char *name;
	struct agb_file_view *view;
	struct agb_loaded_trace *out;
	struct agb_diag *diag;
	int r;
};

static void run_viewed_load(void *p)
{
	struct viewed_load *v = p;
	v->r = load_text(v->name, v->view->data, v->view->len, v->view, v->out, v->diag);
}

static int load_viewed(const char *path, size_t max_bytes, struct agb_loaded_trace *out,
		       struct agb_diag *diag)
{
	struct stat st;
	struct agb_file_view view;
	int r = -1, is_stdin = strcmp(path, "-") == 0;
	/* Look before opening: opening a FIFO waits for a writer, and the reader must open it once. */
	if (!is_stdin && (stat(path, &st) != 0 || !S_ISREG(st.st_mode)))
		return -1;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (f == NULL || (is_stdin && ftell(f) != 0))
		return -1;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size <= max_bytes &&
	    agb_file_view_open(f, (size_t)st.st_size, &view) == 0) {
		struct viewed_load vl = {is_stdin ? "<stdin>" : path, &view, out, diag, -1};
		if (agb_view_guard(run_viewed_load, &vl)) {
			/* The file was cut short under the loader: abandon its state, report. */
			cJSON_InitHooks(NULL);
			arena_release();
			memset(out, 0, sizeof *out);
			memset(diag, 0, sizeof *diag);
			set_file(diag, vl.name);
			snprintf(diag->message, sizeof diag->message,
				 "cannot read: the file was cut short while it was read");
			vl.r = AGB_LOAD_IO_ERROR;
		}
		r = vl.r;
		agb_file_view_close(&view);
	}
	if (!is_stdin)
		fclose(f);
	return r;
}

/* read_bounded's sink for a spool file (CTX). */
static int write_chunk(void *ctx, const char *chunk, size_t n, struct agb_diag *diag)
{
	if (fwrite(chunk, 1, n, (FILE *)ctx) == n)
		return AGB_LOAD_OK;
	return io_error(diag, "cannot copy the input to a temporary file", errno != 0 ? errno : EIO);
}

/* Copies IN into SPOOL under read_bounded's bounds; *LEN: bytes copied. An agb_load_status. */
static int spool_copy(FILE *in, FILE *spool, size_t max, size_t *len, struct agb_diag *diag)
{
	int r = read_bounded(in, max, write_chunk, spool, len, diag);
	if (r == AGB_LOAD_OK && fflush(spool) != 0)
		r = io_error(diag, "cannot copy the input to a temporary file",
			     errno != 0 ? errno : EIO);
	return r;
}

/* Loads stdin ("-"), a FIFO or a character device through a copy in a temporary file
 * (agb_spool_file: in $TMPDIR) that is then viewed, so a big trace from a pipe is not held whole
 * either. Returns -1, having read nothing, for other paths or when no temporary file can be made
 * (always on Windows): the caller reads the input itself. */
static int load_spooled(const char *path, size_t max_bytes, struct agb_loaded_trace *out,
			struct agb_diag *diag)
{
	struct stat st;
	int is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "<stdin>" : path;
	if (!is_stdin && (stat(path, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))))
		return -1;
	FILE *spool = agb_spool_file();
	if (spool == NULL)
		return -1;
	memset(diag, 0, sizeof *diag);
	set_file(diag, name);
	FILE *in = is_stdin ? stdin : fopen(path, "rb");
	size_t len = 0;
	int r = in != NULL ? spool_copy(in, spool, max_bytes, &len, diag)
			   : io_error(diag, "cannot open", agb_open_errno(path, errno));
	if (in != NULL && !is_stdin)
		fclose(in);
	struct agb_file_view view;
	if (r != AGB_LOAD_OK) {
		/* diag says why */
	} else if (len > 0 && agb_file_view_open(spool, len, &view) == 0) {
		r = load_text(name, view.data, view.len, &view, out, diag);
		agb_file_view_close(&view);
	} else { /* empty, or a system that does not map files: read the copy back */
		char *buf = NULL;
		rewind(spool);
		r = read_all(spool, len, max_bytes, &buf, &len, diag);
		if (r == AGB_LOAD_OK)
			r = load_text(name, buf, len, NULL, out, diag);
		free(buf);
	}
	fclose(spool);
	return r;
}

int agb_trace_load_file_max(const char *path, size_t max_bytes, struct agb_loaded_trace *out,
			    struct agb_diag *diag)
{
	char *buf = NULL;
	size_t len = 0;
	memset(out, 0, sizeof *out);
	int viewed = load_viewed(path, max_bytes, out, diag);
	if (viewed < 0)
		viewed = load_spooled(path, max_bytes, out, diag);
	if (viewed >= 0)
		return viewed;
	int r = agb_read_input(path, max_bytes, &buf, &len, diag);
	if (r == AGB_LOAD_OK)
		r = agb_trace_load_buffer(strcmp(path, "-") == 0 ? "<stdin>" : path, buf, len, out,
					  diag);
	free(buf);
	return r;
}

int agb_trace_load_file(const char *path, struct agb_loaded_trace *out, struct agb_diag *diag)
{
	return agb_trace_load_file_max(path, AGB_TRACE_MAX_BYTES, out, diag);
}

int agb_trace_locate_event(const char *path, uint32_t index, struct agb_diag *diag)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int ok = 0;
	memset(diag, 0, sizeof *diag);
	set_file(diag, path);
	FILE *f = strcmp(path, "-") != 0 ? fopen(path, "rb") : NULL;
	if (f == NULL)
		return -1;
	/* Only a regular file reads the same twice (not a pipe, not stdin). */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    read_all(f, (size_t)st.st_size, AGB_TRACE_MAX_BYTES, &buf, &len, diag) == AGB_LOAD_OK) {
		struct loader L = {.text = buf, .len = len, .diag = diag, .arena = AGB_ARENA_EWRAM};
		size_t b, e;
		if (find_events(&L, &b, &e)) {
			size_t i = element_offset(buf, len, b, index);
			ok = i < e;
			if (ok)
				set_position(diag, buf, len, i);
		}
	}
	fclose(f);
	free(buf);
	diag->message[0] = '\0';
	if (!ok)
		diag->line = diag->col = 0;
	return ok ? 0 : -1;
}

void agb_trace_release(struct agb_loaded_trace *t)
{
	sites_unregister(t->events);
	for (size_t i = 0; i < t->site_count; i++)
		free(t->site_names[i]);
	free(t->site_names);
	free(t->site_of);
	free(t->events);
	free(t->name);
	free(t->source);
	memset(t, 0, sizeof *t);
}

int agb_diag_format(const struct agb_diag *d, char *buf, size_t n)
{
	if (d->line == 0)
		return snprintf(buf, n, "%s: %s", d->file, d->message);
	return snprintf(buf, n, "%s:%u:%u: %s", d->file, d->line, d->col, d->message);
}

/* ------------------------------------------------------------------------------------------ */
/* Other JSON documents (bench results, baselines) with the same checks and positions. */

int agb_json_parse(const char *name, const char *text, size_t len, cJSON **out,
		   struct agb_diag *diag)
{
	struct loader L = {.text = text, .len = len, .diag = diag, .arena = AGB_ARENA_EWRAM};
	const char *end = NULL;
	cJSON *root;
	int r;
	*out = NULL;
	memset(diag, 0, sizeof *diag);
	set_file(diag, name);
	if (root_offset(&L) >= len)
		return fail_at(&L, 0, "empty file (expected a JSON document)");
	r = prescan(&L);
	if (r == AGB_LOAD_OK)
		r = strict_syntax(&L);
	if (r != AGB_LOAD_OK)
		return r;
	root = cjson_parse_checked(text, len, &end);
	if (root == NULL) {
		size_t off = 0;
		char msg[sizeof diag->message];
		if (diagnose_syntax(text, len, &off, msg, sizeof msg))
			return fail_at(&L, off, "%s", msg);
		const char *ep = end;
		off = ep != NULL && ep >= text && ep <= text + len ? (size_t)(ep - text) : 0;
		return fail_at(&L, off, "malformed JSON (rejected by cJSON here)");
	}
	size_t tail = end != NULL ? skip_ws(text, len, (size_t)(end - text)) : len;
	if (tail < len) {
		char what[16];
		cJSON_Delete(root);
		describe_byte(what, sizeof what, (unsigned char)text[tail]);
		return fail_at(&L, tail, "trailing data after the JSON document: %s", what);
	}
	*out = root;
	return AGB_LOAD_OK;
}

void agb_json_locate(const char *text, size_t len, const char *path, struct agb_diag *diag)
{
	struct loader L = {.text = text, .len = len, .diag = diag, .arena = AGB_ARENA_EWRAM};
	size_t i = root_offset(&L);
	while (*path != '\0' && i < len) {
		char part[128];
		size_t k = 0;
		while (*path != '\0' && *path != '/' && k + 1 < sizeof part)
			part[k++] = *path++;
		part[k] = '\0';
		if (*path == '/')
			path++;
		if (text[i] == '[') {
			i = element_offset(text, len, i, (size_t)strtoul(part, NULL, 10));
		} else if (text[i] == '{') {
			size_t j = skip_ws(text, len, i + 1), found = i;
			while (j < len && text[j] == '"') {
				size_t after = skip_string(text, len, j);
				int match = after - j == k + 2 && memcmp(text + j + 1, part, k) == 0;
				j = skip_ws(text, len, skip_ws(text, len, after) + 1);
				if (match) {
					found = j;
					break;
				}
				j = skip_ws(text, len, skip_value(text, len, j));
				if (j >= len || text[j] != ',')
					break;
				j = skip_ws(text, len, j + 1);
			}
			if (found == i)
				break;
			i = found;
		} else {
			break;
		}
	}
	set_position(diag, text, len, i);
}

int agb_read_regular_file(const char *path, size_t max_bytes, char **buf, size_t *len)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max_bytes) {
		fclose(f);
		return -1;
	}
	size_t cap = (size_t)st.st_size;
	char *b = malloc(cap + 1u);
	size_t n = b != NULL ? fread(b, 1, cap, f) : 0u;
	int bad = b == NULL || ferror(f) || n != cap;
	fclose(f);
	if (bad) {
		free(b);
		return -1;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
