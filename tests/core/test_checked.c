/* test_checked: the checking build (agb/heap.h, AGB_HEAP_CHECKED; issue 12 item 4). Every core
 * with a free, compiled as a game's debug build would compile it, refuses a double free, an
 * interior or foreign address and a realloc of a freed block: nothing changes (its own check()
 * passes, the next allocations are distinct blocks) and agb_heap_abuse records the call. In a
 * normal build the same calls break `tree` and `bestfit` (`tree` can loop forever on its next
 * call); the other cores refuse them silently in O(1) there (test_abuse). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "agb/heap.h"
#include "agb/machine.h"
#include "agb/regions.h"
#include "machine_fixture.h"

static const char *const checked_cores[] = {"tree", "bestfit", "tlsf", "buddy", "firstfit",
					    "slots", "obj", "obj-fast", "oam"};

static uint64_t state[AGB_HEAP_STATE_MAX / 8];

struct pool {
	const struct agb_heap_core *c;
	uint32_t base, bytes, unit;
};

static struct pool start(const char *name)
{
	struct pool p = {agb_heap_core_find(name), 0, 0, 0};
	assert_non_null(p.c);
	int ewram = (p.c->arenas & AGB_ARENA_BIT(AGB_ARENA_EWRAM)) != 0;
	p.base = ewram ? AGB_MEM_EWRAM : AGB_MEM_VRAM_OBJ;
	p.bytes = ewram ? 65536u : 32768u;
	p.unit = ewram ? 8u : 32u;
	struct agb_heap_config cfg = {p.base, p.bytes, 0x03000000u, 0x4000u, 0};
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	assert_int_equal(p.c->init(state, M, &cfg), AGB_HEAP_OK);
	return p;
}

static void check_ok(const struct pool *p)
{
	const char *why = NULL;
	if (p->c->check(state, &why) != 0)
		fail_msg("%s: %s", p->c->name, why);
}

static void expect_refused(const struct pool *p, uint32_t *count, uint32_t addr, const char *op)
{
	if (agb_heap_abuse.count != ++*count)
		fail_msg("%s: %s of 0x%08x was not refused", p->c->name, op, (unsigned)addr);
	assert_int_equal(agb_heap_abuse.addr, addr);
	assert_string_equal(agb_heap_abuse.op, op);
	/* oam's OBJ VRAM is an embedded obj-fast pool, which refuses (and is named) */
	assert_string_equal(agb_heap_abuse.core,
			    strcmp(p->c->name, "oam") == 0 ? "obj-fast" : p->c->name);
	check_ok(p);
}

static void abuse_is_refused(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof checked_cores / sizeof checked_cores[0]; i++) {
		struct pool p = start(checked_cores[i]);
		uint32_t g = 0, count = agb_heap_abuse.count;
		uint32_t a = p.c->alloc(state, 4u * p.unit, 1, &g);
		uint32_t b = p.c->alloc(state, 4u * p.unit, 1, &g);
		uint32_t c = p.c->alloc(state, 4u * p.unit, 1, &g);
		assert_true(a != AGB_NULL && b != AGB_NULL && c != AGB_NULL);
		p.c->free(state, AGB_NULL); /* a no-op, not abuse */
		assert_int_equal(agb_heap_abuse.count, count);
		p.c->free(state, b);
		assert_int_equal(agb_heap_abuse.count, count);
		check_ok(&p);
		p.c->free(state, b); /* double free */
		expect_refused(&p, &count, b, "free");
		p.c->free(state, a + p.unit); /* interior */
		expect_refused(&p, &count, a + p.unit, "free");
		p.c->free(state, p.base + p.bytes + 64u); /* past the pool */
		expect_refused(&p, &count, p.base + p.bytes + 64u, "free");
		p.c->free(state, 0x08000000u); /* ROM */
		expect_refused(&p, &count, 0x08000000u, "free");
		if (p.c->realloc != NULL) {
			assert_int_equal(p.c->realloc(state, b, 8u * p.unit, &g), AGB_NULL);
			expect_refused(&p, &count, b, "realloc");
		}
		uint32_t x = p.c->alloc(state, 4u * p.unit, 1, &g);
		uint32_t y = p.c->alloc(state, 4u * p.unit, 1, &g);
		assert_true(x != AGB_NULL && y != AGB_NULL && x != y && x != a && x != c && y != a &&
			    y != c);
		p.c->free(state, a);
		p.c->free(state, c);
		p.c->free(state, x);
		p.c->free(state, y);
		assert_int_equal(agb_heap_abuse.count, count);
		check_ok(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(abuse_is_refused),
	};
	return cmocka_run_group_tests(tests, machine_setup, machine_teardown);
}
