/* `bestfit`: best fit over 8-byte blocks with a 2-bit map, exact-size bins for short free runs
 * and size-class lists for long ones. Layout and encodings are described in
 * include/agb/bestfit.h; the map code is tree's (src/core/tree.c, src/core/map2.h). */
#include "agb/bestfit.h"

#include <stddef.h>

#include "agb/cores.h"
#include "bestfit_int.h"
#include "bestfit_thumb.h"
#include "common/ctz.h"
#include "common/map2.h"

/* Declared work of the alloc and free paths (docs/design.md, "Cycle figures"), weighted like
 * firstfit's: 1 unit = 1 non-memory Thumb instruction the ROM placement executes on the path
 * taken (loads, stores, push and pop are left out: the bus counts the accesses), read off the
 * bench ROM's disassembly (arm-none-eabi-objdump -d; scripts/profile-gba --function for which
 * blocks run): the hand-written alloc and free of bestfit_thumb.S per branch taken, and the
 * compiled C they call (agb_bestfit_thumb_mark_used, agb_bestfit_thumb_alloc_long with long_best
 * inlined, carve_top, agb_bestfit_thumb_alloc_general with alloc_aligned;
 * agb_bestfit_thumb_free_top with merge_top). free_fast, free_top and merge_free stand for the
 * Thumb free and declare its counts; realloc and used_len keep one unit per site. AGB_WORK_WEIGHTED: not evaluated off
 * the host, so a conditional count leaves nothing in the GBA build. */
#define BF_WORK(m, n) AGB_WORK_WEIGHTED(m, n)

/* Control structure fields (offsets from t->ctrl), in src/core/bestfit_thumb.h. */

_Static_assert(C_LHEADS == C_HEADS + 2u * AGB_BESTFIT_SMALL &&
		       C_LHEADS + 2u * AGB_BESTFIT_LONG_CLASSES == AGB_BESTFIT_META_BYTES,
	       "bestfit_thumb.h's control layout");

/* The pairs (entry 7 of a map halfword, entry 0 of the next), indexed e7 | e0 << 2, that a long
 * run's length halfword and the halfword after it can show: (1, 0), (3, 0), (1, 3). */
#define BF_LEN_GATE 0x200Au

/* The hot helpers are forced inline: from ROM a Thumb call with its register saves costs some
 * 20 instructions, about as much as three levels of a tree walk. */
#define HOT static inline __attribute__((always_inline))
/* Branch hints for the hot paths: from ROM a taken branch costs about three instructions (the
 * pipeline refills with non-sequential fetches), so the common case must fall through. */
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
/* The largest of them: inline in Thumb; one copy in an ARM build, whose code, state and meta area
 * share 16 KiB of IWRAM (and where a call from 1-cycle memory is cheap). */
#if defined(AGB_TARGET_GBA) && !defined(__thumb__)
#define BF_ARM_BUILD 1
#define HOT_WIDE static __attribute__((noinline))
#else
#define BF_ARM_BUILD 0
#define HOT_WIDE HOT
#endif

/* ---- small accessors ------------------------------------------------------------------------ */

/* The bitmap of non-empty long classes (0: no long free run but the top run). */
static inline uint32_t long_bits(const agb_bestfit *t)
{
	return AGB_LD16(t->m, t->ctrl + C_LONG);
}

/* Start of the top run (nblocks when the pool's last block is used). */
static inline uint32_t top_get(const agb_bestfit *t)
{
	return AGB_LD16(t->m, t->ctrl + C_TOP);
}

static inline void top_set(const agb_bestfit *t, uint32_t x)
{
	AGB_ST16(t->m, t->ctrl + C_TOP, x);
}

/* Entry i, a counted load. */
static inline uint32_t map_entry(agb_bestfit *t, uint32_t i)
{
	return (uint32_t)(AGB_LD16(t->m, map_hw(t, i)) >> ((i & 7u) << 1)) & 3u;
}

/* On the GBA, hides a constant from the optimiser: GCC expands a multiply by a constant into
 * some 30 Thumb shifts and adds (about 70 cycles from ROM) where one MUL takes at most 5. */
#ifdef AGB_TARGET_GBA
#define OPAQUE(x) __asm__("" : "+r"(x))
#else
#define OPAQUE(x) ((void)0)
#endif

/* Index of the lowest set bit: ctz.h's de Bruijn table, with the constant through OPAQUE so it
 * is one MUL, not a shift-and-add chain (the hot paths call this several times per op). */
static inline uint32_t lowbit(agb_bestfit *t, uint32_t x)
{
	uint32_t k = AGB_DEBRUIJN32;
	OPAQUE(k);
	return AGB_ROM_LD8(t->m, agb_debruijn32, ((x & (0u - x)) * k) >> 27);
}

/* ---- free-run bookkeeping ------------------------------------------------------------------- */

static inline void runs_add(agb_bestfit *t, uint32_t size)
{
	if (COUNTERS) {
		t->free_runs++;
		t->free_sq += (uint32_t)(size * size); /* blocks < 2^16: a 32-bit multiply */
	}
}

static inline void runs_drop(agb_bestfit *t, uint32_t size)
{
	if (COUNTERS) {
		t->free_runs--;
		t->free_sq -= (uint32_t)(size * size); /* blocks < 2^16: a 32-bit multiply */
	}
}

static inline void blocks_add(agb_bestfit *t, uint32_t n)
{
	if (COUNTERS)
		t->free_blocks += n;
}

/* Writes the map for a used run [b, b+len) over entries that are all E_FREE (map2.h). */
HOT_WIDE void mark_used(agb_bestfit *t, uint32_t b, uint32_t len)
{
	BF_WORK(t->m, agb_map2_is_long(b, len) ? 45u : 34u + 3u + 3u);
	agb_map2_mark_used(t->m, t->map, b, len);
}

/* Sets every entry of the used run [b, b+len) back to E_FREE: all of a short run's; a long
 * run's first, its length halfword and its last (the inner ones are E_FREE already). */
HOT void clear_used(agb_bestfit *t, uint32_t b, uint32_t len)
{
	agb_map2_clear_used(t->m, t->map, b, len);
}

/* Length of the used run at b, given w0 = its map halfword (the next halfword is read when the
 * run reaches into it, or holds its length). */
HOT uint32_t used_len(agb_bestfit *t, uint32_t b, uint32_t w0)
{
	uint32_t sh = (b & 7u) << 1;
	uint32_t e = (w0 >> sh) & 3u;
	AGB_WORK(t->m, 1);
	if (e == E_END)
		return 1u;
	uint32_t a = map_hw(t, b);
	if (e == E_LONG)
		return agb_map2_len_decode(AGB_LD16(t->m, a + 2u));
	/* Short: the end is the first entry with its high bit set. */
	uint32_t hb = ((w0 >> 1) & 0x5555u) >> sh;
	if (hb != 0u)
		return (lowbit(t, hb) >> 1) + 1u;
	uint32_t w1 = AGB_LD16(t->m, a + 2u);
	return 8u - (b & 7u) + (lowbit(t, (w1 >> 1) & 0x5555u) >> 1) + 1u;
}

/* Takes [s, s+len) out of free run [p, p+rsize); whatever is left before and after stays free. */
/* ---- exact-size bins -------------------------------------------------------------------------- */

/* Marks bin k empty in its bitmap word. The summary is kept lazily: its bit stays set when the
 * word empties (a set summary bit may stand for an empty word, a clear one never for a non-empty
 * one); the alloc's search through the summary clears a stale bit it comes to (find_bin,
 * alloc_fast). Most words that empty get a bit again soon (a free's merge clears a neighbour's
 * bit and sets the merged run's), so the free does not pay twice for the summary. */
HOT void bit_clear(agb_bestfit *t, uint32_t k)
{
	uint32_t a = bitmap_addr(t, k);
	AGB_ST32(t->m, a, AGB_LD32(t->m, a) & ~(1u << (k & 31u)));
}

/* Appends short run x of `size` blocks to its bin and writes its node: links and the size in
 * its first and last block (one block when size is 1). Bins are circular lists whose head's prev
 * is the tail, so first in, first out costs no tail array: the oldest run of a size is reused
 * first, which needed 1-4 KiB less arena than last in, first out on the recorded traces. The bin
 * is empty exactly when its bitmap bit is clear, and then its head has bit 15 set (NIL after init,
 * ~x after its last run x left: one Thumb instruction): the head, which an append reads anyway,
 * tells an empty bin without the bitmap word (only an empty bin's first run sets bits). Block
 * indices are below 2^15. */
HOT void bin_push(agb_bestfit *t, uint32_t blocks, uint32_t x, uint32_t size)
{
	const uint32_t ctrl = t->ctrl;
	uint32_t k = size - 1u;
	uint32_t ha = ctrl + C_HEADS + (k << 1);
	uint32_t ax = blocks + (x << 3);
	AGB_ST16(t->m, ax + N_SIZE, size);
	AGB_ST16(t->m, ax + (k << 3) + N_SIZE, size);
	uint32_t first = AGB_LD16(t->m, ha);
	if ((first & 0x8000u) != 0u) {
		uint32_t wa = ctrl + C_BITMAP + ((k >> 5) << 2);
		uint32_t w = AGB_LD32(t->m, wa);
		AGB_ST32(t->m, ax, x | (x << 16));
		AGB_ST16(t->m, ha, x);
		if (w == 0u) {
			uint32_t sm = AGB_LD16(t->m, ctrl + C_SUMMARY);
			AGB_ST16(t->m, ctrl + C_SUMMARY, sm | (1u << (k >> 5)));
		}
		AGB_ST32(t->m, wa, w | (1u << (k & 31u)));
		return;
	}
	uint32_t af = blocks + (first << 3);
	uint32_t last = AGB_LD16(t->m, af + N_PREV);
	AGB_ST16(t->m, ax + N_NEXT, first); /* two halfword stores: one instruction fewer in Thumb */
	AGB_ST16(t->m, ax + N_PREV, last);
	AGB_ST16(t->m, blocks + (last << 3) + N_NEXT, x);
	AGB_ST16(t->m, af + N_PREV, x);
}

/* Marks bin `size` empty after its last run x left: its head ~x (bit 15 set), its bits clear. */
HOT void bin_empty(agb_bestfit *t, uint32_t size, uint32_t x)
{
	AGB_ST16(t->m, t->ctrl + C_HEADS + ((size - 1u) << 1), ~x & 0xFFFFu);
	bit_clear(t, size - 1u);
}

/* Unlinks short run x of `size` blocks from its bin. Its prev is read only when x is not the
 * bin's only run (the Thumb BIN_UNLINK's accesses). */
HOT void bin_unlink(agb_bestfit *t, uint32_t blocks, uint32_t x, uint32_t size)
{
	uint32_t next = AGB_LD16(t->m, blocks + (x << 3) + N_NEXT);
	if (next == x) {
		bin_empty(t, size, x);
		return;
	}
	uint32_t prev = AGB_LD16(t->m, blocks + (x << 3) + N_PREV);
	AGB_ST16(t->m, blocks + (prev << 3) + N_NEXT, next);
	AGB_ST16(t->m, blocks + (next << 3) + N_PREV, prev);
	uint32_t ha = t->ctrl + C_HEADS + ((size - 1u) << 1);
	if (AGB_LD16(t->m, ha) == x)
		AGB_ST16(t->m, ha, next);
}

/* Takes the first (oldest) run off the non-empty bin of `size` blocks and returns it. */
HOT uint32_t bin_pop(agb_bestfit *t, uint32_t blocks, uint32_t size)
{
	uint32_t ha = t->ctrl + C_HEADS + ((size - 1u) << 1);
	uint32_t x = AGB_LD16(t->m, ha);
	uint32_t links = AGB_LD32(t->m, blocks + (x << 3));
	uint32_t next = links & 0xFFFFu, prev = links >> 16;
	if (next == x) {
		bin_empty(t, size, x);
		return x;
	}
	AGB_ST16(t->m, blocks + (prev << 3) + N_NEXT, next);
	AGB_ST16(t->m, blocks + (next << 3) + N_PREV, prev);
	AGB_ST16(t->m, ha, next);
	return x;
}

/* Size of the smallest non-empty bin holding runs of at least `want` blocks (1..SMALL), 0 when
 * there is none: the bin's own word first, then the summary for the next non-empty word. */
HOT uint32_t find_bin(agb_bestfit *t, uint32_t want)
{
	uint32_t k = want - 1u, wi = k >> 5;
	uint32_t bits = AGB_LD32(t->m, bitmap_addr(t, k)) & (0xFFFFFFFFu << (k & 31u));
	/* (Compiled inline, as .La_summary's twin in C: k's word and its LOWBIT 15, the summary's
	 * step 14 more; a stale summary bit's clear 6.) */
	BF_WORK(t->m, 15u);
	/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): want is 1..SMALL */
	const uint32_t above = 0xFFFFFFFEu << wi; /* the words above k's */
	while (bits == 0u) {
		uint32_t s = AGB_LD16(t->m, t->ctrl + C_SUMMARY);
		BF_WORK(t->m, 14u);
		if ((s & above) == 0u)
			return 0;
		uint32_t wj = lowbit(t, s & above);
		bits = AGB_LD32(t->m, t->ctrl + C_BITMAP + (wj << 2));
		if (bits == 0u) {
			BF_WORK(t->m, 6u);
			AGB_ST16(t->m, t->ctrl + C_SUMMARY, s & ~(1u << wj));
		} else {
			wi = wj;
		}
	}
	return (wi << 5) + lowbit(t, bits) + 1u;
}

/* ---- long runs: segregated lists -------------------------------------------------------------
 * A free run longer than SMALL blocks sits in the list of its size class: two classes per power
 * of two (257-383, 384-511, 512-767, ... 24576-32767 blocks), AGB_BESTFIT_LONG_CLASSES in all,
 * doubly linked and circular like the bins, with a 16-bit bitmap of the non-empty classes. Linking
 * and unlinking are O(1), so free never walks; the best fit is found by alloc, which reads the
 * request's class and the next non-empty one: every run of a higher class is longer than every
 * run of a lower one, so the smallest run that fits (on a tie the lowest address, the order
 * tree's treap gave) is in the first of them that holds one. Long runs are few (256 KiB holds at
 * most 127 of them, and the recorded traces keep a handful), which keeps those scans short. */

/* Class of a long run by its size >> 7 (2..255 for SMALL < size < 2^15): 2 (log2(size) - 8)
 * plus the bit below the top one. A table: the ARM7TDMI has no count-leading-zeros. The Thumb
 * build keeps it in IWRAM (.data): a long merge reads it up to three times, and a byte from the
 * cartridge costs a non-sequential read and the prefetch (some 7 cycles more each in mGBA). */
#if AGB_BESTFIT_THUMB
#define LONG_CLASS_SECTION __attribute__((section(".data.agb_bestfit_long_class_of")))
#else
#define LONG_CLASS_SECTION
#endif
LONG_CLASS_SECTION const uint8_t agb_bestfit_long_class_of[256] = {
	0, 0, 0, 1, 2, 2, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5,
	6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7,
	8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
	10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
	10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
	11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
	11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
	12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
	12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
	12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
	12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
	13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13,
	13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13,
	13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13,
	13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13,
};

/* Class of a long run of `size` blocks (SMALL < size <= MAX_BLOCKS, below 2^15). One read of the
 * table, counted as the Thumb build makes it: from IWRAM (the ARM build, whose IWRAM is short,
 * reads it from ROM). Every caller passes a run's size or a request long_best has bounded by
 * MAX_BLOCKS, so size >> 7 indexes the table; a mask would cost every call an AND. */
static inline uint32_t long_class(agb_bestfit *t, uint32_t size)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.UndefReturn): size <= MAX_BLOCKS */
	return AGB_IWRAM_LD8(t->m, agb_bestfit_long_class_of, size >> 7);
}

/* The weights of the alloc paths that depend on the state a shared helper (bin_push, long_push,
 * long_unlink, long_move: free calls them too and they keep their own unit) is about to read:
 * read uncounted, host only (inside BF_WORK). */
static inline uint32_t bin_word_peek(const agb_bestfit *t, uint32_t size)
{
	return AGB_PEEK32(t->m, t->ctrl + C_BITMAP + (((size - 1u) >> 5) << 2));
}

/* Whether bin `size`'s bitmap bit is set (the bin holds a run). */
static inline uint32_t bin_held_peek(const agb_bestfit *t, uint32_t size)
{
	return (bin_word_peek(t, size) >> ((size - 1u) & 31u)) & 1u;
}

/* Whether long run x (in its class list) is its class's only run. */
static inline uint32_t long_only_peek(const agb_bestfit *t, uint32_t x)
{
	return (uint32_t)(pk(t, x, N_NEXT) == x);
}

/* Whether long class `size`'s list holds a run. */
static inline uint32_t class_held_peek(const agb_bestfit *t, uint32_t size)
{
	return ((uint32_t)AGB_PEEK16(t->m, t->ctrl + C_LONG) >> long_class_quiet(size)) & 1u;
}

/* The weights of the free paths (the Thumb free of bestfit_thumb.S, and the compiled C of
 * agb_bestfit_thumb_free_top), from the state the step they precede reads; read uncounted, host
 * only (inside BF_WORK). A run's bit in its bin's bitmap word. */
static inline uint32_t bin_bit(uint32_t size)
{
	return 1u << ((size - 1u) & 31u);
}

/* Whether bin `size`'s head has bit 15 clear (the bin holds a run: BP_HEAD's test). */
static inline uint32_t bin_head_held_peek(const agb_bestfit *t, uint32_t size)
{
	return (uint32_t)((AGB_PEEK16(t->m, t->ctrl + C_HEADS + ((size - 1u) << 1)) & 0x8000u) == 0u);
}

/* The Thumb free's BIN_PUSH with the return (.Lf_m_push; .Lf_alone 2 fewer): 9, then 5 to append
 * to a held bin, else 10 and 3 (9 when the bin's bitmap word, `word`, was empty: the summary's
 * update and its own return). */
static inline uint32_t w_free_push(const agb_bestfit *t, uint32_t size, uint32_t word)
{
	if (bin_head_held_peek(t, size))
		return 9u + 5u;
	return 9u + 10u + (word != 0u ? 3u : 9u);
}

/* A BIN_UNLINK of free's (the branches after it are the caller's): 8, or 11 for its bin's only
 * run (its BIT_CLEAR leaves the summary alone: bit_clear). */
static inline uint32_t w_bin_unlink(const agb_bestfit *t, uint32_t x)
{
	if (!long_only_peek(t, x))
		return 8u;
	return 11u;
}

/* w_bin_unlink with the branches after it where two follow an only run's and one a run's
 * with company (.Lf_top_cleared, .Lf_merge_long): 13 or 9. */
static inline uint32_t w_bin_unlink_b(const agb_bestfit *t, uint32_t x)
{
	return long_only_peek(t, x) ? w_bin_unlink(t, x) + 2u : 9u;
}

/* .Lf_merge_long's unlink of the left neighbour when the merged run becomes the top run: the
 * size test 3, then a short run's BIN_UNLINK (3 + 13 for its bin's only run, or 3 + 9) or a long run's LONG_UNLINK (6 + 5 for its class's only run, or
 * 6 + 11) less the unit long_unlink declares. */
static inline uint32_t w_ml_unlink(const agb_bestfit *t, uint32_t x, uint32_t size)
{
	if (size <= SMALL)
		return 3u + 3u + w_bin_unlink_b(t, x);
	return 3u + 6u + (long_only_peek(t, x) ? 5u : 11u) - 1u;
}

/* .Lf_merge_long's BIN_UNLINK of a short neighbour that is not the top run's left one (its
 * only-run arm inline, the other out of line): 3 to its test, then 11 for its bin's only run,
 * or 8 and 1 more when it was its bin's head. */
static inline uint32_t w_ml_bin_unlink(const agb_bestfit *t, uint32_t x, uint32_t size)
{
	if (!long_only_peek(t, x))
		return 3u + 8u +
		       (AGB_PEEK16(t->m, t->ctrl + C_HEADS + ((size - 1u) << 1)) == x ? 1u : 0u);
	return 3u + w_bin_unlink(t, x);
}

/* .Lf_merge_long's unlink of the right neighbour: the size test 3, then w_ml_bin_unlink or a
 * long run's LONG_UNLINK out of line (6 + 5 for its class's only run, or 6 + 11 and the branch
 * back when it was its class's head) less the unit long_unlink declares. */
static inline uint32_t w_ml_right(const agb_bestfit *t, uint32_t x, uint32_t size)
{
	if (size <= SMALL)
		return 3u + w_ml_bin_unlink(t, x, size);
	if (long_only_peek(t, x))
		return 3u + 6u + 5u - 1u;
	return 3u + 6u + 11u - 1u +
	       (AGB_PEEK16(t->m, lhead_addr(t, long_class_quiet(size))) == x ? 1u : 0u);
}

/* The Thumb free from .Lf_m_r_only (mshort's 4 on) to its return for a merge of at most SMALL
 * blocks, or from .Lf_m_push for a long run freed between used ones (from_long, ls = rs = 0),
 * or from .Lf_alone's BP_HEAD for a short one: the one-neighbour merges (left: 1 + 4, 2 + 4 + 2
 * after a long run, then 8 for a run with company in its bin; an only run 5, then 4 + 17 when
 * both bins' bits share a word and the merged run's bin is empty, else 12 (4 more after the
 * shared word's test; BIT_CLEAR leaves the summary alone: bit_clear); right alike: 2 + 3 (3
 * for a short run's: .Lf_right_free copies the test), 8 or 9 (its bin's head; 7 for a short
 * run's that was not), 5, 4 + 21, 12), both neighbours (3 from .Lf_left_tag, 2 + 1 after a long
 * run, then 3, each unlink 8, 9 when it was its bin's head (the left one 10, 11), or 11 for its
 * bin's only run, 3 between), then the merged run's push. Read before the unlinks: the bitmap
 * words and the heads they leave are worked out here. */
static inline uint32_t w_free_tail(const agb_bestfit *t, uint32_t b, uint32_t len, uint32_t ls,
				   uint32_t rs, int from_long)
{
	const uint32_t total = ls + len + rs, start = b - ls, end = b + len;
	const uint32_t it = (total - 1u) >> 5;
	uint32_t wt = bin_word_peek(t, total);
	/* .Lf_alone reads b's block from the stack (2 fewer), and blocks only to append (1 fewer
	 * into an empty bin) */
	if (ls == 0u && rs == 0u)
		return from_long ? w_free_push(t, total, wt)
				 : w_free_push(t, total, wt) - (bin_head_held_peek(t, total) ? 2u : 3u);
	/* A short run's merge comes from .Lf_right_free's, .Lf_left_free's or .Lf_left_tag's copy
	 * of .Lf_merge, whose end (the right one's end and branch to .Lf_mr_known 2, the left one's
	 * start 1, both's end, start and branch to .Lf_m_both 3) stands for mshort's 4 and
	 * .Lf_merge's or .Lf_m_r_only's test (2; both: 2 + 1); a long run's left one alone branches
	 * from .Lf_merge to .Lf_m_l_only with its len (2). */
	uint32_t w = from_long ? 4u : ls != 0u && rs != 0u ? 3u : 0u;
	if (rs == 0u || ls == 0u) {
		const uint32_t x = rs == 0u ? start : end, s = rs == 0u ? ls : rs;
		if (rs == 0u)
			w += from_long ? 2u + 4u + 2u : 1u + 4u;
		else if (from_long)
			w += 2u + 3u;
		else
			w += 3u; /* .Lf_right_free's copy of the test: no branch to it, no index */
		if (!long_only_peek(t, x)) {
			if (rs == 0u)
				return w + 8u + w_free_push(t, total, wt);
			/* The right one: 9 when it was its bin's head; else 8, and a short run's copy
			 * takes b's block from the stack into the push (1 fewer). */
			const uint32_t was_head =
				AGB_PEEK16(t->m, t->ctrl + C_HEADS + ((rs - 1u) << 1)) == end;
			return w + (was_head ? 9u : from_long ? 8u : 7u) + w_free_push(t, total, wt);
		}
		w += 5u;
		const uint32_t same = (uint32_t)(((s - 1u) >> 5) == it);
		if (same && !bin_head_held_peek(t, total))
			return w + 4u + (rs == 0u ? 17u : 21u);
		const uint32_t ws = bin_word_peek(t, s) & ~bin_bit(s);
		w += (same ? 4u : 0u) + 12u;
		if (same)
			wt = ws;
		return w + w_free_push(t, total, wt);
	}
	w += (from_long ? 2u + 1u : 0u) + 3u + 3u;
	const uint32_t il = (ls - 1u) >> 5, ir = (rs - 1u) >> 5;
	uint32_t wl = bin_word_peek(t, ls), wr = bin_word_peek(t, rs);
	const uint32_t hl = AGB_PEEK16(t->m, t->ctrl + C_HEADS + ((ls - 1u) << 1));
	uint32_t hr = AGB_PEEK16(t->m, t->ctrl + C_HEADS + ((rs - 1u) << 1));
	if (long_only_peek(t, start)) {
		wl &= ~bin_bit(ls);
		if (ir == il)
			wr = wl;
		if (it == il)
			wt = wl;
		w += 11u;
	} else {
		w += 10u + (hl == start ? 1u : 0u); /* with total's trip through ip */
		if (ls == rs && hl == start)
			hr = pk(t, start, N_NEXT); /* the right one's bin's head after the left one left */
	}
	/* The right neighbour is its bin's only run after the left one left it too. */
	if (long_only_peek(t, end) ||
	    (ls == rs && pk(t, end, N_NEXT) == start && pk(t, start, N_NEXT) == end)) {
		wr &= ~bin_bit(rs);
		if (it == ir)
			wt = wr;
		w += 11u;
	} else {
		w += 8u + (hr == end ? 1u : 0u);
	}
	return w + w_free_push(t, total, wt);
}

/* The Thumb .Lf_end_after_free (bestfit.c free_run_ends_at's decisions) to its refusal (3 for
 * the branch and the return) or to .Lf_short (1): the tag's tests (4, 4 more), x's halfword (8),
 * then within it y's and x's entries (7) and x's halfword's place (2), or at its first entry
 * x's own (2, 4 with x > 0), y's halfword (4, 2 more); the length-halfword test (2, 7 more when
 * its bit 14 is set). */
static inline uint32_t w_end_after_free(const agb_bestfit *t, uint32_t b, uint32_t addr)
{
	uint32_t w = 4u;
	const uint32_t s = AGB_PEEK16(t->m, addr - 8u + N_SIZE);
	if (s - 1u >= b)
		return w + 3u;
	w += 4u;
	if (AGB_PEEK16(t->m, addr - (s << 3) + N_SIZE) != s)
		return w + 3u;
	const uint32_t x = b - s;
	uint32_t ha = map_hw(t, x), hw = AGB_PEEK16(t->m, ha);
	const uint32_t xs = (x & 7u) << 1;
	w += 8u;
	if (xs != 0u) {
		w += 7u;
		if (((hw >> (xs - 2u)) & 15u) != 3u)
			return w + 3u;
		w += 2u;
		if (x < 8u)
			return w + 1u;
	} else {
		if ((hw & 3u) != 0u)
			return w + 2u + 3u;
		if (x == 0u)
			return w + 4u + 1u;
		w += 4u + 4u;
		ha -= 2u;
		hw = AGB_PEEK16(t->m, ha);
		if ((hw >> 14) != 3u)
			return w + 3u;
		w += 2u;
		if (x < 16u)
			return w + 1u;
		w += 1u;
	}
	w += 2u;
	if ((hw & 0x4000u) == 0u)
		return w + 1u;
	w += 7u;
	return w + (agb_map2_starts_long(AGB_PEEK16(t->m, ha - 2u)) ? 3u : 1u);
}

/* Appends long run x of `size` blocks to its class list and writes its node: links and the size
 * in its first and last block. Out of line: only long runs come here. O(1). */
HOT_WIDE void long_push(agb_bestfit *t, uint32_t x, uint32_t size)
{
	const uint32_t c = long_class(t, size), ha = lhead_addr(t, c);
	const uint32_t bits = AGB_LD16(t->m, t->ctrl + C_LONG);
	AGB_WORK(t->m, 1); /* the class, and the empty-class branch */
	st(t, x, N_SIZE, size);
	st(t, x + size - 1u, N_SIZE, size);
	if (((bits >> c) & 1u) == 0u) {
		AGB_ST32(t->m, node(t, x), x | (x << 16));
		AGB_ST16(t->m, ha, x);
		AGB_ST16(t->m, t->ctrl + C_LONG, bits | (1u << c));
		return;
	}
	uint32_t first = AGB_LD16(t->m, ha), last = ld(t, first, N_PREV);
	AGB_ST32(t->m, node(t, x), first | (last << 16));
	st(t, last, N_NEXT, x);
	st(t, first, N_PREV, x);
}

/* Takes long run x of `size` blocks out of its class list. O(1). */
HOT_WIDE void long_unlink(agb_bestfit *t, uint32_t x, uint32_t size)
{
	const uint32_t c = long_class(t, size);
	uint32_t links = AGB_LD32(t->m, node(t, x));
	uint32_t next = links & 0xFFFFu, prev = links >> 16;
	AGB_WORK(t->m, 1); /* the class, and the last-run branch */
	if (next == x) {
		uint32_t bits = AGB_LD16(t->m, t->ctrl + C_LONG);
		AGB_ST16(t->m, t->ctrl + C_LONG, bits & ~(1u << c));
		return;
	}
	st(t, prev, N_NEXT, next);
	st(t, next, N_PREV, prev);
	uint32_t ha = lhead_addr(t, c);
	if (AGB_LD16(t->m, ha) == x)
		AGB_ST16(t->m, ha, next);
}

/* Moves long run x's place in its class list to run y of `size` blocks, in the same class,
 * writing y's node and tag: y takes x's links, and the list's head when x was it. O(1). */
HOT_WIDE void long_move(agb_bestfit *t, uint32_t x, uint32_t y,
						uint32_t size)
{
	uint32_t links = AGB_LD32(t->m, node(t, x));
	uint32_t next = links & 0xFFFFu, prev = links >> 16;
	AGB_WORK(t->m, 1); /* the class, and the last-run branch */
	st(t, y, N_SIZE, size);
	st(t, y + size - 1u, N_SIZE, size);
	uint32_t ha = lhead_addr(t, long_class(t, size));
	if (next == x) {
		AGB_ST32(t->m, node(t, y), y | (y << 16));
		AGB_ST16(t->m, ha, y);
		return;
	}
	AGB_ST32(t->m, node(t, y), links);
	st(t, prev, N_NEXT, y);
	st(t, next, N_PREV, y);
	if (AGB_LD16(t->m, ha) == x)
		AGB_ST16(t->m, ha, y);
}

/* The smallest long run holding `want` blocks at the alignment amask/phase describe (amask 0:
 * any run of at least want blocks; else the run's aligned part, its first block whose index
 * plus phase is a multiple of amask + 1, must hold them) among the runs it reads, the lowest
 * such on a tie; its size into *size. NIL when none of them does. Reads the runs of the class
 * of want (of the lowest non-empty class when want <= SMALL) in list order, at most
 * AGB_BESTFIT_LONG_READS of them in all; past that budget, one run of each higher non-empty
 * class until one fits (for an unaligned request the first does: every run of a higher class
 * is longer than want). So at most AGB_BESTFIT_LONG_READS + 1 runs are read for an unaligned
 * request, + LONG_CLASSES - 1 for an aligned one. */
HOT_WIDE uint32_t long_best(agb_bestfit *t, uint32_t want, uint32_t amask, uint32_t phase,
			  uint32_t *size)
{
	if (want > MAX_BLOCKS)
		return NIL; /* longer than any run (and beyond long_class's table) */
	uint32_t bits = AGB_LD16(t->m, t->ctrl + C_LONG);
	/* (As inlined in agb_bestfit_thumb_alloc_long.) The classes' word and the long request's
	 * test (4), its class's mask (4), the empty test (3), the scan's setup (9). */
	BF_WORK(t->m, 4u + (want > SMALL ? 4u : 0u) + 3u);
	if (want > SMALL)
		bits &= 0xFFFFu << long_class(t, want);
	BF_WORK(t->m, bits != 0u ? 9u : 0u);
	uint32_t budget = AGB_BESTFIT_LONG_READS;
	while (bits != 0u) {
		const uint32_t c = lowbit(t, bits);
		const uint32_t first = AGB_LD16(t->m, lhead_addr(t, c));
		/* A class visited (13), its end (4: a fit found; else 3 more for the next class). */
		BF_WORK(t->m, 13u + 4u);
		uint32_t x = first, best = NIL, best_size = 0;
		if (budget == 0u)
			budget = 1u; /* a higher class: its first run (any fits an unaligned request) */
		do {
			uint32_t s = ld(t, x, N_SIZE);
			uint32_t pad = (0u - (phase + x)) & amask;
			/* A run read: too short 8; else the best-so-far tests, 12 when it is shorter
			 * than the best so far, 17 when it is the first fit or no better (19 on a tie
			 * of sizes). */
			BF_WORK(t->m, !(pad < s && s - pad >= want) ? 8u
				      : best == NIL			? 17u
				      : s < best_size			? 12u
				      : s == best_size			? 19u
									: 17u);
			if (pad < s && s - pad >= want &&
			    (best == NIL || s < best_size || (s == best_size && x < best))) {
				best = x;
				best_size = s;
			}
			x = ld(t, x, N_NEXT);
		} while (x != first && --budget != 0u);
		if (best != NIL) {
			*size = best_size;
			return best;
		}
		BF_WORK(t->m, 3u);
		bits &= bits - 1u;
	}
	return NIL;
}

/* Indexes free run x of `size` blocks in its bin or class list, writing its node and tag. */
HOT void run_link(agb_bestfit *t, uint32_t x, uint32_t size)
{
	if (size <= SMALL)
		bin_push(t, t->blocks, x, size);
	else
		long_push(t, x, size);
}

/* Takes free run x of `size` blocks out of its bin or class list. */
HOT void run_unlink(agb_bestfit *t, uint32_t x, uint32_t size)
{
	if (size <= SMALL)
		bin_unlink(t, t->blocks, x, size);
	else
		long_unlink(t, x, size);
}

/* Makes [x, x+size) a free run: boundary tag and index node. Its first and last map entries must
 * already be E_FREE. */
HOT void make_free(agb_bestfit *t, uint32_t x, uint32_t size)
{
	run_link(t, x, size);
	runs_add(t, size);
}

/* Takes [s, s+len) out of free run [p, p+rsize); whatever is left before and after stays free. */
static __attribute__((noinline)) void carve(agb_bestfit *t, uint32_t p, uint32_t rsize, uint32_t s, uint32_t len)
{
	uint32_t head = s - p;
	uint32_t tail = rsize - head - len;
	/* The entry and the return (15 + 6), the run's unlink (27), the map's arms beyond
	 * mark_used's own (25), each free part's link (48). */
	BF_WORK(t->m, 15u + 6u + 27u + 25u + (head != 0u ? 48u : 0u) + (tail != 0u ? 48u : 0u));
	run_unlink(t, p, rsize);
	runs_drop(t, rsize);
	blocks_add(t, 0u - len);
	mark_used(t, s, len); /* head and tail keep their E_FREE entries */
	if (head != 0u)
		make_free(t, p, head);
	if (tail != 0u)
		make_free(t, s + len, tail);
}

/* ---- the top run -----------------------------------------------------------------------------
 * A long free run that ends the pool (dlmalloc's top chunk) is in no index: C_TOP says where it
 * starts (nblocks: there is none). A block freed next to it joins it with one store. A short run
 * at the pool's end sits in its bin like any other, so the top run is always longer than any
 * bin's: a bin hit is a best fit without looking at the top. */

/* Makes [x, x+size), whose first and last map entries are E_FREE and which C_TOP does not
 * describe, a free run: the top run when it is long and ends the pool, else indexed. */
static void link_free(agb_bestfit *t, uint32_t x, uint32_t size)
{
	if (size > SMALL && x + size == t->nblocks) {
		top_set(t, x);
		runs_add(t, size);
	} else {
		make_free(t, x, size);
	}
}

/* Takes [s, s+want) out of the top run starting at x (x <= s, the run holds it): [x, s) becomes
 * an indexed free run, what follows the block stays the top. */
static __attribute__((noinline)) void carve_top(agb_bestfit *t, uint32_t x, uint32_t s,
						uint32_t want)
{
	const uint32_t n = t->nblocks;
	uint32_t rest = n - s - want;
	/* The entry and the map's arm around mark_used's own (23 + 1 + 71 - 45), the tests and
	 * the return (2 + 4 + 6); a head left before the block (5 and make_free's 40); the rest
	 * after it: the call (3) and link_free's path (entry and return 15: the top run 7 more,
	 * a bin's push 37, a class's 39). */
	BF_WORK(t->m, 62u);
	runs_drop(t, n - x);
	blocks_add(t, 0u - want);
	mark_used(t, s, want);
	if (s != x) {
		BF_WORK(t->m, 45u);
		make_free(t, x, s - x);
	}
	top_set(t, n);
	if (rest != 0u) {
		BF_WORK(t->m, 3u + 15u + (rest > SMALL && s + want + rest == n ? 7u
					  : rest <= SMALL		       ? 37u
									       : 39u));
		link_free(t, s + want, rest);
	}
}

/* The last resort of alloc: `want` blocks off the top run's start. Returns the block index, or
 * NIL when the top run is shorter (or there is none). */
static uint32_t alloc_top(agb_bestfit *t, uint32_t want)
{
	uint32_t x = top_get(t);
	if (t->nblocks - x < want)
		return NIL;
	carve_top(t, x, x, want);
	return x;
}

/* Makes freed run [b, b+len) (counted in blocks_add by the caller), its free left neighbour of
 * ls blocks (0: none) and the top run right after it (if any) the new top run. The caller has
 * written the map entries: b's E_FREE unless ls, the last block's E_FREE when no top followed. */
static __attribute__((noinline)) void merge_top(agb_bestfit *t, uint32_t b, uint32_t ls)
{
	const uint32_t n = t->nblocks;
	uint32_t start = b - ls, old = top_get(t);
	/* (As compiled in the bench ROM, reached from agb_bestfit_thumb_free_top only, with a long
	 * left neighbour.) The entry, the tests and the return (42), the old top run's arm (4, 2
	 * with none); the left neighbour's LONG_UNLINK, 7 for its class's only run, else 21 (22
	 * when it heads its class), less the unit long_unlink declares. */
	BF_WORK(t->m, 42u + (old < n ? 4u : 2u));
	if (ls != 0u) {
		BF_WORK(t->m, (long_only_peek(t, start)				     ? 7u
			       : AGB_PEEK16(t->m, lhead_addr(t, long_class_quiet(ls))) == start ? 22u
											 : 21u) -
				      1u);
		run_unlink(t, start, ls);
		runs_drop(t, ls);
	}
	if (old < n) {
		runs_drop(t, n - old);
		top_set(t, n);
	}
	link_free(t, start, n - start);
}

/* ---- public API ----------------------------------------------------------------------------- */

int agb_bestfit_init(agb_bestfit *t, agb_machine *m, const struct agb_heap_config *cfg)
{
	const uint32_t arena = cfg->arena_addr, bytes = cfg->arena_bytes;
	if ((arena & 7u) != 0u || arena == AGB_NULL)
		return AGB_HEAP_BAD_ALIGNMENT;
	uint32_t ctrl = cfg->meta_addr, ctrl_blocks = 0;
	int in_arena = ctrl == AGB_NULL || (ctrl & 3u) != 0u || cfg->meta_bytes < AGB_BESTFIT_META_BYTES;
	if (in_arena) {
		ctrl = arena;
		ctrl_blocks = (AGB_BESTFIT_META_BYTES + 7u) >> 3;
	}
	uint32_t total = bytes >> 3;
	if (total < ctrl_blocks + 2u)
		return AGB_HEAP_ARENA_TOO_SMALL;
	/* Largest n with ceil(n/32) map blocks + n blocks <= avail (no division: the GBA has none). */
	uint32_t avail = total - ctrl_blocks;
	uint32_t n = avail - ((avail + 31u) >> 5);
	while (n + 1u + ((n + 32u) >> 5) <= avail)
		n++;
	if (n > MAX_BLOCKS)
		return AGB_HEAP_ARENA_TOO_LARGE;
	uint32_t map_blocks = (n + 31u) >> 5;

	t->m = m;
	t->base = arena;
	t->ctrl = ctrl;
	t->heads = ctrl + C_HEADS;
	t->ctrl_in_arena = (uint32_t)in_arena;
	t->map = arena + (ctrl_blocks << 3);
	t->blocks = t->map + (map_blocks << 3);
	t->nblocks = n;
	t->meta_bytes = t->blocks - arena;
	t->waste_bytes = bytes - t->meta_bytes - (n << 3);
#if AGB_BESTFIT_THUMB
	t->consts = (uint32_t)(uintptr_t)agb_bestfit_thumb_k;
#else
	t->consts = 0;
#endif

	/* Root and heads NIL, bitmaps empty, the whole pool one free run (the top run if long). */
	AGB_ST32(m, ctrl + C_LONG, 0u); /* and C_TOP, set below */
	AGB_ST32(m, ctrl + C_SUMMARY, 0u);
	for (uint32_t k = 0; k < AGB_BESTFIT_WORDS; k++)
		AGB_ST32(m, ctrl + C_BITMAP + (k << 2), 0u);
	for (uint32_t a = t->heads; a < ctrl + C_LHEADS + 2u * LONG_CLASSES; a += 4u)
		AGB_ST32(m, a, 0xFFFFFFFFu);
	for (uint32_t a = t->map; a < t->blocks; a += 4u)
		AGB_ST32(m, a, 0u);
	t->free_blocks = n;
	t->free_runs = 0;
	t->free_sq = 0;
	AGB_ST16(m, ctrl + C_TOP, n);
	link_free(t, 0, n);
	return AGB_HEAP_OK;
}

/* Aligned requests (align > 8): the smallest run whose aligned part holds `want` blocks. Short
 * runs of sizes below want + align/8 - 1 are tried one by one (any run at or above it fits),
 * then the long classes (long_best). Rare: kept out of line. */
static __attribute__((noinline)) uint32_t alloc_aligned(agb_bestfit *t, uint32_t want,
							 uint32_t align)
{
	uint32_t amask = (align >> 3) - 1u;
	uint32_t phase = (t->blocks >> 3) & amask;
	uint32_t best = NIL, best_size = 0;
	/* The entry and the return (15 + 6), the bin scan's setup (13). */
	BF_WORK(t->m, 15u + 6u + 13u);
	for (uint32_t s = want; s <= SMALL && best == NIL; s++) {
		BF_WORK(t->m, 8u); /* a bin size tried: its bitmap bit */
		if (s >= want + amask) {
			s = find_bin(t, s);
			if (s == 0u)
				break;
		}
		uint32_t first = AGB_LD16(t->m, head_addr(t, s)), x = first;
		if (((AGB_LD32(t->m, bitmap_addr(t, s - 1u)) >> ((s - 1u) & 31u)) & 1u) == 0u)
			continue;
		for (;;) {
			uint32_t pad = (0u - (phase + x)) & amask;
			BF_WORK(t->m, 11u); /* a run of the bin tried */
			if (pad < s && s - pad >= want) {
				best = x;
				best_size = s;
				break;
			}
			x = ld(t, x, N_NEXT);
			if (x == first)
				break;
		}
	}
	if (best == NIL) {
		best = long_best(t, want, amask, phase, &best_size);
		if (best == NIL) {
			uint32_t x = top_get(t), s = t->nblocks - x;
			uint32_t pad = (0u - (phase + x)) & amask;
			BF_WORK(t->m, 7u); /* the top run's test */
			if (pad >= s || s - pad < want)
				return AGB_NULL;
			BF_WORK(t->m, 9u); /* its call */
			carve_top(t, x, x + pad, want);
			return node(t, x + pad);
		}
	}
	uint32_t start = best + ((0u - (phase + best)) & amask);
	BF_WORK(t->m, 5u + 9u + 3u); /* carve's call */
	carve(t, best, best_size, start, want);
	return node(t, start);
}

/* The long-run path of alloc: the smallest long run that holds `want` blocks (long_best), or
 * the top run when it fits more tightly (on a tie the indexed run, the lower address). Carves
 * the block from the run's start; the tail stays free. Returns the block index, or NIL. */
HOT uint32_t alloc_long(agb_bestfit *t, uint32_t want)
{
	uint32_t best_size = 0;
	const uint32_t best = long_best(t, want, 0u, 0u, &best_size);
	const uint32_t top_size = t->nblocks - top_get(t);
	/* (As compiled in agb_bestfit_thumb_alloc_long.) The top run's test: 9 after a fit, 6 with
	 * none; its carve's call and return (3 + 5 + 2 + 3). */
	BF_WORK(t->m, best != NIL ? 9u : 6u);
	if (top_size >= want && (best == NIL || top_size < best_size)) {
		BF_WORK(t->m, 13u);
		return alloc_top(t, want);
	}
	if (best == NIL)
		return NIL;
	/* Carved from the run's start; the tail stays free: in the run's place when it stays in its
	 * class, else in its own bin or class. The helpers below declare 1 unit each themselves:
	 * the weights here are the rest of their compiled paths. */
	const uint32_t tail = best_size - want, q = best + want;
	BF_WORK(t->m, 7u + (tail > SMALL ? 8u : 6u)); /* the tail's tests */
	runs_drop(t, best_size);
	blocks_add(t, 0u - want);
	if (tail > SMALL && long_class(t, tail) == long_class(t, best_size)) {
		/* long_move: 1 + 32, then 15 (7 when the run is its class's only one). */
		BF_WORK(t->m, 33u + (long_only_peek(t, best) ? 7u : 15u) - 1u);
		long_move(t, best, q, tail);
	} else {
		/* long_unlink: 8, then 8 for its class's only run or 23; the tail's branch 1. */
		BF_WORK(t->m, 8u + (long_only_peek(t, best) ? 8u : 23u) + 1u - 1u);
		long_unlink(t, best, best_size);
		if (tail > SMALL) {
			/* long_push: 33, then 13 to an empty class or 17. */
			BF_WORK(t->m, 33u + (class_held_peek(t, tail) ? 17u : 13u) - 1u);
			long_push(t, q, tail);
		} else if (tail != 0u) {
			/* bin_push: 2 + 33, then 12 to a held bin, else 14 (19 when its bitmap word
			 * was empty). */
			BF_WORK(t->m, 35u + (bin_held_peek(t, tail)		 ? 12u
					     : bin_word_peek(t, tail) != 0u ? 14u
									    : 19u));
			bin_push(t, t->blocks, q, tail);
		} else {
			BF_WORK(t->m, 2u);
		}
	}
	if (tail != 0u)
		runs_add(t, tail);
	mark_used(t, best, want);
	return best;
}

/* alloc_long for a request no bin holds, as alloc returns it: the block's address (AGB_NULL) and
 * *granted (may be NULL). */
HOT uint32_t alloc_long_addr(agb_bestfit *t, uint32_t want, uint32_t *granted)
{
	/* agb_bestfit_thumb_alloc_long's entry (11) and return (9, 10 with granted). */
	BF_WORK(t->m, 11u + 9u + (granted != NULL ? 1u : 0u));
	uint32_t x = alloc_long(t, want);
	if (granted != NULL)
		*granted = x == NIL ? 0u : want << 3;
	return x == NIL ? AGB_NULL : node(t, x);
}

HOT uint32_t bf_alloc(agb_bestfit *t, uint32_t size, uint32_t align, uint32_t *granted)
{
	if (granted != NULL)
		*granted = 0;
	if (size == 0u)
		size = 1u;
	if (size > (t->nblocks << 3))
		return AGB_NULL;
	uint32_t want = (size + 7u) >> 3;
	uint32_t addr;
	if (align > 8u) {
		addr = alloc_aligned(t, want, align);
	} else {
		uint32_t rsize = want <= SMALL ? find_bin(t, want) : 0u;
		uint32_t x;
		if (rsize != 0u) {
			/* Every run of the bin is a best fit: take the first, leave the tail free. */
			x = bin_pop(t, t->blocks, rsize);
			uint32_t tail = rsize - want;
			runs_drop(t, rsize);
			blocks_add(t, 0u - want);
			mark_used(t, x, want);
			if (tail != 0u)
				make_free(t, x + want, tail);
		} else {
			x = alloc_long(t, want);
			if (x == NIL)
				return AGB_NULL;
		}
		addr = node(t, x);
	}
	if (addr != AGB_NULL && granted != NULL)
		*granted = want << 3;
	return addr;
}

/* Merges freed run [b, b+len) with its free neighbours (left: ls blocks before b, right: rs
 * blocks at b+len, 0 when not free) and indexes the result. A long left neighbour that stays in
 * its class keeps its place in the list (its node is at the same block): only its size changes. */
HOT_WIDE void merge_free(agb_bestfit *t, uint32_t b, uint32_t len, uint32_t ls, uint32_t rs)
{
	uint32_t end = b + len, start = b - ls, size = ls + len + rs;
	/* The Thumb free's .Lf_merge_long (its twin on the GBA): the entry's tests (5), each
	 * neighbour's unlink (w_ml_unlink), the end's test (4). */
	BF_WORK(t->m, 5u + 4u);
	if (ls != 0u)
		runs_drop(t, ls);
	if (rs != 0u)
		runs_drop(t, rs);
	runs_add(t, size);
	if (size > SMALL && end + rs == t->nblocks) {
		/* Ends the pool (its right part was a short run there): the new top run. The Thumb
		 * unlinks the right neighbour first: the same weights either way. The left's test
		 * (2), the top run's store and the return (4). */
		BF_WORK(t->m, 2u + 4u);
		if (ls != 0u) {
			BF_WORK(t->m, w_ml_unlink(t, start, ls));
			run_unlink(t, start, ls);
		}
		if (rs != 0u) {
			BF_WORK(t->m, w_ml_right(t, end, rs));
			run_unlink(t, end, rs);
		}
		top_set(t, start);
		return;
	}
	if (rs != 0u) {
		BF_WORK(t->m, w_ml_right(t, end, rs));
		run_unlink(t, end, rs);
	}
	/* The left's test (2, its size's 3), a long one's class test (4). */
	BF_WORK(t->m, 2u + (ls != 0u ? 3u : 0u) + (ls > SMALL ? 4u : 0u));
	if (ls > SMALL) {
		const uint32_t cl = long_class(t, ls), cs = long_class(t, size);
		if (cl == cs) {
			BF_WORK(t->m, 4u + 2u); /* its tags and the return */
			st(t, start, N_SIZE, size);
			st(t, start + size - 1u, N_SIZE, size);
			return;
		}
		/* .Lml_left_long: its next's test (3); its class's only run: the merged run's class's
		 * test (5), and when that class is empty the move in place (15: the class bits in one
		 * store, the new head, the tags, the return), the state long_unlink and long_push
		 * leave (the run is linked to itself already). */
		const uint32_t next = AGB_LD16(t->m, node(t, start) + N_NEXT);
		BF_WORK(t->m, 3u);
		if (next == start) {
			const uint32_t bits = AGB_LD16(t->m, t->ctrl + C_LONG);
			BF_WORK(t->m, 5u);
			if (((bits >> cs) & 1u) == 0u) {
				BF_WORK(t->m, 15u);
				AGB_ST16(t->m, t->ctrl + C_LONG, (bits | (1u << cs)) & ~(1u << cl));
				AGB_ST16(t->m, lhead_addr(t, cs), start);
				st(t, start, N_SIZE, size);
				st(t, start + size - 1u, N_SIZE, size);
				return;
			}
		}
	}
	if (ls != 0u) {
		/* A short one's (w_ml_bin_unlink), a long one's LONG_UNLINK_C (5, then 5 or 11) less
		 * long_unlink's unit. */
		BF_WORK(t->m, ls <= SMALL ? w_ml_bin_unlink(t, start, ls)
					  : 5u + (long_only_peek(t, start) ? 5u : 11u) - 1u);
		run_unlink(t, start, ls);
	}
	/* The push, LONG_CLASS and LONG_PUSH_C_RET (16, 15 after the left's LONG_UNLINK_C: its
	 * class is known), then 5 to a held class, 3 to an empty one (no branch: each arm
	 * returns), and the return in place (2), less long_push's unit. */
	BF_WORK(t->m, (ls > SMALL ? 15u : 16u) + (class_held_peek(t, size) ? 5u : 3u) + 2u - 1u);
	run_link(t, start, size);
}

/* 1 when a free run ends at block b - 1 (b > 0, b - 1's entry E_FREE, but b may be the last
 * block of a long used run whose inner entries are E_FREE too): the boundary tag s in block
 * b - 1 (user data inside a used run) must give a run [b - s, b) whose first block holds s too,
 * whose first entry is E_FREE and which starts the pool or follows a used run's last entry that
 * is not inside a length halfword. Inside a used run no s passes: its inner entries are E_FREE
 * and its length halfword is recognised. O(1): three or four loads. */
static int free_run_ends_at(agb_bestfit *t, uint32_t b)
{
	uint32_t s = ld(t, b - 1u, N_SIZE);
	if (s == 0u || s > b)
		return 0;
	uint32_t x = b - s;
	if (ld(t, x, N_SIZE) != s || map_entry(t, x) != E_FREE)
		return 0;
	if (x == 0u)
		return 1;
	uint32_t y = x - 1u;
	return map_entry(t, y) == E_END &&
	       ((y >> 3) == 0u || !agb_map2_starts_long(AGB_LD16(t->m, map_hw(t, y) - 2u)));
}

/* The refusal of every build: 1 when addr is not the first block of a live used run. Every map
 * entry of a free run and every inner entry of a long used run is E_FREE, a long run's length
 * halfword is recognised from the halfword before it (map2.h), and the last block of a long run
 * is told from a one-block run after a free run by that free run's tags (free_run_ends_at). So
 * a double free, a foreign or interior address, or an address in a free run, is refused with
 * the map untouched. O(1): two map loads, four more in the last case. (free makes the same
 * refusal in its hot path, free_fast and bestfit_thumb.S; realloc calls this.) */
HOT int refused(agb_bestfit *t, uint32_t addr)
{
	if (agb_map2_off_pool(t->blocks, t->nblocks, addr))
		return 1;
	uint32_t b = (addr - t->blocks) >> 3, a = map_hw(t, b), sh = (b & 7u) << 1;
	uint32_t w = AGB_LD16(t->m, a), wp = b >= 8u ? AGB_LD16(t->m, a - 2u) : 0u;
	uint32_t e = (w >> sh) & 3u, left = E_END; /* block 0: as if a used run ended before it */
	if (sh != 0u)
		left = (w >> (sh - 2u)) & 3u;
	else if (b != 0u)
		left = wp >> 14;
	if (agb_map2_not_a_start(e, left) || agb_map2_starts_long(wp))
		return 1;
	return e == E_END && left == E_FREE && !free_run_ends_at(t, b);
}

/* The one free the hot paths leave to the C (bestfit_thumb.S .Lf_general, and free_top, its
 * host twin): used run [b, b+len), past the refusal, that ends where the top run starts (or
 * ends the pool) and whose left neighbour is a long free run of ls blocks. Its entries become
 * E_FREE and [b - ls, n) the top run. Every other free stays in the hot path, a merge beyond
 * AGB_BESTFIT_SMALL blocks included (merge_out in the C twin, LONG_UNLINK and LONG_PUSH in the
 * Thumb). O(1). */
HOT_WIDE void free_top_long_left(agb_bestfit *t, uint32_t b, uint32_t len, uint32_t ls)
{
	/* agb_bestfit_thumb_free_top as compiled in the bench ROM: its entry, the call of
	 * merge_top and the return (17), the map clear of a long run (30) or a short one (19, 2
	 * more when it reaches the next halfword). */
	BF_WORK(t->m, 17u + (agb_map2_is_long(b, len) ? 30u : 19u + ((b & 7u) + len > 8u ? 2u : 0u)));
	clear_used(t, b, len);
	blocks_add(t, len);
	merge_top(t, b, ls);
}

/* ---- the hot paths ---------------------------------------------------------------------------
 * alloc from a bin and free into the bins are written for Thumb code in ROM: the pool fields are
 * read once into locals (a store through the bus may alias *t, so the compiler reloads fields
 * read after one), everything else (aligned requests, long runs) is out of line and
 * reuses the general code above, so both paths make the same decisions. */

/* GCC would split the NULL test of free off into a wrapper (one more call) and fold the two
 * adapters into calls of the public functions. */
#if defined(__GNUC__) && !defined(__clang__)
#define ONE_LEVEL __attribute__((optimize("no-partial-inlining", "no-ipa-icf")))
#else
#define ONE_LEVEL
#endif

#if !AGB_BESTFIT_THUMB
/* The general paths, out of line so their registers stay out of the hot ones. */
#if !BF_ARM_BUILD
static __attribute__((noinline)) uint32_t alloc_general(agb_bestfit *t, uint32_t size,
							 uint32_t align, uint32_t *granted)
{
	/* agb_bestfit_thumb_alloc_general (bf_alloc compiled): its entry's tests, the call of
	 * alloc_aligned and the return (33; 6 more with granted). */
	BF_WORK(t->m, 33u + (granted != NULL ? 6u : 0u));
	return bf_alloc(t, size, align, granted);
}

#endif

static __attribute__((noinline)) void merge_out(agb_bestfit *t, uint32_t b, uint32_t len,
						uint32_t ls, uint32_t rs)
{
	merge_free(t, b, len, ls, rs);
}

#if !BF_ARM_BUILD
static __attribute__((noinline)) void mark_used_out(agb_bestfit *t, uint32_t b, uint32_t len)
{
	/* .La_long (5) and agb_bestfit_thumb_mark_used's entry and return beyond mark_used's own
	 * (10 + 35 + 3 against 45: 3). */
	BF_WORK(t->m, 8u);
	mark_used(t, b, len);
}

/* Work of the Thumb alloc from .La_mark to its return, mark_short's or mark_used_out's own
 * left out: the granted store's test (8, 9 with granted), .La_tail's test (3), the tail's
 * BIN_PUSH (16, then 5 to a held bin or 6 to an empty one, 12 when its bitmap word was empty,
 * and 1), .La_done and the return (4). Read before the push. */
static inline uint32_t w_mark_tail(const agb_bestfit *t, uint32_t tail, const uint32_t *granted)
{
	uint32_t w = 8u + (granted != NULL ? 1u : 0u) + 3u + 4u;
	if (tail - 1u <= SMALL - 1u)
		w += 17u + (bin_held_peek(t, tail)		? 5u
			    : bin_word_peek(t, tail) != 0u ? 6u
							   : 12u);
	return w;
}

/* Work of the Thumb .La_pop taking the first run of bin `size`: 11, then 4 to unlink it, or
 * 9 when it was the bin's only run (BIT_CLEAR, which leaves the summary alone: bit_clear). Read
 * before the pop. */
static inline uint32_t w_pop(const agb_bestfit *t, uint32_t size)
{
	const uint32_t x = AGB_PEEK16(t->m, t->ctrl + C_HEADS + ((size - 1u) << 1));
	if (pk(t, x, N_NEXT) != x)
		return 11u + 4u;
	return 11u + 9u;
}

/* mark_used for a short run (is_long false: entries b..b+len-1 lie in the halfwords at a and
 * a+2, all E_FREE): entries 1...1 3. */
HOT void mark_short(agb_bestfit *t, uint32_t b, uint32_t len)
{
	uint32_t a = t->map + ((b >> 3) << 1);
	uint32_t lo = (b & 7u) << 1;
	uint32_t hi = lo + (len << 1); /* 2..32 */
	uint32_t mask = (0xFFFFFFFFu >> (32u - hi)) & (0xFFFFFFFFu << lo);
	uint32_t val = (mask & 0x55555555u) | (2u << (hi - 2u));
	BF_WORK(t->m, 19u + ((mask >> 16) != 0u ? 1u : 0u)); /* .La_mark's short arm */
	AGB_ST16(t->m, a, AGB_LD16(t->m, a) | (val & 0xFFFFu));
	if ((mask >> 16) != 0u)
		AGB_ST16(t->m, a + 2u, AGB_LD16(t->m, a + 2u) | (val >> 16));
}

/* alloc_fast when no bin holds `want` blocks: with long free runs, alloc_long; else the top
 * run's start (carve_top's work, in the Thumb path's order: top, map, the rest's bin). A top run
 * too short (or none) leaves it to the general path, which returns AGB_NULL. */
static __attribute__((noinline)) uint32_t alloc_beyond_bins(agb_bestfit *t, uint32_t size,
							     uint32_t align, uint32_t *granted)
{
	uint32_t want = (size + 7u) >> 3;
	if (long_bits(t) != 0u) {
		/* .La_top's test (2), .La_long_run's call (2) and return (3). */
		BF_WORK(t->m, 7u);
		return alloc_long_addr(t, want, granted);
	}
	const uint32_t n = t->nblocks, x = top_get(t);
	BF_WORK(t->m, 2u + 3u); /* .La_top's tests */
	if (n - x < want) {
		BF_WORK(t->m, 4u); /* .La_general's call and return */
		return alloc_general(t, size, align, granted);
	}
	uint32_t rest = n - x - want;
	/* The top run's arm (5, 6 when the rest stays the top run or is none), then .La_mark. */
	BF_WORK(t->m, (rest - 1u > SMALL - 1u ? 6u : 5u) + w_mark_tail(t, rest, granted));
	top_set(t, rest - 1u > SMALL - 1u ? x + want : n); /* a long rest stays the top run */
	runs_drop(t, n - x);
	blocks_add(t, 0u - want);
	if (rest != 0u)
		runs_add(t, rest);
	if (agb_map2_is_long(x, want))
		mark_used_out(t, x, want);
	else
		mark_short(t, x, want);
	if (rest - 1u <= SMALL - 1u)
		bin_push(t, t->blocks, x + want, rest);
	if (granted != NULL)
		*granted = want << 3;
	return node(t, x);
}

/* The host's twin of the Thumb alloc (bestfit_thumb.S), same decisions and the same accesses in
 * the same cases: a bin at or above want through k's bitmap word, else through the summary,
 * else alloc_beyond_bins. */
HOT uint32_t alloc_fast(agb_bestfit *t, uint32_t size, uint32_t align, uint32_t *granted)
{
	/* want 0 (size 0, or size + 7 wrapped) and aligned requests take the general path; no bin
	 * holds a long request. */
	uint32_t want = (size + 7u) >> 3;
	uint32_t k = want - 1u;
	if (want == 0u || align > 8u) {
		/* The entry's tests to the branch taken (8 for an aligned request; 6 and .La_big's
		 * zero test 2 for want 0), its stub (1), .La_general's call and return (4). */
		BF_WORK(t->m, 8u + 1u + 4u);
		return alloc_general(t, size, align, granted);
	}
	if (k >= SMALL) {
		BF_WORK(t->m, 6u + 1u + 6u); /* the entry's test, .La_big_stub, .La_big */
		return alloc_beyond_bins(t, size, align, granted);
	}
	const uint32_t ctrl = t->ctrl;
	uint32_t bits = AGB_LD32(t->m, ctrl + C_BITMAP + ((k >> 5) << 2)) >> (k & 31u);
	uint32_t rsize;
	BF_WORK(t->m, 16u); /* the entry to k's bitmap word's test */
	if (LIKELY(bits != 0u)) {
		BF_WORK(t->m, 6u); /* K_TABLE's add, LOWBIT and rsize */
		rsize = want + lowbit(t, bits);
	} else {
		/* find_bin's second step: the next non-empty bitmap word through the summary, whose
		 * stale bits (words emptied since: bit_clear) are cleared on the way. */
		BF_WORK(t->m, 1u); /* .La_summary_stub */
		uint32_t wi, w;
		for (;;) {
			uint32_t s = AGB_LD16(t->m, ctrl + C_SUMMARY);
			BF_WORK(t->m, 6u); /* .La_summary's test */
			if ((s & (0xFFFFFFFEu << (k >> 5))) == 0u)
				return alloc_beyond_bins(t, size, align, granted);
			/* K_TABLE's add, the first LOWBIT, the word's test (9) */
			BF_WORK(t->m, 9u);
			wi = lowbit(t, s & (0xFFFFFFFEu << (k >> 5)));
			w = AGB_LD32(t->m, ctrl + C_BITMAP + (wi << 2));
			if (w != 0u)
				break;
			BF_WORK(t->m, 4u); /* .La_summary_stale */
			AGB_ST16(t->m, ctrl + C_SUMMARY, s & ~(1u << wi));
		}
		BF_WORK(t->m, 8u); /* the second LOWBIT and rsize */
		rsize = (wi << 5) + lowbit(t, w) + 1u;
	}
	/* Every run of the bin is a best fit (the top run is weighed against long runs only): take
	 * the bin's first, leave the tail free. */
	const uint32_t blocks = t->blocks;
	BF_WORK(t->m, w_pop(t, rsize));
	uint32_t x = bin_pop(t, blocks, rsize);
	uint32_t tail = rsize - want;
	BF_WORK(t->m, w_mark_tail(t, tail, granted));
	runs_drop(t, rsize);
	blocks_add(t, 0u - want);
	if (agb_map2_is_long(x, want))
		mark_used_out(t, x, want);
	else
		mark_short(t, x, want);
	if (tail != 0u) {
		bin_push(t, blocks, x + want, tail);
		runs_add(t, tail);
	}
	if (granted != NULL)
		*granted = want << 3;
	return blocks + (x << 3);
}

#endif

/* The map clear of a long used run being freed (the Thumb free's LONG_CLEAR): its first entry
 * (at bit sh of w, the halfword at a0), its length halfword and its last entry `last` become
 * E_FREE; its inner entries already are. Returns the halfword written for the last entry, which
 * holds the right neighbour's entry too unless `last` is its halfword's top entry. */
HOT uint32_t long_clear(agb_bestfit *t, uint32_t a0, uint32_t w, uint32_t sh, uint32_t last)
{
	AGB_ST16(t->m, a0, w & ~(3u << sh));
	AGB_ST16(t->m, a0 + 2u, 0u);
	const uint32_t az = map_hw(t, last);
	const uint32_t v = AGB_LD16(t->m, az) & ~(3u << ((last & 7u) << 1));
	AGB_ST16(t->m, az, v);
	return v;
}

/* free_fast's path for a used run [b, b+len) (long_run: E_LONG-encoded) that ends where the top
 * run starts, or ends the pool (no top run): the Thumb free's .Lf_top and .Lf_long_top, the same
 * accesses in the same order, and merge_top's decisions. w is the map window of b's halfword
 * and the next, left the left neighbour's entry. A long free left neighbour takes
 * free_top_long_left. */
static __attribute__((noinline)) void free_top(agb_bestfit *t, uint32_t addr, uint32_t b,
					       uint32_t len, uint32_t w, uint32_t left, int long_run)
{
	uint32_t ls = 0;
	/* The Thumb .Lf_top and .Lf_long_top (their branch there is the caller's): the left
	 * neighbour's test (4), its tag's (4); a long one's branch to .Lf_general, its call and the
	 * return (1 + 4 + 2). */
	BF_WORK(t->m, 4u);
	if (left == E_FREE) {
		ls = AGB_LD16(t->m, addr - 8u + N_SIZE);
		BF_WORK(t->m, 4u);
		if (ls > SMALL) {
			BF_WORK(t->m, 1u + 4u + 2u);
			free_top_long_left(t, b, len, ls);
			return;
		}
	}
	const uint32_t a0 = map_hw(t, b), sh = (b & 7u) << 1;
	/* The map clear: LONG_CLEAR and its branch (16), or the short run's (4, 1 more when it
	 * reaches the next halfword, and end's 1); then .Lf_top_cleared's tests (7). */
	BF_WORK(t->m, (long_run ? 16u : 4u + (sh + (len << 1) > 16u ? 1u : 0u) + 1u) + 7u);
	if (long_run) {
		/* Its first entry, length halfword and last entry (the inner ones are E_FREE). */
		(void)long_clear(t, a0, w, sh, b + len - 1u);
	} else {
		const uint32_t eh = sh + (len << 1); /* <= 32 */
		const uint32_t clear = (0xFFFFFFFFu >> (32u - eh)) & (0xFFFFFFFFu << sh);
		w &= ~clear;
		if ((clear & 0xFFFFu) != 0u)
			AGB_ST16(t->m, a0, w);
		if ((clear >> 16) != 0u)
			AGB_ST16(t->m, a0 + 2u, w >> 16);
	}
	const uint32_t n = t->nblocks, end = b + len, start = b - ls;
	const uint32_t total = ls + len + (n - end);
	blocks_add(t, len);
	if (end < n)
		runs_drop(t, n - end); /* the old top run */
	if (ls != 0u) {
		/* The short left neighbour's BIN_UNLINK, out of line: 5, then 13 for its bin's only
		 * run or 9. */
		BF_WORK(t->m, 5u + w_bin_unlink_b(t, start));
		bin_unlink(t, t->blocks, start, ls);
		runs_drop(t, ls);
	}
	/* The total's test (3), then the top run's store and the return (3), or the push and the
	 * return: 9, then 5 to a held bin, else 10 and 3 (9 when its bitmap word was empty). */
	BF_WORK(t->m, 3u + (total > SMALL			  ? 3u
			    : bin_head_held_peek(t, total)	  ? 9u + 5u
			    : bin_word_peek(t, total) != 0u ? 9u + 10u + 3u
							    : 9u + 10u + 9u));
	runs_add(t, total);
	if (total > SMALL)
		top_set(t, start);
	else
		bin_push(t, t->blocks, start, total);
}

/* free's hot path, the host's twin of the Thumb free (bestfit_thumb.S): the same decisions and
 * the same accesses in the same cases. It works on a window of 16 map entries, the halfword
 * holding b's entry and the next: a short run always lies in it (is_long: b's offset + length
 * <= 16), and a long run's length is the window's second halfword. The refusal (refused())
 * comes first; a run next to the top run goes to free_top, and a merge beyond
 * AGB_BESTFIT_SMALL blocks to merge_out. */
HOT void free_fast(agb_bestfit *t, uint32_t addr)
{
	const uint32_t blocks = t->blocks;
	if (UNLIKELY(agb_map2_off_pool(blocks, t->nblocks, addr))) {
		BF_WORK(t->m, 6u + 1u + 2u); /* the entry to its test, .Lf_ret_stub, the return */
		return; /* AGB_NULL, or refused */
	}
	uint32_t b = (addr - blocks) >> 3;
	uint32_t a0 = t->map + ((b >> 3) << 1);
	uint32_t sh = (b & 7u) << 1;
	uint32_t w = AGB_LD16(t->m, a0) | ((uint32_t)AGB_LD16(t->m, a0 + 2u) << 16);
	/* The entry (14), the left entry (2; .Lf_edge 6, 8 with b > 0), .Lf_idx (6). */
	BF_WORK(t->m, 14u + (sh != 0u ? 2u : b != 0u ? 8u : 6u) + 6u);
	uint32_t left = E_END; /* block 0: as if a used run ended before it */
	if (LIKELY(sh != 0u))
		left = w >> (sh - 2u);
	else if (b != 0u)
		left = (uint32_t)AGB_LD16(t->m, a0 - 2u) >> 14;
	uint32_t e = (w >> sh) & 3u;
	left &= 3u;
	if (UNLIKELY(agb_map2_not_a_start(e, left))) {
		BF_WORK(t->m, 1u + 1u + 2u); /* .Lf_kind's test, .Lf_ret_stub, the return */
		return;
	}
	/* STARTS_LONG (5, 2 more for a pair of the gate, 7 more from b 8 on and 1 for the way back
	 * when not refused; refused, 3 for the branch and the return), after .Lf_kind's test (1)
	 * for a long run or E_END after E_FREE, whose kind's test is 3 more. */
	BF_WORK(t->m, (e == E_LONG || (e == E_END && left == E_FREE) ? 1u + 3u : 0u) + 5u +
			      (((BF_LEN_GATE >> ((w >> 14) & 15u)) & 1u) != 0u ? 2u + (b >= 8u ? 7u : 0u)
									     : 0u));
	/* b's halfword may be a long run's length halfword (the halfword before holds the run's
	 * start, agb_map2_starts_long) only when its top entry and the next halfword's first read
	 * (1, 0) or (1, 3) (a length below 2^14: bit 14 set, bit 15 clear; the run covers the next
	 * halfword's first block, as an inner block or its last) or (3, 0) (a length of 2^14 or
	 * more, bits 14 and 15 set, the next halfword wholly inside the run): BF_LEN_GATE's bits.
	 * Elsewhere the halfword before is not read. In a consistent map (1, 0) never occurs (a used
	 * block before the halfword's end continues into the next one), so most frees skip the load. */
	if (((BF_LEN_GATE >> ((w >> 14) & 15u)) & 1u) != 0u && b >= 8u &&
	    UNLIKELY(agb_map2_starts_long(AGB_LD16(t->m, a0 - 2u)))) {
		BF_WORK(t->m, 3u - (e == E_LONG || (e == E_END && left == E_FREE) ? 3u : 0u));
		return;
	}
	BF_WORK(t->m, ((BF_LEN_GATE >> ((w >> 14) & 15u)) & 1u) != 0u && b >= 8u ? 1u : 0u);
	if (UNLIKELY(e == E_END && left == E_FREE)) {
		BF_WORK(t->m, 1u + w_end_after_free(t, b, addr)); /* after its stub (1) */
		if (!free_run_ends_at(t, b))
			return;
		BF_WORK(t->m, 2u); /* .Lfe_ok's sh, worked out again */
	}
	uint32_t len, end, ls = 0, rs = 0;
	if (UNLIKELY(e == E_LONG)) {
		/* A long run: its first entry, length halfword and last entry become E_FREE. */
		len = agb_map2_len_decode(w >> 16);
		end = b + len;
		BF_WORK(t->m, 12u); /* .Lf_long to the top test */
		if (UNLIKELY(end == AGB_LD16(t->m, t->ctrl + C_TOP))) {
			BF_WORK(t->m, 1u); /* .Lf_long_top_near */
			free_top(t, addr, b, len, w, left, 1); /* next to the top run, or the pool's end */
			return;
		}
		const uint32_t hv = long_clear(t, a0, w, sh, end - 1u);
		const uint32_t right = (end & 7u) != 0u ? hv >> ((end & 7u) << 1) : map_entry(t, end);
		/* LONG_CLEAR (17), the right entry's test (3; 2 for a free one's tag, 1 for a used
		 * one in the next halfword), .Lfl_right_done (4), then after a free left one its tag
		 * (1), the branch (1) and .Lf_merge (5); after a used one .Lfl_left_used's right test
		 * (2), then the branch and .Lf_merge (6) for a free right one, else the length's test
		 * (3), then the branch and .Lf_merge (6) beyond SMALL blocks, or the way to .Lf_m_push
		 * (2; w_free_tail counts from there). */
		BF_WORK(t->m, 17u + 3u + ((right & 3u) == E_FREE ? 2u : (end & 7u) == 0u ? 1u : 0u) +
				      4u +
				      (left == E_FREE		? 1u + 1u + 5u
				       : (right & 3u) == E_FREE ? 2u + 6u
							       : 2u + 3u + (len > SMALL ? 6u : 2u)));
		if ((right & 3u) == E_FREE)
			rs = AGB_LD16(t->m, addr + (len << 3) + N_SIZE);
	} else {
		/* A short run: the first entry at or after b with its high bit set ends it. */
		len = (lowbit(t, ((w >> 1) & 0x55555555u) >> sh) >> 1) + 1u;
		end = b + len;
		BF_WORK(t->m, 14u); /* .Lf_short to the top test */
		if (UNLIKELY(end == AGB_LD16(t->m, t->ctrl + C_TOP))) {
			BF_WORK(t->m, 1u); /* .Lf_top_stub */
			free_top(t, addr, b, len, w, left, 0); /* next to the top run, or the pool's end */
			return;
		}
		uint32_t eh = sh + (len << 1); /* <= 32 */
		uint32_t clear = (0xFFFFFFFFu >> (32u - eh)) & (0xFFFFFFFFu << sh);
		uint32_t right = LIKELY(eh != 32u) ? w >> (eh & 31u) : AGB_LD16(t->m, a0 + 4u); /* mask: eh < 32 here */
		/* The right entry's tests: 4 and .Lf_right_used's 3 for a used one in the window, 2
		 * and .Lf_right_free's 5 for a free one; past the window .Lf_right_edge too (3 used, 2
		 * free) and .Lf_right_maybe's 2. Then no free neighbour: MERGE_CLEAR (2), or a merge:
		 * the left tag (1), MERGE_CLEAR (2), .Lf_merge (5; one neighbour alone, its copy in
		 * .Lf_right_free or .Lf_left_free, 4). */
		BF_WORK(t->m, 4u + ((right & 3u) == E_FREE ? 2u + 5u + (eh != 32u ? 0u : 2u)
							   : 3u + (eh != 32u ? 0u : 2u + 3u)) +
				      ((right & 3u) != E_FREE && left != E_FREE
					       ? 2u
					       : (left == E_FREE ? 1u : 0u) + 2u +
							 (left == E_FREE && (right & 3u) == E_FREE ? 5u
											       : 4u)));
		if ((right & 3u) == E_FREE)
			rs = AGB_LD16(t->m, addr + (len << 3) + N_SIZE);
		/* Both halves of the window are stored (the Thumb MERGE_CLEAR): the high one as read
		 * when the run does not reach it. */
		w &= ~clear;
		AGB_ST16(t->m, a0, w);
		AGB_ST16(t->m, a0 + 2u, w >> 16);
	}
	/* Every entry of the run is E_FREE now (refused()); the neighbours' sizes are their
	 * boundary tag and node size. */
	if (left == E_FREE)
		ls = AGB_LD16(t->m, addr - 8u + N_SIZE);
	blocks_add(t, len);
	uint32_t total = ls + len + rs;
	if (UNLIKELY(total > SMALL)) {
		/* .Lf_merge_long_near, or from .Lf_left_free or .Lf_right_free .Lf_left_long or
		 * .Lf_right_long (the other's size 0 and the branch); merge_free declares the rest */
		BF_WORK(t->m, e != E_LONG && (ls == 0u) != (rs == 0u) ? 2u : 1u);
		merge_out(t, b, len, ls, rs);
		return;
	}
	BF_WORK(t->m, w_free_tail(t, b, len, ls, rs, e == E_LONG));
	if (ls != 0u) {
		bin_unlink(t, blocks, b - ls, ls);
		runs_drop(t, ls);
	}
	if (rs != 0u) {
		bin_unlink(t, blocks, end, rs);
		runs_drop(t, rs);
	}
	bin_push(t, blocks, b - ls, total);
	runs_add(t, total);
}

#endif

/* The core table's entries hold the hot paths (one call level from the table); the public
 * functions call them. */
#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

#if !BF_ARM_BUILD
#define ALLOC_HOT alloc_fast
#define FREE_HOT free_fast
#define ENTRY_ATTR ONE_LEVEL
#else
/* An ARM build (the IWRAM placement) keeps one copy of alloc's path: code, state and the meta
 * area share 16 KiB of IWRAM, and from 1-cycle memory the general alloc is fast enough. free
 * takes the fast path too: the general one runs some 190 ARM instructions per call. */
#define ALLOC_HOT bf_alloc
#define FREE_HOT free_fast
#define ENTRY_ATTR
#endif

#if !AGB_BESTFIT_THUMB
/* free's table entry: the checking build's refusal (AGB_HEAP_CHECKED), then the hot path
 * (which makes the O(1) refusal of every build). */
HOT void free_entry(agb_bestfit *t, uint32_t addr)
{
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("bestfit", "free", t, addr, 0u, );
#endif
	FREE_HOT(t, addr);
}
#endif

#if AGB_BESTFIT_THUMB
/* The Thumb hot paths (bestfit_thumb.S) are the table's entries; what they hand back to C: */
_Static_assert(offsetof(agb_bestfit, ctrl) == T_CTRL && offsetof(agb_bestfit, map) == T_MAP &&
		       offsetof(agb_bestfit, blocks) == T_BLOCKS &&
		       offsetof(agb_bestfit, nblocks) == T_NBLOCKS &&
		       offsetof(agb_bestfit, consts) == T_CONSTS,
	       "bestfit_thumb.h's field offsets");
_Static_assert(C_HEADS == C_BITMAP + 4 * AGB_BESTFIT_WORDS && AGB_BESTFIT_SMALL == 256u &&
		       C_LHEADS == C_HEADS + 2 * AGB_BESTFIT_SMALL,
	       "bestfit_thumb.S's control layout and bin count");

uint32_t agb_bestfit_thumb_alloc_general(agb_bestfit *t, uint32_t size, uint32_t align,
					 uint32_t *granted)
{
	return bf_alloc(t, size, align, granted);
}

uint32_t agb_bestfit_thumb_alloc_long(agb_bestfit *t, uint32_t want, uint32_t *granted)
{
	return alloc_long_addr(t, want, granted);
}

void agb_bestfit_thumb_free_top(agb_bestfit *t, uint32_t b, uint32_t len, uint32_t ls)
{
	free_top_long_left(t, b, len, ls);
}

void agb_bestfit_thumb_mark_used(agb_bestfit *t, uint32_t b, uint32_t len)
{
	mark_used(t, b, len);
}

#define core_alloc agb_bestfit_thumb_alloc
#define core_free agb_bestfit_thumb_free
#else
AGB_CORE_ADAPTER_HOT(alloc, ALLOC_HOT, ENTRY_ATTR)
#if BF_ARM_BUILD
/* In IWRAM the public free is the hot path itself and the table's entry calls it: a game's call
 * from ROM already pays the Thumb-to-ARM veneer, and one copy of the path fits the 16 KiB. */
void agb_bestfit_free(agb_bestfit *t, uint32_t addr)
{
	free_entry(t, addr);
}
AGB_CORE_ADAPTER(bestfit, free)
#else
AGB_CORE_ADAPTER_HOT(free, free_entry, ENTRY_ATTR)
#endif
#endif

#if !AGB_BESTFIT_THUMB
/* (In a Thumb GBA build these two are the assembly's entry points themselves, bestfit_thumb.S:
 * a game's call goes straight to the hot path.) */
uint32_t agb_bestfit_alloc(agb_bestfit *t, uint32_t size, uint32_t align, uint32_t *granted)
{
	return core_alloc(t, size, align, granted);
}

#if !BF_ARM_BUILD
void agb_bestfit_free(agb_bestfit *t, uint32_t addr)
{
	core_free(t, addr);
}
#endif
#endif

uint32_t agb_bestfit_realloc(agb_bestfit *t, uint32_t addr, uint32_t size, uint32_t *granted)
{
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("bestfit", "realloc", t, addr, 0u, AGB_NULL);
#endif
	if (addr != AGB_NULL && refused(t, addr)) {
		if (granted != NULL)
			*granted = 0;
		return AGB_NULL;
	}
	if (addr == AGB_NULL)
		return agb_bestfit_alloc(t, size, 8u, granted);
	if (size == 0u)
		size = 1u;
	if (size > (t->nblocks << 3)) {
		if (granted != NULL)
			*granted = 0;
		return AGB_NULL;
	}
	uint32_t want = (size + 7u) >> 3;
	uint32_t b = (addr - t->blocks) >> 3;
	uint32_t len = used_len(t, b, AGB_LD16(t->m, map_hw(t, b)));
	if (want == len) {
		if (granted != NULL)
			*granted = len << 3;
		return addr;
	}
	uint32_t end = b + len;
	uint32_t rs = 0;
	const int at_top = end == top_get(t); /* the top run follows, or nothing does */
	if (at_top)
		rs = t->nblocks - end;
	else if ((((uint32_t)AGB_LD16(t->m, map_hw(t, end)) >> ((end & 7u) << 1)) & 3u) == E_FREE)
		rs = ld(t, end, N_SIZE);

	if (at_top && (want < len || len + rs >= want)) {
		/* In place, and whatever is left becomes the top run. */
		uint32_t rest = len + rs - want;
		if (rs != 0u)
			runs_drop(t, rs);
		clear_used(t, b, len);
		mark_used(t, b, want);
		blocks_add(t, len - want);
		top_set(t, t->nblocks);
		if (rest != 0u)
			link_free(t, b + want, rest);
		if (granted != NULL)
			*granted = want << 3;
		return addr;
	}
	if (want < len || len + rs >= want) {
		/* In place: [b, b+want) stays used, the rest of [b, end+rs) is one free run. */
		if (rs != 0u) {
			run_unlink(t, end, rs);
			runs_drop(t, rs);
		}
		uint32_t rest = len + rs - want;
		clear_used(t, b, len);
		mark_used(t, b, want);
		blocks_add(t, len - want);
		if (rest != 0u)
			link_free(t, b + want, rest);
		if (granted != NULL)
			*granted = want << 3;
		return addr;
	}

	uint32_t g;
	uint32_t to = agb_bestfit_alloc(t, size, 8u, &g);
	if (to == AGB_NULL) {
		if (granted != NULL)
			*granted = 0;
		return AGB_NULL;
	}
	for (uint32_t off = 0; off < (len << 3); off += 4u)
		AGB_ST32(t->m, to + off, AGB_LD32(t->m, addr + off));
	agb_bestfit_free(t, addr);
	if (granted != NULL)
		*granted = g;
	return to;
}

uint32_t agb_bestfit_overhead_bytes(agb_bestfit *t)
{
	return t->meta_bytes + t->waste_bytes + (t->ctrl_in_arena ? 0u : AGB_BESTFIT_META_BYTES);
}

/* ---- core table ----------------------------------------------------------------------------- */

/* alloc and free adapters inline the hot paths: one call level less from the core table. */
AGB_CORE_ADAPTER(bestfit, init)
AGB_CORE_ADAPTER(bestfit, realloc)
AGB_CORE_ADAPTER(bestfit, stats)
AGB_CORE_ADAPTER(bestfit, walk)
AGB_CORE_ADAPTER(bestfit, check)
AGB_CORE_ADAPTER(bestfit, overhead_bytes)

const struct agb_heap_core agb_bestfit_core = {
	.name = "bestfit",
	.summary = "best fit over 8-byte blocks: 2-bit map, exact-size bins + class lists of long runs",
	/* An EWRAM heap: VRAM pools keep their managers (tiles, obj-fast), and tree stays there. */
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM),
	.unit = 8,
	.state_bytes = sizeof(agb_bestfit),
	.init = core_init,
	.alloc = core_alloc,
	.free = core_free,
	.realloc = core_realloc,
	.stats = core_stats,
	.walk = core_walk,
	.check = core_check,
	.overhead_bytes = core_overhead_bytes,
	/* Rough starting values; the lead fits them against mGBA. */
	.model = {.alloc_base = 60, .free_base = 50, .realloc_base = 80, .per_access = 48},
};
