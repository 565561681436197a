/* agb-mgba-run — developer tool: boot an agbsim ROM in libmgba, print its debug output,
 * results block and markers.
 *   agb-mgba-run ROM.gba [--payload FILE] [--frames N] [--png OUT.png] [--no-markers] [--quiet]
 * Exit: 0 done with status 0, 1 ROM status != 0 or timeout, 2 usage, 3 error. */
#include "mgba_runner.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: agb-mgba-run ROM.gba [--payload FILE] [--frames N] [--png OUT.png]\n"
          "                    [--no-markers] [--quiet]\n",
          f);
}

static void *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    rewind(f);
    void *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    struct agb_mgba_options o = { 0 };
    const char *rom = NULL, *payload_path = NULL;
    int quiet = 0;
    o.host_markers = 1;
    o.extra_frames = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--payload") && i + 1 < argc) {
            payload_path = argv[++i];
        } else if (!strcmp(a, "--frames") && i + 1 < argc) {
            o.max_frames = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--png") && i + 1 < argc) {
            o.png_path = argv[++i];
        } else if (!strcmp(a, "--no-markers")) {
            o.host_markers = 0;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (a[0] != '-' && !rom) {
            rom = a;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!rom) {
        usage(stderr);
        return 2;
    }
    void *payload = NULL;
    if (payload_path) {
        payload = slurp(payload_path, &o.payload_len);
        if (!payload) {
            fprintf(stderr, "agb-mgba-run: %s: %s\n", payload_path, strerror(errno));
            return 3;
        }
        o.payload = payload;
    }
    o.echo_log = !quiet;
    struct agb_mgba_result r;
    int rc = agb_mgba_run_ex(rom, &o, &r);
    free(payload);
    if (rc == AGB_MGBA_ERROR) {
        fprintf(stderr, "agb-mgba-run: %s\n", r.error);
        agb_mgba_result_free(&r);
        return 3;
    }
    printf("done %d status %" PRId32 " frames %" PRIu64 " cycles %" PRIu64 "\n", r.done, r.status,
           r.frames, r.cycles);
    printf("timer_overhead %" PRIu32 " payload_len %" PRIu32 " payload_sum %08" PRIx32 "\n",
           r.results.timer_overhead, r.results.payload_len, r.results.payload_sum);
    for (uint32_t i = 0; i < r.results.count && i < AGB_RESULTS_VALUES; i++)
        printf("value[%" PRIu32 "] %" PRIu32 "\n", i, r.results.values[i]);
    for (size_t i = 0; i < r.marker_count; i++)
        printf("marker %" PRIu32 " value %" PRIu32 " cycle %" PRIu64 "\n", r.markers[i].id,
               r.markers[i].value, r.markers[i].cycle);
    int code = (rc == AGB_MGBA_OK && r.status == 0) ? 0 : 1;
    if (rc == AGB_MGBA_TIMEOUT)
        fprintf(stderr, "agb-mgba-run: ROM did not finish within the frame limit\n");
    agb_mgba_result_free(&r);
    return code;
}
