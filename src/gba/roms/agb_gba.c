/* agb_gba.c — runtime for agbsim ROMs: results block, descriptor, debug print. */
#include "agb_gba.h"

#include <stdarg.h>

/* agb_results itself is the runtime's exit block (src/gba/runtime/syscalls.c). */

uint32_t agb_cycles_overhead;
uint32_t agb_host_markers;

#define DEBUG_STRING 0x04FFF600u
#define DEBUG_FLAGS  0x04FFF700u
#define DEBUG_ENABLE 0x04FFF780u
#define DEBUG_MAX    255u

static int debug_ok;

static uint32_t desc_word(uint32_t off)
{
    const uint8_t *p = agb_rom_desc + off;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int agb_debug_available(void)
{
    return debug_ok;
}

void agb_init(void)
{
    agb_results.done = 0;
    agb_results.status = 0;
    agb_results.count = 0;
    agb_results.data_addr = 0;
    agb_results.data_words = 0;
    agb_results.version = AGB_RESULTS_VERSION;
    agb_results.magic = AGB_RESULTS_MAGIC;

    agb_host_markers = (desc_word(AGB_DESC_OFF_FLAGS) & AGB_DESC_HOST_MARKERS) ? 1u : 0u;

    AGB_REG16(DEBUG_ENABLE) = 0xC0DE;
    debug_ok = AGB_REG16(DEBUG_ENABLE) == 0x1DEA;

    AGB_REG16(AGB_REG_IME) = 0;
    agb_cycles_calibrate();
}

const void *agb_payload(uint32_t *len)
{
    uint32_t off = desc_word(AGB_DESC_OFF_PAYLOAD_OFF);
    uint32_t n = desc_word(AGB_DESC_OFF_PAYLOAD_LEN);
    if (len)
        *len = off ? n : 0;
    if (!off)
        return NULL;
    return (const void *)(uintptr_t)(0x08000000u + off);
}

uint32_t agb_fnv1a(const void *p, uint32_t len)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

void agb_debug_puts(int level, const char *s)
{
    if (!debug_ok)
        return;
    volatile uint8_t *dst = (volatile uint8_t *)(uintptr_t)DEBUG_STRING;
    uint32_t i = 0;
    while (i < DEBUG_MAX && s[i]) {
        dst[i] = (uint8_t)s[i];
        i++;
    }
    dst[i] = 0;
    AGB_REG16(DEBUG_FLAGS) = (uint16_t)((level & 7) | 0x100);
}

struct fmtbuf {
    char buf[DEBUG_MAX + 1];
    uint32_t n;
};

static void put(struct fmtbuf *f, char c)
{
    if (f->n < DEBUG_MAX)
        f->buf[f->n++] = c;
}

static void put_uint(struct fmtbuf *f, uint32_t v, uint32_t base, int upper, int width, char pad)
{
    char tmp[12];
    int n = 0;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        /* base is 10 or 16: libgcc division is fine here, this is not a measured path */
        tmp[n++] = digits[v % base];
        v /= base;
    } while (v);
    while (width-- > n)
        put(f, pad);
    while (n)
        put(f, tmp[--n]);
}

void agb_debug_printf(int level, const char *fmt, ...)
{
    if (!debug_ok)
        return;
    struct fmtbuf f;
    f.n = 0;
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put(&f, *p);
            continue;
        }
        p++;
        char pad = ' ';
        int width = 0;
        if (*p == '0') {
            pad = '0';
            p++;
        }
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (*p++ - '0');
        while (*p == 'l')
            p++;
        switch (*p) {
        case 'd':
        case 'i': {
            int32_t v = va_arg(ap, int32_t);
            uint32_t u = (uint32_t)v;
            if (v < 0) {
                put(&f, '-');
                u = 0u - u;
                if (width)
                    width--;
            }
            put_uint(&f, u, 10, 0, width, pad);
            break;
        }
        case 'u':
            put_uint(&f, va_arg(ap, uint32_t), 10, 0, width, pad);
            break;
        case 'x':
        case 'X':
            put_uint(&f, va_arg(ap, uint32_t), 16, *p == 'X', width, pad);
            break;
        case 'p':
            put(&f, '0');
            put(&f, 'x');
            put_uint(&f, (uint32_t)(uintptr_t)va_arg(ap, void *), 16, 0, 8, '0');
            break;
        case 'c':
            put(&f, (char)va_arg(ap, int));
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            while (*s)
                put(&f, *s++);
            break;
        }
        case '%':
            put(&f, '%');
            break;
        case '\0':
            p--;
            break;
        default:
            put(&f, '%');
            put(&f, *p);
            break;
        }
    }
    va_end(ap);
    f.buf[f.n] = 0;
    agb_debug_puts(level, f.buf);
}

void agb_result_push(uint32_t v)
{
    uint32_t n = agb_results.count;
    if (n < AGB_RESULTS_VALUES) {
        agb_results.values[n] = v;
        agb_results.count = n + 1;
    }
}

void agb_done(int32_t status)
{
    agb_results.status = status;
    __asm__ volatile("" ::: "memory");
    agb_results.done = 1;
}

void agb_halt(void)
{
    for (;;)
        __asm__ volatile("" ::: "memory");
}
