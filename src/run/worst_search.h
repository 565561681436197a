/* The worst-case search (agbsim worst): a fuzzer whose fitness is cycles. For one core, one op
 * and one pool size it mutates op sequences (allocs, frees, reallocs, tile refs and unrefs),
 * replays each on the emulated machine and keeps what costs more under the host cycle model
 * (agbsim/cycle_model.h): the most expensive single call of the op, and with frame_ops the most
 * expensive run of frame_ops consecutive core calls (a frame's work).
 *
 * How: a steady-state evolutionary search over genomes, each a list of genes that always
 * decode to a valid trace (a free names the k-th live block, counted from the oldest or the
 * newest, so no mutation makes a trace the loader would refuse). Mutations: change one
 * request's size or alignment, insert or delete a gene, copy a segment elsewhere or repeat it,
 * insert a run of equal allocs or a run of frees that empties a stretch or every other block
 * (the patterns that build long free lists and fragmented maps), and cross two genomes.
 * Elite pools of POOL genomes per objective; a child replaces a pool's weakest when it costs
 * more (equal cost: when it is shorter).
 *
 * Determinism: the only randomness is MT19937 seeded by `seed`; with an eval budget the same
 * inputs give the same result on every machine. A seconds budget stops at a clock, so the
 * number of evaluations (and possibly the result) varies; the result says how many were made.
 * Host only (malloc). */
#ifndef AGBSIM_WORST_SEARCH_H
#define AGBSIM_WORST_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "agb/heap.h"
#include "agbsim/replay.h"
#include "agbsim/trace.h"

struct agb_worst_params {
	const struct agb_heap_core *core;
	enum agb_arena arena;
	uint32_t pool_bytes;  /* the arena's bytes (the trace's arena_bytes) */
	enum agb_op op;       /* the op whose single call is maximised: alloc, free, realloc, ref, unref */
	uint32_t frame_ops;   /* 0: no frame objective; else frames of this many core calls */
	uint32_t seed;
	uint64_t max_evals;   /* evaluation budget (0: none; then max_seconds must be > 0) */
	double max_seconds;   /* clock budget (0: none) */
	uint32_t max_ops;     /* genes per genome, at most (default 1500 when 0) */
	uint32_t max_align;   /* largest alignment requested (a power of two; 0 or 1: none, as
			       * malloc; OBJ VRAM: bytes, 32 per tile) */
	struct agb_replay_config cfg; /* meta region, core flags (core and arena_bytes set here) */
};

/* The worst found for one objective: the trace up to and including the costly call (single
 * call) or the frame (frame objective), the event index of that call or the frame's first
 * call, and its model cycles. */
struct agb_worst_found {
	struct agb_event *events; /* malloc'd, event_count entries */
	uint32_t event_count, slots;
	uint32_t index;     /* the costly call, or the frame's first core call */
	uint32_t last;      /* the frame's last core call (== index for a single call) */
	uint32_t cycles;    /* model cycles of the call, or summed over the frame */
	uint32_t requested; /* the call's size (alloc/realloc/free) or bpp (ref/unref) */
	int found;          /* 0: no call of the op was made */
};

struct agb_worst_result {
	struct agb_worst_found call, frame;
	uint64_t evals;
	uint32_t improvements; /* times the best single call rose */
	double seconds;
	uint32_t first_found_eval; /* eval at which the final best call was first reached */
	int status;  /* 0; -1 out of memory; else the agb_replay_status that stopped a replay */
	uint32_t bad_event; /* with a replay status: the event the core refused */
	const char *why;
};

/* Runs the search. Returns 0 (result filled; release with agb_worst_release), -1 when out of
 * memory, or 1 when a replay failed in a way no valid trace should (init refused the pool, an
 * op the core does not serve): result->status and why say which. O(budget x genome length). */
int agb_worst_search(const struct agb_worst_params *p, struct agb_worst_result *result);

void agb_worst_release(struct agb_worst_result *r);

/* The trace of one objective's worst, for writing or replaying (points into f). */
void agb_worst_trace(const struct agb_worst_params *p, const struct agb_worst_found *f,
		     struct agb_trace *out);

#endif
