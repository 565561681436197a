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
 * uses for affine parameters, which the copy leaves alone), 128 link bytes, and a 256-byte
 * handle table that maps a trace's sprite handles to slots (a game would keep the slot in its
 * sprite struct; the table is that storage). All of it sits in the meta area (EWRAM by default),
 * followed by the metadata of an embedded `obj-fast` instance that serves alloc/free of sprite
 * graphics, so one core replays a trace with both. */
#ifndef AGB_OAM_H
#define AGB_OAM_H

#include <stdint.h>

#include "agb/heap.h"

#define AGB_OAM_ENTRIES 128u
#define AGB_OAM_NONE 0xFFu        /* no slot / end of list */
#define AGB_OAM_HANDLES 256u      /* trace sprite handles the core can map */
#define AGB_OAM_META_BYTES (AGB_OAM_ENTRIES * 8u + AGB_OAM_ENTRIES + AGB_OAM_HANDLES)
#define AGB_OAM_HIDDEN_ATTR0 0x0200u

/* Default BG layer depths (BG0 nearest, e.g. the HUD; BG3 farthest). */
#define AGB_OAM_DEFAULT_DEPTHS {0x1000u, 0x4000u, 0x8000u, 0xC000u}

extern const struct agb_heap_core agb_oam_core;

/* The functions below take the core state that agb_oam_core.init prepared. */

/* Takes a free slot for a sprite at depth z and links it into the Z list (after any sprite of
 * the same z). Its shadow attributes start as zeros with the BG priority bits set. Returns the
 * slot, or AGB_OAM_NONE when all 128 are in use. O(shown sprites): the list is searched from the
 * nearest sprite. */
uint32_t agb_oam_show(void *state, uint16_t z);

/* Moves a shown slot to depth z (relinks it, updates its priority bits). O(shown sprites). */
void agb_oam_set_z(void *state, uint32_t slot, uint16_t z);

/* Unlinks a shown slot and returns it to the free slots; it disappears at the next copy.
 * O(shown sprites) (singly linked: the predecessor is searched). */
void agb_oam_hide(void *state, uint32_t slot);

/* The per-frame copy: shadow entries in Z order to hardware OAM 0x07000000 with 32- and 16-bit
 * stores only (the hardware drops byte stores), then hides the entries left over from the
 * previous frame. Returns the number of sprites copied. O(shown + previously shown). */
uint32_t agb_oam_copy(void *state);

/* GBA address of a slot's shadow entry (attr0 at +0, attr1 +2, attr2 +4): where the game writes
 * position, tile and flags. Bits 10-11 of attr2 (priority) are owned by the manager. */
uint32_t agb_oam_shadow_addr(void *state, uint32_t slot);

/* Sets the depths of BG0..BG3 and recomputes the priority bits of every shown sprite.
 * O(shown sprites). */
void agb_oam_set_layer_depths(void *state, const uint16_t depth[4]);

/* Priority bits for depth z under the current layer depths (0..3). O(1). */
uint32_t agb_oam_priority(const void *state, uint16_t z);

/* Shown sprites, in Z order, for observers: fills up to `max` slots, returns the count.
 * Observation only (uncounted). */
uint32_t agb_oam_order(void *state, uint8_t *slots, uint32_t max);

#endif
