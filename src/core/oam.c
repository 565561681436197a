/* `oam`: shadow OAM, Z-ordered, copied to hardware OAM each frame (see agb/oam.h), with an
 * embedded `obj-fast` for the sprite graphics in OBJ VRAM.
 *
 * Why a single core for both: a game's sprite system allocates tiles for a sprite's graphics
 * and an OAM slot to display it, and a trace of that game interleaves both. One core per trace
 * keeps the replay engine unchanged (non-heap ops go to the core's verbs) and measures the
 * frame's real work: allocations, Z-list maintenance and the OAM copy, in one budget. The OBJ
 * VRAM decisions are obj-fast's, which equal obj's, so nothing about placement changes. */
#include "agb/oam.h"

#include "agb/obj.h"

#define HEAP_WORDS 24u

struct oam_state {
	agb_machine *m;
	uint32_t shadow;  /* meta: AGB_OAM_ENTRIES x 8 bytes */
	uint32_t next;    /* meta: AGB_OAM_ENTRIES link bytes (Z list and free list) */
	uint32_t handles; /* meta: AGB_OAM_HANDLES bytes: trace handle -> slot */
	uint8_t head;     /* nearest shown slot, AGB_OAM_NONE when none */
	uint8_t free_head;
	uint8_t copied; /* hardware entries written by the last copy */
	uint8_t pad;
	uint16_t depth[4];
	uint32_t heap[HEAP_WORDS]; /* obj-fast state (pointer-aligned: first member is a pointer) */
};

_Static_assert(sizeof(struct oam_state) <= AGB_HEAP_STATE_MAX, "state too large");
_Static_assert(offsetof(struct oam_state, heap) % sizeof(void *) == 0, "heap state misaligned");

#define ENTRY(st, s) ((st)->shadow + 8u * (s))
#define NEXT(st, s) ((st)->next + (s))
#define HANDLE(st, h) ((st)->handles + (h))
#define Z_OFFSET 6u
#define PRIO_SHIFT 10u
#define PRIO_MASK (3u << PRIO_SHIFT)

static const struct agb_heap_core *heap_core(void)
{
	return &agb_obj_fast_core;
}

uint32_t agb_oam_priority(const void *state, uint16_t z)
{
	const struct oam_state *st = state;
	uint32_t p = 0;
	for (uint32_t i = 0; i < 4u; i++)
		p += st->depth[i] < z;
	return p > 3u ? 3u : p;
}

/* Contract: cfg describes an OBJ VRAM arena (for the embedded obj-fast) and a meta area of at
 * least AGB_OAM_META_BYTES plus obj-fast's needs, 4-byte aligned. Hides all 128 hardware OAM
 * entries. O(entries). */
static int oam_init(void *state, agb_machine *m, const struct agb_heap_config *cfg)
{
	struct oam_state *st = state;
	static const uint16_t depths[4] = AGB_OAM_DEFAULT_DEPTHS;
	struct agb_heap_config hc = *cfg;
	int r;
	if (heap_core()->state_bytes > sizeof st->heap)
		return AGB_HEAP_META_TOO_SMALL;
	if ((cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < AGB_OAM_META_BYTES)
		return AGB_HEAP_META_TOO_SMALL;
	hc.meta_addr = cfg->meta_addr + AGB_OAM_META_BYTES;
	hc.meta_bytes = cfg->meta_bytes - AGB_OAM_META_BYTES;
	r = heap_core()->init(st->heap, m, &hc);
	if (r != AGB_HEAP_OK)
		return r;
	st->m = m;
	st->shadow = cfg->meta_addr;
	st->next = cfg->meta_addr + AGB_OAM_ENTRIES * 8u;
	st->handles = st->next + AGB_OAM_ENTRIES;
	st->head = AGB_OAM_NONE;
	st->free_head = 0;
	st->copied = 0;
	st->pad = 0;
	for (uint32_t i = 0; i < 4u; i++)
		st->depth[i] = depths[i];
	for (uint32_t s = 0; s < AGB_OAM_ENTRIES; s++) {
		AGB_ST32(m, ENTRY(st, s), 0);
		AGB_ST32(m, ENTRY(st, s) + 4u, 0);
		AGB_ST8(m, NEXT(st, s), s + 1u < AGB_OAM_ENTRIES ? s + 1u : AGB_OAM_NONE);
		AGB_ST16(m, MEM_OAM + 8u * s, AGB_OAM_HIDDEN_ATTR0);
	}
	for (uint32_t h = 0; h < AGB_OAM_HANDLES; h += 4u)
		AGB_ST32(m, HANDLE(st, h), 0xFFFFFFFFu);
	return AGB_HEAP_OK;
}

/* Links slot s (its z already stored) into the Z list after every entry with z' <= z. */
static void link_z(struct oam_state *st, uint32_t s, uint16_t z)
{
	agb_machine *m = st->m;
	uint32_t prev = AGB_OAM_NONE, cur = st->head;
	while (cur != AGB_OAM_NONE && AGB_LD16(m, ENTRY(st, cur) + Z_OFFSET) <= z) {
		prev = cur;
		cur = AGB_LD8(m, NEXT(st, cur));
	}
	AGB_ST8(m, NEXT(st, s), cur);
	if (prev == AGB_OAM_NONE)
		st->head = (uint8_t)s;
	else
		AGB_ST8(m, NEXT(st, prev), s);
}

/* Removes slot s from the Z list: the predecessor is found from the head. */
static void unlink_z(struct oam_state *st, uint32_t s)
{
	agb_machine *m = st->m;
	uint32_t after = AGB_LD8(m, NEXT(st, s));
	if (st->head == s) {
		st->head = (uint8_t)after;
		return;
	}
	for (uint32_t cur = st->head; cur != AGB_OAM_NONE;) {
		uint32_t nx = AGB_LD8(m, NEXT(st, cur));
		if (nx == s) {
			AGB_ST8(m, NEXT(st, cur), after);
			return;
		}
		cur = nx;
	}
}

uint32_t agb_oam_show(void *state, uint16_t z)
{
	struct oam_state *st = state;
	agb_machine *m = st->m;
	uint32_t s = st->free_head;
	if (s == AGB_OAM_NONE)
		return AGB_OAM_NONE;
	st->free_head = AGB_LD8(m, NEXT(st, s));
	AGB_ST32(m, ENTRY(st, s), 0);
	AGB_ST32(m, ENTRY(st, s) + 4u,
		 (agb_oam_priority(st, z) << PRIO_SHIFT) | ((uint32_t)z << 16));
	link_z(st, s, z);
	return s;
}

void agb_oam_set_z(void *state, uint32_t slot, uint16_t z)
{
	struct oam_state *st = state;
	agb_machine *m = st->m;
	uint32_t a2 = AGB_LD16(m, ENTRY(st, slot) + 4u);
	unlink_z(st, slot);
	AGB_ST32(m, ENTRY(st, slot) + 4u,
		 (a2 & ~PRIO_MASK) | (agb_oam_priority(st, z) << PRIO_SHIFT) | ((uint32_t)z << 16));
	link_z(st, slot, z);
}

void agb_oam_hide(void *state, uint32_t slot)
{
	struct oam_state *st = state;
	unlink_z(st, slot);
	AGB_ST8(st->m, NEXT(st, slot), st->free_head);
	st->free_head = (uint8_t)slot;
}

uint32_t agb_oam_copy(void *state)
{
	struct oam_state *st = state;
	agb_machine *m = st->m;
	uint32_t i = 0;
	for (uint32_t s = st->head; s != AGB_OAM_NONE; s = AGB_LD8(m, NEXT(st, s)), i++) {
		/* attr0|attr1 as one word, attr2 as a halfword: the affine halfword stays as is. */
		AGB_ST32(m, MEM_OAM + 8u * i, AGB_LD32(m, ENTRY(st, s)));
		AGB_ST16(m, MEM_OAM + 8u * i + 4u, AGB_LD16(m, ENTRY(st, s) + 4u));
	}
	for (uint32_t j = i; j < st->copied; j++)
		AGB_ST16(m, MEM_OAM + 8u * j, AGB_OAM_HIDDEN_ATTR0);
	st->copied = (uint8_t)i;
	return i;
}

uint32_t agb_oam_shadow_addr(void *state, uint32_t slot)
{
	return ENTRY((struct oam_state *)state, slot);
}

void agb_oam_set_layer_depths(void *state, const uint16_t depth[4])
{
	struct oam_state *st = state;
	agb_machine *m = st->m;
	for (uint32_t i = 0; i < 4u; i++)
		st->depth[i] = depth[i];
	for (uint32_t s = st->head; s != AGB_OAM_NONE; s = AGB_LD8(m, NEXT(st, s))) {
		uint32_t a2 = AGB_LD16(m, ENTRY(st, s) + 4u);
		uint16_t z = AGB_LD16(m, ENTRY(st, s) + Z_OFFSET);
		AGB_ST16(m, ENTRY(st, s) + 4u,
			 (a2 & ~PRIO_MASK) | (agb_oam_priority(st, z) << PRIO_SHIFT));
	}
}

uint32_t agb_oam_order(void *state, uint8_t *slots, uint32_t max)
{
	struct oam_state *st = state;
	uint32_t n = 0;
	for (uint32_t s = st->head; s != AGB_OAM_NONE && n < AGB_OAM_ENTRIES;
	     s = AGB_PEEK8(st->m, NEXT(st, s))) {
		if (n < max)
			slots[n] = (uint8_t)s;
		n++;
	}
	return n;
}

/* Core-table verbs: the per-frame copy and the sprite display calls. */
static int oam_frame(void *state)
{
	agb_oam_copy(state);
	return AGB_VERB_DONE;
}

static uint32_t oam_sprite_show(void *state, uint32_t z)
{
	return agb_oam_show(state, (uint16_t)z);
}

static void oam_sprite_z(void *state, uint32_t sprite, uint32_t z)
{
	agb_oam_set_z(state, sprite, (uint16_t)z);
}

static void oam_sprite_hide(void *state, uint32_t sprite)
{
	agb_oam_hide(state, sprite);
}

/* Contract: as obj-fast's (the graphics allocator is obj-fast). */
static uint32_t oam_alloc(void *state, uint32_t size, uint32_t align, uint32_t *granted)
{
	return heap_core()->alloc(((struct oam_state *)state)->heap, size, align, granted);
}

static void oam_free(void *state, uint32_t addr)
{
	heap_core()->free(((struct oam_state *)state)->heap, addr);
}

static void oam_stats(void *state, struct agb_heap_stats *out)
{
	heap_core()->stats(((struct oam_state *)state)->heap, out);
}

static void oam_walk(void *state, agb_walk_fn fn, void *ctx)
{
	heap_core()->walk(((struct oam_state *)state)->heap, fn, ctx);
}

/* Contract: observation only. The obj-fast invariants, and: the Z list is acyclic and sorted by
 * z, every shown entry's priority bits match its z, the Z list and the free list partition the
 * 128 slots, and each handle maps to a distinct shown slot. O(entries + handles). */
static int oam_check(void *state, const char **why)
{
	struct oam_state *st = state;
	agb_machine *m = st->m;
	uint8_t seen[AGB_OAM_ENTRIES] = {0};
	uint32_t count = 0, last_z = 0;
	if (heap_core()->check(st->heap, why) != 0)
		return 1;
	for (uint32_t s = st->head; s != AGB_OAM_NONE; s = AGB_PEEK8(m, NEXT(st, s))) {
		uint32_t z = AGB_PEEK16(m, ENTRY(st, s) + Z_OFFSET);
		uint32_t a2 = AGB_PEEK16(m, ENTRY(st, s) + 4u);
		if (s >= AGB_OAM_ENTRIES || seen[s]) {
			*why = "oam: Z list has a cycle or a bad link";
			return 1;
		}
		seen[s] = 1;
		if (count != 0 && z < last_z) {
			*why = "oam: Z list out of order";
			return 1;
		}
		if (((a2 & PRIO_MASK) >> PRIO_SHIFT) != agb_oam_priority(st, (uint16_t)z)) {
			*why = "oam: priority bits do not match the layer depths";
			return 1;
		}
		last_z = z;
		count++;
	}
	for (uint32_t s = st->free_head; s != AGB_OAM_NONE; s = AGB_PEEK8(m, NEXT(st, s))) {
		if (s >= AGB_OAM_ENTRIES || seen[s]) {
			*why = "oam: free list overlaps the Z list or has a cycle";
			return 1;
		}
		seen[s] = 2;
		count++;
	}
	if (count != AGB_OAM_ENTRIES) {
		*why = "oam: a slot is in neither the Z list nor the free list";
		return 1;
	}
	for (uint32_t h = 0; h < AGB_OAM_HANDLES; h++) {
		uint32_t s = AGB_PEEK8(m, HANDLE(st, h));
		if (s == AGB_OAM_NONE)
			continue;
		if (s >= AGB_OAM_ENTRIES || seen[s] != 1) {
			*why = "oam: a handle maps to a slot that is not shown";
			return 1;
		}
		seen[s] = 3;
	}
	return 0;
}

/* Contract: shadow OAM, links and handle table plus obj-fast's metadata (outside the arena). */
static uint32_t oam_overhead(void *state)
{
	return AGB_OAM_META_BYTES + heap_core()->overhead_bytes(((struct oam_state *)state)->heap);
}

/* Model: alloc/free as obj-fast's (the call adds a few instructions); the Z-list walks and the
 * copy loop are ~2-3 Thumb instructions per counted access (~5 cycles from ROM). free_base also
 * prices the spr_* ops and the frame copy's fixed work (the engine uses it for non-heap ops).
 * Not yet fitted against mGBA. */
const struct agb_heap_core agb_oam_core = {
	.name = "oam",
	.summary = "shadow OAM: 128 slots, Z-ordered list, per-frame copy in Z order; OBJ VRAM by obj-fast",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = AGB_OBJ_BLOCK_BYTES,
	.state_bytes = sizeof(struct oam_state),
	.init = oam_init,
	.alloc = oam_alloc,
	.free = oam_free,
	.realloc = NULL,
	.stats = oam_stats,
	.walk = oam_walk,
	.check = oam_check,
	.overhead_bytes = oam_overhead,
	.frame = oam_frame,
	.sprite_show = oam_sprite_show,
	.sprite_z = oam_sprite_z,
	.sprite_hide = oam_sprite_hide,
	.model = {.alloc_base = 190, .free_base = 40, .realloc_base = 250, .per_access = 80},
};
