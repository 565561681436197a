/* bench.c — agbsim-bench.gba: replays a packed trace (src/trace/trace_bin.c, bench_abi.h) on one
 * core with the same replay engine the host runs (src/engine/replay.c), and reports each core call
 * to the host through markers (agb_mark, SWI 0xF0) so `agbsim measure` can time it in mGBA.
 *
 * Memory plan (the arena is at its real address, chosen by the engine: EWRAM 0x02000000,
 * OBJ VRAM 0x06010000, BG VRAM 0x06000000, palette RAM 0x05000000):
 *   core state  IWRAM .bss (where a game keeps an allocator's globals)
 *   slot table  EWRAM traces: VRAM (after the mode-4 frame buffer when drawing live);
 *               VRAM and palette traces: the top of EWRAM (meta areas start at 0x02000000)
 *   events      read straight from the payload in ROM
 * The slot table is written by the engine with 32-bit stores only (struct slot is all u32 and
 * memset is ours, below), so VRAM is safe for it.
 *
 * Screen (AGB_BENCH_SCREEN): mode 4, page 0. EWRAM and OBJ VRAM traces are drawn live (the frame
 * buffer 0x06000000..0x060095FF is not theirs); BG VRAM traces own that VRAM, and an EWRAM trace
 * whose slot table does not fit beside the frame buffer (a few thousand live blocks) spreads it
 * over the frame buffer, so for those the map is drawn after the replay, from the final walk,
 * once the VRAM is free again. Palette RAM traces own the palette mode 4 needs: they are drawn
 * live in mode 3 (direct 15-bit colours, 0x06000000..0x06012BFF), which never reads it. All
 * drawing happens outside the timed calls.
 */
#include "agb_gba.h"
#include "bench_abi.h"

#include "agb/cores.h"
#include "agbsim/replay.h"
#include "agb/tiles.h"

_Static_assert(sizeof(struct agb_event) == AGB_BIN_EVENT_BYTES, "payload event layout");

/* The engine's GBA hooks (src/engine/replay.c). */
void agb_replay_op_begin(uint32_t index);
void agb_replay_op_end(uint32_t index, uint32_t addr);
void *agb_replay_slot_table(void *workspace);
void agb_replay_calibrate_marks(uint32_t n);

#ifdef AGB_BENCH_NEWLIB
uint32_t agb_newlib_heap_peak(void); /* newlib_core.c */
#endif

#ifdef AGB_BENCH_SINGLE_CORE
/* IWRAM ROMs hold one core: 32 KiB of IWRAM cannot take the ARM code of all of them (and the
 * newlib reference ROM holds only newlib). */
extern const struct agb_heap_core AGB_BENCH_SINGLE_CORE;
static const struct agb_heap_core *const bench_cores[] = {&AGB_BENCH_SINGLE_CORE, NULL};
#else
#define bench_cores agb_heap_cores
#endif

/* The direct tiles loop (AGB_BENCH_DIRECT) lives only in ROMs that hold tiles: a single-core
 * IWRAM ROM of another core must not pull tiles' code in. */
#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
#define BENCH_HAS_agb_tiles_core 1
#if !defined(AGB_BENCH_SINGLE_CORE) || BENCH_CAT(BENCH_HAS_, AGB_BENCH_SINGLE_CORE)
#define BENCH_DIRECT_TILES 1
#else
#define BENCH_DIRECT_TILES 0
#endif

/* The hooks are Thumb code in ROM in every bench ROM, like the engine that calls them: the IWRAM
 * ROMs differ from agbsim-bench.gba only in where the core's code is. */
#define BENCH_HOOK __attribute__((noinline))

/* ---- memset for the engine -------------------------------------------------------------------
 * GCC may turn the engine's slot-table clearing loop into a memset call; newlib-nano's memset
 * stores bytes, which VRAM widens. This one stores words when it can (the slot table is always
 * 4-aligned and a multiple of 4 long). Overrides newlib's. */
void *memset(void *dst, int c, size_t n);
void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	uint32_t w = (uint8_t)c * 0x01010101u;
	while (n != 0 && ((uintptr_t)d & 3u) != 0) {
		*d++ = (uint8_t)c;
		n--;
	}
	for (; n >= 4u; n -= 4u, d += 4)
		*(volatile uint32_t *)(void *)d = w;
	while (n-- != 0)
		*d++ = (uint8_t)c;
	return dst;
}

/* ---- engine hooks: markers around each core call -------------------------------------------- */
#define hook_mark agb_mark

BENCH_HOOK void agb_replay_op_begin(uint32_t index)
{
	hook_mark(AGB_MARK_OP_BEGIN, index);
}

BENCH_HOOK void agb_replay_op_end(uint32_t index, uint32_t addr)
{
	(void)index;
	hook_mark(AGB_MARK_OP_END, addr);
}

static uint32_t slot_table_addr;

void *agb_replay_slot_table(void *workspace)
{
	(void)workspace;
	return (void *)(uintptr_t)slot_table_addr;
}

/* ---- screen: mode 4 (8 bpp, page 0), 3x5 font --------------------------------------------------- */
#define SCREEN_W 240u
#define SCREEN_H 160u
#define MAP_Y 18u
#define MAP_H 96u
#define FIG_Y 118u

enum { COL_BG = 0, COL_TEXT, COL_FREE, COL_USED_A, COL_USED_B, COL_META, COL_BAR, COL_BAR_BG, COL_FAIL };

/* Mode 3 instead of mode 4 (palette RAM traces): pixels are the colours below, not indices. */
static int direct_colour;

static const uint16_t screen_colours[] = {
		0x0000,              /* background: black */
		0x7FFF,              /* text: white */
		0x2882,              /* free: dark blue-grey */
		0x03E0,              /* used: green */
		0x02A0,              /* used, alternate run: darker green */
		0x001F,              /* metadata: red */
		0x7EC0,              /* progress bar: cyan */
		0x1084,              /* bar background */
		0x0BFF,              /* failure: yellow */
};

static void pal_init(void)
{
	for (uint32_t i = 0; i < sizeof screen_colours / sizeof screen_colours[0]; i++)
		AGB_REG16(0x05000000u + 2u * i) = screen_colours[i];
}

/* Mode 3: pixels [x0, x1) of row y in colour c, one halfword each. */
static void hline_direct(uint32_t y, uint32_t x0, uint32_t x1, uint8_t c)
{
	volatile uint16_t *row = (volatile uint16_t *)(uintptr_t)(0x06000000u + y * SCREEN_W * 2u);
	uint16_t rgb = screen_colours[c];
	for (; x0 < x1; x0++)
		row[x0] = rgb;
}

/* Fills pixels [x0, x1) of row y; VRAM takes no byte stores, so odd ends are read-modify-write. */
static void hline(uint32_t y, uint32_t x0, uint32_t x1, uint8_t c)
{
	volatile uint16_t *row = (volatile uint16_t *)(uintptr_t)(0x06000000u + y * SCREEN_W);
	uint16_t cc = (uint16_t)(c | (c << 8));
	if (direct_colour) {
		hline_direct(y, x0, x1, c);
		return;
	}
	if (x0 >= x1)
		return;
	if (x0 & 1u) {
		row[x0 >> 1] = (uint16_t)((row[x0 >> 1] & 0x00FFu) | (c << 8));
		x0++;
	}
	for (; x0 + 2u <= x1; x0 += 2u)
		row[x0 >> 1] = cc;
	if (x0 < x1)
		row[x0 >> 1] = (uint16_t)((row[x0 >> 1] & 0xFF00u) | c);
}

static void rect(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint8_t c)
{
	for (uint32_t y = y0; y < y1; y++)
		hline(y, x0, x1, c);
}

static uint16_t glyph(char ch)
{
	static const char chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:.-/%=_()+";
	static const uint16_t g[] = {
		075557, 026227, 071747, 071717, 055711, 074717, 074757, 071122, 075757, 075717,
		025755, 065656, 034443, 065556, 074647, 074644, 034553, 055755, 072227, 011152,
		055655, 044447, 057755, 065555, 025552, 065644, 025563, 065655, 034216, 072222,
		055557, 055552, 055775, 055255, 055222, 071247, 002020, 000002, 000700, 011244,
		051245, 007070, 000007, 024442, 021112, 002720,
	};
	if (ch >= 'a' && ch <= 'z')
		ch = (char)(ch - 'a' + 'A');
	for (uint32_t i = 0; chars[i] != '\0'; i++)
		if (chars[i] == ch)
			return g[i];
	return 0;
}

/* Draws text with 4x6 cells; returns the next x. */
static uint32_t text(uint32_t x, uint32_t y, const char *s, uint8_t c)
{
	for (; *s != '\0' && x + 4u <= SCREEN_W; s++, x += 4u) {
		uint16_t g = glyph(*s);
		rect(x, y, x + 4u, y + 6u, COL_BG);
		for (uint32_t r = 0; r < 5u; r++)
			for (uint32_t b = 0; b < 3u; b++)
				if ((g >> ((4u - r) * 3u + (2u - b))) & 1u)
					rect(x + b, y + r, x + b + 1u, y + r + 1u, c);
	}
	return x;
}

static char *fmt_u(char *p, uint32_t v)
{
	char tmp[11];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v != 0);
	while (n != 0)
		*p++ = tmp[--n];
	*p = '\0';
	return p;
}

static char *fmt_s(char *p, const char *s)
{
	while (*s != '\0')
		*p++ = *s++;
	*p = '\0';
	return p;
}

/* ---- the run ------------------------------------------------------------------------------------ */
struct bench {
	const struct agb_bin_header *h;
	const struct agb_heap_core *core;
	struct agb_trace trace;
	struct agb_replay_config cfg;
	void *state;
	int screen, live;
	int fb_busy; /* the replay uses the frame buffer's VRAM: draw only after it */
	uint32_t arena_addr, arena_bytes;
	uint32_t next_draw, draw_step;
	uint32_t failures;
	/* walk state */
	uint32_t walk_runs, walk_sum, used_flip;
};

static uint64_t state_mem[AGB_HEAP_STATE_MAX / 8u]; /* IWRAM .bss: the core's globals */

static uint32_t fnv_word(uint32_t h, uint32_t w)
{
	for (unsigned k = 0; k < 4u; k++) {
		h ^= (w >> (8u * k)) & 0xFFu;
		h *= 16777619u;
	}
	return h;
}

static void map_run(struct bench *b, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	const uint32_t cells = SCREEN_W * MAP_H;
	uint32_t off = addr - b->arena_addr;
	uint32_t c0 = (uint32_t)((uint64_t)off * cells / b->arena_bytes);
	uint32_t c1 = (uint32_t)((uint64_t)(off + bytes) * cells / b->arena_bytes);
	uint8_t c = kind == AGB_RUN_FREE ? COL_FREE : kind == AGB_RUN_META ? COL_META
			: (b->used_flip ^= 1u) != 0 ? COL_USED_A : COL_USED_B;
	if (off >= b->arena_bytes)
		return;
	if (c1 > cells)
		c1 = cells;
	if (c1 == c0)
		c1 = c0 + 1u; /* every run at least one cell: small blocks stay visible */
	while (c0 < c1) {
		uint32_t y = c0 / SCREEN_W, x = c0 % SCREEN_W;
		uint32_t x1 = c1 - y * SCREEN_W < SCREEN_W ? c1 - y * SCREEN_W : SCREEN_W;
		hline(MAP_Y + y, x, x1, c);
		c0 = y * SCREEN_W + x1;
	}
}

static void draw_walk(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	map_run(ctx, addr, bytes, kind);
}

static void draw_map(struct bench *b)
{
	rect(0, MAP_Y, SCREEN_W, MAP_Y + MAP_H, COL_BG);
	b->used_flip = 0;
	b->core->walk(b->state, draw_walk, b);
}

static void draw_progress(struct bench *b, uint32_t done)
{
	uint32_t w = b->trace.event_count != 0
			     ? (uint32_t)((uint64_t)done * SCREEN_W / b->trace.event_count)
			     : SCREEN_W;
	rect(0, 10, w, 14, COL_BAR);
	rect(w, 10, SCREEN_W, 14, COL_BAR_BG);
}

static void draw_header(struct bench *b)
{
	char line[64], *p = line;
	p = fmt_s(p, "AGBSIM ");
	p = fmt_s(p, b->core->name);
	p = fmt_s(p, " ON ");
	p = fmt_s(p, agb_arena_name(b->trace.arena));
	p = fmt_s(p, " ");
	fmt_s(p, b->h->trace_name);
	text(0, 2, line, COL_TEXT);
}

static void draw_figures(struct bench *b, const struct agb_replay_result *r, uint32_t events)
{
	char line[64], *p;
	p = fmt_s(line, "EVENTS ");
	p = fmt_u(p, events);
	p = fmt_s(p, "/");
	fmt_u(p, b->trace.event_count);
	text(0, FIG_Y, line, COL_TEXT);
	p = fmt_s(line, "FAILURES ");
	fmt_u(p, r->failures);
	text(120, FIG_Y, line, r->failures != 0 ? COL_FAIL : COL_TEXT);
	p = fmt_s(line, "FREE ");
	p = fmt_u(p, r->final_stats.free_bytes);
	p = fmt_s(p, " OF ");
	fmt_u(p, b->arena_bytes);
	text(0, FIG_Y + 8u, line, COL_TEXT);
	p = fmt_s(line, "LARGEST ");
	fmt_u(p, r->final_stats.largest_free);
	text(120, FIG_Y + 8u, line, COL_TEXT);
	p = fmt_s(line, "FREE RUNS ");
	fmt_u(p, r->final_stats.free_runs);
	text(0, FIG_Y + 16u, line, COL_TEXT);
	p = fmt_s(line, "OVERHEAD ");
	fmt_u(p, r->overhead_bytes);
	text(120, FIG_Y + 16u, line, COL_TEXT);
	p = fmt_s(line, "WALK ");
	p = fmt_u(p, b->walk_runs);
	p = fmt_s(p, " RUNS");
	text(0, FIG_Y + 24u, line, COL_TEXT);
	text(0, FIG_Y + 34u, r->status == AGB_REPLAY_OK ? "DONE" : "REPLAY STOPPED", COL_TEXT);
}

static void screen_on(void)
{
	/* Mode 4 (or 3) + BG2 (bitmap) */
	AGB_REG16(AGB_REG_DISPCNT) = direct_colour ? 0x0403u : 0x0404u;
}

static void observe(void *ctx, const struct agb_replay_obs *o)
{
	struct bench *b = ctx;
	if ((b->h->bench_flags & AGB_BENCH_OBS) != 0) {
		agb_mark(AGB_MARK_OBS, o->index);
		agb_mark(AGB_MARK_OBS_ADDR, o->addr);
		agb_mark(AGB_MARK_OBS_GRANTED, o->granted);
		agb_mark(AGB_MARK_OBS_INFO, (uint32_t)o->outcome | o->result << 8);
		if ((b->h->bench_flags & AGB_BENCH_OBS_LIVE) != 0) {
			agb_mark(AGB_MARK_OBS_LIVE, o->live_bytes);
			agb_mark(AGB_MARK_OBS_LIVE_GRANTED, o->live_granted);
		}
	}
	if (b->live && o->index + 1u >= b->next_draw) {
		draw_progress(b, o->index + 1u);
		draw_map(b);
		b->next_draw += b->draw_step;
	}
}

static void final_walk(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct bench *b = ctx;
	agb_mark(AGB_MARK_WALK_ADDR, addr);
	agb_mark(AGB_MARK_WALK_BYTES, bytes << 2 | (uint32_t)kind);
	b->walk_runs++;
	b->walk_sum = fnv_word(fnv_word(fnv_word(b->walk_sum, addr), bytes), (uint32_t)kind);
}

/* The final walk's hash (as final_walk computes it, without markers): what a direct run must
 * end in. */
static uint32_t walk_hash;

static void hash_walk(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	(void)ctx;
	walk_hash = fnv_word(fnv_word(fnv_word(walk_hash, addr), bytes), (uint32_t)kind);
}

#if BENCH_DIRECT_TILES
/* ---- direct calls (AGB_BENCH_DIRECT, tiles) ----------------------------------------------------
 * A game's scroll routine calls agb_tiles_ref / agb_tiles_unref inline, with the layer's depth a
 * constant at each call site. direct_pass is that loop over the trace's events; its empty twin
 * reads the same event fields and takes the same branches without the calls, so the difference
 * of the two timed loops is what the calls cost, miss paths (uploads, releases) included. */

/* One pass; `calls` is a constant in each instance. Returns a sink the loop cannot drop. */
static inline __attribute__((always_inline)) uint32_t direct_pass(agb_tiles *t, const struct agb_event *ev,
								 uint32_t n, int calls)
{
	uint32_t sink = 0, d;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t op = ev[i].op, tile = ev[i].id, bpp = ev[i].size;
		/* The depth test is the loop's, not the call's (a game's call site has one depth):
		 * the empty twin makes it too, each arm with its own asm so the compiler keeps both. */
		if (op == AGB_OP_REF) {
			if (bpp == 8u) {
				if (!calls)
					__asm__ volatile("@ ref8" : "+r"(sink) : "r"(tile));
				else
					sink += agb_tiles_ref(t, tile, 8u, &d);
			} else {
				if (!calls)
					__asm__ volatile("@ ref4" : "+r"(sink) : "r"(tile));
				else
					sink += agb_tiles_ref(t, tile, 4u, &d);
			}
		} else if (op == AGB_OP_UNREF) {
			if (bpp == 8u) {
				if (!calls)
					__asm__ volatile("@ unref8" : "+r"(sink) : "r"(tile));
				else
					sink += (uint32_t)agb_tiles_unref(t, tile, 8u, &d);
			} else {
				if (!calls)
					__asm__ volatile("@ unref4" : "+r"(sink) : "r"(tile));
				else
					sink += (uint32_t)agb_tiles_unref(t, tile, 4u, &d);
			}
		}
	}
	return sink;
}

__attribute__((noinline)) static uint32_t direct_calls(agb_tiles *t, const struct agb_event *ev, uint32_t n)
{
	return direct_pass(t, ev, n, 1);
}

__attribute__((noinline)) static uint32_t direct_empty(agb_tiles *t, const struct agb_event *ev, uint32_t n)
{
	return direct_pass(t, ev, n, 0);
}

/* Re-initialises the tiles state on the replay's arena and meta area, times both loops and checks
 * that the direct run ends in the replay's memory map (walk hash `want`). Returns 0 or 1. */
static int direct_tiles(struct bench *b, const struct agb_replay_result *r, uint32_t want)
{
	agb_tiles *t = b->state;
	struct agb_heap_config hc = {r->arena_addr, r->arena_bytes, r->meta_addr, r->meta_bytes,
				     b->cfg.core_flags};
	uint32_t ops = 0, full, empty;
	for (uint32_t i = 0; i < b->trace.event_count; i++)
		ops += b->trace.events[i].op == AGB_OP_REF || b->trace.events[i].op == AGB_OP_UNREF;
	agb_cycles_begin();
	(void)direct_empty(t, b->trace.events, b->trace.event_count);
	empty = agb_cycles_end();
	if (agb_tiles_init(t, (agb_machine *)0, &hc) != AGB_HEAP_OK)
		return 1;
	agb_cycles_begin();
	(void)direct_calls(t, b->trace.events, b->trace.event_count);
	full = agb_cycles_end();
	walk_hash = 2166136261u;
	agb_tiles_walk(t, hash_walk, NULL);
	agb_results.values[AGB_BENCH_V_DIRECT_OPS] = ops;
	agb_results.values[AGB_BENCH_V_DIRECT_CYCLES] = full;
	agb_results.values[AGB_BENCH_V_DIRECT_EMPTY] = empty;
	return walk_hash != want;
}
#endif

/* ---- direct calls of heap-like cores (AGB_BENCH_DIRECT, bench_abi.h) ---------------------------
 * The replay calls a core through its table (r->core->alloc(r->st, ...)): an indirect call, the
 * engine's slot bookkeeping and its argument shuffling sit between the markers. A game calls
 * agb_tlsf_alloc(&heap, size, align, NULL) -- or malloc(size) -- directly: its arguments in
 * registers, one BL, the core. The direct run replays the trace's alloc/free/realloc that way,
 * each call alone between agb_replay_op_begin/op_end (the replay's hooks, so the calibration pair
 * the host subtracts is the same): event fields and the slot's address are read before the begin
 * marker, the call's result is stored after the end marker.
 *
 * Which cores: the ones whose header has a typed alloc/free (and realloc); one loop per core,
 * direct_<core> (BENCH_DIRECT_CORE), the core's functions named in it, so each call is a plain
 * BL. A single-core IWRAM ROM holds only its core's instance (BENCH_WANT). */
#define BENCH_ID_agb_tree_core 1
#define BENCH_ID_agb_bestfit_core 2
#define BENCH_ID_agb_tiles_core 3
#define BENCH_ID_agb_obj_core 4
#define BENCH_ID_agb_obj_fast_core 5
#define BENCH_ID_agb_oam_core 6
#define BENCH_ID_agb_tlsf_core 7
#define BENCH_ID_agb_buddy_core 8
#define BENCH_ID_agb_firstfit_core 9
#define BENCH_ID_agb_slots_core 10
#define BENCH_ID_agb_bump_core 11
#define BENCH_ID_agb_stack2_core 12
#define BENCH_ID_agb_palbanks_core 13
#define BENCH_ID_agb_palstack_core 14
#define BENCH_ID_agb_newlib_core 15
#ifdef AGB_BENCH_SINGLE_CORE
#define BENCH_WANT(id) (BENCH_CAT(BENCH_ID_, AGB_BENCH_SINGLE_CORE) == (id))
#else
#define BENCH_WANT(id) ((id) != BENCH_ID_agb_newlib_core)
#endif

/* The ops a direct run serves: alloc/free/realloc timed, the rest untimed through the table. */
#define DOP(op) (1u << (op))
#define DIRECT_UNTIMED                                                                              \
	(DOP(AGB_OP_FRAME) | DOP(AGB_OP_SPR_SHOW) | DOP(AGB_OP_SPR_Z) | DOP(AGB_OP_SPR_HIDE) |      \
	 DOP(AGB_OP_MARK) | DOP(AGB_OP_RESET) | DOP(AGB_OP_SIDE) | DOP(AGB_OP_SYNC))
#define DIRECT_HEAP (DOP(AGB_OP_ALLOC) | DOP(AGB_OP_FREE) | DOP(AGB_OP_REALLOC) | DIRECT_UNTIMED)
#define DIRECT_BLOCK (DOP(AGB_OP_ALLOC) | DOP(AGB_OP_FREE) | DIRECT_UNTIMED) /* no realloc */
#define DIRECT_LINEAR (DOP(AGB_OP_ALLOC) | DOP(AGB_OP_REALLOC) | DIRECT_UNTIMED) /* no free */

struct direct_run {
	const struct agb_event *ev;
	uint32_t n, nslots;
	uint32_t *slot_addr; /* per trace slot: its live block, AGB_NULL when none (never, failed, freed) */
	const struct agb_heap_core *core; /* the untimed verbs */
	void *st;
	uint32_t calls, failures;
	uint8_t *sprites; /* handle -> OAM entry, as the replay keeps it */
};

/* After a reset: forget the slots whose block now lies in a free run (as the replay does). */
static void direct_release(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct direct_run *d = ctx;
	if (kind != AGB_RUN_FREE)
		return;
	for (uint32_t i = 0; i < d->nslots; i++)
		if (d->slot_addr[i] != AGB_NULL && d->slot_addr[i] - addr < bytes)
			d->slot_addr[i] = AGB_NULL;
}

/* An op the direct run does not time: through the core table, as the replay serves it (the
 * engine's semantics: a core without the verb passes over frame and sprite ops). */
__attribute__((noinline, unused)) static void direct_untimed(struct direct_run *d, const struct agb_event *e)
{
	const struct agb_heap_core *c = d->core;
	uint32_t h = e->slot, sprite = h < AGB_REPLAY_SPRITE_HANDLES ? d->sprites[h] : AGB_SPRITE_NONE;
	switch (e->op) {
	case AGB_OP_FRAME:
		if (c->frame != NULL)
			(void)c->frame(d->st);
		break;
	case AGB_OP_SPR_SHOW:
		if (c->sprite_show != NULL && h < AGB_REPLAY_SPRITE_HANDLES)
			d->sprites[h] = (uint8_t)c->sprite_show(d->st, e->size);
		break;
	case AGB_OP_SPR_Z:
		if (c->sprite_z != NULL && sprite != AGB_SPRITE_NONE)
			c->sprite_z(d->st, sprite, e->size);
		break;
	case AGB_OP_SPR_HIDE:
		if (c->sprite_hide != NULL && sprite != AGB_SPRITE_NONE) {
			c->sprite_hide(d->st, sprite);
			d->sprites[h] = (uint8_t)AGB_SPRITE_NONE;
		}
		break;
	case AGB_OP_MARK: /* the replay stops first on a core without these three */
		if (c->mark != NULL)
			(void)c->mark(d->st, e->id);
		break;
	case AGB_OP_SIDE:
		if (c->side != NULL)
			(void)c->side(d->st, e->id);
		break;
	case AGB_OP_RESET:
		if (c->reset != NULL && c->reset(d->st, e->id) == AGB_VERB_DONE)
			c->walk(d->st, direct_release, d);
		break;
	default: /* sync: nothing for the core */
		break;
	}
}

/* One core's direct run: ALLOC(size, align), FREE(addr), REALLOC(addr, size) are the game's
 * calls; OPS the ops it serves (its table's verbs). ALIGNED(size, align) is the call for an
 * alignment above 8 when the library has a separate one (newlib's memalign; else ALLOC again):
 * the game knows which it needs, so the choice is made before the begin marker. */
#define BENCH_DIRECT_CORE(name, OPS, ALLOC, ALIGNED, FREE, REALLOC)                                 \
	__attribute__((noinline)) static void direct_##name(struct direct_run *d)                   \
	{                                                                                          \
		for (uint32_t i = 0; i < d->n; i++) {                                              \
			const struct agb_event *e = &d->ev[i];                                     \
			uint32_t op = e->op, *slot = &d->slot_addr[e->slot], a, size = e->size;     \
			uint32_t align = e->align;                                                 \
			if (op == AGB_OP_ALLOC && ((OPS) & DOP(AGB_OP_ALLOC)) != 0) {             \
				if (align > 8u) {                                                  \
					agb_replay_op_begin(i);                                    \
					a = ALIGNED(size, align);                                  \
					agb_replay_op_end(i, a);                                   \
				} else {                                                           \
					agb_replay_op_begin(i);                                    \
					a = ALLOC(size, align);                                    \
					agb_replay_op_end(i, a);                                   \
				}                                                                  \
				*slot = a;                                                         \
				d->failures += a == AGB_NULL;                                      \
			} else if (op == AGB_OP_FREE && ((OPS) & DOP(AGB_OP_FREE)) != 0) {        \
				a = *slot;                                                         \
				if (a == AGB_NULL)                                                 \
					continue; /* a failed or freed block: skipped */          \
				agb_replay_op_begin(i);                                            \
				FREE(a);                                                           \
				agb_replay_op_end(i, AGB_NULL);                                    \
				*slot = AGB_NULL;                                                  \
			} else if (op == AGB_OP_REALLOC && ((OPS) & DOP(AGB_OP_REALLOC)) != 0) {  \
				uint32_t to;                                                       \
				a = *slot;                                                         \
				if (a == AGB_NULL)                                                 \
					continue;                                                  \
				agb_replay_op_begin(i);                                            \
				to = REALLOC(a, size);                                             \
				agb_replay_op_end(i, to);                                          \
				if (to != AGB_NULL)                                                \
					*slot = to; /* C semantics: a failure keeps the block */  \
				d->failures += to == AGB_NULL;                                     \
			} else {                                                                   \
				direct_untimed(d, e);                                              \
				continue;                                                          \
			}                                                                          \
			d->calls++;                                                                \
		}                                                                                  \
	}

/* The core's state, where a game keeps it: a global (state_mem, IWRAM). */
#define HEAP(T) ((T *)(void *)state_mem)
/* The game's calls, one always-inline function each (a BL to the core's function remains):
 * p_A alloc, with granted NULL (CALL_A: a game that does not need it passes NULL) or a local's
 * address (CALL_AG: the OBJ VRAM managers always write *granted); p_F free; p_R realloc. */
#define CALL_A(p)                                                                                   \
	static inline __attribute__((always_inline)) uint32_t p##_A(uint32_t size, uint32_t align) \
	{                                                                                          \
		return agb_##p##_alloc(HEAP(agb_##p), size, align, NULL);                          \
	}
#define CALL_AG(p)                                                                                  \
	static inline __attribute__((always_inline)) uint32_t p##_A(uint32_t size, uint32_t align) \
	{                                                                                          \
		uint32_t granted;                                                                  \
		return agb_##p##_alloc(HEAP(agb_##p), size, align, &granted);                      \
	}
#define CALL_F(p)                                                                                   \
	static inline __attribute__((always_inline)) void p##_F(uint32_t addr)                     \
	{                                                                                          \
		agb_##p##_free(HEAP(agb_##p), addr);                                               \
	}
#define CALL_R(p)                                                                                   \
	static inline __attribute__((always_inline)) uint32_t p##_R(uint32_t addr, uint32_t size)  \
	{                                                                                          \
		return agb_##p##_realloc(HEAP(agb_##p), addr, size, NULL);                         \
	}
#define BLOCK_NO_REALLOC(addr, size) ((void)(addr), (void)(size), AGB_NULL)
#define LINEAR_NO_FREE(addr) ((void)(addr))
/* The three families (agb/heap.h): heaps (alloc, free, realloc), block allocators without a
 * realloc (obj, obj-fast, oam), linear ones without a free (bump, stack2). */
#define TYPED_HEAP(p)                                                                               \
	CALL_A(p) CALL_F(p) CALL_R(p) BENCH_DIRECT_CORE(p, DIRECT_HEAP, p##_A, p##_A, p##_F, p##_R)
#define TYPED_BLOCK(p)                                                                              \
	CALL_AG(p) CALL_F(p)                                                                       \
	BENCH_DIRECT_CORE(p, DIRECT_BLOCK, p##_A, p##_A, p##_F, BLOCK_NO_REALLOC)
#define TYPED_LINEAR(p)                                                                             \
	CALL_A(p) CALL_R(p) BENCH_DIRECT_CORE(p, DIRECT_LINEAR, p##_A, p##_A, LINEAR_NO_FREE, p##_R)

#if BENCH_WANT(BENCH_ID_agb_tree_core)
TYPED_HEAP(tree)
#endif
#if BENCH_WANT(BENCH_ID_agb_bestfit_core)
TYPED_HEAP(bestfit)
#endif
#if BENCH_WANT(BENCH_ID_agb_tlsf_core)
TYPED_HEAP(tlsf)
#endif
#if BENCH_WANT(BENCH_ID_agb_buddy_core)
TYPED_HEAP(buddy)
#endif
#if BENCH_WANT(BENCH_ID_agb_firstfit_core)
TYPED_HEAP(firstfit)
#endif
#if BENCH_WANT(BENCH_ID_agb_slots_core)
TYPED_HEAP(slots)
#endif
#if BENCH_WANT(BENCH_ID_agb_obj_core)
TYPED_BLOCK(obj)
#endif
#if BENCH_WANT(BENCH_ID_agb_obj_fast_core)
TYPED_BLOCK(obj_fast)
#endif
#if BENCH_WANT(BENCH_ID_agb_oam_core)
TYPED_BLOCK(oam)
#endif
#if BENCH_WANT(BENCH_ID_agb_bump_core)
TYPED_LINEAR(bump)
#endif
#if BENCH_WANT(BENCH_ID_agb_stack2_core)
TYPED_LINEAR(stack2)
#endif
#ifdef AGB_BENCH_NEWLIB
/* newlib: the C library's own calls (malloc, memalign above malloc's 8-byte alignment, free,
 * realloc), no malloc_usable_size: a game does not ask. */
void *malloc(size_t size);
void free(void *p);
void *realloc(void *p, size_t size);
void *memalign(size_t align, size_t size);
#define NEWLIB_A(size, align) ((void)(align), (uint32_t)(uintptr_t)malloc(size))
#define NEWLIB_M(size, align) ((uint32_t)(uintptr_t)memalign((align), (size)))
#define NEWLIB_F(addr) free((void *)(uintptr_t)(addr))
#define NEWLIB_R(addr, size) ((uint32_t)(uintptr_t)realloc((void *)(uintptr_t)(addr), (size)))
BENCH_DIRECT_CORE(newlib, DIRECT_HEAP, NEWLIB_A, NEWLIB_M, NEWLIB_F, NEWLIB_R)
#endif

#if BENCH_DIRECT_TILES
/* tiles per call: each ref/unref alone between the markers, the inline hit path expanded between
 * them as in a game's scroll routine (bpp a constant at each call site). OP_END carries what the
 * call returned; the detail (uploaded, released, skipped) follows outside the pair for the host
 * to check against the replay's result. */
__attribute__((noinline)) static void direct_tiles_calls(struct direct_run *d)
{
	agb_tiles *t = HEAP(agb_tiles);
	for (uint32_t i = 0; i < d->n; i++) {
		const struct agb_event *e = &d->ev[i];
		uint32_t op = e->op, tile = e->id, bpp = e->size, detail, r;
		if (op == AGB_OP_REF && bpp == 8u) {
			agb_replay_op_begin(i);
			r = agb_tiles_ref(t, tile, 8u, &detail);
			agb_replay_op_end(i, r);
		} else if (op == AGB_OP_REF) {
			agb_replay_op_begin(i);
			r = agb_tiles_ref(t, tile, 4u, &detail);
			agb_replay_op_end(i, r);
		} else if (op == AGB_OP_UNREF && bpp == 8u) {
			agb_replay_op_begin(i);
			r = (uint32_t)agb_tiles_unref(t, tile, 8u, &detail);
			agb_replay_op_end(i, r);
		} else if (op == AGB_OP_UNREF) {
			agb_replay_op_begin(i);
			r = (uint32_t)agb_tiles_unref(t, tile, 4u, &detail);
			agb_replay_op_end(i, r);
		} else {
			direct_untimed(d, e);
			continue;
		}
		agb_mark(AGB_MARK_DIRECT_INFO, detail);
		d->calls++;
	}
}
#endif

/* Per core: its direct run and the ops it serves. */
struct direct_entry {
	const struct agb_heap_core *core;
	void (*run)(struct direct_run *d);
	uint32_t ops;
};

static const struct direct_entry direct_entries[] = {
#if BENCH_WANT(BENCH_ID_agb_tree_core)
	{&agb_tree_core, direct_tree, DIRECT_HEAP},
#endif
#if BENCH_WANT(BENCH_ID_agb_bestfit_core)
	{&agb_bestfit_core, direct_bestfit, DIRECT_HEAP},
#endif
#if BENCH_WANT(BENCH_ID_agb_tlsf_core)
	{&agb_tlsf_core, direct_tlsf, DIRECT_HEAP},
#endif
#if BENCH_WANT(BENCH_ID_agb_buddy_core)
	{&agb_buddy_core, direct_buddy, DIRECT_HEAP},
#endif
#if BENCH_WANT(BENCH_ID_agb_firstfit_core)
	{&agb_firstfit_core, direct_firstfit, DIRECT_HEAP},
#endif
#if BENCH_WANT(BENCH_ID_agb_slots_core)
	{&agb_slots_core, direct_slots, DIRECT_HEAP},
#endif
#if BENCH_WANT(BENCH_ID_agb_obj_core)
	{&agb_obj_core, direct_obj, DIRECT_BLOCK},
#endif
#if BENCH_WANT(BENCH_ID_agb_obj_fast_core)
	{&agb_obj_fast_core, direct_obj_fast, DIRECT_BLOCK},
#endif
#if BENCH_WANT(BENCH_ID_agb_oam_core)
	{&agb_oam_core, direct_oam, DIRECT_BLOCK},
#endif
#if BENCH_WANT(BENCH_ID_agb_bump_core)
	{&agb_bump_core, direct_bump, DIRECT_LINEAR},
#endif
#if BENCH_WANT(BENCH_ID_agb_stack2_core)
	{&agb_stack2_core, direct_stack2, DIRECT_LINEAR},
#endif
#if BENCH_DIRECT_TILES
	{&agb_tiles_core, direct_tiles_calls, DOP(AGB_OP_REF) | DOP(AGB_OP_UNREF) | DIRECT_UNTIMED},
#endif
#ifdef AGB_BENCH_NEWLIB
	{&AGB_BENCH_SINGLE_CORE, direct_newlib, DIRECT_HEAP},
#endif
	{NULL, NULL, 0},
};

/* This core's direct run, or NULL (no typed alloc/free in this ROM). */
static const struct direct_entry *direct_find(const struct agb_heap_core *c)
{
	for (const struct direct_entry *de = direct_entries; de->core != NULL; de++)
		if (de->core == c)
			return de;
	return NULL;
}

/* Whether the direct run serves every op of the trace. O(events). */
static int direct_serves(const struct direct_entry *de, const struct agb_trace *t)
{
	for (uint32_t i = 0; i < t->event_count; i++)
		if (t->events[i].op >= 32u || (de->ops & DOP(t->events[i].op)) == 0)
			return 0;
	return 1;
}

/* The core initialised again as the replay initialised it: the engine on no events (the same
 * placement, init and cleared slot table). Returns the engine's status. */
static int direct_reinit(struct bench *b, struct agb_replay_result *r)
{
	struct agb_trace none = b->trace;
	none.event_count = 0;
	return agb_replay_run(&none, &b->cfg, (agb_machine *)0, b->state,
			      agb_replay_workspace_bytes(&b->trace), NULL, NULL, r);
}

/* The direct run on the freshly initialised core. Its slot addresses and sprite handles take the
 * replay's slot table (free again: the replay is over; sprites are only stored by oam, whose OBJ
 * traces keep the table in EWRAM, so byte stores are safe). */
static void direct_heap(struct bench *b, const struct direct_entry *de)
{
	struct direct_run d;
	d.ev = b->trace.events;
	d.n = b->trace.event_count;
	d.nslots = b->trace.slots;
	d.slot_addr = (uint32_t *)(uintptr_t)slot_table_addr;
	d.sprites = (uint8_t *)(d.slot_addr + d.nslots);
	memset(d.slot_addr, 0, d.nslots * 4u); /* AGB_NULL */
	memset(d.sprites, (int)AGB_SPRITE_NONE, AGB_REPLAY_SPRITE_HANDLES);
	d.core = b->core;
	d.st = b->state;
	d.calls = d.failures = 0;
	agb_mark(AGB_MARK_DIRECT, 0);
	de->run(&d);
	agb_results.values[AGB_BENCH_V_DIRECT_CALLS] = d.calls;
	agb_results.values[AGB_BENCH_V_DIRECT_FAILURES] = d.failures;
}

/* Puts the slot table where neither the arena nor (if it can) the frame buffer is: EWRAM traces
 * in VRAM, beside the frame buffer when it fits, else from 0x06000000 over it (b->fb_busy: the
 * map is drawn after the replay); other traces at the top of EWRAM. BG VRAM traces own the frame
 * buffer's VRAM themselves. Returns 0, or -1 when the table fits nowhere. */
static int place_slot_table(struct bench *b, uint32_t slot_bytes)
{
	b->fb_busy = b->trace.arena == AGB_ARENA_BG_VRAM;
	if (b->trace.arena == AGB_ARENA_EWRAM) {
		uint32_t lo = b->screen ? 0x06009600u : 0x06000000u;
		if (lo + slot_bytes > 0x06018000u) {
			lo = 0x06000000u; /* the whole of VRAM: no live picture */
			b->fb_busy = 1;
		}
		if (lo + slot_bytes > 0x06018000u)
			return -1;
		slot_table_addr = lo;
		return 0;
	}
	if (slot_bytes > 0x20000u)
		return -1;
	slot_table_addr = 0x02040000u - slot_bytes;
	return 0;
}

static int names_equal(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static int magic_ok(const char *m)
{
	static const char want[8] = AGB_BIN_MAGIC;
	for (unsigned i = 0; i < 8u; i++)
		if (m[i] != want[i])
			return 0;
	return 1;
}

/* The payload's header: a packed trace this ROM can replay (AGB_BENCH_OK), or why not. A payload
 * that is not a packed trace only gets its checksum recorded (the runner's payload test). */
static int32_t bench_check_payload(const struct agb_bin_header *h, const void *payload, uint32_t len,
				   int *is_trace)
{
	*is_trace = 0;
	if (payload == NULL)
		return AGB_BENCH_NO_PAYLOAD;
	if (len >= 8u && !magic_ok(h->magic)) {
		agb_results.payload_sum = agb_fnv1a(payload, len);
		return AGB_BENCH_OK;
	}
	if (len < sizeof *h || h->version != AGB_BIN_VERSION ||
	    h->event_bytes != AGB_BIN_EVENT_BYTES || (h->events_offset & 3u) != 0 ||
	    h->events_offset + (uint64_t)h->event_count * AGB_BIN_EVENT_BYTES > len ||
	    h->arena >= AGB_ARENA_COUNT)
		return AGB_BENCH_BAD_PAYLOAD;
	*is_trace = 1;
	return AGB_BENCH_OK;
}

/* The core: by index into the table, confirmed by name (a single-core IWRAM ROM: by name). */
static const struct agb_heap_core *bench_pick_core(const struct agb_bin_header *h)
{
	uint32_t ncores = 0;
	while (bench_cores[ncores] != NULL)
		ncores++;
	if (h->core_index < ncores && names_equal(bench_cores[h->core_index]->name, h->core_name))
		return bench_cores[h->core_index];
	for (uint32_t i = 0; i < ncores; i++)
		if (names_equal(bench_cores[i]->name, h->core_name))
			return bench_cores[i];
	return NULL;
}

/* The trace and the run's configuration, as the host packed them. */
static void bench_setup(struct bench *b, const struct agb_bin_header *h, const void *payload)
{
	b->trace.arena = (enum agb_arena)h->arena;
	b->trace.arena_bytes = h->arena_bytes;
	b->trace.event_count = h->event_count;
	b->trace.slots = h->slots;
	b->trace.frame_count = h->frame_count;
	b->trace.events = (const struct agb_event *)(const void *)((const uint8_t *)payload + h->events_offset);
	b->trace.name = h->trace_name;
	b->trace.source = 0;
	b->cfg.core = b->core;
	b->cfg.arena_bytes = h->cfg_arena_bytes;
	b->cfg.meta = (enum agb_meta_region)h->cfg_meta;
	b->cfg.core_flags = h->cfg_core_flags;
	b->cfg.flags = h->cfg_flags;
	b->state = state_mem;
	b->arena_addr = agb_arena_base(b->trace.arena);
	b->arena_bytes = b->cfg.arena_bytes != 0 ? b->cfg.arena_bytes : h->arena_bytes;
	b->screen = (h->bench_flags & AGB_BENCH_SCREEN) != 0;
	/* Palette RAM traces own the palette mode 4 needs: mode 3 for them. */
	direct_colour = b->trace.arena == AGB_ARENA_PAL_RAM;
}

/* The slot table wherever the arena is not (see the top of this file), and a check that the
 * core's arena and meta area leave this program's own IWRAM and EWRAM alone. */
static int32_t bench_place_memory(struct bench *b, const struct agb_bin_header *h)
{
	extern uint8_t __bss_end[];
	uint32_t slot_bytes = ((uint32_t)agb_replay_slot_table_bytes(&b->trace) + 7u) & ~7u;
	if (place_slot_table(b, slot_bytes) != 0) {
		agb_printf("bench: no room for the replay's slot table: %lu bytes (%lu slots, the most "
			   "blocks live at once)", slot_bytes, h->slots);
		return AGB_BENCH_NO_ROOM;
	}
	if (b->trace.arena == AGB_ARENA_EWRAM && b->cfg.meta != AGB_META_EWRAM &&
	    (uint32_t)(uintptr_t)__bss_end > 0x03004000u)
		return AGB_BENCH_NO_ROOM;
	if ((uint32_t)(uintptr_t)__ewram_free_start != 0x02000000u)
		return AGB_BENCH_NO_ROOM; /* the arena or meta area would cover our own data */
	agb_results.values[AGB_BENCH_V_SLOTS_ADDR] = slot_table_addr;
	return AGB_BENCH_OK;
}

/* The screen before the replay: drawn live, or kept blank while the replay owns the VRAM the
 * frame buffer would use (the BG VRAM arena, or a large slot table). */
static void bench_screen_begin(struct bench *b, const struct agb_bin_header *h)
{
	b->live = b->screen && !b->fb_busy;
	if (b->screen) {
		if (!direct_colour)
			pal_init();
		if (b->live) {
			rect(0, 0, SCREEN_W, SCREEN_H, COL_BG);
			draw_header(b);
			screen_on();
		} else {
			AGB_REG16(AGB_REG_DISPCNT) = 0x0080u;
		}
	}
	b->draw_step = h->event_count / 16u + 1u;
	b->next_draw = b->draw_step;
}

/* What the host reads back after a successful replay: the final walk and the run's figures. */
static void bench_record(struct bench *b, const struct agb_bin_header *h,
			 const struct agb_replay_result *r)
{
	b->walk_sum = 2166136261u;
	b->core->walk(b->state, final_walk, b);
	agb_results.values[AGB_BENCH_V_EVENTS] = h->event_count;
	agb_results.values[AGB_BENCH_V_FAILURES] = r->failures;
	agb_results.values[AGB_BENCH_V_WALK_RUNS] = b->walk_runs;
	agb_results.values[AGB_BENCH_V_WALK_SUM] = b->walk_sum;
	agb_results.values[AGB_BENCH_V_FREE_BYTES] = r->final_stats.free_bytes;
	agb_results.values[AGB_BENCH_V_LARGEST_FREE] = r->final_stats.largest_free;
	agb_results.values[AGB_BENCH_V_FREE_RUNS] = r->final_stats.free_runs;
	agb_results.values[AGB_BENCH_V_OVERHEAD] = r->overhead_bytes;
#ifdef AGB_BENCH_NEWLIB
	agb_results.values[AGB_BENCH_V_HEAP_PEAK] = agb_newlib_heap_peak();
#endif
	agb_results.count = AGB_BENCH_V_COUNT;
}

/* The screen after the replay: the map and figures (first drawn now when it was kept blank). */
static void bench_screen_end(struct bench *b, const struct agb_bin_header *h,
			     const struct agb_replay_result *r)
{
	if (!b->screen)
		return;
	if (!b->live) {
		/* The replay is over: its VRAM may become the frame buffer. */
		rect(0, 0, SCREEN_W, SCREEN_H, COL_BG);
		draw_header(b);
	}
	draw_progress(b, h->event_count);
	draw_map(b);
	draw_figures(b, r, h->event_count);
	screen_on();
}

/* The direct run after the replay (AGB_BENCH_DIRECT), on the core initialised again: it must end
 * in the replay's memory map (walk hash `want`; every address is checked by the host). */
static int32_t bench_direct_after(struct bench *b, const struct direct_entry *de, uint32_t want)
{
	struct agb_replay_result r0;
	int rc = direct_reinit(b, &r0);
	if (rc != AGB_REPLAY_OK)
		return AGB_BENCH_REPLAY_FAILED + rc;
	direct_heap(b, de);
	walk_hash = 2166136261u;
	b->core->walk(b->state, hash_walk, NULL);
	if (walk_hash != want) {
		agb_printf("bench: the direct run did not end in the replay's memory map");
		return AGB_BENCH_DIRECT_DIFFERS;
	}
	return AGB_BENCH_OK;
}

/* AGB_BENCH_DIRECT_ONLY: the direct run stands in for the replay (newlib, whose state one ROM
 * run cannot reset: the host's first ROM run replayed, this second one calls directly). The
 * figures recorded are the direct run's. Returns the engine's status. */
static int bench_direct_only(struct bench *b, const struct direct_entry *de, struct agb_replay_result *r)
{
	int rc = direct_reinit(b, r);
	if (rc != AGB_REPLAY_OK)
		return rc;
	direct_heap(b, de);
	r->failures = agb_results.values[AGB_BENCH_V_DIRECT_FAILURES];
	b->core->stats(b->state, &r->final_stats);
	r->overhead_bytes = b->core->overhead_bytes(b->state);
	return AGB_REPLAY_OK;
}

static int32_t bench_run(const void *payload, uint32_t len)
{
	static struct bench b; /* IWRAM .bss */
	const struct agb_bin_header *h = payload;
	const struct direct_entry *de;
	struct agb_replay_result r;
	int is_trace, rc, direct_only;
	int32_t st = bench_check_payload(h, payload, len, &is_trace);
	if (st != AGB_BENCH_OK || !is_trace)
		return st;
	b.h = h;
	b.core = bench_pick_core(h);
	if (b.core == NULL)
		return AGB_BENCH_NO_CORE;
	bench_setup(&b, h, payload);
	st = bench_place_memory(&b, h);
	if (st != AGB_BENCH_OK)
		return st;
	bench_screen_begin(&b, h);
	de = (h->bench_flags & AGB_BENCH_DIRECT) != 0 ? direct_find(b.core) : NULL;
	if (de != NULL && !direct_serves(de, &b.trace))
		de = NULL; /* no direct run: V_DIRECT_CALLS stays 0 */
	direct_only = de != NULL && (h->bench_flags & AGB_BENCH_DIRECT_ONLY) != 0;

	agb_replay_calibrate_marks(AGB_BENCH_CALIB_PAIRS);
	if (direct_only)
		rc = bench_direct_only(&b, de, &r);
	else
		rc = agb_replay_run(&b.trace, &b.cfg, (agb_machine *)0, b.state,
				    agb_replay_workspace_bytes(&b.trace), observe, &b, &r);
	agb_results.values[AGB_BENCH_V_REPLAY_STATUS] = (uint32_t)rc;
	agb_results.values[AGB_BENCH_V_FAILED_EVENT] = r.failed_event;
	if (rc != AGB_REPLAY_OK) {
		agb_printf("bench: replay stopped: status %d at event %lu: %s", rc, r.failed_event,
			   r.why != 0 ? r.why : "");
		return AGB_BENCH_REPLAY_FAILED + rc;
	}
	bench_record(&b, h, &r);
	if (de != NULL && !direct_only) {
		st = bench_direct_after(&b, de, b.walk_sum);
		if (st != AGB_BENCH_OK)
			return st;
	}
#if BENCH_DIRECT_TILES
	if ((h->bench_flags & AGB_BENCH_DIRECT) != 0 && b.core == &agb_tiles_core &&
	    direct_tiles(&b, &r, b.walk_sum) != 0) {
		agb_printf("bench: the direct tiles run did not end in the replay's memory map");
		return AGB_BENCH_BAD_PAYLOAD;
	}
#endif
	bench_screen_end(&b, h, &r);
	agb_printf("bench: %s on %s: %lu events, %lu failures, %lu free runs, walk %08lx",
		   b.core->name, agb_arena_name(b.trace.arena), h->event_count, r.failures,
		   b.walk_runs, b.walk_sum);
	return AGB_BENCH_OK;
}

int main(void)
{
	uint32_t len;
	const void *payload;
	int32_t status;
	agb_init();
	payload = agb_payload(&len);
	if (payload != 0) {
		agb_results.payload_len = len;
	}
	status = bench_run(payload, len);
	agb_mark(AGB_MARK_DONE, (uint32_t)status);
	agb_done(status);
	agb_halt();
}
