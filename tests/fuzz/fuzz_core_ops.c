/* Fuzz target: every core in the registry under an arbitrary, valid sequence of operations.
 *
 * Byte 0 picks the core (index into agb_heap_cores), byte 1 the arena among those the core
 * manages and the arena size (the region, a half, a quarter, an eighth, or a small odd size).
 * The rest is decoded into events the loader would accept (docs/trace-format.md): alloc of a
 * size in 1..arena_bytes with a power-of-two align up to the arena size, free and realloc of a
 * live block, frame, ref/unref with unrefs matching live refs, spr_show/spr_z/spr_hide of shown
 * sprites, mark/reset/side; on palette RAM, pal_load/pal_free of loaded palettes (a few keys,
 * so identical palettes meet and share) and pal_push/pal_pop on either side's stack, deeper than
 * the 64 levels a replay serves; on EWRAM and OBJ VRAM, lock/unlock/touch of a few keys through
 * the resource cache (a key keeps its size, unlocks match locks). The replay runs the core's invariant checker after every event and
 * keeps canaries in every live block (fuzz_replay.h): any break aborts. A core refusing an op it
 * has no verb for, or a reset of an unknown marker, just ends the run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agbsim/trace.h"
#include "fuzz_replay.h"

/* Events per input: the checker runs after each (O(arena)) and canaries fill every block through
 * the counted bus, so long inputs cost more than they find. */
#define MAX_EVENTS 96u
#define MAX_LIVE 64u
#define MAX_SPRITES 32u
#define TILES 16u
#define PAL_KEYS 6u
#define CACHE_KEYS 16u

struct decoder {
	const uint8_t *p, *end;
	struct agb_event ev[MAX_EVENTS];
	uint32_t n;
	uint32_t arena_bytes;
	uint8_t live[MAX_LIVE];            /* slot -> live */
	uint16_t refs[TILES][2];           /* live refs per (tile, 4/8 bpp) */
	uint8_t shown[MAX_SPRITES];
	uint32_t slots_used;
	/* Palette RAM: the load each slot holds (colours, side and key), each side's stack. */
	struct agb_event pal_loaded[MAX_LIVE];
	struct agb_event pal_stack[2][MAX_EVENTS];
	uint32_t pal_depth[2], pal_pushes;
	int pal_no_stack; /* the core has no palette stack: loads and frees only (a push ends a run) */
	/* Resource cache: each key's size (0: not used yet; the key is its handle) and locks. */
	uint32_t key_size[CACHE_KEYS], key_locks[CACHE_KEYS];
};

static uint32_t take(struct decoder *d, unsigned bytes)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < bytes && d->p < d->end; i++)
		v |= (uint32_t)*d->p++ << (8 * i);
	return v;
}

static struct agb_event *push(struct decoder *d, uint8_t op, uint32_t id, uint32_t slot,
			      uint32_t size, uint32_t align)
{
	struct agb_event *e = &d->ev[d->n++];
	memset(e, 0, sizeof *e);
	e->op = op;
	e->id = id;
	e->slot = slot;
	e->size = size;
	e->align = align;
	return e;
}

/* A size in 1..arena_bytes, biased to small: a 16-bit value shifted down by 0..7, and now and
 * then the whole arena or one byte more than half of it. */
static uint32_t size_of(struct decoder *d, uint8_t sel)
{
	uint32_t v = take(d, 2);
	if ((sel & 0x7f) == 0)
		return d->arena_bytes;
	if ((sel & 0x7f) == 1)
		return d->arena_bytes / 2u + 1u;
	v >>= (sel >> 5);
	if (v == 0)
		v = 1;
	return v > d->arena_bytes ? d->arena_bytes : v;
}

static int pick_live(struct decoder *d, uint8_t sel)
{
	for (uint32_t k = 0; k < MAX_LIVE; k++) {
		uint32_t s = (sel + k) % MAX_LIVE;
		if (d->live[s])
			return (int)s;
	}
	return -1;
}

static void decode_heap(struct decoder *d, uint8_t op, uint8_t a)
{
	int s;
	switch (op % 4u) {
	case 0: /* alloc into the lowest free slot */
		for (uint32_t k = 0; k < MAX_LIVE; k++)
			if (!d->live[k]) {
				uint32_t align = 1u << (take(d, 1) % 14u);
				if (align > d->arena_bytes)
					align = 1;
				push(d, AGB_OP_ALLOC, k, k, size_of(d, a), align);
				d->live[k] = 1;
				if (k + 1u > d->slots_used)
					d->slots_used = k + 1u;
				break;
			}
		break;
	case 1:
		if ((s = pick_live(d, a)) >= 0) {
			push(d, AGB_OP_FREE, (uint32_t)s, (uint32_t)s, 0, 0);
			d->live[s] = 0;
		}
		break;
	case 2:
		if ((s = pick_live(d, a)) >= 0)
			push(d, AGB_OP_REALLOC, (uint32_t)s, (uint32_t)s, size_of(d, take(d, 1)), 0);
		break;
	default: /* linear allocators: mark/reset a marker, or change sides */
		push(d, (uint8_t)(AGB_OP_MARK + a % 3u), a % 3u == 2u ? (a >> 2) & 1u : (a >> 2) % 4u,
		     0, 0, 0);
		break;
	}
}

static void decode_sprites(struct decoder *d, uint8_t op, uint8_t a)
{
	uint32_t id = a % MAX_SPRITES, z = take(d, 2);
	if (!d->shown[id] && op % 3u == 0) {
		push(d, AGB_OP_SPR_SHOW, id, id, z, 0);
		d->shown[id] = 1;
	} else if (d->shown[id] && op % 3u == 1) {
		push(d, AGB_OP_SPR_Z, id, id, z, 0);
	} else if (d->shown[id]) {
		push(d, AGB_OP_SPR_HIDE, id, id, 0, 0);
		d->shown[id] = 0;
	}
}

static void decode_tiles(struct decoder *d, uint8_t op, uint8_t a)
{
	uint32_t tile = a % TILES, b = (a >> 4) & 1u;
	if ((op & 1) == 0 || d->refs[tile][b] == 0) {
		push(d, AGB_OP_REF, tile, 0, b ? 8 : 4, 0);
		d->refs[tile][b]++;
	} else {
		push(d, AGB_OP_UNREF, tile, 0, b ? 8 : 4, 0);
		d->refs[tile][b]--;
	}
}

/* Colours of a palette: mostly one 4bpp bank (1..16), else an 8bpp palette (17..256). */
static uint32_t pal_colors(struct decoder *d, uint8_t sel)
{
	uint32_t v = take(d, 1);
	return (sel & 0x80u) != 0 ? 17u + v % 240u : 1u + v % 16u;
}

static void decode_pal(struct decoder *d, uint8_t op, uint8_t a)
{
	uint32_t side = a & 1u, key = (a >> 1) % PAL_KEYS;
	int s;
	struct agb_event *e;
	switch (op % (d->pal_no_stack ? 2u : 4u)) {
	case 0: /* pal_load into the lowest free handle; palette ids are the handles */
		for (uint32_t k = 0; k < MAX_LIVE; k++)
			if (!d->live[k]) {
				e = push(d, AGB_OP_PAL_LOAD, k, k, pal_colors(d, a),
					 AGB_PAL_EV_ALIGN(side, key));
				d->pal_loaded[k] = *e;
				d->live[k] = 1;
				if (k + 1u > d->slots_used)
					d->slots_used = k + 1u;
				break;
			}
		break;
	case 1: /* pal_free repeats the load's handle, colours, side and key, as the loader does */
		if ((s = pick_live(d, a)) >= 0) {
			e = push(d, AGB_OP_PAL_FREE, (uint32_t)s, (uint32_t)s, 0, 0);
			*e = d->pal_loaded[s];
			e->op = AGB_OP_PAL_FREE;
			d->live[s] = 0;
		}
		break;
	case 2: /* pal_push: ids above the handles, never reused */
		e = push(d, AGB_OP_PAL_PUSH, MAX_LIVE + d->pal_pushes++, 0, pal_colors(d, a),
			 AGB_PAL_EV_ALIGN(side, key));
		d->pal_stack[side][d->pal_depth[side]++] = *e;
		break;
	default:
		if (d->pal_depth[side] > 0) {
			e = push(d, AGB_OP_PAL_POP, 0, 0, 0, 0);
			*e = d->pal_stack[side][--d->pal_depth[side]];
			e->op = AGB_OP_PAL_POP;
		}
		break;
	}
}

/* lock, touch (a key's first op fixes its size), unlock of a key holding a lock. */
static void decode_cache(struct decoder *d, uint8_t op, uint8_t a)
{
	uint32_t k = a % CACHE_KEYS;
	if (d->key_size[k] == 0)
		d->key_size[k] = size_of(d, (uint8_t)(a | 0x40u));
	if (op % 3u == 2u && d->key_locks[k] > 0) {
		push(d, AGB_OP_UNLOCK, k, k, d->key_size[k], 0);
		d->key_locks[k]--;
	} else if (op % 3u == 0u && d->key_locks[k] < 255u) {
		push(d, AGB_OP_LOCK, k, k, d->key_size[k], 0);
		d->key_locks[k]++;
	} else {
		push(d, AGB_OP_TOUCH, k, k, d->key_size[k], 0);
	}
	if (d->slots_used < CACHE_KEYS)
		d->slots_used = CACHE_KEYS;
}

static void decode(struct decoder *d, enum agb_arena arena)
{
	while (d->p < d->end && d->n + 1u < MAX_EVENTS) {
		uint8_t op = (uint8_t)take(d, 1), a = (uint8_t)take(d, 1);
		if (op >= 0xf0) {
			push(d, AGB_OP_FRAME, 0, 0, 0, 0);
		} else if (arena == AGB_ARENA_PAL_RAM) {
			decode_pal(d, op, a);
		} else if (arena == AGB_ARENA_BG_VRAM) {
			decode_tiles(d, op, a);
		} else if (arena == AGB_ARENA_OBJ_VRAM && op >= 0xc0) {
			decode_sprites(d, op, a);
		} else if (op >= 0xa0 && op < 0xc0) {
			decode_cache(d, op, a);
		} else {
			decode_heap(d, op, a);
		}
	}
}

static enum agb_arena pick_arena(uint32_t arenas, uint8_t sel)
{
	for (uint32_t k = 0; k < AGB_ARENA_COUNT; k++) {
		uint32_t a = (sel + k) % AGB_ARENA_COUNT;
		if (arenas & AGB_ARENA_BIT(a))
			return (enum agb_arena)a;
	}
	return AGB_ARENA_EWRAM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct decoder d;
	size_t ncores = 0;
	if (size < 2)
		return 0;
	while (agb_heap_cores[ncores] != NULL)
		ncores++;
	const struct agb_heap_core *core = agb_heap_cores[data[0] % ncores];
	enum agb_arena arena = pick_arena(core->arenas, data[1] & 3u);
	uint32_t region = agb_arena_region_bytes(arena);
	memset(&d, 0, sizeof d);
	/* Palette cores take the whole of palette RAM or nothing: smaller sizes are the odd case. */
	d.arena_bytes = (data[1] >> 2) % 5u == 4u	  ? 1u + (uint32_t)data[1] * 37u
			: arena == AGB_ARENA_PAL_RAM ? region
						  : region >> ((data[1] >> 2) % 5u);
	d.pal_no_stack = core->pal_push == NULL;
	d.p = data + 2;
	d.end = data + size;
	decode(&d, arena);
	struct agb_trace t = {arena, d.arena_bytes, d.n, d.slots_used ? d.slots_used : 1u, 0,
			      d.ev, "fuzz", NULL};
	for (uint32_t i = 0; i < d.n; i++)
		t.frame_count += d.ev[i].op == AGB_OP_FRAME;
	fuzz_replay_checked(&t, core);
	return 0;
}
