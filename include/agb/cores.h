/* Every core agbmem provides: each header declares its typed API and its core table
 * (agb_<core>_core). The registry (src/agbmem/registry.c) lists the tables. */
#ifndef AGB_CORES_H
#define AGB_CORES_H

#include "agb/heap.h"

#include "agb/bestfit.h"  /* best fit: exact bins + treap, 2-bit map */
#include "agb/buddy.h"    /* binary buddy, metadata outside */
#include "agb/bump.h"     /* linear, mark/reset (seed) */
#include "agb/firstfit.h" /* address-ordered first fit */
#include "agb/oam.h"      /* shadow OAM + obj-fast */
#include "agb/obj.h"      /* OBJ VRAM byte map (seed) */
#include "agb/obj_fast.h" /* OBJ VRAM, obj's decisions via bitmaps */
#include "agb/palbanks.h" /* palette RAM, shared banks by reference count */
#include "agb/palstack.h" /* palette RAM, block copies + palette stack (seed) */
#include "agb/slots.h"    /* static slot classes (baseline) */
#include "agb/stack2.h"   /* double-ended linear (seed) */
#include "agb/tiles.h"    /* BG tile manager, ref/unref (seed) */
#include "agb/tlsf.h"     /* two-level segregated fit, O(1) */
#include "agb/tree.h"     /* best-fit tree, 8-byte blocks (seed) */

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
