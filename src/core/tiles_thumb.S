/* tiles_thumb.S — tiles' out-of-line paths (the upload and the release) in Thumb for the GBA's
 * ROM placement.
 *
 * GCC keeps nine registers live in tiles.c's ref_miss and release, so it saves r8-r11 on every
 * call and moves values through them, and it loads END, UNUSED and the like from a literal pool
 * in ROM (a non-sequential cartridge read that also breaks the opcode prefetch). Written by hand
 * the paths fit r0-r7, every constant is made with movs/mvns/lsls, and the upload's copy is two
 * four-word ldmia/stmia pairs per 32 bytes.
 *
 * They make exactly tiles.c's decisions and metadata writes (the GBA/host equivalence test
 * compares every ref's and unref's result and the final map with the C on the host):
 *  - agb_tiles_ref_slow: the upload of a tile that is not resident (its rom2ram entry, read again,
 *    is 1) at depth 4 or 8: a slot from list-c then list-a (4bpp) or list-b then list-a (8bpp), the count, both
 *    maps, the copy. Tile 0, a full count and other depths go to agb_tiles_ref_slow_c.
 *  - agb_tiles_unref_slow: the release of a count of 1 at depth 4 or 8: the depth check, the
 *    ROM->RAM entry cleared, the block to list-c or its pair re-formed onto list-a/b. Any other
 *    count goes to agb_tiles_unref_slow_c.
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
	bne	.Lno_room
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
	bne	.Lno_room
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
	bl	agb_tiles_ref_slow_c	/* tile 0 or a full count */
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
.Lref_c:
	push	{r4, lr}
	bl	agb_tiles_ref_slow_c
	pop	{r4}
	pop	{r1}
	bx	r1
	.size	agb_tiles_ref_slow, .-agb_tiles_ref_slow

/* uint32_t agb_tiles_unref_slow(agb_tiles *t, uint32_t b, int32_t c, uint32_t bpp) */
	.section .text.agb_tiles_unref_slow, "ax", %progbits
	.align	2
	.global	agb_tiles_unref_slow
	.type	agb_tiles_unref_slow, %function
	.thumb_func
agb_tiles_unref_slow:
	cmp	r2, #1			/* the last ref */
	bne	.Lunref_c
	cmp	r3, #4
	bne	.Lunref_not4
	push	{r4, r5, r6, r7, lr}
	ldr	r4, [r0, #T_REFC]
	movs	r5, #1
	eors	r5, r1
	lsls	r5, r5, #1		/* r5 = 2 partner */
	ldrh	r6, [r4, r5]		/* r6 = the partner's word */
	/* An even block whose partner says TAIL8 holds an 8bpp tile: not released. */
	lsrs	r2, r1, #1
	bcs	1f
	adds	r2, r6, #2
	lsls	r2, r2, #16		/* 0 only for 0xFFFE (the word is a halfword) */
	beq	.Lrel_none
1:	ldr	r7, [r0, #T_R2R]
	lsls	r2, r1, #1		/* r2 = 2 b */
	ldrh	r3, [r7, r2]		/* the ROM tile */
	lsls	r3, r3, #1
	ldr	r1, [r0, #T_MAP4]
	adds	r3, r3, r1
	movs	r1, #1
	strh	r1, [r3]		/* ROM->RAM: not resident */
	lsls	r3, r6, #16
	bmi	.Lrel_merge		/* the partner is a free single: the pair is whole again */
	/* push_c(b) */
	ldr	r3, [r0, #T_META]
	ldrh	r1, [r3, #HEAD_C]
	movs	r5, #128
	lsls	r5, r5, #8
	orrs	r5, r1
	strh	r5, [r4, r2]		/* LINK(old head) */
	movs	r5, #0
	mvns	r5, r5
	strh	r5, [r7, r2]		/* no prev */
	lsrs	r5, r1, #11
	bne	2f			/* the old head was END */
	lsls	r1, r1, #1
	lsrs	r5, r2, #1
	strh	r5, [r7, r1]		/* the old head's prev: b */
2:	lsrs	r2, r2, #1
	strh	r2, [r3, #HEAD_C]
	movs	r0, #2			/* AGB_VERB_RELEASED */
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
.Lrel_merge:
	/* unlink_c(partner): r6 = LINK(next), prev in r2r[partner] */
	ldrh	r3, [r7, r5]		/* prev */
	lsls	r1, r6, #17
	lsrs	r1, r1, #17		/* next */
	adds	r5, r3, #1
	lsrs	r5, r5, #16
	beq	3f			/* prev is a block */
	ldr	r5, [r0, #T_META]
	strh	r1, [r5, #HEAD_C]
	b	4f
3:	lsls	r5, r3, #1
	strh	r6, [r4, r5]		/* refc[prev] = LINK(next): the partner's own word */
4:	lsrs	r5, r1, #11
	bne	5f			/* next is END */
	lsls	r1, r1, #1
	strh	r3, [r7, r1]		/* r2r[next] = prev */
5:	lsrs	r2, r2, #2
	lsls	r2, r2, #2		/* 2 (b & ~1) */
	/* A 4bpp tile's pair is in the shared half, where 4bpp tiles live: list-a. */
	ldr	r3, [r0, #T_META]
	lsrs	r5, r2, #1
	b	.Lpush_head

.Lunref_not4:
	cmp	r3, #8
	bne	.Lunref_c
	/* An 8bpp tile: an even block whose partner says TAIL8; else nothing is released. */
	lsrs	r2, r1, #1
	bcs	.Lret0
	push	{r4, r5, r6, r7, lr}
	ldr	r4, [r0, #T_REFC]
	lsls	r2, r1, #1		/* r2 = 2 b */
	adds	r3, r2, #2
	ldrh	r6, [r4, r3]
	adds	r3, r6, #2
	lsls	r3, r3, #16		/* 0 only for TAIL8, 0xFFFE */
	bne	.Lrel_none
	ldr	r7, [r0, #T_R2R]
	ldrh	r3, [r7, r2]		/* the ROM tile */
	lsls	r3, r3, #1
	ldr	r1, [r0, #T_MAP8]
	movs	r6, #1
	strh	r6, [r1, r3]		/* ROM->RAM: not resident */
	/* push_pair(e = r2 / 2): list-a in the shared half, list-b above it */
	ldr	r3, [r0, #T_META]
	ldr	r1, [r0, #T_SHARED]
	lsrs	r5, r2, #1
	cmp	r5, r1
	bcc	.Lpush_head
	adds	r3, r3, #HEAD_B
.Lpush_head:
	ldrh	r1, [r3]
	movs	r6, #128
	lsls	r6, r6, #8
	orrs	r6, r1
	strh	r6, [r4, r2]		/* LINK(old head) */
	adds	r2, r2, #2
	movs	r6, #2
	mvns	r6, r6			/* PAIR_TAIL: 0xFFFD */
	strh	r6, [r4, r2]
	strh	r5, [r3]
	movs	r0, #2			/* AGB_VERB_RELEASED */
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
.Lrel_none:
	movs	r0, #0
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
.Lret0:
	movs	r0, #0
	bx	lr
.Lunref_c:
	push	{r4, lr}
	bl	agb_tiles_unref_slow_c
	pop	{r4}
	pop	{r1}
	bx	r1
	.size	agb_tiles_unref_slow, .-agb_tiles_unref_slow

#endif
