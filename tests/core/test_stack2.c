/* The `stack2` core: two sides, side switching, per-side markers and resets, realloc, and the
 * engine dropping blocks a high-side reset releases. */
#include "zoo_helpers.h"

#include "agbsim/replay.h"
#include "agb/stack2.h"

static const struct agb_heap_core *C = &agb_stack2_core;

static void two_sides_meet_in_the_middle(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(4096);
	uint32_t g = 0;
	assert_null(C->free);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t lo = zoo_alloc(C, 1000, 1);
	assert_int_equal(lo, AGB_MEM_EWRAM);
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 1), AGB_VERB_DONE);
	uint32_t hi = C->alloc(STATE, 999, 1, &g);
	assert_int_equal(g, 1000);
	assert_int_equal(hi, AGB_MEM_EWRAM + 4096u - 1000u);
	uint32_t hi2 = zoo_alloc(C, 10, 256);
	assert_int_equal(hi2 % 256u, 0);
	assert_true(hi2 + 10u <= hi);
	struct zoo_walk w = zoo_walk(C, &c);
	assert_int_equal(w.free_runs, 1);
	assert_int_equal(w.free_bytes, zoo_stats(C).free_bytes);
	/* The sides cannot cross. */
	assert_int_equal(zoo_alloc(C, w.free_bytes + 4u, 1), AGB_NULL);
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 0), AGB_VERB_DONE);
	assert_int_equal(zoo_alloc(C, w.free_bytes + 4u, 1), AGB_NULL);
	assert_int_not_equal(zoo_alloc(C, w.free_bytes, 1), AGB_NULL);
	assert_int_equal(zoo_stats(C).free_bytes, 0);
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 2), AGB_VERB_BAD);
	zoo_bus_clean();
}

static void markers_belong_to_their_side(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(8192);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 1), AGB_VERB_DONE); /* low, at start */
	zoo_alloc(C, 1000, 1);
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 1), AGB_VERB_DONE);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 2), AGB_VERB_DONE); /* high, at end */
	zoo_alloc(C, 2000, 1);
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 0), AGB_VERB_DONE);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 3), AGB_VERB_DONE); /* low, after 1000 */
	zoo_alloc(C, 500, 1);
	/* Resetting the high side from the low side: the low side keeps its blocks and marker 3. */
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 2), AGB_VERB_DONE);
	zoo_check(C);
	assert_int_equal(zoo_stats(C).free_bytes, 8192u - 1500u);
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 3), AGB_VERB_DONE);
	assert_int_equal(zoo_stats(C).free_bytes, 8192u - 1000u);
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 1), AGB_VERB_DONE);
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 3), AGB_VERB_BAD); /* forgotten */
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 2), AGB_VERB_DONE);  /* other side: kept */
	assert_int_equal(zoo_stats(C).free_bytes, 8192u);
	zoo_check(C);
}

/* With no meta area the marker table takes the head of the arena (a META run, the low side
 * starts after it); a full table refuses another marker; realloc of AGB_NULL is an alloc; a
 * size near 2^32 and a growth past the high side fail with nothing changed. */
static void marker_table_in_the_arena(void **state)
{
	(void)state;
	struct agb_heap_config c;
	uint32_t g = 0, table = AGB_STACK2_MARKS * 8u;
	uint32_t a = zoo_linear_in_arena_table(C, &c, table);
	assert_int_equal(C->alloc(STATE, 0xFFFFFFFFu, 1, &g), AGB_NULL);
	/* a is the last low block: growing it in place stops at the high side */
	assert_int_equal(C->realloc(STATE, a, 4096, &g), AGB_NULL);
	assert_int_equal(C->realloc(STATE, a, 200, &g), a);
	assert_int_equal(g, 200);
	for (uint32_t i = 0; i < AGB_STACK2_MARKS; i++)
		assert_int_equal(zoo_verb(C, AGB_OP_MARK, 10 + i), AGB_VERB_DONE);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 99), AGB_VERB_FAILED); /* table full */
	zoo_check(C);
	assert_int_equal(zoo_stats(C).free_bytes, 4096u - table - 200u);
	c.arena_bytes = table + 4u;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_ARENA_TOO_SMALL);
}

static void realloc_moves_to_the_current_side(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(4096);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 64, 1);
	AGB_ST32(M, a, 0x5A5A5A5Au);
	assert_int_equal(C->realloc(STATE, a, 128, &g), a); /* last low block: in place */
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 1), AGB_VERB_DONE);
	uint32_t b = zoo_alloc(C, 64, 1);
	AGB_ST32(M, b, 0xA5A5A5A5u);
	uint32_t b2 = C->realloc(STATE, b, 128, &g); /* high blocks always move */
	assert_int_equal(b2, AGB_MEM_EWRAM + 4096u - 64u - 128u);
	assert_int_equal(AGB_LD32(M, b2), 0xA5A5A5A5u);
	/* The last low block grows in place whatever the current side. */
	assert_int_equal(C->realloc(STATE, a, 256, &g), a);
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 0), AGB_VERB_DONE);
	zoo_alloc(C, 4, 1);
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 1), AGB_VERB_DONE);
	uint32_t a2 = C->realloc(STATE, a, 300, &g); /* no longer last: moves to the high side */
	assert_true(a2 > AGB_MEM_EWRAM + 2048u);
	assert_int_equal(AGB_LD32(M, a2), 0x5A5A5A5Au);
	assert_int_equal(C->realloc(STATE, a2, 5000, &g), AGB_NULL);
	zoo_check(C);
}

static void engine_forgets_blocks_of_a_reset_high_side(void **state)
{
	(void)state;
	const struct agb_event ev[] = {
		{AGB_OP_ALLOC, {0}, 1, 0, 100, 1},  {AGB_OP_SIDE, {0}, 1, 0, 0, 0},
		{AGB_OP_MARK, {0}, 9, 0, 0, 0},     {AGB_OP_ALLOC, {0}, 2, 1, 200, 1},
		{AGB_OP_ALLOC, {0}, 3, 2, 300, 1},  {AGB_OP_RESET, {0}, 9, 0, 0, 0},
		{AGB_OP_ALLOC, {0}, 4, 3, 3900, 1},
	};
	struct agb_trace t = {AGB_ARENA_EWRAM, 4096, 7, 4, 0, ev, "reset-high", NULL};
	struct agb_replay_config cfg = {C, 0, AGB_META_DEFAULT, 0,
					AGB_REPLAY_CANARIES | AGB_REPLAY_CHECK};
	struct agb_replay_result r;
	static uint8_t ws[4096];
	assert_int_equal(agb_replay_run(&t, &cfg, M, ws, sizeof ws, NULL, NULL, &r), AGB_REPLAY_OK);
	assert_int_equal(r.failures, 0); /* 3900 fits only because 2 and 3 were released */
	assert_int_equal(r.corrupted_bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_sides_meet_in_the_middle),
		cmocka_unit_test(markers_belong_to_their_side),
		cmocka_unit_test(marker_table_in_the_arena),
		cmocka_unit_test(realloc_moves_to_the_current_side),
		cmocka_unit_test(engine_forgets_blocks_of_a_reset_high_side),
	};
	return cmocka_run_group_tests(tests, zoo_setup, zoo_teardown);
}
