/* `tiles`: BG tile manager with shared 4bpp/8bpp pairs (see include/agb/tiles.h).
 *
 * Work (AGB_WORK through AGB_TILES_WORK, host only; docs/design.md, "Cycle figures"), weighted
 * as obj-fast's: each path declares the instructions the GBA runs on it that the bus does not
 * count (the metadata halfwords and the copy's words are counted accesses), one unit each. The
 * inline ref and unref (agb/tiles.h): the bench ROM's direct run (ref hit 19, call out 25; unref
 * 17, skip 21). The ROM's out-of-line path is tiles_thumb.S, counted off its source: entry 7
 * (tile 0 11, a full count 14), list-c 8 (+3 with a next), list-a 12, list-b 10 / list-a 11
 * (8bpp), no free slot 4, TAKE 3, COPY 9; the 4bpp scan (setup 3, 4 the hand's block and 5 each
 * further block + 2 passed + 2 a wrap, found 13 even / 9 odd, split 18, no room 6) and the
 * 8bpp-only part's (setup 4, 4 the hand's pair and 5 each further + 6 the first passed and 2
 * the others + 5 or 3 a wrap, found 6; no such part 10). Where the Thumb hands over to this C
 * (agb_tiles_ref_slow_c, which runs the path again from its entry: only an 8bpp upload with
 * nothing to evict in the 8bpp-only part), the compiled C's counts from the bench ROM's
 * disassembly: the hand-over 8, the redo 76 + 9 a pair of the part + 1 a wrap (61 with no
 * part), the shared half 7 a pair + 7 passed + 2 a wrap, found 35, two 4bpp halves 49 (counted
 * for both unreferenced) plus drop4's 29 or 38 each (with push_c's and unlink_c's own), no room
 * 13. Each site's comment gives its count. */
#include "agb/tiles.h"

#include <stddef.h>

#include "tiles_thumb.h"


/* refc[] encodings. Counts stay below bit 15; everything with bit 15 set is not a count. */
#define COUNT_MAX AGB_TILES_COUNT_MAX
#define FREE_BIT 0x8000u
#define LINK(n) (FREE_BIT | (n))  /* free block on a list; n = next block or END */
#define END 0x7FFFu               /* end of a list (as a link: 0xFFFF) */
#define RESERVED 0xFFFCu          /* pair 0: the transparent tile */
#define PAIR_TAIL 0xFFFDu         /* odd block of a free pair that sits on list-a or list-b */
#define TAIL8 0xFFFEu             /* odd block of a used 8bpp tile */
#define UNUSED 0xFFFFu             /* ram2rom: no tile / no list-c link */
#define NOT_RES AGB_TILES_NOT_RESIDENT /* rom2ram: not resident (block 1, reserved) */
#define IS_LINK(v) (((v) & FREE_BIT) != 0 && ((v) & END) < 0x7FF0u) /* links name blocks < 2048 */
#define IS_LINK_OR_END(v) (((v) & FREE_BIT) != 0 && (((v) & END) == END || ((v) & END) < 0x7FF0u))

/* Head offsets in the meta area (HEAD_A, HEAD_B, HEAD_C) and the state's field offsets: in
 * tiles_thumb.h, which the Thumb paths share. */
#if AGB_TILES_THUMB /* a GBA build: 32-bit pointers */
_Static_assert(offsetof(agb_tiles, map4) == T_MAP4 && offsetof(agb_tiles, map8) == T_MAP8 &&
		       offsetof(agb_tiles, refc) == T_REFC && offsetof(agb_tiles, r2r) == T_R2R &&
		       offsetof(agb_tiles, vram) == T_VRAM &&
		       offsetof(agb_tiles, blocks) == T_BLOCKS && offsetof(agb_tiles, shared) == T_SHARED &&
		       offsetof(agb_tiles, meta) == T_META && offsetof(agb_tiles, rom4) == T_ROM4 &&
		       offsetof(agb_tiles, rom8) == T_ROM8,
	       "tiles_thumb.h's field offsets");
#endif
_Static_assert(HEAD_A == 0u && END == 0x7FFFu && LINK(END) == 0xFFFFu && TAIL8 == 0xFFFEu &&
		       PAIR_TAIL == 0xFFFDu && UNUSED == 0xFFFFu && NOT_RES == 1u && AGB_VERB_RELEASED == 2u &&
		       AGB_TILES_NO_ROOM == 0xFFFFu && AGB_TILES_SHARED_BLOCKS <= 2048u,
	       "tiles_thumb.S's encodings (END is the only head or link value of 2048 and above; "
	       "list-a's head at the meta area's start)");

_Static_assert(sizeof(agb_tiles) <= AGB_HEAP_STATE_MAX, "state too large");

/* Work with a count not evaluated off the host (see the header comment). */
#define TW(m, n) AGB_TILES_WORK(m, n)

/* Address helpers: every metadata word is 16-bit, so one halfword access each. */
static inline void st(const agb_tiles *t, uint32_t a, uint32_t v)
{
	AGB_ST16(t->m, a, v);
}
static inline uint32_t rc_at(const agb_tiles *t, uint32_t b)
{
	return t->refc + 2u * b;
}
static inline uint32_t r2r_at(const agb_tiles *t, uint32_t b)
{
	return t->r2r + 2u * b;
}
static inline uint32_t map_at(const agb_tiles *t, uint32_t rom, uint32_t bpp)
{
	return (bpp == 8u ? t->map8 : t->map4) + 2u * rom;
}

int agb_tiles_init(agb_tiles *t, agb_machine *m, const struct agb_heap_config *cfg)
{
	uint32_t maps = (cfg->flags >> 24) & 0xFu;
	uint32_t rom = (cfg->flags >> 16) & 0xFFu;
	uint32_t tile_bytes;

	maps = maps == 0 ? AGB_TILES_DEFAULT_MAPS : maps - 1u;
	rom = rom == 0 ? AGB_TILES_DEFAULT_ROM_TILES : rom * 256u;
	/* Screen-map entries name tiles relative to a 16 KiB-aligned char base: the arena must
	 * start at one, and the whole BG VRAM is the most a layer can see. */
	if ((cfg->arena_addr & 0x3FFFu) != 0 || cfg->arena_addr < AGB_MEM_VRAM_BG ||
	    cfg->arena_addr >= AGB_MEM_VRAM_BG + AGB_VRAM_BG_SIZE)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (cfg->arena_bytes > AGB_VRAM_BG_SIZE - (cfg->arena_addr - AGB_MEM_VRAM_BG))
		return AGB_HEAP_ARENA_TOO_LARGE;
	if (cfg->arena_bytes < maps * AGB_TILES_MAP_BYTES + 128u)
		return AGB_HEAP_ARENA_TOO_SMALL; /* not even one pair beside the transparent one */
	tile_bytes = (cfg->arena_bytes - maps * AGB_TILES_MAP_BYTES) & ~63u;
	/* Screen maps need 2 KiB alignment: put them on the top 2 KiB boundaries of the arena. */
	t->maps_bytes = maps * AGB_TILES_MAP_BYTES;
	t->maps_addr = (cfg->arena_addr + cfg->arena_bytes - t->maps_bytes) & ~(AGB_TILES_MAP_BYTES - 1u);
	if (t->maps_addr < cfg->arena_addr + tile_bytes)
		tile_bytes = (t->maps_addr - cfg->arena_addr) & ~63u;
	if (tile_bytes < 128u)
		return AGB_HEAP_ARENA_TOO_SMALL;

	t->m = m;
	t->vram = cfg->arena_addr;
	t->arena_bytes = cfg->arena_bytes;
	t->blocks = tile_bytes / AGB_TILES_BLOCK_BYTES;
	t->shared = t->blocks < AGB_TILES_SHARED_BLOCKS ? t->blocks : AGB_TILES_SHARED_BLOCKS;
	t->rom_tiles = rom;
	t->rom4 = AGB_TILES_ROM4_ADDR;
	t->rom8 = AGB_TILES_ROM8_ADDR;
	t->meta_bytes = AGB_TILES_META_BYTES(t->blocks, rom);
	if (cfg->meta_addr == AGB_NULL || (cfg->meta_addr & 3u) != 0 || cfg->meta_bytes < t->meta_bytes)
		return AGB_HEAP_META_TOO_SMALL;
	t->meta = cfg->meta_addr;
	t->refc = t->meta + 8u;
	t->r2r = t->refc + 2u * t->blocks;
	t->map4 = t->r2r + 2u * t->blocks;
	t->map8 = t->map4 + 2u * rom;

	/* Free lists in ascending order, so tiles fill VRAM from the bottom (easy to read in the
	 * viewer). Every even block heads a pair on list-a or list-b; odd blocks are pair tails. */
	st(t, rc_at(t, 0), RESERVED);
	st(t, rc_at(t, 1), RESERVED);
	st(t, r2r_at(t, 0), 0);
	st(t, r2r_at(t, 1), t->shared); /* the 8bpp-only part's eviction hand (see evict) */
	for (uint32_t b = 2; b < t->blocks; b += 2u) {
		uint32_t next = b + 2u;
		if (next == t->shared || next >= t->blocks)
			next = END;
		st(t, rc_at(t, b), LINK(next));
		st(t, rc_at(t, b + 1u), PAIR_TAIL);
		st(t, r2r_at(t, b), UNUSED);
		st(t, r2r_at(t, b + 1u), UNUSED);
	}
	st(t, t->meta + HEAD_A, t->shared > 2u ? 2u : END);
	st(t, t->meta + HEAD_B, t->blocks > t->shared ? t->shared : END);
	st(t, t->meta + HEAD_C, END);
	st(t, t->meta + HEAD_HAND, 2u);
	/* Word stores: the maps are 2 N halfwords and N is a multiple of 256. Tile 0 of each depth
	 * maps to block 0 (see NOT_RES in agb/tiles.h). */
	for (uint32_t a = t->map4; a < t->map8 + 2u * rom; a += 4u)
		AGB_ST32(m, a, NOT_RES << 16 | NOT_RES);
	st(t, t->map4, 0);
	st(t, t->map8, 0);
	/* The transparent tile (64 bytes of colour 0, for both depths) and empty screen maps. */
	for (uint32_t a = 0; a < 64u; a += 4u)
		AGB_ST32(m, t->vram + a, 0);
	for (uint32_t a = 0; a < t->maps_bytes; a += 4u)
		AGB_ST32(m, t->maps_addr + a, 0);
	return AGB_HEAP_OK;
}

/* The out-of-line paths read the state's fields into locals once and reach the metadata through
 * the inline paths' accessors (plain halfword accesses on the GBA). The GBA build compiles with
 * -fno-strict-aliasing, so after any store through a pointer the compiler would otherwise load
 * t->refc, t->r2r and t->meta again; and each Thumb instruction from ROM costs 2 cycles or more. */
#define MLD(a) AGB_TILES_LD16(m, a)
#define MST(a, v) AGB_TILES_ST16(m, a, v)

/* Pushes block b on list-c (free singles of the shared half; prev links in ram2rom). */
static inline void push_c(agb_machine *m, uint32_t refc, uint32_t r2r, uint32_t meta, uint32_t b)
{
	uint32_t head = MLD(meta + HEAD_C);
	MST(refc + 2u * b, LINK(head));
	MST(r2r + 2u * b, UNUSED);
	if (head != END) {
		TW(m, 1u); /* the C (drop4's): the old head's address */
		MST(r2r + 2u * head, b);
	}
	MST(meta + HEAD_C, b);
}

/* Unlinks block b from list-c in O(1): that is what the prev links are for. `link` is refc[b]. */
static inline void unlink_c(agb_machine *m, uint32_t refc, uint32_t r2r, uint32_t meta, uint32_t b,
			    uint32_t link)
{
	uint32_t next = link & END;
	uint32_t prev = MLD(r2r + 2u * b);
	/* The C (drop4's): the head's store 1, the prev's link 3; the next's address 1 */
	TW(m, (prev == UNUSED ? 1u : 3u) + (next != END ? 1u : 0u));
	if (prev == UNUSED)
		MST(meta + HEAD_C, next);
	else
		MST(refc + 2u * prev, LINK(next));
	if (next != END)
		MST(r2r + 2u * next, prev);
}

/* A free pair goes on the list whose head is at `head`. */
static inline void push_pair(agb_machine *m, uint32_t refc, uint32_t head, uint32_t b)
{
	MST(refc + 2u * b, LINK(MLD(head)));
	MST(refc + 2u * b + 2u, PAIR_TAIL);
	MST(head, b);
}

#if defined(AGB_TARGET_GBA) || defined(AGB_PLAIN_MEMORY)
/* One 4bpp tile: a plain struct copy, which the compiler turns into ldmia/stmia bursts. */
struct tile_words {
	uint32_t w[AGB_TILES_BLOCK_BYTES / 4u];
};
#endif

/* The real per-upload cost: the tile's bytes read from ROM and stored to VRAM a word at a time
 * (what an ldmia/stmia loop or DMA does; VRAM takes no byte stores). */
static inline void upload(const agb_tiles *t, uint32_t rom_tile, uint32_t bpp, uint32_t block)
{
	uint32_t bytes = bpp * 8u;
	uint32_t src = (bpp == 8u ? t->rom8 : t->rom4) + rom_tile * bytes;
	uint32_t dst = t->vram + block * AGB_TILES_BLOCK_BYTES;
	/* No work: the copy's words are counted accesses (the Thumb's ldmia/stmia bursts, the C's). */
#if defined(AGB_TARGET_GBA) || defined(AGB_PLAIN_MEMORY)
	/* Word bursts instead of a volatile load and store per word: a third of the instructions. */
	{
		struct tile_words *d = (struct tile_words *)(uintptr_t)dst;
		const struct tile_words *sw = (const struct tile_words *)(uintptr_t)src;
		d[0] = sw[0];
		if (bpp == 8u)
			d[1] = sw[1];
	}
#else
	for (uint32_t i = 0; i < bytes; i += 4u)
		AGB_ST32(t->m, dst + i, AGB_LD32(t->m, src + i));
#endif
}

/* A free slot of depth bpp from the free lists, unlinked (its count word not written yet for a
 * 4bpp block; an 8bpp pair's tail already says TAIL8), or AGB_TILES_NO_ROOM when the lists have
 * none. O(1). */
static inline uint32_t take_free(agb_tiles *t, uint32_t bpp)
{
	agb_machine *m = t->m;
	const uint32_t refc = t->refc, r2r = t->r2r, meta = t->meta;
	uint32_t b, head;
	if (bpp == 8u) {
		/* 8bpp-only region first, so the shared half stays available to 4bpp layers. */
		head = meta + HEAD_B;
		b = MLD(head);
		if (b == END) {
			head = meta + HEAD_A;
			b = MLD(head);
			if (b == END) {
				TW(m, 4u); /* Thumb: list-b's and list-a's tests, to the eviction */
				return AGB_TILES_NO_ROOM;
			}
			TW(m, 11u); /* Thumb: list-b's test, list-a's (4), .Lref8_take's unlink (7) */
		} else {
			TW(m, 10u); /* Thumb: list-b's test (2), .Lref8_b (1), the unlink (7) */
		}
		MST(head, MLD(refc + 2u * b) & END);
		MST(refc + 2u * b + 2u, TAIL8);
		return b;
	}
	/* A leftover single first, so pairs stay whole for 8bpp tiles. */
	b = MLD(meta + HEAD_C);
	if (b != END) {
		uint32_t next = MLD(refc + 2u * b) & END;
		MST(meta + HEAD_C, next);
		/* Thumb: list-c's test, .Lref4_c's unlink and its test (8), the new first's prev (3) */
		TW(m, next != END ? 11u : 8u);
		if (next != END)
			MST(r2r + 2u * next, UNUSED); /* the new first element has no prev */
		return b;
	}
	b = MLD(meta + HEAD_A);
	if (b == END) {
		TW(m, 4u); /* Thumb: list-c's and list-a's tests, to the eviction */
		return AGB_TILES_NO_ROOM;
	}
	/* Thumb: list-c's test (2), list-a's (2), .Lref4_a's unlink and the other half onto list-c (8) */
	TW(m, 12u);
	MST(meta + HEAD_A, MLD(refc + 2u * b) & END);
	/* List-c was empty (just seen): the pair's other half becomes its only element, with no
	 * neighbours to link. */
	MST(refc + 2u * b + 2u, LINK(END));
	MST(r2r + 2u * b + 2u, UNUSED);
	MST(meta + HEAD_C, b + 1u);
	return b;
}

/* Evicts the unreferenced 4bpp tile at block b for good: its ROM->RAM entry says "not resident"
 * and its block goes to the free lists (a block whose partner is a free single makes the pair
 * whole again, onto list-a: a 4bpp tile's pair is in the shared half). Only the 8bpp eviction's
 * shared-half scan calls it (a same-depth tile's slot is reused as it is). O(1). */
static void drop4(agb_tiles *t, uint32_t b)
{
	agb_machine *m = t->m;
	const uint32_t refc = t->refc;
	uint32_t pc;
	MST(map_at(t, MLD(t->r2r + 2u * b), 4u), NOT_RES);
	pc = MLD(refc + 2u * (b ^ 1u));
	if ((pc & FREE_BIT) != 0) {
		/* The C (bench ROM's drop4, called from the 8bpp eviction's shared half): the call
		 * (4), entry and the partner's test (11), unlink_c's prev (7; it declares its arms),
		 * its next's test (3), push_pair (10), the return (3). */
		TW(m, 38u);
		unlink_c(m, refc, t->r2r, t->meta, b ^ 1u, pc);
		push_pair(m, refc, t->meta + HEAD_A, b & ~1u);
	} else {
		/* The call (4), entry and the partner's test (11), push_c (11; 1 more with a head:
		 * it declares that), the return (3). */
		TW(m, 29u);
		push_c(m, refc, t->r2r, t->meta, b);
	}
}

/* A 4bpp upload's eviction met an unreferenced 8bpp tile at the even block b of the shared half:
 * the tile leaves VRAM (its ROM->RAM entry says "not resident"), its pair splits, block b goes to
 * the upload (returned unlinked, as take_free's) and b + 1 becomes list-c's only element. That
 * is what dropping the tile onto list-a and asking take_free for a 4bpp slot would leave, written
 * directly: the eviction runs only when list-c and list-a are both empty, so list-a would hold
 * just this pair and give it straight back. O(1). */
static uint32_t split8(agb_tiles *t, uint32_t b)
{
	agb_machine *m = t->m;
	MST(map_at(t, MLD(t->r2r + 2u * b), 8u), NOT_RES);
	MST(t->refc + 2u * b + 2u, LINK(END));
	MST(t->r2r + 2u * b + 2u, UNUSED);
	MST(t->meta + HEAD_C, b + 1u);
	return b;
}

/* No free slot of depth bpp: the eviction scan, the clock policy. A hand per region (the shared
 * half's in the meta area's fourth halfword, the 8bpp-only part's in ram2rom[1], a word of the
 * reserved pair) goes round its region's tiles from where it stopped last: it passes referenced
 * ones and stops at the first unreferenced tile (count 0: released, still in VRAM) whose slot can
 * take the upload, so a tile is evicted only after the hand has gone round once since the last
 * time it stopped there. An 8bpp upload looks in the 8bpp-only part first (keeping the shared half
 * for 4bpp tiles, as take_free does), then at the shared half's pairs, taking one whose halves are
 * each free or an unreferenced 4bpp tile; a 4bpp upload looks at the shared half's blocks. A tile
 * of the upload's depth leaves its slot as it is (its ROM->RAM entry cleared: the only write
 * besides the hand); one of the other depth is dropped to the free lists and the lists are asked
 * again. Returns the slot, unlinked (as take_free), or AGB_TILES_NO_ROOM after a lap of each
 * region with nothing unreferenced the depth can use. O(blocks) worst case; about 1 + referenced /
 * unreferenced tiles steps on average. */
static uint32_t evict(agb_tiles *t, uint32_t bpp)
{
	agb_machine *m = t->m;
	const uint32_t refc = t->refc, meta = t->meta, shared = t->shared;
	uint32_t b;
	if (bpp == 8u) {
		const uint32_t pairs = (t->blocks - shared) / 2u, hand = MLD(t->r2r + 2u);
		/* Thumb: r2r, the hand, 2 blocks (4); the lap's count is set up only when the hand's
		 * pair is referenced (.Llap8). No 8bpp-only part: the first look's wrap test and
		 * .Lwrap8_first's test of the part (6). */
		TW(m, pairs != 0u ? 4u : 10u);
		b = hand;
		for (uint32_t n = pairs; n != 0u; n--, b += 2u) {
			/* the wrap test, the count's test (4); after the first, the step (1) */
			TW(m, n == pairs ? 4u : 5u);
			if (b >= t->blocks) {
				TW(m, n == pairs ? 5u : 3u); /* .Lwrap8_first (its part test) / .Lwrap8 */
				b = shared;
			}
			if (MLD(refc + 2u * b) == 0u) { /* every tile here is 8bpp */
				/* .Lfound8: the hand (2), REUSE (the map clear, the count, both maps: 4);
				 * ref_miss declares the copy */
				TW(m, 6u);
				MST(map_at(t, MLD(t->r2r + 2u * b), 8u), NOT_RES);
				MST(t->r2r + 2u, b + 2u);
				return b;
			}
			TW(m, n == pairs ? 6u : 2u); /* .Llap8's count / the count down */
		}
		/* The Thumb hands over (.Lev8_c 5, the return after it 3) to the C, which does it all
		 * again (bench ROM's agb_tiles_ref_slow_c): entry 14, take_free's two tests 18, the
		 * part's lap 17 + 9 a pair + 1 a wrap, the shared half's setup 27; with no 8bpp-only
		 * part, 61 to the shared half. */
		TW(m, 8u + (pairs != 0u ? 76u + 9u * pairs + (hand != shared ? 1u : 0u) : 61u));
		b = MLD(meta + HEAD_HAND) & ~1u;
		for (uint32_t n = (shared - 2u) / 2u; n != 0u; n--, b += 2u) {
			uint32_t h, tl;
			TW(m, 7u); /* the C: the wrap test, the pair's tests */
			if (b >= shared) {
				TW(m, 2u); /* the wrap */
				b = 2u;
			}
			h = MLD(refc + 2u * b);
			tl = MLD(refc + 2u * b + 2u);
			if (h == 0u && tl == TAIL8) {
				/* the tail's test 4, the map clear, the hand and the count and maps 19, the
				 * 8bpp copy's addresses 11, the return 10; less ref_miss's COPY (9) */
				TW(m, 35u);
				MST(map_at(t, MLD(t->r2r + 2u * b), 8u), NOT_RES);
				MST(meta + HEAD_HAND, b + 2u);
				return b;
			}
			/* Two 4bpp halves, each unreferenced or a free single (not both free: those
			 * would be a pair on list-a). */
			if ((h == 0u || IS_LINK_OR_END(h)) && (tl == 0u || IS_LINK_OR_END(tl))) {
				/* the halves' tests and arms 17, the hand and take_free's C 20, the count and
				 * maps 11, the 8bpp copy's addresses 11, the return 10 (69, counted with both
				 * halves unreferenced); less take_free's Thumb list-a (11) and ref_miss's
				 * COPY (9). Each drop4 declares its own. */
				TW(m, 49u);
				if (h == 0u)
					drop4(t, b);
				if (tl == 0u)
					drop4(t, b + 1u); /* the pair, now whole, heads list-a */
				MST(meta + HEAD_HAND, b + 2u);
				return take_free(t, 8u);
			}
			TW(m, 7u); /* a passed pair (a referenced head: the sign test and the step) */
		}
		TW(m, 13u); /* the C's NO_ROOM return */
		return AGB_TILES_NO_ROOM;
	}
	/* Thumb: the hand, 2 shared (3); the lap's count is set up only when the hand's block is
	 * referenced (.Llap4). */
	TW(m, 3u);
	b = MLD(meta + HEAD_HAND);
	for (uint32_t n = shared - 2u; n != 0u; n--, b++) {
		/* the wrap test, the count's test (4); after the first, the step (1) */
		TW(m, n == shared - 2u ? 4u : 5u);
		if (b >= shared) {
			TW(m, 2u); /* .Lwrap4_first / .Lwrap4 */
			b = 2u;
		}
		if (MLD(refc + 2u * b) != 0u) {
			TW(m, 2u); /* .Llap4's count / the count down */
			continue;
		}
		if ((b & 1u) == 0u && MLD(refc + 2u * b + 2u) == TAIL8) {
			/* An unreferenced 8bpp tile: its pair is split (see split8). Thumb: the even
			 * block's TAIL8 test (6), .Lsplit4 (the hand, the other half onto list-c, the
			 * map clear, the count and both maps: 12); ref_miss declares the copy. */
			TW(m, 18u);
			MST(meta + HEAD_HAND, b + 2u);
			return split8(t, b);
		}
		/* Thumb: the even block's TAIL8 test (6; an odd block 2), .Lfound4's hand (3),
		 * REUSE (the map clear, the count, both maps: 4); ref_miss declares the copy. */
		TW(m, (b & 1u) == 0u ? 13u : 9u);
		MST(map_at(t, MLD(t->r2r + 2u * b), 4u), NOT_RES);
		MST(meta + HEAD_HAND, b + 1u);
		return b;
	}
	TW(m, 6u); /* Thumb: the branch to .Lno_room, .Lno_room */
	return AGB_TILES_NO_ROOM;
}

/* A ref of a tile that is not resident (map: its rom2ram entry): take a slot -- a free one, else
 * an evicted one -- and upload. */
static inline uint32_t ref_miss(agb_tiles *t, uint32_t rom_tile, uint32_t bpp, uint32_t map)
{
	agb_machine *m = t->m;
	uint32_t b = take_free(t, bpp);
	if (b == AGB_TILES_NO_ROOM) {
		b = evict(t, bpp); /* its found arms declare the count's and maps' stores (REUSE) */
		if (b == AGB_TILES_NO_ROOM)
			return b;
	} else {
		TW(m, 3u); /* Thumb TAKE: the count's 1, the ROM->RAM entry's address */
	}
	TW(m, 9u); /* Thumb COPY: the copy's addresses, the return value, the return */
	MST(t->refc + 2u * b, 1u);
	MST(t->r2r + 2u * b, rom_tile);
	MST(map, b);
	upload(t, rom_tile, bpp, b);
	return b;
}

/* The out-of-line ref at depth bpp; b is the tile's rom2ram entry, as the inline ref read it. */
static uint32_t ref_slow(agb_tiles *t, uint32_t rom_tile, uint32_t bpp, uint32_t b)
{
	if (b == NOT_RES) {
		/* Thumb entry: the frame, the block from the count's address and the not-resident
		 * test (6), the meta area (1) */
		TW(t->m, 7u);
		return ref_miss(t, rom_tile, bpp, map_at(t, rom_tile, bpp));
	}
	/* Tile 0 or a full count: the entry to its test (6) and RESIDENT (tile 0 5, a full count
	 * 8) */
	TW(t->m, b == 0 ? 11u : 14u);
	return b == 0 ? 0 : AGB_TILES_BAD_TILE; /* tile 0 (block 0), else a full count */
}

#if AGB_TILES_THUMB
uint32_t agb_tiles_ref_slow_c(agb_tiles *t, uint32_t rom_tile, uint32_t bpp)
{
	return ref_slow(t, rom_tile, bpp, NOT_RES);
}
#else
uint32_t agb_tiles_ref_slow4(agb_tiles *t, uint32_t rom_tile, uint32_t count_at)
{
	return ref_slow(t, rom_tile, 4u, (count_at - t->refc) / 2u);
}

uint32_t agb_tiles_ref_slow8(agb_tiles *t, uint32_t rom_tile, uint32_t count_at)
{
	return ref_slow(t, rom_tile, 8u, (count_at - t->refc) / 2u);
}
#endif

void agb_tiles_set_rom(agb_tiles *t, uint32_t rom4_addr, uint32_t rom8_addr)
{
	t->rom4 = rom4_addr;
	t->rom8 = rom8_addr;
}

/* What one block is, for stats, walk and check. A tile's head is USED4 or USED8_HEAD whatever its
 * count, 0 (unreferenced, reclaimable) included. */
enum block_kind { BK_FREE, BK_USED4, BK_USED8_HEAD, BK_USED8_TAIL, BK_RESERVED, BK_BAD };

static enum block_kind kind_of(const agb_tiles *t, uint32_t b)
{
	uint32_t v = AGB_PEEK16(t->m, rc_at(t, b));
	if (v == RESERVED)
		return BK_RESERVED;
	if (v == TAIL8)
		return BK_USED8_TAIL;
	if (v == PAIR_TAIL || IS_LINK_OR_END(v))
		return BK_FREE;
	if (v > COUNT_MAX)
		return BK_BAD;
	if ((b & 1u) == 0 && b + 1u < t->blocks && AGB_PEEK16(t->m, rc_at(t, b + 1u)) == TAIL8)
		return BK_USED8_HEAD;
	return BK_USED4;
}

/* Whether block b is memory a user could have: a free block, or a block of an unreferenced tile
 * (an 8bpp tile's tail goes with its head). An unreferenced tile stays in VRAM only as a cache:
 * the next upload that finds no free slot takes it, so stats and walk count it free, and the
 * fragmentation and live figures mean what they meant when the last unref freed the slot. */
static int user_free(const agb_tiles *t, uint32_t b)
{
	switch (kind_of(t, b)) {
	case BK_FREE:
		return 1;
	case BK_USED4:
	case BK_USED8_HEAD:
		return AGB_PEEK16(t->m, rc_at(t, b)) == 0;
	case BK_USED8_TAIL:
		return AGB_PEEK16(t->m, rc_at(t, b - 1u)) == 0;
	default:
		return 0;
	}
}

void agb_tiles_stats(agb_tiles *t, struct agb_heap_stats *out)
{
	uint32_t run = 0;
	*out = (struct agb_heap_stats){0};
	for (uint32_t b = 0; b <= t->blocks; b++) {
		if (b < t->blocks && user_free(t, b)) {
			run += AGB_TILES_BLOCK_BYTES;
			continue;
		}
		if (run != 0) {
			out->free_bytes += run;
			out->free_runs++;
			out->free_sq_sum += (uint64_t)run * run;
			if (run > out->largest_free)
				out->largest_free = run;
			run = 0;
		}
	}
}

void agb_tiles_walk(agb_tiles *t, agb_walk_fn fn, void *ctx)
{
	uint32_t start = 0;
	enum agb_run_kind cur = AGB_RUN_USED;
	for (uint32_t b = 0; b < t->blocks; b++) {
		enum agb_run_kind k = user_free(t, b) ? AGB_RUN_FREE : AGB_RUN_USED;
		if (k != cur) {
			if (b > start)
				fn(ctx, t->vram + start * AGB_TILES_BLOCK_BYTES,
				   (b - start) * AGB_TILES_BLOCK_BYTES, cur);
			start = b;
			cur = k;
		}
	}
	fn(ctx, t->vram + start * AGB_TILES_BLOCK_BYTES, (t->blocks - start) * AGB_TILES_BLOCK_BYTES,
	   cur);
	/* Bytes between the tiles and the maps (arena sizes that are not multiples of 2 KiB). */
	if (t->maps_addr > t->vram + t->blocks * AGB_TILES_BLOCK_BYTES)
		fn(ctx, t->vram + t->blocks * AGB_TILES_BLOCK_BYTES,
		   t->maps_addr - (t->vram + t->blocks * AGB_TILES_BLOCK_BYTES), AGB_RUN_META);
	if (t->maps_bytes != 0)
		fn(ctx, t->maps_addr, t->maps_bytes, AGB_RUN_META);
	if (t->maps_addr + t->maps_bytes < t->vram + t->arena_bytes)
		fn(ctx, t->maps_addr + t->maps_bytes,
		   t->vram + t->arena_bytes - (t->maps_addr + t->maps_bytes), AGB_RUN_META);
}

#define FAIL(msg)             \
	do {                  \
		*why = (msg); \
		return 1;     \
	} while (0)

/* Walks one list: every element must be a free link of the right shape; returns its length,
 * or B + 1 when it is longer than the pool (a cycle). */
static uint32_t list_len(const agb_tiles *t, uint32_t head_off, int kind, const char **why)
{
	uint32_t n = 0, prev = UNUSED;
	uint32_t b = AGB_PEEK16(t->m, t->meta + head_off);
	*why = NULL;
	while (b != END) {
		uint32_t v;
		if (b >= t->blocks || n > t->blocks) {
			*why = "tiles: free list leaves the pool or loops";
			return 0;
		}
		v = AGB_PEEK16(t->m, rc_at(t, b));
		if (!IS_LINK_OR_END(v)) {
			*why = "tiles: block on a free list is not marked free";
			return 0;
		}
		if (kind != 'c') {
			if ((b & 1u) != 0 || AGB_PEEK16(t->m, rc_at(t, b + 1u)) != PAIR_TAIL) {
				*why = "tiles: list-a/b entry is not a whole even pair";
				return 0;
			}
			if ((kind == 'a') != (b < t->shared)) {
				*why = "tiles: pair on the wrong list for its half";
				return 0;
			}
		} else {
			uint32_t pv = AGB_PEEK16(t->m, rc_at(t, b ^ 1u));
			if (b >= t->shared) {
				*why = "tiles: list-c entry outside the shared half";
				return 0;
			}
			if ((pv & FREE_BIT) != 0) {
				*why = "tiles: both halves of a pair free but not merged onto list-a";
				return 0;
			}
			if (AGB_PEEK16(t->m, r2r_at(t, b)) != prev) {
				*why = "tiles: list-c prev link broken";
				return 0;
			}
		}
		prev = b;
		b = v & END;
		n++;
	}
	return n;
}

int agb_tiles_check(agb_tiles *t, const char **why)
{
	uint32_t links = 0, pair_tails = 0, resident = 0, mapped = 0;
	uint32_t hand = AGB_PEEK16(t->m, t->meta + HEAD_HAND), hand8 = AGB_PEEK16(t->m, r2r_at(t, 1));

	if (AGB_PEEK16(t->m, rc_at(t, 0)) != RESERVED || AGB_PEEK16(t->m, rc_at(t, 1)) != RESERVED)
		FAIL("tiles: the transparent pair is not reserved");
	/* The eviction hands: a block of their region, or its end (the scan wraps round); the 8bpp
	 * hand moves a pair at a time from the region's start (an odd one would test tails only). */
	if (hand < 2u || hand > t->shared || hand8 < t->shared || hand8 > t->blocks)
		FAIL("tiles: eviction hand outside its region");
	if (((hand8 - t->shared) & 1u) != 0)
		FAIL("tiles: 8bpp eviction hand not on a pair");
	for (uint32_t a = 0; a < 64u; a += 4u)
		if (AGB_PEEK32(t->m, t->vram + a) != 0)
			FAIL("tiles: the transparent tile is not all colour 0");
	for (uint32_t b = 2; b < t->blocks; b++) {
		uint32_t v = AGB_PEEK16(t->m, rc_at(t, b));
		uint32_t rom, map;
		switch (kind_of(t, b)) {
		case BK_RESERVED:
			FAIL("tiles: reserved marker outside pair 0");
		case BK_BAD:
			FAIL("tiles: overflowed reference count");
		case BK_USED8_TAIL:
			if ((b & 1u) == 0 || kind_of(t, b - 1u) != BK_USED8_HEAD)
				FAIL("tiles: 8bpp tail without its head");
			break;
		case BK_FREE:
			if (v == PAIR_TAIL) {
				uint32_t hv = AGB_PEEK16(t->m, rc_at(t, b - 1u));
				if ((b & 1u) == 0 || !IS_LINK_OR_END(hv))
					FAIL("tiles: pair tail whose head is not a free pair");
				pair_tails++;
			} else {
				links++;
			}
			break;
		case BK_USED4:
		case BK_USED8_HEAD: {
			uint32_t bpp = kind_of(t, b) == BK_USED8_HEAD ? 8u : 4u;
			if (bpp == 4u && b >= t->shared)
				FAIL("tiles: 4bpp tile outside the shared 32 KiB");
			rom = AGB_PEEK16(t->m, r2r_at(t, b));
			if (rom == 0 || rom >= t->rom_tiles)
				FAIL("tiles: RAM->ROM entry out of range");
			map = AGB_PEEK16(t->m, map_at(t, rom, bpp));
			if (map != b)
				FAIL("tiles: ROM->RAM and RAM->ROM maps disagree");
			resident++;
			break;
		}
		}
	}
	{
		const char *lw = NULL; /* *why stays untouched on success */
		uint32_t na = list_len(t, HEAD_A, 'a', &lw), nb = 0, nc = 0;
		if (lw == NULL)
			nb = list_len(t, HEAD_B, 'b', &lw);
		if (lw == NULL)
			nc = list_len(t, HEAD_C, 'c', &lw);
		if (lw != NULL)
			FAIL(lw);
		if (na + nb != pair_tails)
			FAIL("tiles: free pairs and list-a/b lengths disagree");
		if (na + nb + nc != links)
			FAIL("tiles: a free block is on no list (or on two)");
	}
	/* Every ROM->RAM entry must belong to a resident tile (the other direction is above). */
	for (uint32_t r = 0; r < 2u * t->rom_tiles; r++) {
		uint32_t b = AGB_PEEK16(t->m, t->map4 + 2u * r);
		if (r == 0 || r == t->rom_tiles) {
			if (b != 0)
				FAIL("tiles: tile 0 does not map to the transparent block");
			continue;
		}
		if (b == NOT_RES)
			continue;
		if (b < 2u || b >= t->blocks)
			FAIL("tiles: ROM->RAM entry points outside the tile blocks");
		mapped++;
	}
	if (mapped != resident)
		FAIL("tiles: stale ROM->RAM entry");
	return 0;
}

uint32_t agb_tiles_overhead_bytes(agb_tiles *t)
{
	/* Bookkeeping outside VRAM, the screen maps (VRAM that holds no tiles) and the reserved
	 * transparent pair are all bytes the pool cannot hand out. */
	return t->meta_bytes + (t->arena_bytes - t->blocks * AGB_TILES_BLOCK_BYTES) + 64u;
}

AGB_BASE_CORE_ADAPTERS(tiles)
AGB_CORE_ADAPTER(tiles, ref_verb)
AGB_CORE_ADAPTER(tiles, unref)

const struct agb_heap_core agb_tiles_core = {
	.name = "tiles",
	.summary = "BG tile manager: ref-counted ROM->VRAM tiles, shared 4bpp/8bpp pairs, O(1) (seed)",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_BG_VRAM),
	.unit = AGB_TILES_BLOCK_BYTES,
	.state_bytes = sizeof(agb_tiles),
	AGB_BASE_CORE_MEMBERS,
	.ref = core_ref,
	.unref = core_unref,
	/* Estimate for Thumb in ROM: about 10 instructions of call, dispatch and return, and half a cycle of address arithmetic per
	 * counted access (the copy loop moves a word per access with ldmia/stmia). */
	.model = {.alloc_base = 0, .free_base = 12, .realloc_base = 0, .per_access = 8},
};
