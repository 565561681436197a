/* mgba_runner.c — headless libmgba host for agbsim ROMs (see mgba_runner.h). */
#include <mgba/flags.h> /* first: fixes the layout of struct mCore */

#include "mgba_runner.h"
#include "mgba_cache.h"

#include <mgba/core/core.h>
#include <mgba/core/config.h>
#include <mgba/core/log.h>
#include <mgba/core/timing.h>
#include <mgba/gba/core.h>
#include <mgba/internal/arm/arm.h>
#include <mgba/internal/gba/gba.h>
#include <mgba-util/vfs.h>

#include <png.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct agb_mgba {
    struct mCore *core;
    color_t *video;
    unsigned width, height;
    struct agb_mgba_options opt;
    uint32_t results_addr;
    uint32_t payload_offset;

    struct mLogger logger;       /* installed while frames run */
    struct mLogger *prev_logger;
    int debug_category;

    void (*orig_swi16)(struct ARMCore *, int);
    void (*orig_swi32)(struct ARMCore *, int);

    struct agb_mgba_marker *markers;
    size_t marker_count, marker_cap;
    char *log;
    size_t log_len, log_cap;
    uint64_t frames;
    int oom;
    /* Developer profile (AGB_MGBA_PROFILE=FILE): instructions and cycles per code address while
     * an op is timed (between OP_BEGIN and OP_END markers), written at close. */
    int in_op;
    uint32_t *prof_count, *prof_cycles;
};

static _Thread_local struct agb_mgba *active;

/* ---- small helpers ----------------------------------------------------------------------- */

static void set_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* At most this many bytes of a ROM are read: the GBA cartridge space (32 MiB). */
#define ROM_MAX_BYTES ((size_t)32 << 20)

/* A regular file's bytes, at most ROM_MAX_BYTES (EFBIG beyond; EINVAL: not a regular file). */
static unsigned char *read_file(const char *path, size_t *len)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        errno = EINVAL;
        return NULL;
    }
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1u << 20;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
        if (n > ROM_MAX_BYTES) {
            free(buf);
            fclose(f);
            errno = EFBIG;
            return NULL;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* ---- logging: collect "GBA Debug" prints ------------------------------------------------- */

static void log_append(struct agb_mgba *s, const char *line, size_t n)
{
    if (s->log_len + n + 2 > s->log_cap) {
        size_t cap = s->log_cap ? s->log_cap * 2 : 4096;
        while (cap < s->log_len + n + 2)
            cap *= 2;
        char *nl = realloc(s->log, cap);
        if (!nl) {
            s->oom = 1;
            return;
        }
        s->log = nl;
        s->log_cap = cap;
    }
    memcpy(s->log + s->log_len, line, n);
    s->log_len += n;
    s->log[s->log_len++] = '\n';
    s->log[s->log_len] = 0;
}

static void on_log(struct mLogger *logger, int category, enum mLogLevel level, const char *format,
                   va_list args)
{
    struct agb_mgba *s = (struct agb_mgba *)((char *)logger - offsetof(struct agb_mgba, logger));
    char line[512];
    int n = vsnprintf(line, sizeof line, format, args);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (category == s->debug_category) {
        log_append(s, line, (size_t)n);
        if (s->opt.echo_log)
            fprintf(stderr, "[gba] %s\n", line);
    } else if (getenv("AGB_MGBA_VERBOSE")) {
        fprintf(stderr, "[mgba %s %d] %s\n", mLogCategoryId(category), (int)level, line);
    }
}

static void logger_push(struct agb_mgba *s)
{
    s->prev_logger = mLogGetContext();
    mLogSetDefaultLogger(&s->logger);
    active = s;
}

static void logger_pop(struct agb_mgba *s)
{
    mLogSetDefaultLogger(s->prev_logger);
    active = NULL;
}

/* ---- host markers: SWI 0xF0 ---------------------------------------------------------------- */

static void record_marker(struct ARMCore *cpu)
{
    struct agb_mgba *s = active;
    if (!s)
        return;
    if (s->marker_count == s->marker_cap) {
        size_t cap = s->marker_cap ? s->marker_cap * 2 : 1024;
        struct agb_mgba_marker *nm = realloc(s->markers, cap * sizeof *nm);
        if (!nm) {
            s->oom = 1;
            return;
        }
        s->markers = nm;
        s->marker_cap = cap;
    }
    struct agb_mgba_marker *m = &s->markers[s->marker_count++];
    m->id = (uint32_t)cpu->gprs[0];
    m->value = (uint32_t)cpu->gprs[1];
    m->cycle = mTimingGlobalTime(s->core->timing);
    if (m->id == 0xB0u)
        s->in_op = 1;
    else if (m->id == 0xB1u)
        s->in_op = 0;
}

/* Profile slots: ROM (first 1 MiB) then IWRAM (32 KiB), one per halfword. */
#define PROF_ROM_SLOTS (1u << 19)
#define PROF_SLOTS (PROF_ROM_SLOTS + (1u << 14))
static int prof_slot(uint32_t pc)
{
    if (pc >= 0x08000000u && pc < 0x08100000u)
        return (int)((pc - 0x08000000u) >> 1);
    if (pc >= 0x03000000u && pc < 0x03008000u)
        return (int)(PROF_ROM_SLOTS + ((pc - 0x03000000u) >> 1));
    return -1;
}

static int prof_run_until_done(struct agb_mgba *s, uint64_t max_steps);
static void prof_write(struct agb_mgba *s);

/* mGBA's own BIOS code issues SWI 0xF0 too: its HLE of a slow call (LZ77UnCompWram) returns
 * through the BIOS, which reads the call's stall cycles with that SWI. Only the ROM's SWIs
 * (issued outside the BIOS, 0x00000000-0x00003FFF) are markers; the BIOS's go on to mGBA, or
 * the stall (the decompression's time) would be lost. */
static int from_bios(const struct ARMCore *cpu)
{
    return (uint32_t)cpu->gprs[ARM_PC] < 0x4000u;
}

static void hook_swi16(struct ARMCore *cpu, int immediate)
{
    struct agb_mgba *s = active;
    if (!s)
        return;
    if (immediate == (int)AGB_MARKER_SWI && !from_bios(cpu)) {
        record_marker(cpu);
        return;
    }
    s->orig_swi16(cpu, immediate);
}

static void hook_swi32(struct ARMCore *cpu, int immediate)
{
    struct agb_mgba *s = active;
    if (!s)
        return;
    if ((immediate >> 16) == (int)AGB_MARKER_SWI && !from_bios(cpu)) {
        record_marker(cpu);
        return;
    }
    s->orig_swi32(cpu, immediate);
}

/* ---- session ------------------------------------------------------------------------------- */

/* The ROM image at rom_path with its agbsim descriptor at 0xC0; NULL (err set) otherwise. */
static unsigned char *load_rom(const char *rom_path, int any_rom, size_t *rom_len, char *err,
                               size_t err_len)
{
    unsigned char *rom = read_file(rom_path, rom_len);
    if (!rom) {
        set_err(err, err_len, "%s: %s", rom_path, strerror(errno));
        return NULL;
    }
    if (any_rom && *rom_len == 0) {
        set_err(err, err_len, "%s: empty file", rom_path);
        free(rom);
        return NULL;
    }
    if (!any_rom && (*rom_len < AGB_DESC_ROM_OFFSET + AGB_DESC_SIZE
        || memcmp(rom + AGB_DESC_ROM_OFFSET, AGB_DESC_MAGIC, 8) != 0)) {
        set_err(err, err_len, "%s: not an agbsim ROM (no descriptor at 0xC0)", rom_path);
        free(rom);
        return NULL;
    }
    return rom;
}

/* Patches the descriptor (host markers) and places the payload after the ROM, at the offset
 * the options ask for. *rom may move. Returns 0, or -1 with err set. */
static int place_payload(struct agb_mgba *s, const struct agb_mgba_options *opt,
                         unsigned char **rom, size_t *rom_len, char *err, size_t err_len)
{
    if (opt->any_rom)
        return 0; /* not ours: nothing to patch */
    unsigned char *desc = *rom + AGB_DESC_ROM_OFFSET;
    uint32_t flags = get32(desc + AGB_DESC_OFF_FLAGS);
    if (opt->host_markers)
        flags |= AGB_DESC_HOST_MARKERS;
    put32(desc + AGB_DESC_OFF_FLAGS, flags);
    if (!opt->payload || !opt->payload_len)
        return 0;
    size_t off = opt->payload_rom_offset;
    if (off == AGB_MGBA_PAYLOAD_APPEND)
        off = (*rom_len + AGB_PAYLOAD_ALIGN - 1) & ~(size_t)(AGB_PAYLOAD_ALIGN - 1);
    if (off < *rom_len || (off & 3) || off + opt->payload_len > (32u << 20)) {
        set_err(err, err_len, "payload offset 0x%zx/length %zu does not fit after the %zu-byte ROM",
                off, opt->payload_len, *rom_len);
        return -1;
    }
    size_t total = off + opt->payload_len;
    unsigned char *nr = realloc(*rom, total);
    if (!nr) {
        set_err(err, err_len, "out of memory");
        return -1;
    }
    *rom = nr;
    desc = nr + AGB_DESC_ROM_OFFSET;
    memset(nr + *rom_len, 0xFF, off - *rom_len);
    memcpy(nr + off, opt->payload, opt->payload_len);
    put32(desc + AGB_DESC_OFF_PAYLOAD_OFF, (uint32_t)off);
    put32(desc + AGB_DESC_OFF_PAYLOAD_LEN, (uint32_t)opt->payload_len);
    *rom_len = total;
    s->payload_offset = (uint32_t)off;
    return 0;
}

/* The mGBA GBA core with its video buffer, idle-loop removal off. Returns 0, or -1 with err
 * set (s->core may be set then: agb_mgba_close releases it). */
static int create_core(struct agb_mgba *s, char *err, size_t err_len)
{
    struct mCore *core = GBACoreCreate();
    if (!core || !core->init(core)) {
        set_err(err, err_len, "mGBA: cannot create a GBA core");
        return -1;
    }
    s->core = core;
    mCoreInitConfig(core, NULL); /* in memory only; mCoreLoadConfig would touch $HOME */
    mCoreConfigSetValue(&core->config, "idleOptimization", "ignore");
    core->loadConfig(core, &core->config);
    /* Belt and braces: idle-loop removal would skip cycles the ROM is measuring. */
    ((struct GBA *)core->board)->idleOptimization = IDLE_LOOP_IGNORE;

    core->desiredVideoDimensions(core, &s->width, &s->height);
    s->video = calloc((size_t)s->width * s->height, sizeof *s->video);
    if (!s->video) {
        set_err(err, err_len, "out of memory");
        return -1;
    }
    core->setVideoBuffer(core, s->video, s->width);
    return 0;
}

/* Loads the image into the core (VFileMemChunk copies it; the core owns the VFile from here
 * on), resets it and hooks the SWIs the ROM talks to the host through. Returns 0, or -1. */
static int boot(struct agb_mgba *s, const unsigned char *rom, size_t rom_len,
                const char *rom_path, char *err, size_t err_len)
{
    struct mCore *core = s->core;
    struct VFile *vf = VFileMemChunk(rom, rom_len);
    if (!vf || !core->loadROM(core, vf)) {
        if (vf)
            vf->close(vf);
        set_err(err, err_len, "%s: mGBA refused the ROM", rom_path);
        return -1;
    }
    logger_push(s);
    core->reset(core);
    logger_pop(s);

    struct ARMCore *cpu = core->cpu;
    s->orig_swi16 = cpu->irqh.swi16;
    s->orig_swi32 = cpu->irqh.swi32;
    cpu->irqh.swi16 = hook_swi16;
    cpu->irqh.swi32 = hook_swi32;
    return 0;
}

struct agb_mgba *agb_mgba_open(const char *rom_path, const struct agb_mgba_options *opt,
                               char *err, size_t err_len)
{
    static const struct agb_mgba_options defaults = { 0 };
    if (!opt)
        opt = &defaults;
    size_t rom_len = 0;
    unsigned char *rom = load_rom(rom_path, opt->any_rom, &rom_len, err, err_len);
    if (!rom)
        return NULL;
    struct agb_mgba *s = calloc(1, sizeof *s);
    if (!s) {
        free(rom);
        set_err(err, err_len, "out of memory");
        return NULL;
    }
    s->opt = *opt;
    s->opt.payload = NULL; /* not kept */
    s->results_addr = opt->any_rom ? AGB_RESULTS_ADDR
                                   : get32(rom + AGB_DESC_ROM_OFFSET + AGB_DESC_OFF_RESULTS);
    s->logger.log = on_log;
    s->logger.filter = NULL;
    s->debug_category = mLogCategoryById("gba.debug");

    int bad = place_payload(s, opt, &rom, &rom_len, err, err_len) != 0
              || create_core(s, err, err_len) != 0
              || boot(s, rom, rom_len, rom_path, err, err_len) != 0;
    free(rom);
    if (bad) {
        agb_mgba_close(s);
        return NULL;
    }
    return s;
}

static int is_done(struct agb_mgba *s)
{
    return s->core->busRead32(s->core, s->results_addr) == AGB_RESULTS_MAGIC
           && s->core->busRead32(s->core, s->results_addr + AGB_RESULTS_OFF_DONE) != 0;
}

void agb_mgba_run_frames(struct agb_mgba *s, uint64_t n)
{
    logger_push(s);
    for (uint64_t i = 0; i < n; i++) {
        s->core->runFrame(s->core);
        s->frames++;
    }
    logger_pop(s);
}

int agb_mgba_run_until_done(struct agb_mgba *s, uint64_t max_frames)
{
    int rc = AGB_MGBA_TIMEOUT;
    if (getenv("AGB_MGBA_PROFILE"))
        return prof_run_until_done(s, max_frames * 300000u);
    logger_push(s);
    for (uint64_t i = 0; i < max_frames; i++) {
        s->core->runFrame(s->core);
        s->frames++;
        if (is_done(s)) {
            rc = AGB_MGBA_OK;
            break;
        }
    }
    logger_pop(s);
    return rc;
}

uint32_t agb_mgba_read32(struct agb_mgba *s, uint32_t addr)
{
    return s->core->busRead32(s->core, addr);
}

uint64_t agb_mgba_cycles(struct agb_mgba *s)
{
    return mTimingGlobalTime(s->core->timing);
}

int agb_mgba_save_png(struct agb_mgba *s, const char *path)
{
    return agb_png_write_xbgr8(path, (const uint32_t *)s->video, s->width, s->height, s->width);
}

const char *agb_mgba_log(const struct agb_mgba *s, size_t *len)
{
    *len = s->log ? s->log_len : 0;
    return s->log ? s->log : "";
}

struct mCore *agb_mgba_core(struct agb_mgba *s)
{
    return s->core;
}

void agb_mgba_collect(struct agb_mgba *s, struct agb_mgba_result *out)
{
    out->frames = s->frames;
    out->cycles = agb_mgba_cycles(s);
    out->payload_offset = s->payload_offset;
    uint32_t *w = (uint32_t *)&out->results;
    for (size_t i = 0; i < sizeof out->results / 4; i++)
        w[i] = agb_mgba_read32(s, s->results_addr + 4 * (uint32_t)i);
    out->done = out->results.magic == AGB_RESULTS_MAGIC && out->results.done;
    out->status = out->results.status;
    if (out->results.magic == AGB_RESULTS_MAGIC && out->results.data_addr && out->results.data_words
        && out->results.data_words <= (1u << 20)) {
        out->data = malloc(out->results.data_words * sizeof *out->data);
        if (out->data) {
            out->data_words = out->results.data_words;
            for (size_t i = 0; i < out->data_words; i++)
                out->data[i] = agb_mgba_read32(s, out->results.data_addr + 4 * (uint32_t)i);
        }
    }
    out->markers = s->markers;
    out->marker_count = s->marker_count;
    s->markers = NULL;
    s->marker_count = s->marker_cap = 0;
    if (!s->log) {
        s->log = calloc(1, 1);
        s->log_len = 0;
    }
    out->log = s->log;
    out->log_len = s->log_len;
    s->log = NULL;
    s->log_len = s->log_cap = 0;
}

void agb_mgba_close(struct agb_mgba *s)
{
    if (!s)
        return;
    if (s->core) {
        if (s->orig_swi16) {
            struct ARMCore *cpu = s->core->cpu;
            cpu->irqh.swi16 = s->orig_swi16;
            cpu->irqh.swi32 = s->orig_swi32;
        }
        mCoreConfigDeinit(&s->core->config);
        s->core->deinit(s->core);
    }
    free(s->video);
    free(s->markers);
    free(s->log);
    free(s);
}

static int prof_run_until_done(struct agb_mgba *s, uint64_t max_steps)
{
    int rc = AGB_MGBA_TIMEOUT;
    struct ARMCore *cpu = s->core->cpu;
    s->prof_count = calloc(PROF_SLOTS, 4);
    s->prof_cycles = calloc(PROF_SLOTS, 4);
    logger_push(s);
    for (uint64_t i = 0; i < max_steps; i++) {
        uint32_t pc = (uint32_t)cpu->gprs[15] - (cpu->executionMode == MODE_THUMB ? 4u : 8u);
        uint64_t t0 = mTimingGlobalTime(s->core->timing);
        int was = s->in_op;
        s->core->step(s->core);
        if (was && s->in_op) {
            int k = prof_slot(pc);
            if (k >= 0) {
                s->prof_count[k]++;
                s->prof_cycles[k] += (uint32_t)(mTimingGlobalTime(s->core->timing) - t0);
            }
        }
        if ((i & 4095u) == 0 && is_done(s)) {
            rc = AGB_MGBA_OK;
            break;
        }
    }
    logger_pop(s);
    prof_write(s);
    return rc;
}

static void prof_write(struct agb_mgba *s)
{
    FILE *f = fopen(getenv("AGB_MGBA_PROFILE"), "w");
    if (!f)
        return;
    for (uint32_t k = 0; k < PROF_SLOTS; k++)
        if (s->prof_count[k])
            fprintf(f, "%08x %u %u\n",
                    k < PROF_ROM_SLOTS ? 0x08000000u + 2u * k : 0x03000000u + 2u * (k - PROF_ROM_SLOTS),
                    s->prof_count[k], s->prof_cycles[k]);
    fclose(f);
    free(s->prof_count);
    free(s->prof_cycles);
    s->prof_count = s->prof_cycles = NULL;
}

/* ---- one-shot ------------------------------------------------------------------------------- */

static int run_once(const char *rom_path, const struct agb_mgba_options *opt,
                    struct agb_mgba_result *out);


int agb_mgba_run_ex(const char *rom_path, const struct agb_mgba_options *opt,
                    struct agb_mgba_result *out)
{
    memset(out, 0, sizeof *out);
    int cached_rc;
    int cache = agb_mgba_cache_usable(opt);
    if (cache && agb_mgba_cache_load(rom_path, opt, out, &cached_rc))
        return cached_rc;
    int rc = run_once(rom_path, opt, out);
    if (cache)
        agb_mgba_cache_store(rom_path, opt, out, rc);
    return rc;
}

static int run_once(const char *rom_path, const struct agb_mgba_options *opt,
                    struct agb_mgba_result *out)
{
    struct agb_mgba *s = agb_mgba_open(rom_path, opt, out->error, sizeof out->error);
    if (!s)
        return AGB_MGBA_ERROR;
    uint64_t max = opt && opt->max_frames ? opt->max_frames : 3600;
    int rc = agb_mgba_run_until_done(s, max);
    if (opt && opt->extra_frames)
        agb_mgba_run_frames(s, opt->extra_frames);
    agb_mgba_collect(s, out);
    if (opt && opt->png_path && agb_mgba_save_png(s, opt->png_path) != 0) {
        snprintf(out->error, sizeof out->error, "%s: cannot write PNG", opt->png_path);
        rc = AGB_MGBA_ERROR;
    }
    if (s->oom) {
        snprintf(out->error, sizeof out->error, "out of memory while collecting markers/log");
        rc = AGB_MGBA_ERROR;
    }
    agb_mgba_close(s);
    return rc;
}

int agb_mgba_run(const char *rom_path, const void *payload, size_t payload_len,
                 uint32_t payload_rom_offset, uint64_t max_frames, struct agb_mgba_result *out)
{
    struct agb_mgba_options o = { 0 };
    o.payload = payload;
    o.payload_len = payload_len;
    o.payload_rom_offset = payload_rom_offset;
    o.max_frames = max_frames;
    o.host_markers = 1;
    return agb_mgba_run_ex(rom_path, &o, out);
}

void agb_mgba_result_free(struct agb_mgba_result *r)
{
    if (!r)
        return;
    free(r->data);
    free(r->markers);
    free(r->log);
    r->data = NULL;
    r->markers = NULL;
    r->log = NULL;
    r->data_words = r->marker_count = r->log_len = 0;
}

uint64_t agb_mgba_marker_span(const struct agb_mgba_result *r, uint32_t begin_id, uint32_t end_id)
{
    for (size_t i = 0; i < r->marker_count; i++) {
        if (r->markers[i].id != begin_id)
            continue;
        for (size_t j = i + 1; j < r->marker_count; j++)
            if (r->markers[j].id == end_id)
                return r->markers[j].cycle - r->markers[i].cycle;
        return 0;
    }
    return 0;
}

/* ---- PNG ------------------------------------------------------------------------------------ */

int agb_png_write_xbgr8(const char *path, const uint32_t *pixels, unsigned width, unsigned height,
                        size_t stride_pixels)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *row = malloc((size_t)width * 3);
    if (!png || !info || !row) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(row);
        fclose(f);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        fclose(f);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (unsigned y = 0; y < height; y++) {
        const uint32_t *src = pixels + (size_t)y * stride_pixels;
        for (unsigned x = 0; x < width; x++) {
            uint32_t c = src[x];
            row[3 * x + 0] = (unsigned char)(c & 0xFF);
            row[3 * x + 1] = (unsigned char)((c >> 8) & 0xFF);
            row[3 * x + 2] = (unsigned char)((c >> 16) & 0xFF);
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    return fclose(f) == 0 ? 0 : -1;
}
