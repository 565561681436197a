/* Bank tables shared by the palette cores (palbanks, palstack): private to src/agbmem.
 *
 * Layout at `meta`: per side a used-bank mask word (bits 0..15), then per side and bank an
 * 8-byte entry: the key, and the reference count (bits 0-15) with the colour count (bits 16-31)
 * on the first bank of a palette; zero on free banks and on the other banks of an 8bpp palette.
 * Every access goes through the machine macros. Freestanding. */
#ifndef AGB_CORE_PAL_TABLES_H
#define AGB_CORE_PAL_TABLES_H

#include "agb/heap.h"

#define PAL_TABLE_BYTES             (2u * 4u + 2u * AGB_PAL_BANKS * 8u)
#define PAL_MASK(meta, side) ((meta) + (side) * 4u)
#define PAL_ENTRY(meta, side, bank) ((meta) + 8u + ((side)*AGB_PAL_BANKS + (bank)) * 8u)
#define PAL_BANK_ADDR(pal, side, bank)                                                             \
	((pal) + (side)*AGB_PAL_SIDE_BYTES + (bank)*AGB_PAL_BANK_BYTES)
#define PAL_RUN_MASK(n) ((1u << (n)) - 1u)

/* Checks the arena and meta a palette core is given; returns an agb_heap_init_status. */
static inline int pal_tables_place(const struct agb_heap_config *cfg, uint32_t meta_need)
{
	if (cfg->arena_bytes < AGB_PAL_SIZE)
		return AGB_HEAP_ARENA_TOO_SMALL;
	if (cfg->arena_bytes > AGB_PAL_SIZE)
		return AGB_HEAP_ARENA_TOO_LARGE;
	if (cfg->arena_addr != AGB_MEM_PAL || (cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < meta_need)
		return AGB_HEAP_META_TOO_SMALL;
	return AGB_HEAP_OK;
}

static inline void pal_zero(agb_machine *m, uint32_t addr, uint32_t bytes)
{
	for (uint32_t a = 0; a < bytes; a += 4u)
		AGB_ST32(m, addr + a, 0u);
}

/* Copies `colors` colours from src (4-aligned) to palette RAM at dst, a word at a time and the
 * odd colour as a halfword: palette RAM drops nothing but widens byte stores, so never bytes.
 * O(colors). */
static inline void pal_copy(agb_machine *m, uint32_t dst, uint32_t src, uint32_t colors)
{
	uint32_t words = colors >> 1;
	AGB_WORK(m, words);
	for (uint32_t i = 0; i < words; i++)
		AGB_ST32(m, dst + i * 4u, AGB_LD32(m, src + i * 4u));
	if ((colors & 1u) != 0)
		AGB_ST16(m, dst + words * 4u, AGB_LD16(m, src + words * 4u));
}

/* The bank for n banks of a palette given the side's taken banks (`busy`): bank 0 when n > 1 and
 * banks 0..n-1 are free (8bpp palettes start there), else the highest free bank for n == 1 (so
 * the low banks stay free for 8bpp palettes); AGB_PAL_NONE when there is none. O(banks). */
static inline uint32_t pal_pick(agb_machine *m, uint32_t busy, uint32_t n)
{
	if (n > 1u)
		return (busy & PAL_RUN_MASK(n)) == 0 ? 0u : AGB_PAL_NONE;
	for (uint32_t b = AGB_PAL_BANKS; b-- > 0;) {
		AGB_WORK(m, 1);
		if ((busy & (1u << b)) == 0)
			return b;
	}
	return AGB_PAL_NONE;
}

/* Marks n banks from `bank` taken and writes the palette's first entry. O(1). */
static inline void pal_claim(agb_machine *m, uint32_t meta, uint32_t side, uint32_t bank,
			     uint32_t n, uint32_t key, uint32_t colors)
{
	uint32_t mask = AGB_LD32(m, PAL_MASK(meta, side));
	AGB_ST32(m, PAL_MASK(meta, side), mask | PAL_RUN_MASK(n) << bank);
	AGB_ST32(m, PAL_ENTRY(meta, side, bank), key);
	AGB_ST32(m, PAL_ENTRY(meta, side, bank) + 4u, 1u | colors << 16);
}

/* Drops one reference to the palette starting at `bank`; the last frees its banks. Returns
 * AGB_VERB_DONE (*detail AGB_VERB_RELEASED on the last) or AGB_VERB_BAD when no palette starts
 * there. O(1). */
static inline int pal_release(agb_machine *m, uint32_t meta, uint32_t side, uint32_t bank,
			      uint32_t *detail)
{
	uint32_t e, mask;
	*detail = 0;
	if (side > 1u || bank >= AGB_PAL_BANKS)
		return AGB_VERB_BAD;
	e = AGB_LD32(m, PAL_ENTRY(meta, side, bank) + 4u);
	if ((e & 0xFFFFu) == 0)
		return AGB_VERB_BAD;
	if ((e & 0xFFFFu) > 1u) {
		AGB_ST32(m, PAL_ENTRY(meta, side, bank) + 4u, e - 1u);
		return AGB_VERB_DONE;
	}
	mask = AGB_LD32(m, PAL_MASK(meta, side));
	AGB_ST32(m, PAL_MASK(meta, side),
	         mask & ~(PAL_RUN_MASK(AGB_PAL_BANKS_OF(e >> 16)) << bank));
	AGB_ST32(m, PAL_ENTRY(meta, side, bank), 0u);
	AGB_ST32(m, PAL_ENTRY(meta, side, bank) + 4u, 0u);
	*detail = AGB_VERB_RELEASED;
	return AGB_VERB_DONE;
}

/* Free banks of both sides as runs of palette RAM, `extra` banks per side (palstack's covered
 * banks) counted as taken. Observation only. O(banks). */
static inline void pal_tables_stats(agb_machine *m, uint32_t meta, const uint32_t extra[2],
				    struct agb_heap_stats *out)
{
	*out = (struct agb_heap_stats){0, 0, 0, 0};
	for (uint32_t side = 0; side < 2u; side++) {
		uint32_t busy = AGB_PEEK32(m, PAL_MASK(meta, side)) | extra[side], run = 0;
		for (uint32_t b = 0; b <= AGB_PAL_BANKS; b++) {
			if (b < AGB_PAL_BANKS && (busy & (1u << b)) == 0) {
				run += AGB_PAL_BANK_BYTES;
				continue;
			}
			if (run != 0) {
				out->free_bytes += run;
				out->free_runs++;
				out->free_sq_sum += (uint64_t)run * run;
				if (run > out->largest_free)
					out->largest_free = run;
			}
			run = 0;
		}
	}
}

/* Maximal runs of used and free banks in address order (a side boundary ends a run).
 * Observation only. O(banks). */
static inline void pal_tables_walk(agb_machine *m, uint32_t pal, uint32_t meta,
				   const uint32_t extra[2], agb_walk_fn fn, void *ctx)
{
	for (uint32_t side = 0; side < 2u; side++) {
		uint32_t busy = AGB_PEEK32(m, PAL_MASK(meta, side)) | extra[side], start = 0;
		for (uint32_t b = 1; b <= AGB_PAL_BANKS; b++) {
			if (b < AGB_PAL_BANKS && ((busy >> b) & 1u) == ((busy >> start) & 1u))
				continue;
			fn(ctx, PAL_BANK_ADDR(pal, side, start), (b - start) * AGB_PAL_BANK_BYTES,
			   ((busy >> start) & 1u) != 0 ? AGB_RUN_USED : AGB_RUN_FREE);
			start = b;
		}
	}
}

/* The table invariants (see agb_palbanks_check); `unique` also demands that no two palettes of
 * a side share key and colour count, `max_refs` bounds reference counts. Observation only.
 * O(banks^2). */
static inline int pal_tables_check(agb_machine *m, uint32_t meta, int unique, uint32_t max_refs,
				   const char **why)
{
	for (uint32_t side = 0; side < 2u; side++) {
		uint32_t mask = AGB_PEEK32(m, PAL_MASK(meta, side)), covered = 0;
		if ((mask >> AGB_PAL_BANKS) != 0)
			return *why = "bank mask has bits above bank 15", 1;
		for (uint32_t b = 0; b < AGB_PAL_BANKS; b++) {
			uint32_t key = AGB_PEEK32(m, PAL_ENTRY(meta, side, b));
			uint32_t e = AGB_PEEK32(m, PAL_ENTRY(meta, side, b) + 4u);
			uint32_t refs = e & 0xFFFFu, colors = e >> 16, n = AGB_PAL_BANKS_OF(colors);
			if (e == 0) {
				if (key != 0)
					return *why = "a bank with no palette has a key", 1;
				continue;
			}
			if (refs == 0 || refs > max_refs || colors == 0 || colors > 256u)
				return *why = "palette entry with a bad reference or colour count", 1;
			if (n > 1u && b != 0)
				return *why = "an 8bpp palette does not start at bank 0", 1;
			if (b + n > AGB_PAL_BANKS || (covered & (PAL_RUN_MASK(n) << b)) != 0)
				return *why = "palettes overlap", 1;
			covered |= PAL_RUN_MASK(n) << b;
			for (uint32_t c = b + 1u; unique && c < AGB_PAL_BANKS; c++)
				if (AGB_PEEK32(m, PAL_ENTRY(meta, side, c)) == key &&
				    AGB_PEEK32(m, PAL_ENTRY(meta, side, c) + 4u) >> 16 == colors)
					return *why = "two resident copies of one palette", 1;
		}
		if (covered != mask)
			return *why = "bank mask disagrees with the palettes", 1;
	}
	return 0;
}

#endif
