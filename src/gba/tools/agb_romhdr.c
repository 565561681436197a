/* agb_romhdr.c — GBA cartridge header helpers (see agb_romhdr.h; GBATEK "GBA Cartridge Header"). */
#include "agb_romhdr.h"

#include <stdio.h>
#include <string.h>

uint8_t agb_romhdr_complement(const uint8_t *rom)
{
    unsigned sum = 0;
    for (unsigned i = AGB_HDR_TITLE; i < AGB_HDR_COMPLEMENT; i++)
        sum += rom[i];
    return (uint8_t)((0u - sum - 0x19u) & 0xFFu);
}

static int put_field(uint8_t *dst, size_t cap, const char *s, int exact)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    if (n > cap || (exact && n != cap))
        return -1;
    memset(dst, 0, cap);
    /* A header field is fixed-width and zero-padded, not a C string: a 12-character title
     * fills its field with no terminator. */
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
    memcpy(dst, s, n);
    return 0;
}

int agb_romhdr_fix(uint8_t *rom, size_t len, const char *title, const char *code,
                   const char *maker, int version)
{
    if (len < AGB_HDR_SIZE)
        return -1;
    if (put_field(rom + AGB_HDR_TITLE, 12, title, 0) || put_field(rom + AGB_HDR_GAME_CODE, 4, code, 1)
        || put_field(rom + AGB_HDR_MAKER, 2, maker, 1))
        return -1;
    rom[AGB_HDR_FIXED] = 0x96;
    rom[AGB_HDR_UNIT] = 0;
    rom[AGB_HDR_DEVICE] = 0;
    if (version >= 0)
        rom[AGB_HDR_VERSION] = (uint8_t)version;
    rom[AGB_HDR_COMPLEMENT] = agb_romhdr_complement(rom);
    rom[0xBE] = 0;
    rom[0xBF] = 0;
    return 0;
}

int agb_romhdr_check(const uint8_t *rom, size_t len, char *why, size_t why_len)
{
    const char *msg = NULL;
    if (len < AGB_HDR_SIZE)
        msg = "file shorter than the 192-byte header";
    else if (rom[3] != 0xEA)
        msg = "word 0 is not an ARM branch (byte 3 != 0xEA)";
    else if (rom[AGB_HDR_FIXED] != 0x96)
        msg = "byte 0xB2 is not 0x96";
    else if (rom[AGB_HDR_COMPLEMENT] != agb_romhdr_complement(rom))
        msg = "complement check at 0xBD is wrong";
    if (msg) {
        if (why && why_len)
            snprintf(why, why_len, "%s", msg);
        return -1;
    }
    return 0;
}
