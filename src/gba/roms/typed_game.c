/* typed_game.c — a small game-shaped program on the cores' typed API (docs/using-agbmem.md):
 * an EWRAM heap for entities, OBJ VRAM blocks and a shadow OAM for their sprites, the BG tile manager for a scrolling level. It runs GAME_FRAMES frames of
 * spawning, moving and freeing entities while the camera scrolls, then tears everything down,
 * checks every core's invariants (unless built with AGB_NO_DIAGNOSTICS) and reports figures.
 *
 * The memory managers are used through their public headers (include/agb/) only. What is not
 * agbmem is the test harness: src/gba's crt0 and runtime (agb_gba.h) for the debug print, the
 * cycle timer and the results block the test reads (tests/gba/CMakeLists.txt, gba_example_game*);
 * a devkitARM game has its own crt0 and mgba_printf instead.
 *
 * Build (src/gba/cross/CMakeLists.txt, agbmem-game*): -DAGB_TARGET_GBA=1, linked with
 * libagbmem.a (cores as Thumb in ROM) or libagbmem_iwram.a (ARM in IWRAM). -DGAME_HEAP=tree|tlsf|bestfit picks the
 * EWRAM heap. Exit: status 0 and "game: pass" on the debug print, else status 1 and the reason. */
#include <stdint.h>

#include "agb/bestfit.h"
#include "agb/oam.h"
#include "agb/ptr.h"
#include "agb/regions.h"
#include "agb/tiles.h"
#include "agb/tlsf.h"
#include "agb/tree.h"

#include "agb_gba.h" /* test harness only: debug print, timer, results block */

/* ---- the EWRAM heap: one name to change (docs/using-agbmem.md, "Which heap") --------------- */
#ifndef GAME_HEAP
#define GAME_HEAP bestfit
#endif
#define GAME_CAT2(a, b) a##b
#define GAME_CAT(a, b) GAME_CAT2(a, b)
#define HEAP_FN(verb) GAME_CAT(GAME_CAT(agb_, GAME_HEAP), _##verb)
typedef GAME_CAT(agb_, GAME_HEAP) game_heap;
#define GAME_STR2(x) #x
#define GAME_STR(x) GAME_STR2(x)

#define GAME_FRAMES 300u
#define GAME_HEAP_BYTES (24u * 1024u) /* what `agbsim bench --pool` would be asked about */
/* The heap's meta area: AGB_TLSF_META_BYTES(GAME_HEAP_BYTES) (control and starts bitmap, 1 248)
 * and AGB_BESTFIT_META_BYTES fit. */
#define GAME_HEAP_META_BYTES 1280u
#define MAX_ENTITIES 48u
#define ROM_TILES 512u  /* ROM tile numbers per depth the level uses (tiles' metadata: 4 N) */
#define LEVEL_ROWS 20u  /* visible rows */
#define VIEW_COLS 31u   /* visible columns + the one scrolling in */

/* Registers (a game has them from its own header, e.g. libtonc's). */
#define REG_DISPCNT 0x04000000u
#define REG_VCOUNT 0x04000006u
#define REG_BG0CNT 0x04000008u
#define REG_BG0HOFS 0x04000010u
#define REG_WAITCNT 0x04000204u
#define WAITCNT_GAME 0x4317u /* ROM 3/1 wait states + prefetch: every game should set it */

/* ---- memory the game reserves ------------------------------------------------------------- */
#define EWRAM_BSS __attribute__((section(".ewram_bss"), aligned(8)))
static uint8_t heap_pool[GAME_HEAP_BYTES] EWRAM_BSS;
static uint32_t heap_meta[GAME_HEAP_META_BYTES / 4u]; /* IWRAM: 1-cycle control accesses */
_Static_assert(GAME_HEAP_META_BYTES >= AGB_TLSF_META_BYTES(GAME_HEAP_BYTES) &&
		       GAME_HEAP_META_BYTES >= AGB_BESTFIT_META_BYTES,
	       "the heap's meta area holds tlsf's and bestfit's bookkeeping");
static uint32_t oam_meta[(AGB_OAM_META_BYTES + AGB_OBJ_FAST_META_BYTES(1024u) + 3u) / 4u];
static uint32_t tiles_meta[(AGB_TILES_META_BYTES(1792u, ROM_TILES) + 3u) / 4u] EWRAM_BSS;
static uint32_t tile_set[ROM_TILES * 8u] EWRAM_BSS; /* the level's 4bpp tiles (in ROM in a game) */

/* The cores' state: a few words each, IWRAM globals. */
static game_heap heap;
static agb_oam oam;
static agb_tiles tiles;

/* An entity lives in the heap; the game keeps only the addresses. */
struct entity {
	uint32_t gfx;  /* OBJ VRAM block */
	uint32_t path; /* heap block of AI scratch (may be AGB_NULL) */
	int16_t x, y, vx, vy;
	uint16_t life, slot;
	uint16_t attr0, attr1;
	uint16_t self_bytes, path_bytes; /* granted sizes: the game's own accounting */
};
static uint32_t live[MAX_ENTITIES];
static uint32_t nlive;
static uint32_t scratch; /* one buffer resized now and then (realloc) */

struct figures {
	uint32_t spawned, despawned, heap_fail, gfx_fail, oam_fail, reallocs, realloc_fail;
	uint32_t uploads, tile_fail, peak_heap_live, heap_live;
	uint32_t alloc_n, alloc_sum, alloc_max, free_n, free_sum, free_max;
	uint32_t ref_max, copy_max;
};
static struct figures fig;
static uint32_t rng = 0x2545F491u;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng % n;
}

static uint32_t addr_of(const void *p)
{
	return AGB_ADDR(NULL, p);
}

/* ---- timed heap calls --------------------------------------------------------------------- */
static uint32_t heap_alloc(uint32_t size, uint32_t *granted_out)
{
	uint32_t granted = 0, a, c;
	agb_cycles_begin();
	a = HEAP_FN(alloc)(&heap, size, 4u, &granted);
	c = agb_cycles_end();
	fig.alloc_n++;
	fig.alloc_sum += c;
	fig.alloc_max = c > fig.alloc_max ? c : fig.alloc_max;
	if (a == AGB_NULL) {
		fig.heap_fail++;
		return AGB_NULL;
	}
	*granted_out = granted;
	fig.heap_live += granted;
	fig.peak_heap_live = fig.heap_live > fig.peak_heap_live ? fig.heap_live : fig.peak_heap_live;
	return a;
}

static void heap_free(uint32_t a, uint32_t granted)
{
	uint32_t c;
	if (a == AGB_NULL)
		return;
	agb_cycles_begin();
	HEAP_FN(free)(&heap, a);
	c = agb_cycles_end();
	fig.free_n++;
	fig.free_sum += c;
	fig.free_max = c > fig.free_max ? c : fig.free_max;
	fig.heap_live -= granted;
}

/* ---- start-up ----------------------------------------------------------------------------- */
static int init_cores(void)
{
	struct agb_heap_config hc = {addr_of(heap_pool), GAME_HEAP_BYTES, addr_of(heap_meta),
				     GAME_HEAP_META_BYTES, 0};
	struct agb_heap_config oc = {AGB_MEM_VRAM_OBJ, AGB_VRAM_OBJ_SIZE, addr_of(oam_meta),
	                             sizeof oam_meta, 0};
	struct agb_heap_config tc = {AGB_MEM_VRAM_BG, AGB_VRAM_BG_SIZE, addr_of(tiles_meta),
	                             sizeof tiles_meta, AGB_TILES_FLAG_ROM_TILES(ROM_TILES)};
	int rc;
	/* The machine argument is NULL on the GBA: the bus is the machine. */
	if ((rc = HEAP_FN(init)(&heap, NULL, &hc)) != AGB_HEAP_OK)
		return agb_printf("game: heap init failed: %d", rc), 1;
	if ((rc = agb_oam_init(&oam, NULL, &oc)) != AGB_HEAP_OK)
		return agb_printf("game: oam init failed: %d", rc), 1;
	if ((rc = agb_tiles_init(&tiles, NULL, &tc)) != AGB_HEAP_OK)
		return agb_printf("game: tiles init failed: %d", rc), 1;
	agb_tiles_set_rom(&tiles, addr_of(tile_set), addr_of(tile_set));
	return 0;
}

static void make_tiles_and_palettes(void)
{
	volatile uint16_t *pal = AGB_PTR_N(NULL, volatile uint16_t, AGB_MEM_PAL, AGB_PAL_SIZE);
	for (uint32_t t = 0; t < ROM_TILES; t++)
		for (uint32_t w = 0; w < 8u; w++) /* row w: colour (t % 15) + 1, a notch per row */
			tile_set[t * 8u + w] = ((t % 15u) + 1u) * (w & 1u ? 0x11111110u : 0x01111111u);
	for (uint32_t i = 1; i < 16u; i++) {
		pal[i] = (uint16_t)((i * 2u) | ((31u - i * 2u) << 5) | ((i & 3u) << 12)); /* BG */
		pal[256u + i] = (uint16_t)(0x7C00u | (i * 2u));                           /* OBJ */
	}
}

/* ---- the scrolling level (BG0, tiles streamed by column) ---------------------------------- */
static uint32_t level_tile(uint32_t col, uint32_t row)
{
	uint32_t h = (col / 2u) * 2654435761u ^ row * 40503u;
	if (row >= 15u)
		return 1u + (h >> 7) % 96u; /* ground: many distinct tiles */
	return (h >> 9) % 7u == 0 ? 100u + (h >> 13) % 200u : 0u; /* sky: sparse clouds */
}

static volatile uint16_t *screen_cell(uint32_t col, uint32_t row)
{
	return AGB_PTR(NULL, volatile uint16_t, tiles.maps_addr + 2u * (row * 32u + (col & 31u)));
}

static void stream_in(uint32_t col)
{
	for (uint32_t row = 0; row < LEVEL_ROWS; row++) {
		uint32_t detail, b, c;
		agb_cycles_begin();
		b = agb_tiles_ref(&tiles, level_tile(col, row), 4u, &detail);
		c = agb_cycles_end();
		fig.ref_max = c > fig.ref_max ? c : fig.ref_max;
		if (b == AGB_TILES_NO_ROOM || b == AGB_TILES_BAD_TILE) {
			fig.tile_fail++;
			b = 0; /* show the transparent tile: the cell owns no reference */
		}
		fig.uploads += detail == AGB_VERB_UPLOADED;
		*screen_cell(col, row) = (uint16_t)b; /* 4bpp: the entry is the block */
	}
}

static void stream_out(uint32_t col)
{
	for (uint32_t row = 0; row < LEVEL_ROWS; row++) {
		volatile uint16_t *cell = screen_cell(col, row);
		agb_tiles_unref_block(&tiles, *cell & 0x3FFu, 4u); /* blocks 0-1 are ignored */
		*cell = 0;
	}
}

/* ---- entities ----------------------------------------------------------------------------- */
static const uint16_t sprite_bytes[4] = {32u, 128u, 512u, 256u}; /* 8x8 16x16 32x32 32x16 */
static const uint16_t sprite_attr0[4] = {0x0000u, 0x0000u, 0x0000u, 0x4000u}; /* shape */
static const uint16_t sprite_attr1[4] = {0x0000u, 0x4000u, 0x8000u, 0x8000u}; /* size */

static void fill_gfx(uint32_t gfx, uint32_t bytes, uint32_t colour)
{
	volatile uint32_t *p = AGB_PTR_N(NULL, volatile uint32_t, gfx, bytes);
	for (uint32_t i = 0; i < bytes / 4u; i++) /* 32-bit stores: VRAM drops byte stores */
		p[i] = colour * 0x11111111u;
}

static void spawn(void)
{
	uint32_t kind = rnd(4), extra = rnd(4) == 0 ? 64u + rnd(700) : 0u;
	uint32_t self = 0, path = 0, granted;
	uint32_t a = heap_alloc(sizeof(struct entity) + rnd(96), &self);
	struct entity *e = AGB_PTR(NULL, struct entity, a);
	if (e == NULL)
		return;
	e->gfx = agb_oam_alloc(&oam, sprite_bytes[kind], 32u, &granted);
	e->slot = (uint16_t)agb_oam_show(&oam, rnd(0x10000u));
	if (e->gfx == AGB_NULL || e->slot == AGB_OAM_NONE) {
		fig.gfx_fail += e->gfx == AGB_NULL;
		fig.oam_fail += e->slot == AGB_OAM_NONE;
		if (e->slot != AGB_OAM_NONE)
			agb_oam_hide(&oam, e->slot);
		if (e->gfx != AGB_NULL)
			agb_oam_free(&oam, e->gfx);
		heap_free(a, self);
		return;
	}
	fill_gfx(e->gfx, sprite_bytes[kind], 1u + rnd(15));
	e->path = extra != 0 ? heap_alloc(extra, &path) : AGB_NULL;
	e->self_bytes = (uint16_t)self;
	e->path_bytes = (uint16_t)path;
	e->x = (int16_t)rnd(224);
	e->y = (int16_t)rnd(144);
	e->vx = (int16_t)(rnd(5) - 2u);
	e->vy = (int16_t)(rnd(3) - 1u);
	e->life = (uint16_t)(30u + rnd(150));
	e->attr0 = sprite_attr0[kind];
	e->attr1 = sprite_attr1[kind];
	live[nlive++] = a;
	fig.spawned++;
}

/* Releases an entity, in the reverse order of spawn. */
static void despawn(uint32_t i)
{
	struct entity *e = AGB_PTR(NULL, struct entity, live[i]);
	agb_oam_hide(&oam, e->slot);
	agb_oam_free(&oam, e->gfx);
	heap_free(e->path, e->path_bytes);
	heap_free(live[i], e->self_bytes);
	live[i] = live[--nlive];
	fig.despawned++;
}

static void update_entities(void)
{
	for (uint32_t i = 0; i < nlive;) {
		struct entity *e = AGB_PTR(NULL, struct entity, live[i]);
		volatile uint16_t *attr = AGB_PTR_N(NULL, volatile uint16_t,
						    agb_oam_shadow_addr(&oam, e->slot), 6u);
		if (--e->life == 0) {
			despawn(i);
			continue;
		}
		e->x = (int16_t)((e->x + e->vx) & 0x1FF);
		e->y = (int16_t)((e->y + e->vy) & 0xFF);
		attr[0] = (uint16_t)(e->attr0 | (uint16_t)e->y);
		attr[1] = (uint16_t)(e->attr1 | (uint16_t)e->x);
		/* attr2: tile index from the VRAM block; the priority bits (10-11) are the manager's. */
		attr[2] = (uint16_t)((attr[2] & 0x0C00u) | ((e->gfx - AGB_MEM_VRAM_OBJ) / 32u));
		i++;
	}
}

static void resize_scratch(uint32_t frame)
{
	uint32_t size = 256u + rnd(4096), granted = 0, a;
	(void)frame;
	fig.reallocs++;
	a = HEAP_FN(realloc)(&heap, scratch, size, &granted);
	if (a == AGB_NULL)
		fig.realloc_fail++;
	else
		scratch = a;
}

static void wait_vblank(void)
{
	while (AGB_REG16(REG_VCOUNT) >= 160u)
		;
	while (AGB_REG16(REG_VCOUNT) < 160u)
		;
}

/* ---- the end: invariants, leaks, figures -------------------------------------------------- */
static int check_cores(const char *when)
{
#ifndef AGB_NO_DIAGNOSTICS
	const char *why = "";
	if (HEAP_FN(check)(&heap, &why) != 0)
		return agb_printf("game: %s: heap check: %s", when, why), 1;
	if (agb_oam_check(&oam, &why) != 0)
		return agb_printf("game: %s: oam check: %s", when, why), 1;
	if (agb_tiles_check(&tiles, &why) != 0)
		return agb_printf("game: %s: tiles check: %s", when, why), 1;
#else
	(void)when;
#endif
	return 0;
}

/* Frees everything the game holds; `left` is the first resident level column. */
static int teardown(uint32_t left, uint32_t heap_free_at_start)
{
	int bad = check_cores("after the game");
	while (nlive != 0)
		despawn(0);
	HEAP_FN(free)(&heap, scratch);
	for (uint32_t col = left; col < left + VIEW_COLS; col++)
		stream_out(col);
	bad |= check_cores("after teardown");
#ifndef AGB_NO_DIAGNOSTICS
	{
		struct agb_heap_stats s;
		HEAP_FN(stats)(&heap, &s);
		if (s.free_bytes != heap_free_at_start || s.free_runs != 1u)
			bad = 1, agb_printf("game: heap leaked: %u free bytes in %u runs, %u at start",
					    (unsigned)s.free_bytes, (unsigned)s.free_runs,
					    (unsigned)heap_free_at_start);
		agb_tiles_stats(&tiles, &s);
		if (s.free_runs != 1u)
			bad = 1, agb_printf("game: tiles left %u free runs", (unsigned)s.free_runs);
	}
#else
	(void)heap_free_at_start;
#endif
	return bad;
}

static void report(int bad)
{
	agb_printf("game: heap %s, %u bytes; %u frames", GAME_STR(GAME_HEAP),
		   (unsigned)GAME_HEAP_BYTES, (unsigned)GAME_FRAMES);
	agb_printf("game: entities spawned %u despawned %u; failures heap %u gfx %u oam %u",
		   (unsigned)fig.spawned, (unsigned)fig.despawned, (unsigned)fig.heap_fail,
		   (unsigned)fig.gfx_fail, (unsigned)fig.oam_fail);
	agb_printf("game: heap peak live %u bytes; reallocs %u (%u failed)",
		   (unsigned)fig.peak_heap_live, (unsigned)fig.reallocs, (unsigned)fig.realloc_fail);
	agb_printf("game: cycles alloc mean %u max %u, free mean %u max %u",
		   (unsigned)(fig.alloc_sum / (fig.alloc_n ? fig.alloc_n : 1u)),
		   (unsigned)fig.alloc_max, (unsigned)(fig.free_sum / (fig.free_n ? fig.free_n : 1u)),
		   (unsigned)fig.free_max);
	agb_printf("game: tiles uploaded %u, failed %u, ref max %u cycles; OAM copy max %u cycles",
		   (unsigned)fig.uploads, (unsigned)fig.tile_fail, (unsigned)fig.ref_max,
		   (unsigned)fig.copy_max);
	agb_printf("game: %s", bad ? "FAIL" : "pass");
	{
		const uint32_t v[] = {fig.spawned,   fig.despawned, fig.heap_fail, fig.gfx_fail,
				      fig.oam_fail,  fig.uploads,   fig.tile_fail, fig.peak_heap_live,
				      fig.alloc_max, fig.free_max,  fig.ref_max,   fig.copy_max};
		for (uint32_t i = 0; i < sizeof v / sizeof v[0]; i++)
			agb_result_push(v[i]);
	}
}

int main(void)
{
	uint32_t cam = 0, heap_free_at_start = 0;
	int bad;
	agb_init();
	AGB_REG16(REG_WAITCNT) = WAITCNT_GAME; /* first thing: every ROM fetch after it is faster */
	make_tiles_and_palettes();
	if (init_cores() != 0) {
		agb_done(1);
		agb_halt();
	}
#ifndef AGB_NO_DIAGNOSTICS
	{
		struct agb_heap_stats s;
		HEAP_FN(stats)(&heap, &s);
		heap_free_at_start = s.free_bytes;
	}
#endif
	AGB_REG16(REG_BG0CNT) = (uint16_t)(((tiles.maps_addr - AGB_MEM_VRAM_BG) / 2048u) << 8);
	AGB_REG16(REG_DISPCNT) = (1u << 6) | (1u << 8) | (1u << 12); /* mode 0, 1D OBJ, BG0, OBJ */
	for (uint32_t col = 0; col < VIEW_COLS; col++)
		stream_in(col);
	scratch = HEAP_FN(alloc)(&heap, 512u, 4u, NULL); /* outside the entity figures */
	for (uint32_t frame = 0; frame < GAME_FRAMES; frame++) {
		uint32_t c;
		wait_vblank();
		agb_cycles_begin();
		agb_oam_copy(&oam); /* V-blank: the shadow OAM goes to OAM in Z order */
		c = agb_cycles_end();
		fig.copy_max = c > fig.copy_max ? c : fig.copy_max;
		AGB_REG16(REG_BG0HOFS) = (uint16_t)(cam & 0x1FFu);
		if ((++cam & 7u) == 0) { /* a column left the screen, the next one comes in */
			stream_out(cam / 8u - 1u);
			stream_in(cam / 8u - 1u + VIEW_COLS);
		}
		if (frame % 2u == 0 && nlive < MAX_ENTITIES)
			spawn();
		update_entities();
		if (frame % 37u == 36u)
			resize_scratch(frame);
	}
	bad = teardown(cam / 8u, heap_free_at_start);
	/* The pools are sized for this game: any failure is a regression, as it would be a
	 * missing sprite or a crash in a shipped game. */
	bad |= fig.spawned == 0 || fig.despawned != fig.spawned || fig.uploads == 0;
	bad |= fig.heap_fail != 0 || fig.gfx_fail != 0 || fig.oam_fail != 0 || fig.tile_fail != 0 ||
	       fig.realloc_fail != 0;
	report(bad);
	agb_done(bad ? 1 : 0);
	agb_halt();
}
