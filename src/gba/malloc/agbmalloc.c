/* agbmalloc.c — the drop-in heap: C's and newlib's allocator entry points over one `firstfit`
 * heap. Contract in include/agb/malloc.h; the choice of core in docs/using-agbmem.md.
 *
 * One object file on purpose: every entry point comes in with the first one a program uses, so
 * newlib's allocator is never pulled in for one the program did not name (libagbmalloc.a is a
 * linker script that forces them in and fails the link if newlib's malloc is linked too). */
#include <errno.h>
#include <reent.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agb/firstfit.h"
#include "agb/malloc.h"

/* The free EWRAM, from agbmem's gba.ld. */
extern uint8_t __ewram_free_start[];
extern uint8_t __agb_ewram_end[];

#define MAX_POOL (256u * 1024u)
/* firstfit's block format (include/agb/firstfit.h): the header word before the payload holds
 * the block size (header included) in these bits. */
#define BLOCK_SIZE_BITS 0x0007FFF8u
#define MIN_ALIGN 8u

static agb_firstfit heap;
static int ready;
static uint32_t used_bytes, live_blocks, refused_frees, pool_bytes;
/* Global and kept through LTO and --gc-sections: agbsim budget reads it from the game's RAM. */
__attribute__((used, externally_visible)) uint32_t agb_malloc_peak_used;
static agb_malloc_oom_fn oom_hook;
static uint32_t meta_iwram[AGB_FIRSTFIT_META_BYTES(MAX_POOL) / 4u];

__attribute__((weak)) uint32_t agb_malloc_pool_bytes(void)
{
	return 0;
}

__attribute__((weak)) void *agb_malloc_meta_area(uint32_t *bytes)
{
	*bytes = (uint32_t)sizeof meta_iwram;
	return meta_iwram;
}

static int heap_init(void)
{
	uint32_t start = ((uint32_t)(uintptr_t)__ewram_free_start + 7u) & ~7u;
	uint32_t end = (uint32_t)(uintptr_t)__agb_ewram_end;
	uint32_t want = agb_malloc_pool_bytes();
	if (start >= end)
		return 0;
	if (want != 0 && want < end - start)
		end = start + (want & ~3u);
	uint32_t meta_bytes = 0;
	void *meta = agb_malloc_meta_area(&meta_bytes);
	struct agb_heap_config cfg = { .arena_addr = start,
				       .arena_bytes = end - start,
				       .meta_addr = (uint32_t)(uintptr_t)meta,
				       .meta_bytes = meta ? meta_bytes : 0u,
				       .flags = 0 };
	if (agb_firstfit_init(&heap, NULL, &cfg) != AGB_HEAP_OK)
		return 0;
	pool_bytes = end - start;
	ready = 1;
	return 1;
}

static uint32_t block_usable(uint32_t addr)
{
	return (*(const volatile uint32_t *)(uintptr_t)(addr - 4u) & BLOCK_SIZE_BITS) - 4u;
}

void agb_malloc_stats(struct agb_malloc_stats *s)
{
	if (!ready && !heap_init()) {
		memset(s, 0, sizeof *s);
		return;
	}
	struct agb_heap_stats hs;
	agb_firstfit_stats(&heap, &hs);
	s->pool_bytes = pool_bytes;
	s->used_bytes = used_bytes;
	s->free_bytes = hs.free_bytes;
	s->largest_free = hs.largest_free;
	s->peak_used = agb_malloc_peak_used;
	s->live_blocks = live_blocks;
	s->refused_frees = refused_frees;
}

agb_malloc_oom_fn agb_malloc_set_oom_hook(agb_malloc_oom_fn fn)
{
	agb_malloc_oom_fn old = oom_hook;
	oom_hook = fn;
	return old;
}

static void out_of_memory(struct _reent *r, size_t n, size_t align)
{
	if (oom_hook != NULL) {
		struct agb_malloc_stats s;
		agb_malloc_stats(&s);
		oom_hook(n, align, &s);
	}
	r->_errno = ENOMEM;
}

static void count_alloc(uint32_t granted)
{
	used_bytes += granted;
	live_blocks++;
	if (used_bytes > agb_malloc_peak_used)
		agb_malloc_peak_used = used_bytes;
}

static void *alloc_aligned(struct _reent *r, size_t n, size_t align)
{
	uint32_t got = 0, addr = AGB_NULL;
	if (align < MIN_ALIGN)
		align = MIN_ALIGN;
	if ((ready || heap_init()) && n <= MAX_POOL)
		addr = agb_firstfit_alloc(&heap, (uint32_t)n, (uint32_t)align, &got);
	if (addr == AGB_NULL) {
		out_of_memory(r, n, align);
		return NULL;
	}
	count_alloc(got);
	return (void *)(uintptr_t)addr;
}

void *_malloc_r(struct _reent *r, size_t n)
{
	return alloc_aligned(r, n, MIN_ALIGN);
}

void _free_r(struct _reent *r, void *p)
{
	(void)r;
	if (p == NULL || !ready)
		return;
	uint32_t addr = (uint32_t)(uintptr_t)p;
	uint32_t before = heap.free_bytes;
	uint32_t usable = block_usable(addr);
	agb_firstfit_free(&heap, addr);
	if (heap.free_bytes == before) { /* refused: not a live block */
		refused_frees++;
		return;
	}
	used_bytes -= usable;
	live_blocks--;
}

void *_realloc_r(struct _reent *r, void *p, size_t n)
{
	if (p == NULL)
		return _malloc_r(r, n);
	if (n == 0) { /* as newlib's: frees, returns NULL */
		_free_r(r, p);
		return NULL;
	}
	if (!ready || n > MAX_POOL) {
		out_of_memory(r, n, MIN_ALIGN);
		return NULL;
	}
	uint32_t addr = (uint32_t)(uintptr_t)p, got = 0;
	uint32_t old = block_usable(addr);
	uint32_t to = agb_firstfit_realloc(&heap, addr, (uint32_t)n, &got);
	if (to == AGB_NULL) {
		out_of_memory(r, n, MIN_ALIGN);
		return NULL;
	}
	used_bytes = used_bytes - old + got;
	if (used_bytes > agb_malloc_peak_used)
		agb_malloc_peak_used = used_bytes;
	return (void *)(uintptr_t)to;
}

void *_calloc_r(struct _reent *r, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size) {
		out_of_memory(r, SIZE_MAX, MIN_ALIGN);
		return NULL;
	}
	void *p = _malloc_r(r, count * size);
	if (p != NULL)
		memset(p, 0, count * size);
	return p;
}

void *_memalign_r(struct _reent *r, size_t align, size_t n)
{
	if (align == 0 || (align & (align - 1u)) != 0 || align > MAX_POOL) {
		r->_errno = EINVAL;
		return NULL;
	}
	return alloc_aligned(r, n, align);
}

size_t _malloc_usable_size_r(struct _reent *r, void *p)
{
	(void)r;
	return p == NULL ? 0u : block_usable((uint32_t)(uintptr_t)p);
}

void *malloc(size_t n)
{
	return _malloc_r(_REENT, n);
}

void free(void *p)
{
	_free_r(_REENT, p);
}

void *realloc(void *p, size_t n)
{
	return _realloc_r(_REENT, p, n);
}

void *calloc(size_t count, size_t size)
{
	return _calloc_r(_REENT, count, size);
}

void *memalign(size_t align, size_t n)
{
	return _memalign_r(_REENT, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return _memalign_r(_REENT, align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1u)) != 0 || align > MAX_POOL)
		return EINVAL;
	int saved = errno;
	void *p = alloc_aligned(_REENT, n, align);
	errno = saved; /* posix_memalign reports through its result, errno untouched */
	if (p == NULL)
		return ENOMEM;
	*out = p;
	return 0;
}

size_t malloc_usable_size(void *p)
{
	return _malloc_usable_size_r(_REENT, p);
}
