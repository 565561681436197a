/* agb_gba.h — small GBA runtime for agbsim ROMs (bench and smoke).
 *
 * Cycle counting:  agb_cycles_begin(); ...; c = agb_cycles_end();
 *   TM0 at prescaler 1 cascading into TM1 = 32-bit cycle counter. Both functions are
 *   always-inline so the measured region costs the same wherever the caller lives
 *   (Thumb in ROM or ARM in IWRAM); call agb_cycles_calibrate() once from the same kind of
 *   code to measure the empty begin/end cost, which agb_cycles_end() then subtracts.
 * Host markers:    agb_mark(id, value) — `swi 0xF0`, observed by src/measure with
 *   mTimingGlobalTime; a no-op unless the host set AGB_DESC_HOST_MARKERS in the ROM.
 * Debug print:     mGBA's debug channel (0x04FFF600); silently dropped elsewhere.
 * Results:         agb_results (fixed address, see agb_gba_abi.h) + agb_done().
 */
#ifndef AGB_GBA_H
#define AGB_GBA_H

#include <stdint.h>
#include <stddef.h>
#include "agb_gba_abi.h"

#define AGB_IWRAM_CODE __attribute__((section(".iwram"), long_call, target("arm"), noinline))
#define AGB_IWRAM_DATA __attribute__((section(".iwram_data")))
#define AGB_EWRAM_DATA __attribute__((section(".ewram")))
#define AGB_EWRAM_BSS  __attribute__((section(".ewram_bss")))
#define AGB_ALWAYS_INLINE static inline __attribute__((always_inline))

#define AGB_REG16(a) (*(volatile uint16_t *)(uintptr_t)(a))
#define AGB_REG32(a) (*(volatile uint32_t *)(uintptr_t)(a))

#define AGB_REG_DISPCNT  0x04000000u
#define AGB_REG_VCOUNT   0x04000006u
#define AGB_REG_TM0      0x04000100u /* CNT_L at +0, CNT_H at +2 */
#define AGB_REG_TM1      0x04000104u
#define AGB_REG_IME      0x04000208u
#define AGB_REG_WAITCNT  0x04000204u
#define AGB_WAITCNT_GAME 0x4317u /* SRAM 8, WS0 3/1 (N4 S2), WS1 4/4, WS2 8/8, prefetch on */

/* Set by crt0/linker: the results block, the ROM descriptor, free EWRAM after the image. */
extern volatile struct agb_results agb_results;
extern const uint8_t agb_rom_desc[AGB_DESC_SIZE];
extern uint8_t __ewram_free_start[];  /* first unused EWRAM byte (4-aligned) */
#define AGB_EWRAM_END ((uint8_t *)0x02040000)

/* Runtime state (IWRAM). */
extern uint32_t agb_cycles_overhead;
extern uint32_t agb_host_markers;

/* Call first from main(): initialises agb_results, reads the descriptor, probes debug output,
 * calibrates the timer pair for Thumb-in-ROM callers. */
void agb_init(void);

/* ---- cycle counter -------------------------------------------------------------------- */
AGB_ALWAYS_INLINE void agb_cycles_begin(void)
{
    AGB_REG32(AGB_REG_TM0) = 0;           /* stop TM0, reload 0 */
    AGB_REG32(AGB_REG_TM1) = 0;           /* stop TM1, reload 0 */
    AGB_REG32(AGB_REG_TM1) = 0x00840000u; /* TM1: cascade + start (counter = reload = 0) */
    AGB_REG32(AGB_REG_TM0) = 0x00800000u; /* TM0: prescaler 1 + start */
}

/* Cycles since agb_cycles_begin(), empty-pair cost included. */
AGB_ALWAYS_INLINE uint32_t agb_cycles_end_raw(void)
{
    AGB_REG16(AGB_REG_TM0 + 2) = 0;       /* stop TM0: TM1 stops counting with it */
    uint32_t lo = AGB_REG16(AGB_REG_TM0);
    uint32_t hi = AGB_REG16(AGB_REG_TM1);
    return (hi << 16) | lo;
}

/* Cycles since agb_cycles_begin(), empty-pair cost subtracted (never below 0). */
AGB_ALWAYS_INLINE uint32_t agb_cycles_end(void)
{
    uint32_t c = agb_cycles_end_raw();
    uint32_t o = agb_cycles_overhead;
    return c > o ? c - o : 0;
}

/* Measure the empty begin/end pair from the caller's code placement; stores the minimum of a
 * few tries in agb_cycles_overhead (and agb_results.timer_overhead) and returns it. */
AGB_ALWAYS_INLINE uint32_t agb_cycles_calibrate(void)
{
    uint32_t best = 0xFFFFFFFFu;
    for (int i = 0; i < 4; i++) {
        agb_cycles_begin();
        uint32_t c = agb_cycles_end_raw();
        if (c < best)
            best = c;
    }
    agb_cycles_overhead = best;
    agb_results.timer_overhead = best;
    return best;
}

/* ---- host markers --------------------------------------------------------------------- */
AGB_ALWAYS_INLINE void agb_mark(uint32_t id, uint32_t value)
{
    if (agb_host_markers) {
        register uint32_t r0 __asm__("r0") = id;
        register uint32_t r1 __asm__("r1") = value;
#if defined(__thumb__)
        __asm__ volatile("swi 0xF0" : "+r"(r0), "+r"(r1) : : "r2", "r3", "memory");
#else
        __asm__ volatile("swi 0xF00000" : "+r"(r0), "+r"(r1) : : "r2", "r3", "memory");
#endif
    }
}

/* ---- payload (trace blob patched in by the host) --------------------------------------- */
/* Returns the payload in ROM (4-byte aligned when appended by the runner) or NULL. */
const void *agb_payload(uint32_t *len);
uint32_t agb_fnv1a(const void *p, uint32_t len);

/* ---- debug print ---------------------------------------------------------------------- */
enum { AGB_LOG_ERROR = 1, AGB_LOG_WARN = 2, AGB_LOG_INFO = 3, AGB_LOG_DEBUG = 4 };
int agb_debug_available(void);
void agb_debug_puts(int level, const char *s);
/* Tiny printf: %d %i %u %x %X %s %c %p %%, optional '0', width, and 'l' (ignored). */
void agb_debug_printf(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define agb_printf(...) agb_debug_printf(AGB_LOG_INFO, __VA_ARGS__)

/* ---- results -------------------------------------------------------------------------- */
void agb_result_push(uint32_t v);   /* append to agb_results.values (drops when full) */
void agb_done(int32_t status);       /* status, then done = 1; returns */
__attribute__((noreturn)) void agb_halt(void); /* wait forever (VBlankIntrWait-free loop) */

/* ---- misc ----------------------------------------------------------------------------- */
AGB_ALWAYS_INLINE void agb_set_waitcnt(uint16_t v) { AGB_REG16(AGB_REG_WAITCNT) = v; }

#endif
