/* agbsim budget: run a GBA game in libmgba and report its whole memory budget (issue 36,
 * docs/budget.md): IWRAM (sections, largest symbols, both stacks' high-water marks, what is
 * left), EWRAM (sections, the heap's peak, what was never written), VRAM, OAM, palette RAM and
 * ROM; what newlib costs (its RAM objects by archive member, its share of the deepest stack);
 * limits and a baseline for CI. The emulator side is src/measure/mgba_budget.c; the output,
 * limits and baseline budget_out.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/agbsim.h"
#include "cli/budget.h"
#include "cli/cli_opts.h"
#include "cli/key_script.h"
#include "cli/options.h"
#include "trace/elf_image.h"
#include "trace/ldmap.h"

#ifdef AGB_MEASURE_ENABLED
#include "mgba_budget.h"
#endif

#define CMD             "budget"
#define DEFAULT_FRAMES  600u
#define MAX_FRAMES      1000000u
#define MAX_LIMITS      32
#define ELF_MACHINE_ARM 40u

#define IWRAM_LO 0x03000000u
#define IWRAM_HI 0x03008000u
#define EWRAM_LO 0x02000000u
#define EWRAM_HI 0x02040000u
#define ROM_LO   0x08000000u
#define ROM_HI   0x0A000000u

static void usage(FILE *out)
{
	fprintf(out,
	        "Usage: agbsim budget GAME.elf [--rom GAME.gba] [--frames N] [--input KEYS.txt]\n"
	        "                     [--format table|json|md] [--limit METRIC<=VALUE]...\n"
	        "                     [--baseline FILE] [--update-baseline FILE]\n\n"
	        "Runs a GBA game in libmgba (headless) for N frames and reports its memory "
	        "budget:\n"
	        "IWRAM (sections, largest symbols, the system and IRQ stacks' high-water marks by "
	        "a\n"
	        "paint of the free IWRAM at main and a watch of every store, what stays free), "
	        "EWRAM\n"
	        "(sections, the heap's peak, what was never written), VRAM, OAM, palette RAM, "
	        "ROM;\n"
	        "newlib's RAM objects by archive member (from the link map, GAME.map) and the\n"
	        "deepest call chains. A stack that reaches a static section is an error (exit "
	        "1).\n\n"
	        "Options:\n"
	        "  --rom FILE            the ROM to boot (default GAME.gba beside GAME.elf, else "
	        "the "
	        "ELF)\n"
	        "  --map FILE            the linker map (default GAME.map beside GAME.elf)\n"
	        "  --frames N            frames to run (default %u)\n"
	        "  --input FILE          a button script ('FRAME KEY...' lines, as for record)\n"
	        "  --format F            table (default), json, or md (a CI job summary)\n"
	        "  -o FILE               the report (default stdout)\n"
	        "  --limit M<=V|M>=V     a figure's bound, e.g. stack.peak<=6144, "
	        "iwram.free>=1024,\n"
	        "                        ewram.heap_peak<=200K (K, M: KiB, MiB); repeatable\n"
	        "  --baseline FILE       fail when a figure is worse than the baseline's\n"
	        "  --update-baseline FILE  write the figures as a baseline (keeps its limits)\n"
	        "  --game-log FILE       also write the game's debug prints\n"
	        "  -h, --help            show this help\n\n"
	        "Exit status: 0 ok, 1 a limit broken, a figure worse than the baseline or a stack\n"
	        "overflow, 2 bad usage or input, 3 I/O error or built without libmgba.\n",
	        DEFAULT_FRAMES);
}

struct budget_args {
	const char *game, *rom, *map, *input, *out, *baseline, *update, *game_log;
	uint32_t frames;
	int format;
	struct budget_limit limits[MAX_LIMITS];
	size_t n_limits;
};

static int budget_option(void *ctx, int opt, const char *arg)
{
	struct budget_args *a = ctx;
	char why[160];
	switch (opt) {
	case 'n':
		if (agbsim_parse_u32(arg, &a->frames) != 0 || a->frames == 0 ||
		    a->frames > MAX_FRAMES)
			return agbsim_usage_error(CMD, "--frames wants an integer 1..%u, not '%s'",
			                          MAX_FRAMES, arg);
		return AGBSIM_EXIT_OK;
	case 'f':
		if (strcmp(arg, "table") == 0)
			a->format = FORMAT_TABLE;
		else if (strcmp(arg, "json") == 0)
			a->format = FORMAT_JSON;
		else if (strcmp(arg, "md") == 0)
			a->format = FORMAT_MD;
		else
			return agbsim_usage_error(CMD, "--format wants table, json or md, not '%s'",
			                          arg);
		return AGBSIM_EXIT_OK;
	case 'l':
		if (a->n_limits == MAX_LIMITS)
			return agbsim_usage_error(CMD, "at most %d --limit options", MAX_LIMITS);
		if (budget_limit_parse(arg, &a->limits[a->n_limits], why, sizeof why) != 0)
			return agbsim_usage_error(CMD, "--limit '%s': %s", arg, why);
		a->limits[a->n_limits++].text = arg;
		return AGBSIM_EXIT_OK;
	default:
		return AGBSIM_CLI_UNKNOWN;
	}
}

static int parse_args(struct budget_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
	        {"rom", required_argument, NULL, 'r'},
	        {"map", required_argument, NULL, 'm'},
	        {"frames", required_argument, NULL, 'n'},
	        {"input", required_argument, NULL, 'i'},
	        {"format", required_argument, NULL, 'f'},
	        {"output", required_argument, NULL, 'o'},
	        {"limit", required_argument, NULL, 'l'},
	        {"baseline", required_argument, NULL, 'B'},
	        {"update-baseline", required_argument, NULL, 'U'},
	        {"game-log", required_argument, NULL, 'g'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	static const struct agbsim_cli_text texts[] = {
	        AGBSIM_CLI_TEXT('r', struct budget_args, rom),
	        AGBSIM_CLI_TEXT('m', struct budget_args, map),
	        AGBSIM_CLI_TEXT('i', struct budget_args, input),
	        AGBSIM_CLI_TEXT('o', struct budget_args, out),
	        AGBSIM_CLI_TEXT('B', struct budget_args, baseline),
	        AGBSIM_CLI_TEXT('U', struct budget_args, update),
	        AGBSIM_CLI_TEXT('g', struct budget_args, game_log),
	        {0, 0},
	};
	const struct agbsim_cli cli = {CMD, "o:", longopts, usage, budget_option, a, NULL, texts};
	int first = 0;
	a->frames = DEFAULT_FRAMES;
	a->format = FORMAT_TABLE;
	int rc = agbsim_cli_parse(&cli, argc, argv, &first);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	if (first >= argc)
		return agbsim_usage_error(CMD, "no GAME.elf given");
	if (first + 1 < argc)
		return agbsim_usage_error(CMD, "exactly one GAME.elf expected");
	a->game = argv[first];
	if (a->out == NULL)
		a->out = "-";
	return AGBSIM_CLI_RUN;
}

/* ---- the ELF and the map: what the linker put where ---------------------------------------- */
struct game_image {
	struct agb_elf_image elf;
	struct agb_ldmap map;
	int have_map;
	const struct agb_elf_symbol **funcs; /* FUNC symbols by address */
	size_t n_funcs;
};

static int by_value(const void *x, const void *y)
{
	const struct agb_elf_symbol *a = *(const struct agb_elf_symbol *const *)x;
	const struct agb_elf_symbol *b = *(const struct agb_elf_symbol *const *)y;
	uint32_t va = a->value & ~1u, vb = b->value & ~1u;
	return va < vb ? -1 : va > vb;
}

#ifdef AGB_MEASURE_ENABLED /* the run's helpers */
static const char *function_at(const struct game_image *g, uint32_t pc)
{
	size_t lo = 0, hi = g->n_funcs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2u;
		if ((g->funcs[mid]->value & ~1u) <= pc)
			lo = mid + 1u;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct agb_elf_symbol *s = g->funcs[lo - 1u];
	uint32_t start = s->value & ~1u;
	return s->size == 0u || pc < start + s->size ? s->name : NULL;
}

#endif

/* The archive member (or object) the map says holds ADDR, "" when none. */
static void member_at(const struct game_image *g, uint32_t addr, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; g->have_map && i < g->map.n; i++) {
		const struct agb_ldmap_entry *e = &g->map.e[i];
		if (addr >= e->addr && addr - e->addr < e->size) {
			if (e->archive[0] != '\0')
				snprintf(buf, n, "%.40s(%.50s)", e->archive, e->member);
			else
				snprintf(buf, n, "%s", e->member);
			return;
		}
	}
}

static int is_libc_archive(const char *a)
{
	return strncmp(a, "libc.", 5) == 0 || strncmp(a, "libc_", 5) == 0 ||
	       strncmp(a, "libg.", 5) == 0 || strncmp(a, "libg_", 5) == 0 ||
	       strncmp(a, "libm.", 5) == 0 || strncmp(a, "libnosys", 8) == 0;
}

static int load_image(const struct budget_args *a, struct game_image *g)
{
	char err[256], mapbuf[4096];
	if (agb_elf_image_load(a->game, &g->elf, err, sizeof err) != 0) {
		agbsim_error("%s: %s", a->game, err);
		return strncmp(err, "cannot", 6) == 0 ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
	}
	if (g->elf.machine != ELF_MACHINE_ARM) {
		agbsim_error("%s: not a GBA game's ELF (32-bit ARM)", a->game);
		return AGBSIM_EXIT_USAGE;
	}
	if (g->elf.n_symbols == 0) {
		agbsim_error("%s: no symbol table (a stripped ELF?): the budget needs main and the "
		             "sections' symbols; give the ELF the build makes",
		             a->game);
		return AGBSIM_EXIT_USAGE;
	}
	g->funcs = calloc(g->elf.n_symbols, sizeof(const struct agb_elf_symbol *));
	if (g->funcs == NULL) {
		agbsim_error("budget: out of memory");
		return AGBSIM_EXIT_IO;
	}
	for (size_t i = 0; i < g->elf.n_symbols; i++)
		if (g->elf.symbols[i].kind == AGB_ELF_SYM_FUNC && g->elf.symbols[i].section != 0u)
			g->funcs[g->n_funcs++] = &g->elf.symbols[i];
	qsort(g->funcs, g->n_funcs, sizeof(const struct agb_elf_symbol *), by_value);
	const char *map = a->map;
	size_t len = strlen(a->game);
	if (map == NULL && len > 4 && strcmp(a->game + len - 4, ".elf") == 0 &&
	    len < sizeof mapbuf) {
		snprintf(mapbuf, sizeof mapbuf, "%.*s.map", (int)(len - 4), a->game);
		if (access(mapbuf, R_OK) == 0)
			map = mapbuf;
	}
	if (map != NULL) {
		if (agb_ldmap_load(map, &g->map, err, sizeof err) != 0) {
			agbsim_error("%s: %s", map, err);
			return strncmp(err, "cannot", 6) == 0 ? AGBSIM_EXIT_IO : AGBSIM_EXIT_USAGE;
		}
		g->have_map = 1;
	}
	return AGBSIM_EXIT_OK;
}

static void release_image(struct game_image *g)
{
	agb_elf_image_release(&g->elf);
	agb_ldmap_release(&g->map);
	free(g->funcs);
}

static int in_range(uint32_t a, uint32_t lo, uint32_t hi)
{
	return a >= lo && a < hi;
}

/* The end of the static sections in [lo, hi) (lo when none). */
static uint32_t static_end(const struct game_image *g, uint32_t lo, uint32_t hi)
{
	uint32_t end = lo;
	for (size_t i = 0; i < g->elf.n_sections; i++) {
		const struct agb_elf_section *s = &g->elf.sections[i];
		if ((s->flags & AGB_ELF_SHF_ALLOC) && s->size != 0u && in_range(s->addr, lo, hi) &&
		    s->addr + s->size > end)
			end = s->addr + s->size;
	}
	return end;
}

#ifdef AGB_MEASURE_ENABLED /* the run's helpers */
static uint32_t symbol_value(const struct game_image *g, const char *const *names)
{
	for (; *names != NULL; names++) {
		const struct agb_elf_symbol *s = agb_elf_image_symbol(&g->elf, *names);
		if (s != NULL)
			return s->value;
	}
	return 0;
}

/* The ROM to boot: --rom, a .gba beside the ELF, or the ELF itself (mGBA boots ELFs). */
static const char *pick_rom(const struct budget_args *a, char *buf, size_t n)
{
	size_t len = strlen(a->game);
	if (a->rom != NULL)
		return a->rom;
	if (len > 4 && strcmp(a->game + len - 4, ".elf") == 0 && len + 1 < n) {
		snprintf(buf, n, "%.*s.gba", (int)(len - 4), a->game);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	return a->game;
}

#endif

/* ---- the video state: VRAM, OAM and palette use per frame ---------------------------------- */
struct video_use {
	uint32_t obj_units_peak, obj_units_last; /* 32-byte OBJ tile units */
	uint32_t oam_peak, oam_last;
	uint32_t bg_bytes_peak, bg_map_bytes_at_peak, bg_tile_bytes_at_peak;
	uint32_t bg_pal_peak, obj_pal_peak;
	int bitmap_mode_seen;
};

struct video_ctx {
	struct video_use use;
};

#ifdef AGB_MEASURE_ENABLED /* the run's helpers */
static uint32_t count_bits(const uint8_t *m, size_t n)
{
	uint32_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += m[i] != 0;
	return c;
}

static void sample_obj(struct video_use *u, const uint16_t *io, const uint16_t *oam,
                       uint8_t *obj_pal)
{
	static const uint8_t dims[3][4][2] = {{{1, 1}, {2, 2}, {4, 4}, {8, 8}},
	                                      {{2, 1}, {4, 1}, {4, 2}, {8, 4}},
	                                      {{1, 2}, {1, 4}, {2, 4}, {4, 8}}};
	uint8_t unit[1024] = {0};
	uint32_t visible = 0;
	int one_d = (io[0] >> 6) & 1;
	/* OBJ display off or forced blank: no sprite is shown, whatever OAM holds. */
	for (size_t i = 0; i < 128u && (io[0] & 0x1000u) && !(io[0] & 0x80u); i++) {
		uint16_t a0 = oam[i * 4u], a1 = oam[i * 4u + 1u], a2 = oam[i * 4u + 2u];
		unsigned shape = a0 >> 14, size = a1 >> 14;
		if ((a0 & 0x300u) == 0x200u || shape == 3u)
			continue;
		visible++;
		int bpp8 = (a0 >> 13) & 1;
		unsigned w = dims[shape][size][0], h = dims[shape][size][1];
		unsigned first = a2 & 0x3FFu, row_units = w * (bpp8 ? 2u : 1u);
		if (bpp8)
			memset(obj_pal, 1, 16);
		else
			obj_pal[a2 >> 12] = 1;
		for (unsigned r = 0; r < h; r++) {
			unsigned start = first + r * (one_d ? row_units : 32u);
			for (unsigned k = 0; k < row_units; k++)
				unit[(start + k) & 1023u] = 1;
		}
	}
	uint32_t n = count_bits(unit, sizeof unit);
	u->obj_units_last = n;
	u->oam_last = visible;
	if (n > u->obj_units_peak)
		u->obj_units_peak = n;
	if (visible > u->oam_peak)
		u->oam_peak = visible;
}

static void mark(uint8_t *units, uint32_t lo, uint32_t bytes)
{
	for (uint32_t a = lo; a < lo + bytes && a < 0x10000u; a += 32u)
		units[a >> 5] = 1;
}

static void sample_bg(struct video_use *u, const uint16_t *io, const uint16_t *vram,
                      uint8_t *bg_pal)
{
	static const uint32_t text_bytes[4] = {2048, 4096, 4096, 8192};
	uint8_t maps[2048] = {0}, tiles[2048] = {0};
	uint16_t dispcnt = io[0];
	unsigned mode = dispcnt & 7u;
	if (dispcnt & 0x80u)
		return; /* forced blank: nothing shown */
	if (mode >= 3u) {
		u->bitmap_mode_seen = 1;
		uint32_t b = mode == 3u ? 76800u : mode == 4u ? 76800u : 81920u;
		if (mode == 4u)
			memset(bg_pal, 1, 16);
		if (b > u->bg_bytes_peak)
			u->bg_bytes_peak = b, u->bg_map_bytes_at_peak = 0,
			u->bg_tile_bytes_at_peak = b;
		return;
	}
	for (unsigned bg = 0; bg < 4; bg++) {
		if (!((dispcnt >> (8 + bg)) & 1u) || (mode == 1u && bg == 3u) ||
		    (mode == 2u && bg < 2u))
			continue;
		uint16_t cnt = io[4 + bg];
		uint32_t cb = ((cnt >> 2) & 3u) * 0x4000u, sb = ((cnt >> 8) & 31u) * 0x800u;
		int affine = mode == 2u || (mode == 1u && bg == 2u);
		int bpp8 = affine || ((cnt >> 7) & 1u);
		uint32_t tb = bpp8 ? 64u : 32u;
		if (bpp8)
			memset(bg_pal, 1, 16);
		if (affine) {
			uint32_t side = 16u << (cnt >> 14), bytes = side * side;
			mark(maps, sb, bytes);
			const uint8_t *m = (const uint8_t *)vram;
			for (uint32_t i = 0; i < bytes && sb + i < 0x10000u; i++)
				mark(tiles, cb + m[sb + i] * tb, tb);
		} else {
			uint32_t bytes = text_bytes[cnt >> 14];
			mark(maps, sb, bytes);
			for (uint32_t i = 0; i < bytes / 2u && sb / 2u + i < 0x8000u; i++) {
				uint16_t e = vram[sb / 2u + i];
				mark(tiles, cb + (e & 0x3FFu) * tb, tb);
				if (!bpp8)
					bg_pal[e >> 12] = 1;
			}
		}
	}
	uint32_t m = 0, t = 0, all = 0;
	for (int i = 0; i < 2048; i++) {
		m += maps[i];
		t += tiles[i] && !maps[i];
		all += maps[i] || tiles[i];
	}
	if (all * 32u > u->bg_bytes_peak) {
		u->bg_bytes_peak = all * 32u;
		u->bg_map_bytes_at_peak = m * 32u;
		u->bg_tile_bytes_at_peak = t * 32u;
	}
}

static void on_video(void *ctx, const uint16_t *io, const uint16_t *pal, const uint16_t *vram,
                     const uint16_t *oam)
{
	struct video_ctx *v = ctx;
	uint8_t bgp[16] = {0}, objp[16] = {0};
	(void)pal;
	sample_obj(&v->use, io, oam, objp);
	sample_bg(&v->use, io, vram, bgp);
	uint32_t nb = count_bits(bgp, 16), no = count_bits(objp, 16);
	if (nb > v->use.bg_pal_peak)
		v->use.bg_pal_peak = nb;
	if (no > v->use.obj_pal_peak)
		v->use.obj_pal_peak = no;
}
#endif

/* ---- the report ---------------------------------------------------------------------------- */
static void add_fig(struct budget_report *r, const char *name, uint32_t v, int higher,
                    const char *what)
{
	if (r->n_fig < BUDGET_MAX_FIGURES)
		r->fig[r->n_fig++] = (struct budget_figure){name, v, higher, what};
}

const struct budget_figure *budget_figure(const struct budget_report *r, const char *name)
{
	for (size_t i = 0; i < r->n_fig; i++)
		if (strcmp(r->fig[i].name, name) == 0)
			return &r->fig[i];
	return NULL;
}

static int by_bytes_desc(const void *x, const void *y)
{
	const struct budget_line *a = x, *b = y;
	return a->bytes > b->bytes ? -1 : a->bytes < b->bytes ? 1 : strcmp(a->name, b->name);
}

/* Sections in [lo, hi) by virtual address (ram) or load address in ROM (rom). */
static size_t list_sections(const struct game_image *g, uint32_t lo, uint32_t hi, int rom,
                            struct budget_line *out, uint32_t *total)
{
	size_t n = 0;
	*total = 0;
	for (size_t i = 0; i < g->elf.n_sections; i++) {
		const struct agb_elf_section *s = &g->elf.sections[i];
		uint32_t at = rom ? s->lma : s->addr;
		if (!(s->flags & AGB_ELF_SHF_ALLOC) || s->size == 0u || !in_range(at, lo, hi))
			continue;
		if (rom && s->type == AGB_ELF_SHT_NOBITS)
			continue;
		*total += s->size;
		if (n == BUDGET_MAX_LINES)
			continue;
		struct budget_line *l = &out[n++];
		snprintf(l->name, sizeof l->name, "%s", s->name);
		snprintf(l->where, sizeof l->where, "%s",
		         s->type == AGB_ELF_SHT_NOBITS    ? "zeroed"
		         : (s->flags & AGB_ELF_SHF_EXEC)  ? "code"
		         : (s->flags & AGB_ELF_SHF_WRITE) ? "data"
		                                          : "read-only");
		l->addr = at;
		l->bytes = s->size;
		l->written = s->size;
	}
	return n;
}

static size_t list_symbols(const struct game_image *g, uint32_t lo, uint32_t hi,
                           struct budget_line *out)
{
	size_t n = 0;
	struct budget_line *all = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < g->elf.n_symbols; i++) {
		const struct agb_elf_symbol *s = &g->elf.symbols[i];
		if (s->kind == AGB_ELF_SYM_OTHER || s->size == 0u || s->section == 0u ||
		    s->section >= 0xFF00u || !in_range(s->value & ~1u, lo, hi))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2u : 64u;
			struct budget_line *na = realloc(all, cap * sizeof *na);
			if (na == NULL)
				break;
			all = na;
		}
		struct budget_line *l = &all[n++];
		memset(l, 0, sizeof *l);
		snprintf(l->name, sizeof l->name, "%s", s->name);
		member_at(g, s->value & ~1u, l->where, sizeof l->where);
		l->addr = s->value & ~1u;
		l->bytes = s->size;
		l->written = s->size;
	}
	if (all == NULL)
		return 0;
	qsort(all, n, sizeof *all, by_bytes_desc);
	if (n > BUDGET_MAX_LINES)
		n = BUDGET_MAX_LINES;
	memcpy(out, all, n * sizeof *out);
	free(all);
	return n;
}

/* newlib's (libc, libm, libnosys) input sections in RAM, by archive member. */
static void list_libc(const struct game_image *g, struct budget_report *r)
{
	struct budget_line acc[256];
	size_t n = 0;
	memset(acc, 0, sizeof acc);
	for (size_t i = 0; g->have_map && i < g->map.n; i++) {
		const struct agb_ldmap_entry *e = &g->map.e[i];
		int iw = in_range(e->addr, IWRAM_LO, IWRAM_HI),
		    ew = in_range(e->addr, EWRAM_LO, EWRAM_HI);
		if (!(iw || ew) || !is_libc_archive(e->archive))
			continue;
		if (iw)
			r->libc_iwram += e->size;
		else
			r->libc_ewram += e->size;
		char name[96];
		snprintf(name, sizeof name, "%.40s(%.50s)", e->archive, e->member);
		size_t k;
		for (k = 0; k < n; k++)
			if (strcmp(acc[k].name, name) == 0 &&
			    (acc[k].addr >> 24) == (e->addr >> 24))
				break;
		if (k == n) {
			if (n == sizeof acc / sizeof acc[0])
				continue;
			memset(&acc[n], 0, sizeof acc[n]);
			snprintf(acc[n].name, sizeof acc[n].name, "%s", name);
			acc[n].addr = e->addr;
			snprintf(acc[n].where, sizeof acc[n].where, "%s", iw ? "IWRAM" : "EWRAM");
			n++;
		}
		acc[k].bytes += e->size;
		size_t wl = strlen(acc[k].where);
		if (strstr(acc[k].where, e->section) == NULL &&
		    wl + strlen(e->section) + 2u < sizeof acc[k].where)
			snprintf(acc[k].where + wl, sizeof acc[k].where - wl, " %s", e->section);
	}
	qsort(acc, n, sizeof acc[0], by_bytes_desc);
	r->n_libc = n < BUDGET_MAX_LINES ? n : BUDGET_MAX_LINES;
	memcpy(r->libc, acc, r->n_libc * sizeof acc[0]);
}

#ifdef AGB_MEASURE_ENABLED
static void name_pc(const struct game_image *g, uint32_t pc, char *buf, size_t n)
{
	const char *f = function_at(g, pc & ~1u);
	snprintf(buf, n, "%s", f != NULL ? f : pc < 0x4000u ? "(BIOS)" : "?");
}

static void fill_stack(const struct game_image *g, struct agb_budget *b, int which,
                       struct budget_stack *out)
{
	const struct agb_budget_stack *s = agb_budget_stack(b, which);
	out->name = which == 0 ? "system" : "irq";
	out->top = s->top;
	out->limit = s->limit;
	out->peak_paint = s->top - s->low_paint;
	out->peak_watch = s->top - s->low_watch;
	out->peak = out->peak_paint > out->peak_watch ? out->peak_paint : out->peak_watch;
	out->deepest_frame = s->deepest.frame;
	out->overflowed = s->overflowed;
	if (s->overflowed) {
		out->ov_frame = s->overflow.frame;
		out->ov_pc = s->overflow.pc;
		out->ov_addr = s->overflow.addr;
		out->ov_sp = s->overflow.sp;
		name_pc(g, s->overflow.pc, out->ov_function, sizeof out->ov_function);
	}
	if (s->low_watch >= s->top)
		return; /* the stack was never used after main */
	/* The chain: the function at the deepest store, then each caller found on the stack. */
	struct budget_frame *f = &out->chain[0];
	name_pc(g, s->deepest.pc, f->function, sizeof f->function);
	member_at(g, s->deepest.pc & ~1u, f->where, sizeof f->where);
	f->depth = s->top - s->low_watch;
	f->pc = s->deepest.pc;
	out->n_chain = 1;
	for (size_t i = 0; i < s->n_chain && out->n_chain < 24u; i++) {
		f = &out->chain[out->n_chain++];
		uint32_t ret = s->chain[i] & ~1u;
		name_pc(g, ret - 2u, f->function, sizeof f->function);
		member_at(g, ret - 2u, f->where, sizeof f->where);
		f->depth = s->top - s->chain_at[i];
		f->pc = ret;
	}
	/* libc's share: the innermost frames in a libc member, down from where the game called. */
	size_t k = 0;
	while (k < out->n_chain && strstr(out->chain[k].where, "lib") == out->chain[k].where &&
	       is_libc_archive(out->chain[k].where))
		k++;
	if (k > 0 && k < out->n_chain)
		out->libc_bytes = out->chain[0].depth - out->chain[k].depth;
}

/* The figures of the run: stacks, what the game wrote of its RAM objects, the heap. */
static void measured(const struct game_image *g, struct agb_budget *b, struct budget_report *r)
{
	fill_stack(g, b, 0, &r->stack[0]);
	fill_stack(g, b, 1, &r->stack[1]);
	r->overflow = r->stack[0].overflowed || r->stack[1].overflowed;
	/* What the game wrote of its RAM objects. */
	for (size_t i = 0; i < r->n_iwram_symbols; i++)
		r->iwram_symbols[i].written = agb_budget_written_bytes(
		        b, r->iwram_symbols[i].addr,
		        r->iwram_symbols[i].addr + r->iwram_symbols[i].bytes);
	for (size_t i = 0; i < r->n_ewram_symbols; i++)
		r->ewram_symbols[i].written = agb_budget_written_bytes(
		        b, r->ewram_symbols[i].addr,
		        r->ewram_symbols[i].addr + r->ewram_symbols[i].bytes);
	for (size_t i = 0; i < r->n_ewram_sections; i++)
		if (strcmp(r->ewram_sections[i].where, "code") != 0)
			r->ewram_sections[i].written = agb_budget_written_bytes(
			        b, r->ewram_sections[i].addr,
			        r->ewram_sections[i].addr + r->ewram_sections[i].bytes);
	/* The heap: newlib's own peak when it is there, else the highest EWRAM word written
	 * above the static sections (where an _sbrk heap grows). */
	static const char *const newlib_peak[] = {"__malloc_max_sbrked_mem", NULL};
	static const char *const dropin_peak[] = {"agb_malloc_peak_used", NULL};
	uint32_t at = symbol_value(g, newlib_peak), heap;
	uint32_t dropin = symbol_value(g, dropin_peak);
	uint32_t top = agb_budget_written_top(b, r->ewram_static_end, EWRAM_HI);
	if (dropin != 0u) {
		/* The drop-in heap's pool is all free EWRAM and its end sentinel is written at
		 * start-up: the highest word written says nothing of its use. */
		heap = agb_budget_read32(b, dropin);
		r->heap_source = "agbmem's drop-in heap (agb_malloc_peak_used)";
	} else if (at != 0u) {
		heap = agb_budget_read32(b, at);
		r->heap_source = "newlib's __malloc_max_sbrked_mem";
	} else {
		heap = top - r->ewram_static_end;
		r->heap_source = heap != 0u ? "the highest EWRAM word written above the static "
		                              "sections"
		                            : "none above the static sections";
	}
	uint32_t ew_written = agb_budget_written_bytes(b, EWRAM_LO, EWRAM_HI);
	uint32_t above = agb_budget_written_bytes(b, r->ewram_static_end, EWRAM_HI);
	const struct budget_stack *sys = &r->stack[0], *irq = &r->stack[1];
	uint32_t sys_low = sys->top - sys->peak;
	uint32_t free_iw = sys_low > r->iwram_static_end ? sys_low - r->iwram_static_end : 0u;
	add_fig(r, "stack.peak", sys->peak, 0, "system stack's high-water mark");
	add_fig(r, "stack.irq_peak", irq->peak, 0, "IRQ stack's high-water mark");
	add_fig(r, "stack.room", sys->top - sys->limit, 1,
	        "system stack's room (top - static end)");
	add_fig(r, "stack.irq_room", irq->top - irq->limit, 1, "IRQ stack's room");
	add_fig(r, "iwram.free", free_iw, 1, "IWRAM no stack ever reached (at the deepest moment)");
	add_fig(r, "ewram.heap_peak", heap, 0, "the heap's peak");
	add_fig(r, "ewram.written", ew_written, 0, "EWRAM bytes written at least once");
	add_fig(r, "ewram.never_written", (EWRAM_HI - EWRAM_LO) - ew_written, 1,
	        "EWRAM bytes never written");
	add_fig(r, "ewram.free", (EWRAM_HI - r->ewram_static_end) - above, 1,
	        "EWRAM above the static sections never written");
	r->frames = agb_budget_frames(b);
}

static const char *const sys_tops[] = {"__agb_sp_sys", "__sp_usr", NULL};
static const char *const irq_tops[] = {"__agb_sp_irq", "__sp_irq", NULL};

static int run_game(const struct budget_args *a, const struct game_image *g,
                    struct budget_report *r, struct video_ctx *v)
{
	struct agb_budget_config cfg = {0};
	struct agbsim_key_script sc = {0};
	char err[512], rombuf[4096];
	const struct agb_elf_symbol *main_sym = agb_elf_image_symbol(&g->elf, "main");
	int rc = AGBSIM_EXIT_OK;
	if (main_sym == NULL || main_sym->kind != AGB_ELF_SYM_FUNC) {
		agbsim_error("%s: no function 'main' in the ELF's symbols: the paint goes on at "
		             "main's first instruction",
		             a->game);
		return AGBSIM_EXIT_USAGE;
	}
	if (a->input != NULL && (rc = agbsim_key_script_load(a->input, &sc)) != AGBSIM_EXIT_OK)
		return rc;
	cfg.main_addr = main_sym->value;
	cfg.iwram_static_end = r->iwram_static_end;
	cfg.sys_top = symbol_value(g, sys_tops);
	cfg.irq_top = symbol_value(g, irq_tops);
	struct agb_budget *b =
	        agb_budget_open(pick_rom(a, rombuf, sizeof rombuf), &cfg, err, sizeof err);
	if (b == NULL) {
		free(sc.steps);
		agbsim_error("%s", err);
		return AGBSIM_EXIT_USAGE;
	}
	agb_budget_on_video(b, on_video, v);
	size_t step = 0;
	for (uint32_t f = 0; f < a->frames; f++) {
		while (step < sc.n && sc.steps[step].frame <= f)
			agb_budget_set_keys(b, sc.steps[step++].keys);
		agb_budget_run_frame(b);
	}
	free(sc.steps);
	if (a->game_log != NULL) {
		size_t n;
		const char *log = agb_budget_log(b, &n);
		struct agbsim_output out;
		rc = agbsim_output_open(&out, a->game_log);
		if (rc == AGBSIM_EXIT_OK)
			rc = agbsim_output_close(&out, n == 0 || fwrite(log, 1, n, out.f) == n);
	}
	if (rc == AGBSIM_EXIT_OK && !agb_budget_painted(b)) {
		agbsim_error("%s: main was never reached in %u frames", a->game, a->frames);
		rc = AGBSIM_EXIT_USAGE;
	}
	if (rc == AGBSIM_EXIT_OK)
		measured(g, b, r);
	agb_budget_close(b);
	return rc;
}
#endif

static void build_static(const struct game_image *g, struct budget_report *r)
{
	uint32_t iw, ew, rom;
	r->iwram_static_end = static_end(g, IWRAM_LO, IWRAM_HI);
	r->ewram_static_end = static_end(g, EWRAM_LO, EWRAM_HI);
	r->n_iwram_sections = list_sections(g, IWRAM_LO, IWRAM_HI, 0, r->iwram_sections, &iw);
	r->n_ewram_sections = list_sections(g, EWRAM_LO, EWRAM_HI, 0, r->ewram_sections, &ew);
	r->n_rom_sections = list_sections(g, ROM_LO, ROM_HI, 1, r->rom_sections, &rom);
	r->n_iwram_symbols = list_symbols(g, IWRAM_LO, IWRAM_HI, r->iwram_symbols);
	r->n_ewram_symbols = list_symbols(g, EWRAM_LO, EWRAM_HI, r->ewram_symbols);
	list_libc(g, r);
	r->have_map = g->have_map;
	uint32_t code = 0;
	for (size_t i = 0; i < r->n_iwram_sections; i++)
		if (strcmp(r->iwram_sections[i].where, "code") == 0)
			code += r->iwram_sections[i].bytes;
	add_fig(r, "iwram.static", r->iwram_static_end - IWRAM_LO, 0,
	        "IWRAM static sections (code, data, bss)");
	add_fig(r, "iwram.code", code, 0, "IWRAM code");
	add_fig(r, "ewram.static", r->ewram_static_end - EWRAM_LO, 0, "EWRAM static sections");
	add_fig(r, "rom.bytes", rom, 0, "ROM image (sections loaded from ROM)");
	add_fig(r, "libc.iwram", r->libc_iwram, 0, "newlib's objects in IWRAM (link map)");
	add_fig(r, "libc.ewram", r->libc_ewram, 0, "newlib's objects in EWRAM (link map)");
}

static void add_video(struct budget_report *r, const struct video_ctx *v)
{
	add_fig(r, "vram.obj_tiles_peak", v->use.obj_units_peak, 0,
	        "OBJ tiles (32-byte units) shown at once, at most");
	add_fig(r, "vram.obj_tiles_end", v->use.obj_units_last, 0,
	        "OBJ tiles shown in the last frame");
	add_fig(r, "vram.bg_peak", v->use.bg_bytes_peak, 0,
	        "BG VRAM bytes in use (maps + tiles), at most");
	add_fig(r, "vram.bg_maps_at_peak", v->use.bg_map_bytes_at_peak, 0, "of which screen maps");
	add_fig(r, "vram.bg_tiles_at_peak", v->use.bg_tile_bytes_at_peak, 0, "of which tiles");
	add_fig(r, "oam.peak", v->use.oam_peak, 0, "OAM entries shown at once, at most (of 128)");
	add_fig(r, "oam.end", v->use.oam_last, 0, "OAM entries shown in the last frame");
	add_fig(r, "pal.bg_banks_peak", v->use.bg_pal_peak, 0,
	        "BG palette banks referenced (of 16)");
	add_fig(r, "pal.obj_banks_peak", v->use.obj_pal_peak, 0,
	        "OBJ palette banks referenced (of 16)");
}

static int budget(const struct budget_args *a)
{
	struct game_image g = {0};
	struct budget_report *r = calloc(1, sizeof *r);
	struct video_ctx *v = calloc(1, sizeof *v);
	struct budget_baseline *base = NULL;
	int rc = r != NULL && v != NULL ? AGBSIM_EXIT_OK : AGBSIM_EXIT_IO;
	if (rc != AGBSIM_EXIT_OK)
		agbsim_error("budget: out of memory");
	if (rc == AGBSIM_EXIT_OK && a->baseline != NULL) {
		base = calloc(1, sizeof *base);
		rc = base == NULL ? AGBSIM_EXIT_IO : budget_baseline_load(a->baseline, base);
	}
	if (rc == AGBSIM_EXIT_OK)
		rc = load_image(a, &g);
	if (rc == AGBSIM_EXIT_OK) {
		r->game = a->game;
		build_static(&g, r);
#ifdef AGB_MEASURE_ENABLED
		rc = run_game(a, &g, r, v);
#else
		agbsim_error("budget: this agbsim was built without libmgba; install libmgba-dev "
		             "(scripts/setup) and rebuild");
		rc = AGBSIM_EXIT_IO;
#endif
	}
	if (rc == AGBSIM_EXIT_OK) {
		struct budget_verdict verdict;
		struct agbsim_output out;
		add_video(r, v);
		budget_judge(r, a->limits, a->n_limits, base, &verdict);
		rc = agbsim_output_open(&out, a->out);
		if (rc == AGBSIM_EXIT_OK) {
			budget_write(out.f, (enum agbsim_format)a->format, r, &verdict);
			rc = agbsim_output_close(&out, 1);
		}
		if (rc == AGBSIM_EXIT_OK && a->update != NULL) {
			struct budget_baseline *keep = NULL;
			if (access(a->update, R_OK) == 0) {
				keep = calloc(1, sizeof *keep);
				if (keep == NULL ||
				    budget_baseline_load(a->update, keep) != AGBSIM_EXIT_OK) {
					free(keep);
					keep = NULL;
				}
			}
			rc = budget_baseline_write(a->update, r, keep);
			free(keep);
		}
		if (rc == AGBSIM_EXIT_OK && (verdict.n != 0 || r->overflow)) {
			for (size_t i = 0; i < verdict.n; i++)
				fprintf(stderr, "agbsim: budget: %s\n", verdict.lines[i]);
			if (r->overflow)
				for (int s = 0; s < 2; s++)
					if (r->stack[s].overflowed)
						fprintf(stderr,
						        "agbsim: budget: %s stack overflow in "
						        "frame %u: "
						        "%s (pc 0x%08x) wrote 0x%08x, below its "
						        "limit "
						        "0x%08x\n",
						        r->stack[s].name, r->stack[s].ov_frame,
						        r->stack[s].ov_function,
						        (unsigned)r->stack[s].ov_pc,
						        (unsigned)r->stack[s].ov_addr,
						        (unsigned)r->stack[s].limit);
			rc = AGBSIM_EXIT_REGRESSION;
		}
	}
	release_image(&g);
	free(r);
	free(v);
	free(base);
	return rc;
}

int agbsim_cmd_budget(int argc, char **argv)
{
	struct budget_args a;
	memset(&a, 0, sizeof a);
	int rc = parse_args(&a, argc, argv);
	if (rc != AGBSIM_CLI_RUN)
		return rc;
	return budget(&a);
}
