/* agb_romhdr.h — host-side GBA cartridge header helpers (used by agb-romfix and the tests). */
#ifndef AGB_ROMHDR_H
#define AGB_ROMHDR_H

#include <stddef.h>
#include <stdint.h>

#define AGB_HDR_SIZE        0xC0u
#define AGB_HDR_LOGO        0x04u /* 156 bytes, checked by the real BIOS only */
#define AGB_HDR_LOGO_LEN    156u
#define AGB_HDR_TITLE       0xA0u /* 12 bytes, uppercase ASCII, NUL padded */
#define AGB_HDR_GAME_CODE   0xACu /* 4 bytes */
#define AGB_HDR_MAKER       0xB0u /* 2 bytes */
#define AGB_HDR_FIXED       0xB2u /* must be 0x96 */
#define AGB_HDR_UNIT        0xB3u
#define AGB_HDR_DEVICE      0xB4u
#define AGB_HDR_VERSION     0xBCu
#define AGB_HDR_COMPLEMENT  0xBDu

/* (-(sum of bytes 0xA0..0xBC) - 0x19) & 0xFF */
uint8_t agb_romhdr_complement(const uint8_t *rom);

/* Fill title (<= 12 chars), game code (4), maker (2), version; set 0xB2 = 0x96 and the
 * complement. NULL strings leave the field alone. Returns 0, or -1 if a field is too long or
 * rom is shorter than the header. */
int agb_romhdr_fix(uint8_t *rom, size_t len, const char *title, const char *code,
                   const char *maker, int version);

/* 0 if the header is what agb_romhdr_fix writes (ARM branch at 0, 0x96, complement);
 * otherwise -1 with a reason in why. */
int agb_romhdr_check(const uint8_t *rom, size_t len, char *why, size_t why_len);

#endif
