/* test_record.c - unit tests for what `agbsim record` makes of calls and video state
 * (src/trace/record.c): heap calls -> events, OAM -> obj_vram blocks, screen maps -> bg refs. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdlib.h>
#include <string.h>

#include "trace/record.h"
#include "trace/trace_load.h"

#define EW 0x02000000u

static void assert_event(const struct agb_rec_events *e, size_t i, enum agb_op op, uint32_t id,
                         uint32_t size, uint32_t align)
{
	assert_true(i < e->n);
	assert_int_equal(e->ev[i].op, op);
	assert_int_equal(e->ev[i].id, id);
	assert_int_equal(e->ev[i].size, size);
	assert_int_equal(e->ev[i].align, align);
}

/* ---- frames -------------------------------------------------------------------------------- */
/* The loading-frame rule (docs/recording.md): forced blank at the frame's end or line 0, or no
 * layer on at line 0; a frame without a line 0 is judged by its end only. */
static void test_loading_frames(void **state)
{
	struct agb_rec_events e = {0};
	(void)state;
	assert_false(agb_rec_is_loading_frame(0x1100u, 0x1100u, 1)); /* BG0 + OBJ shown */
	assert_true(agb_rec_is_loading_frame(0x1100u, 0x1180u, 1));  /* blanked before VBlank */
	assert_true(agb_rec_is_loading_frame(0x0180u, 0x1100u, 1));  /* blank at line 0 */
	assert_true(agb_rec_is_loading_frame(0x0000u, 0x1100u, 1));  /* no layer: display off */
	assert_false(agb_rec_is_loading_frame(0x0000u, 0x1100u, 0)); /* no line 0 seen */
	assert_false(agb_rec_is_loading_frame(0x0403u, 0x0403u, 1)); /* mode 3, BG2 on */
	agb_rec_frame_kind(&e, 1);
	agb_rec_frame(&e);
	assert_int_equal(e.frames, 2);
	assert_int_equal(e.load_frames, 1);
	assert_event(&e, 0, AGB_OP_FRAME, 0, AGB_FRAME_LOAD, 0);
	assert_event(&e, 1, AGB_OP_FRAME, 0, 0, 0);
	agb_rec_events_release(&e);
}

/* The loader keeps each event's {"site": S} and finds it from the agb_trace (a copy too). */
static void test_loaded_sites(void **state)
{
	static const char text[] =
	        "{\"version\":1,\"arena\":\"ewram\",\"events\":[[\"alloc\",1,24,{\"site\":\"spawn+0x6\"}],"
	        "[\"frame\"],[\"alloc\",2,8,{\"site\":\"main+0x10\",\"x\":1}],"
	        "[\"free\",1,{\"site\":\"spawn+0x6\"}],[\"free\",2]]}";
	struct agb_loaded_trace t;
	struct agb_diag d;
	(void)state;
	assert_int_equal(agb_trace_load_buffer("t.json", text, sizeof text - 1u, &t, &d), AGB_LOAD_OK);
	struct agb_trace copy = t.trace;
	assert_string_equal(agb_trace_event_site(&copy, 0), "spawn+0x6");
	assert_null(agb_trace_event_site(&copy, 1));
	assert_string_equal(agb_trace_event_site(&copy, 2), "main+0x10");
	assert_string_equal(agb_trace_event_site(&copy, 3), "spawn+0x6");
	assert_null(agb_trace_event_site(&copy, 4));
	assert_int_equal(t.site_count, 2);
	agb_trace_release(&t);
	assert_null(agb_trace_event_site(&copy, 0));
}

/* ---- heap ---------------------------------------------------------------------------------- */
static void test_heap_calls(void **state)
{
	struct agb_rec_heap h;
	(void)state;
	agb_rec_heap_init(&h);
	agb_rec_heap_call(&h, AGB_REC_MALLOC, 24, 0, EW + 0x10);     /* 1 */
	agb_rec_heap_call(&h, AGB_REC_CALLOC, 10, 4, EW + 0x40);     /* 2: 40 bytes */
	agb_rec_heap_call(&h, AGB_REC_MEMALIGN, 32, 100, EW + 0x80); /* 3: align 32 */
	agb_rec_frame(&h.out);
	agb_rec_heap_call(&h, AGB_REC_REALLOC, EW + 0x10, 64, EW + 0x100); /* moves: same id */
	agb_rec_heap_call(&h, AGB_REC_FREE, EW + 0x100, 0, 0);
	agb_rec_heap_call(&h, AGB_REC_REALLOC, 0, 8, EW + 0x200); /* realloc(NULL): alloc 4 */
	agb_rec_heap_call(&h, AGB_REC_REALLOC, EW + 0x200, 0, 0); /* realloc(p, 0) freed p */
	agb_rec_heap_call(&h, AGB_REC_MALLOC, 0, 0, EW + 0x300);  /* malloc(0): a block, size 1 */
	assert_int_equal(h.out.n, 9);
	assert_event(&h.out, 0, AGB_OP_ALLOC, 1, 24, 1);
	assert_event(&h.out, 1, AGB_OP_ALLOC, 2, 40, 1);
	assert_event(&h.out, 2, AGB_OP_ALLOC, 3, 100, 32);
	assert_event(&h.out, 3, AGB_OP_FRAME, 0, 0, 0);
	assert_event(&h.out, 4, AGB_OP_REALLOC, 1, 64, 0);
	assert_event(&h.out, 5, AGB_OP_FREE, 1, 0, 0);
	assert_event(&h.out, 6, AGB_OP_ALLOC, 4, 8, 1);
	assert_event(&h.out, 7, AGB_OP_FREE, 4, 0, 0);
	assert_event(&h.out, 8, AGB_OP_ALLOC, 5, 1, 1);
	assert_int_equal(h.out.frames, 1);
	assert_int_equal(h.calls, 8);
	agb_rec_heap_release(&h);
}

/* What did not change the game's heap is counted, never an event, but for a refused request:
 * the game asked, and a replay asks each core the same (["refused", size]). */
static void test_heap_not_events(void **state)
{
	struct agb_rec_heap h;
	(void)state;
	agb_rec_heap_init(&h);
	agb_rec_heap_call(&h, AGB_REC_MALLOC, 1000000, 0, 0);               /* refused */
	agb_rec_heap_call(&h, AGB_REC_CALLOC, 0x10000, 0x10000, EW + 0x10); /* n*size > 4 GiB */
	agb_rec_heap_call(&h, AGB_REC_FREE, 0, 0, 0);                       /* free(NULL) */
	agb_rec_heap_call(&h, AGB_REC_FREE, EW + 0x500, 0, 0);              /* never returned */
	agb_rec_heap_call(&h, AGB_REC_MALLOC, 16, 0, EW + 0x20);
	agb_rec_heap_call(&h, AGB_REC_REALLOC, EW + 0x20, 5000, 0); /* refused: stays */
	agb_rec_heap_call(&h, AGB_REC_FREE, EW + 0x20, 0, 0);
	assert_int_equal(h.out.n, 4);
	assert_event(&h.out, 0, AGB_OP_REFUSED, 0, 1000000, 1);
	assert_event(&h.out, 1, AGB_OP_ALLOC, 1, 16, 1);
	assert_event(&h.out, 2, AGB_OP_REFUSED, 0, 5000, 1);
	assert_event(&h.out, 3, AGB_OP_FREE, 1, 0, 0);
	assert_int_equal(h.failed, 3);
	assert_int_equal(h.free_null, 1);
	assert_int_equal(h.unknown, 1);
	agb_rec_heap_release(&h);
}

/* Many live blocks: the address map grows and deletes without losing one. */
static void test_heap_many(void **state)
{
	struct agb_rec_heap h;
	(void)state;
	agb_rec_heap_init(&h);
	for (uint32_t i = 0; i < 5000; i++)
		agb_rec_heap_call(&h, AGB_REC_MALLOC, 8, 0, EW + 16u * i + 8u);
	for (uint32_t i = 0; i < 5000; i += 2)
		agb_rec_heap_call(&h, AGB_REC_FREE, EW + 16u * i + 8u, 0, 0);
	for (uint32_t i = 1; i < 5000; i += 2)
		agb_rec_heap_call(&h, AGB_REC_FREE, EW + 16u * i + 8u, 0, 0);
	assert_int_equal(h.unknown, 0);
	assert_int_equal(h.live, 0);
	assert_int_equal(h.out.n, 10000);
	assert_event(&h.out, 5000, AGB_OP_FREE, 1, 0, 0);
	assert_event(&h.out, 9999, AGB_OP_FREE, 5000, 0, 0);
	agb_rec_heap_release(&h);
}

static void test_heap_arena(void **state)
{
	struct agb_rec_heap h;
	enum agb_arena arena;
	uint32_t bytes;
	char why[256];
	(void)state;
	agb_rec_heap_init(&h);
	assert_int_equal(agb_rec_heap_arena(&h, &arena, &bytes, why, sizeof why), -1);
	agb_rec_heap_call(&h, AGB_REC_MALLOC, 100, 0, EW + 0x1408);
	assert_int_equal(agb_rec_heap_arena(&h, &arena, &bytes, why, sizeof why), 0);
	assert_int_equal(arena, AGB_ARENA_EWRAM);
	assert_int_equal(bytes, 0x40000u - 0x1400u); /* from the KiB of the lowest block */
	agb_rec_heap_release(&h);

	agb_rec_heap_init(&h); /* a game's own sprite allocator: OBJ VRAM */
	agb_rec_heap_call(&h, AGB_REC_MALLOC, 128, 0, 0x06010000u);
	assert_int_equal(agb_rec_heap_arena(&h, &arena, &bytes, why, sizeof why), 0);
	assert_int_equal(arena, AGB_ARENA_OBJ_VRAM);
	assert_int_equal(bytes, 32768);
	agb_rec_heap_call(&h, AGB_REC_MALLOC, 16, 0, 0x03000100u); /* IWRAM too: no arena */
	assert_int_equal(agb_rec_heap_arena(&h, &arena, &bytes, why, sizeof why), -1);
	assert_non_null(strstr(why, "not inside EWRAM or OBJ VRAM"));
	agb_rec_heap_release(&h);
}

/* ---- OBJ VRAM from OAM --------------------------------------------------------------------- */
static void sprite(uint16_t *oam, unsigned i, uint16_t a0, uint16_t a1, uint16_t tile)
{
	oam[i * 4] = a0;
	oam[i * 4 + 1] = a1;
	oam[i * 4 + 2] = tile;
}

static void test_obj(void **state)
{
	static struct agb_rec_obj o;
	uint16_t oam[512];
	(void)state;
	agb_rec_obj_init(&o);
	for (unsigned i = 0; i < 128; i++)
		sprite(oam, i, 0x0200, 0, 0); /* all hidden */
	agb_rec_obj_sample(&o, oam, 0x1040);
	assert_int_equal(o.out.n, 0);
	sprite(oam, 0, 0x0000, 0x4000, 8);  /* 16x16 4bpp: 4 tiles at 8 */
	sprite(oam, 1, 0x4000, 0x8000, 0);  /* 32x16: 8 tiles at 0 */
	sprite(oam, 2, 0x2000, 0x4000, 40); /* 16x16 8bpp: 8 tile numbers, 64-byte aligned */
	sprite(oam, 3, 0x0000, 0x4000, 8);  /* the same block as sprite 0 */
	agb_rec_obj_sample(&o, oam, 0x1040);
	assert_int_equal(o.out.n, 3); /* by first tile */
	assert_event(&o.out, 0, AGB_OP_ALLOC, 1, 256, 1);
	assert_event(&o.out, 1, AGB_OP_ALLOC, 2, 128, 1);
	assert_event(&o.out, 2, AGB_OP_ALLOC, 3, 256, 64);
	sprite(oam, 0, 0x0200, 0, 0);        /* sprite 3 still uses tile 8 */
	sprite(oam, 1, 0x0200, 0, 0);        /* tile 0 unused: freed */
	sprite(oam, 4, 0x0000, 0x0000, 100); /* 8x8: new */
	agb_rec_obj_sample(&o, oam, 0x1040);
	assert_int_equal(o.out.n, 5); /* frees first */
	assert_event(&o.out, 3, AGB_OP_FREE, 1, 0, 0);
	assert_event(&o.out, 4, AGB_OP_ALLOC, 4, 32, 1);
	assert_int_equal(o.saw_2d, 0);
	agb_rec_obj_sample(&o, oam, 0x1000); /* 2D mapping noticed */
	assert_int_equal(o.saw_2d, 1);
	agb_rec_events_release(&o.out);
}

/* ---- BG VRAM from the screen maps ---------------------------------------------------------- */
static void test_bg(void **state)
{
	struct agb_rec_bg b;
	uint16_t io[512] = {0};
	uint16_t *vram = calloc(0x8000, sizeof *vram);
	(void)state;
	assert_non_null(vram);
	assert_int_equal(agb_rec_bg_init(&b), 0);
	/* 4bpp tiles at charblock 0: 1 and 2 the same graphics, 3 other, 0 transparent. */
	for (unsigned w = 0; w < 16; w++) {
		vram[1 * 16 + w] = 0x1111;
		vram[2 * 16 + w] = 0x1111;
		vram[3 * 16 + w] = 0x2222;
	}
	/* BG0 map at screenblock 31 (0xF800): cell (0,0) tile 1, (1,0) tile 2, (2,0) tile 3,
	 * (31,0) tile 3 (off screen: columns 0..29 show), (0,1) tile 0. */
	uint16_t *map = vram + 0xF800 / 2;
	map[0] = 1;
	map[1] = 2 | 0x0400; /* flipped: same tile */
	map[2] = 3;
	map[31] = 3;
	io[0] = 0x0100;   /* mode 0, BG0 on */
	io[4] = 31u << 8; /* BG0CNT: 4bpp, charblock 0, screenblock 31 */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 3);
	assert_event(&b.out, 0, AGB_OP_REF, 1, 4, 0);
	assert_event(&b.out, 1, AGB_OP_REF, 1, 4, 0); /* tile 2 = tile 1 by content */
	assert_event(&b.out, 2, AGB_OP_REF, 2, 4, 0);
	assert_int_equal(b.ids, 3); /* 0 transparent, 1, 2 */
	assert_true(b.hash[1] == agb_rec_fnv64((const uint8_t *)(vram + 16), 32));

	io[8] = 8; /* HOFS 8: column 0 leaves, column 30 enters (map 30: tile 0), 31 not yet */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 4);
	assert_event(&b.out, 3, AGB_OP_UNREF, 1, 4, 0);
	io[8] = 9; /* a pixel of column 31 shows */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 5);
	assert_event(&b.out, 4, AGB_OP_REF, 2, 4, 0);
	map[2] = 1; /* a cell changes tile: ref the new one, then unref the old */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 7);
	assert_event(&b.out, 5, AGB_OP_REF, 1, 4, 0);
	assert_event(&b.out, 6, AGB_OP_UNREF, 2, 4, 0);
	io[0] = 0x0180; /* forced blank: nothing shows */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 10);
	io[0] = 0x0100;
	io[4] |= 0x80; /* 8bpp: the same map reads 64-byte tiles */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_true(b.out.n > 10);
	assert_int_equal(b.out.ev[10].op, AGB_OP_REF);
	assert_int_equal(b.out.ev[10].size, 8);
	agb_rec_bg_release(&b);
	free(vram);
}

/* An affine BG (mode 1, BG2): 8bpp tiles, a byte map, cells under the transformed screen. */
static void test_bg_affine(void **state)
{
	struct agb_rec_bg b;
	uint16_t io[512] = {0};
	uint16_t *vram = calloc(0x8000, sizeof *vram);
	(void)state;
	assert_non_null(vram);
	assert_int_equal(agb_rec_bg_init(&b), 0);
	for (unsigned w = 0; w < 32; w++)
		vram[1 * 32 + w] = 0x0505; /* 8bpp tile 1 at charblock 0 */
	uint8_t *map = (uint8_t *)vram + 0xF800;
	map[0] = 1;      /* cell (0,0) */
	map[15] = 1;     /* cell (15,0): x 120..127, on screen */
	io[0] = 0x0401;  /* mode 1, BG2 on */
	io[6] = 31u << 8; /* BG2CNT: 128x128, screenblock 31, no wraparound */
	io[0x10] = 0x100; /* PA = 1.0 */
	io[0x13] = 0x100; /* PD = 1.0 */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 2);
	assert_event(&b.out, 0, AGB_OP_REF, 1, 8, 0);
	assert_event(&b.out, 1, AGB_OP_REF, 1, 8, 0);
	io[0x14] = 0x800; /* X = 8.0: the screen starts at pixel 8 of the map; cell 0 leaves */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 3);
	assert_event(&b.out, 2, AGB_OP_UNREF, 1, 8, 0);
	io[6] |= 0x2000; /* wraparound: the map repeats across the screen, cell 0 is back */
	assert_int_equal(agb_rec_bg_sample(&b, io, vram), 0);
	assert_int_equal(b.out.n, 4);
	assert_event(&b.out, 3, AGB_OP_REF, 1, 8, 0);
	agb_rec_bg_release(&b);
	free(vram);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_heap_calls), cmocka_unit_test(test_heap_not_events),
	        cmocka_unit_test(test_heap_many),  cmocka_unit_test(test_heap_arena),
	        cmocka_unit_test(test_obj),        cmocka_unit_test(test_bg),
	        cmocka_unit_test(test_bg_affine),  cmocka_unit_test(test_loading_frames),
	        cmocka_unit_test(test_loaded_sites),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
