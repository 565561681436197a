/* bestfit_abuse.c — agbsim-bestfit-abuse.gba (bestfit's free as hand-written Thumb in ROM,
 * libagbmem.a) and agbsim-bestfit-abuse-iwram.gba (the C as ARM in IWRAM, libagbmem_iwram.a):
 * hands bad addresses to free and realloc (src/gba/roms/bestfit_abuse_seq.h) and reports the record
 * in agb_results.values; tests/gba/test_mgba_bestfit_abuse.c checks it and compares it with the
 * host build's. values[0] arena address, values[1] meta address, values[2] record words, then
 * the record. */
#include <stddef.h>

#include "agb_gba.h"
#include "bestfit_abuse_seq.h"

static uint32_t arena[BFA_ARENA_BYTES / 4u] AGB_EWRAM_BSS __attribute__((aligned(8)));
static uint32_t meta[(BFA_META_BYTES + 3u) / 4u]; /* IWRAM, as a game keeps it */
static uint32_t rec[BFA_MAX_WORDS];
static agb_bestfit heap;

int main(void)
{
    agb_init();
    uint32_t n = bfa_run(&heap, NULL, (uint32_t)(uintptr_t)arena, (uint32_t)(uintptr_t)meta, rec);
    agb_result_push((uint32_t)(uintptr_t)arena);
    agb_result_push((uint32_t)(uintptr_t)meta);
    agb_result_push(n);
    for (uint32_t i = 0; i < n; i++)
        agb_result_push(rec[i]);
    agb_printf("bestfit-abuse: %lu cases, record of %lu words", rec[BFA_NCASES], n);
    agb_done(0);
    agb_halt();
}
