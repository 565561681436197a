/* bench.c — agbsim-bench.gba entry point (scaffold).
 *
 * The replay engine half of the "GBA build and measured cycles" issue replaces the body of
 * bench_run() with: parse the binary event array found by agb_payload(), replay it on the
 * chosen core, and bracket each op with agb_cycles_begin()/agb_cycles_end() (per-op cycles into
 * a buffer published through agb_results.data_addr/data_words) and/or agb_mark(event_index, op).
 * Until then it validates that the payload arrived intact: status 0 and its FNV-1a checksum.
 */
#include "agb_gba.h"

const char *agbmem_build_info(void); /* libagbmem.a: tells where the cores live */

static int32_t bench_run(const void *payload, uint32_t len)
{
    if (!payload) {
        agb_printf("bench: no payload");
        return 1;
    }
    agb_results.payload_len = len;
    agb_results.payload_sum = agb_fnv1a(payload, len);
    agb_printf("bench: payload %lu bytes at %p fnv1a %08lx", len, payload, agb_results.payload_sum);
    return 0;
}

int main(void)
{
    agb_init();
    agb_printf("bench: %s, function at %p", agbmem_build_info(), (const void *)agbmem_build_info);
    uint32_t len;
    const void *payload = agb_payload(&len);
    agb_done(bench_run(payload, len));
    agb_halt();
}
