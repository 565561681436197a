/* The `bump` core: linear placement, markers, reset, realloc, and the replay engine's handling
 * of reset (live blocks in the released space are forgotten) and of free (the run stops). */
#include "zoo_helpers.h"

#include "agb/bump.h"
#include "agbsim/replay.h"

static const struct agb_heap_core *C = &agb_bump_core;

static void linear_with_markers(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(4096);
	uint32_t g = 0;
	assert_null(C->free);
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	assert_int_equal(C->overhead_bytes(STATE), AGB_BUMP_MARKS * 8u);
	uint32_t a = C->alloc(STATE, 5, 1, &g);
	assert_int_equal(a, AGB_MEM_EWRAM);
	assert_int_equal(g, 8);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 7), AGB_VERB_DONE);
	uint32_t b = zoo_alloc(C, 100, 64);
	assert_int_equal(b, AGB_MEM_EWRAM + 64u);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 9), AGB_VERB_DONE);
	zoo_alloc(C, 1000, 1);
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 7), AGB_VERB_DONE); /* forgets marker 9 */
	zoo_check(C);
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 9), AGB_VERB_BAD);
	assert_int_equal(zoo_stats(C).free_bytes, 4096u - 8u);
	assert_int_equal(zoo_alloc(C, 4, 1), AGB_MEM_EWRAM + 8u);
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 7), AGB_VERB_DONE); /* again: still there */
	assert_int_equal(zoo_verb(C, AGB_OP_SIDE, 1), ZOO_NO_VERB);
	assert_int_equal(zoo_verb(C, AGB_OP_FRAME, 0), ZOO_NO_VERB); /* a replay ignores it */
	assert_int_equal(zoo_alloc(C, 4089, 1), AGB_NULL);
	for (uint32_t i = 1; i < AGB_BUMP_MARKS; i++)
		assert_int_equal(zoo_verb(C, AGB_OP_MARK, 100 + i), AGB_VERB_DONE);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 1), AGB_VERB_FAILED); /* table full */
	zoo_check(C);
	zoo_bus_clean();
}

static void realloc_grows_the_last_block_in_place(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(4096);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 16, 1), b = zoo_alloc(C, 16, 1);
	AGB_ST32(M, a, 0x11111111u);
	assert_int_equal(C->realloc(STATE, b, 400, &g), b); /* the last block */
	uint32_t a2 = C->realloc(STATE, a, 32, &g);          /* not the last: moves */
	assert_int_equal(a2, b + 400u);
	assert_int_equal(AGB_LD32(M, a2), 0x11111111u);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 1), AGB_VERB_DONE);
	/* The last block lies below the marker now: growing it in place would cross it. */
	uint32_t a3 = C->realloc(STATE, a2, 64, &g);
	assert_int_not_equal(a3, a2);
	zoo_check(C);
	assert_int_equal(C->realloc(STATE, a3, 8000, &g), AGB_NULL);
	zoo_check(C);
}

/* Issue 12 (cores under abuse, maximum sizes): a size within 3 of 2^32 rounded to 0 and grew the
 * last block in place by 4 bytes, returning it as if ~4 GiB were granted. */
static void realloc_of_a_size_near_2_32_fails(void **state)
{
	(void)state;
	struct agb_heap_config c = zoo_config(4096);
	uint32_t g = 0;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_OK);
	uint32_t a = zoo_alloc(C, 16, 1);
	for (uint32_t size = 0xFFFFFFFCu; size != 0; size++) {
		assert_int_equal(C->realloc(STATE, a, size, &g), AGB_NULL); /* the last block */
		assert_int_equal(C->alloc(STATE, size, 1, &g), AGB_NULL);
		zoo_check(C);
	}
	assert_int_equal(C->realloc(STATE, a, 32, &g), a); /* untouched, still the last */
	assert_int_equal(g, 32u);
	zoo_check(C);
}

/* With no meta area the marker table takes the head of the arena: the walk shows it as META,
 * allocations start after it, and an arena with no room besides the table is refused. realloc
 * of AGB_NULL is an alloc; a move that does not fit fails with the old block untouched. */
static void marker_table_in_the_arena(void **state)
{
	(void)state;
	struct agb_heap_config c;
	uint32_t g = 0, table = AGB_BUMP_MARKS * 8u;
	uint32_t a = zoo_linear_in_arena_table(C, &c, table);
	assert_int_equal(zoo_walk(C, &c).used_bytes, 100);
	assert_int_equal(zoo_verb(C, AGB_OP_MARK, 1), AGB_VERB_DONE);
	zoo_alloc(C, 8, 1);
	/* a: not the last block, and no room for a copy of 4000 bytes */
	assert_int_equal(C->realloc(STATE, a, 4000, &g), AGB_NULL);
	zoo_check(C);
	assert_int_equal(zoo_verb(C, AGB_OP_RESET, 1), AGB_VERB_DONE);
	assert_int_equal(zoo_stats(C).free_bytes, 4096u - table - 100u);
	c.arena_bytes = table;
	assert_int_equal(zoo_init(C, &c), AGB_HEAP_ARENA_TOO_SMALL);
}

/* A hand-built trace through the engine: reset releases the blocks above the marker. */
static struct agb_replay_obs last_obs[32];
static void observe(void *ctx, const struct agb_replay_obs *o)
{
	(void)ctx;
	if (o->index < 32)
		last_obs[o->index] = *o;
}

static void engine_forgets_blocks_released_by_reset(void **state)
{
	(void)state;
	const struct agb_event ev[] = {
		{AGB_OP_ALLOC, {0}, 1, 0, 100, 1}, {AGB_OP_MARK, {0}, 5, 0, 0, 0},
		{AGB_OP_ALLOC, {0}, 2, 1, 200, 1}, {AGB_OP_ALLOC, {0}, 3, 2, 300, 16},
		{AGB_OP_RESET, {0}, 5, 0, 0, 0},   {AGB_OP_ALLOC, {0}, 4, 3, 1000, 1},
		{AGB_OP_REALLOC, {0}, 3, 2, 50, 0}, /* released by the reset: skipped */
	};
	struct agb_trace t = {AGB_ARENA_EWRAM, 4096, 7, 4, 0, ev, "reset", NULL};
	struct agb_replay_config cfg = {C, 0, AGB_META_DEFAULT, 0,
					AGB_REPLAY_CANARIES | AGB_REPLAY_CHECK};
	struct agb_replay_result r;
	static uint8_t ws[4096];
	assert_true(agb_replay_workspace_bytes(&t) <= sizeof ws);
	assert_int_equal(agb_replay_run(&t, &cfg, M, ws, sizeof ws, observe, NULL, &r), AGB_REPLAY_OK);
	assert_int_equal(r.corrupted_bytes, 0);
	assert_int_equal(last_obs[3].live_bytes, 600);
	assert_int_equal(last_obs[4].live_bytes, 100); /* 2 and 3 forgotten */
	assert_int_equal(last_obs[5].addr, AGB_MEM_EWRAM + 100u); /* reused their space */
	assert_int_equal(last_obs[6].outcome, AGB_OUTCOME_SKIPPED);
	assert_int_equal(last_obs[6].live_bytes, 1100);

	/* A free stops the run with a message, not numbers. */
	const struct agb_event fr[] = {{AGB_OP_ALLOC, {0}, 1, 0, 100, 1}, {AGB_OP_FREE, {0}, 1, 0, 0, 0}};
	struct agb_trace t2 = {AGB_ARENA_EWRAM, 4096, 2, 1, 0, fr, "free", NULL};
	assert_int_equal(agb_replay_run(&t2, &cfg, M, ws, sizeof ws, NULL, NULL, &r),
			 AGB_REPLAY_UNSUPPORTED);
	assert_int_equal(r.failed_event, 1);
	assert_string_equal(r.why, "this core cannot free single blocks");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(linear_with_markers),
		cmocka_unit_test(realloc_grows_the_last_block_in_place),
		cmocka_unit_test(realloc_of_a_size_near_2_32_fails),
		cmocka_unit_test(marker_table_in_the_arena),
		cmocka_unit_test(engine_forgets_blocks_released_by_reset),
	};
	return cmocka_run_group_tests(tests, zoo_setup, zoo_teardown);
}
