/* budget_test.c — the test ROMs of `agbsim budget` (docs/budget.md, tests/gba/budget_check.py).
 * Each ROM uses its stacks in a way it measures itself and prints what it measured, so the test
 * holds the budget report against the ROM's own figures, not against numbers typed in a test:
 *
 *   BUDGET_TEST_RECURSE   at frame DIVE_FRAME, a recursion DIVE_LEVELS deep whose every level
 *                         has a frame of a fixed size; prints the stack pointer of the deepest
 *                         level and the bytes one level takes (two levels' stack pointers).
 *   BUDGET_TEST_OVERFLOW  at frame DIVE_FRAME, the same recursion deep enough to pass the end of
 *                         .bss by a few levels (computed from its own stack pointer and
 *                         __bss_end): the budget must call it an overflow, in that frame, in
 *                         dive(). The ROM saves the IWRAM it will overwrite (in EWRAM) and puts
 *                         it back after, so it keeps running.
 *   BUDGET_TEST_IRQ       a VBlank interrupt handler (ARM code, on the IRQ stack the BIOS entry
 *                         switches to) with a fixed-size frame; prints the lowest stack pointer
 *                         it ran with.
 *
 * Output lines (mGBA's debug print): "budget-test: KEY=VALUE ..." with hexadecimal addresses. */
#include <stdint.h>

#include "agb_gba.h"

#define REG_DISPSTAT 0x04000004u
#define REG_IE       0x04000200u
#define REG_IF       0x04000202u
#define IRQ_VECTOR   0x03007FFCu

#define DIVE_FRAME  10u /* the ROM's VBlank count when the recursion runs */
#ifndef DIVE_LEVELS
#define DIVE_LEVELS 40u /* -DDIVE_LEVELS: agbsim-budget-deeper, the "change that eats stack" */
#endif
#define PAD_WORDS   12u /* a level's locals: 48 bytes plus what the compiler pushes */
#define IRQ_WORDS   16u

extern uint8_t __bss_end[];
extern uint8_t __agb_sp_sys[];
extern uint8_t __agb_sp_irq[];

/* In EWRAM: the overflow tramples the end of IWRAM's .bss, so nothing it reads may live there. */
#if defined(BUDGET_TEST_IRQ)
static volatile uint32_t irq_min_sp AGB_EWRAM_BSS;
static volatile uint32_t irq_count AGB_EWRAM_BSS;
#else
static volatile uint32_t level_sp[1024] AGB_EWRAM_BSS; /* > 32 KiB / a level */
#endif
#if defined(BUDGET_TEST_OVERFLOW)
static uint8_t saved_iwram[1024] AGB_EWRAM_BSS;
#endif

static inline uint32_t stack_pointer(void)
{
	uint32_t sp;
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	return sp;
}

#if !defined(BUDGET_TEST_IRQ)
/* One level: a frame of PAD_WORDS words, written at both ends so the whole frame is used. */
__attribute__((noinline)) static uint32_t dive(uint32_t level, uint32_t levels)
{
	volatile uint32_t pad[PAD_WORDS];
	pad[0] = level;
	pad[PAD_WORDS - 1u] = level ^ 0x5A5A5A5Au;
	level_sp[level] = stack_pointer();
	uint32_t r = level + 1u < levels ? dive(level + 1u, levels) : 0u;
	return r + pad[0] + (pad[PAD_WORDS - 1u] & 1u);
}

static void wait_vblank(void)
{
	while ((AGB_REG16(REG_IF) & 1u) == 0)
		;
	AGB_REG16(REG_IF) = 1u;
}
#else
/* Entered from the BIOS's IRQ entry in ARM state, IRQ mode, on the IRQ stack. */
__attribute__((target("arm"), noinline)) static void irq_handler(void)
{
	volatile uint32_t buf[IRQ_WORDS];
	buf[0] = irq_count;
	buf[IRQ_WORDS - 1u] = buf[0] + 1u;
	uint32_t sp = stack_pointer();
	if (irq_min_sp == 0u || sp < irq_min_sp)
		irq_min_sp = sp;
	irq_count = buf[IRQ_WORDS - 1u];
	AGB_REG16(REG_IF) = 1u; /* acknowledge VBlank */
}

static void wait_irq(uint32_t count)
{
	while (irq_count < count)
		;
}
#endif

int main(void)
{
	agb_init();
	agb_printf("budget-test: sys_top=%x irq_top=%x bss_end=%x", (unsigned)(uintptr_t)__agb_sp_sys,
	           (unsigned)(uintptr_t)__agb_sp_irq, (unsigned)(uintptr_t)__bss_end);
#if defined(BUDGET_TEST_IRQ)
	AGB_REG32(IRQ_VECTOR) = (uint32_t)(uintptr_t)irq_handler;
	AGB_REG16(REG_IF) = 0xFFFFu;
	AGB_REG16(REG_DISPSTAT) = 1u << 3; /* VBlank IRQ */
	AGB_REG16(REG_IE) = 1u;
	AGB_REG16(AGB_REG_IME) = 1u;
	wait_irq(30u);
	agb_printf("budget-test: irq count=%u min_sp=%x words=%u", (unsigned)irq_count,
	           (unsigned)irq_min_sp, (unsigned)IRQ_WORDS);
	for (;;)
		wait_irq(irq_count + 1u);
#else
	AGB_REG16(REG_DISPSTAT) = 1u << 3; /* sets IF's VBlank bit (IME stays 0: no interrupt) */
	for (uint32_t f = 0; f < DIVE_FRAME; f++)
		wait_vblank();
	uint32_t levels = DIVE_LEVELS;
#if defined(BUDGET_TEST_OVERFLOW)
	/* Deep enough to pass __bss_end by three levels; the first two levels give a level's size. */
	dive(0u, 2u);
	uint32_t level_bytes = level_sp[0] - level_sp[1];
	uint32_t gap = stack_pointer() - (uint32_t)(uintptr_t)__bss_end;
	levels = gap / level_bytes + 3u;
	if (levels > sizeof level_sp / sizeof level_sp[0])
		levels = sizeof level_sp / sizeof level_sp[0];
	uint32_t keep = (uint32_t)(uintptr_t)__bss_end - 0x03000000u;
	if (keep > sizeof saved_iwram)
		keep = sizeof saved_iwram;
	volatile uint8_t *below = (volatile uint8_t *)((uintptr_t)__bss_end - keep); /* an address */
	for (uint32_t i = 0; i < keep; i++)
		saved_iwram[i] = below[i];
	dive(0u, levels);
	for (uint32_t i = 0; i < keep; i++)
		below[i] = saved_iwram[i];
#else
	dive(0u, levels);
#endif
	agb_printf("budget-test: dive frame=%u levels=%u level_bytes=%u deepest_sp=%x",
	           (unsigned)DIVE_FRAME, (unsigned)levels, (unsigned)(level_sp[0] - level_sp[1]),
	           (unsigned)level_sp[levels - 1u]);
	for (;;)
		wait_vblank();
#endif
}
