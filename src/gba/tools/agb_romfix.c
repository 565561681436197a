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

struct romfix_args {
    const char *rom_path, *title, *code, *maker, *logo;
    int version, check;
};

static int bad_usage(void)
{
    usage(stderr);
    return 2;
}

/* The command line into *a. Returns -1 to go on, else the exit status (0 after --help, 2 after
 * the usage on stderr). */
static int parse_args(int argc, char **argv, struct romfix_args *a)
{
    *a = (struct romfix_args){NULL, NULL, NULL, NULL, NULL, -1, 0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **dst = NULL;
        if (!strcmp(arg, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--check")) {
            a->check = 1;
            continue;
        } else if (!strcmp(arg, "--title"))
            dst = &a->title;
        else if (!strcmp(arg, "--code"))
            dst = &a->code;
        else if (!strcmp(arg, "--maker"))
            dst = &a->maker;
        else if (!strcmp(arg, "--logo"))
            dst = &a->logo;
        else if (!strcmp(arg, "--version")) {
            if (++i >= argc)
                return bad_usage();
            a->version = atoi(argv[i]) & 0xFF;
            continue;
        } else if (arg[0] == '-' || a->rom_path) {
            return bad_usage();
        } else {
            a->rom_path = arg;
            continue;
        }
        if (++i >= argc)
            return bad_usage();
        *dst = argv[i];
    }
    return a->rom_path ? -1 : bad_usage();
}

/* The Nintendo logo bytes from the ROM or header file `logo` into rom. Returns 0, or 3 after
 * saying why. */
static int copy_logo(const char *logo, unsigned char *rom, size_t len)
{
    size_t llen = 0;
    unsigned char *l = slurp(logo, &llen);
    if (!l || llen < 0x04 + AGB_HDR_LOGO_LEN) {
        fprintf(stderr, "agb-romfix: %s: cannot read a logo (need a ROM or header file)\n", logo);
        free(l);
        return 3;
    }
    if (len >= AGB_HDR_SIZE)
        memcpy(rom + AGB_HDR_LOGO, l + AGB_HDR_LOGO, AGB_HDR_LOGO_LEN);
    free(l);
    return 0;
}

/* The fixed header back into the file. Returns 0, or 3 after saying why. */
static int write_header(const char *rom_path, const unsigned char *rom)
{
    FILE *f = fopen(rom_path, "r+b");
    int werr = !f;
    if (f) {
        werr = fwrite(rom, 1, AGB_HDR_SIZE, f) != AGB_HDR_SIZE;
        werr |= fclose(f) != 0;
    }
    if (werr) {
        fprintf(stderr, "agb-romfix: %s: %s\n", rom_path, strerror(errno));
        return 3;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct romfix_args a;
    size_t len = 0;
    unsigned char *rom;
    char why[128];
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    rom = slurp(a.rom_path, &len);
    if (!rom) {
        fprintf(stderr, "agb-romfix: %s: %s\n", a.rom_path, strerror(errno));
        return 3;
    }
    if (a.check) {
        rc = agb_romhdr_check(rom, len, why, sizeof why) ? 1 : 0;
        if (rc)
            fprintf(stderr, "agb-romfix: %s: %s\n", a.rom_path, why);
    } else {
        rc = a.logo ? copy_logo(a.logo, rom, len) : 0;
        if (rc == 0 && agb_romhdr_fix(rom, len, a.title, a.code, a.maker, a.version)) {
            fprintf(stderr, "agb-romfix: %s: bad field (title <= 12, code 4, maker 2 chars) or short file\n",
                    a.rom_path);
            rc = 2;
        }
        if (rc == 0)
            rc = write_header(a.rom_path, rom);
    }
    free(rom);
    return rc;
}
