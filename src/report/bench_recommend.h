/* What to use: the one recommendation rule (docs/recommendation.md),
 * computed once here and printed by `agbsim bench` (table, md) and the HTML report. */
#ifndef AGBSIM_BENCH_RECOMMEND_H
#define AGBSIM_BENCH_RECOMMEND_H

#include <stddef.h>
#include <stdio.h>

#include "cli/agbsim.h"

/* A faster core is preferred over the one with the smallest pool need when it needs at most
 * this share more (1/AGB_REC_MARGIN_DIV of the smallest need, at least one min-arena step). */
#define AGB_REC_MARGIN_DIV 16u
/* Means within this many percent are a tie (broken by the lower worst op, then listing order). */
#define AGB_REC_TIE_PCT 1.0
/* The pool to reserve: the chosen core's largest min arena plus 1/AGB_REC_HEADROOM_DIV of it,
 * rounded up to AGB_REC_ROUND bytes (a linker script's heap size), at most the region. */
#define AGB_REC_HEADROOM_DIV 4u
#define AGB_REC_ROUND 1024u

/* One core's figures over every trace of one arena. */
struct agbsim_rec_core {
	const struct agb_heap_core *core;
	size_t traces;      /* traces of the arena it produced numbers for */
	size_t failed;      /* of those, traces with a failed request at the pool */
	uint32_t need;      /* the largest min arena over them; 0: unknown (not searched, or the
			     * whole region fails on one) */
	double mean;        /* memory-op cycles per memory op over them */
	uint32_t worst;     /* the worst single op over them */
	int avoid;          /* the guide tells users to avoid it (buddy, slots, firstfit) */
	int reference;      /* a GBA-only reference (newlib, newlib-nano: the libc malloc a game
			     * gets without agbmem), shown beside the cores, never chosen */
};

enum agbsim_rec_status {
	REC_CHOSEN,       /* core set */
	REC_NOTHING_FITS, /* no core served every request of every trace at the pool */
	REC_NO_NUMBERS    /* no core produced numbers for the arena */
};

/* The rule's answer for one arena. */
struct agbsim_recommendation {
	enum agb_arena arena;
	int status;                          /* enum agbsim_rec_status */
	size_t ntraces;                      /* traces of the arena */
	uint32_t pool;                       /* the pool they were replayed with (EWRAM: --pool) */
	int pools_differ;                    /* 1: the traces ran with their own, unequal pools */
	const struct agbsim_rec_core *chosen; /* REC_CHOSEN: the core to use */
	const struct agbsim_rec_core *tie;   /* a core as fast and with the same need, or NULL */
	uint32_t smallest_need;              /* the smallest need among the candidates (0: none) */
	uint32_t margin;                     /* how much more a faster core may need */
	int avoided_only;                    /* only cores the guide says to avoid fit */
	int by_need;                         /* 1: the pool need decided (min arena searched) */
	uint32_t reserve;                    /* EWRAM: bytes to reserve (0: not applicable) */
	struct agbsim_rec_core cores[32];    /* every core that ran the arena, in listing order */
	size_t ncores;
	const struct agb_heap_core *na[32];  /* cores with no numbers on any trace (n/a rows) */
	size_t nna;
};

/* Applies the rule to the runs of arena `arena` (min_arena_searched 0: pool needs unknown, the
 * fastest candidate wins). Returns 1 with *out filled, or 0 when no run is of that arena. O(n
 * x cores). */
int agbsim_recommend(const struct agbsim_run *runs, size_t n, enum agb_arena arena,
		     int min_arena_searched, struct agbsim_recommendation *out);

/* 1 when the guide tells users to avoid the core (docs/recommendation.md, step 1). */
int agbsim_rec_avoided(const char *core);

/* The pool to reserve for a need: need + need / AGB_REC_HEADROOM_DIV rounded up to
 * AGB_REC_ROUND, at most region_bytes; 0 for need 0. Pure. */
uint32_t agbsim_rec_reserve(uint32_t need, uint32_t region_bytes);

/* Prints, for each trace of the n runs (in run order), the smallest pool each core needs (min
 * arena, EWRAM and OBJ VRAM traces), then per arena the rule's answer: the core to use and why,
 * the pool to reserve, a tie, the cores that also fit and those that failed, or that nothing
 * fits. fmt FORMAT_TABLE prints plain lines, FORMAT_MD a list. min_arena_searched 0 (bench
 * --no-min-arena): no pool needs, the fastest core with no failure. O(n^2) in runs. */
void agbsim_bench_recommend(FILE *out, enum agbsim_format fmt, const struct agbsim_run *runs,
			    size_t n, int min_arena_searched);

#endif
