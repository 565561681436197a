/* agb-romfix — fix the cartridge header of a GBA ROM image in place.
 *   agb-romfix ROM.gba [--title T] [--code XXXX] [--maker XX] [--version N] [--logo FILE]
 *                      [--check]
 * Writes the title/game code/maker, 0x96 at 0xB2 and the complement at 0xBD. The Nintendo
 * logo (0x04..0x9F) is not shipped; real hardware needs it: --logo copies 156 bytes from FILE
 * (e.g. a dump of it you are entitled to use). mGBA's HLE BIOS checks neither. */
#include "agb_romhdr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: agb-romfix ROM.gba [--title T] [--code XXXX] [--maker XX] [--version N]\n"
          "                  [--logo FILE] [--check]\n",
          f);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    const char *rom_path = NULL, *title = NULL, *code = NULL, *maker = NULL, *logo = NULL;
    int version = -1, check = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--check")) {
            check = 1;
            continue;
        } else if (!strcmp(a, "--title"))
            dst = &title;
        else if (!strcmp(a, "--code"))
            dst = &code;
        else if (!strcmp(a, "--maker"))
            dst = &maker;
        else if (!strcmp(a, "--logo"))
            dst = &logo;
        else if (!strcmp(a, "--version")) {
            if (++i >= argc) {
                usage(stderr);
                return 2;
            }
            version = atoi(argv[i]) & 0xFF;
            continue;
        } else if (a[0] == '-' || rom_path) {
            usage(stderr);
            return 2;
        } else {
            rom_path = a;
            continue;
        }
        if (++i >= argc) {
            usage(stderr);
            return 2;
        }
        *dst = argv[i];
    }
    if (!rom_path) {
        usage(stderr);
        return 2;
    }
    size_t len = 0;
    unsigned char *rom = slurp(rom_path, &len);
    if (!rom) {
        fprintf(stderr, "agb-romfix: %s: %s\n", rom_path, strerror(errno));
        return 3;
    }
    char why[128];
    if (check) {
        int bad = agb_romhdr_check(rom, len, why, sizeof why);
        if (bad)
            fprintf(stderr, "agb-romfix: %s: %s\n", rom_path, why);
        free(rom);
        return bad ? 1 : 0;
    }
    if (logo) {
        size_t llen = 0;
        unsigned char *l = slurp(logo, &llen);
        if (!l || llen < 0x04 + AGB_HDR_LOGO_LEN) {
            fprintf(stderr, "agb-romfix: %s: cannot read a logo (need a ROM or header file)\n", logo);
            free(l);
            free(rom);
            return 3;
        }
        if (len >= AGB_HDR_SIZE)
            memcpy(rom + AGB_HDR_LOGO, l + AGB_HDR_LOGO, AGB_HDR_LOGO_LEN);
        free(l);
    }
    if (agb_romhdr_fix(rom, len, title, code, maker, version)) {
        fprintf(stderr, "agb-romfix: %s: bad field (title <= 12, code 4, maker 2 chars) or short file\n",
                rom_path);
        free(rom);
        return 2;
    }
    FILE *f = fopen(rom_path, "r+b");
    int werr = !f;
    if (f) {
        werr = fwrite(rom, 1, AGB_HDR_SIZE, f) != AGB_HDR_SIZE;
        werr |= fclose(f) != 0;
    }
    if (werr) {
        fprintf(stderr, "agb-romfix: %s: %s\n", rom_path, strerror(errno));
        free(rom);
        return 3;
    }
    free(rom);
    return 0;
}
