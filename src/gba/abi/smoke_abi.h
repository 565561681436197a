/* smoke_abi.h — meaning of agb_results.values[] and marker ids in agbsim-smoke.gba. */
#ifndef AGB_SMOKE_ABI_H
#define AGB_SMOKE_ABI_H

#define AGB_SMOKE_ITERS 1000ul /* each figure: cycles of 1000 loop iterations (n=1001 minus n=1) */

enum agb_smoke_value {
    AGB_SMOKE_THUMB_ROM_4317 = 0, /* Thumb loop in ROM, IWRAM data, WAITCNT 4317h */
    AGB_SMOKE_THUMB_ROM_0317,     /* same, prefetch off */
    AGB_SMOKE_THUMB_ROM_0000,     /* same, power-on waitstates */
    AGB_SMOKE_ARM_IWRAM_IWRAM,    /* ARM loop in IWRAM, IWRAM data */
    AGB_SMOKE_ARM_IWRAM_EWRAM,    /* ARM loop in IWRAM, EWRAM data */
    AGB_SMOKE_ARM_IWRAM_ROM,      /* ARM loop in IWRAM, ROM data (4317h) */
    AGB_SMOKE_TIMER_OVERHEAD,     /* empty begin/end pair, Thumb in ROM */
    AGB_SMOKE_DEBUG_AVAILABLE,    /* 1 if the mGBA debug channel answered */
    AGB_SMOKE_HOST_MARKERS,       /* 1 if the host set AGB_DESC_HOST_MARKERS */
    AGB_SMOKE_PAYLOAD_LEN,
    AGB_SMOKE_PAYLOAD_SUM,
    /* Load costs of the resource cache (docs/design.md, "Resource caches"): cycles to bring
     * AGB_LZ77_SAMPLE_RAW_BYTES (4 KiB) into EWRAM from ROM. */
    AGB_SMOKE_COPY32_4K,          /* ldmia/stmia copy, ARM in IWRAM */
    AGB_SMOKE_LZ77_4K,            /* BIOS LZ77UnCompWram (SWI 0x11) of lz77_sample.h */
    AGB_SMOKE_LZ77_FNV1A,         /* FNV-1a of the decompressed bytes (AGB_LZ77_SAMPLE_FNV1A) */
    AGB_SMOKE_LZ77_CODE_4K,       /* the same data decompressed by code (ARM in IWRAM) */
    AGB_SMOKE_LZ77_CODE_FNV1A,    /* FNV-1a of its output */
    AGB_SMOKE_VALUE_COUNT
};

/* Marker ids: loop of n=1001 between 1 and 2, n=1 between 3 and 4, an empty pair 5/6. */
enum agb_smoke_marker {
    AGB_SMOKE_MARK_LONG_BEGIN = 1,
    AGB_SMOKE_MARK_LONG_END,
    AGB_SMOKE_MARK_SHORT_BEGIN,
    AGB_SMOKE_MARK_SHORT_END,
    AGB_SMOKE_MARK_EMPTY_BEGIN,
    AGB_SMOKE_MARK_EMPTY_END
};

#endif
