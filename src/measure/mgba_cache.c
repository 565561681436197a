/* mgba_cache.c — a content-addressed store of one-shot mGBA runs (see mgba_cache.h).
 *
 * An entry's name is a 128-bit digest (two independent FNV-1a 64 streams) of everything the
 * run depends on but max_frames: only finished runs are kept, and a run that finished within
 * the frames asked for is the run this call would make. Its content is the collected agb_mgba_result, written to a unique temporary
 * file and renamed into place, so concurrent writers of one key leave one whole entry. */
#include "mgba_cache.h"
#include <mgba/core/version.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC 0x31434d41u /* "AMC1" */

struct digest {
    uint64_t a, b;
};

static void digest_add(struct digest *d, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        d->a = (d->a ^ c[i]) * 0x100000001b3ull;
        d->b = (d->b ^ (unsigned char)(c[i] + 0x5bu)) * 0x00000100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
}

static void digest_u64(struct digest *d, uint64_t v)
{
    digest_add(d, &v, sizeof v);
}

static int read_whole(const char *path, unsigned char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1u << 20, n = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        unsigned char *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        return -1;
    }
    *buf = b;
    *len = n;
    return 0;
}

/* The entry's path for this run, or -1 when the run cannot be cached. */
static int entry_path(const char *dir, const char *rom_path, const struct agb_mgba_options *opt,
                      char *out, size_t out_len)
{
    unsigned char *rom;
    size_t rom_len;
    if (read_whole(rom_path, &rom, &rom_len) != 0)
        return -1;
    struct digest d = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };
    static const char tag[] = "agbsim mgba run v1 " __DATE__ " " __TIME__;
    digest_add(&d, tag, sizeof tag);
    digest_add(&d, projectVersion, strlen(projectVersion));
    digest_u64(&d, rom_len);
    digest_add(&d, rom, rom_len);
    free(rom);
    digest_u64(&d, opt->payload_len);
    if (opt->payload_len)
        digest_add(&d, opt->payload, opt->payload_len);
    digest_u64(&d, opt->payload_rom_offset);
    digest_u64(&d, (uint64_t)opt->host_markers);
    digest_u64(&d, opt->extra_frames);
    int n = snprintf(out, out_len, "%s/%016llx%016llx.run", dir, (unsigned long long)d.a,
                     (unsigned long long)d.b);
    return n > 0 && (size_t)n < out_len ? 0 : -1;
}

int agb_mgba_cache_usable(const struct agb_mgba_options *opt)
{
    const char *dir = getenv("AGBSIM_MGBA_CACHE");
    return dir && *dir && opt && !opt->png_path && !opt->any_rom && !opt->echo_log &&
           !getenv("AGB_MGBA_PROFILE");
}

struct entry_head {
    uint32_t magic;
    int32_t rc, done, status;
    uint64_t frames, cycles;
    uint32_t payload_offset;
    uint32_t pad;
    uint64_t data_words, marker_count, log_len;
};

int agb_mgba_cache_load(const char *rom_path, const struct agb_mgba_options *opt,
                        struct agb_mgba_result *out, int *rc)
{
    char path[4096];
    if (entry_path(getenv("AGBSIM_MGBA_CACHE"), rom_path, opt, path, sizeof path) != 0)
        return 0;
    unsigned char *buf;
    size_t len;
    if (read_whole(path, &buf, &len) != 0)
        return 0;
    struct entry_head h;
    size_t need = sizeof h + sizeof out->results;
    if (len < need)
        goto stale;
    memcpy(&h, buf, sizeof h);
    /* Only finished runs are kept, so a run that finished within the frames asked for now is
     * the run this call would make (max_frames only decides when an unfinished run stops). */
    uint64_t max_frames = opt->max_frames ? opt->max_frames : 3600;
    if (h.magic != CACHE_MAGIC || h.rc != AGB_MGBA_OK || h.frames > max_frames || h.data_words > (1u << 20) || h.marker_count > (len / 16) ||
        h.log_len > len)
        goto stale;
    need += h.data_words * 4 + h.marker_count * sizeof(struct agb_mgba_marker) + h.log_len + 1;
    if (len != need)
        goto stale;
    memset(out, 0, sizeof *out);
    const unsigned char *p = buf + sizeof h;
    memcpy(&out->results, p, sizeof out->results);
    p += sizeof out->results;
    out->data = h.data_words ? malloc(h.data_words * 4) : NULL;
    out->markers = h.marker_count ? malloc(h.marker_count * sizeof *out->markers) : NULL;
    out->log = malloc(h.log_len + 1);
    if ((h.data_words && !out->data) || (h.marker_count && !out->markers) || !out->log) {
        agb_mgba_result_free(out);
        free(buf);
        return 0;
    }
    if (h.data_words)
        memcpy(out->data, p, h.data_words * 4);
    p += h.data_words * 4;
    if (h.marker_count)
        memcpy(out->markers, p, h.marker_count * sizeof *out->markers);
    p += h.marker_count * sizeof *out->markers;
    memcpy(out->log, p, h.log_len + 1);
    out->data_words = h.data_words;
    out->marker_count = h.marker_count;
    out->log_len = h.log_len;
    out->done = h.done;
    out->status = h.status;
    out->frames = h.frames;
    out->cycles = h.cycles;
    out->payload_offset = h.payload_offset;
    *rc = h.rc;
    free(buf);
    return 1;
stale:
    free(buf);
    return 0;
}

void agb_mgba_cache_store(const char *rom_path, const struct agb_mgba_options *opt,
                          const struct agb_mgba_result *r, int rc)
{
    if (rc != AGB_MGBA_OK || !r->done)
        return; /* kept: finished runs only (an error may be the host's; a timeout depends on
                   max_frames) */
    const char *dir = getenv("AGBSIM_MGBA_CACHE");
    char path[4096], tmp[4200];
    if (dir == NULL || dir[0] == '\0')
        return;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return;
    if (entry_path(dir, rom_path, opt, path, sizeof path) != 0)
        return;
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
        return;
    }
    struct entry_head h = { CACHE_MAGIC, rc, r->done, r->status, r->frames, r->cycles,
                            r->payload_offset, 0, r->data_words, r->marker_count, r->log_len };
    int ok = fwrite(&h, sizeof h, 1, f) == 1 &&
             fwrite(&r->results, sizeof r->results, 1, f) == 1 &&
             (!r->data_words || fwrite(r->data, 4, r->data_words, f) == r->data_words) &&
             (!r->marker_count ||
              fwrite(r->markers, sizeof *r->markers, r->marker_count, f) == r->marker_count) &&
             fwrite(r->log ? r->log : "", 1, r->log_len, f) == r->log_len && fputc(0, f) == 0;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}
