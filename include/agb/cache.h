/* `lru`: a resource cache over any allocator core (docs/design.md, "Resource caches"), from the
 * seed's notes on memory constraints and caching (an N64 port caching animations, scripts and
 * templates in a fixed pool). The cache never owns memory: it asks the core it sits on for a
 * block when a resource is loaded, and frees blocks of resources it evicts.
 *
 * Two client protocols, both on one cache:
 *  - Lock/Unlock: agb_cache_lock makes resource `key` resident and pins it until as many
 *    agb_cache_unlock calls as locks; an unlocked resource stays resident (a later lock is a
 *    hit) but may be evicted. When nothing evictable is left and the pool still has no room,
 *    the answer is "nope" (AGB_NULL): the game goes on without the resource.
 *  - Touch: agb_cache_touch makes the resource resident without pinning it; the address is
 *    valid until the next touch or lock (which may evict it). A full cache thrashes (evicts and
 *    reloads) instead of failing; it only fails when the locked resources leave no room.
 * Eviction is least recently used first among resident, unlocked entries; after each eviction
 * the allocation is retried.
 *
 * Resources are named by a dense handle (0..keys-1; a game's resource index, the trace loader's
 * handle for a key). Bookkeeping: a table of `keys` 20-byte entries at a GBA address the caller
 * gives (through the machine's access macros, so its cost is counted), plus this struct.
 * Entry: word 0 the block's address (AGB_NULL: not resident), word 1 the resource's bytes,
 * word 2 prev | next << 16 of the recency list (handle + 1, 0: none), word 3 the lock count
 * (bits 0-7) | the frame of the last eviction << 8 (AGB_CACHE_NEVER: never evicted), word 4
 * the bytes the core granted.
 *
 * Freestanding: no libc. Runs on the host machine and on the GBA (libagbmem). */
#ifndef AGB_CACHE_H
#define AGB_CACHE_H

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_CACHE_ENTRY_BYTES 20u
#define AGB_CACHE_MAX_KEYS 0xFFFEu /* handles + 1 fit the list's 16-bit links */
#define AGB_CACHE_MAX_LOCKS 0xFFu
#define AGB_CACHE_NEVER 0xFFFFFFu  /* evicted-frame field of an entry never evicted */

/* What one lock or touch did (agb_cache_lock, agb_cache_touch). */
#define AGB_CACHE_HIT 0x1u    /* resident already */
#define AGB_CACHE_LOADED 0x2u /* a miss the pool served (after `evictions` evictions) */
#define AGB_CACHE_NOPE 0x4u   /* a miss nothing could make room for */

/* The detail word a replay observation carries for lock and touch (agb_replay_obs.result):
 * the flags, and the evictions above them (at most 2^20 - 1 shown). */
#define AGB_CACHE_DETAIL(res)                                                                       \
	((res)->flags | ((res)->evictions < 0xFFFFFu ? (res)->evictions : 0xFFFFFu) << 4)
#define AGB_CACHE_DETAIL_EVICTIONS(detail) ((detail) >> 4)

struct agb_cache_result {
	uint32_t flags;         /* AGB_CACHE_HIT, _LOADED or _NOPE */
	uint32_t granted;       /* bytes the core reserved for a load, else 0 */
	uint32_t evictions;     /* entries evicted by this call */
	uint32_t blocked;       /* of which, evictions after which the retry still failed although
				 * the core's free bytes covered the request (fragmentation; counted
				 * only with agb_cache.freed_enough set) */
	uint32_t since_evicted; /* a miss: frames since this key's last eviction (AGB_CACHE_NEVER:
				 * never evicted; thrashing is a reload soon after) */
};

typedef struct agb_cache agb_cache;
struct agb_cache {
	const struct agb_heap_core *core;
	void *core_state;
	agb_machine *m;
	uint32_t table;          /* GBA address of the entry table */
	uint32_t keys;           /* entries */
	uint32_t head, tail;     /* recency list of resident entries (handle + 1; 0: empty): head
				  * most recently used */
	uint32_t frame;          /* frames seen (agb_cache_frame), modulo 2^24 */
	uint32_t resident;       /* resident entries */
	uint32_t resident_bytes, resident_granted;
	/* Optional (NULL after agb_cache_init; a game leaves it so): called after an eviction whose
	 * retried allocation still failed; returns nonzero when the core's free bytes covered the
	 * request, which counts the eviction in agb_cache_result.blocked. The host replay sets it to
	 * a stats() probe (observation only, uncounted); on the GBA it stays NULL, since asking the
	 * core for its free space is work a game's cache would not do (and costs more than the load
	 * on some cores), so blocked is 0 there. */
	int (*freed_enough)(const struct agb_cache *c, uint32_t size);
};

/* Prepares an empty cache of `keys` entries whose table is at `table` (4-aligned, keys *
 * AGB_CACHE_ENTRY_BYTES bytes, not inside the pool) over `core`, whose state `core_state` the caller has initialised
 * on machine m. The core must free single blocks. Returns AGB_HEAP_OK, AGB_HEAP_BAD_ALIGNMENT
 * (table not 4-aligned), AGB_HEAP_ARENA_TOO_LARGE (more than AGB_CACHE_MAX_KEYS keys) or
 * AGB_HEAP_META_TOO_SMALL (core without free). O(keys). */
int agb_cache_init(agb_cache *c, agb_machine *m, const struct agb_heap_core *core,
		   void *core_state, uint32_t table, uint32_t keys);

/* Lock/Unlock protocol: returns the address of resource `key` (< keys) of `size` bytes,
 * resident and locked (once more), loading it if needed: allocate from the core, evicting
 * unlocked entries least recently used first until the allocation succeeds. Returns AGB_NULL
 * ("nope", nothing changed but the evictions) when no evictable entry is left, or when the entry
 * holds AGB_CACHE_MAX_LOCKS locks already, or when key >= keys (no entry: refused, nothing
 * changed, in every build). The caller keeps `size` the same for a key. *res says what
 * happened. O(resident) per eviction + the core's alloc and frees. */
uint32_t agb_cache_lock(agb_cache *c, uint32_t key, uint32_t size, struct agb_cache_result *res);

/* Drops one lock of `key`; at zero locks the entry stays resident, evictable. Returns
 * AGB_VERB_DONE, or AGB_VERB_BAD (nothing changed) when `key` holds no lock or is >= keys.
 * O(1). */
int agb_cache_unlock(agb_cache *c, uint32_t key);

/* Touch protocol: as agb_cache_lock without taking a lock. Evicts any entry not locked (the
 * touched entry itself is not resident when it loads); AGB_NULL only when the locked entries
 * leave no room. O(resident) per eviction + the core's alloc and frees. */
uint32_t agb_cache_touch(agb_cache *c, uint32_t key, uint32_t size, struct agb_cache_result *res);

/* One displayed frame: the clock thrashing is judged by. O(1). */
void agb_cache_frame(agb_cache *c);

/* Address of `key`'s block (AGB_NULL: not resident, or key >= keys) and its lock count.
 * Uncounted. O(1). */
uint32_t agb_cache_entry(agb_cache *c, uint32_t key, uint32_t *locks);

/* Handles of the resident entries from most to least recently used: calls fn(ctx, key, addr,
 * bytes, locks) for each. Observation only (uncounted). O(resident). */
typedef void (*agb_cache_visit_fn)(void *ctx, uint32_t key, uint32_t addr, uint32_t bytes,
				   uint32_t locks);
void agb_cache_walk(agb_cache *c, agb_cache_visit_fn fn, void *ctx);

/* 0 when every invariant holds: the recency list runs both ways over exactly the resident
 * entries, no entry outside it has a lock, the resident counts and bytes match the entries,
 * every resident block is one the core reports used. Else 1 with *why. Uncounted. O(keys +
 * resident x core walk). */
int agb_cache_check(agb_cache *c, const char **why);

#ifdef __cplusplus
}
#endif

#endif
