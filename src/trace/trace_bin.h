/* trace_bin.h — the binary form of a loaded trace that the bench ROM replays (src/gba/roms/bench.c).
 * Layout and field meanings: src/gba/abi/bench_abi.h (header + events exactly as struct agb_event,
 * little-endian, so the ROM replays the events in place from cartridge space). */
#ifndef AGB_TRACE_BIN_H
#define AGB_TRACE_BIN_H

#include <stddef.h>
#include <stdint.h>

#include "agbsim/replay.h"
#include "agbsim/trace.h"

/* What the ROM should run: the same core and config as the host run. */
struct agb_bin_run {
	const struct agb_heap_core *core;
	uint32_t core_index;        /* index of core in agb_heap_cores[] */
	struct agb_replay_config cfg;
	uint32_t bench_flags;       /* AGB_BENCH_* */
};

/* Packs t and run into a newly malloc'ed blob (*out, *len). Returns 0, or -1 when out of memory
 * or the trace cannot be represented (more than the ROM space of 32 MiB). */
int agb_trace_pack(const struct agb_trace *t, const struct agb_bin_run *run, void **out,
		   size_t *len);

#endif
