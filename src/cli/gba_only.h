/* Running the GBA-only reference allocators (agb_reference_cores in the registry,
 * src/agbmem/registry.c: newlib's malloc as a game links it, src/gba/roms/newlib_core.c). No host
 * command can replay them; `agbsim measure` / `bench --cycles=mgba` run them in mGBA without a
 * host run to compare with. */
#ifndef AGBSIM_GBA_ONLY_H
#define AGBSIM_GBA_ONLY_H

#include <stddef.h>

#include "agb/heap.h"
#include "cli/agbsim.h"
#include "cli/measure.h"

/* The bench ROM file that holds `core` (e.g. "agbsim-bench-newlib.gba"), or NULL when `core` is a
 * host core. O(cores). */
const char *agbsim_gba_only_rom(const struct agb_heap_core *core);

/* Says "NAME runs only in the GBA bench ROM: use `agbsim measure` or `bench --cycles=mgba`" and
 * returns AGBSIM_EXIT_USAGE: what a host-only command answers when given a GBA-only core. */
int agbsim_gba_only_refuse(const char *name);

/* Finds the bench ROM `file`: in $AGBSIM_GBA_DIR, else gba/ beside this executable, else the build
 * tree this agbsim was configured in. Writes the path to out; 0 when readable, else -1. */
int agbsim_gba_rom_find(const char *file, char *out, size_t n);

struct agb_mgba_options;
struct agb_mgba_result;

/* Runs the bench ROM `rom` with opt (payload, markers, frame limit) into *res, and requires a
 * finished replay of all `events` events: else fails (agbsim_run_fail, AGBSIM_EXIT_IO) saying
 * how (mGBA error, frame limit, the ROM's status and log, a short replay). *res is the
 * caller's to free either way. Only with AGB_MEASURE_ENABLED. */
int agbsim_gba_rom_run(struct agbsim_run *run, const char *rom, const struct agb_mgba_options *opt,
		       uint32_t events, struct agb_mgba_result *res);

/* What the bench ROM reported for one event: its decision (addr, granted, info = outcome |
 * result << 8), the live bytes after it (with AGB_BENCH_OBS_LIVE), the core call's cycles less
 * the marker overhead; seen when an observation came at all. */
struct agbsim_rom_event {
	uint32_t addr, granted, info, live, live_granted, cycles;
	int seen;
	/* The direct run's call for this event (AGB_BENCH_DIRECT, after the DIRECT marker): what
	 * it returned (AGB_NULL for free), its cycles less the marker overhead, and (tiles) the
	 * detail of a ref/unref; direct_seen counts the calls. */
	uint32_t direct_addr, direct_cycles, direct_info;
	int direct_seen;
};

/* Reads the markers of a ROM run: per event ev[0..n-1] (zeroed by the caller) its observation
 * and timed cycles; the marker overhead (the cheapest calibration pair, 0 without one) into
 * *overhead; each run of the final walk to walk(ctx, ...). O(markers). Only with
 * AGB_MEASURE_ENABLED. */
void agbsim_rom_read_markers(const struct agb_mgba_result *res, uint32_t n,
			     struct agbsim_rom_event *ev, uint32_t *overhead, agb_walk_fn walk,
			     void *ctx);

/* Whether op is one the direct run times (alloc, free, realloc; ref, unref). */
int agbsim_direct_op(uint8_t op);

/* Checks the direct run (dir[].direct_*) against the decisions of the replay (dec[]): every
 * alloc/free/realloc the replay served (not skipped) was called once, and returned what the
 * replay's call returned (AGB_NULL for a failure; free: nothing); every ref/unref was called
 * once with the replay's detail (uploaded, released, skipped); no other event was called.
 * Returns AGBSIM_EXIT_OK, or AGBSIM_EXIT_IO with run->error naming the first difference. */
int agbsim_direct_check(struct agbsim_run *run, const struct agbsim_rom_event *dec,
			const struct agbsim_rom_event *dir);

/* Makes the direct calls the reported figures: for each event the direct run timed and the
 * replay did not skip (dec[]: skipped work costs 0 on both sides), table[i] keeps cycles[i] (the
 * call through the core table) and cycles[i] becomes the direct call's; for every other event
 * table[i] = cycles[i]. Sets run->direct_calls. O(events). */
void agbsim_direct_substitute(struct agbsim_run *run, const struct agbsim_rom_event *dec,
			      const struct agbsim_rom_event *dir, uint32_t *cycles, uint32_t *table);

/* The table-call figures beside the direct ones: a second metrics pass over the same
 * observations with the table run's cycles (agbsim_table_observe), whose statistics of the ops
 * the direct run times go to run->table_call (agbsim_table_end). These and the three above are
 * only built with AGB_MEASURE_ENABLED. */
struct agbsim_table_figures {
	struct agb_metrics_acc acc;
	struct agb_metrics m;
	uint32_t *cyc;
	const uint32_t *table;
};
int agbsim_table_begin(struct agbsim_table_figures *tf, const struct agb_trace *t, uint32_t unit,
		       const uint32_t *table);
void agbsim_table_observe(struct agbsim_table_figures *tf, const struct agb_replay_obs *o);
void agbsim_table_end(struct agbsim_table_figures *tf, const struct agb_replay_result *res,
		      struct agbsim_run *run);

/* agbsim_measure_run for a GBA-only core: the ROM replays run->trace once with the configured
 * arena (decisions, failures, measured cycles, live bytes, the final walk, the peak sbrk break);
 * with RUN_MIN_ARENA and failures, once more with the whole EWRAM region. min_arena_bytes is the
 * peak break (rounded up to the min-arena step) of a run without failures: sbrk is all or
 * nothing and the allocator's decisions before its first refused sbrk do not depend on the
 * limit, so any smaller pool fails and any pool at least that large serves the same run; 0 when
 * even the whole region fails. Returns AGBSIM_EXIT_OK, AGBSIM_EXIT_USAGE (placement or arena
 * that does not apply) or AGBSIM_EXIT_IO; run->error says why. */
int agbsim_measure_gba_only(struct agbsim_run *run, unsigned options,
			    const struct agbsim_measure_opts *mo, struct agbsim_measured *per_event);

#endif
