/* The LRU resource cache (agb/cache.h) over `buddy`: blocks of 1 KiB in a 4 KiB pool land at
 * offsets 0, 1K, 2K, 3K in allocation order and carry no header, so every expectation below is
 * worked out by hand from the protocol, not read back from the cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "agb/cache.h"
#include "agb/cores.h"
#include "core/machine_fixture.h"

#define POOL 4096u
#define KEYS 8u
#define TABLE (AGB_MEM_EWRAM + 0x10000u)
#define K1 1024u

static agb_buddy core_state;
static agb_cache C;

/* The host replay's probe: the core's free bytes cover the request. */
static int freed_enough(const agb_cache *c, uint32_t size)
{
	struct agb_heap_stats s;
	c->core->stats(c->core_state, &s);
	return s.free_bytes >= size;
}

/* A fresh buddy pool of POOL bytes at EWRAM and a cache of KEYS keys over it. */
static void fresh(void)
{
	const struct agb_heap_config hc = {AGB_MEM_EWRAM, POOL, AGB_MEM_IWRAM + 0x4000u, 0x2000u,
	                                   0};
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	assert_int_equal(agb_buddy_init(&core_state, M, &hc), AGB_HEAP_OK);
	assert_int_equal(agb_cache_init(&C, M, &agb_buddy_core, &core_state, TABLE, KEYS),
			 AGB_HEAP_OK);
	assert_null(C.freed_enough);
	C.freed_enough = freed_enough;
}

static void checked(void)
{
	const char *why = NULL;
	if (agb_cache_check(&C, &why) != 0)
		fail_msg("cache check: %s", why);
}

static uint32_t lock(uint32_t key, uint32_t size, struct agb_cache_result *r)
{
	uint32_t a = agb_cache_lock(&C, key, size, r);
	checked();
	return a;
}

static uint32_t touch(uint32_t key, uint32_t size, struct agb_cache_result *r)
{
	uint32_t a = agb_cache_touch(&C, key, size, r);
	checked();
	return a;
}

static uint32_t resident(uint32_t key)
{
	uint32_t locks;
	return agb_cache_entry(&C, key, &locks);
}

static void test_lock_hit_and_nesting(void **state)
{
	struct agb_cache_result r;
	uint32_t a, locks;
	(void)state;
	fresh();
	a = lock(1, K1, &r);
	assert_int_equal(a, AGB_MEM_EWRAM);
	assert_int_equal(r.flags, AGB_CACHE_LOADED);
	assert_int_equal(r.granted, K1);
	assert_int_equal(r.since_evicted, AGB_CACHE_NEVER);
	assert_int_equal(lock(1, K1, &r), a);
	assert_int_equal(r.flags, AGB_CACHE_HIT);
	assert_int_equal(r.granted, 0);
	assert_int_equal(agb_cache_entry(&C, 1, &locks), a);
	assert_int_equal(locks, 2);
	assert_int_equal(agb_cache_unlock(&C, 1), AGB_VERB_DONE);
	assert_int_equal(agb_cache_unlock(&C, 1), AGB_VERB_DONE);
	/* No lock left: refused, nothing changed; the entry stays resident. */
	assert_int_equal(agb_cache_unlock(&C, 1), AGB_VERB_BAD);
	assert_int_equal(resident(1), a);
	assert_int_equal(C.resident, 1);
	assert_int_equal(C.resident_bytes, K1);
	checked();
}

/* The cache's own declared work of one touch (its inputs less those of the core calls it made,
 * as the cycle model prices it), and its core calls: `calls` is set to them. */
static uint32_t own_work(uint32_t key, uint32_t *calls)
{
	struct agb_cache_result r;
	struct agb_inputs from = agb_machine_inputs(M);
	uint32_t nested = M->nest[AGB_NEST_ALLOC][5] + M->nest[AGB_NEST_FREE][5];
	uint32_t n = M->nest[AGB_NEST_ALLOC][0] + M->nest[AGB_NEST_FREE][0];
	assert_int_not_equal(touch(key, K1, &r), AGB_NULL);
	*calls = M->nest[AGB_NEST_ALLOC][0] + M->nest[AGB_NEST_FREE][0] - n;
	return agb_machine_inputs(M).work - from.work -
	       (M->nest[AGB_NEST_ALLOC][5] + M->nest[AGB_NEST_FREE][5] - nested);
}

/* The weights src/agbmem/cache.c declares per path (the bench ROM's Thumb instructions the bus does
 * not see): every touch 42 + 14 + 2 + the list's push 24 (a head before it) + the lock test 2;
 * a hit 6 + list_remove (12, 13 with a newer entry, 15 with an older one, else 3 and 7); a miss
 * 37 (its entry never evicted); an eviction's loop 9 + 5, the entry passed 9, its free 21 with
 * list_remove, the retried alloc 22. Hits must declare their path too: a hit and a miss run
 * about the same instructions of the cache's own, and differ by the core calls. */
static void test_declared_work_per_path(void **state)
{
	struct agb_cache_result r;
	uint32_t calls;
	(void)state;
	fresh();
	for (uint32_t k = 0; k < 3; k++)
		assert_int_equal(touch(k, K1, &r), AGB_MEM_EWRAM + k * K1);
	/* recency 2, 1, 0: key 1 has a newer and an older neighbour, then key 0 only a newer */
	assert_int_equal(own_work(1, &calls), 42u + 14u + 2u + 6u + (12u + 13u + 15u) + 24u + 2u);
	assert_int_equal(calls, 0);
	assert_int_equal(own_work(0, &calls), 42u + 14u + 2u + 6u + (12u + 13u + 7u) + 24u + 2u);
	assert_int_equal(calls, 0);
	/* the fourth block fits: a load, one alloc */
	assert_int_equal(own_work(3, &calls), 42u + 14u + 2u + 37u + 24u + 2u);
	assert_int_equal(calls, 1);
	/* the pool is full: the least recent (key 2, at the tail) is evicted, then the alloc retried */
	assert_int_equal(own_work(4, &calls),
			 42u + 14u + 2u + 37u + 9u + 5u + 9u + 21u + (12u + 13u + 7u) + 22u + 24u + 2u);
	assert_int_equal(calls, 3);
	assert_int_equal(resident(2), AGB_NULL);
	checked();
}

/* Four touched entries fill the pool; touching 0 again makes 1 the least recently used, so the
 * fifth key evicts exactly key 1 and takes its block. */
static void test_lru_order(void **state)
{
	struct agb_cache_result r;
	(void)state;
	fresh();
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(touch(k, K1, &r), AGB_MEM_EWRAM + k * K1);
	assert_int_equal(touch(0, K1, &r), AGB_MEM_EWRAM);
	assert_int_equal(r.flags, AGB_CACHE_HIT);
	assert_int_equal(touch(4, K1, &r), AGB_MEM_EWRAM + K1);
	assert_int_equal(r.flags, AGB_CACHE_LOADED);
	assert_int_equal(r.evictions, 1);
	assert_int_equal(r.blocked, 0);
	assert_int_equal(resident(1), AGB_NULL);
	assert_int_equal(resident(0), AGB_MEM_EWRAM);
	assert_int_equal(resident(2), AGB_MEM_EWRAM + 2 * K1);
	assert_int_equal(resident(3), AGB_MEM_EWRAM + 3 * K1);
	/* Key 2 is now the oldest. */
	assert_int_equal(touch(5, K1, &r), AGB_MEM_EWRAM + 2 * K1);
	assert_int_equal(resident(2), AGB_NULL);
}

/* Locked entries are never evicted: with every resident entry locked a lock says nope, and so
 * does a touch; nothing resident changes. */
static void test_nope_when_all_locked(void **state)
{
	struct agb_cache_result r;
	(void)state;
	fresh();
	for (uint32_t k = 0; k < 4; k++)
		lock(k, K1, &r);
	assert_int_equal(lock(6, K1, &r), AGB_NULL);
	assert_int_equal(r.flags, AGB_CACHE_NOPE);
	assert_int_equal(r.evictions, 0);
	assert_int_equal(touch(7, K1, &r), AGB_NULL);
	assert_int_equal(r.flags, AGB_CACHE_NOPE);
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(resident(k), AGB_MEM_EWRAM + k * K1);
	assert_int_equal(C.resident, 4);
	/* Unlocking one makes room for exactly one more. */
	assert_int_equal(agb_cache_unlock(&C, 2), AGB_VERB_DONE);
	assert_int_equal(touch(7, K1, &r), AGB_MEM_EWRAM + 2 * K1);
	assert_int_equal(r.evictions, 1);
}

/* Keys 0..3 at 0, 1K, 2K, 3K; 1 and 3 locked. A 2 KiB request evicts 0 (1 KiB free: not
 * enough), then 2 (2 KiB free in two runs: an eviction that did not make room), and nothing is
 * left to evict: nope after two evictions, one of them blocked by fragmentation. */
static void test_blocked_evictions(void **state)
{
	struct agb_cache_result r;
	(void)state;
	fresh();
	for (uint32_t k = 0; k < 4; k++)
		touch(k, K1, &r);
	lock(1, K1, &r);
	lock(3, K1, &r);
	assert_int_equal(r.flags, AGB_CACHE_HIT);
	assert_int_equal(lock(4, 2 * K1, &r), AGB_NULL);
	assert_int_equal(r.flags, AGB_CACHE_NOPE);
	assert_int_equal(r.evictions, 2);
	assert_int_equal(r.blocked, 1);
	assert_int_equal(C.resident, 2);
	assert_int_equal(C.resident_bytes, 2 * K1);
}

/* The frame clock: a reload reports the frames since the key's eviction. */
static void test_since_evicted(void **state)
{
	struct agb_cache_result r;
	(void)state;
	fresh();
	for (uint32_t k = 0; k < 4; k++)
		touch(k, K1, &r);
	agb_cache_frame(&C);
	touch(4, K1, &r); /* evicts key 0 at frame 1 */
	assert_int_equal(resident(0), AGB_NULL);
	for (int i = 0; i < 5; i++)
		agb_cache_frame(&C);
	touch(0, K1, &r);
	assert_int_equal(r.flags, AGB_CACHE_LOADED);
	assert_int_equal(r.since_evicted, 5);
	assert_int_equal(AGB_CACHE_DETAIL_EVICTIONS(AGB_CACHE_DETAIL(&r)), 1);
}

/* The checker sees a broken recency list and a lock on an entry that is not resident. */
static void test_check_finds_damage(void **state)
{
	struct agb_cache_result r;
	const char *why = NULL;
	uint8_t *e;
	(void)state;
	fresh();
	touch(0, K1, &r);
	touch(1, K1, &r);
	e = agb_machine_host(M, TABLE + 1u * AGB_CACHE_ENTRY_BYTES + 8u, 4);
	e[0] ^= 0x3u; /* key 1's prev link */
	assert_int_equal(agb_cache_check(&C, &why), 1);
	assert_non_null(why);
	e[0] ^= 0x3u;
	checked();
	e = agb_machine_host(M, TABLE + 5u * AGB_CACHE_ENTRY_BYTES + 12u, 4);
	e[0] = 1; /* key 5: a lock, not resident */
	assert_int_equal(agb_cache_check(&C, &why), 1);
}

/* A core without a single-block free cannot carry a cache; nor can an unaligned table. */
/* A handle past the table (a game's bad resource index) is refused by every call, and the
 * bytes after the table are not touched. */
static void test_keys_past_the_table(void **state)
{
	(void)state;
	struct agb_cache_result r;
	uint32_t locks = 7;
	fresh();
	assert_int_not_equal(lock(1, K1, &r), AGB_NULL);
	for (uint32_t i = 0; i < 4u * AGB_CACHE_ENTRY_BYTES; i += 4u)
		AGB_ST32(M, TABLE + KEYS * AGB_CACHE_ENTRY_BYTES + i, 0x5A5A0000u + i);
	const uint32_t bad[] = {KEYS, KEYS + 1u, AGB_CACHE_MAX_KEYS, 0xFFFFFFFFu};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		assert_int_equal(lock(bad[k], K1, &r), AGB_NULL);
		assert_int_equal(r.flags, AGB_CACHE_NOPE);
		assert_int_equal(touch(bad[k], K1, &r), AGB_NULL);
		assert_int_equal(r.flags, AGB_CACHE_NOPE);
		assert_int_equal(agb_cache_unlock(&C, bad[k]), AGB_VERB_BAD);
		assert_int_equal(agb_cache_entry(&C, bad[k], &locks), AGB_NULL);
		assert_int_equal(locks, 0);
	}
	for (uint32_t i = 0; i < 4u * AGB_CACHE_ENTRY_BYTES; i += 4u)
		assert_int_equal(AGB_LD32(M, TABLE + KEYS * AGB_CACHE_ENTRY_BYTES + i), 0x5A5A0000u + i);
	assert_int_equal(C.resident, 1);
	checked();
}

static void test_init_refusals(void **state)
{
	agb_stack2 s2;
	const struct agb_heap_config hc = {AGB_MEM_EWRAM, POOL, AGB_MEM_IWRAM + 0x4000u, 0x2000u,
	                                   0};
	(void)state;
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	assert_int_equal(agb_stack2_init(&s2, M, &hc), AGB_HEAP_OK);
	assert_int_equal(agb_cache_init(&C, M, &agb_stack2_core, &s2, TABLE, KEYS),
			 AGB_HEAP_META_TOO_SMALL);
	fresh();
	assert_int_equal(agb_cache_init(&C, M, &agb_buddy_core, &core_state, TABLE + 2u, KEYS),
			 AGB_HEAP_BAD_ALIGNMENT);
	assert_int_equal(agb_cache_init(&C, M, &agb_buddy_core, &core_state, TABLE,
					 AGB_CACHE_MAX_KEYS + 1u),
			 AGB_HEAP_ARENA_TOO_LARGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_hit_and_nesting),
		cmocka_unit_test(test_declared_work_per_path),
		cmocka_unit_test(test_lru_order),
		cmocka_unit_test(test_nope_when_all_locked),
		cmocka_unit_test(test_blocked_evictions),
		cmocka_unit_test(test_since_evicted),
		cmocka_unit_test(test_check_finds_damage),
		cmocka_unit_test(test_init_refusals),
		cmocka_unit_test(test_keys_past_the_table),
	};
	return cmocka_run_group_tests(tests, machine_setup, machine_teardown);
}
