/* Every core agbmem provides, by its interface table. */
#ifndef AGB_CORES_H
#define AGB_CORES_H

#include "agb/heap.h"

extern const struct agb_heap_core agb_tree_core; /* best-fit tree, 8-byte blocks (seed) */
extern const struct agb_heap_core agb_tiles_core; /* BG tile manager, ref/unref (seed) */
extern const struct agb_heap_core agb_obj_core;      /* OBJ VRAM byte map (seed) */
extern const struct agb_heap_core agb_obj_fast_core; /* OBJ VRAM, obj's decisions via bitmaps */
extern const struct agb_heap_core agb_oam_core;      /* shadow OAM + obj-fast */

#endif
