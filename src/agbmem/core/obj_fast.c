/* `obj-fast`: obj's placement rule through bitmaps and summary words (see agb/obj_fast.h).
 *
 * The lowest set bit is a de Bruijn lookup (one multiply and one table read; ARMv4T has no
 * CLZ): on the alloc and free paths through an IWRAM copy of ctz.h's table (obj_fast_tables),
 * on the slow paths through ctz.h's own (ROM, counted). */
#include "agb/obj_fast.h"

#include "common/ctz.h"
#include "obj_fast_thumb.h"

/* AGB_WORK (docs/design.md, "Cycle figures"), weighted: every path declares the instructions
 * the GBA executes on it that the bus does not count, one unit per instruction (the summary
 * words, level counts and tables are IWRAM state the host does not count either, so their
 * loads and stores are among them; the free and start words are counted accesses and are
 * not). Where the ROM library runs hand-written Thumb (obj_fast_thumb.S: alloc's fast path,
 * its 48-block strips and whole-word runs, free within the first word) the counts are that
 * code's, per path; where it runs this C (free_long, relevel from it, alloc_slow and
 * alloc_word_and_part through agb_obj_fast_thumb_alloc_general) they are the compiled C's
 * (arm-none-eabi-objdump of the bench ROM, scripts/profile-gba for what runs). The units are
 * single instructions, not tree's tenths: obj-fast's sites are 3 to 40 instructions, and the
 * rounding to tens would weight a summary flip (3) like a level test (8). */

/* Some counts are conditional expressions: AGB_WORK_WEIGHTED does not evaluate them off the
 * host. */
#define OF_WORK(m, n) AGB_WORK_WEIGHTED(m, n)

/* Thumb (obj_fast_thumb.S) instruction counts. Tests of levels()'s binary search ending at
 * count c (3 or 4), 8 instructions each (HAS and its branch) and the leaf's 1-2. */
static inline uint32_t search_tests(uint32_t c)
{
	return (c == 4u || c == 5u || c == 7u || c == 8u || c >= 10u) ? 4u : 3u;
}

static inline uint32_t th_search(uint32_t c)
{
	return 8u * search_tests(c) + (c == 1u ? 1u : 2u);
}

/* .Lflip .. .Lflipped: count k -> c; the unrolled flips are 3 instructions each, the computed
 * jump 10, a rising count (a free's) 5 more. */
static inline uint32_t th_flips(uint32_t k, uint32_t c)
{
	return k > c ? 14u + 3u * (k - c) : k < c ? 19u + 3u * (c - k) : 5u;
}

/* .Lrelevel to the return, an alloc's word w: free value f before, x after, count k -> c. */
static inline uint32_t th_alloc_relevel(uint32_t f, uint32_t x, uint32_t k, uint32_t c)
{
	if (x == 0)
		return 15u;
	return 19u + (~f == 0 ? 6u : 0u) + (c == k ? 4u : th_search(c) + th_flips(k, c) + 4u);
}

/* The compiled C relevel (GBA ROM): entry 17 (14 for x == 0), exit 7; the wholly free arm 10
 * and its flips' setup, the binary search (30-40 by outcome), the partial arm's 11 and its
 * flips' setup; 6 a flip. Count k -> c. */
static inline uint32_t c_search(uint32_t c)
{
	static const uint8_t n[12] = {0, 30, 31, 33, 40, 40, 33, 40, 39, 33, 40, 40};
	return n[c];
}

static inline uint32_t c_relevel(uint32_t x, uint32_t k, uint32_t c)
{
	uint32_t d = k > c ? k - c : c - k;
	if (x == 0)
		return 29u;
	if (~x == 0)
		return 34u + (k == 9u ? 2u : k < 9u ? 6u + 6u * d : 5u + 6u * d);
	return 35u + c_search(c) + (k > c ? 3u + 6u * d : k == c ? 3u : 7u + 6u * d);
}

/* The compiled C's inline alloc_relevel (alloc_word_and_part, not a 48-block strip): as
 * relevel's arms, its one test of count - 1 (11) in place of the entry's. */
static inline uint32_t c_alloc_relevel(uint32_t f, uint32_t x, uint32_t k, uint32_t c)
{
	if (x == 0)
		return 10u;
	return 13u + (~f == 0 ? 6u : 0u) + (c == k ? 0u : c_search(c) + 14u + 6u * (k - c));
}

/* The compiled C's slow paths, counted from the bench ROM's disassembly (no per-line debug
 * information; blocks by their profile counts on a profiling input): alloc_slow's entry, size
 * rounding and return (46), each arm's setup and result (single word 50, the strips' search
 * 40, words and part 30), a candidate word tested (16), a step of the largest-power loop (4) or
 * of run_mask (6), a whole word set used (9); alloc_word_and_part's entry and result (85) and
 * a candidate (30); of_alloc_c's dispatch to them (40). */
#define C_SLOW_ENTRY 46u
#define C_SLOW_WORD 50u
#define C_SLOW_FIND 40u
#define C_SLOW_WORDS 30u
#define C_CAND 16u
#define C_KF_STEP 4u
#define C_RUN_STEP 6u
#define C_WHOLE_WORD 9u
#define C_WAP_ENTRY 85u
#define C_WAP_CAND 30u
#define C_DISPATCH 40u

#define WORDS_MAX (AGB_OBJ_MAX_BLOCKS / 32u)
#define CLASSES 6u   /* run sizes 1, 2, 4, 8, 16, 32 blocks */
#define SUMMARIES AGB_OBJ_FAST_LEVELS
#define EVEN 1u
/* Summary index (level) of class k: the classes, EVEN and the strip levels are nested as
 * c0 > EVEN > c1 > q2 > c2 > q3 > c3 > q4 > c4 > P16 > q5 > c5, so the summaries are kept in
 * that order; P16 (the word's first 16 blocks free) sits between c4 and q5, so c5 is 11. */
#define LV(k) ((k) == 5u ? 11u : (k) << 1)
#define P16 9u
/* The level count of every wholly free word (see agb_obj_fast): c0 .. c4. */
#define FULL_STALE 9u


/* Summary level of an n-block request (n a power of two <= 32, or a strip of 3, 6, 12 or 24
 * blocks; no extra align), SUMMARIES for other n: index n. */
#define NO_LEVEL SUMMARIES
#define L_ NO_LEVEL

/* The hot path's tables, in .data (IWRAM on the GBA, where the state is): from ROM each read
 * would be a literal-pool load and a 16-bit ROM read; the state keeps a pointer to them (one
 * IWRAM load). Only read, so every heap shares them. */
struct agb_obj_fast_tables {
	uint8_t ctz[32];   /* ctz.h's de Bruijn table */
	uint32_t debruijn; /* AGB_DEBRUIJN32 */
	/* Zero-field constants of each level ([0]: low bit of every field, [1]: high bit). */
	uint32_t lvl[SUMMARIES][2];
	uint8_t level_of_n[33];
};
/* A level whose fields are `width` blocks at multiples of `step` (a power of two <= 32): a
 * word holds it when one of them is all free. */
#define MULTIPLES(step) ((uint32_t)(0xFFFFFFFFull / ((1ull << (step)) - 1u)))
#define LVL(width, step) {MULTIPLES(step), MULTIPLES(step) << ((width) - 1u)}
static struct agb_obj_fast_tables obj_fast_tables = {
	{0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
	 31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9},
	AGB_DEBRUIJN32,
	{LVL(1, 1), LVL(1, 2), LVL(2, 2), LVL(3, 4), LVL(4, 4), LVL(6, 8), LVL(8, 8), LVL(12, 16),
	 LVL(16, 16), LVL(16, 32), LVL(24, 32), LVL(32, 32)},
	{L_, 0, 2, 3, 4, L_, 5, L_, 6, L_, L_, L_, 7, L_, L_, L_, 8,
	 L_, L_, L_, L_, L_, L_, L_, 10, L_, L_, L_, L_, L_, L_, L_, 11},
};

/* Index of `bit` (exactly one bit set) through the IWRAM copy of the de Bruijn table. */
static inline uint32_t bit_index(const struct agb_obj_fast_tables *tb, uint32_t bit)
{
	return tb->ctz[(bit * tb->debruijn) >> 27];
}

_Static_assert(sizeof(agb_obj_fast) <= AGB_HEAP_STATE_MAX, "state too large");

#define FREE_W(st, w) ((st)->free + 4u * (w))
#define START_W(st, w) ((st)->start + 4u * (w))
/* Summary words live in the state (a game's IWRAM globals): no bus access on the host (the
 * paths' work counts them). A level's words are the partial words whose count covers it and
 * every wholly free word (see agb_obj_fast in agb/obj_fast.h). */
#define SUM_LD(st, k) (((st)->sum[k] & (st)->part) | (st)->full)
#define SUM_FLIP(st, k, bits) ((st)->sum[k] ^= (bits))

/* Flips levels lo .. hi-1 of the words `bits`. */
static inline void flip_range(agb_obj_fast *st, uint32_t lo, uint32_t hi, uint32_t bits)
{
	for (; lo < hi; lo++)
		SUM_FLIP(st, lo, bits);
}

/* Bit i set where i is a multiple of s (s a power of two <= 32). */
static inline uint32_t multiples(uint32_t s)
{
	switch (s) {
	case 1:
		return 0xFFFFFFFFu;
	case 2:
		return 0x55555555u;
	case 4:
		return 0x11111111u;
	case 8:
		return 0x01010101u;
	case 16:
		return 0x00010001u;
	default:
		return 0x00000001u;
	}
}

/* Bit i set where bits i .. i+n-1 of x are all set (1 <= n <= 32); bits past 31 count as 0.
 * Doubling: a run of len then a run of n - len overlapping it. */
static uint32_t run_mask(agb_machine *m, uint32_t x, uint32_t n)
{
	uint32_t len = 1, r = x;
	while (len * 2u <= n) {
		OF_WORK(m, C_RUN_STEP);
		r &= r >> len;
		len *= 2u;
	}
	if (len < n)
		r &= r >> (n - len);
	return r;
}

/* Aligned-run mask of class k: bit i (a multiple of 2^k) set when blocks i .. i+2^k-1 are free.
 * Unrolled, the masks are immediates (no table reads). */
static inline uint32_t aligned_runs(uint32_t f, uint32_t k)
{
	uint32_t r = f;
	if (k == 0)
		return r;
	r &= (r >> 1) & 0x55555555u;
	if (k == 1)
		return r;
	r &= (r >> 2) & 0x11111111u;
	if (k == 2)
		return r;
	r &= (r >> 4) & 0x01010101u;
	if (k == 3)
		return r;
	r &= (r >> 8) & 0x00010001u;
	if (k == 4)
		return r;
	return r & (r >> 16);
}

/* Whether word value x (g = ~x) has an all-free field of the level with low bits lo and high
 * bits hi (the level's first and last block of every field). The zero-field test on the used
 * bits g: (g - lo) & ~g & hi is nonzero exactly when some field of g is zero (a borrow only
 * leaves a field that is zero, and only reaches fields above it); gaps between fields (the
 * strip levels' last quarter) only absorb or pass on borrows from below. */
static inline int has_field(uint32_t x, uint32_t g, uint32_t lo, uint32_t hi)
{
	return ((g - lo) & x & hi) != 0;
}

/* Levels word value f holds (they nest: the first one missing ends the count). Init and check
 * only: no work units. */
static uint32_t count_levels(const agb_obj_fast *st, uint32_t f)
{
	uint32_t k = 0;
	while (k < SUMMARIES && has_field(f, ~f, st->tab->lvl[k][0], st->tab->lvl[k][1]))
		k++;
	return k;
}

/* Mask of blocks lo..hi-1 within one word (0 <= lo < hi <= 32). */
static uint32_t span(uint32_t lo, uint32_t hi)
{
	uint32_t upto = hi == 32u ? 0xFFFFFFFFu : (1u << hi) - 1u;
	return upto & ~((1u << lo) - 1u);
}

/* Contract: as obj_init (agb/obj.h); meta needs 8 bytes per 32 blocks (the summaries are in the
 * state), 4-byte aligned. O(words). */
int agb_obj_fast_init(agb_obj_fast *h, agb_machine *m, const struct agb_heap_config *cfg)
{
	agb_obj_fast *st = h;
	uint32_t nblocks = cfg->arena_bytes / AGB_OBJ_BLOCK_BYTES;
	uint32_t first = (cfg->flags & AGB_HEAP_FLAG_OBJ_BITMAP_MODE) != 0
				 ? AGB_OBJ_BITMAP_FIRST_BLOCK
				 : 0u;
	uint32_t nwords = (nblocks + 31u) / 32u;
	uint32_t sum[SUMMARIES] = {0};
	if ((cfg->arena_addr & (AGB_OBJ_BLOCK_BYTES - 1u)) != 0 || (cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (nblocks > AGB_OBJ_MAX_BLOCKS)
		return AGB_HEAP_ARENA_TOO_LARGE;
	if (nblocks <= first)
		return AGB_HEAP_ARENA_TOO_SMALL;
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < AGB_OBJ_FAST_META_BYTES(nblocks))
		return AGB_HEAP_META_TOO_SMALL;
	st->m = m;
	st->tab = &obj_fast_tables;
	st->arena = cfg->arena_addr;
	st->free = cfg->meta_addr;
	st->start = cfg->meta_addr + 4u * nwords;
	st->first = first;
	st->nblocks = nblocks;
	st->nwords = nwords;
	st->tail = span(0, nblocks - 32u * (nwords - 1u));
	st->part = 0;
	st->full = 0;
	for (uint32_t w = 0; w < nwords; w++) {
		uint32_t lo = w * 32u, hi = lo + 32u, f = 0;
		if (lo < first)
			lo = first;
		if (hi > nblocks)
			hi = nblocks;
		if (lo < hi)
			f = span(lo - w * 32u, hi - w * 32u);
		AGB_ST32(m, FREE_W(st, w), f);
		AGB_ST32(m, START_W(st, w), 0);
		/* A wholly free word's summary bits stand at FULL_STALE: most first allocs in it
		 * leave nine levels (see agb_obj_fast), so they flip none. */
		st->cnt[w] = (uint8_t)(~f == 0 ? FULL_STALE : f == 0 ? 0u : count_levels(st, f));
		if (~f == 0)
			st->full |= 1u << w;
		else if (f != 0)
			st->part |= 1u << w;
		for (uint32_t k = 0; k < st->cnt[w]; k++)
			sum[k] |= 1u << w;
	}
	for (uint32_t k = 0; k < SUMMARIES; k++)
		st->sum[k] = sum[k];
	return AGB_HEAP_OK;
}

/* Whether word value x (g = ~x) holds a free field of level j (see has_field). */
static inline int has_level(const agb_obj_fast *st, uint32_t x, uint32_t g, uint32_t j)
{
	return has_field(x, g, st->tab->lvl[j][0], st->tab->lvl[j][1]);
}

/* Number of nested levels (c0, EVEN, c1, q2, .., P16, q5) a partly free word value x holds:
 * 1..11 (c0 it holds, c5 it cannot), a binary search of at most four tests. */
static inline uint32_t levels(const agb_obj_fast *st, uint32_t x)
{
	uint32_t g = ~x;
	if (has_level(st, x, g, 5)) {
		if (has_level(st, x, g, 8))
			return !has_level(st, x, g, 9) ? 9u : has_level(st, x, g, 10) ? 11u : 10u;
		if (has_level(st, x, g, 6))
			return has_level(st, x, g, 7) ? 8u : 7u;
		return 6u;
	}
	if (has_level(st, x, g, 2))
		return has_level(st, x, g, 3) ? (has_level(st, x, g, 4) ? 5u : 4u) : 3u;
	return has_level(st, x, g, 1) ? 2u : 1u;
}

/* Word w's free value became x (any change): the partial and full masks follow it and its
 * level count moves to what x holds - FULL_STALE for a wholly free word - flipping the levels
 * in between (one contiguous range). A word that became wholly used keeps its count and bits:
 * the masks override them. */
__attribute__((noinline)) static void relevel(agb_obj_fast *st, uint32_t w, uint32_t x)
{
	uint32_t bit = 1u << w, lo = st->cnt[w], hi;
	if (x == 0) {
		st->part &= ~bit;
		st->full &= ~bit;
		return;
	}
	if (~x == 0) {
		hi = FULL_STALE;
		st->part &= ~bit;
		st->full |= bit;
	} else {
		hi = levels(st, x);
		st->part |= bit;
		st->full &= ~bit;
	}
	st->cnt[w] = (uint8_t)hi;
	if (lo > hi) {
		uint32_t t = lo;
		lo = hi;
		hi = t;
	}
	flip_range(st, lo, hi, bit);
}

/* Writes word w's new free value and brings the summaries and its level count along (the C
 * relevel's work). */
static inline void set_free_word(agb_obj_fast *st, uint32_t w, uint32_t new_)
{
	uint32_t k = st->cnt[w];
	AGB_ST32(st->m, FREE_W(st, w), new_);
	relevel(st, w, new_);
	OF_WORK(st->m, c_relevel(new_, k, st->cnt[w]));
}

/* An alloc's word w (bit `bit`, free value f before) is now x: what relevel does, for a word
 * that only lost blocks. Its count can only fall (x holds fewer blocks; a wholly free word
 * stood at FULL_STALE, which x cannot exceed: an alloc takes its block 0, so P16 and q5 go),
 * so one test of level count - 1 tells whether it changed (mostly not); when it did, the binary
 * search of levels finds the new count and the levels in between are flipped. A word left
 * wholly used keeps its count (see relevel). obj_fast_thumb.S does the same in Thumb. */
static inline void alloc_relevel(agb_obj_fast *st, uint32_t w, uint32_t bit, uint32_t f,
				 uint32_t x)
{
	uint32_t k, c;
	if (x == 0) {
		st->part &= ~bit;
		st->full &= ~bit;
		return;
	}
	if (~f == 0) {
		st->full &= ~bit;
		st->part |= bit;
	}
	k = st->cnt[w];
	if (has_level(st, x, ~x, k - 1u))
		return;
	c = levels(st, x); /* < k */
	st->cnt[w] = (uint8_t)c;
	flip_range(st, c, k, bit);
}

/* Words `bits` went from wholly free to wholly used or back: only the full mask changes. */
static inline void flip_all(agb_obj_fast *st, uint32_t bits)
{
	st->full ^= bits;
}

/* First candidate for n blocks at multiples of s <= 32 where n is not s (a strip of 3, 6, 12 or
 * 24 tiles, or a sprite with an align above its size). Only words of class floor(log2 n)'s
 * summary can hold one (a candidate's first largest-power-of-two blocks are an aligned run), and
 * when n > s / 2 the first word of class log2 s holds one for sure, so words past it are never
 * looked at. Each word is tested exactly in a few operations: with lo = a bit at every multiple
 * of s and P = the n-block prefix of every field, ((f & P) + lo) carries into bit n of a field
 * exactly when the field's first n blocks are free. Returns the block index or nblocks;
 * *wordval receives the chosen word's free bits. */
static uint32_t find_slow(agb_obj_fast *st, uint32_t n, uint32_t s, uint32_t *wordval)
{
	agb_machine *m = st->m;
	uint32_t kf = 0, ks, cand, fit, lo = multiples(s), pre, top;
	while ((2u << kf) <= n)
		kf++; /* largest power of two <= n is 2^kf */
	OF_WORK(m, C_SLOW_FIND + C_KF_STEP * kf);
	pre = lo * ((1u << n) - 1u); /* n < s <= 32 */
	top = lo << n;
	cand = SUM_LD(st, LV(kf));
	if (kf + 1u < CLASSES && (1u << (kf + 1u)) == s) {
		ks = LV(kf + 1u);
		fit = SUM_LD(st, ks);
		if (fit != 0)
			cand &= ((fit & (0u - fit)) << 1) - 1u; /* up to the first sure word */
	}
	while (cand != 0) {
		uint32_t w = agb_ctz32(m, cand), f, t;
		OF_WORK(m, C_CAND);
		cand &= cand - 1u;
		f = AGB_LD32(m, FREE_W(st, w));
		t = ((f & pre) + lo) & top;
		if (t != 0) {
			*wordval = f;
			return w * 32u + agb_ctz32(m, t) - n;
		}
	}
	return st->nblocks;
}

/* A strip of 33..63 blocks (48 tiles: a 6-frame 16x16 8bpp strip...) with no align above 64
 * blocks: alloc_slow's rule for it in a few operations. Candidates are even words wholly free
 * (the first 32 blocks) whose next word's first rem = n - 32 blocks are free. A next word with
 * P16 (its first 16 blocks free) fits any rem <= 16 and every fitting one with rem >= 16 has
 * it: with rem >= 16 only those are tested (for 48 tiles, rem = 16, the first one fits), with
 * rem < 16 none past the first of them. */
static uint32_t alloc_slow(agb_obj_fast *st, uint32_t size, uint32_t align, uint32_t *granted);

__attribute__((noinline)) static uint32_t alloc_word_and_part(agb_obj_fast *st, uint32_t size,
							       uint32_t align, uint32_t *granted)
{
	agb_machine *m = st->m;
	uint32_t n = (size + AGB_OBJ_BLOCK_BYTES - 1u) / AGB_OBJ_BLOCK_BYTES, need, cand, sure, w, f;
	uint32_t bit, k;
	/* A 48-block strip is obj_fast_thumb.S's .Lstrip48 (18 to its test, 5 to refuse, 29 to
	 * the relevel); the rest is the compiled C. */
	int thumb = n == 48u;
	if (align > 64u * AGB_OBJ_BLOCK_BYTES || size > st->nblocks * AGB_OBJ_BLOCK_BYTES) {
		OF_WORK(m, thumb ? 4u + 4u + C_DISPATCH : 15u);
		return alloc_slow(st, size, align, granted);
	}
	OF_WORK(m, thumb ? 18u : C_WAP_ENTRY);
	need = (1u << (n - 32u)) - 1u;
	cand = SUM_LD(st, LV(5u)) & 0x55555555u;
	sure = cand & (SUM_LD(st, P16) >> 1);
	if (n >= 48u)
		cand = sure;
	else if (sure != 0)
		cand &= ((sure & (0u - sure)) << 1) - 1u; /* up to the first sure word */
	for (;;) {
		bit = cand & (0u - cand);
		if (bit == 0) {
			OF_WORK(m, thumb ? 5u : 0u);
			return AGB_NULL;
		}
		OF_WORK(m, thumb ? 0u : C_WAP_CAND);
		cand ^= bit;
		w = bit_index(st->tab, bit);
		/* w + 1 < nwords: only when the next word holds P16 or rem < 16 */
		if (w + 1u < st->nwords) {
			f = AGB_LD32(m, FREE_W(st, w + 1u));
			if ((f & need) == need)
				break;
		}
	}
	AGB_ST32(m, FREE_W(st, w), 0);
	flip_all(st, bit); /* a wholly used word inside an allocation keeps FULL_STALE */
	AGB_ST32(m, FREE_W(st, w + 1u), f & ~need);
	k = st->cnt[w + 1u];
	alloc_relevel(st, w + 1u, bit << 1, f, f & ~need);
	OF_WORK(m, thumb ? 29u + th_alloc_relevel(f, f & ~need, k, st->cnt[w + 1u])
			  : c_alloc_relevel(f, f & ~need, k, st->cnt[w + 1u]));
	AGB_ST32(m, START_W(st, w), AGB_LD32(m, START_W(st, w)) | 1u);
	*granted = n * AGB_OBJ_BLOCK_BYTES;
	return st->arena + w * 32u * AGB_OBJ_BLOCK_BYTES;
}

/* Every request agb_obj_fast_alloc's fast path does not take: sizes that are not a power of two of at
 * most 32 blocks, a larger align, size 0 or past the arena. Same rule, same decisions. */
__attribute__((noinline)) static uint32_t alloc_slow(agb_obj_fast *st, uint32_t size,
							  uint32_t align, uint32_t *granted)
{
	agb_machine *m = st->m;
	uint32_t n, s, b, w, f, nf;
	if (size == 0 || size > st->nblocks * AGB_OBJ_BLOCK_BYTES) {
		OF_WORK(m, C_SLOW_ENTRY);
		return AGB_NULL;
	}
	n = (size + AGB_OBJ_BLOCK_BYTES - 1u) / AGB_OBJ_BLOCK_BYTES;
	/* This arm is obj_fast_thumb.S's .Lbig on the GBA (its own counts: 24 to the test, 1 more
	 * for 32 words, 5 to refuse, 32 and 2 a word to the return); every other one the C. */
	if ((n & (n - 1u)) == 0 && n > 32u && align <= n * AGB_OBJ_BLOCK_BYTES) {
		/* A power of two of q = n / 32 whole words (64x64 sprites, or bigger): the lowest
		 * q-word-aligned run of q wholly free words, by the zero-field test on the
		 * wholly-free summary (no bits past nwords, so no run leaves the arena). */
		uint32_t q = n / 32u, j, k = 0u;
		for (uint32_t x = q; x > 1u; x >>= 1)
			k++;
		OF_WORK(m, 24u + (k == 5u ? 1u : 0u));
		j = LV(k); /* the level of q-block fields (class log2 q) */
		uint32_t full = SUM_LD(st, LV(5u));
		uint32_t t = (~full - st->tab->lvl[j][0]) & full & st->tab->lvl[j][1], lb, sb;
		if (t == 0) {
			OF_WORK(m, 5u);
			return AGB_NULL;
		}
		lb = t & (0u - t);
		sb = lb >> (q - 1u);
		w = agb_ctz_bit(m, sb);
		OF_WORK(m, 32u + 2u * q);
		for (uint32_t v = w; v < w + q; v++)
			AGB_ST32(m, FREE_W(st, v), 0);
		flip_all(st, (lb << 1) - sb);
		AGB_ST32(m, START_W(st, w), AGB_LD32(m, START_W(st, w)) | 1u);
		*granted = n * AGB_OBJ_BLOCK_BYTES;
		return st->arena + w * 32u * AGB_OBJ_BLOCK_BYTES;
	}
	/* s: n rounded up to a power of two (n <= 1024 here: the bits smear in four steps). */
	OF_WORK(m, C_SLOW_ENTRY);
	s = n - 1u;
	s |= s >> 1;
	s |= s >> 2;
	s |= s >> 4;
	s |= s >> 8;
	s++;
	align /= AGB_OBJ_BLOCK_BYTES;
	if (align > s)
		s = align;
	if (s <= 32u) {
		/* The allocation lies inside one word. */
		if (n == s) {
			/* Power of two, no extra align: the first word with the class holds the
			 * answer, at its lowest aligned run. */
			uint32_t k = agb_ctz32(m, n), cand = SUM_LD(st, LV(k));
			OF_WORK(m, C_SLOW_WORD);
			if (cand == 0)
				return AGB_NULL;
			w = agb_ctz32(m, cand);
			f = AGB_LD32(m, FREE_W(st, w));
			b = agb_ctz32(m, aligned_runs(f, k));
		} else if (n == 1u && s == 2u) {
			/* One block at an even index (an 8bpp tile): the EVEN summary. */
			uint32_t cand = SUM_LD(st, EVEN);
			OF_WORK(m, C_SLOW_WORD);
			if (cand == 0)
				return AGB_NULL;
			w = agb_ctz32(m, cand);
			f = AGB_LD32(m, FREE_W(st, w));
			b = agb_ctz32(m, f & 0x55555555u);
		} else {
			b = find_slow(st, n, s, &f);
			if (b >= st->nblocks)
				return AGB_NULL;
			w = b / 32u;
			b %= 32u;
		}
		nf = f & ~((n == 32u ? 0xFFFFFFFFu : (1u << n) - 1u) << b);
		set_free_word(st, w, nf);
		b += w * 32u;
	} else {
		/* s > 32: candidates are word-aligned at multiples of q = s / 32 words, the first a
		 * words wholly free, then rem blocks at the start of the next one. */
		uint32_t q = s / 32u, a = n / 32u, rem = n % 32u, full, cand, bits;
		full = SUM_LD(st, LV(5u));
		OF_WORK(m, C_SLOW_WORDS);
		cand = (a != 0 ? run_mask(m, full, a) : 0xFFFFFFFFu) & multiples(q);
		if (cand == 0)
			return AGB_NULL;
		if (rem == 0) {
			/* Bits past nwords are 0 in class 5's summary, so the run mask never runs off
			 * the end. */
			w = agb_ctz32(m, cand);
		} else {
			uint32_t need = (1u << rem) - 1u;
			for (;;) {
				OF_WORK(m, C_CAND);
				w = agb_ctz32(m, cand);
				cand &= cand - 1u;
				if (w + a < st->nwords) {
					f = AGB_LD32(m, FREE_W(st, w + a));
					if ((f & need) == need)
						break;
				}
				if (cand == 0)
					return AGB_NULL;
			}
			set_free_word(st, w + a, f & ~need);
		}
		/* Words w .. w+a-1 go from all free to all used: every class of each clears. */
		bits = (a == 32u ? 0xFFFFFFFFu : (1u << a) - 1u) << w;
		OF_WORK(m, C_WHOLE_WORD * a);
		for (uint32_t v = w; v < w + a; v++)
			AGB_ST32(m, FREE_W(st, v), 0);
		flip_all(st, bits);
		b = w * 32u;
	}
	w = b / 32u;
	AGB_ST32(m, START_W(st, w), AGB_LD32(m, START_W(st, w)) | (1u << (b % 32u)));
	*granted = n * AGB_OBJ_BLOCK_BYTES;
	return st->arena + b * AGB_OBJ_BLOCK_BYTES;
}

/* Contract: as agb_obj_alloc (same decision on every state). The fast path is every sprite shape (a
 * power of two of n <= 32 blocks with no align above it), the strips of 3, 6, 12 and 24 blocks
 * and the 8bpp one-block tile: summary level j holds the first word with a candidate; in it the
 * lowest candidate is the lowest all-free field of the zero-field test (exact for the lowest
 * field). Cost: one summary read, the free-word load and store, the start-word load and store,
 * two de Bruijn lookups and the level-of-n read (IWRAM tables), one level test and, when the
 * word lost levels, up to four more and a flip per level lost (state words, IWRAM). In the ROM
 * library obj_fast_thumb.S is this function (this C is its fallback, of_alloc_c). */
#if AGB_OBJ_FAST_THUMB
/* The Thumb alloc (obj_fast_thumb.S) is agb_obj_fast_alloc; the C is its fallback. */
#define agb_obj_fast_alloc of_alloc_c
static uint32_t of_alloc_c(agb_obj_fast *h, uint32_t size, uint32_t align, uint32_t *granted);
_Static_assert(offsetof(agb_obj_fast, tab) == S_TAB && offsetof(agb_obj_fast, arena) == S_ARENA &&
		       offsetof(agb_obj_fast, free) == S_FREE &&
		       offsetof(agb_obj_fast, start) == S_START &&
		       offsetof(agb_obj_fast, nblocks) == S_NBLOCKS &&
		       offsetof(agb_obj_fast, part) == S_PART &&
		       offsetof(agb_obj_fast, full) == S_FULL && offsetof(agb_obj_fast, sum) == S_SUM &&
		       offsetof(agb_obj_fast, cnt) == S_CNT,
	       "obj_fast_thumb.h's field offsets");
_Static_assert(offsetof(struct agb_obj_fast_tables, ctz) == T_CTZ &&
		       offsetof(struct agb_obj_fast_tables, debruijn) == T_DEBRUIJN &&
		       offsetof(struct agb_obj_fast_tables, lvl) == T_LVL &&
		       offsetof(struct agb_obj_fast_tables, level_of_n) == T_LEVEL_OF_N &&
		       SUMMARIES == 12u && FULL_STALE == 9u,
	       "obj_fast_thumb.h's table offsets and level layout");

uint32_t agb_obj_fast_thumb_alloc_general(agb_obj_fast *h, uint32_t size, uint32_t align,
					  uint32_t *granted)
{
	return of_alloc_c(h, size, align, granted);
}

/* The Thumb free is agb_obj_fast_free too: the C one below stays for the ARM and host builds. */
#define agb_obj_fast_free of_free_c
__attribute__((unused)) static void of_free_c(agb_obj_fast *h, uint32_t addr);
#endif

uint32_t agb_obj_fast_alloc(agb_obj_fast *h, uint32_t size, uint32_t align, uint32_t *granted)
{
	agb_obj_fast *st = h;
	agb_machine *m = st->m;
	const struct agb_obj_fast_tables *tb = st->tab;
	uint32_t n = (size + (AGB_OBJ_BLOCK_BYTES - 1u)) / AGB_OBJ_BLOCK_BYTES;
	uint32_t j, cand, w, f, t, lb, sb, nf, bit, fa, sa, addr, k;
	/* Work: this C stands for obj_fast_thumb.S's alloc (see the counts at the top); the
	 * requests the Thumb hands to the C (.Lgeneral: 4 and of_alloc_c's dispatch) add the C's
	 * own counts in alloc_slow and alloc_word_and_part. */
	/* n == 0 (size 0, or size wrapped) and n > 32 both give n - 1 >= 32. A fitting n <= 32
	 * needs no arena-size check: the summaries have no level that big then. */
	if (n - 1u >= 32u) {
		*granted = 0;
		/* .Lbig's tests (8 to reach them): past the arena (12) or size 0 (14) go to the C,
		 * a 48-block strip (16) to .Lstrip48, not a power of two (19) or an align above the
		 * size (22) to the C, whole words (22) on to .Lbig's search. */
		OF_WORK(m, size > st->nblocks * AGB_OBJ_BLOCK_BYTES ? 12u + 4u + C_DISPATCH
			    : n == 0u				    ? 14u + 4u + C_DISPATCH
			    : n == 48u				    ? 16u
			    : (n & (n - 1u)) != 0u		    ? 19u + 4u + C_DISPATCH
			    : align > n * AGB_OBJ_BLOCK_BYTES	    ? 22u + 4u + C_DISPATCH
								    : 22u);
		return n - 33u < 31u ? alloc_word_and_part(st, size, align, granted)
				     : alloc_slow(st, size, align, granted);
	}
	j = tb->level_of_n[n];
	if (align > n * AGB_OBJ_BLOCK_BYTES) {
		if (n == 1u && align == 2u * AGB_OBJ_BLOCK_BYTES)
			j = EVEN; /* one block at an even index: an 8bpp tile */
		else
			j = NO_LEVEL;
	}
	/* 14 to the align test; .Lalign's tests (2 for n > 1, 4 for other aligns, 6 for the
	 * 8bpp tile); .Llevel's (2), then 8 to the candidates. */
	if (j >= SUMMARIES) {
		*granted = 0;
		OF_WORK(m, (align > n * AGB_OBJ_BLOCK_BYTES ? (n == 1u ? 18u : 16u) : 16u) + 4u +
				    C_DISPATCH);
		return alloc_slow(st, size, align, granted);
	}
	OF_WORK(m, j == EVEN && align > n * AGB_OBJ_BLOCK_BYTES ? 30u : 24u);
	cand = SUM_LD(st, j);
	if (cand == 0) {
		*granted = 0;
		OF_WORK(m, 5u);
		return AGB_NULL;
	}
	*granted = n * AGB_OBJ_BLOCK_BYTES;
	bit = cand & (0u - cand);
	w = bit_index(tb, bit);
	fa = FREE_W(st, w);
	f = AGB_LD32(m, fa);
	t = (~f - tb->lvl[j][0]) & f & tb->lvl[j][1];
	lb = t & (0u - t);         /* top block of the lowest free field */
	sb = lb >> (n - 1u);       /* its first block */
	nf = f ^ ((lb << 1) - sb); /* wraps to the right mask when the field ends at block 31 */
	AGB_ST32(m, fa, nf);
	sa = START_W(st, w);
	AGB_ST32(m, sa, AGB_LD32(m, sa) | sb);
	addr = st->arena + (w * 32u + bit_index(tb, sb)) * AGB_OBJ_BLOCK_BYTES;
	k = st->cnt[w];
	alloc_relevel(st, w, bit, f, nf);
	OF_WORK(m, 42u + th_alloc_relevel(f, nf, k, st->cnt[w]));
	return addr;
}

/* The rest of agb_obj_fast_free when the allocation runs to the end of its first word w (whose free
 * value was f0, lb its first block's bit) or beyond. */
__attribute__((noinline)) static void free_long(agb_obj_fast *st, uint32_t w,
						     uint32_t f0, uint32_t lb)
{
	agb_machine *m = st->m;
	uint32_t last = st->nwords - 1u, full = 0;
	/* Work (the compiled C, relevel's in set_free_word): entry 19 (20 for the last word) and
	 * 4 after the first word's relevel, then 6 (the loop's setup, or the return); a word
	 * looked at 8, the allocation's end found in it 5 (4 more to free its head) and the
	 * return 8 (3 more when whole words were freed); a whole word 9 (12 the last one, which
	 * returns in 9); the last word's tail 17 with the return. */
	OF_WORK(m, 29u + (w == last ? 1u : 0u));
	set_free_word(st, w, f0 | ((0u - lb) & (w == last ? st->tail : 0xFFFFFFFFu)));
	for (uint32_t v = w + 1u; v <= last; v++) {
		uint32_t fv = AGB_LD32(m, FREE_W(st, v));
		OF_WORK(m, 8u);
		uint32_t x = AGB_LD32(m, START_W(st, v)) | fv;
		if (x != 0) {
			uint32_t mask = (x & (0u - x)) - 1u;
			OF_WORK(m, 13u + (mask != 0 ? 4u : 0u) + (full != 0 ? 3u : 0u));
			if (mask != 0)
				set_free_word(st, v, fv | mask);
			break;
		}
		/* Wholly inside the allocation: all used before, all usable blocks free now. */
		if (v == last && st->tail != 0xFFFFFFFFu) {
			OF_WORK(m, 17u + (full != 0 ? 3u : 0u));
			set_free_word(st, v, st->tail);
			break;
		}
		OF_WORK(m, v == last ? 21u : 9u);
		AGB_ST32(m, FREE_W(st, v), 0xFFFFFFFFu);
		full |= 1u << v;
	}
	if (full != 0)
		flip_all(st, full);
}

#if AGB_OBJ_FAST_THUMB
void agb_obj_fast_thumb_free_long(agb_obj_fast *h, uint32_t w, uint32_t f0, uint32_t lb)
{
	free_long(h, w, f0, lb);
}
#endif

#if AGB_OBJ_FAST_THUMB
#undef agb_obj_fast_alloc
#endif

#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

/* Contract: see agb/obj_fast.h. An address whose block carries no start bit (off the 32-byte
 * grid, outside the usable blocks, an interior block, a freed allocation) is refused
 * untouched: the start word is loaded anyway. Else the allocation ends at the next start bit
 * or free bit (or the end of the arena); its blocks become free and the summaries follow.
 * O(words the allocation spans). */
void agb_obj_fast_free(agb_obj_fast *h, uint32_t addr)
{
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("obj-fast", "free", h, addr, 0u, );
#endif
	agb_obj_fast *st = h;
	agb_machine *m = st->m;
	uint32_t off = addr - st->arena, b = off / AGB_OBJ_BLOCK_BYTES;
	uint32_t w = b / 32u, lb = 1u << (b % 32u), sa, sw, f0, x, k;
	/* Work: this C stands for obj_fast_thumb.S's free: refusals 8 (off the grid), 12
	 * (outside the arena), 22 (no start bit); 38 to the end test; free_long's call 11 more
	 * (the C's counts in free_long); the end in this word 8, its mask arm 8, the search and
	 * flips (th_search, th_flips) and the return 4. */
	if ((off & (AGB_OBJ_BLOCK_BYTES - 1u)) != 0 || b >= st->nblocks) {
		OF_WORK(m, (off & (AGB_OBJ_BLOCK_BYTES - 1u)) != 0 ? 8u : 12u);
		return;
	}
	sa = START_W(st, w);
	sw = AGB_LD32(m, sa);
	if ((sw & lb) == 0) {
		OF_WORK(m, 22u);
		return;
	}
	sw &= ~lb;
	f0 = AGB_LD32(m, FREE_W(st, w));
	/* Start or free bits above the allocation's first block. */
	uint32_t y = (sw | f0) & (0u - (lb << 1));
	AGB_ST32(m, sa, sw);
	if (y == 0) {
		OF_WORK(m, 38u);
		free_long(st, w, f0, lb);
		return;
	}
	/* Ends inside this word, just below the lowest such bit. */
	x = f0 | ((y & (0u - y)) - lb);
	k = st->cnt[w];
	AGB_ST32(m, FREE_W(st, w), x);
	relevel(st, w, x);
	OF_WORK(m, 50u + (~x == 0 ? 0u : th_search(st->cnt[w])) + th_flips(k, st->cnt[w]));
}

#if AGB_OBJ_FAST_THUMB
#undef agb_obj_fast_free
#endif

static int is_free(agb_obj_fast *st, uint32_t b)
{
	return (AGB_PEEK32(st->m, FREE_W(st, b / 32u)) >> (b % 32u)) & 1u;
}

static int is_start(agb_obj_fast *st, uint32_t b)
{
	return (AGB_PEEK32(st->m, START_W(st, b / 32u)) >> (b % 32u)) & 1u;
}

/* Contract: observation only. Same runs as obj_stats. O(blocks). */
void agb_obj_fast_stats(agb_obj_fast *h, struct agb_heap_stats *out)
{
	agb_obj_fast *st = h;
	uint32_t run = 0;
	*out = (struct agb_heap_stats){0};
	for (uint32_t b = st->first; b <= st->nblocks; b++) {
		if (b < st->nblocks && is_free(st, b)) {
			run++;
			continue;
		}
		if (run != 0) {
			uint32_t bytes = run * AGB_OBJ_BLOCK_BYTES;
			out->free_bytes += bytes;
			out->free_runs++;
			out->free_sq_sum += (uint64_t)bytes * bytes;
			if (bytes > out->largest_free)
				out->largest_free = bytes;
		}
		run = 0;
	}
}

/* Contract: observation only. Same runs as obj_walk. O(blocks). */
void agb_obj_fast_walk(agb_obj_fast *h, agb_walk_fn fn, void *ctx)
{
	agb_obj_fast *st = h;
	uint32_t b = st->first;
	if (st->first != 0)
		fn(ctx, st->arena, st->first * AGB_OBJ_BLOCK_BYTES, AGB_RUN_META);
	while (b < st->nblocks) {
		int fr = is_free(st, b);
		uint32_t e = b + 1u;
		while (e < st->nblocks && is_free(st, e) == fr && (fr || !is_start(st, e)))
			e++;
		fn(ctx, st->arena + b * AGB_OBJ_BLOCK_BYTES, (e - b) * AGB_OBJ_BLOCK_BYTES,
		   fr ? AGB_RUN_FREE : AGB_RUN_USED);
		b = e;
	}
}

/* Contract: observation only. Checks: no free or start bits outside the usable blocks, start
 * bits only on used blocks, every allocation begins with a start bit and sits at a multiple of
 * its rounded size, each summary word and level count matches the free words (a wholly free
 * word's count is 9) and the IWRAM de Bruijn table is ctz.h's. O(blocks). */
int agb_obj_fast_check(agb_obj_fast *h, const char **why)
{
	agb_obj_fast *st = h;
	uint32_t sum[SUMMARIES] = {0};
	/* The IWRAM copy of the de Bruijn lookup must stay ctz.h's. */
	for (uint32_t i = 0; i < 32u; i++) {
		if (st->tab->debruijn != AGB_DEBRUIJN32 || st->tab->ctz[i] != agb_debruijn32[i]) {
			*why = "obj-fast: lookup table differs from ctz.h's";
			return 1;
		}
	}
	for (uint32_t w = 0; w < st->nwords; w++) {
		uint32_t f = AGB_PEEK32(st->m, FREE_W(st, w)), s = AGB_PEEK32(st->m, START_W(st, w));
		uint32_t lo = w * 32u < st->first ? st->first - w * 32u : 0u;
		uint32_t hi = st->nblocks - w * 32u >= 32u ? 32u : st->nblocks - w * 32u;
		uint32_t usable = lo >= 32u ? 0u : span(lo, hi), c;
		if ((f | s) & ~usable) {
			*why = "obj-fast: free or start bit outside the usable blocks";
			return 1;
		}
		if (f & s) {
			*why = "obj-fast: start bit on a free block";
			return 1;
		}
		c = count_levels(st, f);
		if (((st->part >> w) & 1u) != (f + 1u > 1u) || ((st->full >> w) & 1u) != (~f == 0)) {
			*why = "obj-fast: partial or full word mask does not match the free bitmap";
			return 1;
		}
		if (st->cnt[w] >= SUMMARIES || (f + 1u > 1u && st->cnt[w] != c) ||
		    (~f == 0 && st->cnt[w] != FULL_STALE)) {
			*why = "obj-fast: level count does not match the free bitmap";
			return 1;
		}
		for (uint32_t k = 0; k < st->cnt[w]; k++)
			sum[k] |= 1u << w;
	}
	for (uint32_t k = 0; k < SUMMARIES; k++) {
		if (st->sum[k] != sum[k]) {
			*why = "obj-fast: summary word does not match the free bitmap";
			return 1;
		}
	}
	for (uint32_t b = st->first; b < st->nblocks;) {
		uint32_t e = b + 1u, p = 1;
		if (is_free(st, b)) {
			b++;
			continue;
		}
		if (!is_start(st, b)) {
			*why = "obj-fast: used block after a free one without a start bit";
			return 1;
		}
		while (e < st->nblocks && !is_free(st, e) && !is_start(st, e))
			e++;
		while (p < e - b)
			p <<= 1;
		if ((b & (p - 1u)) != 0) {
			*why = "obj-fast: allocation not at a multiple of its rounded size";
			return 1;
		}
		b = e;
	}
	return 0;
}

/* Contract: the free and start bitmaps (meta area), the summary words and level counts (state),
 * all outside the arena. */
uint32_t agb_obj_fast_overhead_bytes(agb_obj_fast *h)
{
	const agb_obj_fast *st = h;
	return 9u * st->nwords + 4u * SUMMARIES;
}

AGB_BLOCK_CORE_ADAPTERS(obj_fast)

/* Model (the first estimate; agbsim uses the fitted table): the sprite-shape path is about 120
 * Thumb instructions (size rounding, two de Bruijn lookups, the zero-field test, the level
 * search of relevel and its summary flips, which live in the state and are no bus accesses)
 * at ~2.5 cycles each from ROM: alloc_base 300; free about 90: free_base 220; per counted
 * access ~4 more cycles of address arithmetic. */
const struct agb_heap_core agb_obj_fast_core = {
	.name = "obj-fast",
	.summary = "OBJ VRAM: obj's placement via free bitmap + per-size summary words, O(1) for sprite sizes",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = AGB_OBJ_BLOCK_BYTES,
	.state_bytes = sizeof(agb_obj_fast),
	AGB_BLOCK_CORE_MEMBERS,
	.model = {.alloc_base = 300, .free_base = 220, .realloc_base = 400, .per_access = 64},
};
