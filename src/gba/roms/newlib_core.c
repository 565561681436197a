/* newlib_core.c — the reference allocator a GBA game links today: the toolchain newlib's
 * malloc/free/realloc/memalign, linked as shipped (Thumb, from ROM) into the bench ROM
 * agbsim-bench-newlib.gba (full libc.a: Doug Lea's malloc 2.6.4 as newlib ships it), or with
 * AGB_NEWLIB_NANO into agbsim-bench-newlib-nano.gba (libc_nano.a: newlib-nano's first-fit list).
 *
 * It is a struct agb_heap_core so the bench's replay engine drives it like any core, but it is
 * not in the host registry (src/agbmem/registry.c): it runs only on the GBA, and the host cannot
 * check its decisions (src/gba/README.md, "The newlib reference").
 *
 * The arena reaches malloc through _sbrk below: init() hands it the trace's pool, _sbrk gives it
 * out from the bottom up and refuses ((void *)-1) what would cross the pool's end. The highest
 * break seen is the allocator's peak footprint (agb_newlib_heap_peak). newlib's state is global
 * (.data/.bss in IWRAM) and cannot be reset: init() works once per ROM run.
 *
 * What the table reports, and what it cannot know:
 *  - alloc/realloc: *granted = malloc_usable_size() of the block;
 *  - walk/stats: the chunks, read from the heap itself (each chunk starts with its size word);
 *    full newlib: a chunk is in use when the next chunk's PREV_INUSE bit says so, the last chunk
 *    is the free "top"; nano: a chunk is free when it is on newlib-nano's free list. The pool
 *    above the break is free (the top chunk can grow into it). Used runs are whole chunks,
 *    header included: the 4- or 8-byte headers are not told apart as metadata;
 *  - overhead_bytes: the chunk headers of blocks in use plus the unused bytes below the first
 *    chunk; newlib's bin table in IWRAM .data (full newlib: 1 KiB) is not counted;
 *  - check: that the chunk sizes tile the heap exactly up to the break; nothing deeper. */
#include <stddef.h>
#include <stdint.h>

#include "agb/heap.h"
#include "agb/regions.h"

void *malloc(size_t size);
void free(void *p);
void *realloc(void *p, size_t size);
void *memalign(size_t align, size_t size);
size_t malloc_usable_size(void *p);
void *_sbrk(ptrdiff_t incr);
uint32_t agb_newlib_heap_peak(void);

static uint32_t heap_base, heap_brk, heap_limit, heap_peak;
static int heap_ready;

/* newlib's memory source. Returns the old break, or (void *)-1 when the request would leave the
 * pool (or before init). O(1). */
void *_sbrk(ptrdiff_t incr)
{
	uint32_t old = heap_brk;
	if (!heap_ready)
		return (void *)-1;
	if (incr >= 0 ? (uint32_t)incr > heap_limit - heap_brk : (uint32_t)-incr > heap_brk - heap_base)
		return (void *)-1;
	heap_brk += (uint32_t)incr;
	if (heap_brk > heap_peak)
		heap_peak = heap_brk;
	return (void *)(uintptr_t)old;
}

/* Bytes from the pool's start to the highest break _sbrk ever granted: the allocator's peak
 * footprint in the pool, and the smallest pool that serves this run the same way. O(1). */
uint32_t agb_newlib_heap_peak(void)
{
	return heap_peak - heap_base;
}

static uint32_t rd32(uint32_t addr)
{
	return *(const volatile uint32_t *)(uintptr_t)addr;
}

/* ---- the chunk walk -------------------------------------------------------------------------- */
#ifdef AGB_NEWLIB_NANO
/* newlib-nano: chunk = {long size (header included); next}, the block at chunk + 8; the free list
 * is kept in address order. */
extern void *__malloc_free_list;
#define CHUNK_SIZE_OFFSET 0u
#define CHUNK_HEADER_BYTES 8u
#else
/* newlib (dlmalloc 2.6.4): chunk = {prev_size, size | PREV_INUSE}, the block at chunk + 8. */
#define CHUNK_SIZE_OFFSET 4u
#define CHUNK_HEADER_BYTES 4u /* prev_size belongs to the previous block while it is in use */
#endif

struct walk_ctx {
	agb_walk_fn fn;
	void *ctx;
	uint32_t used_chunks;
	int broken;
};

/* The first chunk: newlib puts it where the block after its 8-byte header is 8-aligned. */
static uint32_t first_chunk(void)
{
	return ((heap_base + 8u + 7u) & ~7u) - 8u;
}

static int chunk_free(uint32_t p, uint32_t next, uint32_t *free_cursor)
{
#ifdef AGB_NEWLIB_NANO
	(void)next;
	while (*free_cursor != 0 && *free_cursor < p)
		*free_cursor = rd32(*free_cursor + 4u);
	return *free_cursor == p;
#else
	(void)p;
	(void)free_cursor;
	return next >= heap_brk || (rd32(next + CHUNK_SIZE_OFFSET) & 1u) == 0;
#endif
}

/* Every run from the pool's start to its end, in address order; adjacent free runs merged. */
static void heap_walk(struct walk_ctx *w)
{
	uint32_t p = first_chunk(), free_run = 0, free_at = 0, free_cursor = 0;
#ifdef AGB_NEWLIB_NANO
	free_cursor = (uint32_t)(uintptr_t)__malloc_free_list;
#endif
	if (p > heap_base && heap_brk > heap_base)
		w->fn(w->ctx, heap_base, p - heap_base, AGB_RUN_META);
	else
		p = heap_base;
	while (p < heap_brk) {
		uint32_t size = rd32(p + CHUNK_SIZE_OFFSET) & ~3u, next = p + size;
		if (size < 8u || next > heap_brk || next < p) {
			w->broken = 1; /* not a chunk: report the rest as used, say so in check() */
			size = heap_brk - p;
			next = heap_brk;
		}
		if (!w->broken && chunk_free(p, next, &free_cursor)) {
			if (free_run == 0)
				free_at = p;
			free_run += size;
		} else {
			if (free_run != 0)
				w->fn(w->ctx, free_at, free_run, AGB_RUN_FREE);
			free_run = 0;
			w->fn(w->ctx, p, size, AGB_RUN_USED);
			w->used_chunks++;
		}
		p = next;
	}
	if (free_run == 0)
		free_at = heap_brk;
	free_run += heap_limit - heap_brk;
	if (free_run != 0)
		w->fn(w->ctx, free_at, free_run, AGB_RUN_FREE);
}

static void count_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct agb_heap_stats *s = ctx;
	(void)addr;
	if (kind != AGB_RUN_FREE)
		return;
	s->free_bytes += bytes;
	s->free_runs++;
	s->free_sq_sum += (uint64_t)bytes * bytes;
	if (bytes > s->largest_free)
		s->largest_free = bytes;
}

static void no_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	(void)ctx;
	(void)addr;
	(void)bytes;
	(void)kind;
}

/* ---- the core table -------------------------------------------------------------------------- */
/* Hands the pool to _sbrk. Once per ROM run (newlib cannot be reset): a second call fails. */
static int core_init(void *st, agb_machine *m, const struct agb_heap_config *cfg)
{
	(void)st;
	(void)m;
	if (heap_ready)
		return AGB_HEAP_ARENA_TOO_LARGE;
	if ((cfg->arena_addr & 7u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	heap_base = heap_brk = heap_peak = cfg->arena_addr;
	heap_limit = cfg->arena_addr + cfg->arena_bytes;
	heap_ready = 1;
	return AGB_HEAP_OK;
}

/* The usable bytes of live block p, what malloc_usable_size returns, read straight from the
 * chunk header: the library call takes newlib's malloc lock and would add its own cost to every
 * timed alloc, which a game calling malloc never pays. dlmalloc: chunk size minus the size word
 * (no mmap on the GBA). nano keeps the library call: it takes no lock, and its padding rule for
 * aligned blocks is its own. */
static uint32_t usable_bytes(void *p)
{
#ifdef AGB_NEWLIB_NANO
	return (uint32_t)malloc_usable_size(p);
#else
	return (rd32((uint32_t)(uintptr_t)p - 4u) & ~3u) - 4u;
#endif
}

/* malloc, or memalign above malloc's own 8-byte alignment. */
static uint32_t core_alloc(void *st, uint32_t size, uint32_t align, uint32_t *granted)
{
	void *p = align > 8u ? memalign(align, size) : malloc(size);
	(void)st;
	if (p == NULL)
		return AGB_NULL;
	*granted = usable_bytes(p);
	return (uint32_t)(uintptr_t)p;
}

static void core_free(void *st, uint32_t addr)
{
	(void)st;
	free((void *)(uintptr_t)addr);
}

static uint32_t core_realloc(void *st, uint32_t addr, uint32_t size, uint32_t *granted)
{
	void *p = realloc((void *)(uintptr_t)addr, size);
	(void)st;
	if (p == NULL)
		return AGB_NULL;
	*granted = usable_bytes(p);
	return (uint32_t)(uintptr_t)p;
}

static void core_stats(void *st, struct agb_heap_stats *out)
{
	struct walk_ctx w = {count_run, out, 0, 0};
	(void)st;
	*out = (struct agb_heap_stats){0};
	heap_walk(&w);
}

static void core_walk(void *st, agb_walk_fn fn, void *ctx)
{
	struct walk_ctx w = {fn, ctx, 0, 0};
	(void)st;
	heap_walk(&w);
}

static int core_check(void *st, const char **why)
{
	struct walk_ctx w = {no_run, NULL, 0, 0};
	(void)st;
	heap_walk(&w);
	if (w.broken) {
		*why = "newlib: the chunk sizes do not tile the heap up to the break";
		return 1;
	}
	return 0;
}

static uint32_t core_overhead_bytes(void *st)
{
	struct walk_ctx w = {no_run, NULL, 0, 0};
	(void)st;
	heap_walk(&w);
	return w.used_chunks * CHUNK_HEADER_BYTES + (first_chunk() - heap_base);
}

const struct agb_heap_core agb_newlib_core = {
#ifdef AGB_NEWLIB_NANO
	.name = "newlib-nano",
	.summary = "newlib-nano's malloc as linked (GBA only, reference)",
#else
	.name = "newlib",
	.summary = "newlib's malloc (dlmalloc 2.6.4) as linked (GBA only, reference)",
#endif
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM),
	.unit = 8,
	.state_bytes = 4,
	.init = core_init,
	.alloc = core_alloc,
	.free = core_free,
	.realloc = core_realloc,
	.stats = core_stats,
	.walk = core_walk,
	.check = core_check,
	.overhead_bytes = core_overhead_bytes,
};
