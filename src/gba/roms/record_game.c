/* record_game.c — agbsim-record-game.gba, the test ROM of `agbsim record` (issue 18).
 *
 * A small game the way a GBA developer writes one, with newlib's malloc as shipped (the full
 * libc.a: Doug Lea's malloc, whose realloc and calloc call _malloc_r and _free_r inside): a title
 * screen that waits for START, then GAME_FRAMES frames of entities spawned and freed on the heap,
 * their sprites of several sizes and depths in OAM (graphics blocks from the ROM's own OBJ VRAM
 * manager), a HUD on an 8bpp BG and a level on a 4bpp BG that scrolls, streamed by column; then
 * everything is freed and the game idles.
 *
 * Its own log is the ground truth the recording is compared with (tests/gba/record_check.py):
 * every allocator call with its arguments and result, every graphics block its manager hands out
 * or takes back, every screen-map cell that comes into or leaves the view, and a frame line
 * before each VBlank wait. Lines start with "rec ".
 *
 * Timing contract with the recorder, checked by the ROM ("rec overrun" otherwise): the hardware
 * writes of a frame (OAM, scroll, map, DISPCNT) happen after the VBlank wakes the ROM and before
 * line 0, where the recorder samples the video state; the heap calls come next and end before
 * the next VBlank, where the recorder puts the frame event. The log of the VRAM changes comes
 * last: a whole screen of cells takes more than the rest of a frame, which is harmless there. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

void *memalign(size_t align, size_t size); /* newlib has it in <malloc.h>, not with -std=c11 */

#include "agb_gba.h"

#define GAME_FRAMES  150u
#define MAX_ENTITIES 40u
#define MAX_BLOCKS   64u
#define MAX_BULLETS  24u

#define REG_DISPCNT  0x04000000u
#define REG_DISPSTAT 0x04000004u
#define REG_VCOUNT   0x04000006u
#define REG_IF       0x04000202u
#define REG_BG0CNT   0x04000008u
#define REG_BG1CNT   0x0400000Au
#define REG_BG0HOFS  0x04000010u
#define REG_BG0VOFS  0x04000012u
#define REG_KEYINPUT 0x04000130u
#define KEY_START    0x0008u
#define VRAM         0x06000000u
#define OBJ_VRAM     0x06010000u
#define OAM          0x07000000u
#define PALRAM       0x05000000u

#define BG0_TILES 24u /* 4bpp level tiles at charblock 0 (tile 0 is transparent) */
#define BG0_MAP   (VRAM + 28u * 2048u)
#define BG1_CHAR  (VRAM + 1u * 16384u) /* 8bpp HUD tiles at charblock 1 */
#define BG1_MAP   (VRAM + 29u * 2048u)
#define BG0_VOFS  4u /* rows 0..20 visible: a partly shown last row */
#define VIEW_ROWS 21u
#define HUD_COLS  30u

/* ---- the log ------------------------------------------------------------------------------ */
#define LOG agb_printf

/* ---- newlib's memory source: EWRAM after the image --------------------------------------- */
void *_sbrk(ptrdiff_t incr);
static uint32_t brk_now;

void *_sbrk(ptrdiff_t incr)
{
	uint32_t old = brk_now ? brk_now : (uint32_t)(uintptr_t)__ewram_free_start;
	uint32_t limit = (uint32_t)(uintptr_t)AGB_EWRAM_END;
	if (incr >= 0 ? (uint32_t)incr > limit - old : (uint32_t)-incr > old - 0x02000000u)
		return (void *)-1;
	brk_now = old + (uint32_t)incr;
	return (void *)(uintptr_t)old;
}

/* The allocator calls, each logged with its result. */
static uint32_t a32(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

static void *g_malloc(size_t n)
{
	void *p = malloc(n);
	LOG("rec malloc %u %x", (unsigned)n, (unsigned)a32(p));
	return p;
}

static void *g_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	LOG("rec calloc %u %u %x", (unsigned)n, (unsigned)size, (unsigned)a32(p));
	return p;
}

static void *g_realloc(void *old, size_t n)
{
	void *p = realloc(old, n);
	LOG("rec realloc %x %u %x", (unsigned)a32(old), (unsigned)n, (unsigned)a32(p));
	return p;
}

static void *g_memalign(size_t align, size_t n)
{
	void *p = memalign(align, n);
	LOG("rec memalign %u %u %x", (unsigned)align, (unsigned)n, (unsigned)a32(p));
	return p;
}

static void g_free(void *p)
{
	free(p);
	LOG("rec free %x", (unsigned)a32(p));
}

/* ---- randomness --------------------------------------------------------------------------- */
static uint32_t rng = 0x1234567u;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng % n;
}

/* ---- tiles and their hashes --------------------------------------------------------------- */
/* FNV-1a, 64 bits, over a tile's bytes as stored in VRAM: what the recorder names a tile by. */
static uint64_t fnv64(volatile const uint8_t *p, uint32_t n)
{
	uint64_t h = 0xCBF29CE484222325ull;
	for (uint32_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001B3ull;
	}
	return h;
}

static void log_tile(const char *layer, uint32_t t, volatile const uint8_t *p, uint32_t n)
{
	uint64_t h = fnv64(p, n);
	LOG("rec tile %s %u %08x%08x", layer, (unsigned)t, (unsigned)(h >> 32), (unsigned)h);
}

/* Level tiles: tile t's rows are a pattern of t; tiles 7 and 15 repeat tiles 3 and 9 (the same
 * graphics at another index: one tile for the recorder). Tile 0 stays transparent. */
static uint32_t bg0_row(uint32_t t, uint32_t row)
{
	uint32_t c = t == 7u ? 3u : t == 15u ? 9u : t;
	return (((c % 15u) + 1u) * 0x11111111u) ^ (row * 0x01010101u * (c & 3u));
}

static void make_graphics(void)
{
	volatile uint32_t *bg0 = (volatile uint32_t *)(uintptr_t)VRAM;
	volatile uint32_t *bg1 = (volatile uint32_t *)(uintptr_t)BG1_CHAR;
	volatile uint16_t *pal = (volatile uint16_t *)(uintptr_t)PALRAM;
	for (uint32_t t = 1; t < BG0_TILES; t++)
		for (uint32_t r = 0; r < 8u; r++)
			bg0[t * 8u + r] = bg0_row(t, r);
	for (uint32_t t = 1; t < 4u; t++) /* 8bpp HUD tiles 1..3, 64 bytes each; 0 transparent */
		for (uint32_t w = 0; w < 16u; w++)
			bg1[t * 16u + w] = (t + 1u) * 0x01010101u + w;
	for (uint32_t i = 1; i < 256u; i++) {
		pal[i] = (uint16_t)(i * 0x0421u);
		pal[256u + i] = (uint16_t)(0x7C00u | i);
	}
}

/* Logs the next few tiles' hashes; returns 1 once all are logged. A few a frame: logging them
 * all at once would make the frame late. */
static int log_tiles(void)
{
	static uint32_t next;
	for (uint32_t i = 0; i < 4u && next < BG0_TILES + 4u; i++, next++) {
		if (next < BG0_TILES)
			log_tile("bg0", next,
			         (volatile const uint8_t *)(uintptr_t)(VRAM + next * 32u), 32u);
		else
			log_tile("bg1", next - BG0_TILES,
			         (volatile const uint8_t *)(uintptr_t)(BG1_CHAR +
			                                               (next - BG0_TILES) * 64u),
			         64u);
	}
	return next == BG0_TILES + 4u;
}

/* The level: ground rows of many tiles, sky with sparse clouds. Multiply-shift instead of %: no
 * division (a libgcc call) in the per-cell code, which runs for a whole screen at the start. */
static uint32_t level_tile(uint32_t col, uint32_t row)
{
	uint32_t h = (col * 2654435761u) ^ (row * 40503u);
	if (row >= 16u)
		return 1u + ((((h >> 11) & 0xFFFFu) * (BG0_TILES - 1u)) >> 16);
	return (((h >> 9) & 0xFFFFu) * 5u) >> 16 == 0 ? 1u + ((h >> 13) & 15u) : 0u;
}

static uint32_t hud_tile(uint32_t col)
{
	return col < 6u ? 1u : col >= 24u ? 2u + (col & 1u) : 0u;
}

/* ---- OBJ VRAM: the game's own graphics-block manager (first fit, 1D mapping) --------------- */
enum block_state { B_FREE, B_NEW, B_LIVE, B_DYING };
struct block {
	uint16_t tile, n; /* first tile index, tile indices used */
	uint8_t bpp8, state;
	uint16_t users;
};
static struct block blocks[MAX_BLOCKS];
static uint32_t tile_used[1024u / 32u];

static int tiles_free(uint32_t t, uint32_t n)
{
	for (uint32_t i = t; i < t + n; i++)
		if (tile_used[i / 32u] & (1u << (i % 32u)))
			return 0;
	return 1;
}

static void tiles_mark(uint32_t t, uint32_t n, int used)
{
	for (uint32_t i = t; i < t + n; i++) {
		if (used)
			tile_used[i / 32u] |= 1u << (i % 32u);
		else
			tile_used[i / 32u] &= ~(1u << (i % 32u));
	}
}

/* A block of n tile indices at a multiple of `align` indices, or -1. Tiles of blocks freed this
 * frame stay taken until the next commit: a block freed and another allocated at the same tiles
 * in one frame would look to OAM like one block never released. */
static int block_alloc(uint32_t n, uint32_t bpp8, uint32_t align)
{
	for (uint32_t b = 0; b < MAX_BLOCKS; b++) {
		if (blocks[b].state != B_FREE)
			continue;
		for (uint32_t t = 0; t + n <= 1024u; t += align)
			if (tiles_free(t, n)) {
				tiles_mark(t, n, 1);
				blocks[b] = (struct block){(uint16_t)t, (uint16_t)n, (uint8_t)bpp8,
				                           B_NEW, 1};
				return (int)b;
			}
		return -1;
	}
	return -1;
}

/* Drops a user; the last one's block goes at the next commit (at once if never shown). */
static void block_release(int b)
{
	if (b < 0 || --blocks[b].users != 0)
		return;
	if (blocks[b].state == B_NEW) {
		tiles_mark(blocks[b].tile, blocks[b].n, 0);
		blocks[b].state = B_FREE;
	} else {
		blocks[b].state = B_DYING;
	}
}

/* ---- entities and sprites ----------------------------------------------------------------- */
struct kind {
	uint16_t attr0, attr1, n;
	uint8_t bpp8;
};
/* 8x8, 16x16, 32x32, 32x16, 64x64 at 4bpp; 16x16 at 8bpp (attr0 bit 13, 8 tile indices). */
static const struct kind kinds[6] = {
        {0x0000u, 0x0000u, 1u, 0}, {0x0000u, 0x4000u, 4u, 0},  {0x0000u, 0x8000u, 16u, 0},
        {0x4000u, 0x8000u, 8u, 0}, {0x0000u, 0xC000u, 64u, 0}, {0x2000u, 0x4000u, 8u, 1},
};

struct entity {
	int16_t x, y, vx, vy;
	uint16_t life;
	uint8_t kind;
	int8_t block;
	uint32_t *path; /* AI scratch (calloc), may be NULL */
	uint8_t payload[];
};

static struct entity **ents;
static uint32_t nents, cap_ents;
struct bullet {
	int16_t x, y;
	uint16_t life;
};
static struct bullet bullets[MAX_BULLETS];
static uint32_t nbullets;
static int bullet_block = -1;
static void *scratch, *level_state, *dma_buf;

static uint16_t shadow_oam[128u * 4u];
static int oam_dirty = 1;

static void build_oam(void)
{
	uint32_t s = 0;
	oam_dirty = 1;
	for (uint32_t i = 0; i < 128u; i++)
		shadow_oam[i * 4u] = 0x0200u; /* hidden */
	for (uint32_t i = 0; i < nents && s < 128u; i++, s++) {
		const struct entity *e = ents[i];
		const struct kind *k = &kinds[e->kind];
		shadow_oam[s * 4u] = (uint16_t)(k->attr0 | ((uint16_t)e->y & 0xFFu));
		shadow_oam[s * 4u + 1u] = (uint16_t)(k->attr1 | ((uint16_t)e->x & 0x1FFu));
		shadow_oam[s * 4u + 2u] = blocks[e->block].tile;
	}
	for (uint32_t i = 0; i < nbullets && s < 128u; i++, s++) {
		shadow_oam[s * 4u] = (uint16_t)((uint16_t)bullets[i].y & 0xFFu);
		shadow_oam[s * 4u + 1u] = (uint16_t)((uint16_t)bullets[i].x & 0x1FFu);
		shadow_oam[s * 4u + 2u] = blocks[bullet_block].tile;
	}
}

static void fill_block(int b, uint32_t colour)
{
	volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)(OBJ_VRAM + blocks[b].tile * 32u);
	for (uint32_t i = 0; i < blocks[b].n * 8u; i++)
		p[i] = colour * 0x11111111u;
}

static void spawn(void)
{
	uint32_t k = rnd(6), extra = rnd(200);
	const struct kind *kd = &kinds[k];
	if (nents == MAX_ENTITIES)
		return;
	struct entity *e = g_malloc(sizeof *e + extra);
	if (e == NULL)
		return;
	e->block = (int8_t)block_alloc(kd->n, kd->bpp8, kd->bpp8 ? 2u : 1u);
	if (e->block < 0) {
		g_free(e);
		return;
	}
	fill_block(e->block, 1u + rnd(15));
	e->kind = (uint8_t)k;
	e->x = (int16_t)rnd(200);
	e->y = (int16_t)(8u + rnd(120));
	e->vx = (int16_t)(rnd(3) - 1u);
	e->vy = (int16_t)(rnd(3) - 1u);
	e->life = (uint16_t)(10u + rnd(90));
	e->path = rnd(3) == 0 ? g_calloc(4u + rnd(20), 4u) : NULL;
	if (nents == cap_ents) { /* the table grows: realloc */
		uint32_t cap = cap_ents ? cap_ents * 2u : 4u;
		struct entity **grown = g_realloc(ents, cap * sizeof *grown);
		if (grown == NULL) {
			block_release(e->block);
			g_free(e->path);
			g_free(e);
			return;
		}
		ents = grown;
		cap_ents = cap;
	}
	ents[nents++] = e;
}

static void despawn(uint32_t i)
{
	struct entity *e = ents[i];
	block_release(e->block);
	g_free(e->path); /* may be NULL: free(NULL) is a call too, and not an event */
	g_free(e);
	ents[i] = ents[--nents];
}

/* Bullets share one 8x8 block: allocated with the first bullet, released with the last. */
static void fire(void)
{
	if (bullet_block < 0) {
		bullet_block = block_alloc(1u, 0, 1u);
		if (bullet_block < 0)
			return;
		fill_block(bullet_block, 14u);
	}
	for (uint32_t n = 0; n < 3u && nbullets < MAX_BULLETS; n++)
		bullets[nbullets++] = (struct bullet){(int16_t)rnd(230), (int16_t)rnd(150),
		                                      (uint16_t)(5u + rnd(20))};
}

static void update_world(void)
{
	for (uint32_t i = 0; i < nents;) {
		struct entity *e = ents[i];
		if (--e->life == 0) {
			despawn(i);
			continue;
		}
		e->x = (int16_t)((e->x + e->vx) & 0x1FF);
		e->y = (int16_t)((e->y + e->vy) & 0xFF);
		i++;
	}
	for (uint32_t i = 0; i < nbullets;) {
		if (--bullets[i].life == 0) {
			bullets[i] = bullets[--nbullets];
			continue;
		}
		bullets[i].x = (int16_t)(bullets[i].x + 3);
		i++;
	}
	if (nbullets == 0 && bullet_block >= 0) {
		block_release(bullet_block); /* its index may serve another block from now on */
		bullet_block = -1;
	}
}

/* ---- the view: what the BG layers show ---------------------------------------------------- */
struct view {
	uint32_t on, cam; /* BGs enabled; BG0 horizontal scroll */
};
static struct view shown, wanted;

static int view_has(const struct view *v, uint32_t col)
{
	return v->on && col >= v->cam / 8u && col <= (v->cam + 239u) / 8u;
}

/* The level column of map column m (0..31) in view v, or -1. */
static int32_t view_col(const struct view *v, uint32_t m)
{
	uint32_t first = v->cam / 8u;
	uint32_t col = first + ((m + 32u - first % 32u) % 32u);
	return view_has(v, col) ? (int32_t)col : -1;
}

/* Logs the screen-map cells whose tile changes from view `a` to view `b`, packed, in the
 * recorder's order (BG0 by map index, then the HUD): one "NEW:OLD" token per cell, ROM tile
 * numbers, '-' for a cell out of view. */
struct packer {
	char line[256];
	uint32_t len, count;
};

static void pack_flush(struct packer *p)
{
	if (p->count) {
		p->line[p->len] = '\0';
		agb_debug_puts(AGB_LOG_INFO, p->line);
	}
	p->len = 0;
	p->count = 0;
}

static void pack_num(struct packer *p, int32_t v)
{
	if (v < 0) {
		p->line[p->len++] = '-';
		return;
	}
	int32_t tens = v >= 20 ? 2 : v >= 10 ? 1 : 0; /* tiles < 30: no division */
	if (tens)
		p->line[p->len++] = (char)('0' + tens);
	p->line[p->len++] = (char)('0' + v - 10 * tens);
}

static void pack_cell(struct packer *p, const char *head, int32_t now, int32_t was)
{
	if (p->count == 0)
		for (const char *s = head; *s; s++)
			p->line[p->len++] = *s;
	p->line[p->len++] = ' ';
	pack_num(p, now);
	p->line[p->len++] = ':';
	pack_num(p, was);
	if (++p->count == 40u)
		pack_flush(p);
}

static void log_cells(const struct view *was, const struct view *now)
{
	struct packer p = {.len = 0};
	int32_t cn[32], co[32];
	for (uint32_t m = 0; m < 32u; m++) { /* the level column at each map column, or -1 */
		cn[m] = view_col(now, m);
		co[m] = view_col(was, m);
	}
	for (uint32_t r = 0; r < VIEW_ROWS; r++)
		for (uint32_t m = 0; m < 32u; m++)
			if (cn[m] != co[m])
				pack_cell(&p, "rec bg 0 4",
				          cn[m] < 0 ? -1 : (int32_t)level_tile((uint32_t)cn[m], r),
				          co[m] < 0 ? -1 : (int32_t)level_tile((uint32_t)co[m], r));
	pack_flush(&p);
	for (uint32_t c = 0; was->on != now->on && c < HUD_COLS; c++)
		pack_cell(&p, "rec bg 1 8", now->on ? (int32_t)hud_tile(c) : -1,
		          was->on ? (int32_t)hud_tile(c) : -1);
	pack_flush(&p);
}

static void write_column(uint32_t col)
{
	volatile uint16_t *map = (volatile uint16_t *)(uintptr_t)BG0_MAP;
	for (uint32_t r = 0; r < VIEW_ROWS; r++)
		map[r * 32u + col % 32u] = (uint16_t)level_tile(col, r);
}

/* ---- commit: the hardware writes of a VBlank ---------------------------------------------- */
/* The blocks in `state`, by tile (insertion sort: a handful a frame). Returns how many. */
static uint32_t blocks_in(uint8_t state, uint8_t *out)
{
	uint32_t n = 0;
	for (uint32_t b = 0; b < MAX_BLOCKS; b++) {
		if (blocks[b].state != state)
			continue;
		uint32_t i = n++;
		for (; i > 0 && blocks[out[i - 1u]].tile > blocks[b].tile; i--)
			out[i] = out[i - 1u];
		out[i] = (uint8_t)b;
	}
	return n;
}

/* What the last commit changed, logged after the frame's heap calls (log_commit). */
static struct block gone[MAX_BLOCKS], came[MAX_BLOCKS];
static uint32_t ngone, ncame;
static struct view logged;

/* The blocks whose sprites left OAM (freed now) and those whose sprites entered it. */
static void take_blocks(void)
{
	uint8_t idx[MAX_BLOCKS];
	ngone = blocks_in(B_DYING, idx); /* frees, then allocations, each by tile */
	for (uint32_t i = 0; i < ngone; i++) {
		struct block *k = &blocks[idx[i]];
		gone[i] = *k;
		tiles_mark(k->tile, k->n, 0);
		k->state = B_FREE;
	}
	ncame = blocks_in(B_NEW, idx);
	for (uint32_t i = 0; i < ncame; i++) {
		came[i] = blocks[idx[i]];
		blocks[idx[i]].state = B_LIVE;
	}
}

/* The log of the last commit: slow for a whole screen, so it comes after the frame's heap calls
 * and may run into the next VBlank (that frame's events are all recorded by then). */
static void log_commit(void)
{
	for (uint32_t i = 0; i < ngone; i++)
		LOG("rec obj free %u", (unsigned)gone[i].tile);
	for (uint32_t i = 0; i < ncame; i++)
		LOG("rec obj alloc %u %u %u", (unsigned)came[i].tile, (unsigned)came[i].n,
		    came[i].bpp8 ? 8u : 4u);
	log_cells(&logged, &shown);
	logged = shown;
	ngone = ncame = 0;
}

/* Returns 1 when it changed what the screen shows (the recorder must see it at line 0). */
static int commit(void)
{
	volatile uint16_t *oam = (volatile uint16_t *)(uintptr_t)OAM;
	int changed = oam_dirty || shown.on != wanted.on || shown.cam != wanted.cam;
	if (oam_dirty)
		for (uint32_t i = 0; i < 128u * 4u; i++)
			oam[i] = shadow_oam[i];
	oam_dirty = 0;
	if (wanted.on)
		for (uint32_t c = wanted.cam / 8u; c <= (wanted.cam + 239u) / 8u; c++)
			if (!view_has(&shown, c))
				write_column(c);
	AGB_REG16(REG_BG0HOFS) = (uint16_t)wanted.cam;
	AGB_REG16(REG_BG0VOFS) = BG0_VOFS;
	AGB_REG16(REG_DISPCNT) = (uint16_t)((1u << 6) | (1u << 12) | (wanted.on ? 3u << 8 : 0u));
	take_blocks();
	shown = wanted;
	return changed;
}

/* ---- the game ----------------------------------------------------------------------------- */
static void game_start(void)
{
	volatile uint16_t *hud = (volatile uint16_t *)(uintptr_t)BG1_MAP;
	level_state = g_calloc(1u, 300u);
	dma_buf = g_memalign(32u, 200u);
	for (uint32_t c = 0; c < HUD_COLS; c++)
		hud[c] = (uint16_t)hud_tile(c);
	wanted.on = 1;
	wanted.cam = 0;
}

static void game_frame(uint32_t f)
{
	update_world();
	if (rnd(3) != 0)
		spawn();
	if (rnd(2) == 0)
		spawn();
	if (f % 23u == 5u)
		fire();
	if (f % 16u == 0)
		scratch = g_realloc(scratch, 64u + rnd(3000)); /* realloc(NULL, n) the first time */
	if (f == 40u)
		g_free(NULL);
	wanted.cam += 2u;
	build_oam();
}

static void game_end(void)
{
	while (nents)
		despawn(0);
	nbullets = 0;
	update_world();
	g_free(ents);
	g_free(scratch);
	g_free(dma_buf);
	g_free(level_state);
	ents = NULL;
	cap_ents = 0;
	wanted.on = 0;
	build_oam();
}

/* VBlanks are counted by the interrupt flag (DISPSTAT's VBlank IRQ on, IME off): each one is
 * seen once, however late the wait starts. */
static void wait_vblank(void)
{
	while ((AGB_REG16(REG_IF) & 1u) == 0)
		;
	AGB_REG16(REG_IF) = 1u;
}

int main(void)
{
	uint32_t frame = 0, started = 0;
	AGB_REG16(REG_DISPSTAT) = 1u << 3; /* first: VBlanks from here on set IF */
	AGB_REG16(REG_IF) = 1u;
	agb_init();
	agb_set_waitcnt(AGB_WAITCNT_GAME);
	for (uint32_t i = 0; i < 128u; i++)
		shadow_oam[i * 4u] = 0x0200u;
	(void)commit(); /* every sprite hidden before the first frame */
	AGB_REG16(REG_BG0CNT) = (uint16_t)((28u << 8) | 1u); /* 4bpp, map 28, prio 1 */
	AGB_REG16(REG_BG1CNT) = (uint16_t)((29u << 8) | (1u << 7) | (1u << 2)); /* 8bpp, char 1 */
	make_graphics();
	if (AGB_REG16(REG_IF) & 1u) { /* mGBA starts at line 126: boot can outlast VBlank 0 */
		LOG("rec frame");
		AGB_REG16(REG_IF) = 1u;
	}
	for (;;) {
		LOG("rec frame");
		wait_vblank();
		if (commit() && AGB_REG16(REG_VCOUNT) < 160u) /* the recorder samples at line 0 */
			LOG("rec overrun: commit after line 0");
		if (!started) {
			if (log_tiles() && (AGB_REG16(REG_KEYINPUT) & KEY_START) == 0) {
				started = 1;
				game_start();
			}
		} else if (frame < GAME_FRAMES) {
			game_frame(frame);
			if (++frame == GAME_FRAMES)
				game_end();
		}
		if (AGB_REG16(REG_IF) & 1u) /* they would belong to the next frame */
			LOG("rec overrun: heap calls after the next VBlank");
		log_commit();
	}
}
