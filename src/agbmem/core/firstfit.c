/* `firstfit` core: address-ordered first fit. See include/agb/firstfit.h. */
#include "agb/firstfit.h"

#include "common/tags.h"

#define NEXT(b) ((b) + 4u)
#define PREV(b) ((b) + 8u)

/* AGB_WORK (docs/design.md, "Cycle figures"), weighted: every data-dependent arm declares the
 * non-memory Thumb instructions it executes per pass, one unit per instruction (the counts
 * are scripts/profile-gba's on traces/calib/ewram-mixed.json with the source lines of an -g
 * build of the same flags): count_add 36 and count_sub 40 (the 64-bit square), alloc's gap
 * computation for each candidate of an aligned request 16, the gap kept free 18, its unlink 3,
 * carve's split 19 and its whole-block arm 4; free's arms: merge below 6,
 * above too 7, above alone 9, neither (the list place's link) 8; realloc's: the free
 * successor taken 7, a new tail's list place 5; a list end set by a link or an unlink 3 (an
 * out-of-line arm), the move 117 (its own 9, and the fixed parts
 * of the alloc and free it calls: 57 and 51, which those ops leave to their rows' base); the
 * list walks' steps (alloc's search 5, 8 for an aligned request; free's search for the list
 * place 6, realloc's 5: W_STEP below). The fixed parts of each op (every call) are its row's
 * base. The realloc copy is nothing but counted loads and stores: its accesses count it. */
#define W_COUNT_ADD 36u
#define W_COUNT_SUB 40u
/* A list walk's step (the GBA build's loops, arm-none-eabi-objdump -d of the bench ROM): alloc's
 * candidate too small 5 (bics, cmp, the branch over, cmp, the branch back) or 8 in the aligned
 * loop (a move and a jump more each side); free's search for the list place 6 (two moves, two
 * compares, two branches); realloc's 5. */
#define W_STEP 5u
#define W_STEP_ALIGNED 8u
#define W_STEP_FREE 6u
/* x * x as 64 bits from three 32-bit multiplies of the 16-bit halves: Thumb has no UMULL, and
 * GCC's 64-bit multiply is a library call (__muldi3) that took a quarter of this core's GBA
 * cycles. */
static inline uint64_t square64(uint32_t x)
{
	uint32_t hi = x >> 16, lo = x & 0xFFFFu;
	return ((uint64_t)(hi * hi) << 32) + ((uint64_t)(2u * hi * lo) << 16) + (uint64_t)(lo * lo);
}

static void count_add(agb_firstfit *f, uint32_t s)
{
	AGB_WORK(f->m, W_COUNT_ADD);
	f->free_bytes += s - 4u;
	f->free_runs++;
	f->free_sq += square64(s - 4u);
	if (f->largest_valid && s - 4u > f->largest)
		f->largest = s - 4u;
}

static void count_sub(agb_firstfit *f, uint32_t s)
{
	AGB_WORK(f->m, W_COUNT_SUB);
	f->free_bytes -= s - 4u;
	f->free_runs--;
	f->free_sq -= square64(s - 4u);
	if (s - 4u >= f->largest)
		f->largest_valid = 0;
}

/* The list's head or tail becomes b: an arm the compiler puts out of line (3: the branch
 * there and back and the state's store, which the bus does not see). */
static inline void list_end(agb_firstfit *f, uint32_t *end, uint32_t b)
{
	AGB_WORK(f->m, 3u);
	*end = b;
}

/* Links b into the list between p and n (either may be AGB_NULL). */
static void link_between(agb_firstfit *f, uint32_t b, uint32_t p, uint32_t n)
{
	agb_machine *m = f->m;
	AGB_ST32(m, NEXT(b), n);
	AGB_ST32(m, PREV(b), p);
	if (p != AGB_NULL)
		AGB_ST32(m, NEXT(p), b);
	else
		list_end(f, &f->head, b);
	if (n != AGB_NULL)
		AGB_ST32(m, PREV(n), b);
	else
		list_end(f, &f->tail, b);
}

static void unlink_block(agb_firstfit *f, uint32_t b)
{
	agb_machine *m = f->m;
	uint32_t n = AGB_LD32(m, NEXT(b)), p = AGB_LD32(m, PREV(b));
	if (p != AGB_NULL)
		AGB_ST32(m, NEXT(p), n);
	else
		list_end(f, &f->head, n);
	if (n != AGB_NULL)
		AGB_ST32(m, PREV(n), p);
	else
		list_end(f, &f->tail, p);
}

/* Header, footer and the successor's PREV_FREE bit of a free block (not its links). */
static void tag_free(agb_firstfit *f, uint32_t b, uint32_t s)
{
	agb_machine *m = f->m;
	AGB_ST32(m, b, s | HDR_FREE);
	AGB_ST32(m, b + s - 4u, s);
	AGB_ST32(m, b + s, AGB_LD32(m, b + s) | HDR_PREV_FREE);
}

int agb_firstfit_init(agb_firstfit *f, agb_machine *m, const struct agb_heap_config *cfg)
{
	uint32_t start = cfg->arena_addr, end = cfg->arena_addr + cfg->arena_bytes;
	uint32_t meta = (cfg->meta_addr & 3u) == 0 ? cfg->meta_addr : AGB_NULL, left = cfg->meta_bytes;
	uint32_t sb = STARTS_BYTES(cfg->arena_bytes);
	if ((cfg->arena_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (cfg->arena_bytes >= TAGS_MAX_ARENA)
		return AGB_HEAP_ARENA_TOO_LARGE; /* the header's size bits */
	if (cfg->arena_bytes < 40u)
		return AGB_HEAP_ARENA_TOO_SMALL;
	f->m = m;
	f->arena = cfg->arena_addr;
	f->arena_end = end;
	f->starts = tags_place(&meta, &left, &start, sb);
	f->meta_used = sb - (start - cfg->arena_addr);
	f->first = ((start + 3u) & ~7u) + 4u;
	f->sentinel = ((end - 8u) & ~7u) + 4u;
	if (f->sentinel < f->first + MIN_BLOCK)
		return AGB_HEAP_ARENA_TOO_SMALL;
	for (uint32_t a = 0; a < sb; a += 4u)
		AGB_ST32(m, f->starts + a, 0u);
	f->head = f->tail = AGB_NULL;
	f->free_bytes = f->free_runs = 0;
	f->free_sq = 0;
	f->largest = 0;
	f->largest_valid = 1;
	AGB_ST32(m, f->sentinel, 0u);
	tag_free(f, f->first, f->sentinel - f->first);
	link_between(f, f->first, AGB_NULL, AGB_NULL);
	count_add(f, f->sentinel - f->first);
	return AGB_HEAP_OK;
}

static uint32_t block_size(uint32_t size)
{
	uint32_t need = (size + 4u + 7u) & ~7u;
	return need < MIN_BLOCK ? MIN_BLOCK : need;
}

/* Turns the first `need` bytes of used block b (size s, unlinked) into the allocation; a large
 * enough tail becomes a free block linked between p and n. Returns b's final size. */
static uint32_t carve(agb_firstfit *f, uint32_t b, uint32_t s, uint32_t need, uint32_t prev_free,
		      uint32_t p, uint32_t n)
{
	agb_machine *m = f->m;
	if (s - need >= MIN_BLOCK) {
		AGB_WORK(m, 19u);
		AGB_ST32(m, b, need | prev_free);
		tag_free(f, b + need, s - need);
		link_between(f, b + need, p, n);
		count_add(f, s - need);
		return need;
	}
	AGB_WORK(m, 4u);
	AGB_ST32(m, b, s | prev_free);
	AGB_ST32(m, b + s, AGB_LD32(m, b + s) & ~HDR_PREV_FREE);
	return s;
}

uint32_t agb_firstfit_alloc(agb_firstfit *f, uint32_t size, uint32_t align, uint32_t *granted)
{
	agb_machine *m = f->m;
	uint32_t need, b;
	if (size == 0)
		size = 1;
	if (align < 8u)
		align = 8u;
	if (size > f->arena_end - f->arena || align > f->arena_end - f->arena)
		return AGB_NULL;
	need = block_size(size);
	for (b = f->head; b != AGB_NULL; b = AGB_LD32(m, NEXT(b))) {
		uint32_t s = AGB_LD32(m, b) & ~HDR_FLAGS;
		uint32_t gap = 0, p, n, prev_free = 0;
		/* A candidate too small: its step's non-memory instructions (the compiler unswitches
		 * the loop on the alignment: 5 in the plain loop, 8 in the aligned one). */
		if (s < need) {
			AGB_WORK(m, align > 8u ? W_STEP_ALIGNED : W_STEP);
			continue;
		}
		if (align > 8u) {
			/* A candidate of an aligned request: its gap (16). */
			AGB_WORK(m, 16u);
			gap = ((b + 4u + align - 1u) & ~(align - 1u)) - 4u - b;
			if (gap != 0 && gap < MIN_BLOCK)
				gap += align;
			if (gap > s || s - gap < need)
				continue;
		}
		p = AGB_LD32(m, PREV(b));
		n = AGB_LD32(m, NEXT(b));
		count_sub(f, s);
		if (gap != 0) {
			/* The head stays free in b's list position; the allocation follows it. */
			AGB_WORK(m, 18u);
			tag_free(f, b, gap);
			count_add(f, gap);
			p = b;
			b += gap;
			s -= gap;
			prev_free = HDR_PREV_FREE;
		} else {
			AGB_WORK(m, 3u);
			unlink_block(f, b);
		}
		s = carve(f, b, s, need, prev_free, p, n);
		starts_set(m, f->starts, f->first, b);
		if (granted != NULL)
			*granted = s - 4u;
		return b + 4u;
	}
	return AGB_NULL;
}

#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

void agb_firstfit_free(agb_firstfit *f, uint32_t addr)
{
	agb_machine *m = f->m;
	uint32_t b, h, s, n, nh, half, rest;
	if (addr == AGB_NULL)
		return;
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("firstfit", "free", f, addr, 4u, );
#endif
	if (!starts_live(m, f->starts, f->first, f->sentinel, addr, &half, &rest))
		return; /* not a used block: refused untouched (agb/firstfit.h) */
	AGB_ST16(m, half, rest);
	b = addr - 4u;
	h = AGB_LD32(m, b);
	s = h & ~HDR_FLAGS;
	n = b + s;
	nh = AGB_LD32(m, n);
	if ((h & HDR_PREV_FREE) != 0) {
		/* Grow the free predecessor: it keeps its list position. */
		uint32_t ps = AGB_LD32(m, b - 4u);
		AGB_WORK(m, 6u);
		b -= ps;
		count_sub(f, ps);
		s += ps;
		if ((nh & HDR_FREE) != 0) {
			AGB_WORK(m, 7u);
			unlink_block(f, n);
			count_sub(f, nh & ~HDR_FLAGS);
			s += nh & ~HDR_FLAGS;
		}
	} else if ((nh & HDR_FREE) != 0) {
		/* Take the free successor's list position. */
		uint32_t p = AGB_LD32(m, PREV(n)), nn = AGB_LD32(m, NEXT(n));
		AGB_WORK(m, 9u);
		count_sub(f, nh & ~HDR_FLAGS);
		s += nh & ~HDR_FLAGS;
		link_between(f, b, p, nn);
	} else {
		/* No free neighbour: find the first free block above b. */
		uint32_t p = AGB_NULL, x = f->head;
		AGB_WORK(m, 8u);
		while (x != AGB_NULL && x < b) {
			AGB_WORK(m, W_STEP_FREE);
			p = x;
			x = AGB_LD32(m, NEXT(x));
		}
		link_between(f, b, p, x);
	}
	tag_free(f, b, s);
	count_add(f, s);
}

uint32_t agb_firstfit_realloc(agb_firstfit *f, uint32_t addr, uint32_t size, uint32_t *granted)
{
	agb_machine *m = f->m;
	uint32_t b, h, s, need, n, nh, half, rest, to;
	if (addr == AGB_NULL)
		return agb_firstfit_alloc(f, size, 8u, granted);
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("firstfit", "realloc", f, addr, 4u, AGB_NULL);
#endif
	if (!starts_live(m, f->starts, f->first, f->sentinel, addr, &half, &rest))
		return AGB_NULL; /* not a used block: refused untouched */
	if (size == 0)
		size = 1;
	if (size > f->arena_end - f->arena)
		return AGB_NULL;
	need = block_size(size);
	b = addr - 4u;
	h = AGB_LD32(m, b);
	s = h & ~HDR_FLAGS;
	n = b + s;
	nh = AGB_LD32(m, n);
	if (need <= s || ((nh & HDR_FREE) != 0 && s + (nh & ~HDR_FLAGS) >= need)) {
		uint32_t p = AGB_NULL, nn = AGB_NULL;
		if ((nh & HDR_FREE) != 0) {
			p = AGB_LD32(m, PREV(n));
			nn = AGB_LD32(m, NEXT(n));
			AGB_WORK(m, 7u);
			unlink_block(f, n);
			count_sub(f, nh & ~HDR_FLAGS);
			s += nh & ~HDR_FLAGS;
		} else if (s - need >= MIN_BLOCK) {
			/* A new free tail with used neighbours: find its list place. */
			AGB_WORK(m, 5u);
			nn = f->head;
			while (nn != AGB_NULL && nn < b) {
				AGB_WORK(m, W_STEP);
				p = nn;
				nn = AGB_LD32(m, NEXT(nn));
			}
		}
		s = carve(f, b, s, need, h & HDR_PREV_FREE, p, nn);
		if (granted != NULL)
			*granted = s - 4u;
		return addr;
	}
	/* The move (9), and the fixed parts of the alloc (57) and the free (51) it calls. */
	AGB_WORK(m, 9u + 57u);
	to = agb_firstfit_alloc(f, size, 8u, granted);
	if (to == AGB_NULL)
		return AGB_NULL;
	AGB_WORK(m, 51u);
	for (uint32_t i = 0; i < s - 4u; i += 4u)
		AGB_ST32(m, to + i, AGB_LD32(m, addr + i));
	agb_firstfit_free(f, addr);
	return to;
}

void agb_firstfit_stats(agb_firstfit *f, struct agb_heap_stats *out)
{
	if (!f->largest_valid) {
		uint32_t l = 0;
		for (uint32_t b = f->head; b != AGB_NULL; b = AGB_PEEK32(f->m, NEXT(b))) {
			uint32_t s = AGB_PEEK32(f->m, b) & ~HDR_FLAGS;
			if (s - 4u > l)
				l = s - 4u;
		}
		f->largest = l;
		f->largest_valid = 1;
	}
	out->free_bytes = f->free_bytes;
	out->free_runs = f->free_runs;
	out->free_sq_sum = f->free_sq;
	out->largest_free = f->free_runs != 0 ? f->largest : 0;
}

void agb_firstfit_walk(agb_firstfit *f, agb_walk_fn fn, void *ctx)
{
	if (f->first > f->arena)
		fn(ctx, f->arena, f->first - f->arena, AGB_RUN_META);
	for (uint32_t b = f->first; b < f->sentinel;) {
		uint32_t h = AGB_PEEK32(f->m, b), s = h & HDR_SIZE;
		if (s == 0)
			break;
		fn(ctx, b, s, (h & HDR_FREE) != 0 ? AGB_RUN_FREE : AGB_RUN_USED);
		b += s;
	}
	fn(ctx, f->sentinel, f->arena_end - f->sentinel, AGB_RUN_META);
}

#define FAIL(msg) AGB_CHECK_FAIL(why, msg)

int agb_firstfit_check(agb_firstfit *f, const char **why)
{
	agb_machine *m = f->m;
	uint32_t prev_free = 0, nfree = 0, nused = 0, bytes = 0, b = f->first;
	uint32_t x = f->head, p = AGB_NULL;
	uint64_t sq = 0;
	/* Walk blocks and the list together: the list must visit exactly the free blocks, in
	 * address order. */
	while (b < f->sentinel) {
		uint32_t h = AGB_PEEK32(m, b), s = h & HDR_SIZE;
		if (s < MIN_BLOCK || (s & 7u) != 0 || s > f->sentinel - b)
			FAIL("firstfit: block size out of range or misaligned");
		if (((h & HDR_PREV_FREE) != 0) != (prev_free != 0))
			FAIL("firstfit: PREV_FREE bit disagrees with the previous block");
		if ((h & ~(HDR_SIZE | HDR_FREE | HDR_PREV_FREE)) != 0)
			FAIL("firstfit: header has bits beyond its size and flags");
		if ((h & HDR_FREE) != 0) {
			if (prev_free)
				FAIL("firstfit: two adjacent free blocks (missed coalescing)");
			if (AGB_PEEK32(m, b + s - 4u) != s)
				FAIL("firstfit: footer disagrees with header");
			if (x != b)
				FAIL("firstfit: free list not the free blocks in address order");
			if (AGB_PEEK32(m, PREV(b)) != p)
				FAIL("firstfit: prev link broken");
			p = x;
			x = AGB_PEEK32(m, NEXT(b));
			nfree++;
			bytes += s - 4u;
			sq += (uint64_t)(s - 4u) * (s - 4u);
		}
		if (starts_peek(m, f->starts, f->first, b) != ((h & HDR_FREE) == 0))
			FAIL("firstfit: starts bit wrong (a used block's must be set, a free block's clear)");
		nused += (h & HDR_FREE) == 0;
		prev_free = h & HDR_FREE;
		b += s;
	}
	if (b != f->sentinel || (AGB_PEEK32(m, b) & ~(uint32_t)HDR_PREV_FREE) != 0)
		FAIL("firstfit: block chain does not end at an intact sentinel");
	if (starts_count(m, f->starts, STARTS_BYTES(f->arena_end - f->arena)) != nused)
		FAIL("firstfit: starts bitmap has a bit where no used block starts");
	if (((AGB_PEEK32(m, b) & HDR_PREV_FREE) != 0) != (prev_free != 0))
		FAIL("firstfit: sentinel PREV_FREE bit wrong");
	if (x != AGB_NULL || f->tail != p)
		FAIL("firstfit: free list has extra blocks or a wrong tail");
	if (nfree != f->free_runs || bytes != f->free_bytes || sq != f->free_sq)
		FAIL("firstfit: observation counters disagree with the pool");
	return 0;
}

uint32_t agb_firstfit_overhead_bytes(const agb_firstfit *f)
{
	return f->meta_used + (f->first - f->arena) + (f->arena_end - f->sentinel);
}

AGB_HEAP_CORE_ADAPTERS(firstfit)

const struct agb_heap_core agb_firstfit_core = {
	.name = "firstfit",
	.summary = "address-ordered first fit, boundary tags, immediate coalescing (baseline)",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM) | AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = 8,
	.state_bytes = sizeof(agb_firstfit),
	AGB_HEAP_CORE_MEMBERS,
	/* Rough: the list walk is ~6 instructions per visited block besides its two loads. */
	.model = {.alloc_base = 40, .free_base = 40, .realloc_base = 60, .per_access = 40},
};
