/* agbsim record: run a GBA game in libmgba and write the trace of what it asked of memory
 * (issue 18, docs/recording.md).
 *
 * Heap mode (default): the allocator's entry points come from the game's ELF symbols; libmgba's
 * debugger breaks on them (src/measure/mgba_record.c), each finished outermost call becomes an
 * event (src/trace/record.c) and every VBlank a frame. VRAM mode (--vram=obj|bg): no symbols; the
 * video state at line 0 of every frame gives the obj_vram or bg_vram trace.
 *
 * The trace is written whole or not at all, after the loader has accepted it: a recording never
 * leaves a file replay would reject. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/agbsim.h"
#include "cli/cli_opts.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "trace/elf_image.h"
#include "trace/elf_lines.h"
#include "trace/elf_syms.h"
#include "trace/json_out.h"
#include "trace/record.h"
#include "trace/trace_load.h"

#ifdef AGB_MEASURE_ENABLED
#include "mgba_record.h"
#endif

#define CMD             "record"
#define DEFAULT_FRAMES  600u
#define MAX_FRAMES      10000000u
#define ELF_MACHINE_ARM 40u

static void usage(FILE *out)
{
	fprintf(out,
	        "Usage: agbsim record GAME.elf [--rom GAME.gba] [--frames N] -o TRACE.json\n"
	        "       agbsim record GAME.gba --vram=obj|bg [--frames N] -o TRACE.json\n\n"
	        "Runs a GBA game in libmgba (headless, nothing written to $HOME) for N frames and\n"
	        "writes what it asked of memory as a v1 trace that replay, bench and measure "
	        "take.\n\n"
	        "Heap mode (default): breakpoints on the allocator the game's ELF symbols name\n"
	        "(newlib's malloc, calloc, realloc, free, memalign and their _r variants); each "
	        "call\n"
	        "becomes an alloc/realloc/free (calls made inside another one, such as realloc's "
	        "own\n"
	        "malloc, are part of it), each VBlank a frame. The arena (ewram or obj_vram) and "
	        "its\n"
	        "size are inferred from the blocks the game got.\n"
	        "VRAM mode: obj reads OAM every frame (a sprite's tile range is a block, "
	        "allocated\n"
	        "when it first appears, freed when no sprite uses it); bg reads the visible "
	        "screen\n"
	        "maps (a ref/unref per cell that changes; tiles named by a hash of their "
	        "pixels).\n\n"
	        "Options:\n"
	        "  -o FILE            the trace ('-': stdout); written only when complete\n"
	        "  --frames N         frames to run (default %u: 10 seconds)\n"
	        "  --rom FILE         the ROM to boot (default: GAME.gba beside GAME.elf, else the "
	        "ELF)\n"
	        "  --symbols LIST     the game's own allocator instead of newlib's:\n"
	        "                     "
	        "alloc=NAME,free=NAME[,realloc=NAME][,calloc=NAME][,memalign=NAME];\n"
	        "                     NAME:K when K arguments (a heap handle) come before the C "
	        "ones\n"
	        "  --vram=obj|bg      VRAM mode (GAME may be a .gba: no symbols needed)\n"
	        "  --input FILE       a button script: lines 'FRAME KEY...' (keys held from that\n"
	        "                     frame on: A B SELECT START RIGHT LEFT UP DOWN R L, '-' "
	        "none)\n"
	        "  --pool N           the trace's pool size instead of the inferred one\n"
	        "                     (--arena-bytes N: the same)\n"
	        "  --name NAME        the trace's name (default: GAME-WHAT-Nf[-INPUT]: the game,\n"
	        "                     heap or the alloc name or obj/bg, the frames, the script)\n"
	        "  --game-log FILE    also write the game's debug prints (mGBA's debug registers)\n"
	        "  -q, --quiet        no progress and no summary on stderr\n"
	        "  -h, --help         show this help\n\n"
	        "Exit status: 0 ok, 2 bad usage or input (no ELF symbols, a stripped ELF, a game "
	        "that\n"
	        "never called the allocator), 3 I/O error or built without libmgba.\n",
	        DEFAULT_FRAMES);
}

enum rec_mode { MODE_HEAP, MODE_OBJ, MODE_BG };

struct record_args {
	const char *game, *rom, *out, *symbols, *input, *name, *game_log;
	uint32_t frames, arena_bytes;
	enum rec_mode mode;
	int quiet;
	char *source; /* the command as typed (getopt reorders argv) */
};

static int record_option(void *ctx, int opt, const char *arg)
{
	struct record_args *a = ctx;
	switch (opt) {
	case 'n':
		if (agbsim_parse_u32(arg, &a->frames) != 0 || a->frames == 0 ||
		    a->frames > MAX_FRAMES)
			return agbsim_usage_error(CMD, "--frames wants an integer 1..%u, not '%s'",
			                          MAX_FRAMES, arg);
		return AGBSIM_EXIT_OK;
	case 'b':
		if (agbsim_parse_u32(arg, &a->arena_bytes) != 0 || a->arena_bytes == 0)
			return agbsim_usage_error(
			        CMD, "--pool wants a positive integer, not '%s'", arg);
		return AGBSIM_EXIT_OK;
	case 'v':
		if (strcmp(arg, "obj") == 0)
			a->mode = MODE_OBJ;
		else if (strcmp(arg, "bg") == 0)
			a->mode = MODE_BG;
		else
			return agbsim_usage_error(CMD, "--vram wants obj or bg, not '%s'", arg);
		return AGBSIM_EXIT_OK;
	case 'q':
		a->quiet = 1;
		return AGBSIM_EXIT_OK;
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int parse_args(struct record_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
	        {"output", required_argument, NULL, 'o'},
	        {"frames", required_argument, NULL, 'n'},
	        {"rom", required_argument, NULL, 'r'},
	        {"symbols", required_argument, NULL, 's'},
	        {"vram", required_argument, NULL, 'v'},
	        {"input", required_argument, NULL, 'i'},
	        {"pool", required_argument, NULL, 'b'},
	        {"arena-bytes", required_argument, NULL, 'b'},
	        {"name", required_argument, NULL, 'N'},
	        {"game-log", required_argument, NULL, 'g'},
	        {"quiet", no_argument, NULL, 'q'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
	        AGBSIM_CLI_TEXT('o', struct record_args, out),
	        AGBSIM_CLI_TEXT('r', struct record_args, rom),
	        AGBSIM_CLI_TEXT('s', struct record_args, symbols),
	        AGBSIM_CLI_TEXT('i', struct record_args, input),
	        AGBSIM_CLI_TEXT('N', struct record_args, name),
	        AGBSIM_CLI_TEXT('g', struct record_args, game_log),
	        {0, 0}};
	const struct agbsim_cli cli = {CMD, "o:q", longopts, usage, record_option, a, NULL, texts};
	int first, rc;
	a->frames = DEFAULT_FRAMES;
	rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (first != argc - 1)
		return agbsim_usage_error(CMD, first >= argc ? "no GAME given"
		                                             : "exactly one GAME expected");
	a->game = argv[first];
	if (a->out == NULL)
		return agbsim_usage_error(CMD, "no output file given (-o TRACE.json)");
	if (a->mode != MODE_HEAP && a->symbols != NULL)
		return agbsim_usage_error(CMD, "--symbols is for heap mode, not --vram");
	if (a->name != NULL && (a->name[0] == '\0' || strlen(a->name) > 200))
		return agbsim_usage_error(CMD, "--name wants 1..200 characters");
	return AGBSIM_CLI_RUN;
}

/* ---- the exact command, for the trace's "source" ------------------------------------------ */
static int plain_arg(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && strchr("-_./=,:+@%", *s) == NULL)
			return 0;
	return 1;
}

/* "agbsim record ARGS..." with shell quoting where an argument needs it. NULL out of memory. */
static char *command_line(int argc, char **argv)
{
	size_t n = 16;
	for (int i = 0; i < argc; i++)
		n += 4u * strlen(argv[i]) + 3u;
	char *s = malloc(n), *p = s;
	if (s == NULL)
		return NULL;
	p += sprintf(p, "agbsim");
	for (int i = 0; i < argc; i++) {
		*p++ = ' ';
		if (plain_arg(argv[i])) {
			p += sprintf(p, "%s", argv[i]);
			continue;
		}
		*p++ = '\'';
		for (const char *c = argv[i]; *c; c++) {
			if (*c == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = *c;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

/* ---- the button script -------------------------------------------------------------------- */
struct key_step {
	uint32_t frame, keys;
};

struct script {
	struct key_step *steps;
	size_t n;
};

static int script_error(const char *path, unsigned line, unsigned col, const char *msg,
                        const char *word, size_t wlen)
{
	if (word != NULL)
		agbsim_error("%s:%u:%u: %s '%.*s'", path, line, col, msg, (int)wlen, word);
	else
		agbsim_error("%s:%u:%u: %s", path, line, col, msg);
	return AGBSIM_EXIT_USAGE;
}

static uint32_t key_bit(const char *w, size_t n)
{
	static const char *const names[] = {"A",    "B",  "SELECT", "START", "RIGHT",
	                                    "LEFT", "UP", "DOWN",   "R",     "L"};
	for (uint32_t i = 0; i < 10u; i++)
		if (strlen(names[i]) == n && strncasecmp(names[i], w, n) == 0)
			return 1u << i;
	return 0;
}

/* One line "FRAME KEY..." (or blank, or a # comment) into the script. */
static int script_line(const char *path, unsigned ln, const char *s, const char *end,
                       struct script *sc, size_t *cap)
{
	const char *p = s;
	uint32_t frame = 0, keys = 0;
	int words = 0;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end || *p == '#')
			break;
		const char *w = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		size_t n = (size_t)(p - w);
		unsigned col = (unsigned)(w - s) + 1u;
		if (words++ == 0) {
			char num[16];
			if (n >= sizeof num)
				return script_error(path, ln, col, "frame number too large:", w, n);
			memcpy(num, w, n);
			num[n] = '\0';
			if (agbsim_parse_u32(num, &frame) != 0)
				return script_error(path, ln, col, "expected a frame number, not",
				                    w, n);
			if (sc->n != 0 && frame <= sc->steps[sc->n - 1].frame)
				return script_error(path, ln, col,
				                    "frame numbers must increase:", w, n);
		} else if (!(n == 1 && *w == '-')) {
			uint32_t bit = key_bit(w, n);
			if (bit == 0)
				return script_error(
				        path, ln, col,
				        "unknown key (A B SELECT START RIGHT LEFT UP DOWN R L, "
				        "'-' for none):",
				        w, n);
			keys |= bit;
		}
	}
	if (words == 0)
		return AGBSIM_EXIT_OK;
	if (words == 1)
		return script_error(path, ln, 1,
		                    "a frame number needs keys after it ('-' for none)", NULL, 0);
	if (sc->n == *cap) {
		*cap = *cap ? *cap * 2u : 16u;
		struct key_step *ns = realloc(sc->steps, *cap * sizeof *ns);
		if (ns == NULL) {
			agbsim_error("%s: out of memory", path);
			return AGBSIM_EXIT_IO;
		}
		sc->steps = ns;
	}
	sc->steps[sc->n++] = (struct key_step){frame, keys};
	return AGBSIM_EXIT_OK;
}

static int load_script(const char *path, struct script *sc)
{
	char *text;
	size_t len, cap = 0;
	unsigned ln = 1;
	int rc = agbsim_read_input(path, &text, &len);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	if (memchr(text, '\0', len) != NULL) {
		free(text);
		agbsim_error("%s: not a text file (NUL byte)", path);
		return AGBSIM_EXIT_USAGE;
	}
	for (const char *s = text, *end = text + len; s < end && rc == AGBSIM_EXIT_OK; ln++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl != NULL ? nl : end;
		rc = script_line(path, ln, s, le, sc, &cap);
		s = nl != NULL ? nl + 1 : end;
	}
	free(text);
	return rc;
}

/* ---- heap mode: which functions, where ---------------------------------------------------- */
struct fnspec {
	char name[128];
	enum agb_rec_fn fn;
	uint32_t arg;  /* register of the first C argument */
	uint32_t addr; /* with the Thumb bit */
	int required;  /* named by --symbols: must exist */
};

struct heap_fns {
	struct fnspec f[64];
	size_t n;
	/* The game's error paths (functions named like one), watched for entry only. */
	struct fnspec err[16];
	size_t nerr;
};

static void add_fn(struct heap_fns *h, const char *name, size_t len, enum agb_rec_fn fn,
                   uint32_t arg, int required)
{
	struct fnspec *s = &h->f[h->n++];
	snprintf(s->name, sizeof s->name, "%.*s", (int)len, name);
	s->fn = fn;
	s->arg = arg;
	s->required = required;
}

static void default_fns(struct heap_fns *h)
{
	static const struct {
		const char *name;
		enum agb_rec_fn fn;
	} d[] = {{"malloc", AGB_REC_MALLOC},
	         {"calloc", AGB_REC_CALLOC},
	         {"realloc", AGB_REC_REALLOC},
	         {"free", AGB_REC_FREE},
	         {"memalign", AGB_REC_MEMALIGN}};
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
		char r[32];
		add_fn(h, d[i].name, strlen(d[i].name), d[i].fn, 0, 0);
		snprintf(r, sizeof r, "_%s_r", d[i].name); /* (struct _reent *, ...) */
		add_fn(h, r, strlen(r), d[i].fn, 1, 0);
	}
}

/* --symbols alloc=NAME[:K],free=NAME[:K],... */
static int parse_symbols(const char *list, struct heap_fns *h)
{
	static const struct {
		const char *role;
		enum agb_rec_fn fn;
		uint32_t c_args;
	} roles[] = {{"alloc", AGB_REC_MALLOC, 1},
	             {"free", AGB_REC_FREE, 1},
	             {"realloc", AGB_REC_REALLOC, 2},
	             {"calloc", AGB_REC_CALLOC, 2},
	             {"memalign", AGB_REC_MEMALIGN, 2}};
	int have_alloc = 0;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		size_t r;
		if (eq == NULL)
			return agbsim_usage_error(CMD, "--symbols: '%.*s' is not ROLE=NAME",
			                          (int)(end - p), p);
		for (r = 0; r < sizeof roles / sizeof roles[0]; r++)
			if (strlen(roles[r].role) == (size_t)(eq - p) &&
			    strncmp(roles[r].role, p, (size_t)(eq - p)) == 0)
				break;
		if (r == sizeof roles / sizeof roles[0])
			return agbsim_usage_error(CMD,
			                          "--symbols: unknown role '%.*s' (alloc, free, "
			                          "realloc, calloc, memalign)",
			                          (int)(eq - p), p);
		const char *name = eq + 1, *colon = memchr(name, ':', (size_t)(end - name));
		size_t nlen = (size_t)((colon ? colon : end) - name);
		uint32_t k = 0;
		if (colon != NULL) {
			char num[8];
			size_t kl = (size_t)(end - colon - 1);
			if (kl == 0 || kl >= sizeof num)
				return agbsim_usage_error(
				        CMD, "--symbols: bad argument count after '%.*s'",
				        (int)nlen, name);
			memcpy(num, colon + 1, kl);
			num[kl] = '\0';
			if (agbsim_parse_u32(num, &k) != 0 || k + roles[r].c_args > 4u)
				return agbsim_usage_error(CMD,
				                          "--symbols: %s takes %u argument(s) in "
				                          "r0-r3: NAME:K wants K 0..%u",
				                          roles[r].role, roles[r].c_args,
				                          4u - roles[r].c_args);
		}
		if (nlen == 0 || nlen >= sizeof h->f[0].name ||
		    h->n == sizeof h->f / sizeof h->f[0])
			return agbsim_usage_error(CMD, "--symbols: bad NAME for %s", roles[r].role);
		add_fn(h, name, nlen, roles[r].fn, k, 1);
		have_alloc |= roles[r].fn != AGB_REC_FREE;
		p = comma ? comma + 1 : end;
	}
	if (!have_alloc)
		return agbsim_usage_error(CMD, "--symbols needs at least alloc=NAME");
	return AGBSIM_EXIT_OK;
}

static int is_elf(const char *path)
{
	unsigned char m[4] = {0};
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return 0;
	size_t n = fread(m, 1, 4, f);
	fclose(f);
	return n == 4 && memcmp(m, "\177ELF", 4) == 0;
}

/* NAME followed by GCC's clone suffixes only (".constprop.N", ".isra.N", ".part.N",
 * ".lto_priv.N", in any chain): an entry point of a copy of NAME. ".cold" parts are the tail of
 * a function split by GCC, never entered by a call: not a match. */
static int is_clone_of(const char *sym, const char *name)
{
	static const char *const sfx[] = {".constprop.", ".isra.", ".part.", ".lto_priv."};
	size_t n = strlen(name);
	if (strncmp(sym, name, n) != 0 || sym[n] == '\0')
		return 0;
	for (const char *p = sym + n; *p != '\0';) {
		size_t i, l = 0;
		for (i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
			l = strlen(sfx[i]);
			if (strncmp(p, sfx[i], l) == 0)
				break;
		}
		if (i == sizeof sfx / sizeof sfx[0] || !isdigit((unsigned char)p[l]))
			return 0;
		for (p += l; isdigit((unsigned char)*p); p++)
			;
	}
	return 1;
}

/* Levenshtein distance of a and b, capped at 9 (names longer than 63 count as far). */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[64];
	if (la >= 64u || lb >= 64u)
		return 9u;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (tolower((unsigned char)a[i - 1]) !=
			                                      tolower((unsigned char)b[j - 1]));
			if (up + 1u < best)
				best = up + 1u;
			if (row[j - 1] + 1u < best)
				best = row[j - 1] + 1u;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb] < 9u ? row[lb] : 9u;
}

/* Up to 6 function names of syms near NAME (edit distance <= 2, or NAME as a prefix, or the
 * name without its clone suffixes within distance 2), ", "-separated into buf. */
static void near_names(const struct agb_elf_symbols *syms, const char *name, char *buf, size_t n)
{
	size_t used = 0, found = 0, nl = strlen(name);
	buf[0] = '\0';
	for (size_t i = 0; i < syms->count && found < 6u; i++) {
		const char *s = syms->syms[i].name;
		char base[64];
		const char *dot = strchr(s, '.');
		snprintf(base, sizeof base, "%.*s", (int)(dot != NULL ? (size_t)(dot - s) : strlen(s)),
		         s);
		if (edit_distance(s, name) > 2u && edit_distance(base, name) > 2u &&
		    !(nl >= 3u && strncasecmp(s, name, nl) == 0))
			continue;
		if (strstr(buf, s) != NULL)
			continue;
		int w = snprintf(buf + used, n - used, "%s%s", found ? ", " : "", s);
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
		found++;
	}
}

/* The functions of syms that are NAME or a GCC clone of it, ", "-separated into buf; their
 * addresses go into h as more watches of the same role. Returns how many. */
static size_t add_matches(const struct agb_elf_symbols *syms, const struct fnspec *want,
                          struct heap_fns *h, size_t *k, char *buf, size_t n)
{
	size_t found = 0, used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < syms->count && *k < sizeof h->f / sizeof h->f[0]; i++) {
		const char *s = syms->syms[i].name;
		if (strcmp(s, want->name) != 0 && !is_clone_of(s, want->name))
			continue;
		struct fnspec f = *want;
		snprintf(f.name, sizeof f.name, "%s", s);
		f.addr = (uint32_t)syms->syms[i].addr;
		h->f[(*k)++] = f;
		int w = snprintf(buf + used, n - used, "%s%s", found ? ", " : "", s);
		if (w > 0 && (size_t)w < n - used)
			used += (size_t)w;
		found++;
	}
	return found;
}

/* The functions of syms named like a game's error path (abort, exit, _exit, __assert_func, and
 * names holding "error", "fatal", "panic" or "crash" in any case), at most 16: entering one is
 * where a game that stops usually went (docs/recording.md, "A game that stops"). */
static void error_fns(const struct agb_elf_symbols *syms, struct heap_fns *h)
{
	static const char *const exact[] = {"abort", "exit", "_exit", "__assert_func"};
	static const char *const word[] = {"error", "fatal", "panic", "crash"};
	h->nerr = 0;
	for (size_t i = 0; i < syms->count && h->nerr < sizeof h->err / sizeof h->err[0]; i++) {
		const char *s = syms->syms[i].name;
		char low[128];
		int hit = 0;
		size_t j;
		for (j = 0; j + 1u < sizeof low && s[j] != '\0'; j++)
			low[j] = (char)tolower((unsigned char)s[j]);
		low[j] = '\0';
		for (j = 0; j < sizeof exact / sizeof exact[0]; j++)
			hit |= strcmp(s, exact[j]) == 0;
		for (j = 0; j < sizeof word / sizeof word[0]; j++)
			hit |= strstr(low, word[j]) != NULL;
		if (!hit || strstr(s, ".cold") != NULL) /* a split function's tail is no entry */
			continue;
		struct fnspec *f = &h->err[h->nerr++];
		snprintf(f->name, sizeof f->name, "%s", s);
		f->addr = (uint32_t)syms->syms[i].addr;
	}
}

static const char *role_name(enum agb_rec_fn fn)
{
	static const char *const names[] = {"alloc", "calloc", "realloc", "free", "memalign"};
	return names[fn];
}

/* Finds every function of h in GAME's symbols, with GCC's clones of each (LTO and IPA make
 * NAME.constprop.0 and such; the game calls those): a --symbols one must be there; of the
 * defaults at least one that allocates. Drops the defaults the game does not have. Says which
 * functions a --symbols name matched unless quiet. */
static int resolve_fns(const char *game, struct heap_fns *h, int quiet)
{
	struct agb_elf_symbols syms;
	char err[256];
	size_t k = 0, n = h->n;
	int allocates = 0;
	struct fnspec want[sizeof h->f / sizeof h->f[0]];
	if (agb_elf_symbols_load(game, &syms, err, sizeof err) != 0) {
		if (strcmp(err, "no symbol table") == 0)
			agbsim_error("%s: no symbol table (a stripped ELF?): heap mode finds the "
			             "allocator by name; record the unstripped ELF the build makes",
			             game);
		else
			agbsim_error("%s: %s", game, err);
		agb_elf_symbols_release(&syms);
		return AGBSIM_EXIT_USAGE;
	}
	if (syms.bits != 32u || syms.machine != ELF_MACHINE_ARM) {
		agb_elf_symbols_release(&syms);
		agbsim_error("%s: not a GBA game's ELF (32-bit ARM)", game);
		return AGBSIM_EXIT_USAGE;
	}
	memcpy(want, h->f, n * sizeof want[0]);
	for (size_t i = 0; i < n; i++) {
		char found[1024];
		size_t m = add_matches(&syms, &want[i], h, &k, found, sizeof found);
		if (m == 0 && want[i].required) {
			char near[512];
			near_names(&syms, want[i].name, near, sizeof near);
			if (near[0] != '\0')
				agbsim_error("%s: no function '%s' in the ELF's symbols (--symbols); "
				             "near: %s",
				             game, want[i].name, near);
			else
				agbsim_error("%s: no function '%s' in the ELF's symbols (--symbols)",
				             game, want[i].name);
			agb_elf_symbols_release(&syms);
			return AGBSIM_EXIT_USAGE;
		}
		if (m != 0 && want[i].required && !quiet)
			fprintf(stderr, "agbsim: record: %s=%s: %s\n", role_name(want[i].fn),
			        want[i].name, found);
		allocates |= m != 0 && want[i].fn != AGB_REC_FREE;
	}
	h->n = k;
	error_fns(&syms, h);
	agb_elf_symbols_release(&syms);
	if (!allocates) {
		agbsim_error("%s: no allocator in the ELF's symbols (looked for malloc, calloc, "
		             "realloc, "
		             "memalign and their _r variants): name the game's own with --symbols",
		             game);
		return AGBSIM_EXIT_USAGE;
	}
	return AGBSIM_EXIT_OK;
}

/* The GBA cartridge space: a ROM (and the ELF it comes from) larger than this cannot be the
 * game, and is not read. */
#define CARTRIDGE_BYTES ((long)32 << 20)

/* PATH (the game or its ROM) is a regular file within CARTRIDGE_BYTES: a FIFO, a device or
 * /dev/zero is never opened for reading, a 40 MB file never read whole. Prints why and returns
 * AGBSIM_EXIT_USAGE (AGBSIM_EXIT_IO when it cannot be opened), else AGBSIM_EXIT_OK. */
static int cartridge_file(const char *path)
{
	enum agb_path_kind k = agb_path_kind(path);
	if (k == AGB_PATH_MISSING) {
		agbsim_error("%s: cannot open: No such file or directory", path);
		return AGBSIM_EXIT_IO;
	}
	if (k != AGB_PATH_FILE) {
		agbsim_error("%s: not a regular file (a ROM or ELF is read from a file)", path);
		return AGBSIM_EXIT_USAGE;
	}
	FILE *f = fopen(path, "rb");
	long size = -1;
	if (f != NULL && fseek(f, 0, SEEK_END) == 0)
		size = ftell(f);
	if (f != NULL)
		fclose(f);
	if (size < 0) {
		agbsim_error("%s: cannot read: %s", path, strerror(errno != 0 ? errno : EIO));
		return AGBSIM_EXIT_IO;
	}
	if (size > CARTRIDGE_BYTES) {
		agbsim_error("%s: %ld bytes, larger than the cartridge's 32 MiB (33554432 bytes)", path,
		             size);
		return AGBSIM_EXIT_USAGE;
	}
	return AGBSIM_EXIT_OK;
}

/* The ROM to boot: --rom, a .gba beside the ELF, or the ELF itself (mGBA boots ELFs). */
static const char *pick_rom(const struct record_args *a, char *buf, size_t n)
{
	if (a->rom != NULL)
		return a->rom;
	size_t len = strlen(a->game);
	if (len > 4 && strcmp(a->game + len - 4, ".elf") == 0 && len + 1 < n) {
		snprintf(buf, n, "%.*s.gba", (int)(len - 4), a->game);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	return a->game;
}

#ifdef AGB_MEASURE_ENABLED

/* ---- the recording ------------------------------------------------------------------------ */
struct recording {
	const struct record_args *a;
	struct heap_fns fns;
	struct script script;
	struct agb_rec_heap heap;
	struct agb_rec_obj *obj;
	struct agb_rec_bg bg;
	struct agb_rec *rec;
	const char *source;
	/* Stop detection: the run of frames (to the last) whose VBlank nobody took by line 0, the
	 * PC at their ends when it stayed the same, the first error path entered. */
	uint32_t unacked_from, unacked_run, pc, pc_run;
	int entered;
	uint32_t entered_tag, entered_frame;
	/* Call sites: (event index, return address) of each heap event, in event order. */
	struct ev_site {
		uint32_t event, lr;
	} *sites;
	size_t nsites, capsites, cursor;
	struct agb_elf_symbols syms; /* heap mode: the game's functions, to name the sites */
	int have_syms;
	struct agb_elf_lines lines; /* and its line tables, when it has them */
	int have_lines;
	char site_buf[160], line_buf[128];
	const char *pool_from; /* where arena_bytes came from, when not the inferred span */
};

/* A game is stopped when its VBlank went untaken (IF's bit still set at line 0) for this many
 * frames up to the recording's end: half a second of no frame handled. */
#define STOP_FRAMES 30u

static void watch_stop(struct recording *r, uint32_t f, const struct agb_rec_frame_info *fi)
{
	uint32_t tag;
	if (fi->line0 && fi->vblank_unacked) {
		if (r->unacked_run++ == 0)
			r->unacked_from = f;
	} else {
		r->unacked_run = 0;
	}
	if (r->pc_run != 0 && fi->pc == r->pc)
		r->pc_run++;
	else
		r->pc = fi->pc, r->pc_run = 1;
	if (!r->entered && agb_rec_entered(r->rec, &tag)) {
		r->entered = 1;
		r->entered_tag = tag;
		r->entered_frame = f;
	}
}

static int stopped(const struct recording *r)
{
	return r->unacked_run >= STOP_FRAMES;
}

static void on_call(void *ctx, const struct agb_rec_call *c)
{
	struct recording *r = ctx;
	const struct fnspec *f = &r->fns.f[c->tag];
	uint32_t x = c->args[f->arg], y = f->arg < 3u ? c->args[f->arg + 1u] : 0u;
	size_t before = r->heap.out.n;
	agb_rec_heap_call(&r->heap, f->fn, x, y, c->result);
	for (size_t k = before; k < r->heap.out.n; k++) {
		if (r->nsites == r->capsites) {
			size_t cap = r->capsites ? r->capsites * 2u : 1024u;
			struct ev_site *n = realloc(r->sites, cap * sizeof *n);
			if (n == NULL) {
				r->heap.out.oom = 1; /* reported as the recording's out of memory */
				return;
			}
			r->sites = n;
			r->capsites = cap;
		}
		r->sites[r->nsites++] = (struct ev_site){(uint32_t)k, c->lr};
	}
}

/* The call site of a return address: the function holding the call (the 4 bytes before LR: an
 * ARM BL, or the two halfwords of a Thumb BL) and the call's offset in it, "spawn+0x4";
 * "0x08000123" when no symbol holds it. */
static const char *site_name(struct recording *r, uint32_t lr)
{
	uint32_t call = (lr & ~1u) - 4u;
	uint64_t off = 0;
	/* call | 1: a Thumb function's value has bit 0 set; an ARM one's offset comes out odd */
	const char *fn = r->have_syms ? agb_elf_symbol_at(&r->syms, call | 1u, &off) : NULL;
	if (fn != NULL)
		snprintf(r->site_buf, sizeof r->site_buf, "%s+0x%x", fn, (unsigned)(off & ~1u));
	else
		snprintf(r->site_buf, sizeof r->site_buf, "0x%08x", (unsigned)call);
	return r->site_buf;
}

/* The source line of the call before return address LR, "file.c:LINE", or NULL when the ELF's
 * line tables do not cover it. */
static const char *site_line(struct recording *r, uint32_t lr)
{
	uint32_t line = 0;
	const char *file = r->have_lines ? agb_elf_line_at(&r->lines, (lr & ~1u) - 4u, &line) : NULL;
	if (file == NULL)
		return NULL;
	snprintf(r->line_buf, sizeof r->line_buf, "%.100s:%u", file, (unsigned)line);
	return r->line_buf;
}

/* The writer's site lookup: events come in order, so a cursor walks r->sites. */
static const char *event_site(void *ctx, uint32_t event, const char **line)
{
	struct recording *r = ctx;
	while (r->cursor < r->nsites && r->sites[r->cursor].event < event)
		r->cursor++;
	if (r->cursor < r->nsites && r->sites[r->cursor].event == event) {
		*line = site_line(r, r->sites[r->cursor].lr);
		return site_name(r, r->sites[r->cursor].lr);
	}
	return NULL;
}

static struct agb_rec_events *events_of(struct recording *r)
{
	return r->a->mode == MODE_HEAP  ? &r->heap.out
	       : r->a->mode == MODE_OBJ ? &r->obj->out
	                                : &r->bg.out;
}

static void progress(const struct recording *r, uint32_t f, int last)
{
	if (r->a->quiet || !isatty(STDERR_FILENO) || (!last && f % 60u != 0))
		return;
	fprintf(stderr, "\ragbsim: record: frame %u/%u, %zu events", f, r->a->frames,
	        events_of((struct recording *)r)->n);
	if (last)
		fputc('\n', stderr);
}

static int run_frames(struct recording *r)
{
	size_t step = 0;
	for (uint32_t f = 0; f < r->a->frames; f++) {
		while (step < r->script.n && r->script.steps[step].frame <= f)
			agb_rec_set_keys(r->rec, r->script.steps[step++].keys);
		agb_rec_run_frame(r->rec, on_call, r);
		const struct agb_rec_video *v = agb_rec_video(r->rec);
		if (v != NULL && r->a->mode == MODE_OBJ)
			agb_rec_obj_sample(r->obj, v->oam, v->io[0]);
		if (v != NULL && r->a->mode == MODE_BG &&
		    agb_rec_bg_sample(&r->bg, v->io, v->vram) != 0) {
			agbsim_error("record: out of memory");
			return AGBSIM_EXIT_IO;
		}
		const struct agb_rec_frame_info *fi = agb_rec_frame_info(r->rec);
		agb_rec_frame_kind(events_of(r), agb_rec_is_loading_frame(fi->dispcnt_line0,
		                                                           fi->dispcnt_end, fi->line0));
		watch_stop(r, f, fi);
		progress(r, f + 1u, f + 1u == r->a->frames);
	}
	if (events_of(r)->oom || agb_rec_oom(r->rec)) {
		agbsim_error("record: out of memory");
		return AGBSIM_EXIT_IO;
	}
	return AGBSIM_EXIT_OK;
}

static int start(struct recording *r, const char *rom)
{
	char err[512];
	r->rec = agb_rec_open(rom, r->a->mode != MODE_HEAP, err, sizeof err);
	if (r->rec == NULL) {
		agbsim_error("%s", err);
		return AGBSIM_EXIT_USAGE;
	}
	for (size_t i = 0; i < r->fns.n; i++)
		if (agb_rec_watch(r->rec, r->fns.f[i].addr, (uint32_t)i) != 0) {
			agbsim_error("%s: mGBA cannot set a breakpoint on '%s' at 0x%08x",
			             r->a->game, r->fns.f[i].name,
			             (unsigned)(r->fns.f[i].addr & ~1u));
			return AGBSIM_EXIT_USAGE;
		}
	for (size_t i = 0; i < r->fns.nerr; i++) /* a breakpoint refused here only loses a hint */
		(void)agb_rec_watch_entry(r->rec, r->fns.err[i].addr, (uint32_t)i);
	return AGBSIM_EXIT_OK;
}

/* ---- the output --------------------------------------------------------------------------- */
static void bg_meta(struct agbsim_json *w, void *ctx)
{
	const struct agb_rec_bg *b = ctx;
	char hex[24];
	agbsim_json_key(w, "tile_hashes");
	agbsim_json_array(w, AGBSIM_JSON_INLINE);
	agbsim_json_null(w); /* id 0: the transparent tile */
	for (size_t i = 1; i < b->ids; i++) {
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)b->hash[i]);
		agbsim_json_string(w, hex);
	}
	agbsim_json_end(w);
}

/* The name of the function holding ADDR in the game's ELF, or NULL (a .gba, no symbol). */
static const char *fn_at(const struct recording *r, uint32_t addr, char *buf, size_t n)
{
	const char *s = r->have_syms ? agb_elf_symbol_at(&r->syms, addr, NULL) : NULL;
	if (s == NULL && r->have_syms) /* Thumb functions' values have bit 0 set */
		s = agb_elf_symbol_at(&r->syms, addr | 1u, NULL);
	if (s == NULL)
		return NULL;
	snprintf(buf, n, "%s", s);
	return buf;
}

/* Metadata the loader ignores: a bg trace's tile hashes; "stopped" when the game stopped. */
static void trace_meta(struct agbsim_json *w, void *ctx)
{
	const struct recording *r = ctx;
	char in[128], why[256];
	if (r->a->mode == MODE_BG)
		bg_meta(w, (void *)&r->bg);
	if (!stopped(r))
		return;
	agbsim_json_key(w, "stopped");
	agbsim_json_object(w, AGBSIM_JSON_COMPACT);
	agbsim_json_member_u32(w, "frame", r->unacked_from);
	snprintf(why, sizeof why, "no VBlank taken from frame %u to the end (%u frames)",
	         (unsigned)r->unacked_from, (unsigned)r->unacked_run);
	agbsim_json_member_string(w, "why", why);
	if (r->pc_run >= r->unacked_run) {
		snprintf(why, sizeof why, "0x%08x", (unsigned)r->pc);
		agbsim_json_member_string(w, "pc", why);
		const char *f = fn_at(r, r->pc, in, sizeof in);
		if (f != NULL)
			agbsim_json_member_string(w, "in", f);
	}
	if (r->entered) {
		agbsim_json_member_string(w, "error_path", r->fns.err[r->entered_tag].name);
		agbsim_json_member_u32(w, "error_frame", r->entered_frame);
	}
	agbsim_json_end(w);
}

/* The trace as text, checked by the loader. Returns 0, or an exit status after saying why. */
static int render(struct recording *r, const struct agb_trace *t, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	struct agb_loaded_trace back;
	struct agb_diag diag;
	if (f == NULL) {
		agbsim_error("record: out of memory");
		return AGBSIM_EXIT_IO;
	}
	r->cursor = 0;
	int bad = agb_trace_write_json_sites(f, t, trace_meta, r->a->mode == MODE_HEAP ? event_site : NULL, r);
	bad |= fclose(f) != 0;
	if (bad) {
		agbsim_error("record: cannot render the trace");
		return AGBSIM_EXIT_IO;
	}
	if (agb_trace_load_buffer(r->a->out, *text, *len, &back, &diag) != AGB_LOAD_OK) {
		char msg[1024];
		agb_diag_format(&diag, msg, sizeof msg);
		agbsim_error("record: internal error, the recorded trace does not load: %s", msg);
		return AGBSIM_EXIT_IO;
	}
	agb_trace_release(&back);
	return AGBSIM_EXIT_OK;
}

static int write_text(const char *path, const char *text, size_t len)
{
	struct agbsim_output out;
	int rc = agbsim_output_open(&out, path);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	int bad = len != 0 && fwrite(text, 1, len, out.f) != len;
	return agbsim_output_close(&out, !bad);
}

/* The part of PATH's file name before its extension. */
static void stem(const char *path, char *buf, size_t n)
{
	const char *s = strrchr(path, '/'), *dot;
	s = s != NULL ? s + 1 : path;
	dot = strrchr(s, '.');
	snprintf(buf, n, "%.*s", (int)(dot != NULL && dot != s ? (size_t)(dot - s) : strlen(s)), s);
}

/* The default name: the game's name and what was recorded, so that two recordings of one game
 * differ: the mode (heap, or the first --symbols alloc name; obj, bg), the frames and the
 * button script's name. "record-game-heap-200f-record_start". */
static void default_name(const struct record_args *a, char *buf, size_t n)
{
	/* Sized so the joined name always fits the caller's 256 bytes. */
	char game[96], what[64] = "heap", input[80] = "";
	stem(a->game, game, sizeof game);
	if (a->mode == MODE_OBJ || a->mode == MODE_BG)
		snprintf(what, sizeof what, "%s", a->mode == MODE_OBJ ? "obj" : "bg");
	else if (a->symbols != NULL) {
		const char *p = strchr(a->symbols, '='), *end;
		if (p != NULL) {
			p++;
			end = p + strcspn(p, ",:");
			snprintf(what, sizeof what, "%.*s", (int)(end - p), p);
		}
	}
	if (a->input != NULL) {
		char st[72];
		stem(a->input, st, sizeof st);
		snprintf(input, sizeof input, "-%s", st);
	}
	snprintf(buf, n, "%s-%s-%uf%s", game, what, (unsigned)a->frames, input);
}

/* newlib's pool when its _sbrk ran dry: the most it ever got (__malloc_max_sbrked_mem, read
 * from the game's RAM at the end), once the game was refused a request — then that is all the
 * heap newlib had. 0 when the game does not use newlib's malloc, or was never refused. */
static uint32_t newlib_pool(const struct recording *r)
{
	struct agb_elf_image img;
	char err[128];
	uint32_t pool = 0;
	if (r->a->symbols != NULL || r->heap.failed == 0 ||
	    agb_elf_image_load(r->a->game, &img, err, sizeof err) != 0)
		return 0;
	const struct agb_elf_symbol *s = agb_elf_image_symbol(&img, "__malloc_max_sbrked_mem");
	if (s != NULL && ((s->value >= 0x02000000u && s->value < 0x02040000u) || /* EWRAM, IWRAM */
	                  (s->value >= 0x03000000u && s->value < 0x03008000u)))
		pool = agb_rec_read32(r->rec, s->value);
	agb_elf_image_release(&img);
	pool = (pool + 15u) & ~15u;
	return pool <= agb_arena_region_bytes(AGB_ARENA_EWRAM) ? pool : 0u;
}

/* The trace's arena: newlib's pool when it ran dry, else the inferred one; or --pool's size
 * checked against the region. */
static int pick_arena(struct recording *r, struct agb_trace *t)
{
	char why[256];
	if (r->a->mode == MODE_OBJ) {
		t->arena = AGB_ARENA_OBJ_VRAM;
		t->arena_bytes = agb_arena_region_bytes(t->arena);
	} else if (r->a->mode == MODE_BG) {
		t->arena = AGB_ARENA_BG_VRAM;
		t->arena_bytes = agb_arena_region_bytes(t->arena);
	} else if (agb_rec_heap_arena(&r->heap, &t->arena, &t->arena_bytes, why, sizeof why) != 0) {
		agbsim_error("%s: %s", r->a->game, why);
		return AGBSIM_EXIT_USAGE;
	} else if (t->arena == AGB_ARENA_EWRAM && r->a->arena_bytes == 0) {
		uint32_t pool = newlib_pool(r);
		uint32_t big = 0;
		for (size_t i = 0; i < r->heap.out.n; i++)
			if (r->heap.out.ev[i].op == AGB_OP_ALLOC || r->heap.out.ev[i].op == AGB_OP_REALLOC)
				big = r->heap.out.ev[i].size > big ? r->heap.out.ev[i].size : big;
		if (pool != 0u && pool >= big) { /* (every block newlib granted fits) */
			t->arena_bytes = pool;
			r->pool_from = "newlib's pool when its _sbrk refused more (__malloc_max_sbrked_mem)";
		}
	}
	if (r->a->arena_bytes != 0) {
		if (r->a->arena_bytes > agb_arena_region_bytes(t->arena))
			return agbsim_usage_error(CMD,
			                          "--pool %u is larger than %s (%u bytes)",
			                          r->a->arena_bytes, agb_arena_name(t->arena),
			                          agb_arena_region_bytes(t->arena));
		t->arena_bytes = r->a->arena_bytes;
	}
	return AGBSIM_EXIT_OK;
}

/* The largest block the trace holds live at once (bytes). */
static uint32_t largest_block(const struct agb_trace *t)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < t->event_count; i++)
		if ((t->events[i].op == AGB_OP_ALLOC || t->events[i].op == AGB_OP_REALLOC) &&
		    t->events[i].size > m)
			m = t->events[i].size;
	return m;
}

/* A game that runs its own allocator inside one block of the watched one: one block holding
 * half the arena or more, or a retry loop (8 or more refused requests). Names the ELF's
 * functions named like allocators that are not watched, for --symbols. */
static void own_allocator_note(const struct recording *r, const struct agb_trace *t)
{
	uint32_t big = largest_block(t);
	if (!(big >= t->arena_bytes / 2u || r->heap.failed >= 8u))
		return;
	fprintf(stderr, "agbsim: record: note: ");
	if (big >= t->arena_bytes / 2u)
		fprintf(stderr, "one block of %u bytes holds %u%% of the arena", (unsigned)big,
		        (unsigned)((uint64_t)big * 100u / t->arena_bytes));
	if (r->heap.failed >= 8u)
		fprintf(stderr, "%s%llu requests refused (a retry loop?)",
		        big >= t->arena_bytes / 2u ? ", " : "", (unsigned long long)r->heap.failed);
	fprintf(stderr, ": the game likely allocates inside it with an allocator of its own; "
	                "record that one with --symbols");
	struct agb_elf_symbols syms;
	char err[128];
	if (agb_elf_symbols_load(r->a->game, &syms, err, sizeof err) == 0) {
		size_t shown = 0;
		for (size_t i = 0; i < syms.count && shown < 8u; i++) {
			const char *s = syms.syms[i].name;
			char low[128];
			size_t j;
			int watched = 0;
			for (j = 0; j + 1u < sizeof low && s[j] != '\0'; j++)
				low[j] = (char)tolower((unsigned char)s[j]);
			low[j] = '\0';
			if (s[0] == '_' || strstr(low, "alloc") == NULL)
				continue; /* the C library's internals start with _ */
			for (j = 0; j < r->fns.n; j++)
				watched |= strcmp(r->fns.f[j].name, s) == 0;
			if (watched)
				continue;
			fprintf(stderr, "%s%s", shown++ ? ", " : "; candidates: ", s);
		}
		agb_elf_symbols_release(&syms);
	}
	fputc('\n', stderr);
}

struct site_total {
	char name[160], line[128]; /* line: "file.c:LINE", "" when unknown */
	uint64_t bytes;
	uint32_t calls, live, live_bytes;
};

static int by_bytes(const void *a, const void *b)
{
	const struct site_total *x = a, *y = b;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->name, y->name);
}

static int by_calls(const void *a, const void *b)
{
	const struct site_total *x = a, *y = b;
	return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : strcmp(x->name, y->name);
}

static int by_live(const void *a, const void *b)
{
	const struct site_total *x = a, *y = b;
	return x->live_bytes < y->live_bytes ? 1
	       : x->live_bytes > y->live_bytes ? -1
	                                       : strcmp(x->name, y->name);
}

static void print_sites(const char *what, struct site_total *s, size_t n,
                        int (*cmp)(const void *, const void *), int live)
{
	size_t shown = 0;
	qsort(s, n, sizeof *s, cmp);
	fprintf(stderr, "agbsim: record: %s:", what);
	for (size_t i = 0; i < n && shown < 5u; i++) {
		if (live ? s[i].live == 0 : s[i].calls == 0)
			continue; /* a free's site; nothing live */
		const char *sep = s[i].line[0] != '\0' ? ", " : "";
		if (live)
			fprintf(stderr, "%s %s (%u blocks, %u bytes%s%s)", shown ? ";" : "", s[i].name,
			        (unsigned)s[i].live, (unsigned)s[i].live_bytes, sep, s[i].line);
		else
			fprintf(stderr, "%s %s (%u calls, %llu bytes%s%s)", shown ? ";" : "", s[i].name,
			        (unsigned)s[i].calls, (unsigned long long)s[i].bytes, sep, s[i].line);
		shown++;
	}
	fprintf(stderr, "%s\n", shown ? "" : " none");
}

/* The heap events' call sites: the top 5 by bytes and by calls, and the blocks still live at
 * the end by the site that allocated them (a leak report). O(events x sites). */
static void site_report(struct recording *r, const struct agb_trace *t)
{
	size_t n = 0, cap = 64;
	struct site_total *s = calloc(cap, sizeof *s);
	uint32_t *site_of = calloc((size_t)r->heap.next_id + 1u, sizeof *site_of); /* id -> site+1 */
	if (s == NULL || site_of == NULL || r->nsites == 0)
		goto done;
	for (size_t k = 0; k < r->nsites; k++) {
		const struct agb_event *e = &t->events[r->sites[k].event];
		const char *name = site_name(r, r->sites[k].lr);
		size_t i;
		for (i = 0; i < n && strcmp(s[i].name, name) != 0; i++)
			;
		if (i == n) {
			if (n == cap) {
				struct site_total *g = realloc(s, 2u * cap * sizeof *s);
				if (g == NULL)
					goto done;
				s = g;
				cap *= 2u;
			}
			memset(&s[n], 0, sizeof s[n]);
			const char *line = site_line(r, r->sites[k].lr);
			snprintf(s[n].line, sizeof s[0].line, "%s", line != NULL ? line : "");
			snprintf(s[n++].name, sizeof s[0].name, "%s", name);
		}
		if (e->op == AGB_OP_ALLOC || e->op == AGB_OP_REALLOC) {
			s[i].bytes += e->size;
			s[i].calls++;
		}
		if (e->op == AGB_OP_ALLOC && e->id <= r->heap.next_id)
			site_of[e->id] = (uint32_t)i + 1u;
	}
	/* what is live at the end: allocated and not freed, at its last size */
	uint32_t *size_of = calloc((size_t)r->heap.next_id + 1u, sizeof *size_of);
	if (size_of == NULL)
		goto done;
	for (uint32_t i = 0; i < t->event_count; i++) {
		const struct agb_event *e = &t->events[i];
		if (e->id > r->heap.next_id)
			continue;
		if (e->op == AGB_OP_ALLOC || e->op == AGB_OP_REALLOC)
			size_of[e->id] = e->size;
		else if (e->op == AGB_OP_FREE)
			size_of[e->id] = 0;
	}
	for (uint32_t id = 1; id <= r->heap.next_id; id++)
		if (size_of[id] != 0 && site_of[id] != 0) {
			s[site_of[id] - 1u].live++;
			s[site_of[id] - 1u].live_bytes += size_of[id];
		}
	free(size_of);
	print_sites("top call sites by bytes", s, n, by_bytes, 0);
	print_sites("top call sites by calls", s, n, by_calls, 0);
	print_sites("live at exit by call site", s, n, by_live, 1);
done:
	free(s);
	free(site_of);
}

static void summary(const struct recording *r, const struct agb_trace *t)
{
	const struct agb_rec_events *e = events_of((struct recording *)r);
	if (r->a->quiet)
		return;
	fprintf(stderr, "agbsim: record: %u frames, %zu events, arena %s %u bytes", r->a->frames,
	        e->n, agb_arena_name(t->arena), t->arena_bytes);
	if (r->pool_from != NULL)
		fprintf(stderr, " (%s)", r->pool_from);
	if (r->a->mode == MODE_HEAP)
		fprintf(stderr,
		        "; %llu calls (%llu inside other calls), %llu refused by the game, "
		        "%llu free(NULL), %llu on unknown blocks",
		        (unsigned long long)r->heap.calls,
		        (unsigned long long)agb_rec_nested(r->rec),
		        (unsigned long long)r->heap.failed, (unsigned long long)r->heap.free_null,
		        (unsigned long long)r->heap.unknown);
	if (r->a->mode == MODE_OBJ && r->obj->saw_2d)
		fprintf(stderr, "; OBJ 2D mapping seen: tile ranges read as 1D");
	if (r->a->mode == MODE_BG)
		fprintf(stderr, "; %zu distinct tiles", r->bg.ids - 1u);
	fputc('\n', stderr);
	if (e->load_frames != 0)
		fprintf(stderr, "agbsim: record: %u loading frames (forced blank or display off: "
		                "[\"frame\", \"load\"]), %u gameplay frames\n",
		        (unsigned)e->load_frames, (unsigned)(e->frames - e->load_frames));
	if (r->a->mode == MODE_HEAP && agb_rec_in_call(r->rec))
		fprintf(stderr, "agbsim: record: note: a call was still running at the last frame "
		                "and is not in the trace\n");
	if (stopped(r)) {
		char in[128];
		const char *f = r->pc_run >= r->unacked_run ? fn_at(r, r->pc, in, sizeof in) : NULL;
		fprintf(stderr, "agbsim: record: the game stopped at frame %u: no VBlank taken "
		                "since",
		        (unsigned)r->unacked_from);
		if (r->pc_run >= r->unacked_run)
			fprintf(stderr, ", the PC parked at 0x%08x%s%s", (unsigned)r->pc,
			        f != NULL ? " in " : "", f != NULL ? f : "");
		fputc('\n', stderr);
	}
	if (r->entered)
		fprintf(stderr, "agbsim: record: the game entered its error path %s at frame %u\n",
		        r->fns.err[r->entered_tag].name, (unsigned)r->entered_frame);
	if (r->a->mode == MODE_HEAP) {
		own_allocator_note(r, t);
		site_report((struct recording *)r, t);
	}
}

static int finish(struct recording *r)
{
	struct agb_rec_events *e = events_of(r);
	struct agb_trace t = {0};
	char *text = NULL;
	size_t len = 0;
	int rc;
	if (r->a->game_log != NULL) { /* first: it may say why the game never got going */
		size_t n;
		const char *log = agb_rec_log(r->rec, &n);
		rc = write_text(r->a->game_log, log, n);
		if (rc != AGBSIM_EXIT_OK)
			return rc;
	}
	if (r->a->mode == MODE_HEAP && r->heap.calls == 0) {
		agbsim_error("%s: the game made no allocator call in %u frames (a title screen "
		             "waiting for a key? give --input, or more --frames)",
		             r->a->game, r->a->frames);
		return AGBSIM_EXIT_USAGE;
	}
	rc = pick_arena(r, &t);
	if (rc != AGBSIM_EXIT_OK)
		return rc;
	t.event_count = (uint32_t)e->n;
	t.events = e->ev;
	t.frame_count = e->frames;
	char name[256];
	default_name(r->a, name, sizeof name);
	t.name = r->a->name != NULL ? r->a->name : name;
	t.source = r->source;
	rc = render(r, &t, &text, &len);
	if (rc == AGBSIM_EXIT_OK)
		rc = write_text(r->a->out, text, len);
	if (rc == AGBSIM_EXIT_OK)
		summary(r, &t);
	free(text);
	return rc;
}

static int record(const struct record_args *a)
{
	struct recording r = {.a = a};
	char rombuf[4096];
	int rc = AGBSIM_EXIT_OK;
	agb_rec_heap_init(&r.heap);
	r.source = a->source;
	if (a->mode == MODE_HEAP) {
		if (!is_elf(a->game)) {
			agbsim_error(
			        "%s: not an ELF file: heap mode reads the allocator's address from "
			        "the game's ELF (give it, and --rom GAME.gba), or use "
			        "--vram=obj|bg",
			        a->game);
			rc = AGBSIM_EXIT_USAGE;
		} else {
			if (a->symbols != NULL)
				rc = parse_symbols(a->symbols, &r.fns);
			else
				default_fns(&r.fns);
			if (rc == AGBSIM_EXIT_OK)
				rc = resolve_fns(a->game, &r.fns, a->quiet);
			if (rc == AGBSIM_EXIT_OK) {
				char err[128];
				r.have_syms = agb_elf_symbols_load(a->game, &r.syms, err,
				                                   sizeof err) == 0;
				r.have_lines = agb_elf_lines_load(a->game, &r.lines, err,
				                                  sizeof err) == 0 &&
				               r.lines.count != 0;
			}
		}
	} else if (a->mode == MODE_OBJ) {
		r.obj = malloc(sizeof *r.obj);
		if (r.obj != NULL)
			agb_rec_obj_init(r.obj);
		rc = r.obj != NULL ? AGBSIM_EXIT_OK : AGBSIM_EXIT_IO;
	} else if (agb_rec_bg_init(&r.bg) != 0) {
		rc = AGBSIM_EXIT_IO;
	}
	if (rc == AGBSIM_EXIT_IO)
		agbsim_error("record: out of memory");
	if (rc == AGBSIM_EXIT_OK && a->input != NULL)
		rc = load_script(a->input, &r.script);
	if (rc == AGBSIM_EXIT_OK)
		rc = start(&r, pick_rom(a, rombuf, sizeof rombuf));
	if (rc == AGBSIM_EXIT_OK)
		rc = run_frames(&r);
	if (rc == AGBSIM_EXIT_OK)
		rc = finish(&r);
	agb_rec_close(r.rec);
	agb_rec_heap_release(&r.heap);
	free(r.sites);
	if (r.have_syms)
		agb_elf_symbols_release(&r.syms);
	agb_elf_lines_release(&r.lines); /* zeroed when never loaded */
	if (r.obj != NULL)
		agb_rec_events_release(&r.obj->out);
	free(r.obj);
	if (a->mode == MODE_BG)
		agb_rec_bg_release(&r.bg);
	free(r.script.steps);
	return rc;
}

#endif /* AGB_MEASURE_ENABLED */

int agbsim_cmd_record(int argc, char **argv)
{
	struct record_args a = {0};
	char *source = command_line(argc, argv); /* before getopt moves the operands */
	int rc;
	if (source == NULL) {
		agbsim_error("record: out of memory");
		return AGBSIM_EXIT_IO;
	}
	rc = parse_args(&a, argc, argv);
	a.source = source;
	if (rc == AGBSIM_CLI_RUN) {
		char rombuf[4096];
		const char *rom = pick_rom(&a, rombuf, sizeof rombuf);
		rc = cartridge_file(a.game);
		if (rc == AGBSIM_EXIT_OK && strcmp(rom, a.game) != 0)
			rc = cartridge_file(rom);
		if (rc != AGBSIM_EXIT_OK) {
			free(source);
			return rc;
		}
#ifdef AGB_MEASURE_ENABLED
		rc = record(&a);
#else
		(void)resolve_fns;
		(void)default_fns;
		(void)parse_symbols;
		(void)load_script;
		(void)is_elf;
		agbsim_error("record: this agbsim was built without libmgba; install libmgba-dev "
		             "(scripts/setup) and rebuild");
		rc = AGBSIM_EXIT_IO;
#endif
	}
	free(source);
	return rc;
}
