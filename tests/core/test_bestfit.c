/* The `bestfit` core: layout, exact-size bins (best fit, FIFO within a size), the class lists for
 * long runs (against a best-fit oracle read off the walk), coalescing in every direction,
 * alignment, realloc, limits, and a randomized op sequence with the invariant checker after
 * every op. */
#include "zoo_helpers.h"

#include "agb/bestfit.h"
#include "agbsim/mt19937.h"

static const struct agb_heap_core *C = &agb_bestfit_core;

static agb_bestfit *H(void)
{
	return (agb_bestfit *)(void *)STATE;
}

static void control_goes_to_meta_when_it_fits(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	assert_int_equal(H()->ctrl, c.meta_addr);
	/* Only the map sits in the arena: 2 bits per block, in whole blocks. */
	struct zoo_walk w = zoo_walk(C, &c);
	assert_int_equal(w.free_runs, 1);
	assert_int_equal(w.meta_bytes, H()->meta_bytes + H()->waste_bytes);
	assert_true(w.meta_bytes < 64u * 1024u / 32u + 16u);
	assert_int_equal(C->overhead_bytes(STATE), w.meta_bytes + AGB_BESTFIT_META_BYTES);
	struct agb_heap_stats s = zoo_stats(C);
	assert_int_equal(s.free_runs, 1);
	assert_int_equal(s.largest_free, s.free_bytes);

	/* No meta area: control at the arena head, inside the walk's META run. */
	c.meta_addr = AGB_NULL;
	c.meta_bytes = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	zoo_check(C);
	assert_int_equal(H()->ctrl, c.arena_addr);
	w = zoo_walk(C, &c);
	assert_true(w.meta_bytes >= AGB_BESTFIT_META_BYTES);
	assert_int_equal(C->overhead_bytes(STATE), w.meta_bytes);
}

static void limits(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(8);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_ARENA_TOO_SMALL);
	c = zoo_config(4096);
	c.arena_addr += 4;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_BAD_ALIGNMENT);
	c = zoo_config(4096);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	assert_int_equal(zoo_alloc(C, 5000, 1), AGB_NULL);
	assert_int_equal(zoo_alloc(C, 0xFFFFFFF0u, 1), AGB_NULL);
	uint32_t g = 0, a = C->alloc(STATE, 0, 1, &g); /* zero counts as one byte */
	assert_int_not_equal(a, AGB_NULL);
	assert_int_equal(g, 8);
	zoo_free(C, a);
	C->free(STATE, AGB_NULL); /* ignored */
	zoo_check(C);
	zoo_bus_clean();
}

static void best_fit_among_short_runs(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	/* Holes of 48, 24 and 32 bytes between pinned blocks. */
	uint32_t h48 = zoo_alloc(C, 48, 1), p1 = zoo_alloc(C, 8, 1);
	uint32_t h24 = zoo_alloc(C, 24, 1), p2 = zoo_alloc(C, 8, 1);
	uint32_t h32 = zoo_alloc(C, 32, 1), p3 = zoo_alloc(C, 8, 1);
	assert_true(p1 != AGB_NULL && p2 != AGB_NULL && p3 != AGB_NULL);
	zoo_free(C, h48);
	zoo_free(C, h24);
	zoo_free(C, h32);
	assert_int_equal(zoo_stats(C).free_runs, 4);
	assert_int_equal(zoo_alloc(C, 30, 1), h32); /* smallest hole that fits */
	assert_int_equal(zoo_alloc(C, 17, 1), h24);
	uint32_t a = zoo_alloc(C, 16, 1); /* splits the 48-byte hole: its start */
	assert_int_equal(a, h48);
	assert_int_equal(zoo_alloc(C, 32, 1), h48 + 16u); /* the 32-byte rest, exactly */
	zoo_bus_clean();
}

static void equal_sizes_first_in_first_out(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a[8];
	for (int i = 0; i < 8; i++)
		a[i] = zoo_alloc(C, 40, 1);
	uint32_t wall = zoo_alloc(C, 8, 1);
	assert_int_not_equal(wall, AGB_NULL);
	/* Free 1, 5, 3: three separate 40-byte holes. */
	zoo_free(C, a[1]);
	zoo_free(C, a[5]);
	zoo_free(C, a[3]);
	assert_int_equal(zoo_alloc(C, 40, 1), a[1]);
	assert_int_equal(zoo_alloc(C, 40, 1), a[5]);
	zoo_free(C, a[1]); /* appended after a[3] */
	assert_int_equal(zoo_alloc(C, 33, 1), a[3]);
	assert_int_equal(zoo_alloc(C, 33, 1), a[1]);
}

static void long_runs_best_fit(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(128u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	const uint32_t big = (AGB_BESTFIT_SMALL + 10u) * 8u;
	uint32_t h1 = zoo_alloc(C, 3u * big, 1), p1 = zoo_alloc(C, 8, 1);
	uint32_t h2 = zoo_alloc(C, big, 1), p2 = zoo_alloc(C, 8, 1);
	uint32_t h3 = zoo_alloc(C, 2u * big, 1), p3 = zoo_alloc(C, 8, 1);
	assert_true(p1 != AGB_NULL && p2 != AGB_NULL && p3 != AGB_NULL);
	zoo_free(C, h1);
	zoo_free(C, h2);
	zoo_free(C, h3);
	assert_int_equal(zoo_alloc(C, big + 8u, 1), h3); /* smallest long run that fits */
	assert_int_equal(zoo_alloc(C, big, 1), h2);      /* exact */
	/* The 3*big hole split by a short request leaves a long rest in its class. */
	assert_int_equal(zoo_alloc(C, 8, 1), h3 + big + 8u); /* h3's short rest: best fit */
	zoo_check(C);
	zoo_bus_clean();
}

/* Long runs of one size: the lowest address is taken whatever order they were freed in (the
 * class list holds them in freeing order). */
static void equal_long_runs_lowest_first(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(128u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	const uint32_t big = (AGB_BESTFIT_SMALL + 40u) * 8u;
	uint32_t a[3], p[3];
	for (int i = 0; i < 3; i++) {
		a[i] = zoo_alloc(C, big, 1);
		p[i] = zoo_alloc(C, 8, 1);
		assert_true(a[i] != AGB_NULL && p[i] != AGB_NULL);
	}
	zoo_free(C, a[2]);
	zoo_free(C, a[0]);
	zoo_free(C, a[1]);
	assert_int_equal(zoo_alloc(C, big - 64u, 1), a[0]);
	assert_int_equal(zoo_alloc(C, big, 1), a[1]);
	assert_int_equal(zoo_alloc(C, big, 1), a[2]);
	zoo_check(C);
	zoo_bus_clean();
}

static void coalesces_every_way(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(32u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	struct agb_heap_stats s0 = zoo_stats(C);
	static const uint32_t sizes[] = {8, 16, 1500, 24, 2000, 8, 40, 1100};
	uint32_t a[8];
	for (int i = 0; i < 8; i++)
		a[i] = zoo_alloc(C, sizes[i], 1);
	/* Short with short, long with short, long with long, both sides at once. */
	static const int order[] = {1, 3, 2, 5, 7, 4, 0, 6};
	for (int i = 0; i < 8; i++)
		zoo_free(C, a[order[i]]);
	struct agb_heap_stats s1 = zoo_stats(C);
	assert_int_equal(s1.free_runs, 1);
	assert_int_equal(s1.free_bytes, s0.free_bytes);
	zoo_bus_clean();
}

static void alignment(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(64u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	for (uint32_t align = 1; align <= 4096; align <<= 1) {
		uint32_t a = zoo_alloc(C, 40, align);
		assert_int_not_equal(a, AGB_NULL);
		assert_int_equal(a % align, 0);
		uint32_t s = zoo_alloc(C, 24, 1); /* short holes for the next aligned request */
		assert_int_not_equal(s, AGB_NULL);
	}
	zoo_walk(C, &c);
	zoo_bus_clean();
}

static void realloc_in_place_and_moving(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(16u * 1024u);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 64, 1);
	for (uint32_t i = 0; i < 64; i += 4)
		AGB_ST32(M, a + i, 0xA0000000u + i);
	assert_int_equal(C->realloc(STATE, a, 500, &g), a); /* grows into the free successor */
	assert_int_equal(g, 504);
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, a, 20, &g), a); /* shrinks in place */
	assert_int_equal(g, 24);
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, a, 60, &g), a); /* regrows into its own freed tail */
	zoo_check(C);
	uint32_t wall = zoo_alloc(C, 16, 1); /* pin the successor */
	uint32_t b = C->realloc(STATE, a, 2000, &g); /* must move */
	assert_true(b != a && b != AGB_NULL);
	zoo_check(C);
	for (uint32_t i = 0; i < 20; i += 4) /* what survived the shrink to 20 bytes */
		assert_int_equal(AGB_LD32(M, b + i), 0xA0000000u + i);
	/* C semantics: a failing realloc leaves the block alone. */
	assert_int_equal(C->realloc(STATE, b, 100000, &g), AGB_NULL);
	zoo_check(C);
	assert_int_equal(AGB_LD32(M, b), 0xA0000000u);
	uint32_t d = C->realloc(STATE, AGB_NULL, 10, &g); /* acts as alloc */
	assert_int_not_equal(d, AGB_NULL);
	zoo_check(C);
	zoo_free(C, wall);
	zoo_free(C, b);
	zoo_free(C, d);
	assert_int_equal(zoo_stats(C).free_runs, 1);
}

static void fills_completely(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(8192);
	uint32_t blocks[1024], n = 0, a;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	while ((a = zoo_alloc(C, 12, 1)) != AGB_NULL)
		blocks[n++] = a;
	/* 16-byte blocks: every block but the map's. */
	assert_int_equal(n, H()->nblocks / 2u);
	for (uint32_t i = 0; i < n; i += 2)
		zoo_free(C, blocks[i]);
	for (uint32_t i = 1; i < n; i += 2)
		zoo_free(C, blocks[i]);
	assert_int_equal(zoo_stats(C).free_runs, 1);
}

/* The pool's last run: free must not read the map entries past the last block (they are 0, which
 * would look like a free run). Every block count modulo 8, the last block freed first. */
static void last_block_has_no_right_neighbour(void **state)
{
	(void)state;
	for (uint32_t extra = 0; extra < 16u; extra++) {
		struct agb_heap_config c = zoo_config(4096u + 8u * extra);
		uint32_t blocks[600], n = 0, a;
		assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
		while ((a = zoo_alloc(C, 8, 1)) != AGB_NULL)
			blocks[n++] = a;
		assert_int_equal(n, H()->nblocks);
		zoo_free(C, blocks[n - 1u]);
		zoo_check(C);
		zoo_free(C, blocks[n - 3u]);
		zoo_check(C);
		zoo_free(C, blocks[n - 2u]);
		zoo_check(C);
		assert_int_equal(zoo_stats(C).free_runs, 1);
		assert_int_equal(zoo_stats(C).free_bytes, 24);
	}
}

/* The top run (the long free run at the pool's end) is in no index: a fresh pool is one; carving
 * and freeing at its edge move its start; when it gets short enough for a bin it goes into the
 * bin, and a long run that comes to end the pool becomes it again. A request no bin serves takes
 * the tighter of the treap's best run and the top run. */
static void top_run_at_the_pool_end(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(16u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	const uint32_t n = H()->nblocks, top_addr = H()->ctrl + 2u; /* after the root (agb/bestfit.h) */
#define TOP() ((uint32_t)AGB_PEEK16(M, top_addr))
	assert_int_equal(TOP(), 0);
	uint32_t a = zoo_alloc(C, 800, 1); /* 100 blocks off the top's start */
	zoo_check(C);
	assert_int_equal(a, H()->blocks);
	assert_int_equal(TOP(), 100);
	zoo_free(C, a); /* next to the top: the pool is one top run again */
	zoo_check(C);
	assert_int_equal(TOP(), 0);

	/* Fill up to a 200-block tail: short enough for its bin, so no top run. */
	uint32_t big = zoo_alloc(C, (n - 200u) * 8u, 1);
	zoo_check(C);
	assert_int_equal(TOP(), n);
	assert_int_equal(zoo_stats(C).largest_free, 200u * 8u);
	/* Freeing the big block before that bin run makes one long run ending the pool: the top. */
	zoo_free(C, big);
	zoo_check(C);
	assert_int_equal(TOP(), 0);

	/* Treap run of 400 blocks and a top run of 300: a 290-block request takes the top run,
	 * a 350-block one the treap's. */
	uint32_t p0 = zoo_alloc(C, 400u * 8u, 1), p1 = zoo_alloc(C, 8, 1);
	uint32_t p2 = zoo_alloc(C, (n - 701u) * 8u, 1);
	zoo_free(C, p0);
	zoo_check(C);
	assert_int_equal(TOP(), n - 300u);
	uint32_t q = zoo_alloc(C, 290u * 8u, 1);
	assert_int_equal(q, H()->blocks + ((n - 300u) << 3));
	zoo_check(C);
	assert_int_equal(TOP(), n); /* 10 blocks left: in their bin */
	uint32_t r = zoo_alloc(C, 350u * 8u, 1);
	assert_int_equal(r, p0);
	zoo_check(C);
	zoo_free(C, q);
	zoo_free(C, r);
	zoo_free(C, p1);
	zoo_free(C, p2);
	zoo_check(C);
	assert_int_equal(TOP(), 0);
#undef TOP
	zoo_bus_clean();
}

/* The release step of the random tests: live[k] is reallocated to `size` when `resize`, else
 * freed and replaced by the last live block. */
static void release_or_resize(uint32_t *live, uint32_t *n, uint32_t k, int resize, uint32_t size)
{
	uint32_t g;
	if (resize) {
		uint32_t b = C->realloc(STATE, live[k], size, &g);
		if (b != AGB_NULL)
			live[k] = b;
	} else {
		C->free(STATE, live[k]);
		live[k] = live[--*n];
	}
}

/* Frees every live block: the pool must be one free run again. */
static void drain_to_one_run(const uint32_t *live, uint32_t n)
{
	while (n > 0u)
		zoo_free(C, live[--n]);
	assert_int_equal(zoo_stats(C).free_runs, 1);
	zoo_check(C);
}

/* Random alloc/free/realloc of short and long sizes, checked after every op; tight pools so
 * failures and splitting happen, the meta area present or not. */
static void random_ops_keep_invariants(void **state)
{
	(void)state;
	enum { LIVE = 256, OPS = 6000 };
	static const uint32_t pools[] = {24u * 1024u, 96u * 1024u};
	for (uint32_t seed = 1; seed <= 4; seed++) {
		struct agb_mt rng;
		agb_mt_seed(&rng, seed);
		struct agb_heap_config c = zoo_config(pools[seed & 1u]);
		if (seed > 2) {
			c.meta_addr = AGB_NULL;
			c.meta_bytes = 0;
		}
		assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
		uint32_t live[LIVE], n = 0;
		for (uint32_t op = 0; op < OPS; op++) {
			uint32_t r = agb_mt_next(&rng);
			uint32_t size = (r & 3u) == 0u ? 1u + (r >> 8) % 4000u : 1u + (r >> 8) % 300u;
			uint32_t g;
			if (n < LIVE && ((r >> 4) & 3u) != 0u) {
				uint32_t a = C->alloc(STATE, size, (r >> 6 & 7u) == 0u ? 64u : 8u, &g);
				if (a != AGB_NULL)
					live[n++] = a;
			} else if (n > 0u) {
				release_or_resize(live, &n, (r >> 12) % n, (r >> 30) == 0u, size);
			}
			zoo_check(C);
		}
		drain_to_one_run(live, n);
	}
	zoo_bus_clean();
}

/* Random ops over the whole range of request sizes (log-uniform, 1 byte to 64 KiB), every
 * alignment up to 256 and reallocs that grow and shrink, in a 256 KiB pool and a 12 KiB one:
 * every path of alloc, free and realloc (bins, summary, long classes, top run, merges in every
 * direction), the checker after every op, and the pool whole again at the end. */
static void random_sizes_over_the_whole_range(void **state)
{
	(void)state;
	enum { LIVE = 200, OPS = 5000 };
	static const uint32_t pools[] = {256u * 1024u, 12u * 1024u};
	for (uint32_t seed = 11; seed <= 14; seed++) {
		struct agb_mt rng;
		agb_mt_seed(&rng, seed);
		struct agb_heap_config c = zoo_config(pools[seed & 1u]);
		if (seed == 14) {
			c.meta_addr = AGB_NULL;
			c.meta_bytes = 0;
		}
		assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
		uint32_t live[LIVE], n = 0;
		for (uint32_t op = 0; op < OPS; op++) {
			uint32_t r = agb_mt_next(&rng), r2 = agb_mt_next(&rng);
			uint32_t size = 1u + (r2 & ((2u << (r2 >> 28)) * 2048u - 1u) >> (r >> 28));
			uint32_t align = 8u << ((r >> 8) & 7u) % 6u, g;
			if (align > 8u && ((r >> 11) & 3u) != 0u)
				align = 8u;
			if (n < LIVE && ((r >> 4) & 3u) != 0u) {
				uint32_t a = C->alloc(STATE, size, align, &g);
				if (a != AGB_NULL) {
					assert_int_equal(a & (align - 1u), 0);
					live[n++] = a;
				}
			} else if (n > 0u) {
				release_or_resize(live, &n, (r >> 12) % n, ((r >> 20) & 3u) == 0u, size);
			}
			zoo_check(C);
		}
		drain_to_one_run(live, n);
	}
	zoo_bus_clean();
}

/* The runs of the pool in address order, from the walk. */
struct runs {
	uint32_t n, addr[2048], len[2048];
	enum agb_run_kind kind[2048];
};

static void runs_fn(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct runs *r = ctx;
	assert_true(r->n < 2048u);
	r->addr[r->n] = addr;
	r->len[r->n] = bytes >> 3;
	r->kind[r->n++] = kind;
}

/* What a request of `want` (> AGB_BESTFIT_SMALL) blocks must get, read off the walk: the
 * smallest free run that holds it, the lowest on a tie, or the top run (a long free run that
 * ends the pool) when that is strictly tighter; AGB_NULL when none holds it. *largest receives
 * the longest free run's bytes. */
static uint32_t oracle_pick(uint32_t want, uint32_t *largest)
{
	static struct runs r;
	r.n = 0;
	C->walk(STATE, runs_fn, &r);
	uint32_t last = r.n - 1u;
	if (r.kind[last] == AGB_RUN_META && last > 0u)
		last--; /* the unusable tail */
	const int has_top = r.kind[last] == AGB_RUN_FREE && r.len[last] > AGB_BESTFIT_SMALL;
	uint32_t best = AGB_NULL, best_len = 0;
	*largest = 0;
	for (uint32_t i = 0; i < r.n; i++) {
		if (r.kind[i] != AGB_RUN_FREE)
			continue;
		if ((r.len[i] << 3) > *largest)
			*largest = r.len[i] << 3;
		if ((has_top && i == last) || r.len[i] < want)
			continue;
		if (best == AGB_NULL || r.len[i] < best_len) {
			best = r.addr[i];
			best_len = r.len[i];
		}
	}
	if (has_top && r.len[last] >= want && (best == AGB_NULL || r.len[last] < best_len))
		return r.addr[last];
	return best;
}

/* Long requests in a pool whose free runs spread over every long class: each gets the run the
 * oracle names, the largest run reported by stats is the longest one, and the checker holds. */
static void long_requests_match_a_best_fit_oracle(void **state)
{
	(void)state;
	enum { LIVE = 40, OPS = 3000 };
	struct agb_mt rng;
	agb_mt_seed(&rng, 7);
	struct agb_heap_config c = zoo_config(256u * 1024u);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t live[LIVE], n = 0, served = 0;
	for (uint32_t op = 0; op < OPS; op++) {
		uint32_t r = agb_mt_next(&rng);
		if (n < LIVE && (r & 1u) != 0u) {
			/* 257 blocks to about 32 KiB, and now and then a short block to break runs up */
			uint32_t size = (r & 12u) == 0u ? 8u + (r >> 20) % 512u
							 : ((AGB_BESTFIT_SMALL + 1u) << 3) + (r >> 8) % ((r & 16u) != 0u ? 8000u : 30000u);
			uint32_t want = (size + 7u) >> 3, largest = 0, g;
			uint32_t expect = want > AGB_BESTFIT_SMALL ? oracle_pick(want, &largest) : 0u;
			uint32_t a = C->alloc(STATE, size, 8u, &g);
			if (want > AGB_BESTFIT_SMALL) {
				assert_int_equal(a, expect);
				served += a != AGB_NULL;
			}
			if (a != AGB_NULL)
				live[n++] = a;
			if (want > AGB_BESTFIT_SMALL) {
				(void)oracle_pick(want, &largest);
				assert_int_equal(zoo_stats(C).largest_free, largest);
			}
		} else if (n > 0u) {
			uint32_t k = (r >> 12) % n;
			zoo_free(C, live[k]);
			live[k] = live[--n];
		}
		zoo_check(C);
	}
	assert_true(served > 1000u);
	zoo_bus_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_goes_to_meta_when_it_fits),
		cmocka_unit_test(limits),
		cmocka_unit_test(best_fit_among_short_runs),
		cmocka_unit_test(equal_sizes_first_in_first_out),
		cmocka_unit_test(long_runs_best_fit),
		cmocka_unit_test(equal_long_runs_lowest_first),
		cmocka_unit_test(long_requests_match_a_best_fit_oracle),
		cmocka_unit_test(coalesces_every_way),
		cmocka_unit_test(alignment),
		cmocka_unit_test(realloc_in_place_and_moving),
		cmocka_unit_test(fills_completely),
		cmocka_unit_test(last_block_has_no_right_neighbour),
		cmocka_unit_test(top_run_at_the_pool_end),
		cmocka_unit_test(random_ops_keep_invariants),
		cmocka_unit_test(random_sizes_over_the_whole_range),
	};
	return cmocka_run_group_tests(tests, zoo_setup, zoo_teardown);
}
