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
	        "  --arena-bytes N    the trace's pool size instead of the inferred one\n"
	        "  --name NAME        the trace's name (default: the game file's name)\n"
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
			        CMD, "--arena-bytes wants a positive integer, not '%s'", arg);
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
	struct fnspec f[16];
	size_t n;
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

/* Finds every function of h in GAME's symbols: a --symbols one must be there; of the defaults at
 * least one that allocates. Drops the defaults the game does not have. */
static int resolve_fns(const char *game, struct heap_fns *h)
{
	struct agb_elf_symbols syms;
	char err[256];
	size_t k = 0;
	int allocates = 0;
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
	for (size_t i = 0; i < h->n; i++) {
		const struct agb_elf_sym *s = agb_elf_symbol_find(&syms, h->f[i].name);
		if (s == NULL && h->f[i].required) {
			agbsim_error("%s: no function '%s' in the ELF's symbols (--symbols)", game,
			             h->f[i].name);
			agb_elf_symbols_release(&syms);
			return AGBSIM_EXIT_USAGE;
		}
		if (s == NULL)
			continue;
		h->f[k] = h->f[i];
		h->f[k++].addr = (uint32_t)s->addr;
		allocates |= h->f[i].fn != AGB_REC_FREE;
	}
	h->n = k;
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
};

static void on_call(void *ctx, const struct agb_rec_call *c)
{
	struct recording *r = ctx;
	const struct fnspec *f = &r->fns.f[c->tag];
	uint32_t x = c->args[f->arg], y = f->arg < 3u ? c->args[f->arg + 1u] : 0u;
	agb_rec_heap_call(&r->heap, f->fn, x, y, c->result);
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
		agb_rec_frame(events_of(r));
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
	int bad = agb_trace_write_json_meta(f, t, r->a->mode == MODE_BG ? bg_meta : NULL, &r->bg);
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

/* The default name: the game file's name without its extension, and the VRAM mode. */
static void default_name(const struct record_args *a, char *buf, size_t n)
{
	const char *s = strrchr(a->game, '/'), *dot;
	s = s != NULL ? s + 1 : a->game;
	dot = strrchr(s, '.');
	snprintf(buf, n, "%.*s%s", (int)(dot != NULL && dot != s ? (size_t)(dot - s) : strlen(s)),
	         s,
	         a->mode == MODE_OBJ  ? "-obj"
	         : a->mode == MODE_BG ? "-bg"
	                              : "");
}

/* The trace's arena: the inferred one, checked against --arena-bytes. */
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
	}
	if (r->a->arena_bytes != 0) {
		if (r->a->arena_bytes > agb_arena_region_bytes(t->arena))
			return agbsim_usage_error(CMD,
			                          "--arena-bytes %u is larger than %s (%u bytes)",
			                          r->a->arena_bytes, agb_arena_name(t->arena),
			                          agb_arena_region_bytes(t->arena));
		t->arena_bytes = r->a->arena_bytes;
	}
	return AGBSIM_EXIT_OK;
}

static void summary(const struct recording *r, const struct agb_trace *t)
{
	const struct agb_rec_events *e = events_of((struct recording *)r);
	if (r->a->quiet)
		return;
	fprintf(stderr, "agbsim: record: %u frames, %zu events, arena %s %u bytes", r->a->frames,
	        e->n, agb_arena_name(t->arena), t->arena_bytes);
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
	if (r->a->mode == MODE_HEAP && agb_rec_in_call(r->rec))
		fprintf(stderr, "agbsim: record: note: a call was still running at the last frame "
		                "and is not in the trace\n");
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
				rc = resolve_fns(a->game, &r.fns);
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
#ifdef AGB_MEASURE_ENABLED
		rc = record(&a);
#else
		(void)pick_rom; /* the heap-mode helpers serve record() only */
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
