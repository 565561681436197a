/* `bestfit`'s observers and invariant checker: stats, walk and check (include/agb/bestfit.h),
 * with uncounted reads only. The algorithm is in src/agbmem/core/bestfit.c. */
#include <stddef.h>

#include "bestfit_int.h"

/* Sets the observation counters from the map and the tags (address order, uncounted reads). */
static void recount(agb_bestfit *t)
{
	uint32_t runs = 0, fblocks = 0;
	uint64_t sq = 0;
	const uint32_t top = AGB_PEEK16(t->m, t->ctrl + C_TOP);
	for (uint32_t b = 0; b < t->nblocks;) {
		uint32_t len;
		if (entry_peek(t, b) == E_FREE) {
			len = b == top ? t->nblocks - b : pk(t, b, N_SIZE);
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

void agb_bestfit_stats(agb_bestfit *t, struct agb_heap_stats *out)
{
	if (!COUNTERS)
		recount(t);
	out->free_bytes = t->free_blocks << 3;
	out->free_runs = t->free_runs;
	out->free_sq_sum = t->free_sq << 6;
	/* The largest run: the longest of the highest non-empty long class, else the highest
	 * non-empty bin; or the top run when it is larger. */
	uint32_t largest = 0;
	uint32_t bits = AGB_PEEK16(t->m, t->ctrl + C_LONG);
	if (bits != 0u) {
		uint32_t c = LONG_CLASSES - 1u;
		while (((bits >> c) & 1u) == 0u)
			c--;
		uint32_t first = AGB_PEEK16(t->m, lhead_addr(t, c)), x = first;
		for (uint32_t guard = 0; x < t->nblocks && guard <= t->nblocks; guard++) {
			if (pk(t, x, N_SIZE) > largest)
				largest = pk(t, x, N_SIZE);
			x = pk(t, x, N_NEXT);
			if (x == first)
				break;
		}
	}
	for (uint32_t k = SMALL; largest == 0u && k > 0u; k--)
		if (bin_nonempty_quiet(t, k))
			largest = k;
	uint32_t top = AGB_PEEK16(t->m, t->ctrl + C_TOP);
	if (top < t->nblocks && t->nblocks - top > largest)
		largest = t->nblocks - top;
	out->largest_free = largest << 3;
}

void agb_bestfit_walk(agb_bestfit *t, agb_walk_fn fn, void *ctx)
{
	fn(ctx, t->base, t->meta_bytes, AGB_RUN_META);
	const uint32_t top = AGB_PEEK16(t->m, t->ctrl + C_TOP);
	uint32_t b = 0;
	while (b < t->nblocks) {
		uint32_t len;
		enum agb_run_kind kind;
		if (entry_peek(t, b) == E_FREE) {
			len = b == top ? t->nblocks - b : pk(t, b, N_SIZE);
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

#define FAIL(msg)                                                                                  \
	do {                                                                                       \
		if (why != NULL)                                                                   \
			*why = (msg);                                                              \
		return 1;                                                                          \
	} while (0)

/* Length of the used run at b (0 when its encoding is broken), for check(). */
static uint32_t check_used(const agb_bestfit *t, uint32_t b, const char **why)
{
	const uint32_t n = t->nblocks;
	uint32_t e = entry_peek(t, b), len;
	if (e == E_END)
		return 1u;
	if (e == E_LONG) {
		uint32_t lw = AGB_PEEK16(t->m, map_hw(t, b) + 2u);
		len = agb_map2_len_decode(lw);
		if (lw != agb_map2_len_encode(len)) {
			*why = "long used run's length halfword is not encoded";
			return 0;
		}
		if (len > n - b) {
			*why = "long used run runs past the pool";
			return 0;
		}
		if (!agb_map2_is_long(b, len)) {
			*why = "long used run too short for its encoding";
			return 0;
		}
		if (entry_peek(t, b + len - 1u) != E_END) {
			*why = "long used run does not end with an end entry";
			return 0;
		}
		/* Inner entries E_FREE (those of the length halfword aside): refused() relies on it. */
		for (uint32_t i = b + 1u; i < b + len - 1u; i++) {
			if ((i >> 3) != (b >> 3) + 1u && entry_peek(t, i) != E_FREE) {
				*why = "inner map entry of a long used run is not free";
				return 0;
			}
		}
		return len;
	}
	len = 0;
	for (uint32_t i = b;; i++) {
		if (i >= n) {
			*why = "short used run runs past the pool";
			return 0;
		}
		uint32_t ei = entry_peek(t, i);
		len++;
		if (ei == E_END)
			break;
		if (ei != E_USED) {
			*why = "bad map entry inside a short used run";
			return 0;
		}
	}
	if (agb_map2_is_long(b, len)) {
		*why = "long used run encoded as short";
		return 0;
	}
	return len;
}

/* Bins: list links, node sizes, both bitmap levels. *count receives the runs listed. */
static int check_bins(const agb_bestfit *t, uint32_t *count, const char **why)
{
	const uint32_t n = t->nblocks;
	uint32_t listed = 0;
	for (uint32_t k = 0; k < SMALL; k++) {
		uint32_t word = AGB_PEEK32(t->m, bitmap_addr(t, k));
		uint32_t summary = AGB_PEEK16(t->m, t->ctrl + C_SUMMARY);
		uint32_t x = AGB_PEEK16(t->m, head_addr(t, k + 1u)), prev = NIL;
		/* The summary is kept lazily (bit_clear): set for every non-empty word. */
		if (((summary >> (k >> 5)) & 1u) == 0u && word != 0u)
			FAIL("summary bit clear for a non-empty bitmap word");
		if (((word >> (k & 31u)) & 1u) == 0u) {
			if ((x & 0x8000u) == 0u)
				FAIL("empty bin's head is a block index");
			continue;
		}
		if (x >= n)
			FAIL("bin head out of range");
		/* Circular: the head's prev is the tail. */
		uint32_t head = x;
		prev = pk(t, head, N_PREV);
		do {
			if (x >= n || entry_peek(t, x) != E_FREE)
				FAIL("bin entry is not a free block");
			if (pk(t, x, N_SIZE) != k + 1u)
				FAIL("free run in the bin of another size");
			if (pk(t, x, N_PREV) != prev)
				FAIL("broken bin prev link");
			if (++listed > n)
				FAIL("bin list does not terminate");
			prev = x;
			x = pk(t, x, N_NEXT);
		} while (x != head);
	}
	if ((AGB_PEEK16(t->m, t->ctrl + C_SUMMARY) >> AGB_BESTFIT_WORDS) != 0u)
		FAIL("summary bit set beyond the bitmap words");
	*count = listed;
	return 0;
}

/* Long classes: list links, node sizes in their class, the class bitmap. *count receives the
 * runs listed. */
static int check_longs(const agb_bestfit *t, uint32_t *count, const char **why)
{
	const uint32_t n = t->nblocks;
	const uint32_t bits = AGB_PEEK16(t->m, t->ctrl + C_LONG);
	uint32_t listed = 0;
	if ((bits >> LONG_CLASSES) != 0u)
		FAIL("long class bit set beyond the classes");
	for (uint32_t c = 0; c < LONG_CLASSES; c++) {
		if (((bits >> c) & 1u) == 0u)
			continue; /* empty class: its head is stale */
		uint32_t head = AGB_PEEK16(t->m, lhead_addr(t, c)), x = head;
		if (head >= n)
			FAIL("long class head out of range");
		uint32_t prev = pk(t, head, N_PREV);
		do {
			if (x >= n || entry_peek(t, x) != E_FREE)
				FAIL("long class entry is not a free block");
			uint32_t size = pk(t, x, N_SIZE);
			if (size <= SMALL || size > n - x || long_class_quiet(size) != c)
				FAIL("free run in the wrong long class");
			if (pk(t, x, N_PREV) != prev)
				FAIL("broken long class prev link");
			if (++listed > n)
				FAIL("long class list does not terminate");
			prev = x;
			x = pk(t, x, N_NEXT);
		} while (x != head);
	}
	*count = listed;
	return 0;
}

int agb_bestfit_check(agb_bestfit *t, const char **why)
{
	const uint32_t n = t->nblocks;
	const char *local = "?";
	if (why == NULL)
		why = &local;
	const uint32_t top = AGB_PEEK16(t->m, t->ctrl + C_TOP);
	if (top > n)
		FAIL("top run starts past the pool");
	for (uint32_t i = top; i < n; i++)
		if (entry_peek(t, i) != E_FREE)
			FAIL("map entry inside the top run is not free");
	if (top < n && n - top <= SMALL)
		FAIL("top run short enough for a bin");

	/* Address order: map encoding, tags, coalescing, index membership, counters. */
	uint32_t runs = 0, short_runs = 0, top_runs = 0, fblocks = 0;
	uint64_t sq = 0;
	int prev_free = 0;
	for (uint32_t b = 0; b < n;) {
		uint32_t len;
		if (entry_peek(t, b) == E_FREE && b == top) {
			/* The top run: no node, no tag, in no index; nothing after it. */
			if (prev_free)
				FAIL("free run before the top run (not coalesced)");
			len = n - b;
			top_runs = 1;
			fblocks += len;
			sq += (uint32_t)(len * len);
			break;
		}
		if (b > top)
			FAIL("top run does not start a run");
		if (entry_peek(t, b) == E_FREE) {
			if (prev_free)
				FAIL("two adjacent free runs (not coalesced)");
			len = pk(t, b, N_SIZE);
			if (len == 0u || len > n - b)
				FAIL("free run size out of range");
			if (len == n - b && len > SMALL)
				FAIL("a long free run ends the pool but is not the top run");
			for (uint32_t i = b; i < b + len; i++)
				if (entry_peek(t, i) != E_FREE)
					FAIL("map entry inside a free run is not free");
			if (pk(t, b + len - 1u, N_SIZE) != len)
				FAIL("boundary tag disagrees with the node size");
			/* In its bin or class list: the link into it agrees (the lists' walks check
			 * the rest, and that they hold as many runs as the map). */
			uint32_t p = pk(t, b, N_PREV);
			if (p >= n || pk(t, p, N_NEXT) != b)
				FAIL("free run not linked into its bin or class list");
			if (len <= SMALL)
				short_runs++;
			runs++;
			fblocks += len;
			sq += (uint32_t)(len * len);
			prev_free = 1;
		} else {
			len = check_used(t, b, why);
			if (len == 0u)
				return 1;
			prev_free = 0;
		}
		b += len;
	}
	uint32_t listed = 0, nodes = 0;
	if (check_bins(t, &listed, why) != 0)
		return 1;
	if (listed != short_runs)
		FAIL("bins list a different number of runs than the map holds");
	if (check_longs(t, &nodes, why) != 0)
		return 1;
	if (nodes != runs - short_runs)
		FAIL("long classes list a different number of runs than the map holds");
	if (top < n && top_runs == 0)
		FAIL("top run does not start a run");
	if (COUNTERS && (fblocks != t->free_blocks || runs + top_runs != t->free_runs ||
			 sq != t->free_sq))
		FAIL("observation counters disagree with a recount");
	return 0;
}
