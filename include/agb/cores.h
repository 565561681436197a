/* Every core agbmem provides, by its interface table. */
#ifndef AGB_CORES_H
#define AGB_CORES_H

#include "agb/heap.h"

extern const struct agb_heap_core agb_tree_core; /* best-fit tree, 8-byte blocks (seed) */
extern const struct agb_heap_core agb_bestfit_core;  /* best fit: exact bins + treap, 2-bit map */
extern const struct agb_heap_core agb_tiles_core; /* BG tile manager, ref/unref (seed) */
extern const struct agb_heap_core agb_obj_core;      /* OBJ VRAM byte map (seed) */
extern const struct agb_heap_core agb_obj_fast_core; /* OBJ VRAM, obj's decisions via bitmaps */
extern const struct agb_heap_core agb_oam_core;      /* shadow OAM + obj-fast */
extern const struct agb_heap_core agb_tlsf_core;     /* two-level segregated fit, O(1) */
extern const struct agb_heap_core agb_buddy_core;    /* binary buddy, metadata outside */
extern const struct agb_heap_core agb_firstfit_core; /* address-ordered first fit */
extern const struct agb_heap_core agb_slots_core;    /* static slot classes (baseline) */
extern const struct agb_heap_core agb_bump_core;     /* linear, mark/reset (seed) */
extern const struct agb_heap_core agb_stack2_core;   /* double-ended linear (seed) */

#endif
