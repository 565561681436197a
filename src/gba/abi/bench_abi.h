/* bench_abi.h — the contract between `agbsim measure` (host: src/trace/trace_bin.c packs,
 * src/cli/cmd_measure.c reads the markers) and the bench ROM (src/gba/roms/bench.c).
 * Plain fixed-width types only: included by the freestanding ROM code and by the host.
 *
 * Payload (the trace blob the runner appends to the ROM, agb_gba_abi.h), little-endian:
 *   struct agb_bin_header at offset 0, then at events_offset (4-aligned) event_count events of
 *   20 bytes laid out exactly as struct agb_event (u8 op, u8 pad[3], u32 id, slot, size, align),
 *   so the ROM hands the array in ROM straight to the replay engine without unpacking.
 *
 * Markers (agb_mark(id, value), SWI 0xF0, recorded by the host with mTimingGlobalTime):
 *   OP_BEGIN(index) / OP_END(addr)  bracket exactly one core call (engine hooks in replay.c);
 *                                   index 0xFFFFFFFF = an empty calibration pair.
 *   OBS(index), OBS_ADDR(addr), OBS_GRANTED(bytes), OBS_INFO(outcome | result << 8)
 *                                   what the engine observed for event index (untimed).
 *   OBS_LIVE(bytes), OBS_LIVE_GRANTED(bytes)   with AGB_BENCH_OBS_LIVE, after OBS_INFO.
 *   WALK_ADDR(addr), WALK_BYTES(bytes << 2 | kind)   the final walk(), one pair per run.
 *   DIRECT(0)                       the direct run begins (AGB_BENCH_DIRECT, heap-like cores
 *                                   and tiles): OP_BEGIN/OP_END pairs after it time direct
 *                                   calls; tiles: DIRECT_INFO(detail) after each pair.
 *   DONE(status)                    last marker.
 * Results (agb_results.values[]): see AGB_BENCH_V_*.
 */
#ifndef AGB_BENCH_ABI_H
#define AGB_BENCH_ABI_H

#include <stdint.h>

#define AGB_BIN_MAGIC "AGBTRC01"
#define AGB_BIN_VERSION 1u
#define AGB_BIN_EVENT_BYTES 20u
#define AGB_BIN_NAME_BYTES 24u

/* bench_flags */
#define AGB_BENCH_SCREEN 0x1u    /* draw progress, memory map and figures (bitmap mode 4) */
#define AGB_BENCH_OBS 0x2u       /* emit OBS* markers (placements for the equivalence check) */
#define AGB_BENCH_OBS_LIVE 0x4u  /* also OBS_LIVE* (GBA-only cores: no host run knows them) */
/* tiles only: after the replay, replay the trace's ref/unref sequence again on a fresh manager
 * as a game's scroll routine makes it -- the inline agb_tiles_ref / agb_tiles_unref called
 * directly from a loop over the events (no replay engine, no core table) -- and time the whole
 * loop once with the timer cascade, then the same loop without the calls: values
 * AGB_BENCH_V_DIRECT_*. Untimed by markers; decisions are the replay's (checked there). */
#define AGB_BENCH_DIRECT 0x8u
/* Heap-like cores (those with a typed alloc/free/realloc, and newlib's malloc): with
 * AGB_BENCH_DIRECT, after the replay the ROM initialises the core again through the engine (a
 * replay of no events) and replays the trace's alloc/free/realloc once more calling the core's
 * own functions directly (agb_<core>_alloc/free/realloc; malloc/memalign/free/realloc), as a
 * game calls them: arguments and slot look-ups before OP_BEGIN, one BL inside the pair, granted
 * NULL where the core allows it. It emits DIRECT first, then one OP_BEGIN/OP_END pair per call
 * (OP_END carries the returned address: the host checks every one against the replay's), and
 * checks the final walk against the replay's (else AGB_BENCH_DIRECT_DIFFERS). Other ops of the
 * trace (frame, sprites, mark/reset/side) go through the core table untimed. tiles: the same
 * for ref/unref (agb_tiles_ref / agb_tiles_unref inline between the markers), each pair
 * followed by DIRECT_INFO(detail), which the host checks against the replay's result. A trace with an op
 * the direct run cannot serve gets no direct run (AGB_BENCH_V_DIRECT_CALLS 0).
 * AGB_BENCH_DIRECT_ONLY: the direct run alone, no replay before it (newlib: its state cannot
 * be reset within one ROM run, so the host runs the ROM twice); the final walk and figures are
 * then the direct run's. */
#define AGB_BENCH_DIRECT_ONLY 0x10u

struct agb_bin_header {
	char magic[8];         /* AGB_BIN_MAGIC */
	uint32_t version;      /* AGB_BIN_VERSION */
	uint32_t header_bytes; /* sizeof(struct agb_bin_header) */
	uint32_t arena;        /* enum agb_arena */
	uint32_t arena_bytes;  /* the trace's own */
	uint32_t event_count;
	uint32_t slots;
	uint32_t frame_count;
	uint32_t event_bytes;   /* AGB_BIN_EVENT_BYTES */
	uint32_t events_offset; /* from the start of the payload, 4-aligned */
	/* The run: the same struct agb_replay_config as the host run. */
	uint32_t core_index;    /* index into agb_heap_cores[] (checked against core_name) */
	uint32_t cfg_arena_bytes;
	uint32_t cfg_meta;      /* enum agb_meta_region */
	uint32_t cfg_core_flags;
	uint32_t cfg_flags;     /* AGB_REPLAY_* */
	uint32_t bench_flags;   /* AGB_BENCH_* */
	char core_name[AGB_BIN_NAME_BYTES]; /* NUL-terminated */
	char trace_name[AGB_BIN_NAME_BYTES]; /* for the screen, NUL-terminated (may be cut) */
};

enum {
	AGB_MARK_OP_BEGIN = 0xB0,
	AGB_MARK_OP_END = 0xB1,
	AGB_MARK_OBS = 0xB2,
	AGB_MARK_OBS_ADDR = 0xB3,
	AGB_MARK_OBS_GRANTED = 0xB4,
	AGB_MARK_OBS_INFO = 0xB5,
	AGB_MARK_OBS_LIVE = 0xB6,         /* live bytes requested after the event */
	AGB_MARK_OBS_LIVE_GRANTED = 0xB7, /* live bytes granted after the event */
	AGB_MARK_WALK_ADDR = 0xB8,
	AGB_MARK_WALK_BYTES = 0xB9,
	AGB_MARK_DIRECT = 0xBA,           /* the direct run starts: the pairs after it are its calls */
	AGB_MARK_DIRECT_INFO = 0xBB,      /* tiles: the direct ref/unref's detail, after its pair */
	AGB_MARK_DONE = 0xBF
};
#define AGB_MARK_CALIB_INDEX 0xFFFFFFFFu
#define AGB_BENCH_CALIB_PAIRS 16u

/* agb_results.status of the bench ROM */
enum agb_bench_status {
	AGB_BENCH_OK = 0,
	AGB_BENCH_NO_PAYLOAD = 1,
	AGB_BENCH_BAD_PAYLOAD = 2,
	AGB_BENCH_NO_CORE = 3,       /* core_index/core_name not in this ROM */
	AGB_BENCH_NO_ROOM = 4,       /* slot table or code would overlap the arena or meta area */
	AGB_BENCH_DIRECT_DIFFERS = 5, /* the direct run did not end in the replay's memory map */
	AGB_BENCH_REPLAY_FAILED = 16 /* + enum agb_replay_status */
};

/* agb_results.values[] */
enum {
	AGB_BENCH_V_EVENTS = 0,   /* events replayed */
	AGB_BENCH_V_FAILURES,
	AGB_BENCH_V_WALK_RUNS,
	AGB_BENCH_V_WALK_SUM,     /* FNV-1a over (addr, bytes, kind) words of the final walk */
	AGB_BENCH_V_FREE_BYTES,   /* final stats */
	AGB_BENCH_V_LARGEST_FREE,
	AGB_BENCH_V_FREE_RUNS,
	AGB_BENCH_V_REPLAY_STATUS,
	AGB_BENCH_V_FAILED_EVENT,
	AGB_BENCH_V_SLOTS_ADDR,   /* where the slot table went */
	AGB_BENCH_V_HEAP_PEAK,    /* newlib ROMs: highest sbrk break minus the arena start; else 0 */
	AGB_BENCH_V_OVERHEAD,     /* the core's overhead_bytes() at the end */
	AGB_BENCH_V_DIRECT_OPS,   /* AGB_BENCH_DIRECT: ref + unref calls in the direct loop, else 0 */
	AGB_BENCH_V_DIRECT_CYCLES, /* the loop with the calls, timer pair cost subtracted */
	AGB_BENCH_V_DIRECT_EMPTY, /* the same loop without the calls (subtract it from the above) */
	AGB_BENCH_V_DIRECT_CALLS, /* heap-like cores, AGB_BENCH_DIRECT: calls the direct run timed
				   * (0: no direct run for this core or trace) */
	AGB_BENCH_V_DIRECT_FAILURES, /* allocs and reallocs of the direct run that returned NULL */
	AGB_BENCH_V_COUNT
};

#endif
