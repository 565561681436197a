/* tiles_thumb.S — tiles' out-of-line path (the upload) in Thumb for the GBA's ROM placement.
 *
 * GCC keeps nine registers live in tiles.c's ref_miss, so it saves r8-r11 on every call and
 * moves values through them, and it loads END, UNUSED and the like from a literal pool in ROM (a
 * non-sequential cartridge read that also breaks the opcode prefetch). Written by hand the path
 * fits r0-r7, every constant is made with movs/mvns/lsls, and the upload's copy is two four-word
 * ldmia/stmia pairs per 32 bytes. (The last unref needs no out-of-line path: it is the inline
 * count decrement, the tile staying in VRAM.)
 *
 * agb_tiles_ref_slow makes exactly tiles.c's decisions and metadata writes (the GBA/host
 * equivalence test compares every ref's and unref's result and the final map with the C on the
 * host): the upload of a tile that is not resident (its rom2ram entry, read again, is 1) at depth
 * 4 or 8 into a slot from list-c then list-a (4bpp) or list-b then list-a (8bpp), else into the
 * slot of an unreferenced tile of the same depth that the eviction hand finds (4bpp: in the
 * shared half; 8bpp: in the 8bpp-only part); the count, both maps, the copy. Tile 0, a full
 * count, other depths and the rarer evictions (a 4bpp upload meeting an unreferenced 8bpp tile;
 * an 8bpp upload when the 8bpp-only part has no unreferenced tile) go to agb_tiles_ref_slow_c,
 * before any write: it finds the same state and scans from the same hands.
 * Returns use pop {rN}; bx rN, so ARM callers come back in ARM state. */
#include "tiles_thumb.h"

#if AGB_TILES_THUMB

	.syntax unified
	.thumb

/* Takes block b for the ROM tile and uploads it, then returns b: count 1, both maps, the copy
 * from the depth's ROM set (\rom + rom tile << \shift) to VRAM in \bursts four-word bursts.
 * In: r0 t, r1 rom tile, r4 refc, r5 r2r, r6 b, r7 2 b (the frame pushed on entry). */
.macro TAKE map, rom, shift, bursts
	movs	r2, #1
	strh	r2, [r4, r7]		/* count 1 */
	strh	r1, [r5, r7]		/* RAM->ROM */
	ldr	r2, [r0, #\map]
	lsls	r3, r1, #1
	strh	r6, [r2, r3]		/* ROM->RAM */
	ldr	r2, [r0, #\rom]
	lsls	r1, r1, #\shift
	adds	r2, r2, r1		/* source */
	ldr	r3, [r0, #T_VRAM]
	lsls	r1, r6, #5
	adds	r3, r3, r1		/* destination: vram + 32 b */
	.rept	\bursts
	ldmia	r2!, {r0, r1, r4, r5}
	stmia	r3!, {r0, r1, r4, r5}
	.endr
	movs	r0, r6
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
.endm

/* uint32_t agb_tiles_ref_slow(agb_tiles *t, uint32_t rom_tile, uint32_t bpp) */
	.section .text.agb_tiles_ref_slow, "ax", %progbits
	.align	2
	.global	agb_tiles_ref_slow
	.type	agb_tiles_ref_slow, %function
	.thumb_func
agb_tiles_ref_slow:
	cmp	r2, #4
	bne	.Lref_not4
	push	{r4, r5, r6, r7, lr}
	ldr	r3, [r0, #T_MAP4]
	lsls	r4, r1, #1
	ldrh	r3, [r3, r4]
	cmp	r3, #1			/* rom2ram 1: not resident */
	bne	.Lref_c_pushed
	ldr	r4, [r0, #T_REFC]
	ldr	r5, [r0, #T_META]
	/* A leftover single first, so pairs stay whole for 8bpp tiles. END (0x7FFF) is the only
	 * head or link value of 2048 and above. */
	ldrh	r6, [r5, #HEAD_C]
	lsrs	r7, r6, #11
	bne	.Lref4_pair
	lsls	r7, r6, #1		/* r7 = 2 b */
	ldrh	r2, [r4, r7]
	lsls	r2, r2, #17
	lsrs	r2, r2, #17		/* next */
	strh	r2, [r5, #HEAD_C]
	ldr	r5, [r0, #T_R2R]	/* r5 = r2r from here on, on both paths */
	lsrs	r3, r2, #11
	bne	.Lref4_take
	lsls	r2, r2, #1
	movs	r3, #0
	mvns	r3, r3			/* UNUSED: the new first element has no prev */
	strh	r3, [r5, r2]
	b	.Lref4_take
.Lref4_pair:
	ldrh	r6, [r5, #HEAD_A]
	lsrs	r7, r6, #11
	bne	.Lev4		/* no free slot: the eviction */
	lsls	r7, r6, #1
	ldrh	r2, [r4, r7]
	lsls	r2, r2, #17
	lsrs	r2, r2, #17
	strh	r2, [r5, #HEAD_A]
	/* List-c was empty (just seen): the pair's other half becomes its only element. */
	adds	r2, r6, #1
	strh	r2, [r5, #HEAD_C]
	adds	r2, r7, #2		/* 2 (b + 1) */
	movs	r3, #0
	mvns	r3, r3			/* LINK(END) and UNUSED: 0xFFFF */
	strh	r3, [r4, r2]
	ldr	r5, [r0, #T_R2R]
	strh	r3, [r5, r2]
.Lref4_take:
	TAKE	T_MAP4, T_ROM4, 5, 2	/* 32 bytes */

.Lref_not4:
	cmp	r2, #8
	bne	.Lref_c
	push	{r4, r5, r6, r7, lr}
	ldr	r3, [r0, #T_MAP8]
	lsls	r4, r1, #1
	ldrh	r3, [r3, r4]
	cmp	r3, #1
	bne	.Lref_c_pushed
	/* 8bpp-only region first, so the shared half stays available to 4bpp layers. */
	ldr	r4, [r0, #T_REFC]
	ldr	r5, [r0, #T_META]
	adds	r5, r5, #HEAD_B
	ldrh	r6, [r5]
	lsrs	r7, r6, #11
	beq	1f
	subs	r5, r5, #(HEAD_B - HEAD_A)
	ldrh	r6, [r5]
	lsrs	r7, r6, #11
	bne	.Lev8		/* no free slot: the eviction */
1:	lsls	r7, r6, #1
	ldrh	r2, [r4, r7]
	lsls	r2, r2, #17
	lsrs	r2, r2, #17
	strh	r2, [r5]		/* the list's new head */
	adds	r2, r7, #2
	movs	r3, #1
	mvns	r3, r3			/* TAIL8: 0xFFFE */
	strh	r3, [r4, r2]
	ldr	r5, [r0, #T_R2R]
	TAKE	T_MAP8, T_ROM8, 6, 4	/* 64 bytes */

.Lno_room:
	movs	r0, #0
	mvns	r0, r0
	lsrs	r0, r0, #16		/* AGB_TILES_NO_ROOM: 0xFFFF */
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
.Lref_c_pushed:
	bl	agb_tiles_ref_slow_c	/* tile 0, a full count, the rarer evictions */
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
.Lref_c:
	push	{r4, lr}
	bl	agb_tiles_ref_slow_c
	pop	{r4}
	pop	{r1}
	bx	r1

/* The 4bpp eviction (tiles.c's evict): from the shared half's hand, the first block of count 0
 * within one lap. In: r0 t, r1 rom tile, r4 refc, r5 meta. r6 walks 2 b, r3 is 2 shared, r2
 * counts the lap down. */
.Lev4:
	ldrh	r6, [r5, #HEAD_HAND]
	lsls	r6, r6, #1
	ldr	r3, [r0, #T_SHARED]
	subs	r2, r3, #2		/* the lap: shared - 2 blocks */
	lsls	r3, r3, #1
.Lscan4:
	cmp	r6, r3
	bcc	1f
	movs	r6, #4			/* wrap round to block 2 */
1:	ldrh	r7, [r4, r6]
	cmp	r7, #0
	beq	.Lfound4
	adds	r6, r6, #2
	subs	r2, r2, #1
	bne	.Lscan4
	b	.Lno_room
.Lfound4:
	/* An even block whose partner says TAIL8 is an unreferenced 8bpp tile: the C drops it
	 * and splits the pair. */
	lsls	r7, r6, #30		/* 0 for an even block (r6 = 2 b) */
	bne	2f
	adds	r7, r6, #2
	ldrh	r7, [r4, r7]
	adds	r7, r7, #2
	lsls	r7, r7, #16		/* 0 only for TAIL8, 0xFFFE */
	bne	2f
	movs	r2, #4
	b	.Lref_c_pushed
2:	lsrs	r7, r6, #1
	adds	r7, r7, #1
	strh	r7, [r5, #HEAD_HAND]	/* the hand: the next block */
	ldr	r5, [r0, #T_R2R]
	ldrh	r3, [r5, r6]		/* the evicted tile */
	lsls	r3, r3, #1
	ldr	r2, [r0, #T_MAP4]
	adds	r3, r3, r2
	movs	r2, #1
	strh	r2, [r3]		/* its ROM->RAM entry: not resident */
	movs	r7, r6
	lsrs	r6, r6, #1
	TAKE	T_MAP4, T_ROM4, 5, 2

/* The 8bpp eviction in the 8bpp-only part: from its hand (ram2rom[1]), the first pair whose head
 * has count 0 (every tile there is 8bpp) within one lap; none, or no such part: the C, which
 * goes on to the shared half. In: r0 t, r1 rom tile, r4 refc. r6 walks 2 b, r3 is 2 blocks. */
.Lev8:
	ldr	r5, [r0, #T_R2R]
	ldrh	r6, [r5, #2]
	lsls	r6, r6, #1
	ldr	r3, [r0, #T_BLOCKS]
	ldr	r2, [r0, #T_SHARED]
	subs	r2, r3, r2
	lsrs	r2, r2, #1		/* the lap: (blocks - shared) / 2 pairs */
	beq	.Lev8_c
	lsls	r3, r3, #1
.Lscan8:
	cmp	r6, r3
	bcc	1f
	ldr	r6, [r0, #T_SHARED]	/* wrap round to the part's first pair */
	lsls	r6, r6, #1
1:	ldrh	r7, [r4, r6]
	cmp	r7, #0
	beq	.Lfound8
	adds	r6, r6, #4
	subs	r2, r2, #1
	bne	.Lscan8
.Lev8_c:
	movs	r2, #8
	b	.Lref_c_pushed
.Lfound8:
	lsrs	r7, r6, #1
	adds	r7, r7, #2
	strh	r7, [r5, #2]		/* the hand: the next pair */
	ldrh	r3, [r5, r6]		/* the evicted tile */
	lsls	r3, r3, #1
	ldr	r2, [r0, #T_MAP8]
	adds	r3, r3, r2
	movs	r2, #1
	strh	r2, [r3]		/* its ROM->RAM entry: not resident */
	movs	r7, r6
	lsrs	r6, r6, #1
	TAKE	T_MAP8, T_ROM8, 6, 4	/* the tail still says TAIL8 */

	.size	agb_tiles_ref_slow, .-agb_tiles_ref_slow

#endif
