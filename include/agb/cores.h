/* Every core agbmem provides, by its interface table. */
#ifndef AGB_CORES_H
#define AGB_CORES_H

#include "agb/heap.h"

extern const struct agb_heap_core agb_tree_core; /* best-fit tree, 8-byte blocks (seed) */
extern const struct agb_heap_core agb_tiles_core; /* BG tile manager, ref/unref (seed) */

#endif
