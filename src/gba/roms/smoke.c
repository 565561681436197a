/* smoke.c — agbsim-smoke.gba: times fixed loops with the timer cascade and with host markers,
 * echoes the payload checksum, draws a test picture (mode 3), reports through agb_results. */
#include "agb_gba.h"
#include "smoke_abi.h"
#include "lz77_sample.h"

uint32_t agb_loop_thumb(uint32_t n, const volatile uint32_t *p);
__attribute__((long_call)) uint32_t agb_loop_arm_iwram(uint32_t n, const volatile uint32_t *p);
__attribute__((long_call)) void agb_copy32_arm_iwram(void *dst, const void *src, uint32_t bytes);

/* Load-cost figures: a 4 KiB destination in EWRAM, a 4 KiB source in ROM. */
static uint32_t load_buffer[AGB_LZ77_SAMPLE_RAW_BYTES / 4u] AGB_EWRAM_BSS;
static const uint32_t rom_block[AGB_LZ77_SAMPLE_RAW_BYTES / 4u] = {1u};

static volatile uint32_t iwram_word = 1;             /* .data: IWRAM */
static volatile uint32_t ewram_word AGB_EWRAM_DATA = 2;
/* const volatile alone lands in .data (IWRAM): force it into ROM */
static const volatile uint32_t rom_word __attribute__((section(".rodata.rom_word"))) = 3;

static uint32_t sink;

static uint32_t time_thumb(uint32_t n, const volatile uint32_t *p)
{
    agb_cycles_begin();
    sink += agb_loop_thumb(n, p);
    return agb_cycles_end();
}

static uint32_t time_arm(uint32_t n, const volatile uint32_t *p)
{
    agb_cycles_begin();
    sink += agb_loop_arm_iwram(n, p);
    return agb_cycles_end();
}

static uint32_t per_k_thumb(const volatile uint32_t *p)
{
    return time_thumb(AGB_SMOKE_ITERS + 1, p) - time_thumb(1, p);
}

static uint32_t per_k_arm(const volatile uint32_t *p)
{
    return time_arm(AGB_SMOKE_ITERS + 1, p) - time_arm(1, p);
}

/* BIOS LZ77UnCompWram: r0 source, r1 destination. */
static void lz77_wram(const void *src, void *dst)
{
    register const void *r0 __asm__("r0") = src;
    register void *r1 __asm__("r1") = dst;
#if defined(__thumb__)
    __asm__ volatile("swi 0x11" : "+r"(r0), "+r"(r1) : : "r2", "r3", "memory");
#else
    __asm__ volatile("swi 0x110000" : "+r"(r0), "+r"(r1) : : "r2", "r3", "memory");
#endif
}

/* The BIOS format decompressed by code: ARM in IWRAM, byte stores (EWRAM takes them), as a game
 * that does not call the BIOS runs it: a comparison for the BIOS figure (mGBA without a BIOS
 * image serves SWI 0x11 itself and charges the real routine's cycles as a stall). */
AGB_IWRAM_CODE static void lz77_code(const uint8_t *src, uint8_t *dst)
{
    uint8_t *end = dst + (src[1] | (uint32_t)src[2] << 8 | (uint32_t)src[3] << 16);
    src += 4;
    while (dst < end) {
        uint32_t flags = *src++;
        for (uint32_t b = 0; b < 8u && dst < end; b++, flags <<= 1) {
            if ((flags & 0x80u) == 0) {
                *dst++ = *src++;
                continue;
            }
            uint32_t v = (uint32_t)src[0] << 8 | src[1];
            const uint8_t *from = dst - (v & 0xFFFu) - 1;
            src += 2;
            for (uint32_t len = (v >> 12) + 3u; len-- != 0 && dst < end;)
                *dst++ = *from++;
        }
    }
}

/* Cycles of a 4 KiB ROM->EWRAM copy and of the BIOS decompression of 4 KiB into EWRAM; the
 * decompressed bytes' FNV-1a proves the call did the work. */
static void load_costs(uint32_t *v)
{
    agb_cycles_begin();
    agb_copy32_arm_iwram(load_buffer, rom_block, sizeof load_buffer);
    v[AGB_SMOKE_COPY32_4K] = agb_cycles_end();
    agb_cycles_begin();
    lz77_wram(agb_lz77_sample, load_buffer);
    v[AGB_SMOKE_LZ77_4K] = agb_cycles_end();
    v[AGB_SMOKE_LZ77_FNV1A] = agb_fnv1a(load_buffer, sizeof load_buffer);
    agb_cycles_begin();
    lz77_code((const uint8_t *)agb_lz77_sample, (uint8_t *)load_buffer);
    v[AGB_SMOKE_LZ77_CODE_4K] = agb_cycles_end();
    v[AGB_SMOKE_LZ77_CODE_FNV1A] = agb_fnv1a(load_buffer, sizeof load_buffer);
}

static void draw(void)
{
    volatile uint16_t *vram = (volatile uint16_t *)0x06000000;
    AGB_REG16(AGB_REG_DISPCNT) = 3 | (1 << 10); /* mode 3, BG2 on */
    for (uint32_t y = 0; y < 160; y++)
        for (uint32_t x = 0; x < 240; x++)
            vram[y * 240 + x] = y < 80 ? 0x001F /* red */ : 0x7C00 /* blue */;
}

int main(void)
{
    agb_init();
    uint32_t v[AGB_SMOKE_VALUE_COUNT];

    v[AGB_SMOKE_THUMB_ROM_4317] = per_k_thumb(&iwram_word);
    agb_set_waitcnt(0x0317);
    v[AGB_SMOKE_THUMB_ROM_0317] = per_k_thumb(&iwram_word);
    agb_set_waitcnt(0x0000);
    v[AGB_SMOKE_THUMB_ROM_0000] = per_k_thumb(&iwram_word);
    agb_set_waitcnt(AGB_WAITCNT_GAME);

    v[AGB_SMOKE_ARM_IWRAM_IWRAM] = per_k_arm(&iwram_word);
    v[AGB_SMOKE_ARM_IWRAM_EWRAM] = per_k_arm(&ewram_word);
    v[AGB_SMOKE_ARM_IWRAM_ROM] = per_k_arm(&rom_word);
    v[AGB_SMOKE_TIMER_OVERHEAD] = agb_cycles_overhead;
    load_costs(v);
    v[AGB_SMOKE_DEBUG_AVAILABLE] = (uint32_t)agb_debug_available();
    v[AGB_SMOKE_HOST_MARKERS] = agb_host_markers;

    uint32_t len;
    const void *payload = agb_payload(&len);
    v[AGB_SMOKE_PAYLOAD_LEN] = len;
    v[AGB_SMOKE_PAYLOAD_SUM] = payload ? agb_fnv1a(payload, len) : 0;
    agb_results.payload_len = len;
    agb_results.payload_sum = v[AGB_SMOKE_PAYLOAD_SUM];

    /* Host markers around the same Thumb loop (no-ops without a host). */
    agb_mark(AGB_SMOKE_MARK_LONG_BEGIN, 0);
    sink += agb_loop_thumb(AGB_SMOKE_ITERS + 1, &iwram_word);
    agb_mark(AGB_SMOKE_MARK_LONG_END, 0);
    agb_mark(AGB_SMOKE_MARK_SHORT_BEGIN, 0);
    sink += agb_loop_thumb(1, &iwram_word);
    agb_mark(AGB_SMOKE_MARK_SHORT_END, 0);
    agb_mark(AGB_SMOKE_MARK_EMPTY_BEGIN, 0);
    agb_mark(AGB_SMOKE_MARK_EMPTY_END, 0);

    for (uint32_t i = 0; i < AGB_SMOKE_VALUE_COUNT; i++)
        agb_result_push(v[i]);

    agb_printf("smoke: thumb/rom 4317h %lu 0317h %lu 0000h %lu cycles per %lu iterations",
               v[AGB_SMOKE_THUMB_ROM_4317], v[AGB_SMOKE_THUMB_ROM_0317],
               v[AGB_SMOKE_THUMB_ROM_0000], AGB_SMOKE_ITERS);
    agb_printf("smoke: arm/iwram data iwram %lu ewram %lu rom %lu; timer pair %lu",
               v[AGB_SMOKE_ARM_IWRAM_IWRAM], v[AGB_SMOKE_ARM_IWRAM_EWRAM],
               v[AGB_SMOKE_ARM_IWRAM_ROM], v[AGB_SMOKE_TIMER_OVERHEAD]);
    agb_printf("smoke: payload %lu bytes fnv1a %08lx", len, v[AGB_SMOKE_PAYLOAD_SUM]);
    agb_printf("smoke: load 4096 bytes ROM->EWRAM: copy32 %lu cycles, bios lz77 %lu cycles "
               "(fnv1a %08lx), lz77 code %lu cycles (fnv1a %08lx)", v[AGB_SMOKE_COPY32_4K],
               v[AGB_SMOKE_LZ77_4K], v[AGB_SMOKE_LZ77_FNV1A], v[AGB_SMOKE_LZ77_CODE_4K],
               v[AGB_SMOKE_LZ77_CODE_FNV1A]);
    agb_debug_printf(AGB_LOG_DEBUG, "smoke: fmt check [%ld] [%5lu] [%X] [%s] [%c]%%", (int32_t)-42, (uint32_t)7, 0xBEEFu, "ok", 'Z');

    draw();
    agb_done(0);
    agb_halt();
}
