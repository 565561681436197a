/* agb_gba_abi.h — the contract between a GBA ROM built with src/gba and the
 * host runner in src/measure. Plain fixed-width types only: this header is
 * included by both the freestanding ROM code and the host.
 *
 * 1. ROM descriptor, at ROM offset 0xC0 (just after the cartridge header):
 *      +0x00 char[8] magic  "AGBSIMD1"
 *      +0x08 u32 flags      AGB_DESC_HOST_MARKERS: a host hooks SWI 0xF0 (set by the runner only)
 *      +0x0C u32 payload_offset  ROM offset of the payload (0 = no payload)
 *      +0x10 u32 payload_len     bytes
 *      +0x14 u32 results_addr    address of struct agb_results (linker-placed, 0x03000000)
 *      +0x18 u32 version         AGB_DESC_VERSION
 *      +0x1C u32 reserved
 *    The host patches flags/payload_* in the ROM image before loading it; the ROM reads them.
 *    Patching the payload does not touch bytes 0xA0..0xBC, so the header complement stays valid.
 *
 * 2. Results block, at results_addr (fixed: first thing in IWRAM). The ROM sets magic at start
 *    and done=1 (last write) when finished; the host polls done once per frame.
 *
 * 3. Host markers: `swi 0xF0` (Thumb) / `swi 0xF00000` (ARM) with r0 = marker id, r1 = value.
 *    The runner records (id, value, mTimingGlobalTime) without executing any BIOS code. ROM code
 *    only issues it when AGB_DESC_HOST_MARKERS is set, so the same ROM is safe on hardware.
 */
#ifndef AGB_GBA_ABI_H
#define AGB_GBA_ABI_H

#include <stdint.h>

#define AGB_DESC_ROM_OFFSET    0xC0u
#define AGB_DESC_MAGIC         "AGBSIMD1"
#define AGB_DESC_VERSION       1u
#define AGB_DESC_HOST_MARKERS  0x1u

#define AGB_DESC_OFF_FLAGS       0x08u
#define AGB_DESC_OFF_PAYLOAD_OFF 0x0Cu
#define AGB_DESC_OFF_PAYLOAD_LEN 0x10u
#define AGB_DESC_OFF_RESULTS     0x14u
#define AGB_DESC_OFF_VERSION     0x18u
#define AGB_DESC_SIZE            0x20u

/* Where the runner appends a payload when the caller does not choose: the ROM image end,
 * rounded up to this alignment. */
#define AGB_PAYLOAD_ALIGN 16u

#define AGB_MARKER_SWI 0xF0u

#define AGB_RESULTS_ADDR    0x03000000u
#define AGB_RESULTS_MAGIC   0x52424741u /* "AGBR" little-endian */
#define AGB_RESULTS_VERSION 1u
#define AGB_RESULTS_VALUES  112u

struct agb_results {
    uint32_t magic;          /* AGB_RESULTS_MAGIC once the ROM runtime initialised it */
    uint32_t version;        /* AGB_RESULTS_VERSION */
    uint32_t done;           /* 0 while running; 1 when finished (written last) */
    int32_t  status;         /* 0 ok; anything else is a ROM-defined error */
    uint32_t timer_overhead; /* cycles of an empty agb_cycles_begin/end pair (subtracted already) */
    uint32_t payload_len;    /* payload length the ROM saw */
    uint32_t payload_sum;    /* FNV-1a of the payload, as the ROM computed it (0 if not computed) */
    uint32_t count;          /* valid words in values[] */
    uint32_t data_addr;      /* optional larger result array (e.g. in EWRAM), 0 if none */
    uint32_t data_words;     /* its length in 32-bit words */
    uint32_t reserved[6];
    uint32_t values[AGB_RESULTS_VALUES];
};

#define AGB_RESULTS_OFF_DONE 8u

#endif
