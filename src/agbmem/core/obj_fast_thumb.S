/* obj_fast_thumb.S — obj-fast's alloc in Thumb for the GBA's ROM placement.
 *
 * GCC keeps some ten values live across obj_fast.c's alloc and its level update, so a third of
 * its ~100 Thumb instructions move values through r8-r11 and the stack; each is a 16-bit fetch
 * from the cartridge (2 cycles at WAITCNT 4317h). By hand the path fits r0-r7 with the result in
 * ip, in about 70 instructions.
 *
 * agb_obj_fast_alloc here serves what obj_fast.c's fast path serves - a sprite shape (a power of
 * two of n <= 32 blocks with no align above it), a strip of 3, 6, 12 or 24 blocks and the 8bpp
 * one-block tile - with exactly its decisions and pool writes (the GBA/host equivalence test
 * compares every address, failure and the final map with the C on the host): the first word of
 * the request's summary level, its lowest all-free field, the free and start words, then the
 * word's level update (alloc_relevel): the wholly used / wholly free masks, one test of level
 * count - 1 and, when the word lost levels, the binary search of levels for its new count and an
 * unrolled flip of the summaries in between. Everything else goes to the C
 * (agb_obj_fast_thumb_alloc_general). Returns use pop {rN}; bx rN, so ARM callers come back in
 * ARM state. */
#include "obj_fast_thumb.h"

#if AGB_OBJ_FAST_THUMB

	.syntax unified
	.thumb

#define LEVELS 12
#define EVEN 1

/* Z clear when word value r5 holds level \j (table at r6): the zero-field test of obj_fast.c's
 * has_field, (~x - lo) & x & hi != 0, with ~x - lo computed as -(x + lo + 1). r2, r3 clobbered. */
.macro HAS j
	ldr	r2, [r6, #(T_LVL + 8 * \j)]
	ldr	r3, [r6, #(T_LVL + 8 * \j + 4)]
	adds	r2, r5
	adds	r2, #1
	rsbs	r2, r2, #0
	ands	r3, r5
	tst	r3, r2
.endm

/* Flips summary level \i + c (r0 = state + 4c) of the word bit r4. */
.macro FLIP i
	ldr	r3, [r0, #(S_SUM + 4 * \i)]
	eors	r3, r4
	str	r3, [r0, #(S_SUM + 4 * \i)]
.endm

	.section .text.agb_obj_fast_thumb, "ax", %progbits
	.align	2
	.global	agb_obj_fast_alloc
	.type	agb_obj_fast_alloc, %function
	.thumb_func
/* uint32_t agb_obj_fast_alloc(agb_obj_fast *h, uint32_t size, uint32_t align, uint32_t *granted) */
agb_obj_fast_alloc:
	push	{r4, r5, r6, r7, lr}
	movs	r4, r1
	adds	r4, #31
	lsrs	r4, r4, #5		@ r4 = n = (size + 31) / 32 (wrapping as the C)
	subs	r5, r4, #1
	cmp	r5, #31
	bhi	.Lbig_t			@ n == 0 or n > 32
	ldr	r6, [r0, #S_TAB]	@ r6 = tables
	adds	r7, r6, r4
	adds	r7, #T_LEVEL_OF_N
	ldrb	r7, [r7]		@ r7 = j = level_of_n[n]
	lsls	r5, r4, #5
	cmp	r2, r5
	bhi	.Lalign			@ align > n * 32
.Llevel:
	cmp	r7, #LEVELS
	bhs	.Lgeneral
	lsls	r5, r7, #2
	adds	r5, r0
	ldr	r5, [r5, #S_SUM]
	ldr	r1, [r0, #S_PART]
	ands	r5, r1
	ldr	r1, [r0, #S_FULL]
	orrs	r5, r1			@ r5 = cand = (sum[j] & part) | full
	beq	.Lnull
	lsls	r1, r4, #5
	str	r1, [r3]		@ *granted = n * 32
	subs	r4, #1			@ r4 = n - 1
	rsbs	r1, r5, #0
	ands	r5, r1			@ r5 = lowest candidate word's bit
	ldr	r1, [r6, #T_DEBRUIJN]
	muls	r1, r5
	lsrs	r1, r1, #27
	ldrb	r1, [r6, r1]		@ r1 = w
	ldr	r2, [r0, #S_FREE]
	lsls	r3, r1, #2
	adds	r2, r3			@ r2 = address of free[w]
	ldr	r3, [r2]		@ r3 = f
	lsls	r7, r7, #3
	adds	r7, r6
	ldr	r5, [r7, #T_LVL]	@ lo of level j
	ldr	r7, [r7, #(T_LVL + 4)]	@ hi
	adds	r5, r3
	adds	r5, #1
	rsbs	r5, r5, #0		@ ~f - lo
	ands	r5, r7
	ands	r5, r3			@ r5 = t: the top block of every all-free field
	rsbs	r7, r5, #0
	ands	r5, r7			@ r5 = lb: the lowest field's top block
	movs	r7, r5
	lsrs	r7, r4			@ r7 = sb = lb >> (n - 1): its first block
	lsls	r5, r5, #1
	subs	r5, r7
	eors	r5, r3			@ r5 = nf = f ^ ((lb << 1) - sb)
	str	r5, [r2]
	ldr	r2, [r0, #S_START]
	lsls	r4, r1, #2
	adds	r2, r4
	ldr	r4, [r2]
	orrs	r4, r7
	str	r4, [r2]		@ start[w] |= sb
	ldr	r2, [r6, #T_DEBRUIJN]
	muls	r2, r7
	lsrs	r2, r2, #27
	ldrb	r2, [r6, r2]		@ block of sb within the word
	lsls	r4, r1, #5
	adds	r2, r4
	lsls	r2, r2, #5
	ldr	r4, [r0, #S_ARENA]
	adds	r2, r4
	mov	ip, r2			@ ip = the address returned
.Lrelevel:
	/* alloc_relevel(st, w, bit, f, nf): r0 state, r1 w, r3 f, r5 nf, r6 tables */
	movs	r4, #1
	lsls	r4, r1			@ r4 = bit
	cmp	r5, #0
	beq	.Lused
	adds	r2, r3, #1
	bne	.Lcount			@ f was not wholly free
	ldr	r2, [r0, #S_FULL]
	bics	r2, r4
	str	r2, [r0, #S_FULL]
	ldr	r2, [r0, #S_PART]
	orrs	r2, r4
	str	r2, [r0, #S_PART]
.Lcount:
	adds	r1, r0
	adds	r1, #S_CNT		@ r1 = &cnt[w]
	ldrb	r7, [r1]		@ r7 = k, the old count
	lsls	r2, r7, #3
	adds	r2, r6
	ldr	r3, [r2, #(T_LVL - 8)]
	ldr	r2, [r2, #(T_LVL - 4)]
	adds	r3, r5
	adds	r3, #1
	rsbs	r3, r3, #0
	ands	r2, r5
	tst	r2, r3
	beq	.Lsearch		@ level k - 1 lost
.Lret:
	mov	r0, ip
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1

.Lused:	/* the word is wholly used now: both masks drop it, its count stays */
	ldr	r2, [r0, #S_PART]
	bics	r2, r4
	str	r2, [r0, #S_PART]
	ldr	r2, [r0, #S_FULL]
	bics	r2, r4
	str	r2, [r0, #S_FULL]
	b	.Lret

.Lalign: /* align > n * 32: only one block at an even index stays here */
	cmp	r4, #1
	bne	.Lgeneral
	cmp	r2, #64
	bne	.Lgeneral
	movs	r7, #EVEN
	b	.Llevel

.Lnull:	/* no word holds the level */
	movs	r0, #0
	str	r0, [r3]
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1

.Lgeneral: /* r0-r3 are still the arguments */
	bl	agb_obj_fast_thumb_alloc_general
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1

.Lbig_t:
	b	.Lbig

.Lsearch: /* levels(): the binary search of obj_fast.c (x in r5 holds c0 and not c5) -> r2 = c */
	HAS	5
	beq	.Lb_low
	HAS	8
	beq	.Lb_mid
	HAS	9
	beq	.Lc9
	HAS	10
	beq	.Lc10
	movs	r2, #11
	b	.Lflip
.Lc10:	movs	r2, #10
	b	.Lflip
.Lc9:	movs	r2, #9
	b	.Lflip
.Lb_mid:
	HAS	6
	beq	.Lc6
	HAS	7
	beq	.Lc7
	movs	r2, #8
	b	.Lflip
.Lc7:	movs	r2, #7
	b	.Lflip
.Lc6:	movs	r2, #6
	b	.Lflip
.Lb_low:
	HAS	2
	beq	.Lb_one
	HAS	3
	beq	.Lc3
	HAS	4
	beq	.Lc4
	movs	r2, #5
	b	.Lflip
.Lc4:	movs	r2, #4
	b	.Lflip
.Lc3:	movs	r2, #3
	b	.Lflip
.Lb_one:
	HAS	1
	beq	.Lc1
	movs	r2, #2
	b	.Lflip
.Lc1:	movs	r2, #1
.Lflip:	/* cnt[w] = c (r2, r1 = &cnt[w]); the levels between the old count k (r7) and c flip
	 * (relevel's flip_range): d = |k - c| (0..11) flips from the lower one up, entered at the
	 * right point of an unrolled sequence. r0 state, r4 the word's bit. An alloc's count only
	 * falls (k > c), so the other order is out of line. */
	strb	r2, [r1]
	cmp	r7, r2
	bls	.Lflip_up
.Lflip_down:
	subs	r7, r2			@ d
	lsls	r2, r2, #2
	adds	r0, r2			@ r0 = state + 4 * lower
	lsls	r2, r7, #1
	lsls	r7, r7, #2
	adds	r7, r2			@ three 2-byte instructions per flip
	adr	r2, .Lflipped
	subs	r2, r7
	adds	r2, #1			@ stay in Thumb
	bx	r2
.Lflip_up: /* a free's count rose (or stayed) */
	beq	.Lflipped
	movs	r3, r7
	movs	r7, r2
	movs	r2, r3
	b	.Lflip_down
	.align	2
	nop				@ (never run: puts .Lflipped on a word for adr)
.Lflips:
	FLIP	10
	FLIP	9
	FLIP	8
	FLIP	7
	FLIP	6
	FLIP	5
	FLIP	4
	FLIP	3
	FLIP	2
	FLIP	1
	FLIP	0
.Lflipped:
	b	.Lret

.Lgeneral_w:
	bl	agb_obj_fast_thumb_alloc_general
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1

.Lbig:	/* n == 0 or n > 32; r0-r3 are still the arguments */
	ldr	r5, [r0, #S_NBLOCKS]
	lsls	r5, r5, #5
	cmp	r1, r5
	bhi	.Lgeneral_w		@ past the arena (or size 0 - 31 wrapped): the C refuses
	cmp	r4, #0
	beq	.Lgeneral_w
	cmp	r4, #48
	beq	.Lstrip48
	subs	r5, r4, #1
	tst	r5, r4
	bne	.Lgeneral_w		@ not a power of two
	lsls	r5, r4, #5
	cmp	r2, r5
	bhi	.Lgeneral_w		@ align above the size
	/* alloc_slow's whole words: q = n / 32 wholly free words at a multiple of q, the lowest
	 * by the zero-field test of class log2 q on the wholly-free summary. */
	lsrs	r5, r4, #5		@ r5 = q (2..32)
	ldr	r6, [r0, #S_TAB]
	ldr	r7, [r6, #T_DEBRUIJN]
	muls	r7, r5
	lsrs	r7, r7, #27
	ldrb	r7, [r6, r7]		@ r7 = log2 q
	lsls	r2, r7, #1		@ its level: 2 log2 q, c5 is 11
	cmp	r7, #5
	bne	1f
	movs	r2, #11
1:	lsls	r2, r2, #3
	adds	r2, r6
	ldr	r1, [r0, #S_PART]
	ldr	r7, [r0, #(S_SUM + 4 * 11)]
	ands	r7, r1
	ldr	r1, [r0, #S_FULL]
	orrs	r7, r1			@ r7 = wholly free words (SUM_LD of c5)
	ldr	r1, [r2, #T_LVL]
	ldr	r2, [r2, #(T_LVL + 4)]
	adds	r1, r7
	adds	r1, #1
	rsbs	r1, r1, #0
	ands	r1, r2
	ands	r1, r7			@ r1 = t
	beq	.Lnull_w
	rsbs	r2, r1, #0
	ands	r1, r2			@ lb
	subs	r5, #1
	movs	r2, r1
	lsrs	r2, r5			@ sb = lb >> (q - 1)
	lsls	r1, r1, #1
	subs	r1, r2
	ldr	r7, [r0, #S_FULL]
	eors	r7, r1
	str	r7, [r0, #S_FULL]	@ the q words are no longer wholly free
	ldr	r7, [r6, #T_DEBRUIJN]
	muls	r7, r2
	lsrs	r7, r7, #27
	ldrb	r7, [r6, r7]		@ r7 = w
	ldr	r1, [r0, #S_FREE]
	lsls	r2, r7, #2
	adds	r1, r2
	adds	r5, #1
	movs	r2, #0
2:	stmia	r1!, {r2}		@ free[w .. w+q-1] = 0
	subs	r5, #1
	bne	2b
	ldr	r1, [r0, #S_START]
	lsls	r2, r7, #2
	adds	r1, r2
	ldr	r2, [r1]
	movs	r5, #1
	orrs	r2, r5
	str	r2, [r1]		@ start[w] |= 1
	lsls	r2, r4, #5
	str	r2, [r3]		@ *granted = n * 32
	lsls	r7, r7, #10
	ldr	r0, [r0, #S_ARENA]
	adds	r0, r7
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1

.Lstrip48: /* alloc_word_and_part for 48 blocks: an even wholly free word w whose next word
	    * holds P16 (its first 16 blocks free); the lowest such w fits. */
	movs	r5, #128
	lsls	r5, r5, #4
	cmp	r2, r5
	bhi	.Lgeneral_w		@ align above 64 blocks
	ldr	r1, [r0, #S_PART]
	ldr	r2, [r0, #S_FULL]
	ldr	r5, [r0, #(S_SUM + 4 * 11)]
	ands	r5, r1
	orrs	r5, r2			@ wholly free words
	ldr	r6, [r0, #(S_SUM + 4 * 9)]
	ands	r6, r1
	orrs	r6, r2			@ words holding P16
	lsrs	r6, r6, #1
	ands	r5, r6
	ldr	r6, [r0, #S_TAB]
	ldr	r1, [r6, #(T_LVL + 8 * EVEN)]	@ 0x55555555: even words
	ands	r5, r1
	beq	.Lnull_w
	movs	r1, #192
	lsls	r1, r1, #3
	str	r1, [r3]		@ *granted = 48 * 32
	rsbs	r1, r5, #0
	ands	r5, r1			@ r5 = w's bit
	ldr	r1, [r6, #T_DEBRUIJN]
	muls	r1, r5
	lsrs	r1, r1, #27
	ldrb	r1, [r6, r1]		@ r1 = w
	ldr	r2, [r0, #S_FULL]
	eors	r2, r5
	str	r2, [r0, #S_FULL]	@ w is wholly used now (its count stays at 9)
	ldr	r2, [r0, #S_START]
	lsls	r3, r1, #2
	adds	r2, r3
	ldr	r3, [r2]
	movs	r4, #1
	orrs	r3, r4
	str	r3, [r2]		@ start[w] |= 1
	lsls	r2, r1, #10
	ldr	r3, [r0, #S_ARENA]
	adds	r2, r3
	mov	ip, r2			@ the address returned
	ldr	r2, [r0, #S_FREE]
	lsls	r3, r1, #2
	adds	r2, r3
	movs	r3, #0
	str	r3, [r2]		@ free[w] = 0
	ldr	r3, [r2, #4]		@ r3 = f of word w + 1
	lsrs	r5, r3, #16
	lsls	r5, r5, #16		@ r5 = nf: its first 16 blocks taken
	str	r5, [r2, #4]
	adds	r1, #1
	b	.Lrelevel

.Lnull_w:
	movs	r0, #0
	str	r0, [r3]
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1


	.size	agb_obj_fast_alloc, . - agb_obj_fast_alloc

	.align	2
	.global	agb_obj_fast_free
	.type	agb_obj_fast_free, %function
	.thumb_func
/* void agb_obj_fast_free(agb_obj_fast *h, uint32_t addr): obj_fast.c's free (refusals, the end
 * of the allocation within its first word, relevel with the search and flips above); an
 * allocation that reaches the end of its first word goes to the C (free_long). */
agb_obj_fast_free:
	push	{r4, r5, r6, r7, lr}
	ldr	r2, [r0, #S_ARENA]
	subs	r1, r2			@ off
	lsls	r2, r1, #27
	bne	.Lfdone			@ off the 32-byte grid
	lsrs	r1, r1, #5		@ b
	ldr	r2, [r0, #S_NBLOCKS]
	cmp	r1, r2
	bhs	.Lfdone			@ outside the arena
	lsrs	r2, r1, #5		@ r2 = w
	movs	r3, #31
	ands	r1, r3
	movs	r3, #1
	lsls	r3, r1			@ r3 = lb, the first block's bit
	ldr	r4, [r0, #S_START]
	lsls	r5, r2, #2
	adds	r4, r5			@ r4 = address of start[w]
	ldr	r6, [r4]
	tst	r6, r3
	beq	.Lfdone			@ no allocation starts there
	bics	r6, r3			@ sw
	ldr	r7, [r0, #S_FREE]
	adds	r7, r5			@ r7 = address of free[w]
	ldr	r5, [r7]		@ r5 = f0
	str	r6, [r4]
	orrs	r6, r5
	lsls	r4, r3, #1
	rsbs	r4, r4, #0
	ands	r6, r4			@ y: start or free bits above the first block
	beq	.Lflong
	rsbs	r4, r6, #0
	ands	r6, r4
	subs	r6, r3
	orrs	r5, r6			@ x = f0 | ((y & -y) - lb)
	str	r5, [r7]
	/* relevel(st, w, x), x != 0: r0 state, r2 w, r5 x */
	movs	r4, #1
	lsls	r4, r2			@ r4 = bit
	adds	r1, r0, r2
	adds	r1, #S_CNT
	ldrb	r7, [r1]		@ r7 = the old count
	adds	r3, r5, #1
	bne	.Lfpart
	ldr	r3, [r0, #S_PART]	@ wholly free now: count FULL_STALE
	bics	r3, r4
	str	r3, [r0, #S_PART]
	ldr	r3, [r0, #S_FULL]
	orrs	r3, r4
	str	r3, [r0, #S_FULL]
	movs	r2, #9
	b	.Lflip
.Lfpart:
	ldr	r3, [r0, #S_PART]
	orrs	r3, r4
	str	r3, [r0, #S_PART]
	ldr	r3, [r0, #S_FULL]
	bics	r3, r4
	str	r3, [r0, #S_FULL]
	ldr	r6, [r0, #S_TAB]
	b	.Lsearch
.Lflong:
	movs	r1, r2
	movs	r2, r5
	bl	agb_obj_fast_thumb_free_long	@ (st, w, f0, lb)
.Lfdone:
	pop	{r4, r5, r6, r7}
	pop	{r1}
	bx	r1
	.size	agb_obj_fast_free, . - agb_obj_fast_free

#endif
