/* `oam`: shadow OAM, Z-ordered, copied to hardware OAM each frame (see agb/oam.h), with an
 * embedded `obj-fast` for the sprite graphics in OBJ VRAM.
 *
 * Why a single core for both: a game's sprite system allocates tiles for a sprite's graphics
 * and an OAM slot to display it, and a trace of that game interleaves both. One core per trace
 * keeps the replay engine unchanged (non-heap ops go to the core's verbs) and measures the
 * frame's real work: allocations, Z-list maintenance and the OAM copy, in one budget. The OBJ
 * VRAM decisions are obj-fast's, which equal obj's, so nothing about placement changes. */
#include "agb/oam.h"

_Static_assert(sizeof(agb_oam) <= AGB_HEAP_STATE_MAX, "state too large");
_Static_assert(AGB_OAM_NONE == AGB_SPRITE_NONE, "the core table's no-sprite value");

#define ENTRY(st, s) ((st)->shadow + 8u * (s))
#define NEXT(st, s) ((st)->next + (s))
#define Z_OFFSET 6u
#define PRIO_SHIFT 10u
#define PRIO_MASK (3u << PRIO_SHIFT)

/* AGB_WORK (docs/design.md, "Cycle figures"): one unit per iteration of every loop on a verb's
 * path (a Z-list entry passed, an OAM entry copied or hidden); the graphics' units are
 * obj-fast's. */

uint32_t agb_oam_priority(const agb_oam *st, uint32_t z)
{
	uint32_t p = 0;
	z &= 0xFFFFu;
	for (uint32_t i = 0; i < 4u; i++)
		p += st->depth[i] < z;
	return p > 3u ? 3u : p;
}

int agb_oam_init(agb_oam *st, agb_machine *m, const struct agb_heap_config *cfg)
{
	static const uint16_t depths[4] = AGB_OAM_DEFAULT_DEPTHS;
	struct agb_heap_config hc = *cfg;
	int r;
	if ((cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < AGB_OAM_META_BYTES)
		return AGB_HEAP_META_TOO_SMALL;
	hc.meta_addr = cfg->meta_addr + AGB_OAM_META_BYTES;
	hc.meta_bytes = cfg->meta_bytes - AGB_OAM_META_BYTES;
	r = agb_obj_fast_init(&st->vram, m, &hc);
	if (r != AGB_HEAP_OK)
		return r;
	st->m = m;
	st->shadow = cfg->meta_addr;
	st->next = cfg->meta_addr + AGB_OAM_ENTRIES * 8u;
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
		AGB_ST16(m, AGB_MEM_OAM + 8u * s, AGB_OAM_HIDDEN_ATTR0);
	}
	return AGB_HEAP_OK;
}

/* Links slot s (its z already stored) into the Z list after every entry with z' <= z. */
static void link_z(agb_oam *st, uint32_t s, uint32_t z)
{
	agb_machine *m = st->m;
	uint32_t prev = AGB_OAM_NONE, cur = st->head;
	while (cur != AGB_OAM_NONE && AGB_LD16(m, ENTRY(st, cur) + Z_OFFSET) <= z) {
		AGB_WORK(m, 1);
		prev = cur;
		cur = AGB_LD8(m, NEXT(st, cur));
	}
	AGB_ST8(m, NEXT(st, s), cur);
	if (prev == AGB_OAM_NONE)
		st->head = (uint8_t)s;
	else
		AGB_ST8(m, NEXT(st, prev), s);
}

/* Removes slot s from the Z list: the predecessor is found from the head. Returns 0, changing
 * nothing, when s is not shown (a hidden slot, or one past the 128 entries): the normal
 * build's guard against hiding or moving a slot twice, at no cost to a shown slot. */
static int unlink_z(agb_oam *st, uint32_t s)
{
	agb_machine *m = st->m;
	uint32_t after;
	if (s >= AGB_OAM_ENTRIES)
		return 0;
	after = AGB_LD8(m, NEXT(st, s));
	if (st->head == s) {
		st->head = (uint8_t)after;
		return 1;
	}
	for (uint32_t cur = st->head; cur != AGB_OAM_NONE;) {
		uint32_t nx = AGB_LD8(m, NEXT(st, cur));
		AGB_WORK(m, 1);
		if (nx == s) {
			AGB_ST8(m, NEXT(st, cur), after);
			return 1;
		}
		cur = nx;
	}
	return 0;
}

uint32_t agb_oam_show(agb_oam *st, uint32_t z)
{
	z &= 0xFFFFu; /* depths are 16-bit */
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

void agb_oam_set_z(agb_oam *st, uint32_t slot, uint32_t z)
{
	z &= 0xFFFFu;
	agb_machine *m = st->m;
	uint32_t a2;
	if (!unlink_z(st, slot))
		return; /* not shown: refused untouched (agb/oam.h) */
	a2 = AGB_LD16(m, ENTRY(st, slot) + 4u);
	AGB_ST32(m, ENTRY(st, slot) + 4u,
		 (a2 & ~PRIO_MASK) | (agb_oam_priority(st, z) << PRIO_SHIFT) | ((uint32_t)z << 16));
	link_z(st, slot, z);
}

void agb_oam_hide(agb_oam *st, uint32_t slot)
{
	if (!unlink_z(st, slot))
		return; /* not shown: refused untouched (agb/oam.h) */
	AGB_ST8(st->m, NEXT(st, slot), st->free_head);
	st->free_head = (uint8_t)slot;
}

uint32_t agb_oam_copy(agb_oam *st)
{
	agb_machine *m = st->m;
	uint32_t i = 0;
	for (uint32_t s = st->head; s != AGB_OAM_NONE; s = AGB_LD8(m, NEXT(st, s)), i++) {
		/* attr0|attr1 as one word, attr2 as a halfword: the affine halfword stays as is. */
		AGB_WORK(m, 1);
		AGB_ST32(m, AGB_MEM_OAM + 8u * i, AGB_LD32(m, ENTRY(st, s)));
		AGB_ST16(m, AGB_MEM_OAM + 8u * i + 4u, AGB_LD16(m, ENTRY(st, s) + 4u));
	}
	AGB_WORK(m, st->copied > i ? st->copied - i : 0u);
	for (uint32_t j = i; j < st->copied; j++)
		AGB_ST16(m, AGB_MEM_OAM + 8u * j, AGB_OAM_HIDDEN_ATTR0);
	st->copied = (uint8_t)i;
	return i;
}

uint32_t agb_oam_shadow_addr(const agb_oam *st, uint32_t slot)
{
	return ENTRY(st, slot);
}

void agb_oam_set_layer_depths(agb_oam *st, const uint16_t depth[4])
{
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

uint32_t agb_oam_order(const agb_oam *st, uint8_t *slots, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t s = st->head; s != AGB_OAM_NONE && n < AGB_OAM_ENTRIES;
	     s = AGB_PEEK8(st->m, NEXT(st, s))) {
		if (n < max)
			slots[n] = (uint8_t)s;
		n++;
	}
	return n;
}

int agb_oam_frame(agb_oam *st)
{
	agb_oam_copy(st);
	return AGB_VERB_DONE;
}

uint32_t agb_oam_alloc(agb_oam *st, uint32_t size, uint32_t align, uint32_t *granted)
{
	return agb_obj_fast_alloc(&st->vram, size, align, granted);
}

void agb_oam_free(agb_oam *st, uint32_t addr)
{
	agb_obj_fast_free(&st->vram, addr);
}

void agb_oam_stats(agb_oam *st, struct agb_heap_stats *out)
{
	agb_obj_fast_stats(&st->vram, out);
}

void agb_oam_walk(agb_oam *st, agb_walk_fn fn, void *ctx)
{
	agb_obj_fast_walk(&st->vram, fn, ctx);
}

int agb_oam_check(agb_oam *st, const char **why)
{
	agb_machine *m = st->m;
	uint8_t seen[AGB_OAM_ENTRIES] = {0};
	uint32_t count = 0, last_z = 0;
	if (agb_obj_fast_check(&st->vram, why) != 0)
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
	return 0;
}

uint32_t agb_oam_overhead_bytes(agb_oam *st)
{
	return AGB_OAM_META_BYTES + agb_obj_fast_overhead_bytes(&st->vram);
}

AGB_BLOCK_CORE_ADAPTERS(oam)
AGB_CORE_ADAPTER(oam, frame)
AGB_CORE_ADAPTER(oam, sprite_show)
AGB_CORE_ADAPTER(oam, sprite_z)
AGB_CORE_ADAPTER(oam, sprite_hide)

/* Model: alloc/free as obj-fast's (the call adds a few instructions); the Z-list walks and the
 * copy loop are ~2-3 Thumb instructions per counted access (~5 cycles from ROM). free_base also
 * prices the spr_* ops and the frame copy's fixed work (the engine uses it for non-heap ops). */
const struct agb_heap_core agb_oam_core = {
	.name = "oam",
	.summary = "shadow OAM: 128 slots, Z-ordered list, per-frame copy in Z order; OBJ VRAM by obj-fast",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = AGB_OBJ_BLOCK_BYTES,
	.state_bytes = sizeof(agb_oam),
	AGB_BLOCK_CORE_MEMBERS,
	.frame = core_frame,
	.sprite_show = core_sprite_show,
	.sprite_z = core_sprite_z,
	.sprite_hide = core_sprite_hide,
	.model = {.alloc_base = 190, .free_base = 40, .realloc_base = 250, .per_access = 80},
};
