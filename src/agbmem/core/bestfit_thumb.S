/* bestfit_thumb.S — bestfit's hot paths in Thumb for the GBA's ROM placement.
 *
 * GCC makes some 150 Thumb instructions of bestfit.c's alloc_fast and 200 of free_fast: it keeps
 * a dozen values live, so half of them go through r8-r11 and the stack, and every one of those
 * moves is a 16-bit fetch from the cartridge. Written by hand the same paths fit r0-r7 with the
 * control structure in lr and a saved argument on the stack, in about half the instructions.
 *
 * They make exactly bestfit.c's decisions and pool writes (the GBA/host equivalence test compares
 * every address, failure and the final map with the C on the host):
 *  - agb_bestfit_thumb_alloc: a request with align <= 8 from the smallest non-empty bin at or
 *    above it when it is 1..2048 bytes (the bin's own bitmap word, then the summary), or, when
 *    no bin fits and no long free run exists, from the start of the top run; everything else
 *    goes to the C.
 *  - agb_bestfit_thumb_free: a short used run (its map entries within the window of the halfword
 *    holding its first entry and the next), merged with short free neighbours into a bin or, at
 *    the pool's end, into the top run; a long used run likewise; the refusal of bad addresses
 *    (src/core/map2.h) first; a merge longer than AGB_BESTFIT_SMALL blocks goes to its class
 *    list here too (long runs' neighbours unlinked from their bins or classes, the class table
 *    read from IWRAM), or becomes the top run when it ends the pool; only a run at the top
 *    run after a long free left neighbour goes to the C.
 * Register use: lr holds the control structure (t->ctrl), r6 the blocks' base (t->blocks); the
 * arguments are pushed with the callee-saved registers and read back from the stack (the free
 * pushes t->blocks with them, in the alignment slot). Returns use pop {rN}; bx rN, so ARM
 * callers come back in ARM state. */
#include "bestfit_thumb.h"

#if AGB_BESTFIT_THUMB

	.syntax unified
	.thumb

#if (C_LHEADS & 7) != 0
#error "LHEAD builds C_LHEADS as (C_LHEADS >> 3) << 3"
#endif

#define NIL 0xFFFF
#define N_PREV 2
#define N_SIZE 6

/* The constants the paths need sit in IWRAM (agb_bestfit_thumb_k, .data): from ROM a literal
 * costs a non-sequential cartridge read and breaks the sequential opcode fetches after it, from
 * IWRAM a load is 3 cycles. Their address is not a literal either: it is the pool state's consts
 * (T_CONSTS, set by agb_bestfit_init), read where the paths have t at hand. In mGBA the ROM literal
 * cost some 11 cycles a call, the load from the state (in IWRAM in the bench ROM) 2. */
#define K_LEN 0		/* 32 bytes: run length by the de Bruijn index of its last entry's bit (at
			 * offset 0: every free reads it, and then with no add for the offset) */
#define K_TABLE 32	/* the de Bruijn table, 32 bytes (the alloc's LOWBIT: one add) */
#define K_DEBRUIJN 64
#define K_EVEN 68	/* 0x55555555: the low bit of every 2-bit map entry */
#define K_CLASS 72	/* 2 bits per pair left | entry << 2 of map entries: free's .Lf_idx */
#define K_GATE 76	/* bestfit.c BF_LEN_GATE: STARTS_LONG's pairs (entry 7, next halfword's 0) */
#define K_LCLASS 80	/* the address of agb_bestfit_long_class_of (IWRAM .data, bestfit.c): the
			 * free's long merges */

/* Lowest set bit of \r (0 when \r is 0) into \r, through the de Bruijn table at \k (the
 * constants + K_TABLE); \t is clobbered. */
.macro LOWBIT r, t, k
	rsbs	\t, \r, #0
	ands	\r, \t
	ldr	\t, [\k, #(K_DEBRUIJN - K_TABLE)]
	muls	\r, \t, \r
	lsrs	\r, \r, #27
	ldrb	\r, [\k, \r]
.endm

/* Sets (op orrs) or clears (op bics) the summary bit of the bitmap word at \waddr (ctrl + 4 *
 * word index); \base receives ctrl, \idx and \bit are clobbered (\idx may be \waddr). */
.macro SUMMARY_BIT op, base, waddr, idx, bit
	mov	\base, lr
	subs	\idx, \waddr, \base
	lsrs	\idx, \idx, #2
	movs	\bit, #1
	lsls	\bit, \bit, \idx
	ldrh	\idx, [\base, #C_SUMMARY]
	\op	\idx, \bit
	strh	\idx, [\base, #C_SUMMARY]
.endm

/* bit_clear: marks the bin of size \size (1..256) empty in its bitmap word. The summary bit is
 * kept lazily: left set when the word empties (bestfit.c bit_clear), .La_summary clears a stale
 * one it comes to. The bin's bit, 1 << (k & 31), is 1 rotated right by -k: a rotation takes its
 * amount modulo 32. Clobbers \size, \t1..\t3. */
.macro BIT_CLEAR size, t1, t2, t3
	subs	\t1, \size, #1		/* k */
	lsrs	\t2, \t1, #5
	lsls	\t2, \t2, #2
	add	\t2, lr			/* ctrl + 4 * (k >> 5): its bitmap word at C_BITMAP */
	ldr	\t3, [\t2, #C_BITMAP]
	rsbs	\size, \t1, #0
	movs	\t1, #1
	rors	\t1, \size		/* the bin's bit */
	bics	\t3, \t1
	str	\t3, [\t2, #C_BITMAP]
.endm

/* The links' part of a bin unlink for a run \x of \size blocks with company in its bin, \prev
 * and \next its neighbours: prev.next = next, next.prev = prev; then \t receives the bin's head
 * (at \h) and is compared with x (eq: x was the head, which the caller makes next). Clobbers \h,
 * \t (\t may be \prev). */
.macro BIN_RELINK x, size, prev, next, h, t
	lsls	\h, \prev, #3
	strh	\next, [r6, \h]		/* prev.next = next */
	lsls	\h, \next, #3
	adds	\h, #N_PREV
	strh	\prev, [r6, \h]		/* next.prev = prev */
	lsls	\h, \size, #1
	add	\h, lr			/* the bin's head at C_HEADS - 2 */
	ldrh	\t, [\h, #(C_HEADS - 2)]
	cmp	\t, \x
.endm

/* bin_unlink: takes short free run \x of \size blocks out of its bin: next first, prev only when
 * x is not the bin's only run. Clobbers \size, \t1..\t3. */
.macro BIN_UNLINK x, size, t1, t2, t3
	lsls	\t3, \x, #3
	ldrh	\t1, [r6, \t3]		/* next */
	cmp	\t1, \x
	bne	2f
	lsls	\t2, \size, #1		/* x was the bin's only run: its head becomes ~x (empty) */
	add	\t2, lr
	mvns	\t1, \x
	strh	\t1, [\t2, #(C_HEADS - 2)]
	BIT_CLEAR \size, \t1, \t2, \t3
	b	3f
2:
	adds	\t3, #N_PREV
	ldrh	\t2, [r6, \t3]		/* prev */
	BIN_RELINK \x, \size, \t2, \t1, \t3, \t2
	bne	3f
	strh	\t1, [\t3, #(C_HEADS - 2)]
3:
.endm

/* BIT_CLEAR in three registers: the bit is made before the word is read into \size. */
.macro BIT_CLEAR3 size, t1, t2
	subs	\t1, \size, #1		/* k */
	lsrs	\t2, \t1, #5
	lsls	\t2, \t2, #2
	add	\t2, lr			/* ctrl + 4 * (k >> 5): its bitmap word at C_BITMAP */
	rsbs	\size, \t1, #0
	movs	\t1, #1
	rors	\t1, \size		/* the bin's bit */
	ldr	\size, [\t2, #C_BITMAP]
	bics	\size, \t1
	str	\size, [\t2, #C_BITMAP]
.endm

/* BIN_UNLINK's arm for a run x with company in its bin (\t1 its next, \t3 8x), out of line:
 * comes back to \back. Clobbers \t2, \t3. */
.macro BIN_UNLINK_COMPANY x, size, t1, t2, t3, back
	adds	\t3, #N_PREV
	ldrh	\t2, [r6, \t3]		/* prev */
	BIN_RELINK \x, \size, \t2, \t1, \t3, \t2
	bne	\back
	strh	\t1, [\t3, #(C_HEADS - 2)]
	b	\back
.endm

/* bin_push: writes short free run \x of \size blocks (its tags, first and last block) and appends
 * it to its bin (first in, first out). An empty bin's head is NIL (bestfit.c bin_push): the head
 * tells it, and only then are the bitmap words read. BP_HEAD writes the tags and reads the head
 * (\t0 the run's first block, \t1 k = size - 1, \t2 ctrl + 2k, \t3 the head) and branches to
 * \empty for an empty bin; BP_APPEND appends to a non-empty one, BP_FIRST starts an empty one.
 * BIN_PUSH is the three in a row. Clobbers \size, \t0..\t4. */
.macro BP_HEAD x, size, t0, t1, t2, t3, t4, empty, cond=ne
	strh	\size, [\t0, #N_SIZE]
	subs	\t1, \size, #1		/* k */
	lsls	\t2, \t1, #3
	adds	\t2, \t0
	strh	\size, [\t2, #N_SIZE]	/* its last block's tag */
	lsls	\t2, \t1, #1
	add	\t2, lr			/* the bin's head at C_HEADS */
	ldrh	\t3, [\t2, #C_HEADS]	/* first (bit 15 set: an empty bin; indices are below 2^15) */
	lsrs	\t4, \t3, #15
	b\cond	\empty
.endm

.macro BP_APPEND x, size, t0, t3, t4
	lsls	\t4, \t3, #3
	adds	\t4, r6			/* first's block */
	ldrh	\size, [\t4, #N_PREV]	/* last (the head's prev) */
	strh	\t3, [\t0]		/* x.next = first */
	strh	\size, [\t0, #N_PREV]	/* x.prev = last */
	lsls	\size, \size, #3
	strh	\x, [r6, \size]		/* last.next = x */
	strh	\x, [\t4, #N_PREV]	/* first.prev = x */
.endm

.macro BP_FIRST x, size, t0, t1, t2, t3, t4
	lsls	\t3, \x, #16		/* the run alone, linked to itself */
	orrs	\t3, \x
	str	\t3, [\t0]
	strh	\x, [\t2, #C_HEADS]
	lsrs	\t2, \t1, #5
	lsls	\t2, \t2, #2
	add	\t2, lr			/* ctrl + 4 * (k >> 5): its bitmap word at C_BITMAP */
	ldr	\t3, [\t2, #C_BITMAP]
	rsbs	\size, \t1, #0
	movs	\t4, #1
	rors	\t4, \size		/* the bin's bit (BIT_CLEAR) */
	cmp	\t3, #0
	bne	5f
	SUMMARY_BIT orrs, \t0, \t2, \t1, \size	/* the word was empty: set its summary bit */
5:
	orrs	\t3, \t4
	str	\t3, [\t2, #C_BITMAP]
.endm

/* BP_FIRST followed by free's return, the summary bit's update out of line after it (with its
 * own return). */
.macro BP_FIRST_RET x, size, t0, t1, t2, t3, t4
	lsls	\t3, \x, #16		/* the run alone, linked to itself */
	orrs	\t3, \x
	str	\t3, [\t0]
	strh	\x, [\t2, #C_HEADS]
	lsrs	\t2, \t1, #5
	lsls	\t2, \t2, #2
	add	\t2, lr			/* ctrl + 4 * (k >> 5): its bitmap word at C_BITMAP */
	ldr	\t3, [\t2, #C_BITMAP]
	rsbs	\size, \t1, #0
	movs	\t4, #1
	rors	\t4, \size		/* the bin's bit (BIT_CLEAR) */
	cmp	\t3, #0
	beq	7f
	orrs	\t3, \t4
	str	\t3, [\t2, #C_BITMAP]
	F_RET
7:
	SUMMARY_BIT orrs, \t0, \t2, \t1, \size	/* the word was empty: set its summary bit */
	orrs	\t3, \t4
	str	\t3, [\t2, #C_BITMAP]
	F_RET
.endm

.macro BIN_PUSH x, size, t0, t1, t2, t3, t4
	lsls	\t0, \x, #3
	adds	\t0, \t0, r6		/* the run's first block */
	BP_HEAD	\x, \size, \t0, \t1, \t2, \t3, \t4, 4f
	BP_APPEND \x, \size, \t0, \t3, \t4
	b	6f
4:
	BP_FIRST \x, \size, \t0, \t1, \t2, \t3, \t4
6:
.endm

/* The end of free's single-merge moves (.Lf_m_l_only, .Lf_mr_known): the tags of the merged run
 * of \total blocks whose first block is \blk, then in the bitmap word both bins share, the bit
 * of \sold (the neighbour's size: its bin's only run, so the bit is set) cleared and the merged
 * run's (clear: its bin is empty) set. The merged run is \len blocks longer and its bit lies in
 * the same word, so it is the neighbour's shifted left by \len. Returns. Clobbers r1, r3, \sold,
 * \word. */
.macro MOVE_TAIL blk, sold, total, len, word
	lsls	r3, \total, #3
	subs	r3, #(8 - N_SIZE)	/* from the first block to the last one's tag */
	strh	\total, [\blk, #N_SIZE]
	strh	\total, [\blk, r3]
	subs	r3, \sold, #1		/* k of the neighbour's bin */
	lsrs	r1, r3, #5
	lsls	r1, r1, #2
	add	r1, lr			/* ctrl + 4 * (k >> 5): the bitmap word */
	ldr	\word, [r1, #C_BITMAP]
	rsbs	r3, r3, #0
	movs	\sold, #1
	rors	\sold, r3		/* the neighbour's bin's bit */
	bics	\word, \sold
	lsls	\sold, \sold, \len	/* the merged run's bin's bit */
	orrs	\word, \sold
	str	\word, [r1, #C_BITMAP]
	F_RET
.endm

/* merge_clear: every entry of the short run being freed becomes E_FREE (r3 its clear mask in the
 * window r6, whose low half is at r5). Both halves are stored, the high one whether the run
 * reaches it or not (then it is stored as the entry read it: the map halfword after b's, or the
 * halfword after the map, which the entry read too): a store costs less from ROM than the test
 * and the taken branch around it. */
.macro MERGE_CLEAR
	bics	r6, r3
	strh	r6, [r5]
	lsrs	r6, r6, #16
	strh	r6, [r5, #2]
.endm

/* ls, the free left neighbour's length, into r0: its tag in the last block before b's (b's
 * block address is kept at [sp, #4]). LEFT_TAG and TOP_LEFT_TAG read it this way too. */
.macro LEFT_TAG_LOAD
	ldr	r0, [sp, #4]
	subs	r0, #(8 - N_SIZE)
	ldrh	r0, [r0]
.endm

/* The merges' shared step: blocks into r6, then to \long when the merged run (total, r5) is
 * longer than SMALL blocks. Each merge arm keeps its own copy so that none takes a branch to
 * reach it. */
.macro MERGE_SIZE_TEST long
	ldr	r6, [sp, #8]
	subs	r1, r5, #1
	cmp	r1, #255
	bhi	\long
.endm

/* free's return. */
.macro F_RET
	add	sp, #12
	pop	{r4, r5, r6, r7}
	pop	{r3}
	bx	r3
.endm

/* starts_long: refused (a branch to \refuse) when the halfword before b's holds a long run's
 * start, so that b's (the window's low half, r6) is its length halfword (map2.h
 * agb_map2_starts_long). Only the pairs (entry 7, next halfword's entry 0) of K_GATE can show a
 * length halfword (bestfit.c BF_LEN_GATE): for the others, most frees, the load is skipped and
 * STARTS_LONG falls through (a taken branch costs some six cycles from ROM); a pair of the gate
 * branches to \gate, STARTS_LONG_GATE out of line, which comes back to \back unless refused.
 * Expects r2 the constants, r4 b, r5 a0; clobbers r0, r1, r3. */
.macro STARTS_LONG gate
	lsls	r0, r6, #14
	lsrs	r0, r0, #28		/* entry 7 | the next halfword's entry 0 << 2 */
	ldr	r1, [r2, #K_GATE]
	lsrs	r1, r1, r0
	lsrs	r1, r1, #1
	bcs	\gate
.endm

.macro STARTS_LONG_GATE back, refuse
	cmp	r4, #8
	blo	\back
	subs	r0, r5, #2
	ldrh	r0, [r0]
	lsrs	r1, r0, #1
	bics	r1, r0
	ldr	r3, [r2, #K_EVEN]
	ands	r1, r3
	ands	r0, r3
	cmp	r1, r0
	bhi	\refuse
	b	\back
.endm

/* long_class: \c receives the class of a long run of \size blocks (SMALL < size < 2^15), the
 * table bestfit.c keeps in IWRAM (agb_bestfit_long_class_of[size >> 7]); \size is kept. The
 * free's only: the table's address comes from the constants (K_LCLASS) through the state at
 * [sp]. */
.macro LONG_CLASS c, size, t
	LCLASS_TABLE \t
	lsrs	\c, \size, #7
	ldrb	\c, [\t, \c]
.endm

/* \t receives the address of agb_bestfit_long_class_of, kept with the constants in IWRAM:
 * three loads from IWRAM cost less than one literal from ROM. In the free only ([sp] is t). */
.macro LCLASS_TABLE t
	ldr	\t, [sp]
	ldr	\t, [\t, #T_CONSTS]
	ldr	\t, [\t, #K_LCLASS]
.endm

/* \h receives the address of long class \c's head (ctrl + C_LHEADS + 2c); \c is kept. */
.macro LHEAD h, c, t
	lsls	\h, \c, #1
	movs	\t, #(C_LHEADS >> 3)
	lsls	\t, \t, #3
	adds	\h, \t
	add	\h, lr
.endm

/* long_unlink: takes long free run \x of \size blocks out of its class list, then goes on after
 * it or (given \done) branches to \done. Clobbers \size, \t1..\t3; keeps \x. */
.macro LONG_UNLINK x, size, t1, t2, t3, done=8f
	LONG_CLASS \t1, \size, \t2
	LONG_UNLINK_C \x, \size, \t1, \t2, \t3, \done
.endm

/* LONG_UNLINK with the run's class already in \t1. */
.macro LONG_UNLINK_C x, size, t1, t2, t3, done=8f
	lsls	\t2, \x, #3
	ldr	\t2, [r6, \t2]		/* next (low half), prev (high half) */
	lsls	\t3, \t2, #16
	lsrs	\t3, \t3, #16		/* next */
	cmp	\t3, \x
	bne	7f
	movs	\t2, #1			/* x was its class's only run: the class bit goes */
	lsls	\t2, \t2, \t1
	mov	\t3, lr
	ldrh	\t1, [\t3, #C_LONG]
	bics	\t1, \t2
	strh	\t1, [\t3, #C_LONG]
	b	\done
7:
	lsrs	\t2, \t2, #16		/* prev */
	lsls	\size, \t2, #3
	strh	\t3, [r6, \size]	/* prev.next = next */
	lsls	\size, \t3, #3
	adds	\size, #N_PREV
	strh	\t2, [r6, \size]	/* next.prev = prev */
	LHEAD	\size, \t1, \t2
	ldrh	\t2, [\size]
	cmp	\t2, \x
	bne	\done
	strh	\t3, [\size]		/* x was the head: next is */
.ifnc \done,8f
	b	\done
.endif
8:
.endm

/* long_push with the run's class already in \c: writes long free run \x of \size blocks (its
 * tags, first and last block) and appends it to its class list, then free's return (each arm
 * its own: an empty class, the commoner, takes no branch). Clobbers \size, \c, \t0, \t2, \t3;
 * keeps \x. */
.macro LONG_PUSH_C_RET x, size, c, t0, t2, t3
	lsls	\t0, \x, #3
	adds	\t0, r6			/* the run's first block */
	strh	\size, [\t0, #N_SIZE]
	subs	\t2, \size, #1
	lsls	\t2, \t2, #3
	adds	\t2, \t0
	strh	\size, [\t2, #N_SIZE]	/* its last block's tag */
	LONG_PUSH_LINK_RET \x, \size, \t0, \c, \t2, \t3
.endm

/* The list part of long_push: \t0 the run's first block, \t1 its class. Clobbers \size,
 * \t1..\t3. */
.macro LONG_PUSH_LINK_RET x, size, t0, t1, t2, t3
	movs	\size, #1
	lsls	\size, \size, \t1		/* the class's bit */
	LHEAD	\t2, \t1, \t3
	mov	\t1, lr
	ldrh	\t3, [\t1, #C_LONG]
	tst	\t3, \size
	bne	5f
	orrs	\t3, \size		/* empty class: the run alone, linked to itself */
	strh	\t3, [\t1, #C_LONG]
	lsls	\t1, \x, #16
	orrs	\t1, \x
	str	\t1, [\t0]
	strh	\x, [\t2]
	F_RET
5:
	ldrh	\t1, [\t2]		/* first */
	lsls	\t3, \t1, #3
	adds	\t3, r6
	ldrh	\size, [\t3, #N_PREV]	/* last (the head's prev) */
	strh	\x, [\t3, #N_PREV]	/* first.prev = x */
	lsls	\t3, \size, #16
	orrs	\t3, \t1
	str	\t3, [\t0]		/* x.next = first, x.prev = last */
	lsls	\size, \size, #3
	strh	\x, [r6, \size]	/* last.next = x */
	F_RET
.endm

/* long_clear: a long used run's first entry (at bit \sh of the window's low half), its length
 * halfword and its last entry become E_FREE (its inner entries are already). Expects r3 end,
 * r5 a0, r6 the window, r7 sh; leaves r5 the map's address, r1 the last entry's halfword's, r6
 * that halfword as written and r0 the last entry's bits in it (3 << 2 (last % 8)). */
.macro LONG_CLEAR
	movs	r0, #3
	lsls	r0, r0, r7
	bics	r6, r0
	strh	r6, [r5]
	movs	r0, #0
	strh	r0, [r5, #2]
	ldr	r0, [sp]
	ldr	r5, [r0, #T_MAP]
	subs	r0, r3, #1
	lsrs	r1, r0, #3
	lsls	r1, r1, #1
	adds	r1, r5
	movs	r6, #7
	ands	r6, r0
	lsls	r6, r6, #1
	movs	r0, #3
	lsls	r0, r0, r6
	ldrh	r6, [r1]
	bics	r6, r0
	strh	r6, [r1]
.endm

/* left_tag: r0 becomes ls, the free left neighbour's size from its tag, or 0 (and a branch to
 * \used) when ip ((left | entry << 2) << 1) says the neighbour is used. Clobbers r1. */
.macro LEFT_TAG used
	movs	r0, #0
	mov	r1, ip
	lsls	r1, r1, #29		/* left's entry (ip's bits 1-2) */
	bne	\used
	LEFT_TAG_LOAD
.endm

/* top_left: ip ((left | entry << 2) << 1) becomes ls, the free left neighbour's size (0: used); a long
 * one leaves the free to the C (.Lf_general). A used one, the commoner, falls through to \back;
 * a free one's tag is TOP_LEFT_TAG's, out of line at \tag, which comes back to \back. Clobbers
 * r0, r1. */
.macro TOP_LEFT tag, back
	movs	r0, #0
	mov	r1, ip
	lsls	r1, r1, #29		/* left's entry (ip's bits 1-2) */
	beq	\tag
\back:
	mov	ip, r0
.endm

.macro TOP_LEFT_TAG back
	LEFT_TAG_LOAD
	subs	r1, r0, #1
	cmp	r1, #255
	bls	\back
	b	.Lf_general		/* a long left neighbour */
.endm

	.section .text.agb_bestfit_thumb_alloc, "ax", %progbits
	.align	2
	.global	agb_bestfit_thumb_alloc
	.type	agb_bestfit_thumb_alloc, %function
/* Far targets of the rare branches, before the entry: the common path falls through. */
.La_big_stub:
	b	.La_big
.La_general_stub:
	b	.La_general
.La_summary_stub:
	b	.La_summary
	.thumb_func
/* uint32_t agb_bestfit_thumb_alloc(void *t, uint32_t size, uint32_t align, uint32_t *granted)
 * Stack: [sp+4] t, [sp+8] size, [sp+12] align, [sp+16] granted. */
agb_bestfit_thumb_alloc:
	push	{r0, r1, r2, r3, r4, r5, r6, r7, lr}
	sub	sp, #4			/* 8-byte aligned for the C calls */
	adds	r4, r1, #7
	lsrs	r4, r4, #3		/* want (0 for size 0 or a size that wraps) */
	subs	r5, r4, #1		/* k: the bin of exactly want blocks */
	cmp	r5, #255
	bhi	.La_big_stub		/* long (or zero) requests */
	cmp	r2, #8
	bhi	.La_general_stub		/* aligned requests */
	ldr	r6, [r0, #T_BLOCKS]
	ldr	r7, [r0, #T_CTRL]
	mov	lr, r7
	lsrs	r2, r5, #5
	lsls	r2, r2, #2
	adds	r2, r7
	ldr	r2, [r2, #C_BITMAP]
	lsls	r1, r5, #27
	lsrs	r1, r1, #27
	lsrs	r2, r2, r1		/* bins k, k+1, ... of k's bitmap word */
	beq	.La_summary_stub
	ldr	r0, [r0, #T_CONSTS]	/* the constants */
	adds	r0, #K_TABLE
	LOWBIT	r2, r1, r0
	adds	r5, r4, r2		/* rsize: the smallest non-empty bin that fits */

/* r4 want, r5 rsize, r6 blocks, lr ctrl: every run of bin rsize is a best fit; take its first. */
.La_pop:
	subs	r5, r5, r4		/* tail: what stays free after the block */
	adds	r0, r5, r4
	lsls	r0, r0, #1
	add	r0, lr
	adds	r0, #(C_HEADS - 2)	/* head of bin rsize */
	ldrh	r7, [r0]		/* x */
	lsls	r1, r7, #3
	ldr	r1, [r6, r1]
	lsrs	r2, r1, #16		/* prev */
	lsls	r1, r1, #16
	lsrs	r1, r1, #16		/* next */
	cmp	r1, r7
	beq	.La_only
	lsls	r3, r2, #3
	strh	r1, [r6, r3]		/* prev.next = next */
	lsls	r3, r1, #3
	adds	r3, #N_PREV
	strh	r2, [r6, r3]		/* next.prev = prev */
	strh	r1, [r0]		/* head = next */
	b	.La_mark
.La_only:
	mvns	r1, r7			/* x was the bin's only run: its head becomes ~x (empty) */
	strh	r1, [r0]
	adds	r0, r5, r4
	BIT_CLEAR r0, r1, r2, r3

/* r7 x, r4 want, r5 tail (blocks left free after the run, or the top run's rest), r6 blocks,
 * lr ctrl: writes the map of used run [x, x+want), whose entries are all E_FREE (those of a free
 * run are), and what follows keeps its E_FREE entries. */
.La_mark:
	ldr	r3, [sp, #16]
	cmp	r3, #0
	beq	1f
	lsls	r2, r4, #3
	str	r2, [r3]		/* *granted */
1:
	adds	r4, r4, r7		/* y = x + want: the first block after the run */
	lsrs	r2, r7, #3
	lsls	r1, r2, #3
	subs	r1, r4, r1		/* (x & 7) + want */
	cmp	r1, #16
	bhi	.La_long
	lsls	r1, r1, #1		/* hi: bit after the run's entries (2..32) */
	lsls	r2, r2, #1
	ldr	r0, [sp, #4]
	ldr	r3, [r0, #T_CONSTS]
	ldr	r0, [r0, #T_MAP]
	adds	r2, r0			/* a: the map halfword of x */
	movs	r0, #7
	ands	r0, r7
	lsls	r0, r0, #1		/* lo */
	ldr	r3, [r3, #K_EVEN]	/* 0x55555555 */
	lsrs	r3, r3, r0
	lsls	r3, r3, r0
	movs	r0, #32
	subs	r0, r0, r1
	lsls	r3, r3, r0
	lsrs	r3, r3, r0		/* entries [x, y) to 1 */
	subs	r1, #1
	movs	r0, #1
	lsls	r0, r0, r1
	orrs	r3, r0			/* and the last to 3: 1...1 3 */
	ldrh	r1, [r2]		/* the run's entries are E_FREE: or them in */
	orrs	r1, r3
	strh	r1, [r2]
	lsrs	r3, r3, #16
	beq	.La_tail
	ldrh	r1, [r2, #2]
	orrs	r1, r3
	strh	r1, [r2, #2]

/* r4 y, r5 tail, r7 x: a tail of 1..256 blocks goes to its bin (a longer one is the top run,
 * already recorded). */
.La_tail:
	subs	r0, r5, #1
	cmp	r0, #255
	bhi	.La_done		/* no tail, or the top run */
	mov	ip, r7
	BIN_PUSH r4, r5, r0, r1, r2, r3, r7
	mov	r7, ip
.La_done:
	lsls	r0, r7, #3
	adds	r0, r6			/* blocks + x * 8 */
.La_ret:
	add	sp, #20
	pop	{r4, r5, r6, r7}
	pop	{r3}
	bx	r3

.La_long:
	subs	r2, r4, r7		/* mark_used(t, x, want) in C */
	movs	r1, r7
	ldr	r0, [sp, #4]
	bl	agb_bestfit_thumb_mark_used
	ldr	r0, [sp, #4]
	ldr	r6, [r0, #T_BLOCKS]
	ldr	r0, [r0, #T_CTRL]
	mov	lr, r0
	b	.La_tail

/* No bin in k's word: the next non-empty word through the summary. */
.La_summary:
	mov	r0, lr
	ldrh	r1, [r0, #C_SUMMARY]
	lsrs	r2, r5, #5
	adds	r2, #1
	lsrs	r1, r1, r2
	lsls	r1, r1, r2		/* words above k's */
	beq	.La_top
	ldr	r3, [sp, #4]
	ldr	r3, [r3, #T_CONSTS]	/* the constants */
	adds	r3, #K_TABLE
	LOWBIT	r1, r2, r3
	lsls	r2, r1, #2
	adds	r2, r0
	ldr	r2, [r2, #C_BITMAP]
	cmp	r2, #0
	beq	.La_summary_stale	/* a word emptied since its summary bit was set */
	LOWBIT	r2, r0, r3
	lsls	r1, r1, #5
	adds	r5, r1, r2
	adds	r5, #1
	b	.La_pop

/* The summary bit of empty word r1 (the summary is kept lazily: BIT_CLEAR) is cleared, and the
 * search goes on through the summary. */
.La_summary_stale:
	movs	r2, #1
	lsls	r2, r2, r1
	ldrh	r1, [r0, #C_SUMMARY]
	bics	r1, r2
	strh	r1, [r0, #C_SUMMARY]
	b	.La_summary

/* No bin fits: with no long free run the request comes off the top run's start (bestfit.c:
 * alloc_long finds no long run, alloc_top). The top run's rest stays the top run when longer
 * than 256 blocks, else it goes to its bin. */
.La_top:
	ldrh	r1, [r0, #C_LONG]
	cmp	r1, #0
	bne	.La_long_run
	ldrh	r7, [r0, #C_TOP]	/* x */
	ldr	r1, [sp, #4]
	ldr	r1, [r1, #T_NBLOCKS]
	subs	r2, r1, r7
	cmp	r2, r4
	blo	.La_general		/* too short (or no top run): the C says AGB_NULL */
	subs	r5, r2, r4		/* the rest */
	subs	r2, r5, #1
	cmp	r2, #255
	bls	1f			/* 1..256 blocks: a bin's, and no top run (n) */
	adds	r1, r7, r4		/* longer: the top run after the block (n when no rest) */
1:
	strh	r1, [r0, #C_TOP]	/* n (no top run) or x + want */
	b	.La_mark

/* A request of more than 256 blocks (or want 0: size 0, or a size that wraps): with align <= 8
 * no bin can hold it, so straight to the top run (or the long runs' search), as bestfit.c
 * alloc_fast does. r0 t, r2 align, r4 want. */
.La_big:
	cmp	r4, #0
	beq	.La_general
	cmp	r2, #8
	bhi	.La_general
	ldr	r6, [r0, #T_BLOCKS]
	ldr	r0, [r0, #T_CTRL]
	mov	lr, r0
	b	.La_top

/* Long free runs exist: the class lists' search and the split in C (bestfit.c alloc_long),
 * without the bin search this path has made already. */
.La_long_run:
	ldr	r0, [sp, #4]
	movs	r1, r4
	ldr	r2, [sp, #16]
	bl	agb_bestfit_thumb_alloc_long
	b	.La_ret

.La_general:
	ldr	r0, [sp, #4]
	ldr	r1, [sp, #8]
	ldr	r2, [sp, #12]
	ldr	r3, [sp, #16]
	bl	agb_bestfit_thumb_alloc_general
	b	.La_ret
	.pool
	.size	agb_bestfit_thumb_alloc, .-agb_bestfit_thumb_alloc
/* The public agb_bestfit_alloc is this entry point (include/agb/bestfit.h). */
	.global	agb_bestfit_alloc
	.thumb_set agb_bestfit_alloc, agb_bestfit_thumb_alloc

	.section .text.agb_bestfit_thumb_free, "ax", %progbits
	.align	2
	.global	agb_bestfit_thumb_free
	.type	agb_bestfit_thumb_free, %function
/* The targets of the entry's rarer branches, before it: the common path falls through, and these
 * lie within a conditional branch's reach (256 bytes) of their branch, so that each costs one
 * taken branch, not two through a stub. Farthest first: the long run's gate and stubs, b at its
 * halfword's first entry, a short run's gate, then the long run itself. */
.Lf_kind_gate:	/* a pair of K_GATE (STARTS_LONG) for a long run or E_END after E_FREE */
	STARTS_LONG_GATE .Lf_kind_known, .Lf_ret_stub
.Lf_end_after_free_stub:
	b	.Lf_end_after_free
.Lf_long_top_near:
	b	.Lf_long_top

/* b is its halfword's first entry: its left neighbour's entry is the last of the halfword
 * before (none for block 0: as if a used run ended there). */
.Lf_edge:
	movs	r2, #3
	cmp	r4, #0
	beq	1f
	subs	r2, r5, #2
	ldrh	r2, [r2]
	lsrs	r2, r2, #14
1:
	lsls	r3, r3, #2
	orrs	r3, r2
	b	.Lf_idx

.Lf_gate:	/* a pair of K_GATE (STARTS_LONG) for a short run's start */
	STARTS_LONG_GATE .Lf_short, .Lf_ret_stub

/* K_CLASS's other kinds (r0 the code << 30): refused (1), or, past the refusal of a length
 * halfword, a long run (2) or E_END after E_FREE (3). */
.Lf_kind:
	bpl	.Lf_ret_stub		/* 1: refused */
	STARTS_LONG .Lf_kind_gate
.Lf_kind_known:
	mov	r3, ip
	cmp	r3, #24			/* E_END after E_FREE: (0 | 3 << 2) << 1 */
	beq	.Lf_end_after_free_stub
/* A long used run (E_LONG at b; its length is the next halfword, the window's high half): its
 * first entry and, unless the right neighbour is free, its last become E_FREE (its inner entries
 * are stale), then the merge as for a short run. */
.Lf_long:
	lsrs	r2, r6, #16		/* the length halfword: len | 0x4000 (| 0x8000 for bit 14) */
	lsrs	r0, r2, #1
	movs	r1, #1
	lsls	r1, r1, #14
	ands	r0, r1
	subs	r1, #1
	orrs	r0, r1
	ands	r2, r0			/* len (map2.h agb_map2_len_decode) */
	adds	r3, r4, r2		/* end */
	mov	r0, lr
	ldrh	r0, [r0, #C_TOP]
	cmp	r3, r0
	beq	.Lf_long_top_near	/* next to the top run, or the pool's last run */
	LONG_CLEAR
	/* the right neighbour's entry follows the last one: in the halfword LONG_CLEAR just wrote
	 * (r6, at r1; r0 the last entry's bits) unless the last entry was its top one */
	lsls	r0, r0, #2
	lsrs	r7, r0, #16
	bne	.Lfl_right_next
	movs	r7, #0			/* rs */
	tst	r6, r0
	bne	.Lfl_right_done
.Lfl_right_free:
	ldr	r1, [sp, #4]
	lsls	r0, r2, #3
	adds	r0, r1
	ldrh	r7, [r0, #N_SIZE]
.Lfl_right_done:
	LEFT_TAG .Lfl_left_used		/* ls */
.Lfl_merge:
	b	.Lf_merge
/* A long run with a used left neighbour: with a used right one too (a long run between used
 * ones, common on some traces) and at most 256 blocks, straight to .Lf_m_push: total is len. */
.Lfl_left_used:
	cmp	r7, #0
	bne	.Lfl_merge		/* a free right neighbour */
	subs	r1, r2, #1
	cmp	r1, #255
	bhi	.Lfl_merge		/* a long merge */
	movs	r5, r2			/* total */
	ldr	r6, [sp, #8]		/* blocks */
	b	.Lf_m_push
.Lfl_right_next:
	ldrh	r0, [r1, #2]		/* the halfword after the last entry's */
	movs	r7, #0
	lsls	r0, r0, #30
	beq	.Lfl_right_free
	b	.Lfl_right_done
.Lf_top_stub:
	b	.Lf_top
.Lf_ret_stub:
	b	.Lf_ret
	.thumb_func
/* void agb_bestfit_thumb_free(void *t, uint32_t addr). Stack: [sp] t, [sp+4] addr, [sp+8]
 * blocks (one load where t->blocks is two). */
agb_bestfit_thumb_free:
	ldr	r2, [r0, #T_BLOCKS]
	push	{r0, r1, r2, r4, r5, r6, r7, lr}	/* 8-byte aligned */
	ldr	r3, [r0, #T_CTRL]
	mov	lr, r3
	subs	r4, r1, r2		/* off */
	movs	r3, #3
	rors	r4, r3			/* b, with off % 8 in bits 29-31 */
	ldr	r2, [r0, #T_NBLOCKS]
	cmp	r4, r2
	bhs	.Lf_ret_stub		/* off the 8-byte grid (2^29 or more), outside the pool or AGB_NULL */
	ldr	r5, [r0, #T_MAP]
	lsrs	r2, r4, #3
	lsls	r2, r2, #1
	adds	r5, r2			/* a0: the map halfword of b */
	ldrh	r3, [r5]
	ldrh	r6, [r5, #2]
	lsls	r6, r6, #16
	orrs	r6, r3			/* w: entries of the window (b's halfword and the next) */
	lsls	r7, r4, #29
	lsrs	r7, r7, #28		/* sh: 2 (b % 8) */
	beq	.Lf_edge
	subs	r1, r7, #2
	lsrs	r3, r3, r1		/* left's entry, b's entry above it (both in b's halfword) */
.Lf_idx:	/* r0 t */
	/* map2.h's refusal with the two entries swapped, and the kind of run, in one lookup: two
	 * bits per pair left | entry << 2 of K_CLASS, 0 for a short run's first block, 1 refused
	 * (b's entry is free, or its left neighbour's starts or continues a used run), 2 E_LONG, 3
	 * E_END after E_FREE (a one-block run, or a long run's end). */
	lsls	r3, r3, #28
	lsrs	r3, r3, #27
	mov	ip, r3			/* (left | entry << 2) << 1 */
	ldr	r2, [r0, #T_CONSTS]	/* the constants */
	ldr	r0, [r2, #K_CLASS]
	lsrs	r0, r0, r3
	lsls	r0, r0, #30
	bne	.Lf_kind		/* refused, a long run, or E_END after E_FREE */
	STARTS_LONG .Lf_gate
/* A short used run from b: r2 the constants, r4 b, r5 a0, r6 the window, r7 sh, lr ctrl. */
.Lf_short:
	lsrs	r0, r6, #1
	ands	r0, r6
	lsrs	r0, r0, r7		/* bit 2i: entry i from b's is E_END (every entry of the run
				 * before its last is E_USED, whose high bit is clear, so no odd
				 * bit below it is set) */
	rsbs	r1, r0, #0
	ands	r0, r1			/* v: the first, the run's last (bit 2 (len - 1)) */
	lsls	r3, r0, #2
	subs	r3, #1
	lsls	r3, r3, r7		/* clear: entries [b, end) (v << 2 is 0 for 16 entries from sh 0) */
	ldr	r1, [r2, #K_DEBRUIJN]
	muls	r0, r1, r0
	lsrs	r0, r0, #27
	ldrb	r2, [r2, r0]		/* len (K_LEN is at 0) */
	adds	r0, r4, r2		/* end */
	mov	r1, lr
	ldrh	r1, [r1, #C_TOP]
	cmp	r0, r1
	beq	.Lf_top_stub		/* next to the top run, or the pool's last run */
	/* The right neighbour's entry, in the window or (past it) the halfword after: its two bits
	 * are those of clear << 2 beyond clear (none past the window). The common case, no free
	 * neighbour, falls through to the return; the others are out of line after it (a taken
	 * branch costs some six cycles from ROM). */
	lsls	r0, r3, #2
	bics	r0, r3
	tst	r6, r0
	beq	.Lf_right_maybe		/* free, or past the window (r0 0) */
.Lf_right_used:
	mov	r1, ip
	lsls	r1, r1, #29		/* left's entry (ip's bits 1-2) */
	beq	.Lf_left_free
	/* No free neighbour: every entry of the run becomes E_FREE (MERGE_CLEAR: both halves of
	 * the window stored) and the run goes to the bin of its length. */
	MERGE_CLEAR
.Lf_alone:
	ldr	r0, [sp, #4]		/* b's block */
	/* (an empty bin, the commoner on some traces, falls through; only the append needs
	 * blocks) */
	BP_HEAD	r4, r2, r0, r1, r3, r5, r7, .Lf_alone_held, eq
	BP_FIRST_RET r4, r2, r0, r1, r3, r5, r7
.Lf_alone_held:
	ldr	r6, [sp, #8]		/* blocks */
	BP_APPEND r4, r2, r0, r5, r7
.Lf_ret:
	add	sp, #12
	pop	{r4, r5, r6, r7}
	pop	{r3}
	bx	r3

.Lf_merge_long_near:
	b	.Lf_merge_long
.Lf_left_long:
	movs	r7, #0			/* rs */
	b	.Lf_merge_long
.Lf_right_long:
	movs	r0, #0			/* ls */
	b	.Lf_merge_long
/* The rarer turns of the merge paths below, out of line. */
.Lf_right_edge:
	ldrh	r0, [r5, #4]		/* past the window: the halfword after it */
	lsls	r0, r0, #30
	beq	.Lf_right_free
	b	.Lf_right_used
/* A free neighbour: the right one first (the commoner merge falls through). */
.Lf_right_maybe:
	cmp	r0, #0
	beq	.Lf_right_edge
.Lf_right_free:
	lsls	r0, r2, #3
	ldr	r1, [sp, #4]
	adds	r0, r1
	ldrh	r7, [r0, #N_SIZE]	/* rs: the free right neighbour's size */
	mov	r1, ip
	lsls	r1, r1, #29		/* left's entry (ip's bits 1-2) */
	beq	.Lf_left_tag
	/* The right neighbour alone (the commonest merge on some traces): .Lf_merge's steps for
	 * ls = 0 (which .Lf_mr_known does not read: only a long merge sets r0), then straight to
	 * .Lf_m_r_only's unlink. */
	MERGE_CLEAR
	adds	r5, r2, r7		/* total */
	MERGE_SIZE_TEST .Lf_right_long		/* ls 0 is set there */
	adds	r2, r4, r2		/* end (start is b) */
	/* .Lf_mr_known's test and its arm for a neighbour with company in its bin (the commonest
	 * merge on some traces), a copy in place: that arm takes one branch (to the push), not
	 * two; r0 is still the neighbour's first block. */
	ldrh	r1, [r0]		/* its next */
	cmp	r1, r2
	beq	.Lf_mr_only
	ldrh	r0, [r0, #N_PREV]	/* prev */
	BIN_RELINK r2, r7, r0, r1, r3, r0
	beq	.Lf_rf_head		/* (it seldom is) */
	ldr	r0, [sp, #4]		/* the merged run's first block: b's */
	b	.Lf_m_push_blk
.Lf_rf_head:
	strh	r1, [r3, #(C_HEADS - 2)]	/* it was the head: next is */
	b	.Lf_m_push
/* Both neighbours free: the left one's tag, the clear and .Lf_merge's steps, then straight to
 * .Lf_m_both (ls and rs are not 0). */
.Lf_left_tag:
	LEFT_TAG_LOAD
	MERGE_CLEAR
	adds	r5, r0, r2
	adds	r5, r7			/* total */
	MERGE_SIZE_TEST .Lf_merge_long_near
	adds	r2, r4, r2		/* end */
	subs	r4, r4, r0		/* start */
	b	.Lf_m_both
/* The left neighbour alone (right used; the commonest merge on some traces): its tag, the clear
 * and .Lf_merge's steps for rs = 0 (which .Lf_m_l_only does not read: only a long merge sets r7),
 * falling into .Lf_m_l_only. */
.Lf_left_free:
	LEFT_TAG_LOAD
	MERGE_CLEAR
	adds	r5, r0, r2		/* total */
	MERGE_SIZE_TEST .Lf_left_long		/* rs 0 is set there */
	subs	r4, r4, r0		/* start (end is not needed) */
/* One free neighbour (the common merges): it leaves its bin as BIN_UNLINK takes it out, except
 * that when it is its bin's only run, the merged run's bin is empty and both bins' bits lie in
 * one bitmap word, the neighbour's bin becomes empty (head ~x) and the merged run its new bin's
 * only run with the two bits changed by one load and store of the word, which stays non-empty,
 * so its summary bit (set) stays: the state bin_unlink and bin_push leave, in fewer steps. */
.Lf_m_l_only:	/* the left neighbour [start, b) of r0 blocks: its node is the merged run's; r2 len */
	lsls	r7, r4, #3
	adds	r7, r6			/* its first block (r7 is free on this path) */
	ldrh	r1, [r7]		/* its next */
	cmp	r1, r4
	bne	.Lf_ml_company
	subs	r1, r0, #1
	subs	r3, r5, #1
	eors	r1, r3
	lsrs	r1, r1, #5
	bne	.Lf_ml_alone		/* the bins' bits in two words */
	lsls	r1, r5, #1
	add	r1, lr
	ldrh	r3, [r1, #(C_HEADS - 2)]
	lsrs	r3, r3, #15
	beq	.Lf_ml_alone		/* the merged run's bin holds runs */
	strh	r4, [r1, #(C_HEADS - 2)]	/* its head: the merged run (links unchanged: itself) */
	lsls	r1, r0, #1
	add	r1, lr
	mvns	r3, r4
	strh	r3, [r1, #(C_HEADS - 2)]	/* the neighbour's bin: empty */
	MOVE_TAIL r7, r0, r5, r2, r4	/* r2 len: what the merge adds */
.Lf_ml_alone:	/* its bin's only run: the bin becomes empty */
	lsls	r1, r0, #1
	add	r1, lr
	mvns	r3, r4
	strh	r3, [r1, #(C_HEADS - 2)]
	BIT_CLEAR r0, r1, r3, r2
	b	.Lf_m_push
.Lf_ml_company:	/* r1 its next, r7 its first block: unlinked from its bin */
	ldrh	r2, [r7, #N_PREV]	/* prev (end is not needed: no right neighbour) */
	BIN_RELINK r4, r0, r2, r1, r3, r2
	bne	2f
	strh	r1, [r3, #(C_HEADS - 2)]	/* it was the head: next is */
2:
	b	.Lf_m_push
.Lf_m_none:	/* no neighbour (a long run freed between used ones) */
	b	.Lf_m_push
.Lf_m_r_only:	/* the right neighbour [end, end + r7) (or none) */
	cmp	r7, #0
	beq	.Lf_m_none
.Lf_mr_known:
	lsls	r3, r2, #3
	ldrh	r1, [r6, r3]		/* its next */
	cmp	r1, r2
	bne	.Lf_mr_company
.Lf_mr_only:	/* its bin's only run */
	subs	r1, r7, #1
	subs	r3, r5, #1
	eors	r1, r3
	lsrs	r1, r1, #5
	bne	.Lf_mr_alone		/* the bins' bits in two words */
	lsls	r1, r5, #1
	add	r1, lr
	ldrh	r3, [r1, #(C_HEADS - 2)]
	lsrs	r3, r3, #15
	beq	.Lf_mr_alone		/* the merged run's bin holds runs */
	strh	r4, [r1, #(C_HEADS - 2)]	/* its head: the merged run */
	lsls	r1, r7, #1
	add	r1, lr
	mvns	r3, r2
	strh	r3, [r1, #(C_HEADS - 2)]	/* the neighbour's bin: empty */
	ldr	r0, [sp, #4]		/* the merged run's first block: b's (r0 is free here) */
	lsls	r3, r4, #16
	orrs	r3, r4
	str	r3, [r0]		/* the merged run alone, linked to itself */
	subs	r4, r2, r4		/* what the merge adds: end - start */
	MOVE_TAIL r0, r7, r5, r4, r2
.Lf_mr_alone:	/* its bin's only run: the bin becomes empty */
	lsls	r1, r7, #1
	add	r1, lr
	mvns	r3, r2
	strh	r3, [r1, #(C_HEADS - 2)]
	BIT_CLEAR r7, r0, r1, r3
	b	.Lf_m_push
/* A long used run's merge (from .Lfl_merge), out of the way of the short runs' merges above
 * (their branches reach this far only without it). */
.Lf_merge:	/* r0 ls, r2 len, r4 b, r7 rs (a long run's) */
	adds	r5, r0, r2
	adds	r5, r7			/* total */
	MERGE_SIZE_TEST .Lf_merge_long_mid
	adds	r2, r4, r2		/* end */
	subs	r4, r4, r0		/* start */
	cmp	r0, #0
	beq	.Lf_m_r_only
	cmp	r7, #0
	bne	.Lf_m_both
	subs	r2, r5, r0		/* len, as .Lf_left_free leaves it */
	b	.Lf_m_l_only
.Lf_merge_long_mid:
	b	.Lf_merge_long
.Lf_mr_company:	/* r1 its next, r3 8 end: unlinked from its bin */
	adds	r3, #N_PREV
	ldrh	r0, [r6, r3]		/* prev (r0 is free here) */
	BIN_RELINK r2, r7, r0, r1, r3, r0
	beq	.Lf_mr_head		/* (it seldom is: the push follows) */
.Lf_m_push:	/* (an empty bin, the commoner, falls through) */
	lsls	r0, r4, #3
	adds	r0, r6			/* the merged run's first block */
.Lf_m_push_blk:	/* (r0 the merged run's first block) */
	BP_HEAD	r4, r5, r0, r1, r2, r3, r7, .Lf_m_held, eq
	BP_FIRST_RET r4, r5, r0, r1, r2, r3, r7
.Lf_m_held:
	BP_APPEND r4, r5, r0, r3, r7
	F_RET
.Lf_mr_head:
	strh	r1, [r3, #(C_HEADS - 2)]	/* it was the head: next is */
	b	.Lf_m_push

/* Both neighbours: each leaves its bin as BIN_UNLINK takes it out, the turns laid out for the
 * commoner cases: its bin's only run (whose bitmap word keeps another bin's bit) falls through,
 * a run with company and a word that empties are out of line after the push, which is the
 * merged run's own (.Lf_m_push's steps). */
.Lf_m_both:	/* r0 ls (not needed after the left one), r2 end, r4 start, r5 total, r7 rs */
	lsls	r3, r4, #3
	ldrh	r1, [r6, r3]		/* the left one's next */
	cmp	r1, r4
	bne	.Lmb_l_company
	lsls	r3, r0, #1		/* its bin's only run: its head becomes ~x (empty) */
	add	r3, lr
	mvns	r1, r4
	strh	r1, [r3, #(C_HEADS - 2)]
	BIT_CLEAR3 r0, r1, r3
.Lmb_l_done:
	lsls	r3, r2, #3
	ldrh	r0, [r6, r3]		/* the right one's next */
	cmp	r0, r2
	bne	.Lmb_r_company
	lsls	r1, r7, #1
	add	r1, lr
	mvns	r0, r2
	strh	r0, [r1, #(C_HEADS - 2)]
	BIT_CLEAR r7, r0, r1, r3
.Lmb_r_done:
	lsls	r0, r4, #3
	adds	r0, r6			/* the merged run's first block */
	BP_HEAD	r4, r5, r0, r1, r2, r3, r7, .Lmb_held, eq
	BP_FIRST_RET r4, r5, r0, r1, r2, r3, r7
.Lmb_held:
	BP_APPEND r4, r5, r0, r3, r7
	F_RET
.Lmb_l_company:	/* r1 next, r3 8 start: BIN_UNLINK_COMPANY with total kept in ip */
	mov	ip, r5
	adds	r3, #N_PREV
	ldrh	r5, [r6, r3]		/* prev */
	BIN_RELINK r4, r0, r5, r1, r3, r5
	mov	r5, ip			/* (no flags) */
	bne	.Lmb_l_done
	strh	r1, [r3, #(C_HEADS - 2)]
	b	.Lmb_l_done
.Lmb_r_company:	/* r0 next, r3 8 end */
	BIN_UNLINK_COMPANY r2, r7, r0, r1, r3, .Lmb_r_done

/* A short used run that ends where the top run starts (or ends the pool, when there is no top
 * run): bestfit.c merge_top. Its entries become E_FREE, a short free left neighbour leaves its
 * bin, and the merged run [start, n) becomes the top run when longer than 256 blocks, else (no
 * top run followed) it goes to its bin. A long left neighbour goes to the C. r2 len, r3 the
 * run's clear mask in the window, r4 b, r5 a0, r6 the window, ip (left | entry << 2) << 1, lr ctrl.
 * The commoner turns fall through (a used left neighbour, none to unlink) or return in place. */
.Lf_top_left_tag:
	TOP_LEFT_TAG .Lf_top_left_known
.Lf_top:
	TOP_LEFT .Lf_top_left_tag, .Lf_top_left_known
	/* every entry of the run becomes E_FREE (r3: the common path's clear) */
	bics	r6, r3
	strh	r6, [r5]		/* b's entry is in the low half */
	lsrs	r1, r3, #16
	beq	.Lf_top_end
	lsrs	r6, r6, #16
	strh	r6, [r5, #2]
.Lf_top_end:
	adds	r3, r4, r2		/* end */
.Lf_top_cleared:
	ldr	r6, [sp, #8]		/* blocks */
	ldr	r1, [sp]
	ldr	r5, [r1, #T_NBLOCKS]
	subs	r5, r5, r3		/* the top run's length (0: none) */
	adds	r5, r2
	mov	r0, ip
	adds	r5, r0			/* total = ls + len + top */
	subs	r4, r4, r0		/* start */
	cmp	r0, #0
	bne	.Lf_top_unlink		/* a free left neighbour */
.Lf_top_unlinked:
	subs	r0, r5, #1
	cmp	r0, #255
	bls	.Lf_top_bin
	mov	r0, lr
	strh	r4, [r0, #C_TOP]	/* the new top run */
	F_RET
.Lf_top_bin:
	lsls	r0, r4, #3
	adds	r0, r6			/* the merged run's first block */
	BP_HEAD	r4, r5, r0, r1, r2, r3, r7, .Lf_top_first
	BP_APPEND r4, r5, r0, r3, r7
	F_RET
.Lf_top_first:
	BP_FIRST_RET r4, r5, r0, r1, r2, r3, r7
.Lf_top_unlink:
	mov	ip, r5
	BIN_UNLINK r4, r0, r1, r3, r5
	mov	r5, ip
	b	.Lf_top_unlinked

/* A long used run that ends where the top run starts (or ends the pool): as .Lf_top, with the
 * long run's clear. */
.Lf_long_top:
	TOP_LEFT .Lf_long_top_left_tag, .Lf_long_top_left_known
	LONG_CLEAR
	b	.Lf_top_cleared
.Lf_long_top_left_tag:
	TOP_LEFT_TAG .Lf_long_top_left_known

/* At the top run after a long free left neighbour (TOP_LEFT: r0 ls, r2 len, r4 b, the map not
 * yet written): bestfit.c free_top_long_left. */
.Lf_general:
	movs	r3, r0
	movs	r1, r4
	ldr	r0, [sp]
	bl	agb_bestfit_thumb_free_top
	b	.Lf_ret_far

/* b's entry is E_END and its left neighbour's E_FREE: a one-block run after a free run, or the
 * last block of a long run (whose inner entries are E_FREE). bestfit.c free_run_ends_at: the
 * tag s in block b - 1 must give a free run [x, b), x = b - s, whose first block holds s too,
 * whose first entry is E_FREE and which starts the pool or follows a used run's last entry that
 * is not inside a length halfword. */
.Lf_end_after_free:
	ldr	r1, [sp, #4]
	subs	r0, r1, #(8 - N_SIZE)
	ldrh	r0, [r0]		/* s */
	subs	r3, r0, #1
	cmp	r3, r4
	bhs	9f			/* s is 0 or above b */
	lsls	r3, r0, #3
	subs	r3, r1, r3
	ldrh	r3, [r3, #N_SIZE]
	cmp	r3, r0
	bne	9f			/* block x does not hold s */
	subs	r3, r4, r0		/* x */
	ldr	r1, [sp]
	ldr	r1, [r1, #T_MAP]
	lsrs	r0, r3, #3
	lsls	r0, r0, #1
	adds	r1, r0			/* x's map halfword */
	ldrh	r0, [r1]
	movs	r2, #7
	ands	r2, r3
	lsls	r2, r2, #1		/* x's entry's bit */
	beq	.Lfe_edge
	/* y = x - 1 in the same halfword: y's entry and x's, y | x << 2, must be E_END, E_FREE */
	subs	r2, #2
	movs	r7, r0
	lsrs	r7, r7, r2
	movs	r2, #15
	ands	r7, r2
	cmp	r7, #3
	bne	9f
	cmp	r3, #8
	blo	.Lfe_ok			/* y's halfword is the map's first */
/* r0 y's halfword, r1 its address (not the map's first): refused when it is a length halfword,
 * which needs its bit 14 (map2.h agb_map2_len_encode) and the halfword before holding a long
 * run's start (agb_map2_starts_long). */
.Lfe_len:
	lsls	r0, r0, #17
	bpl	.Lfe_ok
	subs	r1, #2
	ldrh	r0, [r1]		/* the halfword before y's */
	lsrs	r1, r0, #1
	bics	r1, r0
	ldr	r2, [sp]
	ldr	r2, [r2, #T_CONSTS]	/* the constants (no ROM literal) */
	ldr	r3, [r2, #K_EVEN]
	ands	r1, r3
	ands	r0, r3
	cmp	r1, r0
	bhi	9f			/* y lies in a length halfword */
.Lfe_ok:
	lsls	r7, r4, #29
	lsrs	r7, r7, #28		/* sh again (r7 served above) */
	ldr	r2, [sp]
	ldr	r2, [r2, #T_CONSTS]	/* the constants, for .Lf_short */
	b	.Lf_short
/* x is its halfword's first entry: y's entry is the last of the halfword before. */
.Lfe_edge:
	lsls	r2, r0, #30
	bne	9f			/* x's entry is not E_FREE */
	cmp	r3, #0
	beq	.Lfe_ok			/* x = 0: the run starts the pool */
	subs	r1, #2
	ldrh	r0, [r1]		/* y's halfword */
	lsrs	r2, r0, #14
	cmp	r2, #3
	bne	9f			/* y does not end a used run */
	cmp	r3, #16
	blo	.Lfe_ok			/* y's halfword is the map's first */
	b	.Lfe_len
9:
	b	.Lf_ret			/* refused */

/* total > AGB_BESTFIT_SMALL: bestfit.c merge_free, the same list operations (their order changes
 * no list: unlinks commute). r0 ls, r2 len, r4 b, r5 total, r7 rs, r6 blocks, lr ctrl; the map
 * is written. r5 total (no unlink of the right neighbour touches it), ip ls. */
.Lf_ret_far:			/* (.Lf_ret is beyond a branch's reach from here on) */
	F_RET
/* .Lf_merge_long's rarer unlinks, out of line before it (within a conditional branch's reach). */
.Lml_right_company:	/* r0 next, r3 8 end */
	BIN_UNLINK_COMPANY r2, r7, r0, r1, r3, .Lml_right_done
.Lml_right_long:
	LONG_UNLINK r2, r7, r0, r1, r3, .Lml_right_done
.Lml_left_company:	/* r1 next, r3 8 start */
	BIN_UNLINK_COMPANY r4, r0, r1, r2, r3, .Lml_push
.Lf_merge_long:
	adds	r2, r4, r2		/* end: the right neighbour's first block */
	subs	r4, r4, r0		/* start */
	mov	ip, r0
	cmp	r7, #0
	beq	.Lml_right_done
	subs	r1, r7, #1
	cmp	r1, #255
	bhi	.Lml_right_long
	/* A short right neighbour, its bin's only run as a rule here (long merges happen where
	 * the bins are sparse): BIN_UNLINK's only-run arm falls through, the other is out of
	 * line. */
	lsls	r3, r2, #3
	ldrh	r0, [r6, r3]		/* next */
	cmp	r0, r2
	bne	.Lml_right_company
	lsls	r1, r7, #1		/* its bin's only run: its head becomes ~x (empty) */
	add	r1, lr
	mvns	r0, r2
	strh	r0, [r1, #(C_HEADS - 2)]
	BIT_CLEAR r7, r0, r1, r3
.Lml_right_done:
	ldr	r1, [sp]
	ldr	r7, [r1, #T_CONSTS]
	ldr	r1, [r1, #T_NBLOCKS]
	adds	r3, r4, r5		/* (the right one's unlinks keep r5) */
	mov	r0, ip			/* ls */
	cmp	r3, r1
	beq	.Lml_top
	ldr	r7, [r7, #K_LCLASS]	/* the class table (LCLASS_TABLE with t at hand), kept in r7 */
	/* Not at the pool's end, the commoner case: no left neighbour, or a short one, falls
	 * through to the push and the return; the rest is out of line after them. */
	cmp	r0, #0
	beq	.Lml_push
	subs	r1, r0, #1
	cmp	r1, #255
	bhi	.Lml_left
	lsls	r3, r4, #3		/* a short left neighbour: as the right one */
	ldrh	r1, [r6, r3]		/* next */
	cmp	r1, r4
	bne	.Lml_left_company
	lsls	r2, r0, #1
	add	r2, lr
	mvns	r1, r4
	strh	r1, [r2, #(C_HEADS - 2)]
	BIT_CLEAR r0, r1, r2, r3
.Lml_push:
	lsrs	r1, r5, #7
	ldrb	r1, [r7, r1]		/* the merged run's class (LONG_CLASS) */
	LONG_PUSH_C_RET r4, r5, r1, r0, r2, r3
.Lml_left:
	/* A long left neighbour whose class the merged run keeps stays where it is in its list:
	 * its tags take the new size. */
	lsrs	r1, r0, #7
	ldrb	r1, [r7, r1]		/* its class */
	lsrs	r2, r5, #7
	ldrb	r2, [r7, r2]		/* the merged run's */
	cmp	r1, r2
	bne	.Lml_left_long
	lsls	r1, r4, #3
	adds	r1, r6
	strh	r5, [r1, #N_SIZE]
	lsls	r2, r5, #3
	subs	r2, #(8 - N_SIZE)
	strh	r5, [r1, r2]		/* its last block's tag */
	F_RET
.Lml_top:
	/* The merged run ends the pool (a short run was last): the new top run. */
	cmp	r0, #0
	beq	.Lml_top_set
	subs	r1, r0, #1
	cmp	r1, #255
	bhi	.Lml_top_left_long
	BIN_UNLINK r4, r0, r1, r2, r3
	b	.Lml_top_set
.Lml_top_left_long:
	LONG_UNLINK r4, r0, r1, r2, r3
.Lml_top_set:
	mov	r0, lr
	strh	r4, [r0, #C_TOP]	/* the top run has no node and no tag */
	b	.Lf_ret_far
.Lml_left_long:	/* r0 ls, r1 its class, r2 the merged run's, r4 start, r5 total */
	lsls	r3, r4, #3
	ldrh	r7, [r6, r3]		/* its next */
	cmp	r7, r4
	bne	.Lml_ll_general
	mov	r7, lr
	ldrh	r3, [r7, #C_LONG]
	movs	r0, #1
	lsls	r0, r0, r2		/* the merged run's class's bit */
	tst	r3, r0
	bne	.Lml_ll_general
	/* Its class's only run, and the merged run's class is empty: the run moves from the one to
	 * the other as it is (linked to itself): the class bits in one store, the new class's head
	 * and the tags. The state LONG_UNLINK_C and LONG_PUSH_C leave, in fewer steps. */
	orrs	r3, r0
	movs	r0, #1
	lsls	r0, r0, r1
	bics	r3, r0
	strh	r3, [r7, #C_LONG]
	LHEAD	r0, r2, r3
	strh	r4, [r0]
	lsls	r1, r4, #3
	adds	r1, r6
	strh	r5, [r1, #N_SIZE]
	lsls	r2, r5, #3
	subs	r2, #(8 - N_SIZE)
	strh	r5, [r1, r2]		/* its last block's tag */
	F_RET
.Lml_ll_general:	/* r1 and r2 hold the two classes: no table read again */
	LONG_UNLINK_C r4, r0, r1, r3, r7
	LONG_PUSH_C_RET r4, r5, r2, r0, r1, r3

	.pool
	.size	agb_bestfit_thumb_free, .-agb_bestfit_thumb_free
	.global	agb_bestfit_free
	.thumb_set agb_bestfit_free, agb_bestfit_thumb_free

	.section .data.agb_bestfit_thumb_k, "aw", %progbits
	.align	2
	.global	agb_bestfit_thumb_k
	.type	agb_bestfit_thumb_k, %object
agb_bestfit_thumb_k:
	/* K_LEN: for the bit of a short run's last entry at 2 (len - 1), len; 0 at odd bits */
	.byte	1, 0, 15, 2, 0, 8, 13, 0, 16, 12, 11, 0, 0, 0, 3, 5
	.byte	0, 0, 0, 0, 0, 0, 9, 0, 14, 7, 10, 4, 0, 0, 6, 0
	/* K_TABLE */
	.byte	0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8
	.byte	31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9
	.word	0x077CB531
	.word	0x55555555
	.word	0x17961455	/* K_CLASS: 0 a short run's start, 1 refused, 2 E_LONG, 3 E_END after E_FREE */
	.word	0x200A		/* K_GATE */
	.word	agb_bestfit_long_class_of	/* K_LCLASS */
	.size	agb_bestfit_thumb_k, 84

#endif
