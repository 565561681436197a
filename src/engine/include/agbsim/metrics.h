/* Metrics of one replay (keys in docs/trace-format.md, "Metrics"), accumulated from the engine's observations.
 * Freestanding: the caller provides the per-event cycle storage. */
#ifndef AGB_METRICS_H
#define AGB_METRICS_H

#include <stdint.h>

#include "agbsim/replay.h"

struct agb_cycle_stats {
	uint32_t count;
	double mean;
	uint32_t p50, p95, p99, max;
	uint64_t total;
};

struct agb_frag_stats {
	double mean, max, final;
};

/* A frame whose allocator work exceeds this share of the frame is flagged. */
#define AGB_FRAME_BUDGET_PCT 10.0

struct agb_metrics {
	uint32_t events, allocs, frees, reallocs, frames, refs, unrefs;
	uint32_t peak_live_bytes;
	uint32_t internal_bytes; /* granted - requested, at peak live (0 if requested is more) */
	uint32_t failures, frag_failures, skipped;
	/* ["refused", ...] events: requests the recorded allocator refused, and how many of them
	 * this core served (the rest are among its failures). */
	uint32_t refused, refused_served;
	int64_t first_failure_event; /* -1: none */
	uint32_t live_bytes_at_first_failure;
	struct agb_frag_stats frag_external, frag_umm;
	uint32_t arena_bytes, overhead_bytes;
	double overhead_ratio;
	uint32_t corrupted_bytes;
	uint32_t tile_uploads, tile_failures, peak_resident_tiles;
	/* Palette RAM (pal_ram traces): copies into palette RAM (loads that uploaded, pushes, pops)
	 * and their colour bytes; loads served by sharing a resident palette; loads that found no
	 * bank; the most banks held by loaded palettes per side (0 BG, 1 OBJ); the deepest palette
	 * stack (either side) and the most work-RAM buffer bytes it held (both sides). */
	uint32_t pal_uploads, pal_bytes_uploaded, pal_dedup_hits, pal_failures;
	uint32_t pal_peak_banks[2];
	uint32_t pal_stack_peak_depth, pal_stack_buffer_bytes;
	struct agb_cycle_stats cycles[AGB_OP_COUNT];
	struct agb_cycle_stats all_ops; /* every op but frame */
	/* The frame budget judges gameplay frames: frame_max_cycles, max_frame_pct and
	 * frames_over_budget leave out loading frames (["frame", "load"]), whose worst is
	 * load_frame_max_cycles / max_load_frame_pct. */
	uint32_t frame_max_cycles;
	double max_frame_pct;
	uint32_t frames_over_budget;
	uint32_t load_frames, load_frame_max_cycles;
	double max_load_frame_pct;
	/* The worst gameplay frame and the worst loading frame (the first of equals): its number
	 * (0-based; a frame event belongs to the frame it closes, as `view --at=frame:N` counts),
	 * its first event and the ops in it (events other than the frame event). */
	uint32_t frame_max_index, frame_max_first_event, frame_max_ops;
	uint32_t load_frame_max_index, load_frame_max_first_event, load_frame_max_ops;
	/* Bytes requested and still live after the last event (a rise is a leak). */
	uint32_t live_bytes_end;
	/* Streamed sections (mark/side/reset/sync on a two-sided allocator): syncs seen; the bytes
	 * allocated on a marker's side since the mark, at its sync (the largest: the section the
	 * pool must hold); the most bytes held per side (0 low, 1 high; from allocs and resets);
	 * with a load rate, the frames doors kept the player waiting: at each sync, the frames the
	 * section needed to stream in at that rate beyond the frames since its mark. */
	uint32_t syncs, largest_section_bytes, section_peak_bytes[2];
	uint32_t load_rate, stall_frames;
	/* Resource cache (lock/unlock/touch, agb/cache.h): lookups that found the resource resident
	 * (hits) or not (misses: loads and nopes); entries evicted, and of those the evictions that
	 * did not make room although the core's free bytes covered the request (fragmentation);
	 * bytes loaded; thrash: loads of a key evicted within the last thrash_window frames. Load
	 * cycles are bytes loaded x load_cost_milli / 1000 (cycles per byte: a ROM copy or the
	 * BIOS LZ77 decompression, docs/design.md "Resource caches"). */
	uint32_t cache_hits, cache_misses, cache_loads, cache_nopes;
	uint32_t cache_evictions, cache_blocked_evictions, cache_thrash;
	uint64_t cache_bytes_loaded;
	uint32_t thrash_window, load_cost_milli;
	uint64_t load_cycles;
	double cache_hit_rate, load_cycles_per_frame;
	uint64_t total_cycles;
	uint32_t min_arena_bytes; /* 0: not computed or no arena size works */
	uint32_t quirk_stores, unmapped_accesses;
};

#define AGB_METRICS_MARKERS 32u

/* Cycles per byte a cache load costs, x1000, measured in mGBA by the smoke ROM (4 KiB from ROM
 * into EWRAM; docs/design.md, "Resource caches"): a 32-bit ldmia/stmia copy, and the BIOS
 * LZ77UnCompWram of 4bpp sprite tiles (4:1 packed), per decompressed byte. */
#define AGB_LOAD_COST_COPY_MILLI 2677u  /* 10966 cycles per 4096 bytes */
#define AGB_LOAD_COST_LZ77_MILLI 14174u /* 58055 cycles per 4096 bytes */

/* A reload within this many frames of the key's eviction is thrashing (--thrash-window). */
#define AGB_THRASH_WINDOW 60u

struct agb_metrics_acc {
	struct agb_metrics *out;
	uint32_t unit;            /* the core's allocation unit: to judge frag failures */
	uint32_t *cycles;         /* event_count entries, grouped by op */
	uint32_t cursor[AGB_OP_COUNT];
	uint32_t start[AGB_OP_COUNT];
	double frag_sum, umm_sum;
	uint32_t samples;
	uint32_t frame_cycles;
	/* The frame in progress: ops so far, its first event, whether it has one; gameplay frames
	 * closed so far. */
	uint32_t frame_ops, frame_first, frame_open, gameplay_frames;
	uint32_t resident_tiles;
	uint32_t pal_banks[2], pal_depth[2], pal_buffer;
	uint32_t any_frame;
	/* Sections: the current side, bytes allocated per side (ever, and held), and the markers
	 * (the most recent AGB_METRICS_MARKERS distinct ones). */
	uint32_t side;
	uint64_t side_alloc[2], side_live[2];
	struct agb_metrics_marker {
		uint32_t marker, side, frame;
		uint64_t alloc_at, live_at;
	} markers[AGB_METRICS_MARKERS];
	uint32_t nmarkers;
	struct agb_heap_stats last;
	int have_last;
};

/* Prepares `acc` for a replay of `t`; `cycles` must hold t->event_count entries. O(events). */
void agb_metrics_begin(struct agb_metrics_acc *acc, struct agb_metrics *out,
		       const struct agb_trace *t, uint32_t unit, uint32_t *cycles);

/* Bytes a game streams in per frame, for the stall frames of sections' syncs (0: not judged).
 * Call after agb_metrics_begin. */
void agb_metrics_set_load_rate(struct agb_metrics_acc *acc, uint32_t bytes_per_frame);

/* The thrash window (frames; default AGB_THRASH_WINDOW) and the cost of loading a byte into
 * the cache in 1/1000 cycles (default AGB_LOAD_COST_COPY_MILLI). Call after agb_metrics_begin. */
void agb_metrics_set_cache(struct agb_metrics_acc *acc, uint32_t thrash_window,
			   uint32_t load_cost_milli);

/* An agb_replay_observer: pass the acc as ctx. O(1). */
void agb_metrics_observe(void *acc, const struct agb_replay_obs *obs);

/* Completes the figures from the run's result (overhead, final fragmentation, canaries) and
 * sorts the cycle samples for percentiles. O(n log n). */
void agb_metrics_end(struct agb_metrics_acc *acc, const struct agb_replay_result *res);

/* frag_external and frag_umm of one free-space summary: 0 when nothing or one run is free. */
double agb_frag_external(const struct agb_heap_stats *s);
double agb_frag_umm(const struct agb_heap_stats *s);

#endif
