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

#ifdef __cplusplus
extern "C" {
#endif

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

/* Abuse: freeing or reallocating an address that is not a live block - a double free, an
 * interior or foreign address, one outside the pool. In every build, each core refuses,
 * silently and untouched (free does nothing, realloc returns AGB_NULL), what it can see in O(1)
 * (O(log runs) for `tree`) from its own map or headers: all of it for the cores whose map lives
 * outside the blocks (buddy, slots, obj, obj-fast, oam), for `tree` (its map keeps every
 * inner entry clear) and for the boundary-tag cores (tlsf, firstfit: a bitmap of used blocks'
 * starts beside the pool, so no payload word, not even an exact header, is trusted); `bestfit`
 * all of it, like `tree` (src/agbmem/common/map2.h). Each core's header says what it detects.
 * Checking build (a game's debug build: compile the cores with -DAGB_HEAP_CHECKED=1): the
 * cores with a free (tree, bestfit, obj, obj-fast, oam, tlsf, buddy, firstfit, slots) first
 * look the address up among their used blocks with their own walk() (uncounted, O(blocks)); an
 * address that is not one is refused without touching any metadata (free does nothing, realloc returns AGB_NULL)
 * and recorded in agb_heap_abuse, where a debug build can assert on it or show it. AGB_NULL
 * stays a no-op for free and an alloc for realloc. Sizes near 2^32, and alignments the pool
 * cannot meet, return AGB_NULL in every build (probed on every core up to 0xFFFFFFFF and 2^31).
 * Each core's header says what applies to it. */
struct agb_heap_abuse {
	uint32_t count;   /* refused calls since start-up (wraps) */
	uint32_t addr;    /* the last refused address */
	const char *core; /* the last refusing core's name */
	const char *op;   /* "free" or "realloc" */
};
extern struct agb_heap_abuse agb_heap_abuse;

/* 1 when ADDR is the payload start (HEADER bytes after the run start) of a used run that
 * WALK reports for STATE, else 0. For the checking build; usable by any caller. O(blocks). */
int agb_heap_live_block(void *state, void (*walk)(void *state, agb_walk_fn fn, void *ctx),
			uint32_t addr, uint32_t header);

/* Records a refused call in agb_heap_abuse. */
void agb_heap_refuse(const char *core, const char *op, uint32_t addr);

#ifdef AGB_HEAP_CHECKED
/* In a core's free or realloc (checking build): returns RET (empty for void) after recording
 * the call when ADDR is neither AGB_NULL nor a live block. The core file declares its
 * core_walk adapter (AGB_CORE_ADAPTER_walk) before using this. */
#define AGB_HEAP_REFUSE_UNLESS_LIVE(name, op, state, addr, header, ret)                             \
	do {                                                                                       \
		if ((addr) != AGB_NULL && !agb_heap_live_block((state), core_walk, (addr), (header))) { \
			agb_heap_refuse((name), (op), (addr));                                     \
			return ret;                                                                \
		}                                                                                  \
	} while (0)
#endif

/* Model coefficients for instruction work that the bus counters cannot see: cycles per call and
 * per counted access (docs/design.md, "Cycle model"). Fitted per core against mGBA measurements. */
struct agb_cost_model {
	uint16_t alloc_base;
	uint16_t free_base;
	uint16_t realloc_base;
	uint16_t per_access; /* in 1/16 cycle */
};

/* Outcome of a domain verb (frame, mark, reset, side, ref, unref, sprite display). */
enum agb_verb_status {
	AGB_VERB_DONE = 0, /* served */
	AGB_VERB_FAILED,   /* out of a resource (counted as a failure of this op) */
	AGB_VERB_BAD       /* invalid for the core's state (unknown marker, tile beyond the ROM set) */
};

/* Detail bits a verb reports through its `detail` argument. */
#define AGB_VERB_UPLOADED 0x1u /* ref: the tile was copied into VRAM (first ref, or after an eviction) */
#define AGB_VERB_RELEASED 0x2u /* unref: last ref dropped (tiles: the tile stays, reclaimable) */
#define AGB_VERB_SKIPPED 0x4u  /* unref of a ref that failed: nothing done, counted as skipped */
#define AGB_VERB_SHARED 0x8u   /* pal_load: an identical resident palette's banks were shared */
#define AGB_VERB_REVIVED 0x10u /* ref: an unreferenced tile still in VRAM used again, no upload */

/* Palette verbs: side 0 is the BG palette (0x05000000), 1 the OBJ palette (0x05000200); each has
 * AGB_PAL_BANKS banks of 16 colours. pal_load returns the first bank, AGB_PAL_NONE when no run of
 * free banks is left. */
#define AGB_PAL_NONE 0xFFu

/* Sprite handle returned by sprite_show when no OAM entry is free. */
#define AGB_SPRITE_NONE 0xFFu

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

	/* Releases a block returned by alloc/realloc. Anything else: see "Abuse" above. */
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

	/* Optional domain verbs: the operations a game calls besides alloc/free/realloc. NULL means
	 * the core has no such operation; a replay then treats frame and the sprite verbs as no-ops
	 * (they describe the game, not its memory) and stops on any other with a clear message.
	 * src/engine/replay.c is the one place that maps trace ops onto these. */

	/* Once per displayed frame (the shadow OAM copies itself to OAM). */
	int (*frame)(void *state);
	/* Linear allocators: remember the current top as `marker`; free everything allocated after
	 * the newest `marker`; choose which end (0 low, 1 high) the next allocations come from. */
	int (*mark)(void *state, uint32_t marker);
	int (*reset)(void *state, uint32_t marker);
	int (*side)(void *state, uint32_t side);
	/* Tile managers: one more / one less screen-map cell showing ROM tile `rom_tile` at `bpp`
	 * (4 or 8). *detail receives AGB_VERB_UPLOADED / _REVIVED / _RELEASED / _SKIPPED. */
	int (*ref)(void *state, uint32_t rom_tile, uint32_t bpp, uint32_t *detail);
	int (*unref)(void *state, uint32_t rom_tile, uint32_t bpp, uint32_t *detail);
	/* Shadow OAM: show a sprite at depth z (returns its OAM entry, AGB_SPRITE_NONE when all
	 * are in use), change an entry's depth, hide an entry. */
	uint32_t (*sprite_show)(void *state, uint32_t z);
	void (*sprite_z)(void *state, uint32_t sprite, uint32_t z);
	void (*sprite_hide)(void *state, uint32_t sprite);
	/* Palette managers (pal_ram): a game loads a palette of `colors` (1..256; above 16 it needs
	 * banks 0..ceil(colors/16)-1 of its side) whose colour data is at GBA address `src` and is
	 * identified by `key` (same side, key and colors: same contents). pal_load returns the first
	 * bank (AGB_PAL_NONE: none free; *detail: AGB_VERB_UPLOADED or AGB_VERB_SHARED); pal_free
	 * gives back the palette loaded at `bank` (*detail: AGB_VERB_RELEASED when its banks are
	 * free again). pal_push makes a palette the top of the side's palette stack, resident from
	 * bank 0, saving the banks it covers to a work-RAM buffer; pal_pop restores them. Both put
	 * the bytes the stack frame takes in the buffer in *bytes. */
	uint32_t (*pal_load)(void *state, uint32_t side, uint32_t key, uint32_t src, uint32_t colors,
			     uint32_t *detail);
	int (*pal_free)(void *state, uint32_t side, uint32_t bank, uint32_t *detail);
	int (*pal_push)(void *state, uint32_t side, uint32_t key, uint32_t src, uint32_t colors,
			uint32_t *bytes);
	int (*pal_pop)(void *state, uint32_t side, uint32_t *bytes);

	struct agb_cost_model model;
};

/* Adapters from the core table's `void *state` interface to a core's typed API
 * (agb_<p>_<verb>(agb_<p> *, ...)): AGB_CORE_ADAPTER(p, verb) defines `static ... core_<verb>`
 * for one verb, to be named in the core's table; the families below define the usual sets.
 * Every core builds its table from these, so no core writes an adapter by hand. */
#define AGB_CORE_ADAPTER(p, verb) AGB_CORE_ADAPTER_##verb(p)

/* The same adapter shape for a core whose table entry must be its hot path itself (one call
 * level from the table, as a game calling it directly would have): the adapter calls `fn`, an
 * inline function of the core, and carries the attributes `attr` (may be empty). bestfit's
 * alloc and free. */
#define AGB_CORE_ADAPTER_HOT(verb, fn, attr) AGB_CORE_ADAPTER_HOT_##verb(fn, attr)
#define AGB_CORE_ADAPTER_HOT_alloc(fn, attr)                                                        \
	attr static uint32_t core_alloc(void *st, uint32_t size, uint32_t align, uint32_t *granted) \
	{                                                                                          \
		return fn(st, size, align, granted);                                               \
	}
#define AGB_CORE_ADAPTER_HOT_free(fn, attr)                                                         \
	attr static void core_free(void *st, uint32_t addr)                                       \
	{                                                                                          \
		fn(st, addr);                                                                      \
	}

#define AGB_CORE_ADAPTER_init(p)                                                                    \
	static int core_init(void *st, agb_machine *m, const struct agb_heap_config *cfg)          \
	{                                                                                          \
		return agb_##p##_init(st, m, cfg);                                                 \
	}
#define AGB_CORE_ADAPTER_alloc(p)                                                                   \
	static uint32_t core_alloc(void *st, uint32_t size, uint32_t align, uint32_t *granted)    \
	{                                                                                          \
		return agb_##p##_alloc(st, size, align, granted);                                  \
	}
#define AGB_CORE_ADAPTER_free(p)                                                                    \
	static void core_free(void *st, uint32_t addr)                                             \
	{                                                                                          \
		agb_##p##_free(st, addr);                                                          \
	}
#define AGB_CORE_ADAPTER_realloc(p)                                                                 \
	static uint32_t core_realloc(void *st, uint32_t addr, uint32_t size, uint32_t *granted)   \
	{                                                                                          \
		return agb_##p##_realloc(st, addr, size, granted);                                 \
	}
#define AGB_CORE_ADAPTER_stats(p)                                                                   \
	static void core_stats(void *st, struct agb_heap_stats *out)                               \
	{                                                                                          \
		agb_##p##_stats(st, out);                                                          \
	}
#define AGB_CORE_ADAPTER_walk(p)                                                                    \
	static void core_walk(void *st, agb_walk_fn fn, void *ctx)                                 \
	{                                                                                          \
		agb_##p##_walk(st, fn, ctx);                                                       \
	}
#define AGB_CORE_ADAPTER_check(p)                                                                   \
	static int core_check(void *st, const char **why)                                          \
	{                                                                                          \
		return agb_##p##_check(st, why);                                                   \
	}
#define AGB_CORE_ADAPTER_overhead_bytes(p)                                                          \
	static uint32_t core_overhead_bytes(void *st)                                              \
	{                                                                                          \
		return agb_##p##_overhead_bytes(st);                                               \
	}
#define AGB_CORE_ADAPTER_frame(p)                                                                   \
	static int core_frame(void *st)                                                            \
	{                                                                                          \
		return agb_##p##_frame(st);                                                        \
	}
#define AGB_CORE_ADAPTER_mark(p)                                                                    \
	static int core_mark(void *st, uint32_t marker)                                            \
	{                                                                                          \
		return agb_##p##_mark(st, marker);                                                 \
	}
#define AGB_CORE_ADAPTER_reset(p)                                                                   \
	static int core_reset(void *st, uint32_t marker)                                           \
	{                                                                                          \
		return agb_##p##_reset(st, marker);                                                \
	}
#define AGB_CORE_ADAPTER_side(p)                                                                    \
	static int core_side(void *st, uint32_t side)                                              \
	{                                                                                          \
		return agb_##p##_side(st, side);                                                   \
	}
#define AGB_CORE_ADAPTER_ref(p)                                                                     \
	static int core_ref(void *st, uint32_t rom_tile, uint32_t bpp, uint32_t *detail)          \
	{                                                                                          \
		return agb_##p##_ref(st, rom_tile, bpp, detail);                              \
	}
/* For a core whose game-facing ref returns its own result (tiles: the VRAM block), the verb is
 * agb_<p>_ref_verb, the status form of the same call. */
#define AGB_CORE_ADAPTER_ref_verb(p)                                                                \
	static int core_ref(void *st, uint32_t rom_tile, uint32_t bpp, uint32_t *detail)          \
	{                                                                                          \
		return agb_##p##_ref_verb(st, rom_tile, bpp, detail);                              \
	}
#define AGB_CORE_ADAPTER_unref(p)                                                                   \
	static int core_unref(void *st, uint32_t rom_tile, uint32_t bpp, uint32_t *detail)        \
	{                                                                                          \
		return agb_##p##_unref(st, rom_tile, bpp, detail);                            \
	}
#define AGB_CORE_ADAPTER_sprite_show(p)                                                             \
	static uint32_t core_sprite_show(void *st, uint32_t z)                                     \
	{                                                                                          \
		return agb_##p##_show(st, z);                                                      \
	}
#define AGB_CORE_ADAPTER_sprite_z(p)                                                                \
	static void core_sprite_z(void *st, uint32_t sprite, uint32_t z)                           \
	{                                                                                          \
		agb_##p##_set_z(st, sprite, z);                                                    \
	}
#define AGB_CORE_ADAPTER_sprite_hide(p)                                                             \
	static void core_sprite_hide(void *st, uint32_t sprite)                                    \
	{                                                                                          \
		agb_##p##_hide(st, sprite);                                                        \
	}

#define AGB_CORE_ADAPTER_pal_load(p)                                                                \
	static uint32_t core_pal_load(void *st, uint32_t side, uint32_t key, uint32_t src,        \
				      uint32_t colors, uint32_t *detail)                        \
	{                                                                                          \
		return agb_##p##_load(st, side, key, src, colors, detail);                        \
	}
#define AGB_CORE_ADAPTER_pal_free(p)                                                                \
	static int core_pal_free(void *st, uint32_t side, uint32_t bank, uint32_t *detail)        \
	{                                                                                          \
		return agb_##p##_free(st, side, bank, detail);                                     \
	}
#define AGB_CORE_ADAPTER_pal_push(p)                                                                \
	static int core_pal_push(void *st, uint32_t side, uint32_t key, uint32_t src,             \
				 uint32_t colors, uint32_t *bytes)                              \
	{                                                                                          \
		return agb_##p##_push(st, side, key, src, colors, bytes);                          \
	}
#define AGB_CORE_ADAPTER_pal_pop(p)                                                                 \
	static int core_pal_pop(void *st, uint32_t side, uint32_t *bytes)                          \
	{                                                                                          \
		return agb_##p##_pop(st, side, bytes);                                             \
	}

/* The adapter families, each the one before it plus the verbs named:
 *   BASE    init, stats, walk, check, overhead_bytes: every core (palette and tile managers
 *           serve no alloc/free and add their own verbs);
 *   BLOCK   + alloc, free: block allocators without a realloc of their own (obj, obj-fast, oam);
 *   HEAP    + realloc: the general heaps;
 *   LINEAR  BASE + alloc, realloc, mark, reset: linear allocators (no single free).
 * AGB_<family>_CORE_ADAPTERS(p) defines the adapters (each list in the order the cores have
 * always had, which is their order in the GBA build's ROM); AGB_<family>_CORE_MEMBERS names
 * them in the core's table (members outside the family stay NULL unless the core names its own):
 * `const struct agb_heap_core agb_x_core = { .name = "x", ..., AGB_HEAP_CORE_MEMBERS, ... };` */
#define AGB_BASE_CORE_ADAPTERS(p)                                                                   \
	AGB_CORE_ADAPTER(p, init)                                                                  \
	AGB_CORE_ADAPTER(p, stats)                                                                 \
	AGB_CORE_ADAPTER(p, walk)                                                                  \
	AGB_CORE_ADAPTER(p, check)                                                                 \
	AGB_CORE_ADAPTER(p, overhead_bytes)
#define AGB_BASE_CORE_MEMBERS                                                                       \
	.init = core_init, .stats = core_stats, .walk = core_walk, .check = core_check,            \
	.overhead_bytes = core_overhead_bytes

#define AGB_BLOCK_CORE_ADAPTERS(p)                                                                 \
	AGB_CORE_ADAPTER(p, init)                                                                  \
	AGB_CORE_ADAPTER(p, alloc)                                                                 \
	AGB_CORE_ADAPTER(p, free)                                                                  \
	AGB_CORE_ADAPTER(p, stats)                                                                 \
	AGB_CORE_ADAPTER(p, walk)                                                                  \
	AGB_CORE_ADAPTER(p, check)                                                                 \
	AGB_CORE_ADAPTER(p, overhead_bytes)
#define AGB_BLOCK_CORE_MEMBERS AGB_BASE_CORE_MEMBERS, .alloc = core_alloc, .free = core_free

#define AGB_HEAP_CORE_ADAPTERS(p)                                                                  \
	AGB_CORE_ADAPTER(p, init)                                                                  \
	AGB_CORE_ADAPTER(p, alloc)                                                                 \
	AGB_CORE_ADAPTER(p, free)                                                                  \
	AGB_CORE_ADAPTER(p, realloc)                                                               \
	AGB_CORE_ADAPTER(p, stats)                                                                 \
	AGB_CORE_ADAPTER(p, walk)                                                                  \
	AGB_CORE_ADAPTER(p, check)                                                                 \
	AGB_CORE_ADAPTER(p, overhead_bytes)
#define AGB_HEAP_CORE_MEMBERS AGB_BLOCK_CORE_MEMBERS, .realloc = core_realloc

#define AGB_LINEAR_CORE_ADAPTERS(p)                                                                \
	AGB_CORE_ADAPTER(p, init)                                                                  \
	AGB_CORE_ADAPTER(p, alloc)                                                                 \
	AGB_CORE_ADAPTER(p, realloc)                                                               \
	AGB_CORE_ADAPTER(p, stats)                                                                 \
	AGB_CORE_ADAPTER(p, walk)                                                                  \
	AGB_CORE_ADAPTER(p, check)                                                                 \
	AGB_CORE_ADAPTER(p, overhead_bytes)                                                        \
	AGB_CORE_ADAPTER(p, mark)                                                                  \
	AGB_CORE_ADAPTER(p, reset)
/* Memory comes back only through reset, so free is NULL by design. */
#define AGB_LINEAR_CORE_MEMBERS                                                                     \
	AGB_BASE_CORE_MEMBERS, .alloc = core_alloc, .free = NULL, .realloc = core_realloc,         \
	.mark = core_mark, .reset = core_reset

/* In a core's check(): sets *why to the static message `msg` (when the caller asked for one)
 * and returns 1 from the checker. */
#define AGB_CHECK_FAIL(why, msg)                                                                    \
	do {                                                                                       \
		if ((why) != NULL)                                                                 \
			*(why) = (msg);                                                            \
		return 1;                                                                          \
	} while (0)

/* Copies `bytes` from `from` to `to` a word at a time through the machine (both 4-aligned; a
 * tail short of a word is copied whole): the move of a realloc that cannot stay in place. One
 * work unit per word. O(bytes). */
static inline void agb_heap_copy_words(agb_machine *m, uint32_t to, uint32_t from, uint32_t bytes)
{
	for (uint32_t i = 0; i < bytes; i += 4u) {
		AGB_WORK(m, 1);
		AGB_ST32(m, to + i, AGB_LD32(m, from + i));
	}
}

/* stats() of a pool whose free space is one run of `bytes`. O(1). */
static inline void agb_heap_stats_one_run(struct agb_heap_stats *out, uint32_t bytes)
{
	out->free_bytes = bytes;
	out->largest_free = bytes;
	out->free_runs = bytes != 0;
	out->free_sq_sum = (uint64_t)bytes * bytes;
}

/* Registry of all cores compiled in, NULL-terminated. */
extern const struct agb_heap_core *const agb_heap_cores[];

/* Returns the core called `name`, or NULL. O(cores). */
const struct agb_heap_core *agb_heap_core_find(const char *name);

/* Reference allocators measured only inside a GBA bench ROM (newlib's malloc as a game links
 * it), NULL-terminated: descriptor entries (name, summary, arenas, unit) whose function
 * pointers are all NULL, so nothing may call them; not in agb_heap_cores. */
extern const struct agb_heap_core *const agb_reference_cores[];

/* Returns the reference allocator called `name`, or NULL. O(cores). */
const struct agb_heap_core *agb_reference_core_find(const char *name);

/* The core a trace of this arena uses when none is named. */
const struct agb_heap_core *agb_heap_core_default(enum agb_arena arena);

/* Largest state_bytes over all cores: callers may reserve this much, 8-byte aligned. */
#define AGB_HEAP_STATE_MAX 256u

#ifdef __cplusplus
}
#endif

#endif
