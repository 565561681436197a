/* The fitted cycle model (docs/design.md, "Cycle figures"): per core and op, the cycles of one call estimated
 * from what the host machine counts for it:
 *     cycles = max(0, (base + bus * bus_cycles + acc * accesses + st * stores
 *                      + rom * rom_reads + lg * size_log2 + wk * work) / 16)
 * bus_cycles are the wait-state cycles of the call's data accesses, accesses all of them, stores
 * the stores among them, rom_reads the ROM loads (const-table reads, e.g. a bit scan), and
 * size_log2 the ceiling of log2 of the op's size (requested bytes of an alloc, realloc or free;
 * the event's size for other ops): work that scales with the size class without touching memory
 * (a class search), and work the units of instruction work the core declares with AGB_WORK
 * (a tree node visited, a rotation, a list node walked: register work the bus hardly sees). The
 * per-access weights carry the instruction work around each access, which differs by kind on
 * the ARM7TDMI (LDR 1S+1N+1I, STR 2N, a table read also costs its index arithmetic), and the
 * base the fixed work of the call. Coefficients in 1/16 cycle, signed (a fit may trade a weight
 * against another). Fitted by scripts/fit-cycle-model against mGBA measurements of the bench ROM
 * (cores as Thumb in ROM, WAITCNT=4317h) on traces/calib/, and written to src/engine/cycle_model.c.
 * An op without a fitted row (`fitted` 0) uses the core's own agb_cost_model.
 * The resource cache's lock and touch call the core (a load's alloc, each eviction's free and
 * retried alloc): their rows cover the cache's own part of the inputs only, and the core calls
 * inside (agb_replay_obs.nest, from agb_machine.nest) are priced by the core's own alloc and free rows, each call at
 * the op's size_log2 (agb_cycle_model_eval_op). A hit and a miss then differ by the core's
 * calls, as they do on the GBA, instead of by weights one row would have to share. The core's
 * rows are fitted on direct calls (a game's BL to agb_buddy_alloc); the cache calls through the
 * core's table, whose adapter (a forwarding call, or the core's code inlined into it) the
 * direct rows never see: the op's own row prices it per nested call (`call`, times calls).
 * Each row also keeps its calibration range: the largest size_log2, work units and accesses of
 * one calibration call. A call beyond any of them (or an op with no row that did work) is
 * extrapolated: the replay counts it, and the CLI says so and suggests --cycles=mgba.
 * Freestanding. */
#ifndef AGB_CYCLE_MODEL_H
#define AGB_CYCLE_MODEL_H

#include <stdint.h>

#include "agbsim/trace.h"

struct agb_cycle_coeffs {
	int32_t base, bus, acc, st, rom, lg, wk; /* 1/16 cycle */
	int32_t call; /* 1/16 cycle per core call nested in the op (lock and touch; 0 elsewhere) */
	int32_t fitted; /* 0: no measurement for this op: use the core's agb_cost_model */
	uint32_t max_lg, max_work, max_acc; /* calibration range of the row (all 0: unknown) */
};

/* 1 when a call with these inputs lies outside what row k was fitted on. O(1). */
static inline int agb_cycle_model_extrapolates(const struct agb_cycle_coeffs *k, uint32_t accesses,
					       uint32_t size_log2, uint32_t work)
{
	if (!k->fitted)
		return accesses != 0;
	if (k->max_lg == 0 && k->max_work == 0 && k->max_acc == 0)
		return 0;
	return size_log2 > k->max_lg || work > k->max_work || accesses > k->max_acc;
}

struct agb_cycle_model {
	const char *core; /* --allocator= name */
	struct agb_cycle_coeffs op[AGB_OP_COUNT];
};

/* NULL-terminated (core == NULL) table, generated. */
extern const struct agb_cycle_model agb_cycle_models[];

/* The fitted model of the core called `name`, or NULL. O(cores). */
const struct agb_cycle_model *agb_cycle_model_find(const char *name);

/* ceil(log2(size)), 0 for sizes 0 and 1: the size_log2 input. O(1). */
static inline uint32_t agb_cycle_size_log2(uint32_t size)
{
	return size <= 1u ? 0u : 32u - (uint32_t)__builtin_clz(size - 1u);
}

/* Cycles of one call by a fitted row, `calls` core calls nested in it (0 but for lock and touch
 * when agb_cycle_nests). O(1). */
static inline uint32_t agb_cycle_model_eval(const struct agb_cycle_coeffs *k, uint32_t bus,
					    uint32_t accesses, uint32_t stores, uint32_t rom_reads,
					    uint32_t size_log2, uint32_t work, uint32_t calls)
{
	int64_t c = (int64_t)k->base + (int64_t)k->bus * bus + (int64_t)k->acc * accesses +
		    (int64_t)k->st * stores + (int64_t)k->rom * rom_reads + (int64_t)k->lg * size_log2 +
		    (int64_t)k->wk * work + (int64_t)k->call * calls;
	return c <= 0 ? 0u : (uint32_t)((c + 8) >> 4);
}

/* Whether op's model prices the core calls nested in it (agb_replay_obs.nest: na the alloc calls, nf the free calls) apart: lock and
 * touch, when the core's alloc and free rows are fitted. */
static inline int agb_cycle_nests(const struct agb_cycle_model *fit, unsigned op)
{
	return (op == AGB_OP_LOCK || op == AGB_OP_TOUCH) && fit->op[AGB_OP_ALLOC].fitted &&
	       fit->op[AGB_OP_FREE].fitted;
}

/* Field f (0 calls, 1 bus, 2 accesses, 3 stores, 4 rom_reads, 5 work) of the nested core calls that
 * agb_cycle_model_eval_op prices apart; 0 when the op's row takes them. */
static inline uint32_t agb_cycle_nested(const struct agb_cycle_model *fit, unsigned op,
					const uint32_t *nest_alloc, const uint32_t *nest_free, unsigned f)
{
	return agb_cycle_nests(fit, op) ? nest_alloc[f] + nest_free[f] : 0u;
}

/* n[0] calls of row k with the summed inputs n[1..5], each at size_log2 (1/16 cycle). */
static inline int64_t agb_cycle_model_sum(const struct agb_cycle_coeffs *k, const uint32_t n[6],
					  uint32_t size_log2)
{
	return ((int64_t)k->base + (int64_t)k->lg * size_log2) * n[0] + (int64_t)k->bus * n[1] +
	       (int64_t)k->acc * n[2] + (int64_t)k->st * n[3] + (int64_t)k->rom * n[4] +
	       (int64_t)k->wk * n[5];
}

/* One op's model cycles: its row over its inputs; for lock and touch (agb_cycle_nests) the row
 * over the cache's own part of them and the number of core calls the cache made, plus those
 * calls priced by the core's alloc and free rows at the op's size_log2. O(1). */
static inline uint32_t agb_cycle_model_eval_op(const struct agb_cycle_model *fit, unsigned op,
					       uint32_t bus, uint32_t accesses, uint32_t stores,
					       uint32_t rom_reads, uint32_t size_log2, uint32_t work,
					       const uint32_t *na, const uint32_t *nf)
{
	int64_t c;
	uint32_t own = agb_cycle_model_eval(&fit->op[op], bus - agb_cycle_nested(fit, op, na, nf, 1),
					    accesses - agb_cycle_nested(fit, op, na, nf, 2),
					    stores - agb_cycle_nested(fit, op, na, nf, 3),
					    rom_reads - agb_cycle_nested(fit, op, na, nf, 4), size_log2,
					    work - agb_cycle_nested(fit, op, na, nf, 5),
					    agb_cycle_nested(fit, op, na, nf, 0));
	if (!agb_cycle_nests(fit, op))
		return own;
	c = agb_cycle_model_sum(&fit->op[AGB_OP_ALLOC], na, size_log2) +
	    agb_cycle_model_sum(&fit->op[AGB_OP_FREE], nf, size_log2);
	return own + (c <= 0 ? 0u : (uint32_t)((c + 8) >> 4));
}

#endif
