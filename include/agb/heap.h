/* The interface every allocator core implements: a table of function pointers filled by each
 * core (like mGBA's struct mCore). The replay engine, the benchmark, the viewer and the GBA bench
 * ROM only ever talk to a core through this table.
 *
 * Addresses are GBA addresses (uint32_t); AGB_NULL (0) means "no memory". All memory the core
 * reads or writes, including its own bookkeeping, goes through the machine's access macros, so
 * its footprint and cost are measured. The core's small fixed state (`state_bytes`, a few words:
 * base addresses, counts) is the equivalent of globals/registers and is supplied by the caller.
 *
 * Freestanding: no libc. */
#ifndef AGB_HEAP_H
#define AGB_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "agb/machine.h"
#include "agb/regions.h"

/* Where a core may put bookkeeping that does not live inside the arena. */
struct agb_heap_config {
	uint32_t arena_addr;  /* first byte of the pool (GBA address) */
	uint32_t arena_bytes; /* pool size */
	uint32_t meta_addr;   /* external metadata area (EWRAM or IWRAM), may be AGB_NULL */
	uint32_t meta_bytes;  /* its size; a core needing more than this fails init */
	uint32_t flags;       /* core-specific options (AGB_HEAP_FLAG_*) */
};

/* Core options shared by several cores. */
#define AGB_HEAP_FLAG_OBJ_BITMAP_MODE 0x1u /* OBJ VRAM: only tiles 512-1023 (modes 3-5) */

enum agb_heap_init_status {
	AGB_HEAP_OK = 0,
	AGB_HEAP_ARENA_TOO_SMALL,
	AGB_HEAP_ARENA_TOO_LARGE,
	AGB_HEAP_META_TOO_SMALL,
	AGB_HEAP_BAD_ALIGNMENT
};

/* What stats() reports, in bytes. Runs are maximal stretches of free memory that one request
 * could use (the core's own view: a free run split by metadata counts as two). */
struct agb_heap_stats {
	uint32_t free_bytes;
	uint32_t largest_free;
	uint32_t free_runs;
	uint64_t free_sq_sum; /* sum over free runs of run_bytes^2: for the umm_malloc metric */
};

enum agb_run_kind { AGB_RUN_FREE, AGB_RUN_USED, AGB_RUN_META };

/* Called by walk() once per run in address order. */
typedef void (*agb_walk_fn)(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind);

/* Model coefficients for instruction work that the bus counters cannot see: cycles per call and
 * per counted access (DESIGN section 7). Fitted per core against mGBA measurements. */
struct agb_cost_model {
	uint16_t alloc_base;
	uint16_t free_base;
	uint16_t realloc_base;
	uint16_t per_access; /* in 1/16 cycle */
};

struct agb_event;

enum agb_event_status {
	AGB_EVENT_DONE = 0,    /* served */
	AGB_EVENT_FAILED,      /* out of a resource (counted as a failure of this op) */
	AGB_EVENT_UNSUPPORTED, /* this core has no such operation */
	AGB_EVENT_BAD          /* the op is invalid for the core's state (e.g. unknown marker) */
};

/* Detail bits for *result of event(). */
#define AGB_EVENT_RESULT_UPLOADED 0x1u /* ref: the tile was copied into VRAM (first ref) */
#define AGB_EVENT_RESULT_RELEASED 0x2u /* unref: last ref dropped, VRAM slot freed */
#define AGB_EVENT_RESULT_SKIPPED 0x4u  /* unref of a ref that failed: nothing done, counted as skipped */

struct agb_heap_core {
	const char *name;    /* --allocator= name */
	const char *summary; /* one line for `agbsim list` */
	uint32_t arenas;     /* AGB_ARENA_BIT()s this core can manage */
	uint32_t unit;       /* allocation granularity in bytes */
	uint32_t state_bytes;

	/* Prepares an empty pool. Returns AGB_HEAP_OK or why it cannot. O(arena) at most. */
	int (*init)(void *state, agb_machine *m, const struct agb_heap_config *cfg);

	/* Returns the address of at least `size` bytes aligned to `align` (a power of two >= 1),
	 * AGB_NULL when no run fits. *granted receives the bytes actually reserved. */
	uint32_t (*alloc)(void *state, uint32_t size, uint32_t align, uint32_t *granted);

	/* Releases a block returned by alloc/realloc. Freeing anything else is undefined. */
	void (*free)(void *state, uint32_t addr);

	/* Optional (NULL: the engine allocates, copies through the machine and frees). C semantics:
	 * returns the new address, or AGB_NULL with the old block untouched. */
	uint32_t (*realloc)(void *state, uint32_t addr, uint32_t size, uint32_t *granted);

	/* Free-space summary. Observation only: must not change the machine's counters. */
	void (*stats)(void *state, struct agb_heap_stats *out);

	/* Every run of the pool in address order (metadata, used, free). Observation only. */
	void (*walk)(void *state, agb_walk_fn fn, void *ctx);

	/* Returns 0 when every invariant holds, else nonzero with *why set to a static message.
	 * Observation only; O(arena). */
	int (*check)(void *state, const char **why);

	/* Bytes of bookkeeping: in the arena and outside it. */
	uint32_t (*overhead_bytes)(void *state);

	/* Optional: ops other than alloc/free/realloc (frame, ref/unref, extension ops). NULL, or
	 * AGB_EVENT_UNSUPPORTED for an op, means the core cannot serve it; a frame is then a no-op
	 * but any other op stops the run with a clear message instead of numbers.
	 * *result receives op-specific detail (AGB_EVENT_RESULT_* bits). */
	int (*event)(void *state, const struct agb_event *ev, uint32_t *result);

	struct agb_cost_model model;
};

/* The eight adapters from the void * interface to a core's typed API agb_<p>_init, _alloc,
 * _free, _realloc, _stats, _walk, _check and _overhead_bytes (each taking the core's state
 * pointer first), named core_init ... core_overhead for the core's table. For cores whose
 * typed API has exactly those signatures. */
#define AGB_HEAP_CORE_ADAPTERS(p)                                                                   \
	static int core_init(void *st, agb_machine *m, const struct agb_heap_config *cfg)          \
	{                                                                                          \
		return agb_##p##_init(st, m, cfg);                                                 \
	}                                                                                          \
	static uint32_t core_alloc(void *st, uint32_t size, uint32_t align, uint32_t *granted)    \
	{                                                                                          \
		return agb_##p##_alloc(st, size, align, granted);                                  \
	}                                                                                          \
	static void core_free(void *st, uint32_t addr)                                             \
	{                                                                                          \
		agb_##p##_free(st, addr);                                                          \
	}                                                                                          \
	static uint32_t core_realloc(void *st, uint32_t addr, uint32_t size, uint32_t *granted)   \
	{                                                                                          \
		return agb_##p##_realloc(st, addr, size, granted);                                 \
	}                                                                                          \
	static void core_stats(void *st, struct agb_heap_stats *out)                               \
	{                                                                                          \
		agb_##p##_stats(st, out);                                                          \
	}                                                                                          \
	static void core_walk(void *st, agb_walk_fn fn, void *ctx)                                 \
	{                                                                                          \
		agb_##p##_walk(st, fn, ctx);                                                       \
	}                                                                                          \
	static int core_check(void *st, const char **why)                                          \
	{                                                                                          \
		return agb_##p##_check(st, why);                                                   \
	}                                                                                          \
	static uint32_t core_overhead(void *st)                                                    \
	{                                                                                          \
		return agb_##p##_overhead_bytes(st);                                               \
	}

/* Registry of all cores compiled in, NULL-terminated. */
extern const struct agb_heap_core *const agb_heap_cores[];

/* Returns the core called `name`, or NULL. */
const struct agb_heap_core *agb_heap_core_find(const char *name);

/* The core a trace of this arena uses when none is named. */
const struct agb_heap_core *agb_heap_core_default(enum agb_arena arena);

/* Largest state_bytes over all cores: callers may reserve this much, 8-byte aligned. */
#define AGB_HEAP_STATE_MAX 256u

#endif
