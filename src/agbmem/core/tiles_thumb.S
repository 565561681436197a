/* tiles_thumb.S — tiles' out-of-line path (the upload) in Thumb for the GBA's ROM placement.
 *
 * GCC keeps nine registers live in tiles.c's ref_miss, so it saves r8-r11 on every call and
 * moves values through them, and it loads END, UNUSED and the like from a literal pool in ROM (a
 * non-sequential cartridge read that also breaks the opcode prefetch). Written by hand the path
 * fits r0-r7, every constant is made with movs/mvns/lsls, and the upload's copy is two four-word
 * ldmia/stmia pairs per 32 bytes. (The last unref needs no out-of-line path: it is the inline
 * count decrement, the tile staying in VRAM.) Every instruction from ROM costs two cycles or
 * more, so the paths are laid out for the common case: one entry per depth (the call site knows
 * it), the block taken from the count's address the inline path already has (no map read), an
 * eviction that finds its block at the hand without setting up a lap count, and no branch taken
 * on the way to a same-depth eviction's copy.
 *
 * agb_tiles_ref_slow4 / agb_tiles_ref_slow8 make exactly tiles.c's decisions and metadata
 * writes (the GBA/host equivalence test compares every ref's and unref's result and the final
 * map with the C on the host): the upload of a tile that is not resident (block 1) into a slot
 * from list-c then list-a (4bpp) or list-b then list-a (8bpp), else into the slot of an
 * unreferenced tile that the eviction hand finds (4bpp: in the shared half, an 8bpp tile there
 * splitting its pair as tiles.c's split8; 8bpp: in the 8bpp-only part); the count, both maps,
 * the copy. Tile 0 and a full count return at once. An 8bpp upload that finds no unreferenced
 * pair in the 8bpp-only part goes to agb_tiles_ref_slow_c before any write: it finds the same
 * state, scans from the same hands and goes on to the shared half.
 *
 * The return address waits in ip (the frame is r4-r7 alone): ip is free inside these leaf paths
 * and bx ip returns to an ARM caller in ARM state, one pop fewer than pop {rN}; bx rN. The one
 * call out (.Lev8_c) keeps it on the stack meanwhile. */
#include "tiles_thumb.h"

#if AGB_TILES_THUMB

	.syntax unified
	.thumb

/* The copy and the return: the tile from the depth's ROM set (\rom + rom tile << \shift) to VRAM
 * (vram + 32 b) in four-word ldmia/stmia bursts (r0, r1, r4, r5: source and destination take r2
 * and r3, b stays in \b), then returns b. In: r0 t, r1 rom tile, \b b (r6 or r7), the frame
 * pushed on entry. (Bursts of six for an 8bpp tile, b waiting in lr, measured a little slower:
 * the burst saved is worth no more than the move it needs.) */
.macro COPY rom, shift, b
	ldr	r2, [r0, #\rom]
	lsls	r1, r1, #\shift
	adds	r2, r2, r1		/* source */
	ldr	r3, [r0, #T_VRAM]
	lsls	r1, \b, #5
	adds	r3, r3, r1		/* destination */
	.rept	1 << (\shift - 4)	/* 32 or 64 bytes */
	ldmia	r2!, {r0, r1, r4, r5}
	stmia	r3!, {r0, r1, r4, r5}
	.endr
	movs	r0, \b
	pop	{r4, r5, r6, r7}
	bx	ip
.endm

/* Takes block b from a free list for the ROM tile and uploads it: count 1, both maps, the copy.
 * In: r0 t, r1 rom tile, r4 refc, r5 r2r, r6 b, r7 2 b. */
.macro TAKE map, rom, shift
	movs	r2, #1
	strh	r2, [r4, r7]		/* count 1 */
	strh	r1, [r5, r7]		/* RAM->ROM */
	ldr	r2, [r0, #\map]
	lsls	r3, r1, #1
	strh	r6, [r2, r3]		/* ROM->RAM */
	COPY	\rom, \shift, r6
.endm

/* Each entry's first steps: the return address into ip (see the file comment), r4 refc, r2 2 b
 * (from the count's address the inline ref passes), a resident block (tile 0 or a full count)
 * to \resident, r5 the meta area. */
.macro SLOW_ENTRY resident
	push	{r4, r5, r6, r7}
	mov	ip, lr
	ldr	r4, [r0, #T_REFC]
	subs	r2, r2, r4		/* 2 b */
	cmp	r2, #2			/* b 1: not resident */
	bne	\resident
	ldr	r5, [r0, #T_META]
.endm

/* Tile 0 (r2 = 2 b = 0) returns 0, a full count AGB_TILES_BAD_TILE (0xFFFE): nothing changes. */
.macro RESIDENT
	movs	r0, #0
	cmp	r2, #0
	beq	1f
	mvns	r0, r0
	lsrs	r0, r0, #16
	subs	r0, r0, #1
1:	pop	{r4, r5, r6, r7}
	bx	ip
.endm

/* The eviction hand found block b (r6 = 2 b) of an unreferenced tile of the upload's depth (the
 * hand already moved on): the evicted tile's ROM->RAM entry says "not resident" and the block is
 * the upload's (count 1, both maps). In: r0 t, r1 rom tile, r4 refc, r5 r2r, r7 b. Out: r2 the
 * depth's map, r5 1. */
.macro REUSE map
	ldrh	r3, [r5, r6]		/* the evicted tile */
	strh	r1, [r5, r6]		/* RAM->ROM: the new one */
	lsls	r3, r3, #1
	ldr	r2, [r0, #\map]
	movs	r5, #1
	strh	r5, [r2, r3]		/* the evicted tile's ROM->RAM entry: not resident */
	strh	r5, [r4, r6]		/* count 1 */
	lsls	r3, r1, #1
	strh	r7, [r2, r3]		/* ROM->RAM */
.endm

	.section .text.agb_tiles_ref_slow, "ax", %progbits
	.align	2

/* Each entry's tile-0 / full-count return sits just before it, in a conditional branch's reach
 * (the function bodies are longer than its 256 bytes). */
.Lresident4:
	RESIDENT

/* uint32_t agb_tiles_ref_slow4(agb_tiles *t, uint32_t rom_tile, uint32_t b) */
	.global	agb_tiles_ref_slow4
	.type	agb_tiles_ref_slow4, %function
	.thumb_func
agb_tiles_ref_slow4:
	SLOW_ENTRY .Lresident4
	/* A leftover single first, so pairs stay whole for 8bpp tiles. END (0x7FFF) is the only
	 * head or link value of 2048 and above. */
	ldrh	r6, [r5, #HEAD_C]
	lsrs	r7, r6, #11
	beq	.Lref4_c
	ldrh	r6, [r5, #HEAD_A]
	lsrs	r7, r6, #11
	beq	.Lref4_a
	/* No free slot: the eviction (tiles.c's evict), from the shared half's hand, the first
	 * block of count 0 within one lap. r6 walks 2 b, r3 is 2 shared; the lap's count (r2) is
	 * set up only when the hand's block is referenced. */
	ldrh	r6, [r5, #HEAD_HAND]
	lsls	r6, r6, #1
	ldr	r3, [r0, #T_SHARED]
	lsls	r3, r3, #1
	cmp	r6, r3
	bcs	.Lwrap4_first
.Llook4_first:
	ldrh	r7, [r4, r6]
	cmp	r7, #0
	bne	.Llap4
.Lcount0_4:
	/* An even block whose partner says TAIL8 is an unreferenced 8bpp tile: its pair splits. */
	lsls	r7, r6, #30		/* 0 for an even block (r6 = 2 b) */
	bne	.Lfound4
	adds	r7, r6, #2
	ldrh	r7, [r4, r7]
	adds	r7, r7, #2
	lsls	r7, r7, #16		/* 0 only for TAIL8, 0xFFFE */
	beq	.Lsplit4
.Lfound4:
	lsrs	r7, r6, #1		/* b */
	adds	r2, r7, #1
	strh	r2, [r5, #HEAD_HAND]	/* the hand: the next block */
	ldr	r5, [r0, #T_R2R]
	REUSE	T_MAP4
	COPY	T_ROM4, 5, r7	/* 32 bytes */

.Llap4:
	lsrs	r2, r3, #1
	subs	r2, r2, #3		/* the rest of the lap: shared - 3 blocks (1 or more) */
.Lpass4:
	adds	r6, r6, #2
	cmp	r6, r3
	bcs	.Lwrap4
.Llook4:
	ldrh	r7, [r4, r6]
	cmp	r7, #0
	beq	.Lcount0_4
	subs	r2, r2, #1
	bne	.Lpass4
	b	.Lno_room
.Lwrap4_first:
	movs	r6, #4			/* wrap round to block 2 */
	b	.Llook4_first
.Lwrap4:
	movs	r6, #4
	b	.Llook4

.Lref4_c:
	lsls	r7, r6, #1		/* r7 = 2 b */
	ldrh	r2, [r4, r7]
	lsls	r2, r2, #17
	lsrs	r2, r2, #17		/* next */
	strh	r2, [r5, #HEAD_C]
	ldr	r5, [r0, #T_R2R]	/* r5 = r2r from here on */
	lsrs	r3, r2, #11
	bne	1f
	lsls	r2, r2, #1
	movs	r3, #0
	mvns	r3, r3			/* UNUSED: the new first element has no prev */
	strh	r3, [r5, r2]
1:	TAKE	T_MAP4, T_ROM4, 5	/* 32 bytes */

.Lref4_a:
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
	TAKE	T_MAP4, T_ROM4, 5

/* tiles.c's split8: the 8bpp tile at b (r6 = 2 b) leaves VRAM, b + 1 becomes list-c's only
 * element (list-c and list-a are empty: the eviction runs only then), b takes the upload. */
.Lsplit4:
	lsrs	r7, r6, #1		/* b */
	adds	r2, r7, #2
	strh	r2, [r5, #HEAD_HAND]	/* the hand: the next pair */
	subs	r2, r2, #1
	strh	r2, [r5, #HEAD_C]	/* b + 1 */
	adds	r3, r6, #2		/* 2 (b + 1) */
	movs	r2, #0
	mvns	r2, r2			/* LINK(END) and UNUSED: 0xFFFF */
	strh	r2, [r4, r3]
	ldr	r5, [r0, #T_R2R]
	strh	r2, [r5, r3]
	ldrh	r3, [r5, r6]		/* the evicted 8bpp tile */
	strh	r1, [r5, r6]		/* RAM->ROM: the new one */
	lsls	r3, r3, #1
	ldr	r2, [r0, #T_MAP8]
	movs	r5, #1
	strh	r5, [r2, r3]		/* its ROM->RAM entry: not resident */
	strh	r5, [r4, r6]		/* count 1 */
	ldr	r2, [r0, #T_MAP4]
	lsls	r3, r1, #1
	strh	r7, [r2, r3]		/* ROM->RAM */
	COPY	T_ROM4, 5, r7

.Lno_room:
	movs	r0, #0
	mvns	r0, r0
	lsrs	r0, r0, #16		/* AGB_TILES_NO_ROOM: 0xFFFF */
	pop	{r4, r5, r6, r7}
	bx	ip

	.size	agb_tiles_ref_slow4, .-agb_tiles_ref_slow4

	.align	2
.Lresident8:
	RESIDENT

/* uint32_t agb_tiles_ref_slow8(agb_tiles *t, uint32_t rom_tile, uint32_t b) */
	.global	agb_tiles_ref_slow8
	.type	agb_tiles_ref_slow8, %function
	.thumb_func
agb_tiles_ref_slow8:
	SLOW_ENTRY .Lresident8
	/* 8bpp-only region first, so the shared half stays available to 4bpp layers. */
	ldrh	r6, [r5, #HEAD_B]
	lsrs	r7, r6, #11
	beq	.Lref8_b
	ldrh	r6, [r5, #HEAD_A]
	lsrs	r7, r6, #11
	beq	.Lref8_take		/* r5: list-a's head (HEAD_A is 0) */
	/* No free slot: the eviction in the 8bpp-only part, from its hand (ram2rom[1]), the first
	 * pair whose head has count 0 (every tile there is 8bpp) within one lap; none, or no such
	 * part: the C, which goes on to the shared half. r6 walks 2 b, r3 is 2 blocks; the lap's
	 * count (r2) is set up only when the hand's pair is referenced. */
	ldr	r5, [r0, #T_R2R]
	ldrh	r6, [r5, #2]
	lsls	r6, r6, #1
	ldr	r3, [r0, #T_BLOCKS]
	lsls	r3, r3, #1
	cmp	r6, r3
	bcs	.Lwrap8_first
.Llook8_first:
	ldrh	r7, [r4, r6]
	cmp	r7, #0
	bne	.Llap8
.Lfound8:
	lsrs	r7, r6, #1		/* b */
	adds	r2, r7, #2
	strh	r2, [r5, #2]		/* the hand: the next pair */
	REUSE	T_MAP8			/* the tail still says TAIL8 */
	COPY	T_ROM8, 6, r7	/* 64 bytes */

.Llap8:
	ldr	r2, [r0, #T_SHARED]
	lsls	r2, r2, #1
	subs	r2, r3, r2
	lsrs	r2, r2, #2
	subs	r2, r2, #1		/* the rest of the lap: (blocks - shared) / 2 - 1 pairs */
	beq	.Lev8_c
.Lpass8:
	adds	r6, r6, #4
	cmp	r6, r3
	bcs	.Lwrap8
.Llook8:
	ldrh	r7, [r4, r6]
	cmp	r7, #0
	beq	.Lfound8
	subs	r2, r2, #1
	bne	.Lpass8
.Lev8_c:
	mov	r3, ip
	push	{r3}
	movs	r2, #8
	bl	agb_tiles_ref_slow_c	/* the shared half's pairs */
	pop	{r3}
	pop	{r4, r5, r6, r7}
	bx	r3
.Lwrap8_first:
	ldr	r6, [r0, #T_SHARED]	/* wrap round to the part's first pair */
	lsls	r6, r6, #1
	cmp	r6, r3
	beq	.Lev8_c			/* no 8bpp-only part: the hand is always at its end */
	b	.Llook8_first
.Lwrap8:
	ldr	r6, [r0, #T_SHARED]
	lsls	r6, r6, #1
	b	.Llook8

.Lref8_b:
	adds	r5, r5, #HEAD_B
.Lref8_take:
	lsls	r7, r6, #1
	ldrh	r2, [r4, r7]
	lsls	r2, r2, #17
	lsrs	r2, r2, #17
	strh	r2, [r5]		/* the list's new head */
	adds	r2, r7, #2
	movs	r3, #1
	mvns	r3, r3			/* TAIL8: 0xFFFE */
	strh	r3, [r4, r2]
	ldr	r5, [r0, #T_R2R]
	TAKE	T_MAP8, T_ROM8, 6	/* 64 bytes */

	.size	agb_tiles_ref_slow8, .-agb_tiles_ref_slow8

#endif
