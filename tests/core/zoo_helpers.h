/* Shared helpers of the allocator-zoo core tests (tlsf, buddy, firstfit, slots, bump, stack2):
 * a machine, a core started through its interface table, and checks every test wants. */
#ifndef ZOO_HELPERS_H
#define ZOO_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agb/cores.h"
#include "agb/machine.h"
#include "agbsim/trace.h"

#include "machine_fixture.h"

#define zoo_setup machine_setup
#define zoo_teardown machine_teardown
static _Alignas(8) uint8_t STATE[AGB_HEAP_STATE_MAX];

/* An EWRAM pool of `bytes` with the engine's default meta area (upper IWRAM half). */
static inline struct agb_heap_config zoo_config(uint32_t bytes)
{
	struct agb_heap_config c = {AGB_MEM_EWRAM, bytes, AGB_MEM_IWRAM + AGB_IWRAM_SIZE / 2u,
	                            AGB_IWRAM_SIZE / 2u - 0x400u, 0};
	return c;
}

static inline int zoo_init(const struct agb_heap_core *core, const struct agb_heap_config *c)
{
	assert_true(core->state_bytes <= sizeof STATE);
	memset(M->ewram, 0, sizeof M->ewram);
	memset(M->iwram, 0, sizeof M->iwram);
	return core->init(STATE, M, c);
}

static inline void zoo_check(const struct agb_heap_core *core)
{
	const char *why = "?";
	if (core->check(STATE, &why) != 0)
		fail_msg("%s: check failed: %s", core->name, why);
}

struct zoo_walk {
	uint32_t next, runs, free_runs, free_bytes, used_bytes, meta_bytes, bad;
};

static inline void zoo_walk_fn(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct zoo_walk *w = ctx;
	if (addr != w->next || bytes == 0)
		w->bad++;
	w->next = addr + bytes;
	w->runs++;
	if (kind == AGB_RUN_FREE) {
		w->free_runs++;
		w->free_bytes += bytes;
	} else if (kind == AGB_RUN_USED) {
		w->used_bytes += bytes;
	} else {
		w->meta_bytes += bytes;
	}
}

/* Walks the pool and asserts the runs tile it exactly, in address order. */
static inline struct zoo_walk zoo_walk(const struct agb_heap_core *core, const struct agb_heap_config *c)
{
	struct zoo_walk w = {c->arena_addr, 0, 0, 0, 0, 0, 0};
	core->walk(STATE, zoo_walk_fn, &w);
	assert_int_equal(w.bad, 0);
	assert_int_equal(w.next, c->arena_addr + c->arena_bytes);
	return w;
}

static inline struct agb_heap_stats zoo_stats(const struct agb_heap_core *core)
{
	struct agb_heap_stats s;
	uint32_t acc = agb_machine_accesses(M);
	core->stats(STATE, &s);
	assert_int_equal(agb_machine_accesses(M), acc); /* observation only */
	assert_true(s.largest_free <= s.free_bytes);
	assert_true((s.free_runs == 0) == (s.free_bytes == 0));
	return s;
}

static inline uint32_t zoo_alloc(const struct agb_heap_core *core, uint32_t size, uint32_t align)
{
	uint32_t granted = 0, a = core->alloc(STATE, size, align, &granted);
	if (a != AGB_NULL) {
		assert_true(granted >= size);
		assert_int_equal(a & (align - 1u), 0);
	}
	zoo_check(core);
	return a;
}

static inline void zoo_free(const struct agb_heap_core *core, uint32_t a)
{
	core->free(STATE, a);
	zoo_check(core);
}

/* What zoo_verb returns for a verb the core does not have. */
#define ZOO_NO_VERB (-1)

/* A linear allocator's verb (mark/reset/side with argument id, or frame) through the core table:
 * its AGB_VERB_* status, or ZOO_NO_VERB when the table has no such verb. */
/* An empty heap serves two blocks, refuses a double free of the first and comes back to one
 * free run once both are freed. */
static inline void zoo_serves_and_refuses(const struct agb_heap_core *core)
{
	uint32_t a = zoo_alloc(core, 100, 1), b = zoo_alloc(core, 100, 1);
	assert_true(a != AGB_NULL && b != AGB_NULL);
	zoo_free(core, a);
	core->free(STATE, a); /* a double free: refused */
	zoo_free(core, b);
	zoo_check(core);
	assert_int_equal(zoo_stats(core).free_runs, 1);
}

static inline int zoo_verb(const struct agb_heap_core *core, enum agb_op op, uint32_t id)
{
	int (*verb)(void *, uint32_t) = op == AGB_OP_MARK    ? core->mark
					: op == AGB_OP_RESET ? core->reset
					: op == AGB_OP_SIDE  ? core->side
							     : NULL;
	if (op == AGB_OP_FRAME)
		return core->frame != NULL ? core->frame(STATE) : ZOO_NO_VERB;
	return verb != NULL ? verb(STATE, id) : ZOO_NO_VERB;
}

/* A linear allocator started with no meta area, so its marker table of `table` bytes takes
 * the head of a 4 KiB arena (*c): realloc of AGB_NULL is an alloc of 100 bytes right after the
 * table, and the walk shows the table as META. Returns that block. */
static inline uint32_t zoo_linear_in_arena_table(const struct agb_heap_core *core,
						  struct agb_heap_config *c, uint32_t table)
{
	uint32_t g = 0, a;
	*c = (struct agb_heap_config){AGB_MEM_EWRAM, 4096, AGB_NULL, 0, 0};
	assert_int_equal(zoo_init(core, c), AGB_HEAP_OK);
	a = core->realloc(STATE, AGB_NULL, 100, &g);
	assert_int_equal(a, AGB_MEM_EWRAM + table);
	assert_int_equal(g, 100);
	assert_int_equal(zoo_walk(core, c).meta_bytes, table);
	return a;
}

/* Asserts the core got no 8-bit store and touched nothing unmapped. */
static inline void zoo_bus_clean(void)
{
	for (unsigned r = 0; r < AGB_REGION_COUNT; r++)
		assert_int_equal(M->counts[r][AGB_STORE8], 0);
	for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
		assert_int_equal(M->counts[AGB_REGION_UNMAPPED][k], 0);
}

#endif
