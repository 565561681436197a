/* The LRU resource cache over an allocator core (agb/cache.h; docs/design.md, "Resource caches"). */
#include "agb/cache.h"

/* Entry fields: offsets into a 16-byte entry. */
#define E_ADDR 0u
#define E_BYTES 4u
#define E_LINKS 8u /* prev | next << 16, handle + 1 */
#define E_STATE 12u /* locks | evicted frame << 8 */
#define E_GRANTED 16u /* bytes the core reserved */

#define LOCKS(state) ((state) & 0xFFu)
#define EVICTED_AT(state) ((state) >> 8)
#define STATE(locks, evicted) ((locks) | (evicted) << 8)

/* Declared work (docs/design.md, "Cycle figures"), weighted as obj-fast's: 1 unit = 1 Thumb
 * instruction the bus does not see on the path taken (everything but the entry table's loads
 * and stores, which are counted accesses: the struct's fields, the result, the stack, calls and
 * returns included), read off the bench ROM's disassembly (arm-none-eabi-objdump -d; GCC inlines
 * load and evict_one into use and keeps list_remove a call). A hit runs 130 instructions and a
 * miss some 90 more before its core calls, so the path has to be declared, hits included: with
 * one unit on the miss arm only, the touch row fitted hits and misses with one price. On the GBA
 * a count leaves no code (AGB_WORK_WEIGHTED); the host's freed_enough test, which the GBA does
 * not make, declares nothing. */
#define CACHE_WORK(m, n) AGB_WORK_WEIGHTED(m, n)

static uint32_t entry(const agb_cache *c, uint32_t key)
{
	return c->table + key * AGB_CACHE_ENTRY_BYTES;
}

int agb_cache_init(agb_cache *c, agb_machine *m, const struct agb_heap_core *core,
		   void *core_state, uint32_t table, uint32_t keys)
{
	if ((table & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (keys > AGB_CACHE_MAX_KEYS)
		return AGB_HEAP_ARENA_TOO_LARGE;
	if (core->free == 0 || core->alloc == 0)
		return AGB_HEAP_META_TOO_SMALL;
	*c = (agb_cache){core, core_state, m, table, keys, 0, 0, 0, 0, 0, 0, 0};
	for (uint32_t k = 0; k < keys; k++) {
		uint32_t e = entry(c, k);
		AGB_ST32(m, e + E_ADDR, AGB_NULL);
		AGB_ST32(m, e + E_BYTES, 0);
		AGB_ST32(m, e + E_LINKS, 0);
		AGB_ST32(m, e + E_STATE, STATE(0u, AGB_CACHE_NEVER));
		AGB_ST32(m, e + E_GRANTED, 0);
	}
	return AGB_HEAP_OK;
}

/* ---- the recency list (handles + 1 in 16-bit links) ---- */

static void set_prev(agb_cache *c, uint32_t h1, uint32_t prev1)
{
	uint32_t e = entry(c, h1 - 1u) + E_LINKS;
	AGB_ST32(c->m, e, (AGB_LD32(c->m, e) & 0xFFFF0000u) | prev1);
}

static void set_next(agb_cache *c, uint32_t h1, uint32_t next1)
{
	uint32_t e = entry(c, h1 - 1u) + E_LINKS;
	AGB_ST32(c->m, e, (AGB_LD32(c->m, e) & 0xFFFFu) | next1 << 16);
}

static void list_remove(agb_cache *c, uint32_t key)
{
	uint32_t links = AGB_LD32(c->m, entry(c, key) + E_LINKS);
	uint32_t prev1 = links & 0xFFFFu, next1 = links >> 16;
	/* entry 12; the previous entry's link 13, else the head 3; the next's 15, else the tail 7 */
	CACHE_WORK(c->m, 12u + (prev1 != 0u ? 13u : 3u) + (next1 != 0u ? 15u : 7u));
	if (prev1 != 0)
		set_next(c, prev1, next1);
	else
		c->head = next1;
	if (next1 != 0)
		set_prev(c, next1, prev1);
	else
		c->tail = prev1;
	AGB_ST32(c->m, entry(c, key) + E_LINKS, 0);
}

static void list_push_head(agb_cache *c, uint32_t key)
{
	CACHE_WORK(c->m, 10u + (c->head != 0u ? 12u : 1u) + 2u); /* the old head's link or the tail */
	AGB_ST32(c->m, entry(c, key) + E_LINKS, (uint32_t)c->head << 16);
	if (c->head != 0)
		set_prev(c, c->head, key + 1u);
	else
		c->tail = key + 1u;
	c->head = key + 1u;
}

/* ---- the core calls (counted apart for the cycle model, host only) ----
 * The cycle model prices a lock's or touch's core calls with the core's own alloc and free rows
 * (agbsim/cycle_model.h, agb_cycle_model_eval_op), so the host sums their inputs per kind. Plain
 * calls on the GBA and in the plain-memory baseline, which count nothing. */

#if defined(AGB_TARGET_GBA) || defined(AGB_PLAIN_MEMORY)
#define CORE_ALLOC(c, size, granted) (c)->core->alloc((c)->core_state, (size), 4u, (granted))
#define CORE_FREE(c, addr) (c)->core->free((c)->core_state, (addr))
#else
static void nest_add(agb_cache *c, uint32_t kind, struct agb_inputs from)
{
	struct agb_inputs to = agb_machine_inputs(c->m);
	uint32_t *n = c->m->nest[kind];
	n[0]++;
	n[1] += to.bus - from.bus;
	n[2] += to.accesses - from.accesses;
	n[3] += to.stores - from.stores;
	n[4] += to.rom_reads - from.rom_reads;
	n[5] += to.work - from.work;
}

static uint32_t core_alloc(agb_cache *c, uint32_t size, uint32_t *granted)
{
	struct agb_inputs from = agb_machine_inputs(c->m);
	uint32_t addr = c->core->alloc(c->core_state, size, 4u, granted);
	nest_add(c, AGB_NEST_ALLOC, from);
	return addr;
}

static void core_free(agb_cache *c, uint32_t addr)
{
	struct agb_inputs from = agb_machine_inputs(c->m);
	c->core->free(c->core_state, addr);
	nest_add(c, AGB_NEST_FREE, from);
}
#define CORE_ALLOC(c, size, granted) core_alloc((c), (size), (granted))
#define CORE_FREE(c, addr) core_free((c), (addr))
#endif

/* ---- eviction and loading ---- */

/* Frees the least recently used resident entry without locks. Returns 1, or 0 when every
 * resident entry is locked. O(resident). */
static int evict_one(agb_cache *c)
{
	CACHE_WORK(c->m, c->tail != 0u ? 5u : 3u); /* the tail's test */
	for (uint32_t h1 = c->tail; h1 != 0;) {
		uint32_t e = entry(c, h1 - 1u);
		uint32_t state = AGB_LD32(c->m, e + E_STATE);
		CACHE_WORK(c->m, LOCKS(state) == 0 ? 9u : 13u); /* an entry passed: 4 more to the next */
		if (LOCKS(state) == 0) {
			uint32_t addr = AGB_LD32(c->m, e + E_ADDR);
			CACHE_WORK(c->m, 6u + 3u + 12u); /* the free's call, list_remove's, the counters */
			CORE_FREE(c, addr);
			list_remove(c, h1 - 1u);
			c->resident--;
			c->resident_bytes -= AGB_LD32(c->m, e + E_BYTES);
			c->resident_granted -= AGB_LD32(c->m, e + E_GRANTED);
			AGB_ST32(c->m, e + E_ADDR, AGB_NULL);
			AGB_ST32(c->m, e + E_STATE, STATE(0u, c->frame));
			return 1;
		}
		h1 = AGB_LD32(c->m, e + E_LINKS) & 0xFFFFu;
	}
	return 0;
}

/* A miss: allocate, evicting until the core has room or nothing evictable is left. */
static uint32_t load(agb_cache *c, uint32_t key, uint32_t size, struct agb_cache_result *res)
{
	uint32_t e = entry(c, key), granted = 0, addr;
	uint32_t evicted = EVICTED_AT(AGB_LD32(c->m, e + E_STATE));
	res->since_evicted =
		evicted == AGB_CACHE_NEVER ? AGB_CACHE_NEVER : (c->frame - evicted) & 0xFFFFFFu;
	/* the entry 7, the frames since the eviction 4, the alloc's call 10 and its test 2 */
	CACHE_WORK(c->m, 7u + (evicted != AGB_CACHE_NEVER ? 4u : 0u) + 10u + 2u);
	addr = CORE_ALLOC(c, size, &granted);
	CACHE_WORK(c->m, addr == AGB_NULL ? 9u : 0u); /* the eviction loop's setup */
	while (addr == AGB_NULL) {
		if (!evict_one(c)) {
			CACHE_WORK(c->m, 4u); /* the refusal */
			res->flags = AGB_CACHE_NOPE;
			return AGB_NULL;
		}
		res->evictions++;
		addr = CORE_ALLOC(c, size, &granted);
		/* the count and the alloc's call 13, its test 2; a failure's 3, a success's 7 */
		CACHE_WORK(c->m, 13u + 2u + (addr == AGB_NULL ? 3u : 7u));
		/* Did the eviction make bytes free but no run the request fits in? */
		if (addr == AGB_NULL && c->freed_enough != 0 && c->freed_enough(c, size))
			res->blocked++;
	}
	CACHE_WORK(c->m, 18u); /* the entry filled, the counters, the result */
	AGB_ST32(c->m, e + E_ADDR, addr);
	AGB_ST32(c->m, e + E_BYTES, size);
	AGB_ST32(c->m, e + E_GRANTED, granted);
	c->resident++;
	c->resident_bytes += size;
	c->resident_granted += granted;
	res->flags = AGB_CACHE_LOADED;
	res->granted = granted;
	return addr;
}

/* lock and touch: a hit moves the entry to the head, a miss loads it there. */
static uint32_t use(agb_cache *c, uint32_t key, uint32_t size, uint32_t add_lock,
		    struct agb_cache_result *res)
{
	uint32_t e = entry(c, key), addr, state;
	*res = (struct agb_cache_result){0, 0, 0, 0, AGB_CACHE_NEVER};
	/* the verb's own call 8, use's entry 24 and its return 10 */
	CACHE_WORK(c->m, 8u + 24u + 10u);
	if (key >= c->keys) {
		CACHE_WORK(c->m, 4u);
		res->flags = AGB_CACHE_NOPE; /* no entry: the table ends before it */
		return AGB_NULL;
	}
	state = AGB_LD32(c->m, e + E_STATE);
	CACHE_WORK(c->m, 14u); /* the lock count's test */
	if (LOCKS(state) + add_lock > AGB_CACHE_MAX_LOCKS) {
		CACHE_WORK(c->m, 4u);
		res->flags = AGB_CACHE_NOPE;
		return AGB_NULL;
	}
	addr = AGB_LD32(c->m, e + E_ADDR);
	CACHE_WORK(c->m, 2u);
	if (addr != AGB_NULL) {
		CACHE_WORK(c->m, 6u); /* the hit, list_remove's call */
		res->flags = AGB_CACHE_HIT;
		list_remove(c, key);
	} else {
		addr = load(c, key, size, res);
		if (addr == AGB_NULL)
			return AGB_NULL;
	}
	list_push_head(c, key);
	CACHE_WORK(c->m, 2u + (add_lock != 0u ? 3u : 0u)); /* the lock's test and store */
	if (add_lock != 0)
		AGB_ST32(c->m, e + E_STATE, state + add_lock);
	return addr;
}

uint32_t agb_cache_lock(agb_cache *c, uint32_t key, uint32_t size, struct agb_cache_result *res)
{
	return use(c, key, size, 1u, res);
}

uint32_t agb_cache_touch(agb_cache *c, uint32_t key, uint32_t size, struct agb_cache_result *res)
{
	return use(c, key, size, 0u, res);
}

int agb_cache_unlock(agb_cache *c, uint32_t key)
{
	uint32_t e = entry(c, key) + E_STATE;
	if (key >= c->keys)
		return AGB_VERB_BAD;
	uint32_t state = AGB_LD32(c->m, e);
	if (LOCKS(state) == 0)
		return AGB_VERB_BAD;
	AGB_ST32(c->m, e, state - 1u);
	return AGB_VERB_DONE;
}

void agb_cache_frame(agb_cache *c)
{
	/* AGB_CACHE_NEVER is reserved: the clock skips it. */
	c->frame = (c->frame + 1u) & 0xFFFFFFu;
	if (c->frame == AGB_CACHE_NEVER)
		c->frame = 0;
}

/* ---- observation ---- */

uint32_t agb_cache_entry(agb_cache *c, uint32_t key, uint32_t *locks)
{
	uint32_t e = entry(c, key);
	*locks = 0;
	if (key >= c->keys)
		return AGB_NULL;
	*locks = LOCKS(AGB_PEEK32(c->m, e + E_STATE));
	return AGB_PEEK32(c->m, e + E_ADDR);
}

void agb_cache_walk(agb_cache *c, agb_cache_visit_fn fn, void *ctx)
{
	for (uint32_t h1 = c->head; h1 != 0;) {
		uint32_t e = entry(c, h1 - 1u);
		fn(ctx, h1 - 1u, AGB_PEEK32(c->m, e + E_ADDR), AGB_PEEK32(c->m, e + E_BYTES),
		   LOCKS(AGB_PEEK32(c->m, e + E_STATE)));
		h1 = AGB_PEEK32(c->m, e + E_LINKS) >> 16;
	}
}

/* Whether `addr` starts inside a used run of the core: see agb_cache_check. */
struct used_probe {
	uint32_t addr;
	int found;
};

static void probe_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct used_probe *p = ctx;
	if (kind == AGB_RUN_USED && p->addr >= addr && p->addr - addr < bytes)
		p->found = 1;
}

/* The list from the head: each link's prev points back, it ends at the tail, and it holds
 * exactly `resident` resident entries. */
static int check_list(agb_cache *c, const char **why, uint32_t *bytes)
{
	uint32_t prev1 = 0, n = 0;
	*bytes = 0;
	for (uint32_t h1 = c->head; h1 != 0; n++) {
		uint32_t e = entry(c, h1 - 1u), links;
		struct used_probe p = {AGB_PEEK32(c->m, e + E_ADDR), 0};
		if (h1 > c->keys || n >= c->resident)
			AGB_CHECK_FAIL(why, "cache: recency list longer than the resident entries");
		links = AGB_PEEK32(c->m, e + E_LINKS);
		if ((links & 0xFFFFu) != prev1)
			AGB_CHECK_FAIL(why, "cache: recency list prev link broken");
		if (p.addr == AGB_NULL)
			AGB_CHECK_FAIL(why, "cache: entry on the recency list is not resident");
		c->core->walk(c->core_state, probe_run, &p);
		if (!p.found)
			AGB_CHECK_FAIL(why, "cache: resident block is not a used block of the core");
		*bytes += AGB_PEEK32(c->m, e + E_BYTES);
		prev1 = h1;
		h1 = links >> 16;
	}
	if (prev1 != c->tail || n != c->resident)
		AGB_CHECK_FAIL(why, "cache: recency list does not end at the tail");
	return 0;
}

int agb_cache_check(agb_cache *c, const char **why)
{
	uint32_t bytes, granted = 0, resident = 0;
	if (check_list(c, why, &bytes) != 0)
		return 1;
	if (bytes != c->resident_bytes)
		AGB_CHECK_FAIL(why, "cache: resident bytes differ from the entries'");
	for (uint32_t k = 0; k < c->keys; k++) {
		uint32_t e = entry(c, k);
		uint32_t state = AGB_PEEK32(c->m, e + E_STATE);
		if (AGB_PEEK32(c->m, e + E_ADDR) != AGB_NULL) {
			resident++;
			granted += AGB_PEEK32(c->m, e + E_GRANTED);
		}
		else if (LOCKS(state) != 0)
			AGB_CHECK_FAIL(why, "cache: a locked entry is not resident");
	}
	if (resident != c->resident || granted != c->resident_granted)
		AGB_CHECK_FAIL(why, "cache: resident count or granted bytes differ from the entries'");
	return c->core->check(c->core_state, why);
}
