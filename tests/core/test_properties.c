/* Property test over every registered general-purpose core (EWRAM-capable, with free): long
 * random traces - mixed sizes and alignments, fill/drain bursts, reallocs - driven straight
 * through the interface table, and after EVERY op:
 *   - check() passes;
 *   - the new block lies inside the arena, honours its alignment and overlaps no live block
 *     (a host-side owner map of the arena, one entry per byte);
 *   - stats() is sane (largest <= free <= arena) and does not touch the bus;
 * and every block's contents (a per-id, per-offset pattern written through the host view) are
 * verified when it is freed or moved, every 4096 ops for all live blocks, and at the end.
 * The cores never see the pattern, so a core that writes its bookkeeping into a live block, or
 * hands out memory twice, fails here. Driving cores directly (not through the replay engine)
 * lets the test see placements the engine would hide and keeps it fast. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agb/cores.h"
#include "agb/machine.h"

#define MAX_LIVE 2048u
#define OPS_PER_SEED 15000u
#define SEEDS 4u

#include "machine_fixture.h"
static _Alignas(8) uint8_t STATE[AGB_HEAP_STATE_MAX];
static uint16_t owner[AGB_EWRAM_SIZE]; /* 0 free, else live index + 1 */

struct blk {
	uint32_t addr, size, id;
};

static struct blk live[MAX_LIVE];
static uint32_t nlive;
static uint32_t rng;

static uint32_t rnd(void)
{
	/* xorshift32: deterministic per seed, no libc state. */
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint8_t pattern(uint32_t id, uint32_t i)
{
	return (uint8_t)((id * 2654435761u + i * 40503u) >> 13);
}

static void fill(const struct blk *b)
{
	uint8_t *h = agb_machine_host(M, b->addr, b->size);
	assert_non_null(h);
	for (uint32_t i = 0; i < b->size; i++)
		h[i] = pattern(b->id, i);
}

static void verify(const char *core, const struct blk *b, uint32_t bytes, uint32_t at)
{
	uint8_t *h = agb_machine_host(M, at, bytes);
	assert_non_null(h);
	for (uint32_t i = 0; i < bytes; i++)
		if (h[i] != pattern(b->id, i))
			fail_msg("%s: block id %u (%u bytes at 0x%08x) corrupted at offset %u", core,
				 b->id, b->size, at, i);
}

static void claim(const char *core, uint32_t base, uint32_t bytes, const struct blk *b,
		  uint32_t align, uint16_t who)
{
	if (b->addr < base || b->addr - base > bytes || b->size > bytes - (b->addr - base))
		fail_msg("%s: block 0x%08x+%u outside the arena", core, b->addr, b->size);
	if ((b->addr & (align - 1u)) != 0)
		fail_msg("%s: block 0x%08x not aligned to %u", core, b->addr, align);
	for (uint32_t i = 0; i < b->size; i++) {
		uint16_t *o = &owner[b->addr - base + i];
		if (*o != 0)
			fail_msg("%s: block 0x%08x+%u overlaps a live block at +%u", core, b->addr,
				 b->size, i);
		*o = who;
	}
}

static void release(uint32_t base, const struct blk *b)
{
	memset(&owner[b->addr - base], 0, b->size * sizeof owner[0]);
}

static uint32_t pick_size(uint32_t big)
{
	uint32_t r = rnd() % 100u;
	if (r < 55u)
		return 1u + rnd() % 48u;
	if (r < 85u)
		return 49u + rnd() % 460u;
	if (r < 97u)
		return 509u + rnd() % 3600u;
	return 1u + rnd() % big;
}

static uint32_t pick_align(void)
{
	uint32_t r = rnd() % 100u;
	if (r < 70u)
		return 1;
	if (r < 85u)
		return 4u << (rnd() % 2u);
	return 1u << (rnd() % 13u); /* up to 4096 */
}

static void after_op(const struct agb_heap_core *core, uint32_t bytes, uint32_t op)
{
	const char *why = "?";
	struct agb_heap_stats s;
	uint32_t acc = agb_machine_accesses(M);
	if (core->check(STATE, &why) != 0)
		fail_msg("%s: check failed after op %u: %s", core->name, op, why);
	if (agb_machine_accesses(M) != acc)
		fail_msg("%s: check() touched the bus", core->name);
	core->stats(STATE, &s);
	if (agb_machine_accesses(M) != acc)
		fail_msg("%s: stats() touched the bus", core->name);
	if (s.largest_free > s.free_bytes || s.free_bytes > bytes)
		fail_msg("%s: insane stats after op %u", core->name, op);
}

static uint32_t run_core(const struct agb_heap_core *core, uint32_t seed, uint32_t bytes)
{
	struct agb_heap_config c = {AGB_MEM_EWRAM, bytes, AGB_MEM_IWRAM + AGB_IWRAM_SIZE / 2u,
	                            AGB_IWRAM_SIZE / 2u - 0x400u, 0};
	uint32_t next_id = 1, fails = 0;
	memset(M->ewram, 0, sizeof M->ewram);
	memset(M->iwram + AGB_IWRAM_SIZE / 2u, 0, AGB_IWRAM_SIZE / 2u);
	memset(owner, 0, sizeof owner);
	nlive = 0;
	rng = seed * 2891336453u + 1u;
	if (core->init(STATE, M, &c) != AGB_HEAP_OK)
		fail_msg("%s: init refused a %u-byte EWRAM pool", core->name, bytes);
	after_op(core, bytes, 0);

	for (uint32_t op = 1; op <= OPS_PER_SEED; op++) {
		/* Bursts: 600-op phases that mostly fill, then mostly drain. */
		uint32_t phase = (op / 600u) % 3u;
		uint32_t p_alloc = phase == 0 ? 70u : phase == 1 ? 50u : 30u;
		uint32_t r = rnd() % 100u;
		if (nlive > 0 && r >= 90u) {
			/* realloc */
			uint32_t k = rnd() % nlive, g = 0, to, ns = pick_size(bytes / 8u);
			struct blk *b = &live[k];
			verify(core->name, b, b->size, b->addr);
			release(AGB_MEM_EWRAM, b);
			if (core->realloc != NULL) {
				to = core->realloc(STATE, b->addr, ns, &g);
			} else {
				uint32_t og = b->size;
				to = core->alloc(STATE, ns, 1, &g);
				if (to != AGB_NULL) {
					uint8_t *d = agb_machine_host(M, to, ns);
					uint8_t *sp = agb_machine_host(M, b->addr, og);
					memmove(d, sp, og < ns ? og : ns);
					core->free(STATE, b->addr);
				}
			}
			if (to == AGB_NULL) {
				fails++;
				claim(core->name, AGB_MEM_EWRAM, bytes, b, 1, (uint16_t)(k + 1u));
				verify(core->name, b, b->size, b->addr); /* untouched on failure */
			} else {
				struct blk nb = {to, ns, b->id};
				if (g < ns)
					fail_msg("%s: realloc granted %u < %u", core->name, g, ns);
				verify(core->name, b, b->size < ns ? b->size : ns, to);
				*b = nb;
				claim(core->name, AGB_MEM_EWRAM, bytes, b, 1, (uint16_t)(k + 1u));
				fill(b);
			}
		} else if (nlive == 0 || (r < p_alloc && nlive < MAX_LIVE)) {
			uint32_t size = pick_size(bytes / 4u), align = pick_align(), g = 0;
			uint32_t a = core->alloc(STATE, size, align, &g);
			if (a == AGB_NULL) {
				fails++;
			} else {
				struct blk *b = &live[nlive];
				*b = (struct blk){a, size, next_id++};
				if (g < size)
					fail_msg("%s: granted %u < %u", core->name, g, size);
				claim(core->name, AGB_MEM_EWRAM, bytes, b, align,
				      (uint16_t)(nlive + 1u));
				fill(b);
				nlive++;
			}
		} else {
			uint32_t k = rnd() % nlive;
			struct blk *b = &live[k];
			verify(core->name, b, b->size, b->addr);
			release(AGB_MEM_EWRAM, b);
			core->free(STATE, b->addr);
			/* Keep live[] dense: move the last block into the hole, re-own its bytes. */
			if (k != nlive - 1u) {
				live[k] = live[nlive - 1u];
				for (uint32_t i = 0; i < live[k].size; i++)
					owner[live[k].addr - AGB_MEM_EWRAM + i] =
					        (uint16_t)(k + 1u);
			}
			nlive--;
		}
		after_op(core, bytes, op);
		if (op % 4096u == 0)
			for (uint32_t i = 0; i < nlive; i++)
				verify(core->name, &live[i], live[i].size, live[i].addr);
	}
	for (uint32_t i = 0; i < nlive; i++)
		verify(core->name, &live[i], live[i].size, live[i].addr);
	/* Everything back: the pool must again be one free run for the coalescing cores. */
	while (nlive > 0) {
		nlive--;
		core->free(STATE, live[nlive].addr);
		after_op(core, bytes, OPS_PER_SEED + 1u);
	}
	for (unsigned r = 0; r < AGB_REGION_COUNT; r++)
		if (M->counts[r][AGB_STORE8] != 0)
			fail_msg("%s: byte stores (unsafe on VRAM)", core->name);
	for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
		if (M->counts[AGB_REGION_UNMAPPED][k] != 0)
			fail_msg("%s: unmapped accesses", core->name);
	return fails;
}

static int is_general(const struct agb_heap_core *core)
{
	return (core->arenas & AGB_ARENA_BIT(AGB_ARENA_EWRAM)) != 0 && core->alloc != NULL &&
	       core->free != NULL;
}

static void every_core_survives_random_traces(void **state)
{
	/* Pools: the whole of EWRAM, a quarter and a tight one (more failures, more splitting). */
	static const uint32_t pools[SEEDS] = {262144u, 65536u, 196608u, 40960u};
	unsigned tested = 0;
	(void)state;
	for (size_t i = 0; agb_heap_cores[i] != NULL; i++) {
		const struct agb_heap_core *core = agb_heap_cores[i];
		if (!is_general(core))
			continue;
		uint32_t fails = 0;
		for (uint32_t seed = 0; seed < SEEDS; seed++) {
			agb_machine_reset_counters(M);
			fails += run_core(core, seed + 1u, pools[seed]);
		}
		/* Failures are expected (tight pools); they show the runs reach exhaustion. */
		printf("# %s: %u ops over %u seeds, %u refused\n", core->name, OPS_PER_SEED * SEEDS,
		       SEEDS, fails);
		tested++;
	}
	assert_true(tested >= 5); /* tree, tlsf, buddy, firstfit, slots at least */
}

/* The registry: every registered core is found by its exact name only, and each arena's
 * default core manages that arena. */
static void registry_names_and_defaults(void **state)
{
	(void)state;
	static const enum agb_arena arenas[] = {AGB_ARENA_EWRAM, AGB_ARENA_OBJ_VRAM,
						AGB_ARENA_BG_VRAM, AGB_ARENA_PAL_RAM};
	size_t n = 0;
	for (; agb_heap_cores[n] != NULL; n++) {
		const char *name = agb_heap_cores[n]->name;
		char longer[64];
		assert_ptr_equal(agb_heap_core_find(name), agb_heap_cores[n]);
		snprintf(longer, sizeof longer, "%sx", name);
		assert_null(agb_heap_core_find(longer));
		assert_true(name[0] != '\0');
		snprintf(longer, sizeof longer, "%.*s", (int)strlen(name) - 1, name);
		if (longer[0] != '\0')
			assert_true(agb_heap_core_find(longer) == NULL ||
				    strcmp(agb_heap_core_find(longer)->name, longer) == 0);
	}
	assert_true(n >= 14);
	assert_null(agb_heap_core_find(""));
	assert_null(agb_heap_core_find("no-such-core"));
	for (size_t i = 0; i < sizeof arenas / sizeof arenas[0]; i++) {
		const struct agb_heap_core *d = agb_heap_core_default(arenas[i]);
		assert_non_null(d);
		assert_true((d->arenas & AGB_ARENA_BIT(arenas[i])) != 0);
	}
	assert_string_equal(agb_heap_core_default(AGB_ARENA_BG_VRAM)->name, "tiles");
	assert_string_equal(agb_heap_core_default(AGB_ARENA_OBJ_VRAM)->name, "obj-fast");
	assert_string_equal(agb_heap_core_default(AGB_ARENA_PAL_RAM)->name, "palstack");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_names_and_defaults),
		cmocka_unit_test(every_core_survives_random_traces),
	};
	return cmocka_run_group_tests(tests, machine_setup, machine_teardown);
}
