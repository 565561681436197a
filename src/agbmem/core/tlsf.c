/* `tlsf` core: two-level segregated fit. See include/agb/tlsf.h for the layout and contracts. */
#include "agb/tlsf.h"

#include "common/tags.h"

#define SL_COUNT (1u << AGB_TLSF_SL_LOG2)
#define SMALL_LIMIT 128u /* sizes below this map linearly: fl 0, sl = size / 8 */

/* Control layout: fl bitmap word at +0, sl bitmaps (one word each would waste IWRAM; halfwords
 * are as cheap on a 32-bit bus) at +4, list heads at +32. */
#define CTRL_SL(t, fl) ((t)->ctrl + 4u + (fl) * 2u)
#define CTRL_HEAD(t, fl, sl) ((t)->ctrl + 32u + ((fl) * SL_COUNT + (sl)) * 4u)

/* Bit scans. ARMv4T has no CLZ. A de Bruijn multiply maps an isolated bit to a unique 5-bit
 * index: one MUL (1-4 cycles, early-terminating), a shift and one read of a 32-byte ROM table -
 * branch-free, so its cost is the same for every size. A 256-entry log2 table would need up to
 * three compare-and-branch steps around its read (taken branches cost 3 cycles from ROM) and 8x
 * the ROM; a binary search is ~5 branches. fls smears the top bit down, keeps only it, then uses
 * the same table, so both scans share the 32 bytes. */
static const uint8_t debruijn_index[32] = {0,  1,  28, 2,  29, 14, 24, 3,  30, 22, 20,
					   15, 25, 17, 4,  8,  31, 27, 13, 23, 21, 19,
					   16, 7,  26, 12, 18, 6,  11, 5,  10, 9};
#define DEBRUIJN 0x077CB531u

/* Index of the lowest set bit of x (x != 0). */
static uint32_t ffs32(agb_machine *m, uint32_t x)
{
	(void)m;
	return AGB_ROM_LD8(m, debruijn_index, ((x & (0u - x)) * DEBRUIJN) >> 27);
}

/* Index of the highest set bit of x (x != 0). */
static uint32_t fls32(agb_machine *m, uint32_t x)
{
	(void)m;
	x |= x >> 1;
	x |= x >> 2;
	x |= x >> 4;
	x |= x >> 8;
	x |= x >> 16;
	x = (x >> 1) + 1u;
	return AGB_ROM_LD8(m, debruijn_index, (x * DEBRUIJN) >> 27);
}

static void mapping(agb_machine *m, uint32_t size, uint32_t *fl, uint32_t *sl)
{
	if (size < SMALL_LIMIT) {
		*fl = 0;
		*sl = size >> 3;
	} else {
		uint32_t l = fls32(m, size);
		*fl = l - 6u;
		*sl = (size >> (l - AGB_TLSF_SL_LOG2)) & (SL_COUNT - 1u);
	}
}

/* The same mapping for observers (check): a plain loop, so no counted ROM-table read. */
static void mapping_obs(uint32_t size, uint32_t *fl, uint32_t *sl)
{
	uint32_t l = 0;
	if (size < SMALL_LIMIT) {
		*fl = 0;
		*sl = size >> 3;
		return;
	}
	while ((size >> l) > 1u)
		l++;
	*fl = l - 6u;
	*sl = (size >> (l - AGB_TLSF_SL_LOG2)) & (SL_COUNT - 1u);
}

/* Rounds a request up to the start of the next subrange so any block of the found list fits. */
static uint32_t round_for_search(agb_machine *m, uint32_t size)
{
	if (size >= SMALL_LIMIT)
		size += (1u << (fls32(m, size) - AGB_TLSF_SL_LOG2)) - 1u;
	return size;
}

static void list_insert(agb_tlsf *t, uint32_t b, uint32_t size)
{
	agb_machine *m = t->m;
	uint32_t fl, sl, h;
	mapping(m, size, &fl, &sl);
	h = AGB_LD32(m, CTRL_HEAD(t, fl, sl));
	AGB_ST32(m, b + 4u, h);
	AGB_ST32(m, b + 8u, 0u);
	if (h != AGB_NULL) {
		AGB_WORK(m, 1);
		AGB_ST32(m, h + 8u, b);
	}
	AGB_ST32(m, CTRL_HEAD(t, fl, sl), b);
	AGB_ST16(m, CTRL_SL(t, fl), AGB_LD16(m, CTRL_SL(t, fl)) | (1u << sl));
	AGB_ST32(m, t->ctrl, AGB_LD32(m, t->ctrl) | (1u << fl));
	t->free_bytes += size - 4u;
	t->free_runs++;
	t->free_sq += (uint64_t)(size - 4u) * (size - 4u);
}

static void list_remove(agb_tlsf *t, uint32_t b, uint32_t size)
{
	agb_machine *m = t->m;
	uint32_t fl, sl;
	uint32_t n = AGB_LD32(m, b + 4u), p = AGB_LD32(m, b + 8u);
	mapping(m, size, &fl, &sl);
	if (n != AGB_NULL) {
		AGB_WORK(m, 1);
		AGB_ST32(m, n + 8u, p);
	}
	if (p != AGB_NULL) {
		AGB_WORK(m, 1);
		AGB_ST32(m, p + 4u, n);
	} else {
		AGB_ST32(m, CTRL_HEAD(t, fl, sl), n);
		if (n == AGB_NULL) {
			uint32_t bits = AGB_LD16(m, CTRL_SL(t, fl)) & ~(1u << sl);
			AGB_WORK(m, 1);
			AGB_ST16(m, CTRL_SL(t, fl), bits);
			if (bits == 0) {
				AGB_WORK(m, 1);
				AGB_ST32(m, t->ctrl, AGB_LD32(m, t->ctrl) & ~(1u << fl));
			}
		}
	}
	t->free_bytes -= size - 4u;
	t->free_runs--;
	t->free_sq -= (uint64_t)(size - 4u) * (size - 4u);
}

/* Writes a free block's header and footer, tells its successor, and lists it. The caller
 * guarantees both physical neighbours are used (full coalescing). */
static void make_free(agb_tlsf *t, uint32_t b, uint32_t size)
{
	agb_machine *m = t->m;
	AGB_ST32(m, b, size | HDR_FREE);
	AGB_ST32(m, b + size - 4u, size);
	AGB_ST32(m, b + size, AGB_LD32(m, b + size) | HDR_PREV_FREE);
	list_insert(t, b, size);
}

int agb_tlsf_init(agb_tlsf *t, agb_machine *m, const struct agb_heap_config *cfg)
{
	uint32_t start = cfg->arena_addr, end = cfg->arena_addr + cfg->arena_bytes;
	uint32_t meta = cfg->meta_addr, left = cfg->meta_bytes, sb = STARTS_BYTES(cfg->arena_bytes);
	if ((cfg->arena_addr & 3u) != 0 || (cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (cfg->arena_bytes >= TAGS_MAX_ARENA)
		return AGB_HEAP_ARENA_TOO_LARGE;
	t->m = m;
	t->arena = cfg->arena_addr;
	t->arena_end = end;
	t->ctrl = tags_place(&meta, &left, &start, AGB_TLSF_CTRL_BYTES);
	t->starts = tags_place(&meta, &left, &start, sb);
	t->meta_used = AGB_TLSF_CTRL_BYTES + sb - (start - cfg->arena_addr);
	if (cfg->arena_bytes < 40u || end - 8u < start)
		return AGB_HEAP_ARENA_TOO_SMALL;
	t->first = ((start + 3u) & ~7u) + 4u;
	t->sentinel = ((end - 8u) & ~7u) + 4u;
	if (t->sentinel < t->first + MIN_BLOCK)
		return AGB_HEAP_ARENA_TOO_SMALL;
	for (uint32_t a = 0; a < AGB_TLSF_CTRL_BYTES; a += 4u)
		AGB_ST32(m, t->ctrl + a, 0u);
	for (uint32_t a = 0; a < sb; a += 4u)
		AGB_ST32(m, t->starts + a, 0u);
	t->free_bytes = 0;
	t->free_runs = 0;
	t->free_sq = 0;
	AGB_ST32(m, t->sentinel, 0u); /* size 0, used; make_free sets its PREV_FREE */
	make_free(t, t->first, t->sentinel - t->first);
	return AGB_HEAP_OK;
}

/* Block size needed for a payload of `size` bytes. */
static uint32_t block_size(uint32_t size)
{
	uint32_t need = (size + 4u + 7u) & ~7u;
	return need < MIN_BLOCK ? MIN_BLOCK : need;
}

/* Marks b used with size s, keeping its PREV_FREE bit, and clears the successor's PREV_FREE. */
static void make_used(agb_tlsf *t, uint32_t b, uint32_t s, uint32_t prev_free)
{
	agb_machine *m = t->m;
	AGB_ST32(m, b, s | prev_free);
	AGB_ST32(m, b + s, AGB_LD32(m, b + s) & ~HDR_PREV_FREE);
}

/* First block of the first non-empty list whose every block holds `size`, or AGB_NULL. */
static uint32_t find_block(agb_tlsf *t, uint32_t size)
{
	agb_machine *m = t->m;
	uint32_t fl, sl, slmap, flmap;
	size = round_for_search(m, size);
	mapping(m, size, &fl, &sl);
	if (fl >= AGB_TLSF_FL_COUNT)
		return AGB_NULL;
	slmap = AGB_LD16(m, CTRL_SL(t, fl)) & (~0u << sl);
	if (slmap == 0) {
		AGB_WORK(m, 1);
		flmap = fl + 1u < 32u ? AGB_LD32(m, t->ctrl) & (~0u << (fl + 1u)) : 0u;
		if (flmap == 0)
			return AGB_NULL;
		fl = ffs32(m, flmap);
		slmap = AGB_LD16(m, CTRL_SL(t, fl));
	}
	sl = ffs32(m, slmap);
	return AGB_LD32(m, CTRL_HEAD(t, fl, sl));
}

uint32_t agb_tlsf_alloc(agb_tlsf *t, uint32_t size, uint32_t align, uint32_t *granted)
{
	agb_machine *m = t->m;
	uint32_t need, search, b, s, prev_free;
	if (size == 0)
		size = 1;
	if (align < 8u)
		align = 8u;
	if (size > t->arena_end - t->arena || align > t->arena_end - t->arena)
		return AGB_NULL;
	need = block_size(size);
	search = align > 8u ? need + align + MIN_BLOCK : need;
	b = find_block(t, search);
	if (b == AGB_NULL)
		return AGB_NULL;
	s = AGB_LD32(m, b) & ~HDR_FLAGS;
	list_remove(t, b, s);
	prev_free = 0; /* a listed block's predecessor is used */
	if (align > 8u) {
		uint32_t p = (b + 4u + align - 1u) & ~(align - 1u);
		uint32_t gap = p - 4u - b;
		AGB_WORK(m, 1);
		if (gap != 0 && gap < MIN_BLOCK)
			gap += align;
		if (gap != 0) {
			/* The head before the aligned block goes back as a free block. */
			AGB_ST32(m, b, gap | HDR_FREE);
			AGB_ST32(m, b + gap - 4u, gap);
			list_insert(t, b, gap);
			b += gap;
			s -= gap;
			prev_free = HDR_PREV_FREE;
		}
	}
	/* Keep `need` bytes; a tail big enough to be a block goes back (its successor is used:
	 * b was a listed free block, so fully coalesced). */
	if (s - need >= MIN_BLOCK) {
		AGB_WORK(m, 1);
		AGB_ST32(m, b, need | prev_free);
		make_free(t, b + need, s - need);
		s = need;
	} else {
		make_used(t, b, s, prev_free);
	}
	starts_set(m, t->starts, t->first, b);
	if (granted != NULL)
		*granted = s - 4u;
	return b + 4u;
}

#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

void agb_tlsf_free(agb_tlsf *t, uint32_t addr)
{
	agb_machine *m = t->m;
	uint32_t b, s, h, n, nh, half, rest;
	if (addr == AGB_NULL)
		return;
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("tlsf", "free", t, addr, 4u, );
#endif
	if (!starts_live(m, t->starts, t->first, t->sentinel, addr, &half, &rest))
		return; /* not a used block: refused untouched (agb/tlsf.h) */
	AGB_ST16(m, half, rest);
	b = addr - 4u;
	h = AGB_LD32(m, b);
	s = h & ~HDR_FLAGS;
	n = b + s;
	nh = AGB_LD32(m, n);
	if ((h & HDR_PREV_FREE) != 0) {
		uint32_t ps = AGB_LD32(m, b - 4u);
		AGB_WORK(m, 1);
		b -= ps;
		list_remove(t, b, ps);
		s += ps;
	}
	if ((nh & HDR_FREE) != 0) {
		AGB_WORK(m, 1);
		list_remove(t, n, nh & ~HDR_FLAGS);
		s += nh & ~HDR_FLAGS;
	}
	make_free(t, b, s);
}

uint32_t agb_tlsf_realloc(agb_tlsf *t, uint32_t addr, uint32_t size, uint32_t *granted)
{
	agb_machine *m = t->m;
	uint32_t b, h, s, need, n, nh, half, rest, to;
	if (addr == AGB_NULL)
		return agb_tlsf_alloc(t, size, 8u, granted);
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("tlsf", "realloc", t, addr, 4u, AGB_NULL);
#endif
	if (!starts_live(m, t->starts, t->first, t->sentinel, addr, &half, &rest))
		return AGB_NULL; /* not a used block: refused untouched */
	if (size == 0)
		size = 1;
	if (size > t->arena_end - t->arena)
		return AGB_NULL;
	need = block_size(size);
	b = addr - 4u;
	h = AGB_LD32(m, b);
	s = h & ~HDR_FLAGS;
	n = b + s;
	nh = AGB_LD32(m, n);
	if (need <= s || ((nh & HDR_FREE) != 0 && s + (nh & ~HDR_FLAGS) >= need)) {
		/* In place: absorb a free successor (shrink merges its tail with it too). */
		AGB_WORK(m, 1);
		if ((nh & HDR_FREE) != 0) {
			AGB_WORK(m, 1);
			list_remove(t, n, nh & ~HDR_FLAGS);
			s += nh & ~HDR_FLAGS;
		}
		if (s - need >= MIN_BLOCK) {
			AGB_WORK(m, 1);
			AGB_ST32(m, b, need | (h & HDR_PREV_FREE));
			make_free(t, b + need, s - need);
			s = need;
		} else {
			make_used(t, b, s, h & HDR_PREV_FREE);
		}
		if (granted != NULL)
			*granted = s - 4u;
		return addr;
	}
	to = agb_tlsf_alloc(t, size, 8u, granted);
	if (to == AGB_NULL)
		return AGB_NULL;
	agb_heap_copy_words(m, to, addr, s - 4u);
	agb_tlsf_free(t, addr);
	return to;
}

void agb_tlsf_stats(agb_tlsf *t, struct agb_heap_stats *out)
{
	agb_machine *m = t->m;
	uint32_t flmap = AGB_PEEK32(m, t->ctrl), largest = 0;
	out->free_bytes = t->free_bytes;
	out->free_runs = t->free_runs;
	out->free_sq_sum = t->free_sq;
	if (flmap != 0) {
		uint32_t fl = 31, sl = SL_COUNT - 1u, slmap;
		while ((flmap >> fl) == 0)
			fl--;
		slmap = AGB_PEEK16(m, CTRL_SL(t, fl));
		while ((slmap >> sl) == 0)
			sl--;
		for (uint32_t b = AGB_PEEK32(m, CTRL_HEAD(t, fl, sl)); b != AGB_NULL;
		     b = AGB_PEEK32(m, b + 4u)) {
			uint32_t s = AGB_PEEK32(m, b) & ~HDR_FLAGS;
			if (s - 4u > largest)
				largest = s - 4u;
		}
	}
	out->largest_free = largest;
}

void agb_tlsf_walk(agb_tlsf *t, agb_walk_fn fn, void *ctx)
{
	agb_machine *m = t->m;
	if (t->first > t->arena)
		fn(ctx, t->arena, t->first - t->arena, AGB_RUN_META);
	for (uint32_t b = t->first; b < t->sentinel;) {
		uint32_t h = AGB_PEEK32(m, b), s = h & HDR_SIZE;
		if (s == 0)
			break; /* corrupt: check() reports it */
		fn(ctx, b, s, (h & HDR_FREE) != 0 ? AGB_RUN_FREE : AGB_RUN_USED);
		b += s;
	}
	fn(ctx, t->sentinel, t->arena_end - t->sentinel, AGB_RUN_META);
}

#define FAIL(msg) AGB_CHECK_FAIL(why, msg)

int agb_tlsf_check(agb_tlsf *t, const char **why)
{
	agb_machine *m = t->m;
	uint32_t prev_free = 0, nfree = 0, nused = 0, bytes = 0, listed = 0, flmap;
	uint64_t sq = 0;
	uint32_t b = t->first;
	while (b < t->sentinel) {
		uint32_t h = AGB_PEEK32(m, b), s = h & HDR_SIZE;
		if (s < MIN_BLOCK || (s & 7u) != 0 || s > t->sentinel - b)
			FAIL("tlsf: block size out of range or misaligned");
		if (((h & HDR_PREV_FREE) != 0) != (prev_free != 0))
			FAIL("tlsf: PREV_FREE bit disagrees with the previous block");
		if ((h & ~(HDR_SIZE | HDR_FREE | HDR_PREV_FREE)) != 0)
			FAIL("tlsf: header has bits beyond its size and flags");
		if ((h & HDR_FREE) != 0) {
			uint32_t fl, sl, x;
			if (prev_free)
				FAIL("tlsf: two adjacent free blocks (missed coalescing)");
			if (AGB_PEEK32(m, b + s - 4u) != s)
				FAIL("tlsf: free block footer disagrees with its header");
			/* The block must be on the list of its own class. */
			mapping_obs(s, &fl, &sl);
			for (x = AGB_PEEK32(m, CTRL_HEAD(t, fl, sl)); x != AGB_NULL && x != b;
			     x = AGB_PEEK32(m, x + 4u))
				;
			if (x != b)
				FAIL("tlsf: free block missing from its class list");
			nfree++;
			bytes += s - 4u;
			sq += (uint64_t)(s - 4u) * (s - 4u);
		}
		if (starts_peek(m, t->starts, t->first, b) != ((h & HDR_FREE) == 0))
			FAIL("tlsf: starts bit wrong (a used block's must be set, a free block's clear)");
		nused += (h & HDR_FREE) == 0;
		prev_free = h & HDR_FREE;
		b += s;
	}
	if (b != t->sentinel)
		FAIL("tlsf: block chain does not end at the sentinel");
	if (starts_count(m, t->starts, STARTS_BYTES(t->arena_end - t->arena)) != nused)
		FAIL("tlsf: starts bitmap has a bit where no used block starts");
	if ((AGB_PEEK32(m, b) & ~(uint32_t)HDR_PREV_FREE) != 0)
		FAIL("tlsf: sentinel damaged");
	if (((AGB_PEEK32(m, b) & HDR_PREV_FREE) != 0) != (prev_free != 0))
		FAIL("tlsf: sentinel PREV_FREE bit wrong");
	flmap = AGB_PEEK32(m, t->ctrl);
	if ((flmap >> AGB_TLSF_FL_COUNT) != 0)
		FAIL("tlsf: first-level bitmap has bits beyond the last level");
	for (uint32_t fl = 0; fl < AGB_TLSF_FL_COUNT; fl++) {
		uint32_t slmap = AGB_PEEK16(m, CTRL_SL(t, fl));
		if (((flmap >> fl) & 1u) != (slmap != 0))
			FAIL("tlsf: first-level bit disagrees with its second-level bitmap");
		for (uint32_t sl = 0; sl < SL_COUNT; sl++) {
			uint32_t x = AGB_PEEK32(m, CTRL_HEAD(t, fl, sl)), p = AGB_NULL;
			if (((slmap >> sl) & 1u) != (x != AGB_NULL))
				FAIL("tlsf: second-level bit disagrees with its list");
			for (; x != AGB_NULL; p = x, x = AGB_PEEK32(m, x + 4u)) {
				uint32_t h, xfl, xsl;
				if (x < t->first || x >= t->sentinel || (x & 7u) != 4u)
					FAIL("tlsf: free-list link outside the pool");
				h = AGB_PEEK32(m, x);
				if ((h & HDR_FREE) == 0)
					FAIL("tlsf: used block on a free list");
				mapping_obs(h & ~HDR_FLAGS, &xfl, &xsl);
				if (xfl != fl || xsl != sl)
					FAIL("tlsf: free block on the wrong class list");
				if (AGB_PEEK32(m, x + 8u) != p)
					FAIL("tlsf: free-list prev link broken");
				if (++listed > nfree)
					FAIL("tlsf: free lists hold more blocks than the pool (cycle?)");
			}
		}
	}
	if (listed != nfree)
		FAIL("tlsf: free lists and free blocks differ in number");
	if (nfree != t->free_runs || bytes != t->free_bytes || sq != t->free_sq)
		FAIL("tlsf: observation counters disagree with the pool");
	return 0;
}

uint32_t agb_tlsf_overhead_bytes(const agb_tlsf *t)
{
	return t->meta_used + (t->first - t->arena) + (t->arena_end - t->sentinel);
}

AGB_HEAP_CORE_ADAPTERS(tlsf)

const struct agb_heap_core agb_tlsf_core = {
	.name = "tlsf",
	.summary = "two-level segregated fit, O(1): 13x16 size classes, boundary tags, 4 B/block",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM) | AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = 8,
	.state_bytes = sizeof(agb_tlsf),
	AGB_HEAP_CORE_MEMBERS,
	/* Rough: TLSF's mapping and list work is ~40-60 Thumb instructions per call, ~2 cycles of
	 * instruction work per access on top of the bus. Fitted against mGBA later. */
	.model = {.alloc_base = 90, .free_base = 70, .realloc_base = 110, .per_access = 32},
};
