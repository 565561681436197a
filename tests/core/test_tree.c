/* The `tree` core: layout, best fit, coalescing, alignment, realloc, and a long randomized run
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
#include "agb/tree.h"

#include "machine_fixture.h"

/* A pool of `bytes` at `arena`, no meta area. */
static int tree_init(agb_tree *t, uint32_t arena, uint32_t bytes)
{
	const struct agb_heap_config cfg = {arena, bytes, AGB_NULL, 0, 0};
	return agb_tree_init(t, M, &cfg);
}

static void assert_ok(agb_tree *t)
{
	const char *why = NULL;
	int bad = agb_tree_check(t, &why);
	if (bad)
		fail_msg("check failed: %s", why);
}

/* ---- walk collection ------------------------------------------------------------------------ */

struct run {
	uint32_t addr, bytes;
	enum agb_run_kind kind;
};

struct runs {
	struct run *v;
	size_t n, cap;
};

static void collect(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct runs *r = ctx;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = realloc(r->v, r->cap * sizeof *r->v);
		assert_non_null(r->v);
	}
	r->v[r->n++] = (struct run){addr, bytes, kind};
}

static void walk_into(agb_tree *t, struct runs *r)
{
	r->n = 0;
	agb_tree_walk(t, collect, r);
}

/* The walk covers the arena exactly, and its free runs agree with stats(). */
static void assert_walk_consistent(agb_tree *t, uint32_t arena, uint32_t bytes, struct runs *r)
{
	walk_into(t, r);
	uint32_t at = arena, free_bytes = 0, runs = 0, largest = 0;
	uint64_t sq = 0;
	for (size_t i = 0; i < r->n; i++) {
		assert_int_equal(r->v[i].addr, at);
		assert_true(r->v[i].bytes > 0);
		at += r->v[i].bytes;
		if (r->v[i].kind == AGB_RUN_FREE) {
			free_bytes += r->v[i].bytes;
			runs++;
			sq += (uint64_t)r->v[i].bytes * r->v[i].bytes;
			if (r->v[i].bytes > largest)
				largest = r->v[i].bytes;
		}
	}
	assert_int_equal(at, arena + bytes);
	struct agb_heap_stats st;
	uint32_t before = agb_machine_accesses(M);
	agb_tree_stats(t, &st);
	assert_int_equal(agb_machine_accesses(M), before);
	assert_int_equal(st.free_bytes, free_bytes);
	assert_int_equal(st.free_runs, runs);
	assert_int_equal(st.largest_free, largest);
	assert_true(st.free_sq_sum == sq);
}

/* ---- basics --------------------------------------------------------------------------------- */

static void init_sizes(void **state)
{
	(void)state;
	agb_tree t;
	struct runs r = {0};
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 0), AGB_HEAP_ARENA_TOO_SMALL);
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 16), AGB_HEAP_ARENA_TOO_SMALL);
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM + 4, 4096), AGB_HEAP_BAD_ALIGNMENT);
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 24), AGB_HEAP_OK);
	assert_int_equal(t.nblocks, 1);
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 64), AGB_HEAP_OK);
	assert_int_equal(t.nblocks, 6);
	assert_int_equal(agb_tree_overhead_bytes(&t), 16);

	/* 256 KiB: 1 header block + 993 map blocks + 31774 blocks; overhead 7952 B = 3.03%. */
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, AGB_EWRAM_SIZE), AGB_HEAP_OK);
	assert_int_equal(t.nblocks, 31774);
	assert_int_equal(agb_tree_overhead_bytes(&t), 7952);
	assert_true(agb_tree_overhead_bytes(&t) * 1000u <= 32u * AGB_EWRAM_SIZE);
	assert_ok(&t);
	assert_walk_consistent(&t, AGB_MEM_EWRAM, AGB_EWRAM_SIZE, &r);

	/* Every size from 24 bytes up: a valid empty pool whose whole free space is one request. */
	for (uint32_t bytes = 24; bytes <= 4096; bytes += 8) {
		assert_int_equal(tree_init(&t, AGB_MEM_IWRAM, bytes), AGB_HEAP_OK);
		assert_ok(&t);
		assert_walk_consistent(&t, AGB_MEM_IWRAM, bytes, &r);
		uint32_t g;
		uint32_t p = agb_tree_alloc(&t, t.nblocks * 8u, 1, &g);
		assert_int_equal(p, t.blocks);
		assert_int_equal(g, t.nblocks * 8u);
		assert_int_equal(agb_tree_alloc(&t, 1, 1, &g), AGB_NULL);
		assert_ok(&t);
		agb_tree_free(&t, p);
		assert_ok(&t);
		assert_walk_consistent(&t, AGB_MEM_IWRAM, bytes, &r);
	}
	/* A tail that is not a whole block is reported, not lost. */
	assert_int_equal(tree_init(&t, AGB_MEM_IWRAM, 1003), AGB_HEAP_OK);
	assert_walk_consistent(&t, AGB_MEM_IWRAM, 1003, &r);
	free(r.v);
}

static void exact_fits_and_full(void **state)
{
	(void)state;
	agb_tree t;
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 1024), AGB_HEAP_OK);
	uint32_t n = t.nblocks;
	uint32_t addr[128];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g;
		addr[i] = agb_tree_alloc(&t, 8, 1, &g);
		assert_int_equal(addr[i], t.blocks + 8u * i); /* carved from the start, in order */
		assert_int_equal(g, 8);
		assert_ok(&t);
	}
	assert_int_equal(agb_tree_alloc(&t, 1, 1, NULL), AGB_NULL);
	for (uint32_t i = 0; i < n; i += 2)
		agb_tree_free(&t, addr[i]);
	assert_ok(&t);
	/* Fragmented: plenty free but no two adjacent blocks. */
	assert_int_equal(agb_tree_alloc(&t, 9, 1, NULL), AGB_NULL);
	assert_int_equal(agb_tree_alloc(&t, 8, 1, NULL) != AGB_NULL, 1);
	for (uint32_t i = 1; i < n; i += 2)
		agb_tree_free(&t, addr[i]);
	assert_ok(&t);
}

static void best_fit_choice(void **state)
{
	(void)state;
	agb_tree t;
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 4096), AGB_HEAP_OK);
	/* holes of 5, 3 and 8 blocks separated by used blocks, then a large tail */
	uint32_t a = agb_tree_alloc(&t, 40, 1, NULL);
	uint32_t s1 = agb_tree_alloc(&t, 8, 1, NULL);
	uint32_t c = agb_tree_alloc(&t, 24, 1, NULL);
	uint32_t s2 = agb_tree_alloc(&t, 8, 1, NULL);
	uint32_t e = agb_tree_alloc(&t, 64, 1, NULL);
	uint32_t s3 = agb_tree_alloc(&t, 8, 1, NULL);
	agb_tree_free(&t, a);
	agb_tree_free(&t, c);
	agb_tree_free(&t, e);
	assert_ok(&t);
	assert_int_equal(agb_tree_alloc(&t, 17, 1, NULL), c); /* 3 blocks: exact */
	assert_int_equal(agb_tree_alloc(&t, 25, 1, NULL), a); /* 4 blocks: the 5-hole, not 8 */
	assert_int_equal(agb_tree_alloc(&t, 64, 1, NULL), e); /* 8 blocks: exact */
	assert_int_equal(agb_tree_alloc(&t, 8, 1, NULL), a + 32); /* the 1 block left of the 5 */
	assert_int_equal(agb_tree_alloc(&t, 8, 1, NULL), s3 + 8); /* now only the tail */
	assert_ok(&t);
	(void)s1;
	(void)s2;
}

static void coalescing(void **state)
{
	(void)state;
	agb_tree t;
	struct agb_heap_stats st;
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 8192), AGB_HEAP_OK);
	uint32_t p[6];
	for (int i = 0; i < 6; i++)
		p[i] = agb_tree_alloc(&t, 8u * (uint32_t)(i + 1) + 100u, 1, NULL);
	agb_tree_stats(&t, &st);
	assert_int_equal(st.free_runs, 1);
	agb_tree_free(&t, p[0]); /* no neighbour free */
	agb_tree_free(&t, p[2]);
	agb_tree_stats(&t, &st);
	assert_int_equal(st.free_runs, 3);
	agb_tree_free(&t, p[1]); /* both sides */
	assert_ok(&t);
	agb_tree_stats(&t, &st);
	assert_int_equal(st.free_runs, 2);
	agb_tree_free(&t, p[4]);
	agb_tree_free(&t, p[3]); /* left only */
	agb_tree_stats(&t, &st);
	assert_int_equal(st.free_runs, 2);
	agb_tree_free(&t, p[5]); /* both sides, onto the tail */
	assert_ok(&t);
	agb_tree_stats(&t, &st);
	assert_int_equal(st.free_runs, 1);
	assert_int_equal(st.free_bytes, t.nblocks * 8u);
	assert_int_equal(st.largest_free, t.nblocks * 8u);
}

static void alignment(void **state)
{
	(void)state;
	agb_tree t;
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM + 0x100, 65536), AGB_HEAP_OK);
	uint32_t live[32];
	int k = 0;
	for (uint32_t align = 1; align <= 4096; align <<= 1) {
		uint32_t g;
		uint32_t p = agb_tree_alloc(&t, 24, align, &g);
		assert_int_not_equal(p, AGB_NULL);
		assert_int_equal(p % align, 0);
		assert_int_equal(g, 24);
		assert_ok(&t);
		live[k++] = p;
	}
	/* Best fit for an aligned request: a small hole that holds the aligned start wins. */
	uint32_t big = agb_tree_alloc(&t, 4096, 4096, NULL);
	assert_int_equal(big % 4096, 0);
	agb_tree_free(&t, big);
	assert_ok(&t);
	for (int i = 0; i < k; i++)
		agb_tree_free(&t, live[i]);
	assert_ok(&t);
	struct agb_heap_stats st;
	agb_tree_stats(&t, &st);
	assert_int_equal(st.free_runs, 1);
	/* An alignment nothing can meet fails cleanly. */
	assert_int_equal(agb_tree_alloc(&t, 8, 0x40000000u, NULL), AGB_NULL);
	assert_ok(&t);
}

static void fill(uint32_t addr, uint32_t len, uint32_t seed)
{
	uint8_t *h = agb_machine_host(M, addr, len);
	assert_non_null(h);
	for (uint32_t i = 0; i < len; i++)
		h[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

static int intact(uint32_t addr, uint32_t len, uint32_t seed)
{
	uint8_t *h = agb_machine_host(M, addr, len);
	for (uint32_t i = 0; i < len; i++)
		if (h[i] != (uint8_t)(seed * 131u + i * 7u + (i >> 8)))
			return 0;
	return 1;
}

static void realloc_in_place_and_move(void **state)
{
	(void)state;
	agb_tree t;
	uint32_t g;
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 16384), AGB_HEAP_OK);
	uint32_t p = agb_tree_alloc(&t, 300, 1, NULL);
	fill(p, 300, 1);
	assert_int_equal(agb_tree_realloc(&t, p, 100, &g), p); /* shrink, long -> short */
	assert_int_equal(g, 104);
	assert_ok(&t);
	assert_true(intact(p, 100, 1));
	assert_int_equal(agb_tree_realloc(&t, p, 1000, &g), p); /* grow into the free tail */
	assert_int_equal(g, 1000);
	assert_ok(&t);
	assert_true(intact(p, 100, 1));
	fill(p, 1000, 2);
	uint32_t q = agb_tree_alloc(&t, 16, 1, NULL);
	assert_int_equal(q, p + 1000);
	assert_int_equal(agb_tree_realloc(&t, p, 1001, &g), p + 1016); /* blocked: moves */
	p += 1016;
	assert_int_equal(g, 1008);
	assert_true(intact(p, 1000, 2));
	assert_ok(&t);
	/* Too large anywhere: NULL and the block is untouched. */
	assert_int_equal(agb_tree_realloc(&t, p, 15000, &g), AGB_NULL);
	assert_true(intact(p, 1000, 2));
	assert_ok(&t);
	assert_int_equal(agb_tree_realloc(&t, AGB_NULL, 40, &g) != AGB_NULL, 1);
	/* Exact same size: nothing moves. */
	assert_int_equal(agb_tree_realloc(&t, q, 9, &g), q);
	assert_int_equal(g, 16);
	assert_ok(&t);
}

static void granted_is_size_rounded_to_blocks(void **state)
{
	(void)state;
	agb_tree t;
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, 65536), AGB_HEAP_OK);
	for (uint32_t size = 1; size <= 3000; size++) {
		uint32_t g;
		uint32_t p = agb_tree_alloc(&t, size, 1, &g);
		assert_int_equal(g, (size + 7u) & ~7u);
		agb_tree_free(&t, p);
	}
	assert_ok(&t);
}

/* Free learns any length in O(1): a 200 KiB block costs as little to free as a small one. */
static void free_cost_is_independent_of_size(void **state)
{
	(void)state;
	agb_tree t;
	assert_int_equal(tree_init(&t, AGB_MEM_EWRAM, AGB_EWRAM_SIZE), AGB_HEAP_OK);
	uint32_t big = agb_tree_alloc(&t, 200000, 1, NULL);
	uint32_t small = agb_tree_alloc(&t, 24, 1, NULL);
	uint32_t guard = agb_tree_alloc(&t, 8, 1, NULL);
	uint32_t before = agb_machine_accesses(M);
	agb_tree_free(&t, big);
	uint32_t big_cost = agb_machine_accesses(M) - before;
	before = agb_machine_accesses(M);
	agb_tree_free(&t, small);
	uint32_t small_cost = agb_machine_accesses(M) - before;
	assert_true(big_cost < 40);
	assert_true(small_cost < 60);
	assert_ok(&t);
	(void)guard;
}

static void core_table(void **state)
{
	(void)state;
	const struct agb_heap_core *c = agb_heap_core_find("tree");
	assert_ptr_equal(c, &agb_tree_core);
	assert_true(c->state_bytes <= AGB_HEAP_STATE_MAX);
	assert_int_equal(c->unit, 8);
	_Alignas(8) unsigned char st[AGB_HEAP_STATE_MAX];
	struct agb_heap_config cfg = {AGB_MEM_VRAM_OBJ, AGB_VRAM_OBJ_SIZE, AGB_NULL, 0, 0};
	assert_int_equal(c->init(st, M, &cfg), AGB_HEAP_OK);
	agb_machine_reset_counters(M);
	uint32_t g;
	uint32_t p = c->alloc(st, 100, 32, &g);
	assert_int_equal(p % 32, 0);
	p = c->realloc(st, p, 300, &g);
	assert_int_not_equal(p, AGB_NULL);
	uint32_t q = c->alloc(st, 5, 1, &g);
	c->free(st, p);
	c->free(st, q);
	const char *why = NULL;
	assert_int_equal(c->check(st, &why), 0);
	struct agb_heap_stats s;
	c->stats(st, &s);
	assert_int_equal(s.free_runs, 1);
	assert_int_equal(s.free_bytes + c->overhead_bytes(st), AGB_VRAM_OBJ_SIZE);
	/* VRAM drops or widens byte stores: the core never issues any. */
	assert_int_equal(M->quirk_stores, 0);
	for (int r = 0; r < AGB_REGION_COUNT; r++) {
		assert_int_equal(M->counts[r][AGB_STORE8], 0);
		if (r != AGB_REGION_ROM) /* ROM: the bit-scan table, not the pool */
			assert_int_equal(M->counts[r][AGB_LOAD8], 0);
	}
}

/* ---- randomized run against a reference model ----------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(((uint64_t)rnd() * n) >> 32);
}

struct blk {
	uint32_t addr, size, granted, seed;
};

struct model {
	agb_tree t;
	uint32_t arena, bytes;
	struct blk *live;
	size_t nlive, cap;
	struct runs runs;
	uint32_t next_seed;
	unsigned long allocs, frees, reallocs, failures, moves, aligned;
};

static uint32_t rnd_size(uint32_t cap)
{
	uint32_t r = rnd_below(100), s;
	if (r < 60)
		s = 1 + rnd_below(64);
	else if (r < 85)
		s = 65 + rnd_below(448);
	else if (r < 97)
		s = 513 + rnd_below(3584);
	else
		s = 4097 + rnd_below(12288);
	return s < cap ? s : 1 + rnd_below(cap);
}

static uint32_t rnd_align(void)
{
	uint32_t r = rnd_below(100);
	if (r < 80)
		return 1u << rnd_below(4); /* 1..8 */
	if (r < 97)
		return 16u << rnd_below(6); /* 16..512 */
	return 1024u << rnd_below(3);  /* 1024..4096 */
}

/* Smallest free run (bytes) that can hold `want_bytes` at an `align`-aligned address, 0 if none. */
static uint32_t best_run_for(struct model *md, uint32_t want_bytes, uint32_t align)
{
	uint32_t best = 0;
	for (size_t i = 0; i < md->runs.n; i++) {
		struct run *r = &md->runs.v[i];
		if (r->kind != AGB_RUN_FREE)
			continue;
		uint32_t a = align <= 8 ? r->addr : (r->addr + align - 1) & ~(align - 1);
		if (a - r->addr < r->bytes && r->bytes - (a - r->addr) >= want_bytes &&
		    (best == 0 || r->bytes < best))
			best = r->bytes;
	}
	return best;
}

/* Size of the free run (from the walk before the op) containing addr, 0 if none. */
static uint32_t run_containing(struct model *md, uint32_t addr)
{
	for (size_t i = 0; i < md->runs.n; i++) {
		struct run *r = &md->runs.v[i];
		if (r->kind == AGB_RUN_FREE && addr >= r->addr && addr < r->addr + r->bytes)
			return r->bytes;
	}
	return 0;
}

static void assert_placed(struct model *md, size_t self, uint32_t addr, uint32_t granted)
{
	assert_true(addr >= md->t.blocks);
	assert_true(addr + granted <= md->t.blocks + md->t.nblocks * 8u);
	for (size_t i = 0; i < md->nlive; i++) {
		if (i == self)
			continue;
		struct blk *b = &md->live[i];
		if (addr < b->addr + b->granted && b->addr < addr + granted)
			fail_msg("overlap: [%x,+%u) with [%x,+%u)", addr, granted, b->addr, b->granted);
	}
}

static void op_alloc(struct model *md)
{
	uint32_t size = rnd_size(md->bytes / 3);
	uint32_t align = rnd_align();
	uint32_t want = (size + 7u) & ~7u;
	walk_into(&md->t, &md->runs);
	uint32_t best = best_run_for(md, want, align);
	uint32_t g;
	uint32_t p = agb_tree_alloc(&md->t, size, align, &g);
	md->allocs++;
	md->aligned += align > 8;
	if (p == AGB_NULL) {
		assert_int_equal(best, 0);
		md->failures++;
		return;
	}
	assert_int_equal(p % align, 0);
	assert_int_equal(g, want);
	assert_int_equal(run_containing(md, p), best); /* best fit */
	assert_placed(md, (size_t)-1, p, g);
	if (md->nlive == md->cap) {
		md->cap = md->cap ? md->cap * 2 : 256;
		md->live = realloc(md->live, md->cap * sizeof *md->live);
		assert_non_null(md->live);
	}
	struct blk *b = &md->live[md->nlive++];
	*b = (struct blk){p, size, g, md->next_seed++};
	fill(p, size, b->seed);
}

static void op_free(struct model *md)
{
	size_t i = rnd_below((uint32_t)md->nlive);
	struct blk *b = &md->live[i];
	if (!intact(b->addr, b->size, b->seed))
		fail_msg("block at %x corrupted", b->addr);
	agb_tree_free(&md->t, b->addr);
	md->live[i] = md->live[--md->nlive];
	md->frees++;
}

static void op_realloc(struct model *md)
{
	size_t i = rnd_below((uint32_t)md->nlive);
	struct blk *b = &md->live[i];
	uint32_t r = rnd_below(3);
	uint32_t size = r == 0 ? 1 + rnd_below(b->size) : r == 1 ? b->size + 1 + rnd_below(256)
								  : rnd_size(md->bytes / 3);
	uint32_t want = (size + 7u) & ~7u;
	if (!intact(b->addr, b->size, b->seed))
		fail_msg("block at %x corrupted", b->addr);
	walk_into(&md->t, &md->runs);
	uint32_t g;
	uint32_t p = agb_tree_realloc(&md->t, b->addr, size, &g);
	md->reallocs++;
	if (p == AGB_NULL) {
		/* Only when it neither fits in place (checked by the core) nor anywhere else. */
		assert_int_equal(best_run_for(md, want, 8), 0);
		assert_true(intact(b->addr, b->size, b->seed));
		md->failures++;
		return;
	}
	assert_int_equal(g, want);
	uint32_t keep = size < b->size ? size : b->size;
	if (p != b->addr)
		md->moves++;
	if (!intact(p, keep, b->seed))
		fail_msg("realloc lost contents");
	assert_placed(md, i, p, g);
	b->addr = p;
	b->size = size;
	b->granted = g;
	b->seed = md->next_seed++;
	fill(p, size, b->seed);
}

static void random_run(uint32_t arena, uint32_t bytes, uint64_t seed, unsigned ops,
		       unsigned target_live)
{
	struct model *md = calloc(1, sizeof *md);
	assert_non_null(md);
	rng_state = seed;
	md->arena = arena;
	md->bytes = bytes;
	assert_int_equal(tree_init(&md->t, arena, bytes), AGB_HEAP_OK);
	agb_machine_reset_counters(M);
	for (unsigned k = 0; k < ops; k++) {
		uint32_t r = rnd_below(100);
		unsigned p_alloc = md->nlive < target_live ? 60 : 35;
		if (md->nlive == 0 || r < p_alloc)
			op_alloc(md);
		else if (r < 85)
			op_free(md);
		else
			op_realloc(md);
		if (rnd_below(5000) == 0) { /* now and then drain to an empty pool */
			while (md->nlive)
				op_free(md);
		}
		const char *why = NULL;
		if (agb_tree_check(&md->t, &why))
			fail_msg("seed %llu op %u: %s", (unsigned long long)seed, k, why);
		if ((k & 255u) == 0)
			assert_walk_consistent(&md->t, arena, bytes, &md->runs);
	}
	while (md->nlive)
		op_free(md);
	assert_ok(&md->t);
	assert_walk_consistent(&md->t, arena, bytes, &md->runs);
	struct agb_heap_stats st;
	agb_tree_stats(&md->t, &st);
	assert_int_equal(st.free_runs, 1);
	for (int r = 0; r < AGB_REGION_COUNT; r++) {
		assert_int_equal(M->counts[r][AGB_STORE8], 0);
		if (r != AGB_REGION_ROM) /* ROM: the bit-scan table, not the pool */
			assert_int_equal(M->counts[r][AGB_LOAD8], 0);
	}
	assert_int_equal(M->quirk_stores, 0);
	print_message("  seed %llu: %lu allocs (%lu aligned), %lu frees, %lu reallocs (%lu moved), "
		      "%lu failures\n",
		      (unsigned long long)seed, md->allocs, md->aligned, md->frees, md->reallocs,
		      md->moves, md->failures);
	free(md->runs.v);
	free(md->live);
	free(md);
}

static void random_ewram(void **state)
{
	(void)state;
	random_run(AGB_MEM_EWRAM, 65536, 1, 70000, 120);
	random_run(AGB_MEM_EWRAM + 0x208, 40008, 2, 50000, 60); /* odd base phase for alignment */
}

static void random_vram(void **state)
{
	(void)state;
	random_run(AGB_MEM_VRAM_OBJ, AGB_VRAM_OBJ_SIZE, 3, 50000, 50);
}

static void random_full_ewram(void **state)
{
	(void)state;
	random_run(AGB_MEM_EWRAM, AGB_EWRAM_SIZE, 4, 40000, 400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_sizes),
		cmocka_unit_test(exact_fits_and_full),
		cmocka_unit_test(best_fit_choice),
		cmocka_unit_test(coalescing),
		cmocka_unit_test(alignment),
		cmocka_unit_test(realloc_in_place_and_move),
		cmocka_unit_test(granted_is_size_rounded_to_blocks),
		cmocka_unit_test(free_cost_is_independent_of_size),
		cmocka_unit_test(core_table),
		cmocka_unit_test(random_ewram),
		cmocka_unit_test(random_vram),
		cmocka_unit_test(random_full_ewram),
	};
	return cmocka_run_group_tests(tests, machine_setup, machine_teardown);
}
