/* `oam`: shadow OAM with Z ordering (seed article, "Shadow OAM"), plus the OBJ VRAM allocator.
 *
 * The game owns 128 fixed shadow entries in work RAM; an entry's slot never changes while its
 * sprite lives, so other systems may keep the slot number. Each entry carries its depth z and an
 * 8-bit link to the entry with the next larger z, forming one singly linked list from the
 * nearest sprite to the farthest. Once per frame (V-blank) the list is walked and each entry's
 * attributes are copied to hardware OAM in that order: OAM entry 0 is drawn on top, so the
 * nearest sprite lands there. Entries of hardware OAM that were used last frame and not this
 * one are hidden (attr0 = 0x0200, the OBJ-disable bit).
 *
 * Depth convention: smaller z = nearer the viewer. Among equal z, the sprite shown (or moved to
 * that z) earlier stays in front.
 *
 * BG priority: the four BG layers have depths too (agb_oam_set_layer_depths; the game gives
 * layer i hardware priority = its rank by depth, nearest = 0). A sprite's priority bits are the
 * number of layers strictly in front of it (layer depth < z), capped at 3: the sprite is then
 * drawn behind exactly those layers and in front of the rest, since on the GBA a sprite wins
 * against any BG of equal or larger priority number. A sprite at the same depth as a layer is in
 * front of it. A sprite behind all four layers gets 3 (in front of the farthest layer), the
 * nearest the hardware can do.
 *
 * Memory: 1 KiB shadow (8 bytes per entry: attr0, attr1, attr2 and z in the halfword the hardware
 * uses for affine parameters, which the copy leaves alone) and 128 link bytes, in the meta area
 * (EWRAM by default), followed by the metadata of an embedded `obj-fast` (agb/obj_fast.h) that
 * serves alloc/free of sprite graphics, so one core replays a trace with both. The game keeps
 * each sprite's slot number in its own sprite struct (a replay keeps it in its handle table). */
#ifndef AGB_OAM_H
#define AGB_OAM_H

/* Abuse (agb/heap.h). agb_oam_free is obj-fast's free on the embedded OBJ VRAM pool: in every
 * build it does nothing for an address that is not a live allocation (agb/obj_fast.h); with
 * AGB_HEAP_CHECKED the refusal is also recorded in agb_heap_abuse under core "obj-fast".
 * agb_oam_hide and agb_oam_set_z do nothing for a slot that is not shown (hidden already, or
 * past the 128 entries), in every build, found by the Z-list search they make anyway. */

#include <stdint.h>

#include "agb/heap.h"
#include "agb/obj_fast.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_OAM_ENTRIES 128u
#define AGB_OAM_NONE 0xFFu        /* no slot / end of list (equals AGB_SPRITE_NONE) */
/* Meta bytes of the shadow OAM itself; obj-fast's AGB_OBJ_FAST_META_BYTES follow them. */
#define AGB_OAM_META_BYTES (AGB_OAM_ENTRIES * 8u + AGB_OAM_ENTRIES)
#define AGB_OAM_HIDDEN_ATTR0 0x0200u

/* Default BG layer depths (BG0 nearest, e.g. the HUD; BG3 farthest). */
#define AGB_OAM_DEFAULT_DEPTHS {0x1000u, 0x4000u, 0x8000u, 0xC000u}

/* `oam`'s state (IWRAM globals in a game): the Z list's ends, the layer depths and the embedded
 * OBJ VRAM allocator. */
typedef struct agb_oam {
	agb_machine *m;
	uint32_t shadow; /* meta: AGB_OAM_ENTRIES x 8 bytes */
	uint32_t next;   /* meta: AGB_OAM_ENTRIES link bytes (Z list and free list) */
	uint8_t head;    /* nearest shown slot, AGB_OAM_NONE when none */
	uint8_t free_head;
	uint8_t copied; /* hardware entries written by the last copy */
	uint8_t pad;
	uint16_t depth[4];
	agb_obj_fast vram; /* sprite graphics in OBJ VRAM */
} agb_oam;

/* Prepares the shadow OAM (all slots free, default layer depths), hides all 128 hardware OAM
 * entries and initialises the OBJ VRAM allocator on cfg's arena. cfg: an OBJ VRAM arena as for
 * agb_obj_fast_init and a 4-byte aligned meta area of AGB_OAM_META_BYTES +
 * AGB_OBJ_FAST_META_BYTES(arena / 32) bytes. Returns AGB_HEAP_OK, AGB_HEAP_BAD_ALIGNMENT,
 * AGB_HEAP_META_TOO_SMALL or obj-fast's failure. O(entries + words). */
int agb_oam_init(agb_oam *o, agb_machine *m, const struct agb_heap_config *cfg);

/* Sprite graphics: agb_obj_fast_alloc / _free on the embedded allocator (same contracts and
 * complexity). */
uint32_t agb_oam_alloc(agb_oam *o, uint32_t size, uint32_t align, uint32_t *granted);
void agb_oam_free(agb_oam *o, uint32_t addr);

/* Takes a free slot for a sprite at depth z and links it into the Z list (after any sprite of
 * the same z). Its shadow attributes start as zeros with the BG priority bits set. Returns the
 * slot, or AGB_OAM_NONE when all 128 are in use. O(shown sprites): the list is searched from the
 * nearest sprite. */
uint32_t agb_oam_show(agb_oam *o, uint32_t z);

/* Moves a shown slot to depth z (relinks it, updates its priority bits). O(shown sprites). */
void agb_oam_set_z(agb_oam *o, uint32_t slot, uint32_t z);

/* Unlinks a shown slot and returns it to the free slots; it disappears at the next copy.
 * O(shown sprites) (singly linked: the predecessor is searched). */
void agb_oam_hide(agb_oam *o, uint32_t slot);

/* The per-frame copy: shadow entries in Z order to hardware OAM 0x07000000 with 32- and 16-bit
 * stores only (the hardware drops byte stores), then hides the entries left over from the
 * previous frame. Returns the number of sprites copied. O(shown + previously shown). */
uint32_t agb_oam_copy(agb_oam *o);

/* The per-frame verb: agb_oam_copy. Returns AGB_VERB_DONE. O(shown + previously shown). */
int agb_oam_frame(agb_oam *o);

/* GBA address of a slot's shadow entry (attr0 at +0, attr1 +2, attr2 +4): where the game writes
 * position, tile and flags. Bits 10-11 of attr2 (priority) are owned by the manager. O(1). */
uint32_t agb_oam_shadow_addr(const agb_oam *o, uint32_t slot);

/* Sets the depths of BG0..BG3 and recomputes the priority bits of every shown sprite.
 * O(shown sprites). */
void agb_oam_set_layer_depths(agb_oam *o, const uint16_t depth[4]);

/* Priority bits for depth z under the current layer depths (0..3). O(1). */
uint32_t agb_oam_priority(const agb_oam *o, uint32_t z);

/* Shown sprites, in Z order, for observers: fills up to `max` slots, returns the count.
 * Observation only (uncounted). O(shown). */
uint32_t agb_oam_order(const agb_oam *o, uint8_t *slots, uint32_t max);

/* obj-fast's free runs and map (the shadow OAM is outside the arena). Observation only.
 * O(blocks). */
void agb_oam_stats(agb_oam *o, struct agb_heap_stats *out);
void agb_oam_walk(agb_oam *o, agb_walk_fn fn, void *ctx);

/* Returns 0 when obj-fast's invariants hold, the Z list is acyclic and sorted by z, each shown
 * entry's priority bits match its z and the Z and free lists partition the 128 slots; else 1
 * with *why set (untouched on success). Observation only. O(entries + blocks). */
int agb_oam_check(agb_oam *o, const char **why);

/* Shadow OAM, links and obj-fast's metadata (outside the arena). O(1). */
uint32_t agb_oam_overhead_bytes(agb_oam *o);

extern const struct agb_heap_core agb_oam_core;

#ifdef __cplusplus
}
#endif

#endif
