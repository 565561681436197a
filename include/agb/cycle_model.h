/* The fitted cycle model (DESIGN section 7): per core and op, the cycles of one call estimated
 * from what the host machine counts for it:
 *     cycles = max(0, (base + bus * bus_cycles + acc * accesses) / 16)
 * base, bus and acc in 1/16 cycle, signed (a fit may trade a per-access weight against the bus
 * weight). Fitted by scripts/fit-cycle-model against mGBA measurements of the bench ROM (cores as
 * Thumb in ROM, WAITCNT=4317h) on traces/calib/, and written to src/sim/cycle_model.c.
 * An op without a fitted row (`fitted` 0) uses the core's own agb_cost_model.
 * Freestanding. */
#ifndef AGB_CYCLE_MODEL_H
#define AGB_CYCLE_MODEL_H

#include <stdint.h>

#include "agb/trace.h"

struct agb_cycle_coeffs {
	int32_t base, bus, acc; /* 1/16 cycle */
	int32_t fitted;         /* 0: no measurement for this op: use the core's agb_cost_model */
};

struct agb_cycle_model {
	const char *core; /* --allocator= name */
	struct agb_cycle_coeffs op[AGB_OP_COUNT];
};

/* NULL-terminated (core == NULL) table, generated. */
extern const struct agb_cycle_model agb_cycle_models[];

/* The fitted model of the core called `name`, or NULL. O(cores). */
const struct agb_cycle_model *agb_cycle_model_find(const char *name);

/* Cycles of one call by a fitted row. */
static inline uint32_t agb_cycle_model_eval(const struct agb_cycle_coeffs *k, uint32_t bus,
					    uint32_t accesses)
{
	int64_t c = (int64_t)k->base + (int64_t)k->bus * bus + (int64_t)k->acc * accesses;
	return c <= 0 ? 0u : (uint32_t)((c + 8) >> 4);
}

#endif
