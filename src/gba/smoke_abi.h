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
