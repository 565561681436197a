/* The replay engine: drives one core through a trace on the emulated machine, observing every
 * event (placement, cost, free-space summary) and checking canaries. Freestanding; the caller
 * provides all storage. Host and GBA builds run the same code. */
#ifndef AGB_REPLAY_H
#define AGB_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "agb/heap.h"
#include "agbsim/trace.h"

/* Where a core's external bookkeeping goes. */
enum agb_meta_region { AGB_META_DEFAULT, AGB_META_EWRAM, AGB_META_IWRAM };

#define AGB_REPLAY_CANARIES 0x1u    /* fill live blocks with a per-id pattern and check it */
#define AGB_REPLAY_CHECK 0x2u       /* run the core's invariant checker after every event */
#define AGB_REPLAY_NO_STATS 0x4u    /* skip free-space sampling (min-arena search, throughput) */

struct agb_replay_config {
	const struct agb_heap_core *core;
	uint32_t arena_bytes; /* 0: the trace's own */
	enum agb_meta_region meta;
	uint32_t core_flags; /* passed to the core (agb_heap_config.flags) */
	uint32_t flags;      /* AGB_REPLAY_* */
};

enum agb_outcome {
	AGB_OUTCOME_OK,      /* served */
	AGB_OUTCOME_FAILED,  /* the core had no memory (a failure) */
	AGB_OUTCOME_SKIPPED  /* op on an id whose alloc failed, or unref of a failed ref */
};

/* What the engine saw at one event; passed to the observer right after the event. */
struct agb_replay_obs {
	uint32_t index;
	uint8_t op;      /* enum agb_op */
	uint8_t outcome; /* enum agb_outcome */
	uint32_t id;
	uint32_t requested;
	uint32_t addr;    /* granted address (alloc/realloc), AGB_NULL otherwise */
	uint32_t granted; /* bytes reserved */
	uint32_t result;  /* the verb's detail bits (AGB_VERB_UPLOADED, ...; lock and touch:
			   * AGB_CACHE_DETAIL) */
	/* lock and touch (agb/cache.h): evictions that did not make room, and for a miss the
	 * frames since the key's last eviction (AGB_CACHE_NEVER: never evicted). */
	uint32_t cache_blocked, cache_since_evicted;
	uint32_t bus_cycles; /* wait-state cycles of the counted accesses (host only, else 0) */
	uint32_t accesses;   /* counted accesses, all kinds (host only, else 0) */
	uint32_t stores;     /* of which stores, any width and region (cycle model feature) */
	uint32_t rom_reads;  /* of which ROM loads: const-table reads (cycle model feature) */
	uint32_t work;       /* AGB_WORK units the core declared: instruction work (model feature) */
	/* lock and touch (host only): the part of the inputs above spent in the core calls the
	 * cache made, per kind (alloc, free): calls, bus cycles, accesses, stores, ROM loads, work
	 * (agb_machine.nest); the model prices them with the core's alloc and free rows. */
	uint32_t nest[2][6];
	uint32_t cycles; /* model estimate: bus cycles + instruction work */
	uint32_t live_bytes;
	uint32_t live_granted;
	uint32_t corrupted; /* canary bytes found damaged at this event */
	int sampled;        /* AGB_SAMPLE_*: whether and why stats below are valid */
	struct agb_heap_stats stats;
};

/* Stats are sampled after every event when the trace has no frames, else at each frame; and
 * at every failure (so fragmentation can be told from exhaustion) but such samples do not count
 * towards means. */
enum agb_sample { AGB_SAMPLE_NONE, AGB_SAMPLE_REGULAR, AGB_SAMPLE_AT_FAILURE };

typedef void (*agb_replay_observer)(void *ctx, const struct agb_replay_obs *obs);

enum agb_replay_status {
	AGB_REPLAY_OK = 0,
	AGB_REPLAY_INIT_FAILED,   /* the core refused the arena/meta area (detail: init status) */
	AGB_REPLAY_UNSUPPORTED,   /* the core cannot serve an op of this trace */
	AGB_REPLAY_CHECK_FAILED,  /* --check: an invariant broke (see failed_event, why) */
	AGB_REPLAY_BAD_EVENT,     /* the core rejected an op as invalid */
	AGB_REPLAY_NO_WORKSPACE   /* workspace too small */
};

struct agb_replay_result {
	int status;
	int init_status;
	uint32_t failed_event; /* event index for UNSUPPORTED / CHECK_FAILED / BAD_EVENT */
	const char *why;       /* static text */
	uint32_t overhead_bytes;
	uint32_t arena_addr, arena_bytes, meta_addr, meta_bytes;
	uint32_t corrupted_bytes; /* total, including the end-of-run check */
	uint32_t failures;
	uint32_t quirk_stores;      /* byte stores VRAM/OAM ignore or widen: core bugs */
	uint32_t unmapped_accesses; /* core bugs */
	/* Host: ops whose model cycles were extrapolated beyond the fitted row's calibration range
	 * (agb_cycle_model_extrapolates), and the first of them (event index). */
	uint32_t extrapolated_ops, first_extrapolated;
	struct agb_heap_stats final_stats;
};

/* Where a replay's palette ops (pal_load, pal_push) take their colours from: a trace carries no
 * colours, so palette `key` stands for the 512-byte ROM block number (key mod 2048) of the
 * first MiB of ROM, as a game's palette data sits in ROM. On the host that ROM is empty unless
 * mapped (the viewer maps AGB_REPLAY_PAL_ROM_BYTES of colours there); it costs the same either
 * way. */
#define AGB_REPLAY_PAL_SOURCE(key) (AGB_MEM_ROM + ((key)&0x7FFu) * 0x200u)
#define AGB_REPLAY_PAL_ROM_BYTES 0x100000u

/* Sprite handles a replay can map to a core's OAM entries (spr_* ops beyond fail). */
#define AGB_REPLAY_SPRITE_HANDLES 256u

/* Bytes of the slot table (allocation slots, then the sprite handle table, then the resource
 * cache's state: agb/cache.h; its entry table takes the end of the meta area). */
size_t agb_replay_slot_table_bytes(const struct agb_trace *t);

/* Bytes of workspace a replay of `t` needs (core state and slot table). */
size_t agb_replay_workspace_bytes(const struct agb_trace *t);

/* The core state inside a workspace given to agb_replay_run: observers may pass it to the core's
 * observation functions (stats, walk, check) while the run is paused in the observer. */
void *agb_replay_core_state(void *workspace);

/* Where a workspace given to agb_replay_run keeps the resource cache (an agb_cache, agb/cache.h)
 * of a trace with lock/unlock/touch ops: valid for observers while such a run is paused in the
 * observer or after it (for any other trace it is no cache). O(1). */
void *agb_replay_cache_state(void *workspace, const struct agb_trace *t);

/* Replays `t` with cfg on machine m (its arena and meta area are reset first). Calls `observe`
 * (may be NULL) after each event. Returns AGB_REPLAY_OK or why the run stopped; `out` is filled
 * either way. O(events x core cost). Deterministic: same inputs, same observations. */
int agb_replay_run(const struct agb_trace *t, const struct agb_replay_config *cfg, agb_machine *m,
		   void *workspace, size_t workspace_bytes, agb_replay_observer observe, void *ctx,
		   struct agb_replay_result *out);

/* The smallest arena_bytes, in steps of `step`, at which `t` replays with zero failures on cfg's
 * core, found by binary search between the core's minimum and the region size (failures are
 * assumed monotone in arena size, which holds for the shipped traces but not for every trace).
 * Returns 0 when even the whole region fails. */
uint32_t agb_replay_min_arena(const struct agb_trace *t, const struct agb_replay_config *cfg,
			      agb_machine *m, void *workspace, size_t workspace_bytes, uint32_t step);

#endif
