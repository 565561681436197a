/* test_corruption: every core's invariant checker (the `check` of agb/heap.h, which --check,
 * the fuzzers and every core suite lean on) catches each kind of damage it claims to. Each
 * case builds a small known state through the core's own calls, damages one word of metadata
 * the way a stray store or a bug would, and asserts that check() fails with that exact
 * message (and, for the checkers that take a NULL `why`, that it still fails without one).
 * Damage a checker cannot tell from a sound state is not listed. Also: each core's init
 * refuses the configurations its contract names, with the status it names. Core `tree` is
 * covered by its own suite. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "agb/bestfit.h"
#include "agb/buddy.h"
#include "agb/bump.h"
#include "agb/firstfit.h"
#include "agb/heap.h"
#include "agb/machine.h"
#include "agb/oam.h"
#include "agb/obj.h"
#include "agb/obj_fast.h"
#include "agb/palstack.h"
#include "agb/regions.h"
#include "agb/slots.h"
#include "agb/stack2.h"
#include "agb/tiles.h"
#include "agb/tlsf.h"
#include "machine_fixture.h"

static uint64_t state[AGB_HEAP_STATE_MAX / 8];
static const struct agb_heap_core *core;

#define META 0x03000000u
static const struct agb_heap_config ewram4k = {AGB_MEM_EWRAM, 4096u, META, 0x4000u, 0};
static const struct agb_heap_config objvram = {AGB_MEM_VRAM_OBJ, 32768u, META, 0x4000u, 0};

static void start(const char *name, const struct agb_heap_config *cfg)
{
	core = agb_heap_core_find(name);
	assert_non_null(core);
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	assert_int_equal(core->init(state, M, cfg), AGB_HEAP_OK);
}

static uint32_t take(uint32_t size)
{
	uint32_t g = 0, a = core->alloc(state, size, 1, &g);
	assert_int_not_equal(a, AGB_NULL);
	return a;
}

static uint32_t peek32(uint32_t a)
{
	return AGB_PEEK32(M, a);
}

static uint32_t peek16(uint32_t a)
{
	return AGB_PEEK16(M, a);
}

static void poke32(uint32_t a, uint32_t v)
{
	memcpy(agb_machine_host(M, a, 4), &v, 4);
}

static void poke16(uint32_t a, uint32_t v)
{
	uint16_t h = (uint16_t)v;
	memcpy(agb_machine_host(M, a, 2), &h, 2);
}

static void poke8(uint32_t a, uint32_t v)
{
	*agb_machine_host(M, a, 1) = (uint8_t)v;
}

static void intact(void)
{
	const char *why = NULL;
	if (core->check(state, &why) != 0)
		fail_msg("%s: the undamaged state fails its check: %s", core->name, why);
}

/* check() must fail with exactly `msg`; `null_ok`: the checker also takes why == NULL. */
static void damaged_as(const char *msg, int null_ok)
{
	const char *why = NULL;
	if (core->check(state, &why) == 0)
		fail_msg("%s: check() passed over: %s", core->name, msg);
	if (why == NULL || strcmp(why, msg) != 0)
		fail_msg("%s: check() said \"%s\", expected \"%s\"", core->name,
			 why != NULL ? why : "(nothing)", msg);
	if (null_ok)
		assert_int_not_equal(core->check(state, NULL), 0);
}

#define damaged(msg) damaged_as((msg), 1)

struct count_runs {
	uint32_t runs, bytes;
};

static void count_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct count_runs *c = ctx;
	(void)addr;
	(void)kind;
	c->runs++;
	c->bytes += bytes;
}

/* walk() over a damaged pool still ends, within the pool. */
static void walk_bounded(uint32_t arena_bytes)
{
	struct count_runs c = {0, 0};
	core->walk(state, count_run, &c);
	assert_true(c.runs >= 1 && c.bytes <= arena_bytes);
}

/* ---- tlsf and firstfit (boundary tags): a, b, c of 32 bytes, b freed, a free tail ---- */

struct tags {
	uint32_t ha, hb, hc, sb, tail;
};

static struct tags tags_state(const char *name)
{
	struct tags t;
	uint32_t a, b, c;
	start(name, &ewram4k);
	a = take(32);
	b = take(32);
	c = take(32);
	core->free(state, b);
	t.ha = a - 4u;
	t.hb = b - 4u;
	t.hc = c - 4u;
	t.sb = peek32(t.hb) & 0x7FFF8u; /* the size bits */
	t.tail = t.hc + (peek32(t.hc) & 0x7FFF8u);
	intact();
	return t;
}

/* The damage both boundary-tag checkers see in the block chain, with their own messages: a
 * size out of range (the walk still ends), a wrong PREV_FREE bit, two free neighbours, a footer
 * that disagrees with its header, header bits beyond size and flags, a starts bit that
 * disagrees with its block (set for a free one, clear for a used one) and one set where no
 * block starts (inside a used block, at the sentinel). */
/* Sets (on != 0) or clears the starts bit of the grid position at b in the bitmap at `starts`
 * whose first position is `first` (src/agbmem/common/tags.h). */
static void starts_poke(uint32_t starts, uint32_t first, uint32_t b, int on)
{
	uint32_t half = starts + (((b - first) >> 6) & ~1u), bit = 1u << (((b - first) >> 3) & 15u);
	poke16(half, on ? peek16(half) | bit : peek16(half) & ~bit);
}

static void tags_chain_damage(const char *name, const char *const msg[7], const uint32_t *starts,
			      const uint32_t *first, uint32_t arena_bytes)
{
	struct tags t = tags_state(name);
	poke32(t.ha, 8);
	damaged(msg[0]);
	poke32(t.ha, 0);
	damaged(msg[0]);
	walk_bounded(4096);
	t = tags_state(name);
	poke32(t.ha, peek32(t.ha) | 2u);
	damaged(msg[1]);
	t = tags_state(name);
	poke32(t.hc, (peek32(t.hc) & 0x7FFFFu) | 1u); /* a free header: no address tag */
	damaged(msg[2]);
	t = tags_state(name);
	poke32(t.hb + t.sb - 4u, t.sb + 8u);
	damaged(msg[3]);
	t = tags_state(name);
	poke32(t.ha, peek32(t.ha) ^ 0x00080000u);
	damaged(msg[4]);
	t = tags_state(name);
	poke32(t.hb, peek32(t.hb) | 0x80000000u);
	damaged(msg[4]);
	t = tags_state(name);
	starts_poke(*starts, *first, t.ha, 0); /* a used block's bit clear */
	damaged(msg[5]);
	t = tags_state(name);
	starts_poke(*starts, *first, t.hb, 1); /* a free block's bit set */
	damaged(msg[5]);
	t = tags_state(name);
	starts_poke(*starts, *first, t.ha + 8u, 1); /* inside a used block */
	damaged(msg[6]);
	t = tags_state(name);
	starts_poke(*starts, *first, *first + arena_bytes - 8u, 1); /* the sentinel's */
	damaged(msg[6]);
}

static const char *const tlsf_chain[7] = {
	"tlsf: block size out of range or misaligned",
	"tlsf: PREV_FREE bit disagrees with the previous block",
	"tlsf: two adjacent free blocks (missed coalescing)",
	"tlsf: free block footer disagrees with its header",
	"tlsf: header has bits beyond its size and flags",
	"tlsf: starts bit wrong (a used block's must be set, a free block's clear)",
	"tlsf: starts bitmap has a bit where no used block starts"};
static const char *const firstfit_chain[7] = {
	"firstfit: block size out of range or misaligned",
	"firstfit: PREV_FREE bit disagrees with the previous block",
	"firstfit: two adjacent free blocks (missed coalescing)",
	"firstfit: footer disagrees with header",
	"firstfit: header has bits beyond its size and flags",
	"firstfit: starts bit wrong (a used block's must be set, a free block's clear)",
	"firstfit: starts bitmap has a bit where no used block starts"};

static void tlsf_damage(void **st)
{
	(void)st;
	struct tags t;
	agb_tlsf *T = (agb_tlsf *)state;
	const uint32_t head_b = 32u + (40u >> 3) * 4u; /* class (0, 5) of a 40-byte block */

	tags_chain_damage("tlsf", tlsf_chain, &T->starts, &T->first, ewram4k.arena_bytes);
	t = tags_state("tlsf");
	assert_int_equal(t.sb, 40);

	t = tags_state("tlsf");
	poke32(T->ctrl + head_b, AGB_NULL);
	damaged("tlsf: free block missing from its class list");

	t = tags_state("tlsf");
	poke32(T->sentinel, 0x100u);
	damaged("tlsf: sentinel damaged");
	poke32(T->sentinel, 0);
	damaged("tlsf: sentinel PREV_FREE bit wrong");

	t = tags_state("tlsf");
	poke32(T->ctrl, peek32(T->ctrl) | (1u << 20));
	damaged("tlsf: first-level bitmap has bits beyond the last level");
	t = tags_state("tlsf");
	poke32(T->ctrl, peek32(T->ctrl) | (1u << 3));
	damaged("tlsf: first-level bit disagrees with its second-level bitmap");
	t = tags_state("tlsf");
	poke16(T->ctrl + 4u, peek16(T->ctrl + 4u) | 4u);
	damaged("tlsf: second-level bit disagrees with its list");

	t = tags_state("tlsf");
	poke32(t.hb + 4u, 0x03001004u);
	damaged("tlsf: free-list link outside the pool");
	poke32(t.hb + 4u, t.ha);
	damaged("tlsf: used block on a free list");
	poke32(t.hb + 4u, t.tail);
	damaged("tlsf: free block on the wrong class list");
	t = tags_state("tlsf");
	poke32(t.hb + 8u, t.ha);
	damaged("tlsf: free-list prev link broken");

	t = tags_state("tlsf");
	T->free_bytes += 8u;
	damaged("tlsf: observation counters disagree with the pool");
}

static void firstfit_damage(void **st)
{
	(void)st;
	struct tags t;
	agb_firstfit *F = (agb_firstfit *)state;

	tags_chain_damage("firstfit", firstfit_chain, &F->starts, &F->first, ewram4k.arena_bytes);
	t = tags_state("firstfit");
	F->head = t.tail;
	damaged("firstfit: free list not the free blocks in address order");

	t = tags_state("firstfit");
	poke32(t.hb + 8u, t.ha);
	damaged("firstfit: prev link broken");

	t = tags_state("firstfit");
	poke32(F->sentinel, 0x100u);
	damaged("firstfit: block chain does not end at an intact sentinel");
	poke32(F->sentinel, 0);
	damaged("firstfit: sentinel PREV_FREE bit wrong");

	t = tags_state("firstfit");
	F->tail = t.hb;
	damaged("firstfit: free list has extra blocks or a wrong tail");

	t = tags_state("firstfit");
	F->free_bytes += 8u;
	damaged("firstfit: observation counters disagree with the pool");
}

/* ---- buddy: a (16 B at 0), b (16 B at 16, freed), c (64 B at 64) ---- */

struct buddy_st {
	uint32_t a, b, c;
};

static struct buddy_st buddy_state(void)
{
	struct buddy_st s;
	start("buddy", &ewram4k);
	s.a = take(16);
	s.b = take(16);
	s.c = take(64);
	assert_int_equal(s.b - s.a, 16);
	assert_int_equal(s.c - s.a, 64);
	core->free(state, s.b);
	intact();
	return s;
}

/* The order-map nibble of unit u. */
static void buddy_set_order(uint32_t u, uint32_t k)
{
	agb_buddy *B = (agb_buddy *)state;
	uint32_t a = B->ordermap + (u >> 2) * 2u, sh = (u & 3u) * 4u;
	poke16(a, (peek16(a) & ~(15u << sh)) | (k << sh));
}

static void buddy_set_free_bit(uint32_t u)
{
	agb_buddy *B = (agb_buddy *)state;
	uint32_t a = B->freemap + (u >> 5) * 4u;
	poke32(a, peek32(a) | (1u << (u & 31u)));
}

static void buddy_damage(void **st)
{
	(void)st;
	agb_buddy *B = (agb_buddy *)state;
	struct buddy_st s;

	s = buddy_state();
	buddy_set_order(0, B->orders);
	damaged("buddy: block order misaligned or past the pool");
	walk_bounded(4096);

	s = buddy_state();
	buddy_set_order(5, 0); /* unit 5 lies inside c (units 4-7) */
	damaged("buddy: a unit inside a block is marked as a block start");

	s = buddy_state();
	buddy_set_free_bit(0); /* a looks free next to its free buddy b */
	damaged("buddy: two free buddies left unmerged");

	s = buddy_state();
	buddy_set_free_bit(5);
	damaged("buddy: free bitmap marks something other than free block starts");

	s = buddy_state();
	poke32(B->heads + 10u * 4u, AGB_MEM_EWRAM);
	damaged("buddy: list of an order the pool cannot have");

	s = buddy_state();
	poke32(s.b, 0x03000010u); /* b heads list 0: its next link */
	damaged("buddy: free-list link outside the pool");
	poke32(s.b, s.a);
	damaged("buddy: list entry is not a free block of the list's order");
	s = buddy_state();
	poke32(s.b + 4u, s.a);
	damaged("buddy: free-list prev link broken");

	s = buddy_state();
	poke32(B->heads, AGB_NULL);
	damaged("buddy: free block missing from its order's list");

	s = buddy_state();
	B->free_bytes += 16u;
	damaged("buddy: observation counters disagree with the pool");
	(void)s;
}

/* ---- slots: two 16-byte slots taken ---- */

static void slots_damage(void **st)
{
	(void)st;
	static const struct agb_heap_config cfg = {AGB_MEM_EWRAM, 65536u, META, 0x4000u, 0};
	agb_slots *S = (agb_slots *)state;
	uint32_t x, head;

	start("slots", &cfg);
	x = take(16);
	take(16);
	intact();
	head = peek32(S->heads);
	poke32(S->heads, S->base[0] + 4u);
	damaged("slots: free-list entry is not a slot of its class");
	poke32(S->heads, x);
	damaged("slots: a used slot is on the free list");
	poke32(S->heads, head);
	poke32(head, head); /* the list loops on its first slot */
	damaged("slots: free list longer than the class's free count (cycle?)");

	start("slots", &cfg);
	take(16);
	S->free_count[0]++;
	damaged("slots: free list, bitmap and free count disagree");
}

/* ---- the linear allocators: pointers and marker tables in the state ---- */

static void stack2_damage(void **st)
{
	(void)st;
	agb_stack2 *S = (agb_stack2 *)state;
	uint32_t saved;

	start("stack2", &ewram4k);
	take(64);
	assert_int_equal(core->mark(state, 1), AGB_VERB_DONE);
	take(32);
	assert_int_equal(core->side(state, 1), AGB_VERB_DONE);
	take(16);
	assert_int_equal(core->mark(state, 2), AGB_VERB_DONE);
	take(16);
	intact();

	saved = S->low;
	S->low = S->high + 4u;
	damaged("stack2: pointers out of order (start <= floor <= low <= high <= end)");
	S->low = saved;
	S->side = 2;
	damaged("stack2: side or marker count out of range");
	S->side = 1;
	saved = S->last_low;
	S->last_low = S->low;
	damaged("stack2: last low block outside the low side");
	S->last_low = saved;
	intact();

	/* marker 0 is the low one (at start + 64), marker 1 the high one */
	saved = peek32(S->marks + 4u);
	poke32(S->marks + 4u, S->low + 4u);
	damaged("stack2: low markers not increasing below the low top");
	poke32(S->marks + 4u, saved);
	saved = peek32(S->marks + 12u);
	poke32(S->marks + 12u, (S->high - 4u) | 1u);
	damaged("stack2: high markers not decreasing above the high top");
	poke32(S->marks + 12u, saved);
	intact();
	S->floor_low = S->start;
	damaged("stack2: low floor is not the newest low marker");
}

static void bump_damage(void **st)
{
	(void)st;
	agb_bump *B = (agb_bump *)state;
	uint32_t saved;

	start("bump", &ewram4k);
	take(64);
	assert_int_equal(core->mark(state, 1), AGB_VERB_DONE);
	take(32);
	intact();

	saved = B->top;
	B->top = B->arena_end + 4u;
	damaged("bump: pointers out of order (start <= floor <= top <= end)");
	B->top = saved;
	B->nmarks = AGB_BUMP_MARKS + 1u;
	damaged("bump: marker count beyond the table");
	B->nmarks = 1;
	saved = B->last;
	B->last = B->top;
	damaged("bump: last block outside the used part");
	B->last = saved;
	intact();
	saved = peek32(B->marks + 4u);
	poke32(B->marks + 4u, B->top + 4u);
	damaged("bump: markers not non-decreasing below top");
	poke32(B->marks + 4u, saved);
	B->floor = B->start;
	damaged("bump: floor is not the newest marker");
}

/* ---- OBJ VRAM: obj, obj-fast, oam ---- */

static void obj_damage(void **st)
{
	(void)st;
	agb_obj *O = (agb_obj *)state;
	uint32_t a;

	start("obj", &objvram);
	a = take(128); /* blocks 0-3 */
	take(32);      /* block 4 */
	intact();
	poke8(O->map + 6u, AGB_OBJ_CONTINUE); /* block 5 is free */
	damaged_as("obj: CONTINUE block without a USED block before it", 0);
	poke8(O->map + 6u, 7);
	damaged_as("obj: map byte is not UNUSED, USED or CONTINUE", 0);
	poke8(O->map + 6u, AGB_OBJ_UNUSED);
	intact();
	/* a 2-block allocation at block 5: not a multiple of its rounded size */
	poke8(O->map + 5u, AGB_OBJ_USED);
	poke8(O->map + 6u, AGB_OBJ_CONTINUE);
	damaged_as("obj: allocation not at a multiple of its rounded size", 0);
	(void)a;
}

static void obj_fast_damage(void **st)
{
	(void)st;
	agb_obj_fast *F = (agb_obj_fast *)state;

	start("obj-fast", &objvram);
	take(128);
	take(32);
	intact();
	poke32(F->start, peek32(F->start) | 0x20u); /* a start bit on free block 5 */
	damaged_as("obj-fast: start bit on a free block", 0);

	start("obj-fast", &objvram);
	take(128);
	F->sum[0] = 0;
	damaged_as("obj-fast: summary word does not match the free bitmap", 0);

	start("obj-fast", &objvram);
	take(128);
	F->cnt[0]++;
	damaged_as("obj-fast: level count does not match the free bitmap", 0);

	start("obj-fast", &objvram);
	take(128);
	poke32(F->start, 0); /* block 0 used, but no allocation starts there */
	damaged_as("obj-fast: used block after a free one without a start bit", 0);

	start("obj-fast", &objvram);
	take(128);
	/* blocks 0-3 used; a start bit on block 1 makes a 3-block allocation at block 1 */
	poke32(F->start, 0x3u);
	damaged_as("obj-fast: allocation not at a multiple of its rounded size", 0);

	/* bitmap mode: blocks below 512 are not usable */
	{
		const struct agb_heap_config bm = {AGB_MEM_VRAM_OBJ, 32768u, META, 0x4000u,
		                                   AGB_HEAP_FLAG_OBJ_BITMAP_MODE};
		start("obj-fast", &bm);
		intact();
		poke32(F->free, 1u);
		damaged_as("obj-fast: free or start bit outside the usable blocks", 0);
	}
}

static void oam_damage(void **st)
{
	(void)st;
	agb_oam *O = (agb_oam *)state;
	uint32_t s0, s1, s2;

	start("oam", &objvram);
	s0 = agb_oam_show(O, 10);
	s1 = agb_oam_show(O, 20);
	s2 = agb_oam_show(O, 30);
	intact();
	poke8(O->next + s0, 200); /* a link past the 128 entries */
	damaged_as("oam: Z list has a cycle or a bad link", 0);
	poke8(O->next + s0, s0);
	damaged_as("oam: Z list has a cycle or a bad link", 0);
	poke8(O->next + s0, s1);
	intact();
	poke16(O->shadow + 8u * s1 + 6u, 5); /* s1's depth drops below s0's */
	damaged_as("oam: Z list out of order", 0);
	poke16(O->shadow + 8u * s1 + 6u, 20);
	poke16(O->shadow + 8u * s2 + 4u, peek16(O->shadow + 8u * s2 + 4u) ^ (3u << 10));
	damaged_as("oam: priority bits do not match the layer depths", 0);

	start("oam", &objvram);
	s0 = agb_oam_show(O, 10);
	O->free_head = (uint8_t)s0;
	damaged_as("oam: free list overlaps the Z list or has a cycle", 0);
	start("oam", &objvram);
	O->free_head = AGB_OAM_NONE;
	damaged_as("oam: a slot is in neither the Z list nor the free list", 0);
	/* obj-fast's damage is oam's too */
	start("oam", &objvram);
	take(64);
	O->vram.sum[0] = 0;
	damaged_as("obj-fast: summary word does not match the free bitmap", 0);
}

/* ---- palstack's stacks (the bank tables are palbanks' too) ---- */

static void palstack_damage(void **st)
{
	(void)st;
	static const struct agb_heap_config cfg = {AGB_MEM_PAL, AGB_PAL_SIZE, AGB_MEM_EWRAM,
	                                           0x10000u, 0};
	agb_palstack *P = (agb_palstack *)state;
	uint32_t d = 0, saved;

	start("palstack", &cfg);
	assert_int_equal(core->pal_push(state, 0, 1, AGB_MEM_EWRAM + 0x8000u, 32, &d),
	                 AGB_VERB_DONE);
	assert_int_equal(core->pal_load(state, 1, 2, AGB_MEM_EWRAM + 0x8000u, 16, &d), 15);
	intact();

	saved = peek32(P->stacks);
	poke32(P->stacks, saved | 0x20u); /* cover 34 banks */
	damaged_as("palette stack header out of range", 0);
	poke32(P->stacks, saved + 0x100u); /* depth 2 with one frame */
	damaged_as("palette stack frames do not fill the buffer top", 0);
	poke32(P->stacks, (saved & ~0xFFu) | 1u); /* covers 1 bank, the frame says 2 */
	damaged_as("palette stack frame disagrees with the covered extent", 0);
	poke32(P->stacks, saved & 0xFFu); /* depth 0 with a frame in the buffer */
	damaged_as("palette stack depth disagrees with its frames", 0);
	poke32(P->stacks, saved);
	intact();

	/* the bank tables (pal_tables.h), side 1: one palette at bank 15 */
	saved = peek32(P->meta + 4u);
	poke32(P->meta + 4u, saved | 0x10000u);
	damaged_as("bank mask has bits above bank 15", 0);
	poke32(P->meta + 4u, saved | 1u);
	damaged_as("bank mask disagrees with the palettes", 0);
	poke32(P->meta + 4u, saved);
	poke32(P->meta + 8u + (16u + 3u) * 8u, 99); /* a key on a free bank */
	damaged_as("a bank with no palette has a key", 0);
	poke32(P->meta + 8u + (16u + 3u) * 8u, 0);
	saved = peek32(P->meta + 8u + (16u + 15u) * 8u + 4u);
	poke32(P->meta + 8u + (16u + 15u) * 8u + 4u, saved + 1u); /* two refs: palstack shares none */
	damaged_as("palette entry with a bad reference or colour count", 0);
	poke32(P->meta + 8u + (16u + 15u) * 8u + 4u, 1u | 32u << 16); /* 2 banks from bank 15 */
	damaged_as("an 8bpp palette does not start at bank 0", 0);
	poke32(P->meta + 8u + (16u + 15u) * 8u + 4u, saved);
	intact();
}

/* ---- tiles: three 4bpp tiles and one 8bpp tile resident ---- */

static uint32_t b8; /* the 8bpp tile's first block */

static void tiles_state(void)
{
	static const struct agb_heap_config cfg = {AGB_MEM_VRAM_BG, AGB_VRAM_BG_SIZE, AGB_MEM_EWRAM,
	                                           AGB_EWRAM_SIZE, 0};
	agb_tiles *T = (agb_tiles *)state;
	uint32_t d = 0;
	start("tiles", &cfg);
	assert_int_equal(agb_tiles_ref(T, 5, 4, &d), 2); /* blocks 2, 3: a 4bpp pair */
	assert_int_equal(agb_tiles_ref(T, 6, 4, &d), 3);
	assert_int_equal(agb_tiles_ref(T, 7, 4, &d), 4);
	b8 = agb_tiles_ref(T, 9, 8, &d); /* a pair of the 8bpp-only part */
	assert_int_equal(b8 % 2u, 0);
	intact();
}

static void tiles_damage(void **st)
{
	(void)st;
	agb_tiles *T = (agb_tiles *)state;
	const uint32_t list_a = 0, list_b = 2, list_c = 4;
	uint32_t saved;

	tiles_state();
	poke16(T->refc + 2u, 1);
	damaged_as("tiles: the transparent pair is not reserved", 0);
	tiles_state();
	poke32(T->vram + 8u, 0x11111111u);
	damaged_as("tiles: the transparent tile is not all colour 0", 0);
	tiles_state();
	poke16(T->refc + 2u * 8u, 0xFFFCu); /* RESERVED on a free block */
	damaged_as("tiles: reserved marker outside pair 0", 0);
	tiles_state();
	poke16(T->refc + 2u * 2u, 0x4001u); /* a count above AGB_TILES_COUNT_MAX */
	damaged_as("tiles: overflowed reference count", 0);
	tiles_state();
	poke16(T->meta + 6u, 1u); /* the shared half's eviction hand on the transparent pair */
	damaged_as("tiles: eviction hand outside its region", 0);
	tiles_state();
	poke16(T->r2r + 2u, 2u); /* the 8bpp-only part's hand below the part */
	damaged_as("tiles: eviction hand outside its region", 0);
	tiles_state();
	poke16(T->refc + 2u * b8, 0xFFFEu); /* a tail marker on the 8bpp tile's even block */
	damaged_as("tiles: 8bpp tail without its head", 0);
	tiles_state();
	saved = peek16(T->refc + 2u * 8u); /* block 8: head of a free pair on list-a */
	poke16(T->refc + 2u * 8u, 1);
	poke16(T->r2r + 2u * 8u, 11);
	poke16(T->map4 + 2u * 11u, 8);
	damaged_as("tiles: pair tail whose head is not a free pair", 0);
	(void)saved;

	tiles_state();
	poke16(T->r2r + 2u * 2u, 0);
	damaged_as("tiles: RAM->ROM entry out of range", 0);
	tiles_state();
	poke16(T->map4 + 2u * 5u, 3);
	damaged_as("tiles: ROM->RAM and RAM->ROM maps disagree", 0);

	/* the free lists */
	tiles_state();
	poke16(T->meta + list_a, 0x7000u);
	damaged_as("tiles: free list leaves the pool or loops", 0);
	tiles_state();
	poke16(T->meta + list_a, 2u);
	damaged_as("tiles: block on a free list is not marked free", 0);
	tiles_state();
	saved = peek16(T->meta + list_c); /* block 5, partner of tile 7's block 4 */
	assert_int_equal(saved, 5);
	poke16(T->meta + list_a, saved);
	damaged_as("tiles: list-a/b entry is not a whole even pair", 0);
	tiles_state();
	poke16(T->meta + list_b, peek16(T->meta + list_a));
	damaged_as("tiles: pair on the wrong list for its half", 0);
	tiles_state();
	poke16(T->meta + list_c, peek16(T->meta + list_a));
	damaged_as("tiles: both halves of a pair free but not merged onto list-a", 0);
	tiles_state();
	poke16(T->r2r + 2u * 5u, 2u);
	damaged_as("tiles: list-c prev link broken", 0);
	tiles_state();
	poke16(T->meta + list_c, 0x7FFFu); /* an empty list-c: block 5 on no list */
	damaged_as("tiles: a free block is on no list (or on two)", 0);

	/* the ROM->RAM maps */
	tiles_state();
	poke16(T->map4 + 2u * 20u, 9000u);
	damaged_as("tiles: ROM->RAM entry points outside the tile blocks", 0);
	tiles_state();
	poke16(T->map4 + 2u * 20u, 2u);
	damaged_as("tiles: stale ROM->RAM entry", 0);
}

/* ---- init refuses what each contract names ---- */

struct bad_init {
	const char *core;
	struct agb_heap_config cfg;
	int status;
};

/* ---- bestfit (2-bit map, bins, long-class lists): a (3 blocks) used, b (5) free in its bin, c
 * (375) a long used run, d (2) used, e (375) a long free run in its class, f (1) used, then the
 * top run ---- */

struct bf {
	agb_bestfit *t;
	uint32_t a, b, c, d, e, f, len_c, top;
};

static const struct agb_heap_config ewram64k = {AGB_MEM_EWRAM, 65536u, META, 0x4000u, 0};

static uint32_t bf_index(const struct bf *s, uint32_t addr)
{
	return (addr - s->t->blocks) >> 3;
}

/* Sets map entry i to v (0 free, 1 used, 2 long start, 3 end). */
static void bf_entry(const struct bf *s, uint32_t i, uint32_t v)
{
	uint32_t hw = s->t->map + ((i >> 3) << 1), sh = (i & 7u) << 1;
	poke16(hw, (peek16(hw) & ~(3u << sh)) | (v << sh));
}

/* The class list head of long runs of `size` blocks (include/agb/bestfit.h: two classes per
 * power of two from 2^8). */
static uint32_t bf_class(uint32_t size)
{
	uint32_t fl = 8u;
	while ((size >> (fl + 1u)) != 0u)
		fl++;
	return ((fl - 8u) << 1) | ((size >> (fl - 1u)) & 1u);
}

static struct bf bf_state(void)
{
	struct bf s;
	start("bestfit", &ewram64k);
	s.t = (agb_bestfit *)state;
	s.a = take(24);
	s.b = take(40);
	s.c = take(3000);
	s.d = take(16);
	s.e = take(3000);
	s.f = take(8);
	core->free(state, s.b);
	core->free(state, s.e);
	s.len_c = 375u;
	s.top = peek16(s.t->ctrl + 2u);
	assert_int_equal(s.top, bf_index(&s, s.f) + 1u);
	intact();
	return s;
}

static void bestfit_damage(void **st)
{
	(void)st;
	struct bf s = bf_state();
	const uint32_t bc = bf_index(&s, s.c), bb = bf_index(&s, s.b), be = bf_index(&s, s.e);
	const uint32_t len_hw = s.t->map + ((bc >> 3) << 1) + 2u;
	const uint32_t lheads = s.t->heads + 2u * AGB_BESTFIT_SMALL, ce = bf_class(375u);

	/* a long used run's encoding */
	poke16(len_hw, s.len_c);
	damaged("long used run's length halfword is not encoded");
	poke16(len_hw, 0x4000u | 0x3000u);
	damaged("long used run runs past the pool");
	s = bf_state();
	poke16(len_hw, 0x4000u | 2u);
	damaged("long used run too short for its encoding");
	s = bf_state();
	bf_entry(&s, bc + s.len_c - 1u, 1u);
	damaged("long used run does not end with an end entry");
	s = bf_state();
	bf_entry(&s, bc + 40u, 1u);
	damaged("inner map entry of a long used run is not free");

	/* a short used run's */
	s = bf_state();
	bf_entry(&s, 1u, 0u);
	damaged("bad map entry inside a short used run");

	/* the free runs in address order */
	s = bf_state();
	poke16(s.b + 6u, 0u);
	damaged("free run size out of range");
	walk_bounded(ewram64k.arena_bytes);
	s = bf_state();
	bf_entry(&s, bb + 2u, 1u);
	damaged("map entry inside a free run is not free");
	s = bf_state();
	poke16(s.b + 4u * 8u + 6u, 9u);
	damaged("boundary tag disagrees with the node size");
	s = bf_state();
	poke16(s.b + 2u, 0x7FF0u);
	damaged("free run not linked into its bin or class list");

	/* the top run */
	s = bf_state();
	poke16(s.t->ctrl + 2u, s.t->nblocks + 1u);
	damaged("top run starts past the pool");
	s = bf_state();
	bf_entry(&s, s.top + 5u, 1u);
	damaged("map entry inside the top run is not free");
	s = bf_state();
	poke16(s.t->ctrl + 2u, s.t->nblocks - 10u);
	damaged("top run short enough for a bin");

	/* the bins */
	/* The summary is kept lazily (a set bit may stand for an emptied word): a clear bit over
	 * a non-empty word is the damage. Word 0 holds the bin of 5 blocks' bit. */
	s = bf_state();
	assert_int_not_equal(peek32(s.t->ctrl + 8u), 0);
	poke16(s.t->ctrl + 4u, peek16(s.t->ctrl + 4u) & ~1u);
	damaged("summary bit clear for a non-empty bitmap word");
	s = bf_state();
	poke16(s.t->ctrl + 4u, peek16(s.t->ctrl + 4u) | 0x100u);
	damaged("summary bit set beyond the bitmap words");
	s = bf_state();
	poke16(s.t->heads + 2u * (5u - 1u), 0x7FF0u);
	damaged("bin head out of range");
	poke16(s.t->heads + 2u * (5u - 1u), 0u);
	damaged("bin entry is not a free block");
	s = bf_state();
	poke32(s.t->ctrl + 8u, peek32(s.t->ctrl + 8u) | (1u << 2)); /* bin of 3 blocks: b */
	poke16(s.t->heads + 2u * (3u - 1u), bb);
	damaged("free run in the bin of another size");

	/* the long classes */
	s = bf_state();
	poke16(s.t->ctrl, peek16(s.t->ctrl) | 0x8000u);
	damaged("long class bit set beyond the classes");
	s = bf_state();
	poke16(lheads + 2u * ce, 0x7FF0u);
	damaged("long class head out of range");
	poke16(lheads + 2u * ce, 0u);
	damaged("long class entry is not a free block");
	s = bf_state();
	assert_int_equal(ce, 0); /* 257-383 blocks */
	poke16(s.t->ctrl, peek16(s.t->ctrl) | 2u); /* class 1 (384-511 blocks) lists e too */
	poke16(lheads + 2u, be);
	damaged("free run in the wrong long class");

	/* the observation counters */
	s = bf_state();
	s.t->free_blocks++;
	damaged("observation counters disagree with a recount");
}

static void init_refusals(void **st)
{
	(void)st;
	static const struct bad_init cases[] = {
	        {"tlsf", {AGB_MEM_EWRAM + 2u, 4096u, META, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"tlsf", {AGB_MEM_EWRAM, 1u << 19, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_LARGE},
	        {"tlsf", {AGB_MEM_EWRAM, 32u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_SMALL},
	        {"tlsf", {AGB_MEM_EWRAM, 880u, AGB_NULL, 0, 0}, AGB_HEAP_ARENA_TOO_SMALL},
	        {"firstfit", {AGB_MEM_EWRAM + 2u, 4096u, META, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"firstfit", {AGB_MEM_EWRAM, 32u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_SMALL},
	        /* the header's size bits (src/agbmem/common/tags.h) */
	        {"firstfit", {AGB_MEM_EWRAM, 1u << 19, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_LARGE},
	        /* over 32767 blocks: a long run's length no longer fits its encoding */
	        {"tree", {AGB_MEM_EWRAM, 0x44000u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_LARGE},
	        {"buddy", {AGB_MEM_EWRAM + 8u, 4096u, META, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"buddy", {AGB_MEM_EWRAM, 8u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_SMALL},
	        {"buddy", {AGB_MEM_EWRAM, 0x40010u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_LARGE},
	        {"buddy", {AGB_MEM_EWRAM, 4096u, META, 16u, 0}, AGB_HEAP_META_TOO_SMALL},
	        {"slots", {AGB_MEM_EWRAM + 8u, 65536u, META, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"slots", {AGB_MEM_EWRAM, 4096u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_SMALL},
	        {"slots", {AGB_MEM_EWRAM, 65536u, META, 16u, 0}, AGB_HEAP_META_TOO_SMALL},
	        {"slots", {AGB_MEM_EWRAM, 65536u, AGB_NULL, 0, 0}, AGB_HEAP_META_TOO_SMALL},
	        {"slots", {AGB_MEM_EWRAM, 65536u, META + 2u, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"bump", {AGB_MEM_EWRAM + 2u, 4096u, META, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"bump", {AGB_MEM_EWRAM, 64u, AGB_NULL, 0, 0}, AGB_HEAP_ARENA_TOO_SMALL},
	        {"bump", {AGB_MEM_EWRAM, 4096u, META + 2u, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"stack2", {AGB_MEM_EWRAM + 2u, 4096u, META, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"stack2", {AGB_MEM_EWRAM, 64u, AGB_NULL, 0, 0}, AGB_HEAP_ARENA_TOO_SMALL},
	        {"obj", {AGB_MEM_VRAM_OBJ + 16u, 32768u, META, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"obj", {AGB_MEM_VRAM_OBJ, 65536u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_LARGE},
	        {"obj",
	         {AGB_MEM_VRAM_OBJ, 8192u, META, 0x4000u, AGB_HEAP_FLAG_OBJ_BITMAP_MODE},
	         AGB_HEAP_ARENA_TOO_SMALL},
	        {"obj", {AGB_MEM_VRAM_OBJ, 32768u, AGB_NULL, 0, 0}, AGB_HEAP_META_TOO_SMALL},
	        {"obj-fast",
	         {AGB_MEM_VRAM_OBJ, 32768u, META + 2u, 0x4000u, 0},
	         AGB_HEAP_BAD_ALIGNMENT},
	        {"obj-fast",
	         {AGB_MEM_VRAM_OBJ, 65536u, META, 0x4000u, 0},
	         AGB_HEAP_ARENA_TOO_LARGE},
	        {"obj-fast",
	         {AGB_MEM_VRAM_OBJ, 8192u, META, 0x4000u, AGB_HEAP_FLAG_OBJ_BITMAP_MODE},
	         AGB_HEAP_ARENA_TOO_SMALL},
	        {"obj-fast", {AGB_MEM_VRAM_OBJ, 32768u, META, 8u, 0}, AGB_HEAP_META_TOO_SMALL},
	        {"oam", {AGB_MEM_VRAM_OBJ, 32768u, META + 2u, 0x4000u, 0}, AGB_HEAP_BAD_ALIGNMENT},
	        {"oam", {AGB_MEM_VRAM_OBJ, 32768u, META, 64u, 0}, AGB_HEAP_META_TOO_SMALL},
	        {"oam", {AGB_MEM_VRAM_OBJ, 65536u, META, 0x4000u, 0}, AGB_HEAP_ARENA_TOO_LARGE},
	        {"palbanks",
	         {AGB_MEM_PAL, AGB_PAL_SIZE - 2u, META, 0x4000u, 0},
	         AGB_HEAP_ARENA_TOO_SMALL},
	        {"palbanks",
	         {AGB_MEM_PAL, AGB_PAL_SIZE + 2u, META, 0x4000u, 0},
	         AGB_HEAP_ARENA_TOO_LARGE},
	        {"palbanks",
	         {AGB_MEM_PAL + 2u, AGB_PAL_SIZE, META, 0x4000u, 0},
	         AGB_HEAP_BAD_ALIGNMENT},
	        {"palbanks", {AGB_MEM_PAL, AGB_PAL_SIZE, META, 8u, 0}, AGB_HEAP_META_TOO_SMALL},
	        {"palstack", {AGB_MEM_PAL, AGB_PAL_SIZE, META, 8u, 0}, AGB_HEAP_META_TOO_SMALL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct agb_heap_core *c = agb_heap_core_find(cases[i].core);
		int r;
		assert_non_null(c);
		agb_machine_init(M, AGB_WAITCNT_DEFAULT);
		r = c->init(state, M, &cases[i].cfg);
		if (r != cases[i].status)
			fail_msg("%s init case %zu: status %d, expected %d", cases[i].core, i, r,
				 cases[i].status);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tlsf_damage),     cmocka_unit_test(firstfit_damage),
		cmocka_unit_test(buddy_damage),    cmocka_unit_test(slots_damage),
		cmocka_unit_test(stack2_damage),   cmocka_unit_test(bump_damage),
		cmocka_unit_test(obj_damage),      cmocka_unit_test(obj_fast_damage),
		cmocka_unit_test(oam_damage),      cmocka_unit_test(palstack_damage),
		cmocka_unit_test(tiles_damage),    cmocka_unit_test(bestfit_damage),
		cmocka_unit_test(init_refusals),
	};
	return cmocka_run_group_tests(tests, machine_setup, machine_teardown);
}
