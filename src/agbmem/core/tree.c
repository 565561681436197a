/* `tree`: best-fit allocator over 8-byte blocks with a 2-bit map and a treap of free runs.
 * Layout and encodings are described in include/agb/tree.h.
 *
 * AGB_WORK (docs/design.md, "Cycle figures"): the sites below declare work, each weighted by the
 * code it stands for, so that one unit is about the same work wherever it is: W units, W = the
 * non-memory Thumb instructions the site executes per pass / 10, rounded, at least 1 (memory
 * instructions are counted as accesses). The counts were read off the GBA build with
 * `scripts/profile-gba traces/calib/ewram-mixed.json --allocator=tree --function F` (a
 * calibration trace); each site's comment gives its count. Sites: prio() (10), the alloc
 * searches' node steps (11, 7), the aligned walk (17) and the aligned arm (12), the carve and
 * replace arms (8, 9), mark_used's short and long arms (34, 35), make_free (8), the insert's
 * fixed part (36), descent (17) and split steps (23), the removal's fixed part (16) and merge
 * steps (31), the replacement's fixed part (41), its down steps (11) and rotations (24),
 * below_next's and tree_next's steps (7..11), used_len (16), free's arms: the short and long
 * map clears (16, 25), the merge below (17), above too (9), above alone (13), and below_next's
 * outcome (1..3), and the refusal's key search (11). Not declared: free's and the refusal's fixed
 * parts (every call), realloc's copy (counted loads and stores). realloc's arms (read the same
 * way on traces/calib/ewram-chains.json, its own lines only: the helpers it calls declare
 * theirs): the size kept (5), in place (19), the move (10), the move refused (4). A weight
 * changes only with the code: re-read it when a site's code changes. */
#include "agb/tree.h"

#include "agb/cores.h"
#include "common/map2.h"

#define NIL 0xFFFFu

/* Header fields (offsets from the arena start). */
#define HDR_NBLOCKS 0u
#define HDR_ROOT 2u
#define HDR_BLOCKS 4u
#define HDR_BYTES 8u

/* Tree node, in the first block of a free run. The two children share a word so removal reads
 * both with one access. N_SIZE doubles as the boundary tag in the run's last block, which is why a
 * one-block run needs no special case. */
#define N_SMALLER 0u
#define N_LARGER 2u
#define N_PARENT 4u
#define N_SIZE 6u

#define E_FREE 0u
#define E_USED 1u
#define E_LONG 2u
#define E_END 3u

/* Beyond this many blocks a long run's length no longer fits its encoding (map2.h agb_map2_len_encode): 15 bits,
 * about 256 KiB of blocks, all of EWRAM. */
#define MAX_BLOCKS 0x7FFFu

/* The hot helpers are forced inline: from ROM a Thumb call with its register saves costs some
 * 20 instructions, about as much as three levels of a tree walk. */
#define HOT static inline __attribute__((always_inline))

/* ---- small accessors ------------------------------------------------------------------------ */

static inline uint32_t node(const agb_tree *t, uint32_t i)
{
	return t->blocks + (i << 3);
}

static inline uint32_t ld(const agb_tree *t, uint32_t i, uint32_t field)
{
	return AGB_LD16(t->m, node(t, i) + field);
}

static inline void st(const agb_tree *t, uint32_t i, uint32_t field, uint32_t v)
{
	AGB_ST16(t->m, node(t, i) + field, v);
}

static inline uint32_t pk(const agb_tree *t, uint32_t i, uint32_t field)
{
	return AGB_PEEK16(t->m, node(t, i) + field);
}

static inline uint32_t root_get(const agb_tree *t)
{
	return AGB_LD16(t->m, t->base + HDR_ROOT);
}

static inline void root_set(const agb_tree *t, uint32_t r)
{
	AGB_ST16(t->m, t->base + HDR_ROOT, r);
}

/* Address of the map halfword holding entry i. */
static inline uint32_t map_hw(const agb_tree *t, uint32_t i)
{
	return agb_map2_hw(t->map, i);
}

static inline uint32_t entry_peek(const agb_tree *t, uint32_t i)
{
	return agb_map2_peek(t->m, t->map, i);
}

/* Sets entry i (read-modify-write of its halfword). */
HOT void map_set(agb_tree *t, uint32_t i, uint32_t v)
{
	agb_map2_set(t->m, t->map, i, v);
}


/* A long run's length halfword is encoded (src/core/map2.h agb_map2_len_encode) so that the
 * halfword before it tells it apart (agb_map2_starts_long), and a run whose last block follows
 * it has that block refused as a start by its E_USED top entry. */
/* Index of the lowest set bit; ARMv4T has no CLZ, so a de Bruijn multiply and a ROM table. */
static const uint8_t debruijn32[32] = {0,  1,  28, 2,  29, 14, 24, 3,  30, 22, 20,
				       15, 25, 17, 4,  8,  31, 27, 13, 23, 21, 19,
				       16, 7,  26, 12, 18, 6,  11, 5,  10, 9};

static inline uint32_t lowbit(agb_tree *t, uint32_t x)
{
	return AGB_ROM_LD8(t->m, debruijn32, ((x & (0u - x)) * 0x077CB531u) >> 27);
}


/* On the GBA, hides a constant from the optimiser: GCC expands a multiply by a constant into
 * some 30 Thumb shifts and adds (about 70 cycles from ROM) where one MUL takes at most 5. */
#ifdef AGB_TARGET_GBA
#define OPAQUE(x) __asm__("" : "+r"(x))
#else
#define OPAQUE(x) ((void)0)
#endif

/* Treap priority: a bijective mix of the index, so priorities are distinct and cost no storage. */
static inline uint32_t prio(uint32_t i)
{
	uint32_t k1 = 0x9E3779B1u, k2 = 0x85EBCA6Bu;
	OPAQUE(k1);
	OPAQUE(k2);
	uint32_t h = i * k1;
	h ^= h >> 16;
	h *= k2;
	h ^= h >> 13;
	return h;
}

/* prio() in an op: two multiplies by literal-pool constants, 10 instructions (1 unit). */
#define PRIO_W(t, i) (AGB_WORK((t)->m, 1), prio(i))

static inline int key_less(uint32_t sa, uint32_t a, uint32_t sb, uint32_t b)
{
	return sa < sb || (sa == sb && a < b);
}

/* ---- the treap ------------------------------------------------------------------------------ */

/* Links run x of `size` blocks into the tree (writes its whole node, not the boundary tag).
 * Top-down: descend while the nodes outrank x, put x there and split the subtree it displaces
 * by x's key into x's two children. Links are written only where the split path switches sides,
 * so a step costs two loads (size, child) instead of a rotation's ten accesses. */
HOT void tree_insert(agb_tree *t, uint32_t x, uint32_t size)
{
	/* Keys compare as one word: size above index (both < 2^16). */
	const uint32_t kx = (size << 16) | x;
	/* The fixed part past the descent and split loops (setup, the final links): 36 instructions. */
	AGB_WORK(t->m, 4);
	const uint32_t px = PRIO_W(t, x);
	uint32_t parent = NIL, slot = NIL;
	uint32_t y = root_get(t);
	while (y != NIL && PRIO_W(t, y) > px) {
		uint32_t ay = node(t, y);
		AGB_WORK(t->m, 2); /* 17 instructions a step */
		parent = y;
		slot = kx < (((uint32_t)AGB_LD16(t->m, ay + N_SIZE) << 16) | y) ? N_SMALLER : N_LARGER;
		y = AGB_LD16(t->m, ay + slot);
	}
	if (parent == NIL)
		root_set(t, x);
	else
		st(t, parent, slot, x);

	/* Split y's subtree: keys below x hang off x's smaller side along larger-links, keys above
	 * off its larger side along smaller-links. `lown`/`rown` are the last nodes placed on each
	 * side (NIL: x itself), `lheld`/`rheld` what their open slot holds now. */
	uint32_t lroot = NIL, rroot = NIL, lown = NIL, rown = NIL, lheld = NIL, rheld = NIL;
	uint32_t prev = parent, cur = y;
	while (cur != NIL) {
		uint32_t next;
		AGB_WORK(t->m, 2); /* 23 instructions a step */
		if (((ld(t, cur, N_SIZE) << 16) | cur) < kx) {
			if (lown == NIL)
				lroot = cur;
			else if (lheld != cur)
				st(t, lown, N_LARGER, cur);
			if (prev != lown || lown == NIL)
				st(t, cur, N_PARENT, lown == NIL ? x : lown);
			lown = cur;
			next = lheld = ld(t, cur, N_LARGER);
		} else {
			if (rown == NIL)
				rroot = cur;
			else if (rheld != cur)
				st(t, rown, N_SMALLER, cur);
			if (prev != rown || rown == NIL)
				st(t, cur, N_PARENT, rown == NIL ? x : rown);
			rown = cur;
			next = rheld = ld(t, cur, N_SMALLER);
		}
		prev = cur;
		cur = next;
	}
	if (lown != NIL && lheld != NIL)
		st(t, lown, N_LARGER, NIL);
	if (rown != NIL && rheld != NIL)
		st(t, rown, N_SMALLER, NIL);
	AGB_ST32(t->m, node(t, x), lroot | (rroot << 16));
	AGB_ST32(t->m, node(t, x) + N_PARENT, parent | (size << 16));
}

/* Unlinks z by merging its two subtrees in its place: walk down the larger-spine of the smaller
 * subtree and the smaller-spine of the larger one, taking the higher priority each step. Links are
 * written only where the walk switches sides, so a step costs one load; the walk is expected to be
 * under two steps long. */
HOT void tree_remove_inl(agb_tree *t, uint32_t z)
{
	uint32_t kids = AGB_LD32(t->m, node(t, z));
	uint32_t l = kids & 0xFFFFu, r = kids >> 16;
	uint32_t parent = ld(t, z, N_PARENT);
	uint32_t slot = NIL; /* slot of `parent` being filled; NIL: the root */
	if (parent != NIL)
		slot = ld(t, parent, N_SMALLER) == z ? N_SMALLER : N_LARGER;
	uint32_t held = z; /* what that slot holds now */
	/* The fixed part past the merge walk (parent slot lookup, the final links): 16 instructions. */
	AGB_WORK(t->m, 2);
	for (;;) {
		uint32_t x, next_slot;
		AGB_WORK(t->m, 3); /* 31 instructions a step */
		if (l == NIL || r == NIL) {
			x = l == NIL ? r : l;
			next_slot = NIL;
		} else if (PRIO_W(t, l) > PRIO_W(t, r)) {
			x = l;
			next_slot = N_LARGER;
		} else {
			x = r;
			next_slot = N_SMALLER;
		}
		if (x != held) {
			if (slot == NIL)
				root_set(t, x);
			else
				st(t, parent, slot, x);
			if (x != NIL)
				st(t, x, N_PARENT, parent);
		}
		if (next_slot == NIL)
			return;
		parent = x;
		slot = next_slot;
		held = ld(t, x, next_slot);
		if (x == l)
			l = held;
		else
			r = held;
	}
}

/* Out of line for free(), whose two removals inlined would crowd Thumb's eight registers. */
static __attribute__((noinline)) void tree_remove(agb_tree *t, uint32_t z)
{
	tree_remove_inl(t, z);
}

/* Rotates x above its parent p. */
HOT void rotate_up(agb_tree *t, uint32_t x, uint32_t p)
{
	uint32_t ax = node(t, x), ap = node(t, p);
	uint32_t pkids = AGB_LD32(t->m, ap);
	AGB_WORK(t->m, 2); /* 24 instructions */
	uint32_t g = AGB_LD16(t->m, ap + N_PARENT);
	uint32_t b;
	if ((pkids & 0xFFFFu) == x) {
		b = AGB_LD16(t->m, ax + N_LARGER);
		AGB_ST16(t->m, ap + N_SMALLER, b);
		AGB_ST16(t->m, ax + N_LARGER, p);
	} else {
		b = AGB_LD16(t->m, ax + N_SMALLER);
		AGB_ST16(t->m, ap + N_LARGER, b);
		AGB_ST16(t->m, ax + N_SMALLER, p);
	}
	if (b != NIL)
		st(t, b, N_PARENT, p);
	AGB_ST16(t->m, ap + N_PARENT, x);
	AGB_ST16(t->m, ax + N_PARENT, g);
	if (g == NIL)
		root_set(t, x);
	else
		st(t, g, ld(t, g, N_SMALLER) == p ? N_SMALLER : N_LARGER, x);
}

/* Run x of `size` blocks takes the place of node `from` (x != from), whose key neighbours the
 * caller has checked still bracket x's key: x gets from's links, then rotations restore the heap
 * order for x's own priority (expected under two, against a root-to-leaf insert). The result is
 * the one treap of that key set, exactly as remove + insert would leave it. */
HOT void tree_replace(agb_tree *t, uint32_t from, uint32_t x, uint32_t size)
{
	uint32_t af = node(t, from), ax = node(t, x);
	uint32_t kids = AGB_LD32(t->m, af);
	AGB_WORK(t->m, 4); /* the fixed part: 41 instructions */
	uint32_t parent = AGB_LD16(t->m, af + N_PARENT);
	AGB_ST32(t->m, ax, kids);
	AGB_ST32(t->m, ax + N_PARENT, parent | (size << 16));
	if (parent == NIL)
		root_set(t, x);
	else
		st(t, parent, ld(t, parent, N_SMALLER) == from ? N_SMALLER : N_LARGER, x);
	uint32_t l = kids & 0xFFFFu, r = kids >> 16;
	if (l != NIL)
		st(t, l, N_PARENT, x);
	if (r != NIL)
		st(t, r, N_PARENT, x);
	const uint32_t px = PRIO_W(t, x);
	if (parent != NIL && PRIO_W(t, parent) < px) {
		do {
			rotate_up(t, x, parent);
			parent = ld(t, x, N_PARENT);
		} while (parent != NIL && PRIO_W(t, parent) < px);
		return;
	}
	for (;;) {
		uint32_t c = NIL, pc = px;
		AGB_WORK(t->m, 1); /* 11 instructions a step */
		if (l != NIL && PRIO_W(t, l) > pc) {
			c = l;
			pc = prio(l);
		}
		if (r != NIL && PRIO_W(t, r) > pc)
			c = r;
		if (c == NIL)
			return;
		rotate_up(t, c, x);
		kids = AGB_LD32(t->m, ax);
		l = kids & 0xFFFFu;
		r = kids >> 16;
	}
}

/* Whether key k, above x's key, still sorts below x's in-order successor. Gives up (0) after a
 * few steps, since the caller can always fall back to remove + insert. */
HOT int below_next(agb_tree *t, uint32_t x, uint32_t k)
{
	uint32_t y = ld(t, x, N_LARGER);
	if (y != NIL) {
		/* The successor is the leftmost node under y; every node on the way is above it. */
		for (uint32_t steps = 0; steps < 6u; steps++) {
			AGB_WORK(t->m, 1); /* 7 instructions a step */
			if (k > ((ld(t, y, N_SIZE) << 16) | y))
				return 0;
			y = ld(t, y, N_SMALLER);
			if (y == NIL)
				return 1;
		}
		return 0;
	}
	for (uint32_t steps = 0; steps < 8u; steps++) {
		uint32_t p = ld(t, x, N_PARENT);
		AGB_WORK(t->m, 1); /* 10 instructions a step */
		if (p == NIL)
			return 1;
		if (ld(t, p, N_SMALLER) == x)
			return k < ((ld(t, p, N_SIZE) << 16) | p);
		x = p;
	}
	return 0;
}

/* In-order successor (next larger key), NIL after the largest. */
static uint32_t tree_next(agb_tree *t, uint32_t x)
{
	uint32_t y = ld(t, x, N_LARGER);
	if (y != NIL) {
		for (;;) {
			uint32_t l = ld(t, y, N_SMALLER);
			AGB_WORK(t->m, 1); /* 7 instructions a step */
			if (l == NIL)
				return y;
			y = l;
		}
	}
	for (;;) {
		uint32_t p = ld(t, x, N_PARENT);
		AGB_WORK(t->m, 1); /* 6 instructions a step */
		if (p == NIL || ld(t, p, N_SMALLER) == x)
			return p;
		x = p;
	}
}

/* ---- free-run bookkeeping ------------------------------------------------------------------- */

/* The observation counters are host-only: on the GBA they would be real work in every op (a
 * multiply and 64-bit arithmetic), so there stats() recounts with a walk instead. */
#ifdef AGB_TARGET_GBA
#define COUNTERS 0
#else
#define COUNTERS 1
#endif

static inline void runs_add(agb_tree *t, uint32_t size)
{
	if (COUNTERS) {
		t->free_runs++;
		t->free_sq += (uint32_t)(size * size); /* blocks < 2^16: a 32-bit multiply */
	}
}

static inline void runs_drop(agb_tree *t, uint32_t size)
{
	if (COUNTERS) {
		t->free_runs--;
		t->free_sq -= (uint32_t)(size * size); /* blocks < 2^16: a 32-bit multiply */
	}
}

static inline void blocks_add(agb_tree *t, uint32_t n)
{
	if (COUNTERS)
		t->free_blocks += n;
}

/* Makes [x, x+size) a free run: boundary tag and tree node. Its first and last map entries must
 * already be E_FREE. */
HOT void make_free(agb_tree *t, uint32_t x, uint32_t size)
{
	AGB_WORK(t->m, 1); /* 8 instructions past the insert's */
	if (size > 1u)
		st(t, x + size - 1u, N_SIZE, size);
	tree_insert(t, x, size);
	runs_add(t, size);
}

/* Writes the map for a used run [b, b+len) carved from entries that are all E_FREE (map2.h):
 * the long arm's shifts and masks are 35 instructions, the short one's 34. */
HOT void mark_used(agb_tree *t, uint32_t b, uint32_t len)
{
	AGB_WORK(t->m, 3);
	agb_map2_mark_used(t->m, t->map, b, len);
}

/* Sets every entry of the used run [b, b+len) back to E_FREE: all of a short run; a long run's
 * first, its length halfword and its last (the others are E_FREE already). */
HOT void clear_used(agb_tree *t, uint32_t b, uint32_t len)
{
	agb_map2_clear_used(t->m, t->map, b, len);
}

/* Length of the used run at b, given w0 = its map halfword. *w1 receives the next halfword when it
 * had to be read (else it is left alone), so callers can reuse it. */
HOT uint32_t used_len(agb_tree *t, uint32_t b, uint32_t w0, uint32_t *w1, int *have1)
{
	uint32_t sh = (b & 7u) << 1;
	uint32_t e = (w0 >> sh) & 3u;
	AGB_WORK(t->m, 2); /* 16 instructions */
	if (e == E_END)
		return 1u;
	uint32_t a = map_hw(t, b);
	if (e == E_LONG) {
		*w1 = AGB_LD16(t->m, a + 2u);
		*have1 = 1;
		return agb_map2_len_decode(*w1);
	}
	/* Short: the end is the first entry with its high bit set. */
	uint32_t hb = ((w0 >> 1) & 0x5555u) >> sh;
	if (hb != 0u)
		return (lowbit(t, hb) >> 1) + 1u;
	*w1 = AGB_LD16(t->m, a + 2u);
	*have1 = 1;
	return 8u - (b & 7u) + (lowbit(t, (*w1 >> 1) & 0x5555u) >> 1) + 1u;
}


/* Takes [s, s+len) out of free run [p, p+rsize); whatever is left before and after stays free. */
HOT void carve(agb_tree *t, uint32_t p, uint32_t rsize, uint32_t s, uint32_t len)
{
	uint32_t head = s - p;
	uint32_t tail = rsize - head - len;
	AGB_WORK(t->m, 1); /* 8 instructions past the calls' */
	tree_remove_inl(t, p);
	runs_drop(t, rsize);
	blocks_add(t, 0u - len);
	mark_used(t, s, len); /* head and tail keep their E_FREE entries */
	if (head != 0u)
		make_free(t, p, head);
	if (tail != 0u)
		make_free(t, s + len, tail);
}

/* ---- public API ----------------------------------------------------------------------------- */

int agb_tree_init(agb_tree *t, agb_machine *m, const struct agb_heap_config *cfg)
{
	const uint32_t arena = cfg->arena_addr, bytes = cfg->arena_bytes;
	if ((arena & 7u) != 0u || arena == AGB_NULL)
		return AGB_HEAP_BAD_ALIGNMENT;
	uint32_t total = bytes >> 3;
	if (total < 3u)
		return AGB_HEAP_ARENA_TOO_SMALL;
	/* Largest n with header + ceil(n/32) map blocks + n blocks <= total (no division: the GBA
	 * has none). */
	uint32_t avail = total - 1u;
	uint32_t n = avail - ((avail + 31u) >> 5);
	while (n + 1u + ((n + 32u) >> 5) <= avail)
		n++;
	if (n > MAX_BLOCKS)
		return AGB_HEAP_ARENA_TOO_LARGE;
	uint32_t map_blocks = (n + 31u) >> 5;

	t->m = m;
	t->base = arena;
	t->map = arena + HDR_BYTES;
	t->blocks = t->map + (map_blocks << 3);
	t->nblocks = n;
	t->meta_bytes = HDR_BYTES + (map_blocks << 3);
	t->waste_bytes = bytes - t->meta_bytes - (n << 3);

	AGB_ST16(m, arena + HDR_NBLOCKS, n);
	AGB_ST16(m, arena + HDR_ROOT, 0u);
	AGB_ST32(m, arena + HDR_BLOCKS, t->blocks);
	for (uint32_t a = t->map; a < t->blocks; a += 4u)
		AGB_ST32(m, a, 0u);
	AGB_ST32(m, node(t, 0), 0xFFFFFFFFu);
	AGB_ST32(m, node(t, 0) + N_PARENT, NIL | (n << 16));
	if (n > 1u)
		st(t, n - 1u, N_SIZE, n);

	t->free_blocks = n;
	t->free_runs = 1;
	t->free_sq = (uint32_t)(n * n); /* n < 2^16: no 64-bit multiply (libgcc) */
	return AGB_HEAP_OK;
}

HOT uint32_t tree_alloc(agb_tree *t, uint32_t size, uint32_t align, uint32_t *granted)
{
	if (granted != NULL)
		*granted = 0;
	if (size == 0u)
		size = 1u;
	if (size > (t->nblocks << 3))
		return AGB_NULL;
	uint32_t want = (size + 7u) >> 3;
	uint32_t best = NIL, best_size = 0, start;

	if (align <= 8u) {
		/* Lower bound on size; an exact size ends the search since nothing fits better. The
		 * last node where the search turned right is the best run's key predecessor. */
		uint32_t y = root_get(t);
		uint32_t pred_key = 0;
		while (y != NIL) {
			uint32_t s = ld(t, y, N_SIZE);
			AGB_WORK(t->m, 1); /* 11 instructions a step */
			if (s < want) {
				pred_key = (s << 16) | y;
				y = ld(t, y, N_LARGER);
			} else {
				best = y;
				best_size = s;
				if (s == want)
					break;
				y = ld(t, y, N_SMALLER);
			}
		}
		if (best == NIL)
			return AGB_NULL;
		uint32_t tail = best_size - want;
		uint32_t q = best + want;
		/* When the remainder's key still sorts above the predecessor's (0: none; key (0, 0)
		 * cannot exist) it takes the run's place in key order: no remove + insert. */
		if (tail != 0u && pred_key < ((tail << 16) | q)) {
			AGB_WORK(t->m, 1); /* 9 instructions past the calls' */
			tree_replace(t, best, q, tail);
			if (tail > 1u)
				st(t, q + tail - 1u, N_SIZE, tail);
			runs_drop(t, best_size);
			runs_add(t, tail);
			blocks_add(t, 0u - want);
			mark_used(t, best, want);
			if (granted != NULL)
				*granted = want << 3;
			return node(t, best);
		}
		start = best;
	} else {
		/* Smallest run that holds the aligned request: from the lower bound on size, walk up in
		 * key order; the first run of size >= want + pad_max always fits, so the walk is bounded
		 * by the runs whose size is within `align` bytes of the request. */
		uint32_t amask = (align >> 3) - 1u;
		uint32_t phase = (t->blocks >> 3) & amask;
		uint32_t y = root_get(t);
		AGB_WORK(t->m, 1); /* the arm's setup and start: 12 instructions */
		while (y != NIL) {
			AGB_WORK(t->m, 1); /* 7 instructions a step */
			if (ld(t, y, N_SIZE) < want) {
				y = ld(t, y, N_LARGER);
			} else {
				best = y;
				y = ld(t, y, N_SMALLER);
			}
		}
		for (y = best, best = NIL; y != NIL; y = tree_next(t, y)) {
			uint32_t s = ld(t, y, N_SIZE);
			uint32_t pad = (0u - (phase + y)) & amask;
			AGB_WORK(t->m, 2); /* 17 instructions a step */
			if (pad < s && s - pad >= want) {
				best = y;
				best_size = s;
				break;
			}
		}
		if (best == NIL)
			return AGB_NULL;
		start = best + ((0u - (phase + best)) & amask);
	}
	carve(t, best, best_size, start, want);
	if (granted != NULL)
		*granted = want << 3;
	return node(t, start);
}

/* Frees the used run at block b, given w0 = its map halfword and el = its left neighbour's entry
 * (E_END for block 0), both read by refused(). */
HOT void tree_free(agb_tree *t, uint32_t b, uint32_t w0, uint32_t el)
{
	uint32_t h0 = b >> 3;
	uint32_t a0 = map_hw(t, b);
	uint32_t w1 = 0, we = 0;
	int have1 = 0;
	uint32_t len = used_len(t, b, w0, &w1, &have1);
	uint32_t end = b + len; /* first block after the run */

	int left = el == E_FREE, right = 0;
	if (end < t->nblocks) {
		uint32_t he = end >> 3;
		if (he == h0)
			we = w0;
		else if (he == h0 + 1u && have1)
			we = w1; /* a long run's length halfword never holds `end` (it is interior) */
		else
			we = AGB_LD16(t->m, map_hw(t, end));
		right = ((we >> ((end & 7u) << 1)) & 3u) == E_FREE;
	}

	/* Every entry of the run becomes E_FREE (a long run's inner ones are already): every entry
	 * of the merged free run is then E_FREE, which is what lets free refuse a second free of
	 * addr or any address inside the run (refused(), agb/tree.h). */
	if (!agb_map2_is_long(b, len)) {
		AGB_WORK(t->m, 2); /* the short run's masks: 16 instructions */
		agb_map2_clear_short(t->m, t->map, b, len);
		goto cleared;
	}
	AGB_WORK(t->m, 2); /* the long run's three entries: 25 instructions */
	AGB_ST16(t->m, a0, w0 & ~(3u << ((b & 7u) << 1)));
	AGB_ST16(t->m, a0 + 2u, 0u);
	/* The last entry is never in h0 or h0 + 1 (a long run covers h0 + 1); it shares `end`'s
	 * halfword, already read, unless `end` starts a halfword or the pool. */
	if (end < t->nblocks && (end & 7u) != 0u)
		AGB_ST16(t->m, map_hw(t, end), we & ~(3u << (((end - 1u) & 7u) << 1)));
	else
		map_set(t, end - 1u, E_FREE);
cleared:
	blocks_add(t, len);
	/* A run that grows keeps its node when the new key still sorts below the next one: the
	 * preceding run keeps its index (and priority), so only its size changes; a following run
	 * absorbed alone hands its place in key order to the freed block. */
	if (left) {
		uint32_t ls = ld(t, b - 1u, N_SIZE);
		uint32_t start = b - ls, size = ls + len;
		AGB_WORK(t->m, 2); /* the merge below: 17 instructions */
		if (right) {
			AGB_WORK(t->m, 1); /* and above: 9 instructions */
			uint32_t rs = ld(t, end, N_SIZE);
			size += rs;
			tree_remove(t, end);
			runs_drop(t, rs);
		}
		runs_drop(t, ls);
		runs_add(t, size);
		st(t, start + size - 1u, N_SIZE, size);
		if (below_next(t, start, (size << 16) | start)) {
			AGB_WORK(t->m, 1); /* the node keeps its place: 1 instruction */
			st(t, start, N_SIZE, size);
		} else {
			AGB_WORK(t->m, 1); /* remove + insert: 3 instructions past the calls' */
			tree_remove(t, start);
			tree_insert(t, start, size);
		}
		return;
	}
	if (right) {
		uint32_t rs = ld(t, end, N_SIZE);
		uint32_t size = len + rs;
		AGB_WORK(t->m, 1); /* the merge above alone: 13 instructions */
		runs_drop(t, rs);
		runs_add(t, size);
		st(t, b + size - 1u, N_SIZE, size);
		if (below_next(t, end, (size << 16) | b)) {
			AGB_WORK(t->m, 1); /* the replacement: 1 instruction past its own */
			tree_replace(t, end, b, size);
		} else {
			AGB_WORK(t->m, 1); /* remove + insert: 2 instructions past the calls' */
			tree_remove(t, end);
			tree_insert(t, b, size);
		}
		return;
	}
	make_free(t, b, len);
}

/* 1 when the free run that ends at block b - 1 (whose entry is E_FREE) is in the tree: its size
 * is the boundary tag in b - 1 (the node's own size field when it is one block), and a key
 * search finds its node. Only tree nodes are trusted, never a payload. O(log runs). */
static int free_run_ends_before(agb_tree *t, uint32_t b)
{
	uint32_t size = ld(t, b - 1u, N_SIZE), s = b - size;
	if (size == 0u || size > b)
		return 0;
	for (uint32_t y = root_get(t); y != NIL;) {
		uint32_t ys = ld(t, y, N_SIZE);
		AGB_WORK(t->m, 1); /* 11 instructions a step */
		if (y == s)
			return ys == size;
		y = key_less(size, s, ys, y) ? ld(t, y, N_SMALLER) : ld(t, y, N_LARGER);
	}
	return 0;
}

/* The refusal of every build: 1 when addr (not AGB_NULL) is not a used run's start.
 * - off the 8-byte grid or outside the pool (src/core/map2.h);
 * - its entry is E_FREE: every entry of a free run, and the inner entries of a long used run
 *   outside its length halfword, are E_FREE (a double free, an address inside a free run or
 *   inside a long used run);
 * - its halfword is a long run's length (the halfword before it agb_map2_starts_long());
 * - its left neighbour's entry is E_USED or E_LONG (inside a short run, or the second block of
 *   a long run) - a length halfword's top entry is E_USED or E_END, and a long run whose last
 *   block follows its length halfword has a length under 2^14, so E_USED (agb_map2_len_encode);
 * - it reads E_END with an E_FREE left neighbour (a one-block run after a free run, or the last
 *   block of a long run) and no free run in the tree ends just before it.
 * One or two map loads, which free reuses (*w_out: addr's map halfword, *left_out: its left
 * neighbour's entry, E_END for block 0); the last case adds a key search, O(log runs). */
HOT int refused(agb_tree *t, uint32_t addr, uint32_t *w_out, uint32_t *left_out)
{
	if (agb_map2_off_pool(t->blocks, t->nblocks, addr))
		return 1;
	uint32_t b = (addr - t->blocks) >> 3, a = map_hw(t, b), sh = (b & 7u) << 1;
	uint32_t w = AGB_LD16(t->m, a), e = (w >> sh) & 3u, wl = 0, left = E_END;
	if (e == E_FREE)
		return 1;
	if (b >= 8u) {
		wl = AGB_LD16(t->m, a - 2u);
		if (agb_map2_starts_long(wl))
			return 1;
	}
	if (sh != 0u)
		left = (w >> (sh - 2u)) & 3u;
	else if (b != 0u)
		left = wl >> 14;
	if (agb_map2_not_a_start(e, left))
		return 1;
	*w_out = w;
	*left_out = left;
	return e == E_END && left == E_FREE && !free_run_ends_before(t, b);
}

uint32_t agb_tree_alloc(agb_tree *t, uint32_t size, uint32_t align, uint32_t *granted)
{
	return tree_alloc(t, size, align, granted);
}

#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

void agb_tree_free(agb_tree *t, uint32_t addr)
{
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("tree", "free", t, addr, 0u, );
#endif
	uint32_t w, left;
	if (addr == AGB_NULL || refused(t, addr, &w, &left))
		return; /* the refusal of every build (agb/tree.h) */
	tree_free(t, (addr - t->blocks) >> 3, w, left);
}

uint32_t agb_tree_realloc(agb_tree *t, uint32_t addr, uint32_t size, uint32_t *granted)
{
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("tree", "realloc", t, addr, 0u, AGB_NULL);
#endif
	uint32_t w0 = 0, left = 0;
	if (addr != AGB_NULL && refused(t, addr, &w0, &left)) {
		if (granted != NULL)
			*granted = 0;
		return AGB_NULL; /* the refusal of every build (agb/tree.h) */
	}
	if (addr == AGB_NULL)
		return agb_tree_alloc(t, size, 8u, granted);
	if (size == 0u)
		size = 1u;
	if (size > (t->nblocks << 3)) {
		if (granted != NULL)
			*granted = 0;
		return AGB_NULL;
	}
	uint32_t want = (size + 7u) >> 3;
	uint32_t b = (addr - t->blocks) >> 3;
	uint32_t w1 = 0;
	int have1 = 0;
	uint32_t len = used_len(t, b, w0, &w1, &have1);
	if (want == len) {
		AGB_WORK(t->m, 1); /* the size kept: 5 instructions */
		if (granted != NULL)
			*granted = len << 3;
		return addr;
	}
	uint32_t end = b + len;
	uint32_t rs = 0;
	if (end < t->nblocks && (((uint32_t)AGB_LD16(t->m, map_hw(t, end)) >> ((end & 7u) << 1)) & 3u) ==
					E_FREE)
		rs = ld(t, end, N_SIZE);

	if (want < len || len + rs >= want) {
		/* In place: [b, b+want) stays used, the rest of [b, end+rs) is one free run. */
		AGB_WORK(t->m, 2); /* the arm's own lines: 19 instructions */
		if (rs != 0u) {
			tree_remove(t, end);
			runs_drop(t, rs);
		}
		/* The old run's entries go back to E_FREE first, so the new run is written over
		 * E_FREE entries and whatever is left over is all E_FREE, as a free run must be. */
		uint32_t rest = len + rs - want;
		clear_used(t, b, len);
		mark_used(t, b, want);
		blocks_add(t, len - want);
		if (rest != 0u)
			make_free(t, b + want, rest);
		if (granted != NULL)
			*granted = want << 3;
		return addr;
	}

	uint32_t g;
	uint32_t to = agb_tree_alloc(t, size, 8u, &g);
	AGB_WORK(t->m, 1); /* the move (10 instructions) or its refusal (4) */
	if (to == AGB_NULL) {
		if (granted != NULL)
			*granted = 0;
		return AGB_NULL;
	}
	for (uint32_t off = 0; off < (len << 3); off += 4u)
		AGB_ST32(t->m, to + off, AGB_LD32(t->m, addr + off));
	agb_tree_free(t, addr);
	if (granted != NULL)
		*granted = g;
	return to;
}

/* Sets the observation counters from the map and the tags (address order, uncounted reads). */
static void recount(agb_tree *t)
{
	uint32_t runs = 0, fblocks = 0;
	uint64_t sq = 0;
	for (uint32_t b = 0; b < t->nblocks;) {
		uint32_t len;
		if (entry_peek(t, b) == E_FREE) {
			len = pk(t, b, N_SIZE);
			runs++;
			fblocks += len;
			sq += (uint32_t)(len * len);
		} else {
			len = agb_map2_used_len_quiet(t->m, t->map, b);
		}
		if (len == 0u || len > t->nblocks - b)
			break; /* corrupt: check() says why */
		b += len;
	}
	t->free_blocks = fblocks;
	t->free_runs = runs;
	t->free_sq = sq;
}

void agb_tree_stats(agb_tree *t, struct agb_heap_stats *out)
{
	if (!COUNTERS)
		recount(t);
	out->free_bytes = t->free_blocks << 3;
	out->free_runs = t->free_runs;
	out->free_sq_sum = t->free_sq << 6;
	/* The largest key is the rightmost node; keys order by size first. */
	uint32_t largest = 0;
	uint32_t y = AGB_PEEK16(t->m, t->base + HDR_ROOT);
	for (uint32_t guard = 0; y < t->nblocks && guard <= t->nblocks; guard++) {
		largest = pk(t, y, N_SIZE);
		y = pk(t, y, N_LARGER);
	}
	out->largest_free = largest << 3;
}

void agb_tree_walk(agb_tree *t, agb_walk_fn fn, void *ctx)
{
	fn(ctx, t->base, t->meta_bytes, AGB_RUN_META);
	uint32_t b = 0;
	while (b < t->nblocks) {
		uint32_t len;
		enum agb_run_kind kind;
		if (entry_peek(t, b) == E_FREE) {
			len = pk(t, b, N_SIZE);
			kind = AGB_RUN_FREE;
		} else {
			len = agb_map2_used_len_quiet(t->m, t->map, b);
			kind = AGB_RUN_USED;
		}
		if (len == 0u || len > t->nblocks - b)
			return; /* corrupt: check() says why */
		fn(ctx, node(t, b), len << 3, kind);
		b += len;
	}
	if (t->waste_bytes != 0u)
		fn(ctx, node(t, t->nblocks), t->waste_bytes, AGB_RUN_META);
}

/* Whether node b with key (size, b) is reachable from the root by key search. */
static int tree_holds(const agb_tree *t, uint32_t root, uint32_t b, uint32_t size)
{
	uint32_t y = root;
	for (uint32_t guard = 0; y < t->nblocks && guard <= t->nblocks; guard++) {
		if (y == b)
			return pk(t, y, N_SIZE) == size;
		y = key_less(size, b, pk(t, y, N_SIZE), y) ? pk(t, y, N_SMALLER) : pk(t, y, N_LARGER);
	}
	return 0;
}

#define FAIL(msg) AGB_CHECK_FAIL(why, msg)

/* 1 when any entry of [from, to) is not E_FREE. */
static int any_entry_set(const agb_tree *t, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		if (entry_peek(t, i) != E_FREE)
			return 1;
	return 0;
}

int agb_tree_check(agb_tree *t, const char **why)
{
	const uint32_t n = t->nblocks;
	if (AGB_PEEK16(t->m, t->base + HDR_NBLOCKS) != n ||
	    AGB_PEEK32(t->m, t->base + HDR_BLOCKS) != t->blocks)
		FAIL("header does not match the pool");
	const uint32_t root = AGB_PEEK16(t->m, t->base + HDR_ROOT);
	if (root != NIL && root >= n)
		FAIL("root index out of range");
	if (root != NIL && pk(t, root, N_PARENT) != NIL)
		FAIL("root has a parent");

	/* Address order: map encoding, tags, coalescing, tree membership, counters. */
	uint32_t runs = 0, fblocks = 0;
	uint64_t sq = 0;
	int prev_free = 0;
	for (uint32_t b = 0; b < n;) {
		uint32_t e = entry_peek(t, b), len;
		if (e == E_FREE) {
			if (prev_free)
				FAIL("two adjacent free runs (not coalesced)");
			len = pk(t, b, N_SIZE);
			if (len == 0u || len > n - b)
				FAIL("free run size out of range");
			if (any_entry_set(t, b, b + len))
				FAIL("map entry inside a free run is not free");
			if (pk(t, b + len - 1u, N_SIZE) != len)
				FAIL("boundary tag disagrees with the node size");
			if (!tree_holds(t, root, b, len))
				FAIL("free run not found in the tree");
			runs++;
			fblocks += len;
			sq += (uint32_t)(len * len);
			prev_free = 1;
		} else {
			if (e == E_END) {
				len = 1;
			} else if (e == E_LONG) {
				uint32_t w = AGB_PEEK16(t->m, map_hw(t, b) + 2u);
				len = agb_map2_len_decode(w);
				if (agb_map2_len_encode(len) != w)
					FAIL("long used run's length halfword is not an encoded length");
				if (len > n - b)
					FAIL("long used run runs past the pool");
				if (!agb_map2_is_long(b, len))
					FAIL("long used run too short for its encoding");
				if (entry_peek(t, b + len - 1u) != E_END)
					FAIL("long used run does not end with an end entry");
				if (any_entry_set(t, b + 1u, (b | 7u) + 1u) ||
				    any_entry_set(t, ((b >> 3) + 2u) << 3, b + len - 1u))
					FAIL("map entry inside a long used run is not free");
			} else {
				len = 0;
				for (uint32_t i = b;; i++) {
					if (i >= n)
						FAIL("short used run runs past the pool");
					uint32_t ei = entry_peek(t, i);
					len++;
					if (ei == E_END)
						break;
					if (ei != E_USED)
						FAIL("bad map entry inside a short used run");
				}
				if (agb_map2_is_long(b, len))
					FAIL("long used run encoded as short");
			}
			prev_free = 0;
		}
		b += len;
	}

	/* Tree shape: in-order keys strictly increase, links agree, priorities form a heap. */
	uint32_t count = 0, steps = 0;
	uint32_t x = root, prev = NIL, prev_size = 0;
	if (x != NIL) {
		for (uint32_t l; (l = pk(t, x, N_SMALLER)) != NIL; x = l) {
			if (l >= n || pk(t, l, N_PARENT) != x)
				FAIL("broken smaller link");
			if (++steps > 4u * n)
				FAIL("tree walk does not terminate");
		}
	}
	while (x != NIL) {
		uint32_t size = pk(t, x, N_SIZE);
		if (prev != NIL && !key_less(prev_size, prev, size, x))
			FAIL("tree keys out of order");
		if (entry_peek(t, x) != E_FREE)
			FAIL("tree node is not a free block");
		if (++count > runs)
			FAIL("tree has more nodes than free runs");
		prev = x;
		prev_size = size;
		uint32_t l = pk(t, x, N_SMALLER), r = pk(t, x, N_LARGER);
		if (l != NIL && (l >= n || prio(l) > prio(x)))
			FAIL("treap priority order violated");
		if (r != NIL && (r >= n || prio(r) > prio(x)))
			FAIL("treap priority order violated");
		if (r != NIL) {
			if (pk(t, r, N_PARENT) != x)
				FAIL("broken larger link");
			x = r;
			for (uint32_t c; (c = pk(t, x, N_SMALLER)) != NIL; x = c) {
				if (c >= n || pk(t, c, N_PARENT) != x)
					FAIL("broken smaller link");
				if (++steps > 4u * n)
					FAIL("tree walk does not terminate");
			}
		} else {
			uint32_t p;
			for (;;) {
				p = pk(t, x, N_PARENT);
				if (p != NIL && p >= n)
					FAIL("parent index out of range");
				if (p == NIL || pk(t, p, N_LARGER) != x)
					break;
				x = p;
				if (++steps > 4u * n)
					FAIL("tree walk does not terminate");
			}
			x = p;
		}
	}
	if (count != runs)
		FAIL("tree has fewer nodes than free runs");
	if (COUNTERS && (fblocks != t->free_blocks || runs != t->free_runs || sq != t->free_sq))
		FAIL("observation counters disagree with a recount");
	return 0;
}

uint32_t agb_tree_overhead_bytes(const agb_tree *t)
{
	return t->meta_bytes + t->waste_bytes;
}

/* ---- core table ----------------------------------------------------------------------------- */

AGB_HEAP_CORE_ADAPTERS(tree)

const struct agb_heap_core agb_tree_core = {
	.name = "tree",
	.summary = "best fit over 8-byte blocks: 2-bit map, treap of free runs inside the runs",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM) | AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM) |
		  AGB_ARENA_BIT(AGB_ARENA_BG_VRAM),
	.unit = 8,
	.state_bytes = sizeof(agb_tree),
	AGB_HEAP_CORE_MEMBERS,
	/* Rough starting values (3 cycles of instruction work per access); fitted against mGBA. */
	.model = {.alloc_base = 60, .free_base = 50, .realloc_base = 80, .per_access = 48},
};
