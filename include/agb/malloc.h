/* The drop-in heap (libagbmalloc): agbmem as the game's malloc, with no call site changed.
 *
 * Link `-lagbmalloc` (ARM code in IWRAM: `-lagbmalloc_iwram`) with agbmem's runtime and every
 * malloc, free, realloc, calloc, memalign, aligned_alloc, posix_memalign, malloc_usable_size,
 * newlib's reentrant _malloc_r family (strdup, stdio, ...) and C++ operator new/delete (all of
 * libstdc++'s forms call these) go to one `firstfit` heap (include/agb/firstfit.h). Failures
 * return NULL with errno = ENOMEM (posix_memalign returns the error, EINVAL for a bad alignment).
 * If newlib's own allocator is pulled into the link as well, the link fails and says why.
 *
 * Pool: from the end of the game's EWRAM sections (__ewram_free_start) to the end of EWRAM,
 * unless the game sets a size with AGB_MALLOC_POOL_BYTES(n). Metadata: the core's starts bitmap
 * (pool / 64 bytes) in IWRAM .bss, 4 096 bytes (a pool of up to 256 KiB); AGB_MALLOC_META_IN_POOL()
 * puts it at the pool head in EWRAM instead; defining agb_malloc_meta_area puts it anywhere.
 * The heap initialises itself on the first call. Not reentrant from interrupt handlers.
 *
 * Not for VRAM, OAM or palettes: those have their own cores (agb/oam.h, agb/tiles.h, ...). */
#ifndef AGB_MALLOC_H
#define AGB_MALLOC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What agb_malloc_stats fills (what Butano's bn::memory reports), in bytes. */
struct agb_malloc_stats {
	uint32_t pool_bytes;    /* the pool the heap manages (metadata at its head included) */
	uint32_t used_bytes;    /* usable bytes of the live blocks (malloc_usable_size summed) */
	uint32_t free_bytes;    /* usable bytes of the free blocks */
	uint32_t largest_free;  /* the largest single request malloc can serve now */
	uint32_t peak_used;     /* the most used_bytes has been since start-up */
	uint32_t live_blocks;   /* blocks allocated and not freed */
	uint32_t refused_frees; /* free/realloc of an address that is not a live block (ignored) */
};

/* Fills *s. Initialises the heap if nothing allocated yet. O(free blocks) after a change to the
 * largest free block, else O(1). */
void agb_malloc_stats(struct agb_malloc_stats *s);

/* Called when a request cannot be served, before NULL is returned (or, for C++'s throwing
 * operator new, before std::bad_alloc): `request` is the size asked for, `align` its alignment,
 * *s the figures at that moment. The hook may free memory; the request is not retried. */
typedef void (*agb_malloc_oom_fn)(size_t request, size_t align, const struct agb_malloc_stats *s);

/* Installs the hook (NULL removes it); returns the previous one. */
agb_malloc_oom_fn agb_malloc_set_oom_hook(agb_malloc_oom_fn fn);

/* Link-time settings: weak functions the library defines and a game may define once. */
uint32_t agb_malloc_pool_bytes(void);            /* 0: all free EWRAM */
void *agb_malloc_meta_area(uint32_t *bytes);     /* NULL: metadata at the pool head */

/* In one source file of the game, at file scope. */
#define AGB_MALLOC_POOL_BYTES(n)                                                                   \
	uint32_t agb_malloc_pool_bytes(void)                                                       \
	{                                                                                          \
		return (uint32_t)(n);                                                              \
	}
/* stats' peak_used as a symbol, for tools that read the game's RAM (agbsim budget's
 * ewram.heap_peak). Read-only for the game. */
extern uint32_t agb_malloc_peak_used;

#define AGB_MALLOC_META_IN_POOL()                                                                  \
	void *agb_malloc_meta_area(uint32_t *bytes)                                                \
	{                                                                                          \
		*bytes = 0;                                                                        \
		return (void *)0;                                                                  \
	}

#ifdef __cplusplus
}
#endif

#endif
