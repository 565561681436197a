/* The `tiles` core: the seed article's examples (a 4bpp free whose pair block is free returns the
 * pair to list-a; the transparent tile is never allocated), reference counting, 8bpp placement,
 * exhaustion and skipped unrefs through the replay engine, costs, and randomized ref/unref runs
 * against a host-side model with the invariant checker after every operation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agb/cores.h"
#include "agb/machine.h"
#include "agbsim/metrics.h"
#include "agbsim/replay.h"
#include "agb/tiles.h"

static agb_machine *M;
static uint8_t *ROM; /* tile data with a recognisable pattern per (tile, depth) */
#define ROM_BYTES 0x40000u
#define ROM4      AGB_MEM_ROM              /* 4bpp set: tile t at ROM4 + 32 t (tiles < 2048) */
#define ROM8      (AGB_MEM_ROM + 0x10000u) /* 8bpp set: tile t at ROM8 + 64 t (tiles < 3072) */

static uint64_t state_words[AGB_HEAP_STATE_MAX / 8u];
static void *const S = state_words;

static uint8_t rom_byte(uint32_t tile, uint32_t bpp, uint32_t i)
{
	return (uint8_t)(tile * 7u + i * 13u + bpp + 1u);
}

static int group_setup(void **state)
{
	(void)state;
	M = malloc(sizeof *M);
	ROM = malloc(ROM_BYTES);
	if (M == NULL || ROM == NULL)
		return -1;
	for (uint32_t t = 0; t < 2048u; t++)
		for (uint32_t i = 0; i < 32u; i++)
			ROM[t * 32u + i] = rom_byte(t, 4, i);
	for (uint32_t t = 0; t < 3072u; t++)
		for (uint32_t i = 0; i < 64u; i++)
			ROM[0x10000u + t * 64u + i] = rom_byte(t, 8, i);
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	agb_machine_map_rom(M, ROM, ROM_BYTES);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(M);
	free(ROM);
	return 0;
}

/* A fresh manager: `arena` bytes of BG VRAM, meta in EWRAM. */
static void start(uint32_t arena, uint32_t flags)
{
	struct agb_heap_config c = {AGB_MEM_VRAM_BG, arena, AGB_MEM_EWRAM, AGB_EWRAM_SIZE, flags};
	memset(agb_machine_host(M, AGB_MEM_VRAM_BG, AGB_VRAM_BG_SIZE), 0xAA, AGB_VRAM_BG_SIZE);
	memset(agb_machine_host(M, AGB_MEM_EWRAM, AGB_EWRAM_SIZE), 0x55, AGB_EWRAM_SIZE);
	assert_int_equal(agb_tiles_core.init(S, M, &c), AGB_HEAP_OK);
	agb_tiles_set_rom(S, ROM4, ROM8);
}

static void assert_ok(void)
{
	const char *why = NULL;
	int bad = agb_tiles_core.check(S, &why);
	if (bad)
		fail_msg("check: %s", why);
}

static uint32_t ref(uint32_t tile, uint32_t bpp, uint32_t *up)
{
	uint32_t dummy;
	return agb_tiles_ref(S, tile, bpp, up != NULL ? up : &dummy);
}

/* The VRAM tile at `block` holds ROM tile `tile` of depth bpp. */
static void assert_holds(uint32_t block, uint32_t tile, uint32_t bpp)
{
	const uint8_t *v = agb_machine_host(M, AGB_MEM_VRAM_BG + block * 32u, bpp * 8u);
	for (uint32_t i = 0; i < bpp * 8u; i++)
		if (v[i] != rom_byte(tile, bpp, i))
			fail_msg("block %u byte %u: %u, want tile %u at %ubpp", block, i, v[i], tile, bpp);
}

static void assert_transparent(void)
{
	const uint8_t *v = agb_machine_host(M, AGB_MEM_VRAM_BG, 64);
	for (uint32_t i = 0; i < 64u; i++)
		assert_int_equal(v[i], 0);
}

/* Seed: tile 0 is the transparent tile -- never counted, never handed out, zero in VRAM. */
static void transparent_tile_is_never_allocated(void **state)
{
	(void)state;
	uint32_t up = 1;
	uint32_t n = 0, b;
	start(AGB_VRAM_BG_SIZE, 0);
	assert_transparent();
	agb_machine_reset_counters(M);
	assert_int_equal(ref(0, 4, &up), 0);
	assert_int_equal(up, 0);
	assert_int_equal(ref(0, 8, &up), 0);
	/* No bookkeeping: per ref, the map entry (block 0) and its reserved count are read inline
	 * (the out-of-line path takes the block from the count's address); nothing is written. */
	assert_int_equal(agb_machine_accesses(M), 4);
	assert_int_equal(M->counts[AGB_REGION_EWRAM][AGB_STORE16], 0);
	assert_int_equal(M->counts[AGB_REGION_EWRAM][AGB_STORE32], 0);
	/* Fill VRAM completely with 8bpp then 4bpp tiles: no block below 2 is ever used. */
	while ((b = ref(1 + n, 8, NULL)) != AGB_TILES_NO_ROOM) {
		assert_true(b >= 2u && b % 2u == 0);
		n++;
	}
	assert_int_equal(n, (1792u - 2u) / 2u);
	assert_int_equal(ref(2000, 4, NULL), AGB_TILES_NO_ROOM);
	assert_transparent();
	assert_ok();
}

/* 2 KiB, no maps: blocks 2-63, all shared. Fills them with 4bpp tiles first..first+61. */
static void start_small_full4(uint32_t first)
{
	start(2048, AGB_TILES_FLAG_MAPS(0));
	for (uint32_t i = 0; i < 62u; i++)
		assert_int_equal(ref(first + i, 4, NULL), 2u + i); /* list-a's pairs, then list-c */
}

/* A last unref leaves the tile in VRAM; an upload that finds no free slot evicts an
 * unreferenced tile. Seed: evicted 4bpp blocks whose partners are free re-form their pair on
 * list-a, where an 8bpp upload finds it. */
static void eviction_rejoins_a_pair(void **state)
{
	(void)state;
	uint32_t up = 0;
	start_small_full4(10);
	assert_int_equal(ref(200, 8, NULL), AGB_TILES_NO_ROOM); /* every block referenced */
	/* Last unrefs of blocks 3 then 2: both stay resident, unreferenced (free to stats). */
	assert_int_equal(agb_tiles_unref_block(S, 3, 4), 1);
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 1);
	assert_ok();
	assert_holds(2, 10, 4);
	assert_holds(3, 11, 4);
	{
		struct agb_heap_stats st;
		agb_tiles_core.stats(S, &st);
		assert_int_equal(st.free_bytes, 64);
		assert_int_equal(st.free_runs, 1);
	}
	/* The 8bpp upload evicts both halves: the pair is whole again and takes the tile. */
	assert_int_equal(ref(200, 8, &up), 2);
	assert_int_equal(up, AGB_VERB_UPLOADED);
	assert_holds(2, 200, 8);
	assert_ok();
	/* Tiles 10 and 11 left VRAM: a ref uploads again, and fails while every block is
	 * referenced. */
	assert_int_equal(ref(10, 4, NULL), AGB_TILES_NO_ROOM);
	assert_ok();
	/* Block 5 (tile 13) released: the 4bpp eviction takes it as it is. */
	assert_int_equal(agb_tiles_unref_block(S, 5, 4), 1);
	assert_int_equal(ref(10, 4, &up), 5);
	assert_int_equal(up, AGB_VERB_UPLOADED);
	assert_holds(5, 10, 4);
	assert_int_equal(ref(13, 4, NULL), AGB_TILES_NO_ROOM); /* evicted */
	assert_ok();
}

/* A 4bpp eviction of an unreferenced 8bpp tile splits its pair: the other half goes to list-c.
 */
static void eviction_splits_an_8bpp_pair(void **state)
{
	(void)state;
	start(2048, AGB_TILES_FLAG_MAPS(0));
	for (uint32_t i = 0; i < 31u; i++)
		assert_int_equal(ref(1 + i, 8, NULL), 2u + 2u * i);
	assert_int_equal(agb_tiles_unref_block(S, 4, 8), 1);
	assert_ok();
	assert_int_equal(ref(100, 4, NULL), 4); /* hand at 2: pair 2 referenced, pair 4 evicted */
	assert_ok();
	assert_int_equal(ref(101, 4, NULL), 5); /* list-c */
	assert_int_equal(ref(2, 8, NULL), AGB_TILES_NO_ROOM);
	assert_holds(4, 100, 4);
	assert_holds(5, 101, 4);
	assert_ok();
}

/* The hand goes round: the unreferenced tile evicted next is the first one after the last
 * eviction, not the first in VRAM (the clock policy). */
static void eviction_hand_goes_round(void **state)
{
	(void)state;
	uint32_t up = 0;
	start_small_full4(10);
	for (uint32_t b = 2; b < 64u; b++)
		assert_int_equal(agb_tiles_unref_block(S, b, 4), 1);
	assert_int_equal(ref(300, 4, NULL), 2);
	assert_int_equal(ref(301, 4, NULL), 3);
	/* Tile 12 (block 4) revived: referenced again, with no upload; the hand passes it. */
	assert_int_equal(ref(12, 4, &up), 4);
	assert_int_equal(up, AGB_VERB_REVIVED);
	assert_int_equal(ref(302, 4, NULL), 5);
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 1); /* behind the hand */
	for (uint32_t i = 0; i < 58u; i++)
		assert_int_equal(ref(303 + i, 4, NULL), 6u + i);
	assert_int_equal(ref(400, 4, NULL), 2); /* wrapped round */
	assert_int_equal(ref(401, 4, NULL), AGB_TILES_NO_ROOM);
	assert_ok();
}

static void reference_counting(void **state)
{
	(void)state;
	uint32_t up = 0;
	start(AGB_VRAM_BG_SIZE, 0);
	assert_int_equal(ref(77, 4, &up), 2);
	assert_int_equal(up, 1);
	assert_holds(2, 77, 4);
	assert_int_equal(ref(77, 4, &up), 2);
	assert_int_equal(up, 0);
	assert_int_equal(ref(77, 4, &up), 2);
	/* The same number at the other depth is another tile. */
	assert_int_equal(ref(77, 8, &up), 1024);
	assert_int_equal(up, 1);
	assert_holds(1024, 77, 8);
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 0);
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 0);
	assert_ok();
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 1);
	assert_ok();
	/* Still in VRAM, unreferenced: the next ref revives it with no upload. */
	assert_int_equal(ref(77, 4, &up), 2);
	assert_int_equal(up, AGB_VERB_REVIVED);
	assert_holds(2, 77, 4);
	assert_int_equal(ref(77, 8, &up), 1024);
	assert_int_equal(up, 0);
	/* An unref after the last of an unreferenced tile is skipped, nothing changed. */
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 1);
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 0);
	assert_int_equal(agb_tiles_unref(S, 77, 4, &up), AGB_VERB_DONE);
	assert_int_equal(up, AGB_VERB_SKIPPED);
	assert_ok();
}

/* 8bpp tiles take the 8bpp-only region first (list-b), then shared pairs (list-a); 4bpp tiles
 * never leave the first 32 KiB. */
static void eight_bpp_uses_second_region_first(void **state)
{
	(void)state;
	uint32_t b;
	start(AGB_VRAM_BG_SIZE, 0); /* 56 KiB: blocks 1024-1791 are 8bpp-only: 384 pairs */
	for (uint32_t i = 0; i < 384u; i++) {
		b = ref(100 + i, 8, NULL);
		assert_int_equal(b, 1024u + 2u * i);
	}
	assert_int_equal(ref(500, 8, NULL), 2); /* list-b empty: shared pair */
	assert_int_equal(ref(501, 4, NULL), 4);
	assert_int_equal(ref(502, 4, NULL), 5);
	assert_ok();
	/* A released 8bpp tile stays where it is; a free shared pair is taken before it is
	 * evicted. */
	assert_int_equal(agb_tiles_unref_block(S, 1030, 8), 1);
	assert_int_equal(ref(503, 8, NULL), 6);
	/* A released shared 8bpp tile: 4bpp uploads split its pair once the shared half is full. */
	assert_int_equal(agb_tiles_unref_block(S, 2, 8), 1);
	/* Fill the rest with 4bpp: never above block 1023; the unreferenced 8bpp tile at block 2 is
	 * evicted for them, the one at 1030 is not (4bpp tiles cannot live there). */
	for (uint32_t t = 1000; (b = ref(t, 4, NULL)) != 0xFFFFu; t++)
		assert_true(b < 1024u);
	assert_holds(2, 1000u + 1016u, 4); /* after blocks 8-1023 */
	assert_int_equal(ref(500, 8, NULL), 1030); /* not resident: evicts the one at 1030 */
	assert_ok();
}

static void layout_and_overhead(void **state)
{
	(void)state;
	struct agb_heap_config c = {AGB_MEM_VRAM_BG, AGB_VRAM_BG_SIZE, AGB_MEM_IWRAM, 0x3C00, 0};
	struct agb_heap_stats st;
	/* Default: 24576 ROM tiles per depth need 105 KiB of maps: not in 15 KiB of IWRAM. */
	assert_int_equal(agb_tiles_core.init(S, M, &c), AGB_HEAP_META_TOO_SMALL);
	/* 2048 ROM tiles per depth need 15368 bytes: 8 too many for the engine's IWRAM area. */
	c.flags = AGB_TILES_FLAG_ROM_TILES(2048);
	assert_int_equal(AGB_TILES_META_BYTES(1792, 2048), 8u + 7168u + 8192u);
	assert_int_equal(agb_tiles_core.init(S, M, &c), AGB_HEAP_META_TOO_SMALL);
	c.flags = AGB_TILES_FLAG_ROM_TILES(1792);
	assert_int_equal(agb_tiles_core.init(S, M, &c), AGB_HEAP_OK);
	/* Overhead: metadata + four screen maps + the transparent pair. */
	assert_int_equal(agb_tiles_core.overhead_bytes(S), 8u + 7168u + 7168u + 8192u + 64u);
	agb_tiles_core.stats(S, &st);
	assert_int_equal(st.free_bytes, 56u * 1024u - 64u);
	assert_int_equal(st.free_runs, 1);
	/* Configurable: two screen maps leave 60 KiB of tiles. */
	c.flags = AGB_TILES_FLAG_ROM_TILES(1792) | AGB_TILES_FLAG_MAPS(2);
	assert_int_equal(agb_tiles_core.init(S, M, &c), AGB_HEAP_OK);
	agb_tiles_core.stats(S, &st);
	assert_int_equal(st.free_bytes, 60u * 1024u - 64u);
	c.arena_addr = AGB_MEM_VRAM_BG + 0x100;
	assert_int_equal(agb_tiles_core.init(S, M, &c), AGB_HEAP_BAD_ALIGNMENT);
}

struct walk_acc {
	uint32_t next, used, free_, meta;
};

static void walk_fn(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct walk_acc *w = ctx;
	assert_int_equal(addr, w->next);
	w->next = addr + bytes;
	if (kind == AGB_RUN_USED)
		w->used += bytes;
	else if (kind == AGB_RUN_FREE)
		w->free_ += bytes;
	else
		w->meta += bytes;
}

static void walk_covers_the_arena(void **state)
{
	(void)state;
	struct walk_acc w = {AGB_MEM_VRAM_BG, 0, 0, 0};
	start(AGB_VRAM_BG_SIZE, 0);
	ref(5, 4, NULL);
	ref(6, 8, NULL);
	ref(7, 4, NULL);
	agb_tiles_core.walk(S, walk_fn, &w);
	assert_int_equal(w.next, AGB_MEM_VRAM_BG + AGB_VRAM_BG_SIZE);
	assert_int_equal(w.meta, 4u * 2048u); /* the screen maps */
	assert_int_equal(w.used, 64u + 32u + 64u + 32u);
}

/* Costs: a hit is three 16-bit metadata accesses; an upload copies words, never bytes. */
static void costs(void **state)
{
	(void)state;
	start(AGB_VRAM_BG_SIZE, 0);
	ref(9, 4, NULL);
	agb_machine_reset_counters(M);
	ref(9, 4, NULL);
	assert_int_equal(agb_machine_accesses(M), 3);
	assert_int_equal(agb_machine_bus_cycles(M), 9); /* EWRAM: 3 cycles per halfword */
	agb_machine_reset_counters(M);
	ref(10, 8, NULL);
	assert_int_equal(M->counts[AGB_REGION_ROM][AGB_LOAD32], 16);
	assert_int_equal(M->counts[AGB_REGION_VRAM_BG][AGB_STORE32], 16);
	assert_int_equal(M->quirk_stores, 0);
	/* From list-b: the map entry and the reserved count inline, then list-b's head, the pair's
	 * link, the new head, the tail marker, count, RAM->ROM and ROM->RAM entries (7). */
	assert_int_equal(agb_machine_accesses(M), 16u * 2u + 2u + 7u);
}

/* A count stops at AGB_TILES_COUNT_MAX (more than every cell of 14 screen maps): the ref after
 * it fails with AGB_TILES_BAD_TILE and changes nothing; the unrefs bring it back down. */
static void count_limit(void **state)
{
	(void)state;
	uint32_t up = 0, b;
	start(AGB_VRAM_BG_SIZE, 0);
	b = ref(7, 4, &up);
	assert_int_equal(up, AGB_VERB_UPLOADED);
	for (uint32_t i = 1; i < AGB_TILES_COUNT_MAX; i++)
		assert_int_equal(ref(7, 4, &up), b);
	assert_true(AGB_TILES_COUNT_MAX >= 14u * 1024u);
	assert_int_equal(ref(7, 4, &up), AGB_TILES_BAD_TILE);
	assert_int_equal(up, 0);
	assert_ok();
	for (uint32_t i = 1; i < AGB_TILES_COUNT_MAX; i++)
		assert_int_equal(agb_tiles_unref_block(S, b, 4), 0);
	assert_int_equal(agb_tiles_unref_block(S, b, 4), 1);
	assert_ok();
}

/* The out-of-line path's metadata accesses (the header's "at most 10 more plus the copy"): a 4bpp
 * upload that splits a pair is the longest; a last unref is the inline path's two; an eviction
 * reads the hand and the blocks it passes. */
static void miss_and_release_accesses(void **state)
{
	(void)state;
	start(2048, AGB_TILES_FLAG_MAPS(0));
	agb_machine_reset_counters(M);
	assert_int_equal(ref(10, 4, NULL), 2); /* list-c empty: pair 2 from list-a, 3 to list-c */
	assert_int_equal(agb_machine_accesses(M), 8u * 2u + 2u + 10u);
	agb_machine_reset_counters(M);
	assert_int_equal(ref(11, 4, NULL), 3); /* list-c's only block */
	assert_int_equal(agb_machine_accesses(M), 8u * 2u + 2u + 6u);
	assert_ok();
	agb_machine_reset_counters(M);
	assert_int_equal(agb_tiles_unref_block(S, 2, 4), 1); /* the count read and written */
	assert_int_equal(agb_machine_accesses(M), 2u);
	for (uint32_t i = 0; i < 60u; i++)
		assert_int_equal(ref(12 + i, 4, NULL), 4u + i);
	agb_machine_reset_counters(M);
	/* Lists empty (heads c and a); the hand, block 2's count and its partner's (is it an 8bpp
	 * head?), the evicted tile's RAM->ROM and ROM->RAM, the hand; count, RAM->ROM, ROM->RAM. */
	assert_int_equal(ref(500, 4, NULL), 2);
	assert_int_equal(agb_machine_accesses(M), 8u * 2u + 2u + 2u + 6u + 3u);
	assert_ok();
}

/* The engine: a ref that finds no room is a tile_failure and its unref is skipped. */
static void failed_ref_skips_its_unref(void **state)
{
	(void)state;
	/* 4 KiB arena, no screen maps: 128 blocks, 126 usable, all shared. */
	enum { N = 300 };
	static struct agb_event ev[N];
	static uint32_t cycles[N];
	static uint64_t ws[(AGB_HEAP_STATE_MAX + 512 + AGB_REPLAY_SPRITE_HANDLES) / 8];
	uint32_t n = 0;
	struct agb_trace t = {0};
	struct agb_replay_config cfg = {&agb_tiles_core, 0, AGB_META_EWRAM, AGB_TILES_FLAG_MAPS(0),
					AGB_REPLAY_CHECK};
	struct agb_replay_result res;
	struct agb_metrics met;
	struct agb_metrics_acc acc;
	for (uint32_t i = 1; i <= 130; i++)
		ev[n++] = (struct agb_event){.op = AGB_OP_REF, .id = i, .size = 4};
	ev[n++] = (struct agb_event){.op = AGB_OP_REF, .id = 1, .size = 4}; /* a hit: fine */
	ev[n++] = (struct agb_event){.op = AGB_OP_FRAME};
	for (uint32_t i = 130; i >= 1; i--)
		ev[n++] = (struct agb_event){.op = AGB_OP_UNREF, .id = i, .size = 4};
	ev[n++] = (struct agb_event){.op = AGB_OP_UNREF, .id = 1, .size = 4};
	t.arena = AGB_ARENA_BG_VRAM;
	t.arena_bytes = 4096;
	t.event_count = n;
	t.frame_count = 1;
	t.events = ev;
	assert_true(agb_replay_workspace_bytes(&t) <= sizeof ws);
	agb_metrics_begin(&acc, &met, &t, agb_tiles_core.unit, cycles);
	assert_int_equal(agb_replay_run(&t, &cfg, M, ws, sizeof ws, agb_metrics_observe, &acc, &res),
			 AGB_REPLAY_OK);
	agb_metrics_end(&acc, &res);
	assert_int_equal(met.tile_uploads, 126);
	assert_int_equal(met.peak_resident_tiles, 126);
	assert_int_equal(met.tile_failures, 4);
	assert_int_equal(met.skipped, 4);
	assert_int_equal(res.failures, 4);
	assert_int_equal(res.quirk_stores, 0);
	assert_int_equal(res.final_stats.free_bytes, 126u * 32u);
}

/* ---- randomized ---------------------------------------------------------------------------- */

static uint32_t rng = 12345;
static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

#define RT 2048u /* model size: ROM tiles per depth */

/* Model: live refs per (tile, depth), of which how many failed; where a resident tile sits. */
static uint32_t live[2][RT], failed[2][RT], where[2][RT];

/* Blocks walk reports free (free, or an unreferenced tile's): the eviction's candidates. */
static uint8_t walk_free[2048];
static void free_map_fn(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	(void)ctx;
	if (kind != AGB_RUN_FREE)
		return;
	for (uint32_t a = addr; a < addr + bytes; a += 32u)
		if ((a - AGB_MEM_VRAM_BG) / 32u < 2048u)
			walk_free[(a - AGB_MEM_VRAM_BG) / 32u] = 1;
}

/* A ref fails only when no slot its depth can use is free or unreferenced. */
static void assert_no_usable_slot(uint32_t bpp)
{
	memset(walk_free, 0, sizeof walk_free);
	agb_tiles_core.walk(S, free_map_fn, NULL);
	for (uint32_t b = 2; b < 2048u; b++) {
		if (bpp == 4u && b < 1024u && walk_free[b])
			fail_msg("4bpp ref failed with block %u free or unreferenced", b);
		if (bpp == 8u && b % 2u == 0 && walk_free[b] && walk_free[b + 1u])
			fail_msg("8bpp ref failed with pair %u free or unreferenced", b);
	}
}

static void random_run(uint32_t arena, uint32_t flags, uint32_t ops, uint32_t seed, uint32_t range)
{
	uint32_t uploads = 0, fails = 0;
	rng = seed;
	start(arena, flags | AGB_TILES_FLAG_ROM_TILES(range));
	memset(live, 0, sizeof live);
	memset(failed, 0, sizeof failed);
	for (uint32_t op = 0; op < ops; op++) {
		uint32_t d = next_rand() % 3u == 0 ? 1u : 0u, bpp = d ? 8u : 4u;
		uint32_t tile = 1u + next_rand() % (range - 1u);
		/* Bias towards refs while few tiles are live, unrefs later: pressure comes and goes. */
		int do_ref = (next_rand() % 100u) < ((op / (ops / 8u)) % 2u ? 40u : 60u);
		if (do_ref) {
			uint32_t up = 0;
			uint32_t b = ref(tile, bpp, &up);
			live[d][tile]++;
			if (b == AGB_TILES_NO_ROOM) {
				assert_true(live[d][tile] == failed[d][tile] + 1u);
				assert_no_usable_slot(bpp);
				failed[d][tile]++;
				fails++;
			} else {
				assert_true(b >= 2u);
				if (up == AGB_VERB_REVIVED) {
					assert_int_equal(live[d][tile] - failed[d][tile], 1);
					assert_int_equal(b, where[d][tile]);
					assert_holds(b, tile, bpp);
				} else if (up) {
					assert_int_equal(up, AGB_VERB_UPLOADED);
					assert_int_equal(live[d][tile] - failed[d][tile], 1);
					where[d][tile] = b;
					uploads++;
					assert_holds(b, tile, bpp);
				} else {
					assert_int_equal(b, where[d][tile]);
				}
				if (bpp == 4u)
					assert_true(b < 1024u);
				else
					assert_true(b % 2u == 0);
			}
		} else {
			/* An unref of a random live (tile, depth), through the core table's verb. */
			uint32_t result = 0, t0 = tile;
			while (live[d][tile] == 0) {
				tile = tile % (range - 1u) + 1u;
				if (tile == t0)
					break;
			}
			if (live[d][tile] == 0)
				continue;
			assert_int_equal(agb_tiles_core.unref(S, tile, bpp, &result), AGB_VERB_DONE);
			live[d][tile]--;
			if (result & AGB_VERB_SKIPPED) {
				/* Only when nothing is resident: all outstanding refs had failed. */
				assert_true(failed[d][tile] > 0);
				failed[d][tile]--;
				assert_int_equal(live[d][tile], failed[d][tile]);
			} else {
				/* The engine's rule: a resident tile takes the unref first. */
				uint32_t ok = live[d][tile] + 1u - failed[d][tile];
				assert_true(ok >= 1u);
				assert_int_equal((result & AGB_VERB_RELEASED) != 0, ok == 1u);
			}
		}
		assert_ok();
		assert_transparent();
	}
	assert_true(uploads > 100u);
	assert_true(fails > 0u);
}

static void randomized_small_shared(void **state)
{
	(void)state;
	/* 6 KiB of shared tiles (190 blocks): heavy pressure, all three lists busy. */
	random_run(6144, AGB_TILES_FLAG_MAPS(0), 20000, 1, 200);
}

static void randomized_with_8bpp_region(void **state)
{
	(void)state;
	/* 36 KiB arena, one map: 32 KiB shared + 2 KiB 8bpp-only, 1500 tiles per depth. */
	random_run(36864, AGB_TILES_FLAG_MAPS(1), 40000, 2, 1500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(transparent_tile_is_never_allocated),
		cmocka_unit_test(eviction_rejoins_a_pair),
		cmocka_unit_test(eviction_splits_an_8bpp_pair),
		cmocka_unit_test(eviction_hand_goes_round),
		cmocka_unit_test(reference_counting),
		cmocka_unit_test(eight_bpp_uses_second_region_first),
		cmocka_unit_test(layout_and_overhead),
		cmocka_unit_test(walk_covers_the_arena),
		cmocka_unit_test(costs),
		cmocka_unit_test(miss_and_release_accesses),
		cmocka_unit_test(count_limit),
		cmocka_unit_test(failed_ref_skips_its_unref),
		cmocka_unit_test(randomized_small_shared),
		cmocka_unit_test(randomized_with_8bpp_region),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
