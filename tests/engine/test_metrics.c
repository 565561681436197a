/* Metrics on small traces whose figures are computed by hand, with a transparent fake core:
 * address-ordered first fit over 16 units of 8 bytes (a 128-byte pool, no metadata), one
 * EWRAM halfword access per call so every op's modelled cost is known exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "agbsim/metrics.h"
#include "agbsim/replay.h"

#define UNITS 16u
#define UNIT 8u
/* EWRAM outside the pool: the fake core's one access per call must not touch live blocks. */
#define SCRATCH (AGB_MEM_EWRAM + 0x1000u)

struct fake {
	agb_machine *m;
	uint32_t base;
	uint8_t owner[UNITS]; /* 0 free, else the run's length at its first unit, 0xFF inside */
};

static int fake_init(void *st, agb_machine *m, const struct agb_heap_config *c)
{
	struct fake *f = st;
	f->m = m;
	f->base = c->arena_addr;
	for (unsigned i = 0; i < UNITS; i++)
		f->owner[i] = 0;
	return c->arena_bytes == UNITS * UNIT ? AGB_HEAP_OK : AGB_HEAP_ARENA_TOO_SMALL;
}

static uint32_t fake_alloc(void *st, uint32_t size, uint32_t align, uint32_t *granted)
{
	struct fake *f = st;
	uint32_t n = (size + UNIT - 1) / UNIT;
	(void)align;
	(void)AGB_LD16(f->m, SCRATCH); /* the one counted access: 3 cycles in EWRAM */
	for (uint32_t at = 0; at + n <= UNITS; at++) {
		uint32_t k = 0;
		while (k < n && f->owner[at + k] == 0)
			k++;
		if (k == n) {
			f->owner[at] = (uint8_t)n;
			for (k = 1; k < n; k++)
				f->owner[at + k] = 0xFF;
			*granted = n * UNIT;
			return f->base + at * UNIT;
		}
	}
	return AGB_NULL;
}

static void fake_free(void *st, uint32_t addr)
{
	struct fake *f = st;
	uint32_t at = (addr - f->base) / UNIT, n = f->owner[at];
	AGB_ST16(f->m, SCRATCH, 0);
	for (uint32_t k = 0; k < n; k++)
		f->owner[at + k] = 0;
}

static void fake_stats(void *st, struct agb_heap_stats *s)
{
	struct fake *f = st;
	uint32_t run = 0;
	*s = (struct agb_heap_stats){0};
	for (unsigned i = 0; i <= UNITS; i++) {
		if (i < UNITS && f->owner[i] == 0) {
			run++;
			continue;
		}
		if (run != 0) {
			uint32_t b = run * UNIT;
			s->free_bytes += b;
			s->free_runs++;
			s->free_sq_sum += (uint64_t)b * b;
			if (b > s->largest_free)
				s->largest_free = b;
		}
		run = 0;
	}
}

static void fake_walk(void *st, agb_walk_fn fn, void *ctx)
{
	(void)st;
	(void)fn;
	(void)ctx;
}

static int fake_check(void *st, const char **why)
{
	(void)st;
	(void)why;
	return 0;
}

static uint32_t fake_overhead(void *st)
{
	(void)st;
	return 0;
}

static const struct agb_heap_core fake_core = {
	.name = "fake",
	.summary = "test double",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM),
	.unit = UNIT,
	.state_bytes = sizeof(struct fake),
	.init = fake_init,
	.alloc = fake_alloc,
	.free = fake_free,
	.stats = fake_stats,
	.walk = fake_walk,
	.check = fake_check,
	.overhead_bytes = fake_overhead,
	.model = {.alloc_base = 10, .free_base = 5, .realloc_base = 0, .per_access = 16},
};

#define EV(op, id, slot, size) {(op), {0, 0, 0}, (id), (slot), (size), 1}

static const struct agb_event events[] = {
	EV(AGB_OP_ALLOC, 1, 0, 16), /* units 0-1 */
	EV(AGB_OP_ALLOC, 2, 1, 32), /* units 2-5 */
	EV(AGB_OP_ALLOC, 3, 2, 8),  /* unit 6; live 56 = peak */
	EV(AGB_OP_FREE, 2, 1, 0),   /* free runs 32 + 72 bytes */
	EV(AGB_OP_ALLOC, 4, 1, 80), /* fails although 104 bytes are free: fragmentation */
	EV(AGB_OP_ALLOC, 5, 3, 24), /* units 2-4 */
	EV(AGB_OP_FRAME, 0, 0, 0),  /* free runs 8 + 72 bytes */
	EV(AGB_OP_FREE, 1, 0, 0),
	EV(AGB_OP_FREE, 3, 2, 0),
	EV(AGB_OP_FREE, 5, 3, 0),
	EV(AGB_OP_FREE, 4, 1, 0), /* its alloc failed: skipped */
};

/* Replays EV[0..N) (SLOTS slots, FRAMES frames) on the fake core into *OUT. */
static void run_events(const struct agb_event *ev, uint32_t n, uint32_t slots, uint32_t frames,
		       uint32_t flags, struct agb_metrics *out)
{
	static agb_machine machine;
	static uint8_t ws[4096] __attribute__((aligned(8)));
	static uint32_t cycles[64];
	struct agb_trace t = {AGB_ARENA_EWRAM, UNITS * UNIT, n, slots, frames, ev, "hand", NULL};
	struct agb_replay_config cfg = {&fake_core, 0, AGB_META_DEFAULT, 0, flags};
	struct agb_replay_result res;
	struct agb_metrics_acc acc;
	assert_true(n <= sizeof cycles / sizeof cycles[0]);
	agb_machine_init(&machine, AGB_WAITCNT_DEFAULT);
	agb_metrics_begin(&acc, out, &t, fake_core.unit, cycles);
	assert_int_equal(agb_replay_run(&t, &cfg, &machine, ws, sizeof ws, agb_metrics_observe, &acc,
					&res),
			 AGB_REPLAY_OK);
	agb_metrics_end(&acc, &res);
}

static void run(struct agb_metrics *out, uint32_t flags)
{
	run_events(events, sizeof events / sizeof events[0], 4, 1, flags, out);
}

/* ["refused", size]: the core is asked the same. One it cannot serve is its failure (one larger
 * than the pool fails without asking); one it serves is freed at once, leaving the pool as it
 * was (the next alloc fits where the probe was) and no live bytes. */
static void refused_requests_are_asked_of_the_core(void **state)
{
	static const struct agb_event ev[] = {
		EV(AGB_OP_ALLOC, 1, 0, 96),     /* units 0-11 */
		EV(AGB_OP_REFUSED, 0, 0, 64),   /* 32 bytes free: fails here too */
		EV(AGB_OP_REFUSED, 0, 0, 16),   /* served, freed */
		EV(AGB_OP_REFUSED, 0, 0, 1000), /* more than the pool */
		EV(AGB_OP_ALLOC, 2, 1, 32),     /* units 12-15: the probe gave them back */
		EV(AGB_OP_FREE, 1, 0, 0),
		EV(AGB_OP_FREE, 2, 1, 0),
	};
	struct agb_metrics m;
	(void)state;
	run_events(ev, sizeof ev / sizeof ev[0], 2, 0, AGB_REPLAY_CHECK, &m);
	assert_int_equal(m.refused, 3);
	assert_int_equal(m.refused_served, 1);
	assert_int_equal(m.failures, 2);
	assert_int_equal(m.first_failure_event, 1);
	assert_int_equal(m.allocs, 2);
	assert_int_equal(m.peak_live_bytes, 128);
	assert_int_equal(m.live_bytes_end, 0);
	assert_int_equal(m.cycles[AGB_OP_REFUSED].max, 0); /* not the game's work: not priced */
	assert_int_equal(m.all_ops.count, 4);               /* the two allocs and two frees */
}

static void counts_and_live_bytes(void **state)
{
	struct agb_metrics m;
	(void)state;
	run(&m, AGB_REPLAY_CANARIES);
	assert_int_equal(m.events, 11);
	assert_int_equal(m.allocs, 5);
	assert_int_equal(m.frees, 5);
	assert_int_equal(m.frames, 1);
	assert_int_equal(m.peak_live_bytes, 56);
	assert_int_equal(m.internal_bytes, 0);
	assert_int_equal(m.corrupted_bytes, 0);
	assert_int_equal(m.skipped, 1);
}

static void failures_tell_fragmentation_from_exhaustion(void **state)
{
	struct agb_metrics m;
	(void)state;
	run(&m, AGB_REPLAY_CANARIES);
	assert_int_equal(m.failures, 1);
	assert_int_equal(m.frag_failures, 1); /* 104 bytes free >= 80 requested */
	assert_int_equal(m.first_failure_event, 4);
	assert_int_equal(m.live_bytes_at_first_failure, 24);
}

static void fragmentation_is_sampled_at_frames(void **state)
{
	struct agb_metrics m;
	(void)state;
	run(&m, 0);
	/* At the one frame: free runs of 8 and 72 bytes. external = 1 - 72/80; umm = 1 -
	 * isqrt(8^2 + 72^2)/80 = 1 - 72/80. The failure-time sample (1 - 72/104) is not a frame. */
	assert_float_equal(m.frag_external.mean, 0.1, 1e-9);
	assert_float_equal(m.frag_external.max, 0.1, 1e-9);
	assert_float_equal(m.frag_umm.mean, 0.1, 1e-9);
	assert_float_equal(m.frag_external.final, 0.0, 1e-9); /* all free: one run */
}

static void frag_formulas(void **state)
{
	struct agb_heap_stats s = {104, 72, 2, 32u * 32u + 72u * 72u};
	(void)state;
	assert_float_equal(agb_frag_external(&s), 1.0 - 72.0 / 104.0, 1e-12);
	assert_float_equal(agb_frag_umm(&s), 1.0 - 78.0 / 104.0, 1e-12); /* isqrt(6208) = 78 */
	s = (struct agb_heap_stats){0};
	assert_float_equal(agb_frag_external(&s), 0.0, 0);
}

static void modelled_cycles_per_op_and_frame(void **state)
{
	struct agb_metrics m;
	(void)state;
	run(&m, AGB_REPLAY_CANARIES);
	/* alloc: base 10 + one EWRAM halfword (3) + 1 cycle per access = 14; free: 5 + 3 + 1. */
	assert_int_equal(m.cycles[AGB_OP_ALLOC].count, 5);
	assert_int_equal(m.cycles[AGB_OP_ALLOC].max, 14);
	assert_int_equal(m.cycles[AGB_OP_ALLOC].p50, 14);
	assert_int_equal(m.cycles[AGB_OP_FREE].count, 5);
	/* The skipped free costs nothing: p50 of {0, 9, 9, 9, 9} is 9, min 0. */
	assert_int_equal(m.cycles[AGB_OP_FREE].p50, 9);
	assert_int_equal(m.cycles[AGB_OP_FREE].total, 36);
	assert_int_equal(m.total_cycles, 5 * 14 + 36);
	/* Frame 1: five allocs and one free = 79; after it: three frees = 27. */
	assert_int_equal(m.frame_max_cycles, 79);
	assert_float_equal(m.max_frame_pct, 79.0 * 100.0 / 280896.0, 1e-9);
	assert_int_equal(m.frames_over_budget, 0);
}

/* Observations made by hand, one per event of t: id, op and size (as requested) from the
 * event, cycles and granted bytes from the arrays (NULL: 0). */
static void feed(struct agb_metrics_acc *acc, const struct agb_trace *t, const uint32_t *cycles,
		 const uint32_t *granted)
{
	for (uint32_t i = 0; i < t->event_count; i++) {
		struct agb_replay_obs o = {0};
		o.index = i;
		o.op = t->events[i].op;
		o.id = t->events[i].id;
		o.requested = t->events[i].size;
		o.cycles = cycles != NULL ? cycles[i] : 0u;
		o.granted = granted != NULL ? granted[i] : 0u;
		o.sampled = AGB_SAMPLE_NONE;
		agb_metrics_observe(acc, &o);
	}
}

/* ["frame", "load"] closes a loading frame: kept out of the budget (worst gameplay frame, frames
 * over budget) and reported as the worst loading frame. Observations are fed by hand. */
static void loading_frames_are_kept_out_of_the_budget(void **state)
{
	static const struct agb_event ev[] = {
		EV(AGB_OP_ALLOC, 1, 0, 16),
		EV(AGB_OP_FRAME, 0, 0, AGB_FRAME_LOAD), /* the level load: far over budget */
		EV(AGB_OP_ALLOC, 2, 1, 8),
		EV(AGB_OP_FRAME, 0, 0, 0), /* gameplay */
		EV(AGB_OP_FREE, 1, 0, 0),
		EV(AGB_OP_FREE, 2, 1, 0),
		EV(AGB_OP_FRAME, 0, 0, AGB_FRAME_LOAD), /* teardown */
	};
	static const uint32_t cost[] = {100000, 0, 500, 0, 40000, 2000, 0};
	static uint32_t cycles[sizeof ev / sizeof ev[0]];
	struct agb_trace t = {AGB_ARENA_EWRAM, UNITS * UNIT, sizeof ev / sizeof ev[0], 2, 3, ev, "load",
			      NULL};
	struct agb_replay_result res = {0};
	struct agb_metrics_acc acc;
	struct agb_metrics m;
	(void)state;
	agb_metrics_begin(&acc, &m, &t, UNIT, cycles);
	feed(&acc, &t, cost, NULL);
	agb_metrics_end(&acc, &res);
	assert_int_equal(m.frames, 3);
	assert_int_equal(m.frame_max_cycles, 500);
	assert_int_equal(m.frames_over_budget, 0);
	assert_float_equal(m.max_frame_pct, 500.0 * 100.0 / 280896.0, 1e-9);
	assert_int_equal(m.load_frames, 2);
	assert_int_equal(m.load_frame_max_cycles, 100000);
	assert_float_equal(m.max_load_frame_pct, 100000.0 * 100.0 / 280896.0, 1e-9);
	assert_int_equal(m.total_cycles, 142500);
}

/* Streamed sections: a mark starts a section on the current side, sync judges it at a load
 * rate against the frames since the mark, reset gives the side back what it held at the mark. */
static void sections_are_judged_at_their_doors(void **state)
{
	static const struct agb_event ev[] = {
		EV(AGB_OP_MARK, 1, 0, 0),   EV(AGB_OP_ALLOC, 1, 0, 16), /* section A: low side */
		EV(AGB_OP_SIDE, 1, 0, 0),   EV(AGB_OP_MARK, 2, 0, 0),   /* section B streams high */
		EV(AGB_OP_ALLOC, 2, 1, 24), EV(AGB_OP_FRAME, 0, 0, 0),  EV(AGB_OP_ALLOC, 3, 2, 24),
		EV(AGB_OP_SYNC, 2, 0, 0),                               /* 48 bytes after 1 frame */
		EV(AGB_OP_RESET, 1, 0, 0),                              /* A dropped */
		EV(AGB_OP_SIDE, 0, 0, 0),   EV(AGB_OP_MARK, 1, 0, 0),   EV(AGB_OP_ALLOC, 4, 0, 8),
		EV(AGB_OP_FRAME, 0, 0, 0),  EV(AGB_OP_FRAME, 0, 0, 0),  EV(AGB_OP_SYNC, 1, 0, 0),
	};
	static const uint32_t granted[] = {0, 16, 0, 0, 24, 0, 24, 0, 0, 0, 0, 8, 0, 0, 0};
	static uint32_t cycles[sizeof ev / sizeof ev[0]];
	struct agb_trace t = {AGB_ARENA_EWRAM, 128, sizeof ev / sizeof ev[0], 5, 3, ev, "sections",
			      NULL};
	struct agb_replay_result res = {0};
	struct agb_metrics_acc acc;
	struct agb_metrics m;
	(void)state;
	res.arena_bytes = 128;
	agb_metrics_begin(&acc, &m, &t, UNIT, cycles);
	agb_metrics_set_load_rate(&acc, 16);
	feed(&acc, &t, NULL, granted);
	agb_metrics_end(&acc, &res);
	assert_int_equal(m.syncs, 2);
	assert_int_equal(m.largest_section_bytes, 48);
	assert_int_equal(m.section_peak_bytes[0], 16);
	assert_int_equal(m.section_peak_bytes[1], 48);
	/* B: 48 bytes at 16 a frame need 3 frames, 1 passed: 2 stall frames. A again: 8 bytes, 1
	 * frame needed, 2 passed: none. */
	assert_int_equal(m.load_rate, 16);
	assert_int_equal(m.stall_frames, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_and_live_bytes),
		cmocka_unit_test(failures_tell_fragmentation_from_exhaustion),
		cmocka_unit_test(fragmentation_is_sampled_at_frames),
		cmocka_unit_test(frag_formulas),
		cmocka_unit_test(modelled_cycles_per_op_and_frame),
		cmocka_unit_test(loading_frames_are_kept_out_of_the_budget),
		cmocka_unit_test(sections_are_judged_at_their_doors),
		cmocka_unit_test(refused_requests_are_asked_of_the_core),
	};
	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
