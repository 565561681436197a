/* agbsim measure: the same replay on the emulated ARM7TDMI (bench ROM in libmgba), with
 * measured cycles. Used by `agbsim measure` and `agbsim bench --cycles=mgba|both`. */
#ifndef AGBSIM_MEASURE_H
#define AGBSIM_MEASURE_H

#include <stdint.h>
#include <stdio.h>

#include "cli/agbsim.h"

/* 1 when this agbsim was built with libmgba and the bench ROMs. */
int agbsim_measure_available(void);

enum agbsim_placement { PLACEMENT_ROM, PLACEMENT_IWRAM };

struct agbsim_measure_opts {
	enum agbsim_placement placement;
	int screen;            /* let the ROM draw (costs emulation time only, never measured time) */
	const char *png_path;  /* save the last frame here (implies screen) */
	FILE *events_out;      /* --events-out: the mGBA run's outcomes, replay's format; or NULL */
	int quiet;             /* no progress on stderr */
};

/* Per-event cycles of one measured run, both sources (NULL unless requested). */
struct agbsim_measured {
	uint32_t *model;  /* event_count entries: the host model's estimate */
	uint32_t *mgba;   /* event_count entries: measured in mGBA, marker cost subtracted */
	uint32_t marker_overhead; /* cycles of an empty marker pair, subtracted */
	uint64_t emulated_cycles;
	/* tiles: the trace's ref/unref calls made directly (inline agb_tiles_ref/unref from a
	 * loop, no core table), timed as one loop minus the same loop without the calls; 0 ops
	 * for other cores. */
	uint32_t direct_ops;
	uint32_t direct_cycles, direct_empty;
};

/* Runs run->trace on run->core in mGBA and on the host, checks that both made the same
 * decisions (every offset, failure and granted size, and the final walk), and fills run's
 * result and metrics with the cycle figures replaced by the measured ones (cycle_source
 * "mgba"). Returns AGBSIM_EXIT_OK, AGBSIM_EXIT_USAGE (the core cannot run the trace) or
 * AGBSIM_EXIT_IO (no ROM, mGBA failed, the runs disagree); run->error says why. If `per_event`
 * is not NULL it receives malloc'ed per-event cycle arrays (free with agbsim_measured_free). */
int agbsim_measure_run(struct agbsim_run *run, unsigned options,
		       const struct agbsim_measure_opts *mo, struct agbsim_measured *per_event);
void agbsim_measured_free(struct agbsim_measured *m);

int agbsim_cmd_measure(int argc, char **argv);

#endif
