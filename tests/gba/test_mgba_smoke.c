/* test_mgba_smoke.c — boots agbsim-smoke.gba / agbsim-bench.gba in libmgba (headless) and
 * checks the GBA build end to end: cartridge header, runtime start-up, debug channel, timer
 * cascade, host markers, payload patching, frame grab.
 *
 *   test_mgba_smoke SMOKE.gba BENCH.gba
 *
 * Expected cycle counts. The loops are fixed assembly (src/gba/roms/smoke_loops.s):
 *   Thumb, in ROM:   ldr r3,[r1] (IWRAM) ; adds ; subs ; bne
 *   ARM, in IWRAM:   ldr r3,[r1]         ; add  ; subs ; bne
 * Per-iteration cost from the ARM7TDMI's cycle timings (docs/design.md, "The machine and its bus model"; ARM7TDMI: LDR 1S+1N+1I, ALU 1S, B 2S+1N; code cycles
 * at the code region's wait states, data at the data region's; ROM N/S 16-bit = 5/3 at
 * WAITCNT 0000h, 4/2 at 4317h; with prefetch off an opcode with internal cycles turns the next
 * fetch from S into N):
 *   Thumb ROM 0000h: ldr 3+1+1, adds N 5, subs 3, bne 3+3+5        = 24
 *   Thumb ROM 0317h: ldr 2+1+1, adds N 4, subs 2, bne 2+2+4        = 18
 *   Thumb ROM 4317h: prefetch buffer on: must be cheaper than 0317h; mGBA gives 14
 *   ARM IWRAM, IWRAM data: 3 + 1 + 1 + 3                          = 8
 *   ARM IWRAM, EWRAM data (N32 = 6): 8 - 1 + 6                    = 13
 *   ARM IWRAM, ROM data at 4317h (N32 = 6)                        = 13
 * (Longer published 1000-iteration loops give 22/26/36 and 10/15/15 cycles; the ratios
 * between the settings agree.) mGBA is deterministic, so tolerances are tight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agb_romhdr.h"
#include "mgba_runner.h"
#include "smoke_abi.h"
#include "lz77_sample.h"
#include "agbsim/metrics.h"

static const char *smoke_rom;
static const char *bench_rom;
static char tmpdir[256];

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static uint32_t fnv1a(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

static void check_header(const char *path, const char *title, const char *code)
{
    size_t len = 0;
    unsigned char *rom = slurp(path, &len);
    assert_non_null(rom);
    char why[128] = "";
    int rc = agb_romhdr_check(rom, len, why, sizeof why);
    if (rc)
        print_error("%s: %s\n", path, why);
    assert_int_equal(rc, 0);
    assert_int_equal(rom[3], 0xEA);   /* ARM branch over the header */
    assert_int_equal(rom[0xB2], 0x96);
    unsigned sum = 0;
    for (unsigned i = 0xA0; i <= 0xBD; i++)
        sum += rom[i];
    assert_int_equal((sum + 0x19) & 0xFF, 0);
    assert_memory_equal(rom + 0xA0, title, strlen(title));
    assert_memory_equal(rom + 0xAC, code, 4);
    assert_memory_equal(rom + 0xC0, AGB_DESC_MAGIC, 8);
    free(rom);
}

static void test_headers(void **state)
{
    (void)state;
    check_header(smoke_rom, "AGBSIM SMOKE", "AGBS");
    check_header(bench_rom, "AGBSIM BENCH", "AGBB");
}

static void test_romhdr_fix(void **state)
{
    (void)state;
    unsigned char rom[AGB_HDR_SIZE] = { 0 };
    rom[3] = 0xEA;
    assert_int_equal(agb_romhdr_fix(rom, sizeof rom, "HELLO", "ABCD", "01", 2), 0);
    assert_int_equal(rom[0xB2], 0x96);
    assert_int_equal(rom[0xBC], 2);
    assert_int_equal(agb_romhdr_check(rom, sizeof rom, NULL, 0), 0);
    rom[0xA0] ^= 1;
    assert_int_equal(agb_romhdr_check(rom, sizeof rom, NULL, 0), -1);
    assert_int_equal(agb_romhdr_fix(rom, sizeof rom, "THIRTEEN CHRS", NULL, NULL, -1), -1);
    assert_int_equal(agb_romhdr_fix(rom, sizeof rom, NULL, "ABC", NULL, -1), -1);
}

static struct agb_mgba_result smoke;
static int smoke_rc = -2;

static void run_smoke_once(void)
{
    if (smoke_rc != -2)
        return;
    struct agb_mgba_options o = { 0 };
    o.host_markers = 1;
    o.max_frames = 120;
    o.extra_frames = 1;
    char png[300];
    snprintf(png, sizeof png, "%s/smoke.png", tmpdir);
    o.png_path = png;
    smoke_rc = agb_mgba_run_ex(smoke_rom, &o, &smoke);
    if (smoke_rc == AGB_MGBA_ERROR)
        print_error("runner: %s\n", smoke.error);
}

static void test_smoke_boots(void **state)
{
    (void)state;
    run_smoke_once();
    assert_int_equal(smoke_rc, AGB_MGBA_OK);
    assert_int_equal(smoke.done, 1);
    assert_int_equal(smoke.status, 0);
    assert_int_equal(smoke.results.magic, AGB_RESULTS_MAGIC);
    assert_int_equal(smoke.results.count, AGB_SMOKE_VALUE_COUNT);
    assert_true(smoke.frames < 30);
    assert_int_equal(smoke.results.values[AGB_SMOKE_DEBUG_AVAILABLE], 1);
    assert_int_equal(smoke.results.values[AGB_SMOKE_HOST_MARKERS], 1);
    assert_int_equal(smoke.results.values[AGB_SMOKE_PAYLOAD_LEN], 0);
}

static void test_debug_print(void **state)
{
    (void)state;
    run_smoke_once();
    assert_non_null(smoke.log);
    assert_non_null(strstr(smoke.log, "smoke: thumb/rom 4317h "));
    assert_non_null(strstr(smoke.log, "smoke: fmt check [-42] [    7] [BEEF] [ok] [Z]%\n"));
}

#define PER_K(i) (smoke.results.values[(i)])
static void near(uint32_t got, uint32_t want, uint32_t tol, const char *what)
{
    if (got + tol < want || got > want + tol)
        fail_msg("%s: %u cycles per %lu iterations, expected %u +- %u", what, (unsigned)got,
                 (unsigned long)AGB_SMOKE_ITERS, (unsigned)want, (unsigned)tol);
}

static void test_timer_cycles(void **state)
{
    (void)state;
    run_smoke_once();
    assert_int_equal(smoke_rc, AGB_MGBA_OK);
    uint32_t o = smoke.results.timer_overhead;
    assert_true(o >= 1 && o <= 8);
    near(PER_K(AGB_SMOKE_THUMB_ROM_0000), 24000, 50, "Thumb ROM loop, WAITCNT 0000h");
    near(PER_K(AGB_SMOKE_THUMB_ROM_0317), 18000, 50, "Thumb ROM loop, WAITCNT 0317h");
    near(PER_K(AGB_SMOKE_THUMB_ROM_4317), 14000, 1000, "Thumb ROM loop, WAITCNT 4317h");
    assert_true(PER_K(AGB_SMOKE_THUMB_ROM_4317) < PER_K(AGB_SMOKE_THUMB_ROM_0317));
    near(PER_K(AGB_SMOKE_ARM_IWRAM_IWRAM), 8000, 50, "ARM IWRAM loop, IWRAM data");
    near(PER_K(AGB_SMOKE_ARM_IWRAM_EWRAM), 13000, 50, "ARM IWRAM loop, EWRAM data");
    near(PER_K(AGB_SMOKE_ARM_IWRAM_ROM), 13000, 50, "ARM IWRAM loop, ROM data 4317h");
}

/* The resource cache's load costs (agbsim/metrics.h) are these measurements: both decompressions
 * produce the sample's bytes, and the constants stay within 1% of what the ROM measures. */
static void test_load_costs(void **state)
{
    (void)state;
    run_smoke_once();
    assert_int_equal(smoke_rc, AGB_MGBA_OK);
    assert_int_equal(PER_K(AGB_SMOKE_LZ77_FNV1A), AGB_LZ77_SAMPLE_FNV1A);
    assert_int_equal(PER_K(AGB_SMOKE_LZ77_CODE_FNV1A), AGB_LZ77_SAMPLE_FNV1A);
    uint64_t copy = (uint64_t)PER_K(AGB_SMOKE_COPY32_4K) * 1000u / AGB_LZ77_SAMPLE_RAW_BYTES;
    uint64_t lz = (uint64_t)PER_K(AGB_SMOKE_LZ77_4K) * 1000u / AGB_LZ77_SAMPLE_RAW_BYTES;
    if (copy * 100 > AGB_LOAD_COST_COPY_MILLI * 101ull || copy * 101 < AGB_LOAD_COST_COPY_MILLI * 100ull)
        fail_msg("copy measures %llu milli-cycles per byte, AGB_LOAD_COST_COPY_MILLI is %u",
                 (unsigned long long)copy, AGB_LOAD_COST_COPY_MILLI);
    if (lz * 100 > AGB_LOAD_COST_LZ77_MILLI * 101ull || lz * 101 < AGB_LOAD_COST_LZ77_MILLI * 100ull)
        fail_msg("lz77 measures %llu milli-cycles per byte, AGB_LOAD_COST_LZ77_MILLI is %u",
                 (unsigned long long)lz, AGB_LOAD_COST_LZ77_MILLI);
}

static void test_host_markers(void **state)
{
    (void)state;
    run_smoke_once();
    assert_int_equal(smoke.marker_count, 6);
    for (size_t i = 0; i < smoke.marker_count; i++)
        assert_int_equal(smoke.markers[i].id, i + 1);
    uint64_t empty = agb_mgba_marker_span(&smoke, AGB_SMOKE_MARK_EMPTY_BEGIN, AGB_SMOKE_MARK_EMPTY_END);
    uint64_t lng = agb_mgba_marker_span(&smoke, AGB_SMOKE_MARK_LONG_BEGIN, AGB_SMOKE_MARK_LONG_END);
    uint64_t shrt = agb_mgba_marker_span(&smoke, AGB_SMOKE_MARK_SHORT_BEGIN, AGB_SMOKE_MARK_SHORT_END);
    assert_true(empty > 0 && empty <= 16);
    assert_true(lng > shrt && shrt >= empty);
    /* markers and the timer cascade must agree on the same loop within 1% */
    uint64_t by_markers = lng - shrt;
    uint64_t by_timer = PER_K(AGB_SMOKE_THUMB_ROM_4317);
    if (by_markers * 100 > by_timer * 101 || by_markers * 101 < by_timer * 100)
        fail_msg("markers say %llu, timers say %llu", (unsigned long long)by_markers,
                 (unsigned long long)by_timer);
    assert_true(smoke.cycles > smoke.markers[5].cycle);
}

static void test_frame_png(void **state)
{
    (void)state;
    run_smoke_once();
    char path[300];
    snprintf(path, sizeof path, "%s/smoke.png", tmpdir);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    assert_int_equal(img.width, 240);
    assert_int_equal(img.height, 160);
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(px);
    assert_true(png_image_finish_read(&img, NULL, px, 0, NULL));
    const unsigned char *top = px + (10 * 240 + 10) * 3, *bottom = px + (150 * 240 + 200) * 3;
    assert_true(top[0] > 0xF0 && top[1] < 0x10 && top[2] < 0x10);          /* red */
    assert_true(bottom[0] < 0x10 && bottom[1] < 0x10 && bottom[2] > 0xF0); /* blue */
    free(px);
    png_image_free(&img);
}

static void test_payload(void **state)
{
    (void)state;
    size_t n = 70001;
    unsigned char *blob = malloc(n);
    assert_non_null(blob);
    for (size_t i = 0; i < n; i++)
        blob[i] = (unsigned char)(i * 131u + (i >> 8));
    uint32_t want = fnv1a(blob, n);

    struct agb_mgba_result r;
    /* appended after the ROM image */
    assert_int_equal(agb_mgba_run(bench_rom, blob, n, AGB_MGBA_PAYLOAD_APPEND, 600, &r), AGB_MGBA_OK);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.results.payload_len, n);
    assert_int_equal(r.results.payload_sum, want);
    assert_int_equal(r.payload_offset % AGB_PAYLOAD_ALIGN, 0);
    agb_mgba_result_free(&r);

    /* at a chosen ROM offset */
    assert_int_equal(agb_mgba_run(smoke_rom, blob, n, 0x40000, 600, &r), AGB_MGBA_OK);
    assert_int_equal(r.payload_offset, 0x40000);
    assert_int_equal(r.results.values[AGB_SMOKE_PAYLOAD_LEN], n);
    assert_int_equal(r.results.values[AGB_SMOKE_PAYLOAD_SUM], want);
    agb_mgba_result_free(&r);

    /* inside the ROM image: refused */
    assert_int_equal(agb_mgba_run(smoke_rom, blob, n, 0x100, 600, &r), AGB_MGBA_ERROR);
    assert_non_null(strstr(r.error, "does not fit"));
    agb_mgba_result_free(&r);
    free(blob);
}

static void test_no_markers_without_flag(void **state)
{
    (void)state;
    struct agb_mgba_options o = { 0 };
    o.max_frames = 120;
    struct agb_mgba_result r;
    assert_int_equal(agb_mgba_run_ex(smoke_rom, &o, &r), AGB_MGBA_OK);
    assert_int_equal(r.marker_count, 0);
    assert_int_equal(r.results.values[AGB_SMOKE_HOST_MARKERS], 0);
    /* the timer figures do not depend on the host */
    assert_int_equal(r.results.values[AGB_SMOKE_THUMB_ROM_4317], PER_K(AGB_SMOKE_THUMB_ROM_4317));
    agb_mgba_result_free(&r);
}

static void test_missing_rom(void **state)
{
    (void)state;
    struct agb_mgba_result r;
    assert_int_equal(agb_mgba_run("/nonexistent/x.gba", NULL, 0, 0, 1, &r), AGB_MGBA_ERROR);
    assert_non_null(strstr(r.error, "/nonexistent/x.gba"));
    agb_mgba_result_free(&r);
}

static void test_home_untouched(void **state)
{
    (void)state;
    run_smoke_once();
    /* HOME pointed at an empty directory for the whole run */
    DIR *d = opendir(getenv("HOME"));
    assert_non_null(d);
    struct dirent *e;
    int entries = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            entries++;
    closedir(d);
    assert_int_equal(entries, 0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SMOKE.gba BENCH.gba\n", argv[0]);
        return 2;
    }
    smoke_rom = argv[1];
    bench_rom = argv[2];
    snprintf(tmpdir, sizeof tmpdir, "/tmp/agbsim-mgba-test-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 3;
    char home[300];
    snprintf(home, sizeof home, "%s/home", tmpdir);
    if (mkdir(home, 0700) != 0 || setenv("HOME", home, 1) != 0)
        return 3;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_romhdr_fix),
        cmocka_unit_test(test_headers),
        cmocka_unit_test(test_smoke_boots),
        cmocka_unit_test(test_load_costs),
        cmocka_unit_test(test_debug_print),
        cmocka_unit_test(test_timer_cycles),
        cmocka_unit_test(test_host_markers),
        cmocka_unit_test(test_frame_png),
        cmocka_unit_test(test_payload),
        cmocka_unit_test(test_no_markers_without_flag),
        cmocka_unit_test(test_missing_rom),
        cmocka_unit_test(test_home_untouched),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    agb_mgba_result_free(&smoke);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
