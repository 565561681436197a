/* `obj-fast`: the placement rule of `obj` (agb/obj.h), found in a few word operations instead of
 * a byte-per-block scan.
 *
 * Bookkeeping in the meta area, 32 blocks per 32-bit word (bit i of word w is block 32w + i):
 *   free[w]     1 = block free (blocks outside the usable range are never free);
 *   start[w]    1 = first block of an allocation (free needs the length: it runs to the next
 *               start bit or free bit, the role the CONTINUE value plays in `obj`);
 *   summary[k]  k = 0..5: bit w set when word w holds an aligned free run of 2^k blocks, i.e.
 *               free blocks 2^k * j .. 2^k * (j + 1) - 1 inside the word for some j;
 *   summary[6]  bit w set when word w has a free block at an even index: a one-block request
 *               with align 64 (an 8bpp tile: agb/obj.h) is then as fast as the others.
 * A power-of-two request of n <= 32 blocks is then: the lowest set bit of summary[log2 n] is the
 * first word with a fitting candidate, and inside that word the lowest candidate comes from the
 * aligned-run mask. Larger requests (64+ blocks: 2 KiB and 4 KiB sprites) are runs of wholly
 * free words, found with the same mask trick applied to summary[5]. Both are the lowest
 * candidate, so the decision equals `obj`'s first fit exactly.
 *
 * Requests that are not a power of two (or carry a larger align than that, other than the
 * 8bpp even-tile case) keep the same rule through a slower path: candidate words are those whose summary says they hold at least an aligned run
 * of the largest power of two <= n (necessary for any candidate), each checked exactly.
 *
 * The lowest set bit is found with a de Bruijn multiply and a 32-entry table read through
 * AGB_ROM_LD8 (ARMv4T has no CLZ; the table sits in ROM on the GBA and its reads are counted). */
#include "agb/obj.h"
#include "agb/trace.h"

#define WORDS_MAX (AGB_OBJ_MAX_BLOCKS / 32u)
#define CLASSES 6u   /* run sizes 1, 2, 4, 8, 16, 32 blocks */
#define SUMMARIES 7u /* the classes, then EVEN: a free block at an even index */
#define EVEN 6u

struct objf_state {
	agb_machine *m;
	uint32_t arena;   /* GBA address of block 0 */
	uint32_t free;    /* meta: nwords words */
	uint32_t start;   /* meta: nwords words */
	uint32_t summary; /* meta: SUMMARIES words */
	uint32_t first;   /* first usable block */
	uint32_t nblocks;
	uint32_t nwords;
};

_Static_assert(sizeof(struct objf_state) <= AGB_HEAP_STATE_MAX, "state too large");

#define FREE_W(st, w) ((st)->free + 4u * (w))
#define START_W(st, w) ((st)->start + 4u * (w))
#define SUMMARY(st, k) ((st)->summary + 4u * (k))

static const uint8_t debruijn_ctz[32] = {
	0,  1,  28, 2,  29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4,  8,
	31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6,  11, 5,  10, 9,
};

/* Index of the lowest set bit of x != 0: one multiply and one ROM table read. */
static uint32_t ctz(agb_machine *m, uint32_t x)
{
	uint32_t i = ((x & (0u - x)) * 0x077CB531u) >> 27;
	return AGB_ROM_LD8(m, debruijn_ctz, i);
}

/* Bit i set where i is a multiple of s (s a power of two <= 32). */
static uint32_t multiples(uint32_t s)
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
static uint32_t run_mask(uint32_t x, uint32_t n)
{
	uint32_t len = 1, r = x;
	while (len * 2u <= n) {
		r &= r >> len;
		len *= 2u;
	}
	if (len < n)
		r &= r >> (n - len);
	return r;
}

/* Aligned-run mask of class k: bit i (a multiple of 2^k) set when blocks i .. i+2^k-1 are free. */
static uint32_t aligned_runs(uint32_t f, uint32_t k)
{
	static const uint32_t keep[CLASSES] = {0xFFFFFFFFu, 0x55555555u, 0x11111111u,
					       0x01010101u, 0x00010001u, 0x00000001u};
	uint32_t r = f;
	for (uint32_t i = 0; i < k; i++)
		r = r & (r >> (1u << i)) & keep[i + 1u];
	return r;
}

/* Which classes (bit k) word value f has an aligned free run of, and bit EVEN. */
static uint32_t classes_of(uint32_t f)
{
	uint32_t c = (f & 0x55555555u) != 0 ? 1u << EVEN : 0u, r = f;
	static const uint32_t keep[CLASSES] = {0xFFFFFFFFu, 0x55555555u, 0x11111111u,
					       0x01010101u, 0x00010001u, 0x00000001u};
	for (uint32_t k = 0; k < CLASSES; k++) {
		if (k != 0)
			r = r & (r >> (1u << (k - 1u))) & keep[k];
		if (r == 0)
			break;
		c |= 1u << k;
	}
	return c;
}

/* Mask of blocks lo..hi-1 within one word (0 <= lo < hi <= 32). */
static uint32_t span(uint32_t lo, uint32_t hi)
{
	uint32_t upto = hi == 32u ? 0xFFFFFFFFu : (1u << hi) - 1u;
	return upto & ~((1u << lo) - 1u);
}

/* Contract: as obj_init (agb/obj.h); meta needs 8 bytes per 32 blocks plus 28 bytes of summary,
 * 4-byte aligned. O(words). */
static int objf_init(void *state, agb_machine *m, const struct agb_heap_config *cfg)
{
	struct objf_state *st = state;
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
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < 8u * nwords + 4u * SUMMARIES)
		return AGB_HEAP_META_TOO_SMALL;
	st->m = m;
	st->arena = cfg->arena_addr;
	st->free = cfg->meta_addr;
	st->start = cfg->meta_addr + 4u * nwords;
	st->summary = cfg->meta_addr + 8u * nwords;
	st->first = first;
	st->nblocks = nblocks;
	st->nwords = nwords;
	for (uint32_t w = 0; w < nwords; w++) {
		uint32_t lo = w * 32u, hi = lo + 32u, f = 0, c;
		if (lo < first)
			lo = first;
		if (hi > nblocks)
			hi = nblocks;
		if (lo < hi)
			f = span(lo - w * 32u, hi - w * 32u);
		AGB_ST32(m, FREE_W(st, w), f);
		AGB_ST32(m, START_W(st, w), 0);
		c = classes_of(f);
		for (uint32_t k = 0; k < SUMMARIES; k++)
			if (c & (1u << k))
				sum[k] |= 1u << w;
	}
	for (uint32_t k = 0; k < SUMMARIES; k++)
		AGB_ST32(m, SUMMARY(st, k), sum[k]);
	return AGB_HEAP_OK;
}

/* Applies per-class summary changes gathered over the touched words: clear[k] bits go to 0,
 * set[k] bits to 1. One load and store per class that changed. */
static void update_summaries(struct objf_state *st, const uint32_t *clear, const uint32_t *set)
{
	for (uint32_t k = 0; k < SUMMARIES; k++) {
		if ((clear[k] | set[k]) != 0) {
			uint32_t v = AGB_LD32(st->m, SUMMARY(st, k));
			AGB_ST32(st->m, SUMMARY(st, k), (v & ~clear[k]) | set[k]);
		}
	}
}

/* Records in clear/set how word w's classes changed from old to new. */
static void note_change(uint32_t w, uint32_t old, uint32_t new_, uint32_t *clear, uint32_t *set)
{
	uint32_t co = classes_of(old), cn = classes_of(new_);
	for (uint32_t k = 0; k < SUMMARIES; k++) {
		uint32_t bit = 1u << k;
		if ((co & bit) && !(cn & bit))
			clear[k] |= 1u << w;
		else if (!(co & bit) && (cn & bit))
			set[k] |= 1u << w;
	}
}

/* Finds the first candidate for n blocks at multiples of s (s a power of two >= n). Returns the
 * block index, or nblocks when none fits. `first_word_value` receives the free word of the
 * chosen block's word when it was loaded (n <= 32 paths), else is left alone. */
static uint32_t find(struct objf_state *st, uint32_t n, uint32_t s, uint32_t *wordval)
{
	agb_machine *m = st->m;
	if (s <= 32u) {
		uint32_t kf = 0;
		while ((2u << kf) <= n)
			kf++; /* largest power of two <= n is 2^kf */
		uint32_t cand = AGB_LD32(m, SUMMARY(st, kf));
		if (n == 1u && s == 2u) {
			/* One block at an even index (an 8bpp tile): the EVEN summary. */
			uint32_t w, f;
			cand = AGB_LD32(m, SUMMARY(st, EVEN));
			if (cand == 0)
				return st->nblocks;
			w = ctz(m, cand);
			f = AGB_LD32(m, FREE_W(st, w));
			*wordval = f;
			return w * 32u + ctz(m, f & 0x55555555u);
		}
		if (n == s) {
			/* Power of two, no extra align: the first word with the class holds the answer. */
			uint32_t w, f;
			if (cand == 0)
				return st->nblocks;
			w = ctz(m, cand);
			f = AGB_LD32(m, FREE_W(st, w));
			*wordval = f;
			return w * 32u + ctz(m, aligned_runs(f, kf));
		}
		/* Exact check of each word that could hold a candidate, lowest first. */
		while (cand != 0) {
			uint32_t w = ctz(m, cand), f, r;
			cand &= cand - 1u;
			f = AGB_LD32(m, FREE_W(st, w));
			r = run_mask(f, n) & multiples(s);
			if (r != 0) {
				*wordval = f;
				return w * 32u + ctz(m, r);
			}
		}
		return st->nblocks;
	}
	/* s > 32: candidates are word-aligned at multiples of q = s / 32 words; n = 32 a + rem. */
	{
		uint32_t q = s / 32u, a = n / 32u, rem = n % 32u;
		uint32_t full = AGB_LD32(m, SUMMARY(st, 5u)), cand;
		cand = (a != 0 ? run_mask(full, a) : 0xFFFFFFFFu) & multiples(q);
		if (rem == 0) {
			/* Bits past nwords are 0 in summary[5], so the run mask never runs off the end. */
			return cand != 0 ? ctz(m, cand) * 32u : st->nblocks;
		}
		while (cand != 0) {
			uint32_t w = ctz(m, cand);
			cand &= cand - 1u;
			if (w + a < st->nwords &&
			    (AGB_LD32(m, FREE_W(st, w + a)) & span(0, rem)) == span(0, rem))
				return w * 32u;
		}
		return st->nblocks;
	}
}

/* Contract: as obj_alloc (same decision on every state). Cost for a power-of-two request:
 * one summary read, one free-word read, two ROM table reads, then the marking: one word store
 * per touched word and a load/store for each summary class that changed. */
static uint32_t objf_alloc(void *state, uint32_t size, uint32_t align, uint32_t *granted)
{
	struct objf_state *st = state;
	agb_machine *m = st->m;
	uint32_t n, s, b, w, last, f0 = 0;
	uint32_t clear[SUMMARIES] = {0}, set[SUMMARIES] = {0};
	*granted = 0;
	if (size == 0 || size > st->nblocks * AGB_OBJ_BLOCK_BYTES)
		return AGB_NULL;
	n = (size + AGB_OBJ_BLOCK_BYTES - 1u) / AGB_OBJ_BLOCK_BYTES;
	s = 1;
	while (s < n)
		s <<= 1;
	if (align / AGB_OBJ_BLOCK_BYTES > s)
		s = align / AGB_OBJ_BLOCK_BYTES;
	b = find(st, n, s, &f0);
	if (b >= st->nblocks)
		return AGB_NULL;
	/* Mark blocks b .. b+n-1 used. Words wholly inside the run were wholly free (the finder
	 * only takes whole free words there), so only the first and last word need a load. */
	last = b + n - 1u;
	for (w = b / 32u; w <= last / 32u; w++) {
		uint32_t lo = w == b / 32u ? b % 32u : 0u;
		uint32_t hi = w == last / 32u ? last % 32u + 1u : 32u;
		uint32_t old = (lo == 0 && hi == 32u)
				       ? 0xFFFFFFFFu
				       : (w == b / 32u && n <= 32u && s <= 32u ? f0
									  : AGB_LD32(m, FREE_W(st, w)));
		uint32_t new_ = old & ~span(lo, hi);
		AGB_ST32(m, FREE_W(st, w), new_);
		note_change(w, old, new_, clear, set);
	}
	update_summaries(st, clear, set);
	w = b / 32u;
	AGB_ST32(m, START_W(st, w), AGB_LD32(m, START_W(st, w)) | (1u << (b % 32u)));
	*granted = n * AGB_OBJ_BLOCK_BYTES;
	return st->arena + b * AGB_OBJ_BLOCK_BYTES;
}

/* Contract: addr came from objf_alloc and is live. The allocation ends at the next start bit or
 * free bit (or the end of the arena); its blocks become free and the summaries follow.
 * O(words the allocation spans). */
static void objf_free(void *state, uint32_t addr)
{
	struct objf_state *st = state;
	agb_machine *m = st->m;
	uint32_t b = (addr - st->arena) / AGB_OBJ_BLOCK_BYTES;
	uint32_t w = b / 32u, end = st->nblocks;
	uint32_t clear[SUMMARIES] = {0}, set[SUMMARIES] = {0};
	uint32_t sw = AGB_LD32(m, START_W(st, w)) & ~(1u << (b % 32u));
	uint32_t f0 = AGB_LD32(m, FREE_W(st, w));
	uint32_t y = (sw | f0) & ((0xFFFFFFFFu << (b % 32u)) << 1);
	AGB_ST32(m, START_W(st, w), sw);
	if (y != 0) {
		end = w * 32u + ctz(m, y);
	} else {
		for (uint32_t v = w + 1u; v < st->nwords; v++) {
			uint32_t x = AGB_LD32(m, START_W(st, v)) | AGB_LD32(m, FREE_W(st, v));
			if (x != 0) {
				end = v * 32u + ctz(m, x);
				break;
			}
		}
		if (end > st->nblocks)
			end = st->nblocks;
	}
	/* Blocks b .. end-1 become free. */
	for (uint32_t v = w; v * 32u < end; v++) {
		uint32_t lo = v == w ? b % 32u : 0u;
		uint32_t hi = (end - v * 32u) >= 32u ? 32u : end - v * 32u;
		uint32_t old = v == w ? f0 : (lo == 0 && hi == 32u ? 0u : AGB_LD32(m, FREE_W(st, v)));
		uint32_t new_ = old | span(lo, hi);
		AGB_ST32(m, FREE_W(st, v), new_);
		note_change(v, old, new_, clear, set);
	}
	update_summaries(st, clear, set);
}

static int is_free(struct objf_state *st, uint32_t b)
{
	return (AGB_PEEK32(st->m, FREE_W(st, b / 32u)) >> (b % 32u)) & 1u;
}

static int is_start(struct objf_state *st, uint32_t b)
{
	return (AGB_PEEK32(st->m, START_W(st, b / 32u)) >> (b % 32u)) & 1u;
}

/* Contract: observation only. Same runs as obj_stats. O(blocks). */
static void objf_stats(void *state, struct agb_heap_stats *out)
{
	struct objf_state *st = state;
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
static void objf_walk(void *state, agb_walk_fn fn, void *ctx)
{
	struct objf_state *st = state;
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
 * its rounded size, and each summary word matches the free words. O(blocks). */
static int objf_check(void *state, const char **why)
{
	struct objf_state *st = state;
	uint32_t sum[SUMMARIES] = {0};
	for (uint32_t w = 0; w < st->nwords; w++) {
		uint32_t f = AGB_PEEK32(st->m, FREE_W(st, w)), s = AGB_PEEK32(st->m, START_W(st, w));
		uint32_t lo = w * 32u < st->first ? st->first - w * 32u : 0u;
		uint32_t hi = st->nblocks - w * 32u >= 32u ? 32u : st->nblocks - w * 32u;
		uint32_t usable = lo >= 32u ? 0u : span(lo, hi);
		uint32_t c = classes_of(f);
		if ((f | s) & ~usable) {
			*why = "obj-fast: free or start bit outside the usable blocks";
			return 1;
		}
		if (f & s) {
			*why = "obj-fast: start bit on a free block";
			return 1;
		}
		for (uint32_t k = 0; k < SUMMARIES; k++)
			if (c & (1u << k))
				sum[k] |= 1u << w;
	}
	for (uint32_t k = 0; k < SUMMARIES; k++) {
		if (AGB_PEEK32(st->m, SUMMARY(st, k)) != sum[k]) {
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

/* Contract: the free and start bitmaps and the summary words (outside the arena). */
static uint32_t objf_overhead(void *state)
{
	const struct objf_state *st = state;
	return 8u * st->nwords + 4u * SUMMARIES;
}

/* As obj_event: sprite display ops are accepted and ignored, frames are no-ops. */
static int objf_event(void *state, const struct agb_event *ev, uint32_t *result)
{
	(void)state;
	(void)result;
	switch ((enum agb_op)ev->op) {
	case AGB_OP_SPR_SHOW:
	case AGB_OP_SPR_Z:
	case AGB_OP_SPR_HIDE:
		return AGB_EVENT_DONE;
	default:
		return AGB_EVENT_UNSUPPORTED;
	}
}

/* Model: the power-of-two path is about 90 Thumb instructions straight-line (size rounding,
 * two de Bruijn lookups, the aligned-run mask, old/new class masks, summary updates) at ~2
 * cycles each from ROM: alloc_base 180; per counted access ~4 more cycles of address arithmetic.
 * Not yet fitted against mGBA. */
const struct agb_heap_core agb_obj_fast_core = {
	.name = "obj-fast",
	.summary = "OBJ VRAM: obj's placement via free bitmap + per-size summary words, O(1) for sprite sizes",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = AGB_OBJ_BLOCK_BYTES,
	.state_bytes = sizeof(struct objf_state),
	.init = objf_init,
	.alloc = objf_alloc,
	.free = objf_free,
	.realloc = NULL,
	.stats = objf_stats,
	.walk = objf_walk,
	.check = objf_check,
	.overhead_bytes = objf_overhead,
	.event = objf_event,
	.model = {.alloc_base = 180, .free_base = 120, .realloc_base = 240, .per_access = 64},
};
