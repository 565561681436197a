/* `palbanks`: palette RAM in 16-colour banks with reference counts, the way GBA engines share
 * palettes (docs/design.md, "Palette RAM").
 *
 * Each side (0 BG at 0x05000000, 1 OBJ at 0x05000200) has AGB_PAL_BANKS banks of 16 colours. A 4bpp
 * palette (1..16 colours) takes one bank, allocated from bank 15 down so that the low banks stay
 * free for an 8bpp palette (17..256 colours), which must sit in banks 0..ceil(colors/16)-1 of its
 * side. A load whose side, key and colour count match a resident palette shares its bank: the
 * reference count goes up and nothing is uploaded (a dedup hit). A free drops one reference; the
 * last one frees the banks. Nothing is ever moved: a bank number a game wrote into its sprites'
 * attributes or its map entries stays valid until the palette's last free.
 *
 * Meta area (IWRAM or EWRAM, 264 bytes): per side a used-bank mask word, then one 8-byte entry
 * per bank: the key, and the reference count (low half) with the colour count (high half) for
 * the first bank of a palette (zero elsewhere). Palette RAM itself is touched only to upload
 * colours, 32 bits at a time (it has a 16-bit bus: two accesses per word, no byte stores).
 * Loads are O(banks) (the dedup scan and the bank search), frees O(1) + O(banks of the palette).
 * Freestanding. */
#ifndef AGB_PALBANKS_H
#define AGB_PALBANKS_H

/* Abuse (agb/heap.h), in every build: pal_free of a side other than 0/1, a bank past 15, or a
 * bank where no palette starts (a free bank, one covered by an 8bpp palette, a free after the
 * last reference) returns AGB_VERB_BAD with nothing changed, from the bank's own entry. O(1).
 * One more free than the game made loads, while references remain, cannot be told from a
 * real one. AGB_HEAP_CHECKED adds nothing here. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AGB_PALBANKS_META_BYTES (2u * 4u + 2u * AGB_PAL_BANKS * 8u)

typedef struct agb_palbanks {
	agb_machine *m;
	uint32_t pal;  /* first byte of palette RAM (AGB_MEM_PAL) */
	uint32_t meta; /* the tables above */
} agb_palbanks;

/* Takes the whole palette RAM (cfg arena must be AGB_MEM_PAL, AGB_PAL_SIZE bytes) and clears the
 * tables. Returns AGB_HEAP_OK; AGB_HEAP_ARENA_TOO_SMALL / _TOO_LARGE (any other arena size);
 * AGB_HEAP_BAD_ALIGNMENT (arena not AGB_MEM_PAL or meta not 4-aligned); AGB_HEAP_META_TOO_SMALL
 * (under AGB_PALBANKS_META_BYTES). O(meta). */
int agb_palbanks_init(agb_palbanks *p, agb_machine *m, const struct agb_heap_config *cfg);

/* Loads `colors` (1..256) colours from GBA address `src` (4-aligned) identified by `key` on
 * `side` (0 BG, 1 OBJ). Returns the first bank: a resident identical palette's (reference
 * count + 1, *detail = AGB_VERB_SHARED, no upload) or a newly uploaded one's (*detail =
 * AGB_VERB_UPLOADED). Returns AGB_PAL_NONE (*detail = 0) when no bank (4bpp) or no free run from
 * bank 0 (8bpp) is left, or for a side above 1 or a colour count outside 1..256. O(banks +
 * colors). */
uint32_t agb_palbanks_load(agb_palbanks *p, uint32_t side, uint32_t key, uint32_t src,
			   uint32_t colors, uint32_t *detail);

/* Drops one reference to the palette whose first bank is `bank` on `side`; the last frees its
 * banks (*detail = AGB_VERB_RELEASED, else 0). Returns AGB_VERB_DONE, or AGB_VERB_BAD when no
 * palette starts at that bank. O(1) + O(banks of the palette). */
int agb_palbanks_free(agb_palbanks *p, uint32_t side, uint32_t bank, uint32_t *detail);

/* Reference count of the palette starting at `bank` (0: none). Observation only. O(1). */
uint32_t agb_palbanks_refs(agb_palbanks *p, uint32_t side, uint32_t bank);

/* Free banks as runs (free_bytes in bytes of palette RAM). Observation only. O(banks). */
void agb_palbanks_stats(agb_palbanks *p, struct agb_heap_stats *out);

/* Palette RAM in address order: each maximal run of used or free banks. Observation only.
 * O(banks). */
void agb_palbanks_walk(agb_palbanks *p, agb_walk_fn fn, void *ctx);

/* 0 when every used bank belongs to exactly one palette whose first bank holds a reference
 * count >= 1 and a colour count 1..256, 8bpp palettes start at bank 0, entries of free and
 * continuation banks are zero, and no two palettes of a side have the same key and colour count
 * (they would have been shared); else 1 with *why. Observation only. O(banks^2). */
int agb_palbanks_check(agb_palbanks *p, const char **why);

/* The meta tables (AGB_PALBANKS_META_BYTES). O(1). */
uint32_t agb_palbanks_overhead_bytes(const agb_palbanks *p);

extern const struct agb_heap_core agb_palbanks_core;

#ifdef __cplusplus
}
#endif

#endif
