/* `tiles`: the BG tile manager of the seed article (Baptista, "GBA resource management"),
 * written anew for agbmem, with released tiles kept as a cache.
 *
 * A tile engine keeps the whole level's tiles in ROM and only the visible ones in BG VRAM. The
 * manager answers "is ROM tile t already in VRAM, and where?" in constant time, counts how many
 * screen-map cells use each VRAM tile and copies a tile in on its first use. The last unref does
 * not free the slot: the tile stays in VRAM with a count of 0 (unreferenced, reclaimable), so a
 * tile that scrolls out and back in again -- common when a camera turns round or moves
 * diagonally -- is revived by its next ref with no copy. An upload takes a free slot first; when
 * its depth has none it evicts an unreferenced tile (the clock policy: see agb_tiles_ref), and
 * fails only when every slot it could use holds a referenced tile. Bookkeeping (all 16-bit, in
 * the meta area: EWRAM by default, IWRAM selectable):
 *
 *   refc[B]        per 32-byte VRAM block: the reference count of a resident tile (0: unreferenced),
 *                  or, for a free block, the link to the next block of its free list (bit 15
 *                  set) -- the free lists are threaded through the counts, as in the article;
 *   ram2rom[B]     per block: the ROM tile held there; for a block on list-c, its previous link
 *                  (list-c needs O(1) unlinking when an evicted 4bpp tile re-forms a pair);
 *                  ram2rom[1] (the reserved pair's) is the 8bpp-only part's eviction hand;
 *   rom2ram4[N]    per 4bpp ROM tile: its VRAM block, or 1 (not resident; tile 0 maps to 0);
 *   rom2ram8[N]    per 8bpp ROM tile: its VRAM block (even), or 1 (likewise);
 *   3 list heads and the shared half's eviction hand.
 *
 * B = tile bytes / 32 (1792 for the default 56 KiB), N = the largest ROM tile number + 1 the
 * manager accepts, per depth. Metadata bytes = 8 + 4 B + 4 N: the ROM->RAM maps dominate, so N is
 * a parameter (AGB_TILES_FLAG_ROM_TILES). With the default 56 KiB of tiles:
 *
 *   N per depth    metadata    fits in
 *   1 792          14 344 B    IWRAM (the engine's 15 KiB --meta=iwram area): fastest, 1 cycle/access
 *   4 096          23 560 B    EWRAM
 *   10 240         48 136 B    EWRAM -- the seed article's "about 48k"
 *   24 576 (dflt)  105 480 B   EWRAM -- the shipped maps use ROM tiles up to 23 105 (64 px cells)
 *   65 280 (max)   268 296 B   nowhere (> 256 KiB): 16-bit entries cap N below 65 535
 *
 * Only the maps' size changes with N; every path stays O(1) but the eviction scan (O(blocks) at
 * worst, see agb_tiles_ref). A game that streams one depth can leave the other map's range
 * small. Metadata in EWRAM costs 3 cycles per halfword access,
 * in IWRAM 1: a resident-tile ref or unref is 3 accesses (9 vs 3 bus cycles).
 *
 * 4bpp and 8bpp share one pool. Blocks go in pairs (64 bytes, one 8bpp tile or two 4bpp). The
 * first 32 KiB (blocks 0-1023) is the only place a 4bpp tile can live (screen-map entries have
 * 10 bits of tile number, 32 KiB of 4bpp tiles); the rest (up to 1791) takes 8bpp tiles only.
 * list-a: free pairs in the shared half; list-b: free pairs in the 8bpp-only part; list-c: free
 * single blocks of the shared half whose partner holds a 4bpp tile. Pair 0 (bytes 0-63) is the
 * transparent tile, zero for both depths, never counted and never allocated. Screen maps (2 KiB
 * each, 4 by default) sit at the top of the arena.
 *
 * A game calls agb_tiles_ref / agb_tiles_unref directly: their resident-tile path (a count up or
 * down, three metadata accesses; a revival and a last unref included) is inline below; the upload
 * is out of line. The core table (agb_tiles_core, "tiles": alloc/free NULL, verbs ref and unref)
 * calls the same inline functions, so a replay measures the game's path plus the table's indirect
 * call.
 *
 * Cost (Thumb in ROM, WAITCNT 4317h, metadata in EWRAM; `agbsim measure traces/bg/T.json
 * --allocator=tiles`, "direct call" line): a resident ref or unref about 27 cycles in a game's
 * loop; an upload about 180 (4bpp) or 215 (8bpp) on average in hand-written Thumb
 * (tiles_thumb.S; the copy from ROM about 50 cycles per 32 bytes, two ldmia/stmia bursts), an
 * eviction's included. So a layer's mean per call is about 27 + 195 x (uploads per call): the
 * shipped bg traces upload on 0.3 % to 9.2 % of calls (27.4 to 44.7 cycles; 0.6 % to 15 % and
 * 29.6 to 73.2 with the upload path of the time when the last unref freed the slot).
 * What keeping tiles costs: nothing in VRAM (a slot is reclaimable the moment its count is 0:
 * stats and walk count it free), an eviction scan on an upload with no free slot, and a ref may
 * find its old tile evicted where it would have found it freed -- the same upload.
 * Freestanding. */
#ifndef AGB_TILES_H
#define AGB_TILES_H

/* Abuse (agb/heap.h), in every build: the ref and unref verbs return AGB_VERB_BAD for a ROM
 * tile past N or a depth other than 4/8; an unref of a tile with no refs (not resident, or
 * resident with a count of 0) is AGB_VERB_SKIPPED; agb_tiles_unref_block ignores a block past
 * the pool or with no refs left (a second unref after the last: the count is 0; a free block:
 * its count word is a free-list link) - all O(1), nothing changed. unref_block of a live block
 * at the wrong depth, or one more unref than the game made refs while refs remain, cannot be
 * told apart from a real one. AGB_HEAP_CHECKED adds nothing here. */

#include <stdint.h>

#include "agb/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* agb_heap_config.flags fields (bits 0-7 are the shared AGB_HEAP_FLAG_* bits). */
/* Largest ROM tile number + 1 per depth, in units of 256 (1..255); 0: AGB_TILES_DEFAULT_ROM_TILES. */
#define AGB_TILES_FLAG_ROM_TILES(n) ((((uint32_t)(n) + 255u) / 256u & 0xFFu) << 16)
/* Screen maps (2 KiB each) reserved at the top of the arena, 0..14; field 0 means the default 4. */
#define AGB_TILES_FLAG_MAPS(n) ((((uint32_t)(n) + 1u) & 0xFu) << 24)

#define AGB_TILES_DEFAULT_ROM_TILES 24576u /* covers the shipped maps' tile numbers (< 24064) */
#define AGB_TILES_DEFAULT_MAPS 4u
#define AGB_TILES_MAP_BYTES 2048u
#define AGB_TILES_BLOCK_BYTES 32u
#define AGB_TILES_SHARED_BLOCKS 1024u /* 32 KiB: where 4bpp tiles may live */

/* Where the ROM tile sets are read from when a tile is uploaded (tile t of depth d, d * 8 bytes
 * each, at base + t * d * 8). The simulator's ROM image is usually unmapped there, which reads zeros;
 * the cost of the reads is what counts. A GBA program sets its own with agb_tiles_set_rom. */
#define AGB_TILES_ROM4_ADDR (AGB_MEM_ROM + 0x00400000u)
#define AGB_TILES_ROM8_ADDR (AGB_MEM_ROM + 0x00800000u)

/* Metadata bytes the manager needs for `blocks` VRAM blocks and `rom_tiles` ROM tiles per depth. */
#define AGB_TILES_META_BYTES(blocks, rom_tiles) (8u + 4u * (uint32_t)(blocks) + 4u * (uint32_t)(rom_tiles))

/* What agb_tiles_ref returns besides a block. */
#define AGB_TILES_NO_ROOM 0xFFFFu  /* no free or evictable slot of that depth: nothing changed */
#define AGB_TILES_BAD_TILE 0xFFFEu /* rom_tile beyond the ROM tile count, or the count is full */

/* Entry values the inline paths test (the rest of the encodings are private to tiles.c). A ROM
 * tile that is not in VRAM maps to block 1 and tile 0 to block 0: both blocks are the reserved
 * transparent pair, whose count words (0xFFFC) have COUNT_MAX's bit set, as a full count has. So
 * the resident-tile path tests one thing, "is COUNT_MAX's bit clear", and everything else (not
 * resident, tile 0, a full count) takes the out-of-line path, which tells the cases apart by the
 * block. */
#define AGB_TILES_NOT_RESIDENT 1u   /* rom2ram: the ROM tile is not in VRAM */
/* Largest reference count (16 384: every cell of 14 maps is 14 336); a single bit, which the
 * inline ref tests. */
#define AGB_TILES_COUNT_MAX 0x4000u

#if defined(__GNUC__)
#define AGB_TILES_LIKELY(x) __builtin_expect(!!(x), 1)
#define AGB_TILES_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define AGB_TILES_LIKELY(x) (x)
#define AGB_TILES_UNLIKELY(x) (x)
#endif

/* The inline paths' metadata accesses. On the GBA the metadata is plain RAM that only this code
 * touches, so plain (not volatile) halfword accesses are enough; they let the compiler use
 * register-offset addressing and drop a zero-extension before each store. With the single test
 * above, a resident-tile ref went from about 30 Thumb instructions to 18 (each costs 2 cycles
 * or more from ROM). On the host they are the counted bus accesses. */
#if defined(AGB_TARGET_GBA)
#define AGB_TILES_LD16(m, a) ((void)(m), (uint32_t) * (const uint16_t *)(uintptr_t)(a))
#define AGB_TILES_LDS16(m, a) ((void)(m), (int32_t) * (const int16_t *)(uintptr_t)(a))
#define AGB_TILES_ST16(m, a, v) ((void)(m), *(uint16_t *)(uintptr_t)(a) = (uint16_t)(v))
#else
#define AGB_TILES_LD16(m, a) AGB_LD16(m, a)
#define AGB_TILES_LDS16(m, a) ((int32_t)(int16_t)AGB_LD16(m, a))
#define AGB_TILES_ST16(m, a, v) AGB_ST16(m, a, v)
#endif

/* A value the compiler may not see through (GBA builds): the inline unref stores its count with
 * the [refc, 2 b] register-offset address it loaded from, where GCC would otherwise compute
 * refc + 2 b into a register of its own for the pair: one Thumb instruction more per unref. An
 * empty asm, no code. (The inline ref keeps that register: it passes the address to the upload;
 * the same barrier there cost the bench ROM's per-call loop two register moves a ref.) Host:
 * nothing. */
#if defined(AGB_TARGET_GBA) && defined(__GNUC__)
#define AGB_TILES_OPAQUE(x) __asm__("" : "+l"(x))
#else
#define AGB_TILES_OPAQUE(x) ((void)(x))
#endif

/* Instruction work for the host's cycle model (docs/design.md, "Cycle figures"): `tiles` weights
 * its sites, one unit per instruction the GBA executes on the path that the bus does not count
 * (the metadata halfwords and the copy's words are counted accesses; the state's fields, the
 * stack, the literal pool and every other instruction are not). Off the host the count is not
 * evaluated at all (AGB_WORK_WEIGHTED, agb/machine.h). */
#define AGB_TILES_WORK(m, n) AGB_WORK_WEIGHTED(m, n)

/* `tiles`' state (IWRAM globals in a game): addresses of the metadata arrays and the pool shape. */
typedef struct agb_tiles {
	agb_machine *m;
	uint32_t map4;      /* rom2ram4[N] */
	uint32_t map8;      /* rom2ram8[N] */
	uint32_t refc;      /* refc[B] */
	uint32_t rom_tiles; /* N */
	uint32_t r2r;       /* ram2rom[B] */
	uint32_t vram;      /* arena base: block 0 */
	uint32_t blocks;    /* tile blocks B */
	uint32_t shared;    /* blocks that take 4bpp tiles: min(B, 1024) */
	uint32_t maps_addr; /* screen maps */
	uint32_t maps_bytes;
	uint32_t arena_bytes;
	uint32_t meta; /* list heads */
	uint32_t rom4, rom8;
	uint32_t meta_bytes;
} agb_tiles;

/* Prepares an empty manager: all pairs free, the transparent pair reserved and zeroed, screen
 * maps zeroed. cfg: a 16 KiB-aligned BG VRAM arena with room for the maps and one pair; a 4-byte
 * aligned meta area of AGB_TILES_META_BYTES(blocks, N) bytes; flags AGB_TILES_FLAG_ROM_TILES /
 * _MAPS. Returns AGB_HEAP_OK, AGB_HEAP_BAD_ALIGNMENT, _ARENA_TOO_LARGE, _ARENA_TOO_SMALL or
 * _META_TOO_SMALL. O(blocks + N). */
int agb_tiles_init(agb_tiles *t, agb_machine *m, const struct agb_heap_config *cfg);

/* Out-of-line half of ref (call agb_tiles_ref instead), one entry per depth (a game's call site
 * names its depth, so the upload tests none): a ref whose block b has no count to raise.
 * `count_at` is the address of b's count word, refc + 2 b, as the inline path computed it for
 * its own store: the upload takes b from it instead of reading the rom2ram entry again, and the
 * inline path keeps no register alive for the rare call. b = AGB_TILES_NOT_RESIDENT: uploads the
 * tile into a free slot, else into the slot of an evicted unreferenced tile (see
 * agb_tiles_ref); b = 0 (tile 0): returns 0; else (a full count) AGB_TILES_BAD_TILE. O(1) apart
 * from the copy while a free slot exists; the eviction scan is O(blocks) at worst. */
uint32_t agb_tiles_ref_slow4(agb_tiles *t, uint32_t rom_tile, uint32_t count_at);
uint32_t agb_tiles_ref_slow8(agb_tiles *t, uint32_t rom_tile, uint32_t count_at);

/* One more screen-map cell shows ROM tile `rom_tile` at depth `bpp` (4 or 8). Returns the VRAM
 * block (32-byte unit from the arena base) the tile sits in -- the screen-map entry is that block
 * for 4bpp, block / 2 for 8bpp. A resident tile's count goes up: from 0 it is revived, its VRAM
 * content still there (*detail = AGB_VERB_REVIVED), else *detail = 0. A tile that is not
 * resident is uploaded (*detail = AGB_VERB_UPLOADED) into a free slot if its depth has one, else
 * into the slot of an unreferenced tile, which is evicted (the clock policy: the first one the
 * eviction hand finds; it leaves VRAM and a later ref uploads it again). Tile 0 (transparent)
 * returns 0 untouched. Failure: AGB_TILES_NO_ROOM (no slot of that depth is free or holds an
 * unreferenced tile that can be evicted for it: every usable one is referenced),
 * AGB_TILES_BAD_TILE (rom_tile >= N, or the count would overflow); nothing changed. Cost: a
 * resident tile, revived or not, is three metadata accesses inline; an upload into a free slot at
 * most 10 more plus the copy, O(1); an eviction 2-3 accesses per tile the hand passes (referenced
 * ones, and for 8bpp pairs it cannot use), so O(blocks) at worst, and about 8 more to drop a tile
 * of the other depth. *detail is only written here, never passed on, so a caller that ignores it
 * pays nothing. */
static inline uint32_t agb_tiles_ref(agb_tiles *t, uint32_t rom_tile, uint32_t bpp, uint32_t *detail)
{
	uint32_t b, c, r;
	if (rom_tile >= t->rom_tiles) {
		*detail = 0;
		return AGB_TILES_BAD_TILE;
	}
	b = AGB_TILES_LD16(t->m, (bpp == 8u ? t->map8 : t->map4) + 2u * rom_tile);
	c = AGB_TILES_LD16(t->m, t->refc + 2u * b);
	/* c is a count (0 to COUNT_MAX) or the reserved pair's 0xFFFC (b 0 or 1): one bit, COUNT_MAX's,
	 * tells a count that can go up from everything else (on the GBA a shift and a branch; a
	 * compare with 0x4000 would need the constant built first). */
	if (AGB_TILES_LIKELY(c < AGB_TILES_COUNT_MAX)) {
		/* The hit: 19 instructions the bus does not see, either depth (a game's call site,
		 * bpp a constant: the bench ROM's direct run, direct_tiles_calls, which `agbsim
		 * measure` reports: the range test, the addresses, the count test, the revive flag
		 * without a branch). */
		AGB_TILES_WORK(t->m, 19u);
		AGB_TILES_ST16(t->m, t->refc + 2u * b, c + 1u);
		*detail = c == 0u ? AGB_VERB_REVIVED : 0u;
		return b;
	}
	/* The call out: 15 to the count test and its branch, the argument and the bl (3), the
	 * uploaded flag (7); the out-of-line path declares its own. */
	AGB_TILES_WORK(t->m, 25u);
	r = bpp == 8u ? agb_tiles_ref_slow8(t, rom_tile, t->refc + 2u * b)
		      : agb_tiles_ref_slow4(t, rom_tile, t->refc + 2u * b);
	/* Uploaded: a block (2 to 2047: BG VRAM holds 2048), not tile 0's 0 nor BAD_TILE or NO_ROOM
	 * (0xFFFE, 0xFFFF) -- a shift, no constant to load. */
	*detail = (r - 2u) >> 11 == 0u ? AGB_VERB_UPLOADED : 0u;
	return r;
}

/* One screen-map cell showing VRAM block `block` (what agb_tiles_ref returned; the game reads it
 * from its screen map) stops showing it. Returns 1 when this was the last ref, else 0. The last
 * ref leaves the tile in VRAM, unreferenced: its slot is reclaimable (free to stats and walk) and
 * a later ref of the same tile revives it with no upload, unless an upload that found no free
 * slot evicted it first. `bpp` is not needed (the count word is the block's, whatever the depth)
 * and not checked. Ignored, in every build and with nothing changed: blocks 0-1 (the transparent
 * pair), blocks past the pool, blocks with no refs (a free block; an unreferenced tile: an unref
 * after the last; an 8bpp tile's second block). An unref of a live tile that is not the one the
 * cell showed cannot be told from a right one: it drops that tile's count. O(1): two metadata
 * accesses (the count read and written), inline, the last ref included. */
static inline uint32_t agb_tiles_unref_block(agb_tiles *t, uint32_t block, uint32_t bpp)
{
	int32_t c;
	(void)bpp;
	if (AGB_TILES_UNLIKELY(block >= t->blocks))
		return 0; /* past the pool (blocks 0-1 and free blocks fail the count test below) */
	/* As a signed halfword, every word with the top bit set (free, reserved) is negative: one
	 * compare finds a count of 1 or more. */
	c = AGB_TILES_LDS16(t->m, t->refc + 2u * block);
	if (AGB_TILES_LIKELY(c > 0)) {
		AGB_TILES_ST16(t->m, t->refc + 2u * block, (uint32_t)c - 1u);
		return c == 1;
	}
	return 0;
}

/* The same by ROM tile (a game that knows the level map's tile number of the cell leaving the
 * screen): the ROM->RAM map finds the block. *detail = AGB_VERB_RELEASED on the last ref (the
 * tile stays resident, reclaimable: see agb_tiles_unref_block), AGB_VERB_SKIPPED when the tile
 * has no ref to drop (not resident: every ref of it failed; or resident with a count of 0), else
 * 0. Returns AGB_VERB_DONE, or AGB_VERB_BAD for a bpp other than 4/8 or rom_tile >= N. O(1):
 * three metadata accesses, inline. */
static inline int agb_tiles_unref(agb_tiles *t, uint32_t rom_tile, uint32_t bpp, uint32_t *detail)
{
	uint32_t b;
	int32_t c;
	if (rom_tile >= t->rom_tiles || (bpp != 4u && bpp != 8u)) {
		*detail = 0;
		return AGB_VERB_BAD;
	}
	b = AGB_TILES_LD16(t->m, (bpp == 8u ? t->map8 : t->map4) + 2u * rom_tile);
	c = AGB_TILES_LDS16(t->m, t->refc + 2u * b); /* signed: see agb_tiles_unref_block */
	if (AGB_TILES_LIKELY(c > 0)) {
		uint32_t o = 2u * b;
		/* 17 instructions the bus does not see, either depth (the bench ROM's direct run, as
		 * in agb_tiles_ref): the range test, the addresses, the sign test, the released flag
		 * without a branch. */
		AGB_TILES_WORK(t->m, 17u);
		AGB_TILES_OPAQUE(o);
		AGB_TILES_ST16(t->m, t->refc + o, (uint32_t)c - 1u);
		*detail = c == 1 ? AGB_VERB_RELEASED : 0u;
		return AGB_VERB_DONE;
	}
	/* The skip arm: 21 (12 to the sign test, the skipped flag 9). */
	AGB_TILES_WORK(t->m, 21u);
	/* Block 1 stands for "not resident", block 0 for tile 0 (nothing to skip). */
	*detail = c == 0 || b == AGB_TILES_NOT_RESIDENT ? AGB_VERB_SKIPPED : 0u;
	return AGB_VERB_DONE;
}

/* The core-table form of agb_tiles_ref: an agb_verb_status (AGB_VERB_BAD for a bpp other than
 * 4/8 or AGB_TILES_BAD_TILE, AGB_VERB_FAILED for AGB_TILES_NO_ROOM). Cost: agb_tiles_ref's. */
static inline int agb_tiles_ref_verb(agb_tiles *t, uint32_t rom_tile, uint32_t bpp, uint32_t *detail)
{
	uint32_t b;
	if (bpp != 4u && bpp != 8u) {
		*detail = 0;
		return AGB_VERB_BAD;
	}
	b = agb_tiles_ref(t, rom_tile, bpp, detail);
	if (b >= AGB_TILES_BAD_TILE)
		return b == AGB_TILES_NO_ROOM ? AGB_VERB_FAILED : AGB_VERB_BAD;
	return AGB_VERB_DONE;
}

/* Points uploads at a real ROM tile set (GBA builds). O(1). */
void agb_tiles_set_rom(agb_tiles *t, uint32_t rom4_addr, uint32_t rom8_addr);

/* Free runs of tile blocks: free blocks and the blocks of unreferenced tiles (reclaimable: the
 * next upload with no free slot may take them), as a user sees VRAM; the maps and the
 * transparent pair are not free. Observation only. O(blocks). */
void agb_tiles_stats(agb_tiles *t, struct agb_heap_stats *out);

/* Tile blocks as FREE/USED runs (an unreferenced tile's blocks are FREE, as in stats), then the
 * screen maps (and any slack) as META. O(blocks). */
void agb_tiles_walk(agb_tiles *t, agb_walk_fn fn, void *ctx);

/* Returns 0 when the counts (0 included: an unreferenced tile is resident and mapped both ways),
 * the free lists, the two maps, the eviction hands (each within its region) and the transparent
 * tile agree; else 1 with *why set (*why is untouched on success). Observation only.
 * O(blocks + N). */
int agb_tiles_check(agb_tiles *t, const char **why);

/* Metadata bytes, the screen maps and the transparent pair: bytes the pool cannot hand out.
 * O(1). */
uint32_t agb_tiles_overhead_bytes(agb_tiles *t);

extern const struct agb_heap_core agb_tiles_core;

#ifdef __cplusplus
}
#endif

#endif
