/* test_abuse: the cores under abuse in a NORMAL build (issue 12 item 4: "never corrupts its
 * metadata in any build"). Each core with a free is handed a double free (before and after the
 * freed block merged with a neighbour), an interior address, addresses past the pool, in ROM
 * and off the core's grid, and a realloc of a freed or interior address; then, from random live
 * pools, random addresses that are not live blocks; the boundary-tag cores (tlsf, firstfit) also
 * an interior address behind a payload word that is exactly a used block's header (stale after
 * a reuse, or forged). After each call its own check() must pass,
 * its walk must be unchanged, and the memory must come back whole once the live blocks are
 * freed. A normal build refuses silently, in O(1) or O(log n), from its own map or headers.
 * test_abuse_checked is the same source linked with the checking build (AGB_HEAP_CHECKED),
 * which must refuse all of it on every core. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "agb/heap.h"
#include "agb/machine.h"
#include "agb/oam.h"
#include "agb/palbanks.h"
#include "agb/palstack.h"
#include "agb/regions.h"
#include "agb/tiles.h"
#include "machine_fixture.h"

static uint64_t state[AGB_HEAP_STATE_MAX / 8];

struct pool {
	const struct agb_heap_core *c;
	struct agb_heap_config cfg;
	uint32_t unit, free0; /* free bytes of the empty pool */
};

struct tally {
	uint32_t next, used, free, bad;
};

static void tally_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct tally *t = ctx;
	if (addr != t->next || bytes == 0)
		t->bad++;
	t->next = addr + bytes;
	if (kind == AGB_RUN_USED)
		t->used += bytes;
	else if (kind == AGB_RUN_FREE)
		t->free += bytes;
}

/* The core's own check() passes and its walk tiles the pool; returns the used bytes. */
static uint32_t sound(const struct pool *p, const char *after)
{
	const char *why = NULL;
	struct tally t = {p->cfg.arena_addr, 0, 0, 0};
	if (p->c->check(state, &why) != 0)
		fail_msg("%s after %s: %s", p->c->name, after, why);
	p->c->walk(state, tally_run, &t);
	if (t.bad != 0 || t.next != p->cfg.arena_addr + p->cfg.arena_bytes)
		fail_msg("%s after %s: the walk no longer tiles the pool", p->c->name, after);
	return t.used;
}

static uint32_t free_bytes(const struct pool *p)
{
	struct agb_heap_stats s;
	p->c->stats(state, &s);
	return s.free_bytes;
}

static struct pool start(const char *name)
{
	struct pool p = {agb_heap_core_find(name), {0}, 0, 0};
	assert_non_null(p.c);
	int ewram = (p.c->arenas & AGB_ARENA_BIT(AGB_ARENA_EWRAM)) != 0;
	p.cfg = (struct agb_heap_config){ewram ? AGB_MEM_EWRAM : AGB_MEM_VRAM_OBJ,
	                                 ewram ? 65536u : 32768u, 0x03000000u, 0x4000u, 0};
	p.unit = p.c->unit;
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	assert_int_equal(p.c->init(state, M, &p.cfg), AGB_HEAP_OK);
	p.free0 = free_bytes(&p);
	return p;
}

/* Fills a block's payload with `word`: the abuse must not depend on what the game wrote. */
static void fill(uint32_t addr, uint32_t bytes, uint32_t word)
{
	for (uint32_t i = 0; i < bytes; i += 4u)
		AGB_ST32(M, addr + i, word);
}

/* free(addr) must change nothing: the same used bytes, free bytes and a sound pool. */
static void refused_free(const struct pool *p, uint32_t addr, const char *what)
{
	uint32_t used = sound(p, what), fb = free_bytes(p);
	p->c->free(state, addr);
	assert_int_equal(sound(p, what), used);
	if (free_bytes(p) != fb)
		fail_msg("%s: %s (0x%08x) changed the free bytes", p->c->name, what, (unsigned)addr);
}

static void refused_realloc(const struct pool *p, uint32_t addr, const char *what)
{
	uint32_t g = 0, used, fb;
	if (p->c->realloc == NULL)
		return;
	used = sound(p, what);
	fb = free_bytes(p);
	if (p->c->realloc(state, addr, 8u * p->unit, &g) != AGB_NULL)
		fail_msg("%s: realloc of %s (0x%08x) was served", p->c->name, what, (unsigned)addr);
	assert_int_equal(sound(p, what), used);
	assert_int_equal(free_bytes(p), fb);
}

/* Every abuse on one core, its payloads filled with `word` (zeros; a pattern that sets every
 * flag bit; one that forges a block header). */
static void abuse_core(const char *name, uint32_t word)
{
	struct pool p = start(name);
	uint32_t g = 0, blk = 4u * p.unit, end = p.cfg.arena_addr + p.cfg.arena_bytes;
	uint32_t a = p.c->alloc(state, blk, 1, &g);
	uint32_t b = p.c->alloc(state, blk, 1, &g);
	uint32_t c = p.c->alloc(state, blk, 1, &g);
	uint32_t d = p.c->alloc(state, blk, 1, &g);
	uint32_t e = p.c->alloc(state, blk, 1, &g);
	uint32_t f = p.c->alloc(state, blk, 1, &g);
	const uint32_t all[] = {a, b, c, d, e, f}, live[] = {a, b, f};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		assert_int_not_equal(all[i], AGB_NULL);
		fill(all[i], blk, word);
	}
	sound(&p, "six allocations");

	refused_free(&p, AGB_NULL, "free(AGB_NULL)");
	refused_free(&p, a + p.unit, "an interior address");
	refused_free(&p, a + blk - p.unit, "the last unit of a block");
	refused_free(&p, a + 4u, "an address off the core's grid");
	refused_free(&p, end + 64u, "an address past the pool");
	refused_free(&p, p.cfg.arena_addr - p.unit, "an address below the pool");
	refused_free(&p, 0x08000000u, "a ROM address");
	refused_realloc(&p, a + p.unit, "an interior address");

	p.c->free(state, c);
	sound(&p, "a free");
	refused_free(&p, c, "a double free");
	refused_realloc(&p, c, "a freed block");
	p.c->free(state, e);
	sound(&p, "a second free");
	/* d merges with both free neighbours (c and d are buddies in `buddy` too): c, d and e
	 * are now inside one bigger free block */
	p.c->free(state, d);
	sound(&p, "a free between two free blocks");
	refused_free(&p, c, "a double free after a merge");
	refused_free(&p, d, "a double free of a block merged both ways");
	refused_free(&p, e, "a double free of a merged successor");
	refused_free(&p, c + p.unit, "an address inside a free block");
	refused_free(&p, d + p.unit, "an address inside a merged block");
	refused_realloc(&p, d, "a freed and merged block");

	/* The pool still serves: new blocks are distinct from the live ones, and freeing every
	 * live block gives the whole pool back. */
	uint32_t x = p.c->alloc(state, blk, 1, &g);
	uint32_t y = p.c->alloc(state, blk, 1, &g);
	assert_true(x != AGB_NULL && y != AGB_NULL && x != y);
	for (size_t i = 0; i < sizeof live / sizeof live[0]; i++) {
		assert_true(x != live[i] && y != live[i]);
		p.c->free(state, live[i]);
	}
	p.c->free(state, x);
	p.c->free(state, y);
	assert_int_equal(sound(&p, "freeing every live block"), 0);
	assert_int_equal(free_bytes(&p), p.free0);
}

static const char *const cores[] = {"tree", "bestfit", "tlsf", "buddy", "firstfit",
				    "slots", "obj",     "obj-fast", "oam"};
#define NCORES (sizeof cores / sizeof cores[0])

static void abuse_zero_payloads(void **st)
{
	(void)st;
	for (size_t i = 0; i < NCORES; i++)
		abuse_core(cores[i], 0);
}

static void abuse_flag_payloads(void **st)
{
	(void)st;
	for (size_t i = 0; i < NCORES; i++)
		abuse_core(cores[i], 0xFFFFFFFFu);
}

/* Payload words that each look like the header of a used 16-byte block, with a successor that
 * says so too (a boundary-tag core's used header is size and flags: tlsf and firstfit refuse
 * them from their starts bitmap, src/agbmem/common/tags.h); the other cores keep their map outside the
 * blocks. */
static void abuse_forged_payloads(void **st)
{
	(void)st;
	for (size_t i = 0; i < NCORES; i++)
		abuse_core(cores[i], 0x00000010u);
}

/* ---- randomised abuse ---------------------------------------------------------------------- */

#define MAX_RUNS 1024u
#define MAX_LIVE 96u

struct runs {
	uint32_t n, addr[MAX_RUNS], bytes[MAX_RUNS], kind[MAX_RUNS];
};

static void record_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct runs *r = ctx;
	if (r->n < MAX_RUNS) {
		r->addr[r->n] = addr;
		r->bytes[r->n] = bytes;
		r->kind[r->n] = (uint32_t)kind;
	}
	r->n++;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

struct live {
	uint32_t n, addr[MAX_LIVE], bytes[MAX_LIVE];
};

static int is_live(const struct live *l, uint32_t addr)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->addr[i] == addr)
			return 1;
	return 0;
}

/* A live block's payload: words that forge, at every 8-byte step, the header of a used block
 * running to the block's end (what a boundary-tag core reads before an address), with its
 * payload's last word the same size (a free block's tag), so a forgery sees a plausible
 * successor and predecessor. Harmless data to the cores whose map lives elsewhere. */
static void forge(uint32_t addr, uint32_t bytes, uint32_t seed)
{
	for (uint32_t off = 0; off + 4u <= bytes; off += 4u) {
		uint32_t v = (off & 4u) != 0u ? bytes - off + 4u /* a header at addr+off, 4 mod 8 */
					      : (seed ^ (off * 0x9E3779B9u));
		AGB_ST32(M, addr + off, (seed & 8u) != 0u ? v : seed >> (off & 31u));
	}
}

static void random_op(const struct pool *p, struct live *l, uint32_t *s, uint32_t max_bytes)
{
	uint32_t g = 0, r = rnd(s);
	if (l->n < MAX_LIVE && (l->n == 0 || (r & 3u) != 0u)) {
		uint32_t bytes = 1u + rnd(s) % max_bytes;
		uint32_t a = p->c->alloc(state, bytes, 1, &g);
		if (a != AGB_NULL) {
			assert_false(is_live(l, a));
			l->addr[l->n] = a;
			l->bytes[l->n++] = g;
			forge(a, g, rnd(s));
		}
		return;
	}
	uint32_t i = rnd(s) % l->n;
	if (p->c->realloc != NULL && (r & 12u) == 0u) {
		uint32_t a = p->c->realloc(state, l->addr[i], 1u + rnd(s) % max_bytes, &g);
		if (a != AGB_NULL) {
			l->addr[i] = a;
			l->bytes[i] = g;
			forge(a, g, rnd(s));
		}
		return;
	}
	p->c->free(state, l->addr[i]);
	l->addr[i] = l->addr[--l->n];
	l->bytes[i] = l->bytes[l->n];
}

/* An address that is not a live block: inside a live block (at an 8-byte step or anywhere),
 * inside a free run, or anywhere in the pool. */
static uint32_t abuse_address(const struct pool *p, const struct live *l, const struct runs *w,
			      uint32_t *s)
{
	for (;;) {
		uint32_t r = rnd(s), a;
		uint32_t mode = r % 4u, grid = (r & 16u) != 0u ? 8u : 1u;
		if (mode == 0u && l->n != 0u) {
			uint32_t i = rnd(s) % l->n;
			a = l->addr[i] + (rnd(s) % l->bytes[i]) / grid * grid;
		} else if (mode == 1u && w->n != 0u && w->n <= MAX_RUNS) {
			uint32_t i = rnd(s) % w->n;
			a = w->addr[i] + (rnd(s) % w->bytes[i]) / grid * grid;
		} else {
			a = p->cfg.arena_addr + (rnd(s) % p->cfg.arena_bytes) / grid * grid;
		}
		if (!is_live(l, a))
			return a;
	}
}

static void same_runs(const struct pool *p, const struct runs *a, const struct runs *b,
		      uint32_t addr, const char *op)
{
	if (a->n != b->n || memcmp(a->addr, b->addr, sizeof a->addr) != 0 ||
	    memcmp(a->bytes, b->bytes, sizeof a->bytes) != 0 ||
	    memcmp(a->kind, b->kind, sizeof a->kind) != 0)
		fail_msg("%s: %s of 0x%08x (not a live block) changed the pool's walk", p->c->name,
			 op, (unsigned)addr);
}

/* ---- the exact header of a used block, in a payload (tlsf, firstfit) ------------------------ */

/* The boundary-tag cores read a block's header in the word before its address. A game's
 * payload word that is exactly the header a used block there would have - written back from
 * an old copy of that memory after the block was freed and its memory reused (a stale
 * header), or forged - must not make free or realloc of that interior address touch the pool.
 * The header is observed, not computed: the word the core itself wrote for a used block of
 * 96 bytes at that address, so the test does not depend on the header's format. */

struct forged {
	uint32_t c, gbytes; /* the game's block holding the word, its granted bytes */
	uint32_t q;         /* the interior address whose header word it forges */
};

static struct runs walk_before, walk_after;

/* free and realloc of `addr` must leave the check passing, the walk, the free bytes and the
 * game's block C exactly as they were. */
static void refused_exactly(const struct pool *p, const struct forged *f, uint32_t addr,
			    const char *what)
{
	static uint32_t words[64];
	for (int op = 0; op < 2; op++) {
		uint32_t g = 0, fb = free_bytes(p);
		memset(&walk_before, 0, sizeof walk_before);
		memset(&walk_after, 0, sizeof walk_after);
		sound(p, what);
		p->c->walk(state, record_run, &walk_before);
		for (uint32_t i = 0; i < f->gbytes / 4u; i++)
			words[i] = AGB_PEEK32(M, f->c + 4u * i);
		if (op == 0)
			p->c->free(state, addr);
		else if (p->c->realloc(state, addr, 40u, &g) != AGB_NULL)
			fail_msg("%s: realloc of %s (0x%08x) was served", p->c->name, what,
				 (unsigned)addr);
		sound(p, what);
		p->c->walk(state, record_run, &walk_after);
		same_runs(p, &walk_before, &walk_after, addr, op == 0 ? "free" : "realloc");
		if (free_bytes(p) != fb)
			fail_msg("%s: %s (0x%08x) changed the free bytes", p->c->name, what,
				 (unsigned)addr);
		for (uint32_t i = 0; i < f->gbytes / 4u; i++)
			if (AGB_PEEK32(M, f->c + 4u * i) != words[i])
				fail_msg("%s: %s (0x%08x) wrote into the game's block", p->c->name, what,
					 (unsigned)addr);
	}
}

/* The game's block C of 128 bytes at the head of the pool (its payload zeroed), a guard block
 * G after it, and the interior address Q = C + 32. */
static struct forged forged_layout(const struct pool *p, uint32_t *guard)
{
	struct forged f;
	f.c = p->c->alloc(state, 124, 1, &f.gbytes);
	*guard = p->c->alloc(state, 24, 1, NULL);
	assert_true(f.c != AGB_NULL && *guard != AGB_NULL && f.gbytes == 124u);
	assert_int_equal(*guard, f.c + 128u);
	fill(f.c, f.gbytes, 0);
	f.q = f.c + 32u;
	return f;
}

enum exact_case { STALE_HEADER, FORGED_HEADER, FORGED_FREE_PREDECESSOR };

static void exact_header_core(const char *name, enum exact_case which)
{
	struct pool p = start(name);
	uint32_t g = 0, guard, h;
	/* P (32 bytes) then Q (96 bytes) at the head of the pool, G after them: Q's header. */
	uint32_t pb = p.c->alloc(state, 24, 1, &g), q = p.c->alloc(state, 88, 1, &g);
	guard = p.c->alloc(state, 24, 1, &g);
	assert_true(pb != AGB_NULL && q == pb + 32u && guard == q + 96u);
	h = AGB_PEEK32(M, q - 4u);
	struct forged f;

	if (which == STALE_HEADER) {
		/* Q and P freed (one free block of 128), which C of 128 reuses; the game's data puts
		 * Q's old header word back where it was. A double free of Q. */
		p.c->free(state, q);
		p.c->free(state, pb);
		p.c->free(state, guard);
		sound(&p, "freeing P, Q and G");
		f = forged_layout(&p, &guard);
		assert_int_equal(f.c, pb);
		assert_int_equal(f.q, q);
		AGB_ST32(M, q - 4u, h);
		refused_exactly(&p, &f, q, "a double free over Q's stale header in a reused block");
	} else {
		/* A fresh pool, where no block ever started at Q: the same word; or that word after a
		 * forged free predecessor of 16 bytes (header, empty links, footer). */
		p = start(name);
		f = forged_layout(&p, &guard);
		AGB_ST32(M, f.q - 4u, h);
		if (which == FORGED_HEADER) {
			refused_exactly(&p, &f, f.q, "an interior address after the exact used header");
		} else {
			AGB_ST32(M, f.q - 20u, 16u | 1u); /* FREE */
			AGB_ST32(M, f.q - 8u, 16u);
			AGB_ST32(M, f.q - 4u, h | 2u); /* PREV_FREE */
			refused_exactly(&p, &f, f.q,
					"an interior address after a forged free block and header");
		}
	}

	/* The pool still serves and comes back whole. */
	p.c->free(state, f.c);
	p.c->free(state, guard);
	assert_int_equal(sound(&p, "freeing C and G"), 0);
	assert_int_equal(free_bytes(&p), p.free0);
}

static void exact_header_in_payload(void **st)
{
	const char *name = ((const char *const *)*st)[0];
	const char *which = ((const char *const *)*st)[1];
	exact_header_core(name, which[0] == 's' ? STALE_HEADER
				: which[0] == 'h' ? FORGED_HEADER
						 : FORGED_FREE_PREDECESSOR);
}

#define EXACT_HEADER(core, which)                                                                   \
	{"exact_header_" core "_" which, exact_header_in_payload, NULL, NULL,                      \
	 (void *)(const char *const[]){core, which}}

/* From a random live pool, frees (and reallocs) random addresses that are not live blocks; each
 * must leave the checker passing and the walk and the free bytes unchanged. Then the pool goes
 * on serving a random continuation, checked after every op, and gives everything back. */
static void random_abuse_core(const char *name, uint32_t seed, uint32_t max_bytes)
{
	struct pool p = start(name);
	struct live l = {0};
	uint32_t s = seed;
	for (uint32_t round = 0; round < 6u; round++) {
		for (uint32_t k = 0; k < 60u; k++)
			random_op(&p, &l, &s, max_bytes);
		sound(&p, "a random live pool");
		for (uint32_t k = 0; k < 150u; k++) {
			static struct runs before, after;
			memset(&before, 0, sizeof before);
			memset(&after, 0, sizeof after);
			p.c->walk(state, record_run, &before);
			uint32_t fb = free_bytes(&p), g = 0;
			uint32_t a = abuse_address(&p, &l, &before, &s);
			const char *op = "free";
			if (p.c->realloc != NULL && (k & 7u) == 0u) {
				op = "realloc";
				if (p.c->realloc(state, a, 8u, &g) != AGB_NULL)
					fail_msg("%s: realloc of 0x%08x (not a live block) was served", name,
						 (unsigned)a);
			} else {
				p.c->free(state, a);
			}
			sound(&p, op);
			p.c->walk(state, record_run, &after);
			same_runs(&p, &before, &after, a, op);
			if (free_bytes(&p) != fb)
				fail_msg("%s: %s of 0x%08x changed the free bytes", name, op, (unsigned)a);
		}
	}
	for (uint32_t k = 0; k < 200u; k++) {
		random_op(&p, &l, &s, max_bytes);
		sound(&p, "the continuation");
	}
	while (l.n != 0u)
		p.c->free(state, l.addr[--l.n]);
	assert_int_equal(sound(&p, "freeing every live block"), 0);
	assert_int_equal(free_bytes(&p), p.free0);
}

/* One test per core (its name in the prestate), four seeds each. */
static void random_abuse(void **st)
{
	const char *name = *st;
	const struct agb_heap_core *c = agb_heap_core_find(name);
	assert_non_null(c);
	uint32_t max_bytes = (c->arenas & AGB_ARENA_BIT(AGB_ARENA_EWRAM)) != 0 ? 600u : 2048u;
	for (uint32_t seed = 1; seed <= 4u; seed++)
		random_abuse_core(name, seed * 0x2545F491u, max_bytes);
}

#define RANDOM_ABUSE(core) {"random_abuse_" core, random_abuse, NULL, NULL, (void *)(core)}

/* oam's slots: hiding a hidden slot, moving a hidden slot and slots past the 128 entries leave
 * the Z list and the free list as they were. */
static void oam_slot_abuse(void **st)
{
	(void)st;
	struct pool p = start("oam");
	agb_oam *o = (agb_oam *)state;
	uint8_t order[AGB_OAM_ENTRIES];
	uint32_t s0 = agb_oam_show(o, 10), s1 = agb_oam_show(o, 20), s2 = agb_oam_show(o, 5);
	assert_true(s0 != AGB_OAM_NONE && s1 != AGB_OAM_NONE && s2 != AGB_OAM_NONE);
	agb_oam_hide(o, s1);
	sound(&p, "a hide");
	agb_oam_hide(o, s1); /* twice */
	sound(&p, "a second hide of the same slot");
	agb_oam_set_z(o, s1, 1); /* a hidden slot */
	sound(&p, "a depth change of a hidden slot");
	agb_oam_hide(o, AGB_OAM_ENTRIES);
	agb_oam_set_z(o, 200, 3);
	sound(&p, "slots past the 128 entries");
	assert_int_equal(agb_oam_order(o, order, AGB_OAM_ENTRIES), 2);
	assert_int_equal(order[0], s2);
	assert_int_equal(order[1], s0);
	/* 126 more sprites fit and no more: each slot is on exactly one list */
	for (uint32_t i = 0; i < AGB_OAM_ENTRIES - 2u; i++)
		assert_int_not_equal(agb_oam_show(o, i), AGB_OAM_NONE);
	assert_int_equal(agb_oam_show(o, 7), AGB_OAM_NONE);
	sound(&p, "filling every slot");
}

/* The palette managers' pal_free of a bank where no palette starts, and palstack's pop of an
 * empty stack, are refused (AGB_VERB_BAD) with nothing changed. */
static void palette_abuse(void **st)
{
	(void)st;
	static const char *const pal_cores[] = {"palbanks", "palstack"};
	for (size_t i = 0; i < 2; i++) {
		const struct agb_heap_core *c = agb_heap_core_find(pal_cores[i]);
		struct pool p = {
		        c, {AGB_MEM_PAL, AGB_PAL_SIZE, 0x03000000u, 0x4000u, 0}, c->unit, 0};
		uint32_t d = 0, fb;
		agb_machine_init(M, AGB_WAITCNT_DEFAULT);
		assert_int_equal(c->init(state, M, &p.cfg), AGB_HEAP_OK);
		assert_int_equal(c->pal_load(state, 0, 1, AGB_MEM_EWRAM, 32, &d),
		                 0); /* banks 0-1 */
		assert_int_equal(c->pal_load(state, 0, 2, AGB_MEM_EWRAM, 16, &d), 15);
		fb = free_bytes(&p);
		const uint32_t bad[][2] = {{0, 1}, {0, 5}, {0, 16}, {2, 0}, {1, 0}, {0, 0xFFFFFFFFu}};
		for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			d = 7;
			assert_int_equal(c->pal_free(state, bad[k][0], bad[k][1], &d), AGB_VERB_BAD);
			assert_int_equal(d, 0);
			sound(&p, "a pal_free where no palette starts");
			assert_int_equal(free_bytes(&p), fb);
		}
		assert_int_equal(c->pal_free(state, 0, 15, &d), AGB_VERB_DONE);
		assert_int_equal(d, AGB_VERB_RELEASED);
		assert_int_equal(c->pal_free(state, 0, 15, &d), AGB_VERB_BAD); /* twice */
		assert_int_equal(free_bytes(&p), fb + AGB_PAL_BANK_BYTES);
		sound(&p, "a second pal_free of a palette");
		if (c->pal_pop != NULL) {
			assert_int_equal(c->pal_pop(state, 0, &d), AGB_VERB_BAD); /* empty stack */
			assert_int_equal(c->pal_pop(state, 2, &d), AGB_VERB_BAD);
			sound(&p, "a pop of an empty stack");
		}
	}
}

/* Arguments outside the contracts: a side other than 0/1, 0 or more than 256 colours, a bank
 * past 15, are refused (AGB_PAL_NONE or AGB_VERB_BAD) with nothing changed; the observers
 * answer 0 for them. */
static void palette_bad_arguments(void **st)
{
	(void)st;
	static const uint32_t bad[][2] = {{2, 16}, {0, 0}, {1, 257}, {0xFFFFFFFFu, 16}};
	static const char *const pal_cores[] = {"palbanks", "palstack"};
	for (size_t i = 0; i < 2; i++) {
		const struct agb_heap_core *c = agb_heap_core_find(pal_cores[i]);
		struct pool p = {
		        c, {AGB_MEM_PAL, AGB_PAL_SIZE, 0x03000000u, 0x4000u, 0}, c->unit, 0};
		uint32_t d = 7;
		agb_machine_init(M, AGB_WAITCNT_DEFAULT);
		assert_int_equal(c->init(state, M, &p.cfg), AGB_HEAP_OK);
		p.free0 = free_bytes(&p);
		for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			d = 7;
			assert_int_equal(
			        c->pal_load(state, bad[k][0], 1, AGB_MEM_EWRAM, bad[k][1], &d),
			        AGB_PAL_NONE);
			assert_int_equal(d, 0);
			if (c->pal_push != NULL) {
				assert_int_equal(c->pal_push(state, bad[k][0], 1, AGB_MEM_EWRAM,
				                             bad[k][1], &d),
				                 AGB_VERB_BAD);
				assert_int_equal(d, 0);
			}
			sound(&p, "a load or push outside the contract");
		}
		assert_int_equal(free_bytes(&p), p.free0);
	}
	agb_palbanks *pb = (agb_palbanks *)state;
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	{
		const struct agb_heap_config cfg = {AGB_MEM_PAL, AGB_PAL_SIZE, 0x03000000u, 0x4000u,
		                                    0};
		uint32_t d = 0;
		assert_int_equal(agb_palbanks_init(pb, M, &cfg), AGB_HEAP_OK);
		assert_int_equal(agb_palbanks_load(pb, 0, 1, AGB_MEM_EWRAM, 16, &d), 15);
		assert_int_equal(agb_palbanks_load(pb, 0, 1, AGB_MEM_EWRAM, 16, &d),
		                 15); /* shared */
		assert_int_equal(agb_palbanks_refs(pb, 0, 15), 2);
		assert_int_equal(agb_palbanks_refs(pb, 2, 15), 0);
		assert_int_equal(agb_palbanks_refs(pb, 0, 16), 0);
	}
	agb_palstack *ps = (agb_palstack *)state;
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	{
		const struct agb_heap_config cfg = {AGB_MEM_PAL, AGB_PAL_SIZE, AGB_MEM_EWRAM,
		                                    0x10000u, 0};
		uint32_t d = 0;
		assert_int_equal(agb_palstack_init(ps, M, &cfg), AGB_HEAP_OK);
		assert_int_equal(agb_palstack_push(ps, 1, 1, AGB_MEM_EWRAM + 0x8000u, 16, &d),
		                 AGB_VERB_DONE);
		assert_int_equal(agb_palstack_depth(ps, 1), 1);
		assert_int_equal(agb_palstack_buffer_used(ps, 1), d);
		assert_int_equal(agb_palstack_depth(ps, 2), 0);
		assert_int_equal(agb_palstack_buffer_used(ps, 2), 0);
	}
}

/* The EWRAM heaps: a NULL `granted`, size 0 (alloc and realloc), an alignment beyond the
 * pool's and a realloc of AGB_NULL follow the contracts (agb/heap.h). */
static void block_bad_arguments(void **st)
{
	(void)st;
	static const char *const names[] = {"slots", "bump", "stack2", "tlsf", "firstfit", "buddy"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct agb_heap_config cfg = {AGB_MEM_EWRAM, 65536u, 0x03000000u, 0x4000u, 0};
		const struct agb_heap_core *c = agb_heap_core_find(names[i]);
		struct pool p = {c, cfg, c->unit, 0};
		uint32_t g = 0, a, b;
		agb_machine_init(M, AGB_WAITCNT_DEFAULT);
		assert_int_equal(c->init(state, M, &cfg), AGB_HEAP_OK);
		p.free0 = free_bytes(&p);
		a = c->alloc(state, 24, 1, NULL);
		assert_int_not_equal(a, AGB_NULL);
		b = c->alloc(state, 0, 1, &g); /* size 0: a real, distinct block */
		assert_int_not_equal(b, AGB_NULL);
		assert_int_not_equal(b, a);
		assert_true(g >= 1);
		assert_int_equal(c->alloc(state, 16, 0x80000000u, &g), AGB_NULL);
		a = c->realloc(state, a, 20, NULL); /* shrink or same: a block that holds 20 */
		assert_int_not_equal(a, AGB_NULL);
		a = c->realloc(state, a, 0, &g); /* size 0: still a block */
		assert_int_not_equal(a, AGB_NULL);
		assert_true(g >= 1);
		assert_int_not_equal(c->realloc(state, AGB_NULL, 40, &g), AGB_NULL);
		assert_true(g >= 40);
		sound(&p, "calls at the edges of the contracts");
		assert_true(free_bytes(&p) < p.free0);
		/* realloc of an address in no block (foreign, in ROM, past the blocks, off the grid)
		 * changes nothing; bump and stack2 have no headers, so this is all they can see */
		const uint32_t foreign[] = {0x08000000u, AGB_MEM_EWRAM + 65536u + 64u,
		                            AGB_MEM_EWRAM + 32768u, a + 2u, AGB_MEM_EWRAM - 8u};
		for (size_t k = 0; k < sizeof foreign / sizeof foreign[0]; k++) {
			uint32_t fb = free_bytes(&p), used = sound(&p, "a realloc in no block");
			g = 7;
			assert_int_equal(c->realloc(state, foreign[k], 16, &g), AGB_NULL);
			assert_int_equal(free_bytes(&p), fb);
			assert_int_equal(sound(&p, "a realloc in no block"), used);
		}
	}
}

/* tiles: agb_tiles_unref_block of a block with no refs left (an unref after the last), of the
 * transparent pair, of an 8bpp tile's second block or past the pool changes nothing; one at a
 * depth that is not the tile's drops the count like a right one (no free list is touched: the
 * tile stays resident, unreferenced, and the structure stays sound); the unref verb skips a
 * tile with no refs. */
static void tiles_abuse(void **st)
{
	(void)st;
	const struct agb_heap_core *c = agb_heap_core_find("tiles");
	struct pool p = {c,
	                 {AGB_MEM_VRAM_BG, AGB_VRAM_BG_SIZE, AGB_MEM_EWRAM, AGB_EWRAM_SIZE, 0},
	                 c->unit,
	                 0};
	agb_tiles *t = (agb_tiles *)state;
	uint32_t d = 0, b, fb;
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	assert_int_equal(c->init(state, M, &p.cfg), AGB_HEAP_OK);
	p.free0 = free_bytes(&p);
	b = agb_tiles_ref(t, 5, 4, &d);
	assert_int_equal(d, AGB_VERB_UPLOADED);
	assert_int_equal(agb_tiles_ref(t, 5, 4, &d), b);
	uint32_t b8 = agb_tiles_ref(t, 9, 8, &d); /* another live tile */
	assert_int_equal(b8 % 2u, 0);
	/* each with one ref: unrefs of an 8bpp tile's second block or past the pool are ignored */
	uint32_t b4 = agb_tiles_ref(t, 11, 4, &d);
	fb = free_bytes(&p);
	const uint32_t wrong[][2] = {{b8 + 1u, 8}, {b8 + 1u, 4}, {t->blocks, 4}, {t->blocks + 1u, 8},
				     {0xFFFFFFFFu, 4}};
	for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
		assert_int_equal(agb_tiles_unref_block(t, wrong[k][0], wrong[k][1]), 0);
		sound(&p, "an unref of a tail or past the pool");
		assert_int_equal(free_bytes(&p), fb);
	}
	/* the wrong depth, or a bpp other than 4/8: the count drops (before, when the last unref
	 * freed the slot, the first released the wrong number of blocks); the tiles stay resident
	 * and a ref revives them where they are */
	assert_int_equal(agb_tiles_unref_block(t, b8, 4), 1);
	sound(&p, "an unref at the wrong depth");
	assert_int_equal(free_bytes(&p), fb + 64u);
	assert_int_equal(agb_tiles_ref(t, 9, 8, &d), b8);
	assert_int_equal(d, AGB_VERB_REVIVED);
	assert_int_equal(agb_tiles_unref_block(t, b4, 5), 1);
	sound(&p, "an unref with a bpp other than 4/8");
	assert_int_equal(agb_tiles_ref(t, 11, 4, &d), b4);
	assert_int_equal(d, AGB_VERB_REVIVED);
	assert_int_equal(free_bytes(&p), fb);
	assert_int_equal(agb_tiles_unref_block(t, b4, 4), 1);
	assert_int_equal(agb_tiles_unref_block(t, b, 4), 0);
	assert_int_equal(agb_tiles_unref_block(t, b, 4), 1); /* the last ref */
	sound(&p, "the last unref");
	fb = free_bytes(&p);
	assert_int_equal(agb_tiles_unref_block(t, b, 4), 0); /* one too many */
	sound(&p, "an unref after the last");
	assert_int_equal(agb_tiles_unref_block(t, 1, 4), 0);
	assert_int_equal(agb_tiles_unref_block(t, 0, 8), 0);
	sound(&p, "unrefs of the transparent pair");
	assert_int_equal(free_bytes(&p), fb);
	assert_int_equal(c->unref(state, 5, 4, &d), AGB_VERB_DONE);
	assert_int_equal(d, AGB_VERB_SKIPPED);
	assert_int_equal(c->unref(state, 5, 3, &d), AGB_VERB_BAD);
	assert_int_equal(c->unref(state, 0xFFFFu, 4, &d), AGB_VERB_BAD);
	sound(&p, "unrefs by ROM tile");
	assert_int_equal(free_bytes(&p), fb);
	/* the tile is still resident, unreferenced: a ref revives it where it is */
	assert_int_equal(agb_tiles_ref(t, 5, 4, &d), b);
	assert_int_equal(d, AGB_VERB_REVIVED);
	sound(&p, "a revival");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(abuse_zero_payloads),
		cmocka_unit_test(abuse_flag_payloads),
		cmocka_unit_test(abuse_forged_payloads),
		EXACT_HEADER("tlsf", "stale"),
		EXACT_HEADER("tlsf", "header"),
		EXACT_HEADER("tlsf", "predecessor"),
		EXACT_HEADER("firstfit", "stale"),
		EXACT_HEADER("firstfit", "header"),
		EXACT_HEADER("firstfit", "predecessor"),
		RANDOM_ABUSE("tree"),
		RANDOM_ABUSE("bestfit"),
		RANDOM_ABUSE("tlsf"),
		RANDOM_ABUSE("firstfit"),
		RANDOM_ABUSE("buddy"),
		RANDOM_ABUSE("slots"),
		RANDOM_ABUSE("obj"),
		RANDOM_ABUSE("obj-fast"),
		RANDOM_ABUSE("oam"),
		cmocka_unit_test(oam_slot_abuse),
		cmocka_unit_test(palette_abuse),
		cmocka_unit_test(tiles_abuse),
		cmocka_unit_test(palette_bad_arguments),
		cmocka_unit_test(block_bad_arguments),
	};
	return cmocka_run_group_tests(tests, machine_setup, machine_teardown);
}
