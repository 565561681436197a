/* test_mtrace.c - unit tests for the glibc mtrace -> v1 trace converter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/elf_syms.h"
#include "trace/mtrace.h"

struct run {
    int rc;
    char err[256];
    char *json;
    struct agb_mtrace_result res;
};

/* Converts LEN bytes of LOG (may hold NUL bytes). */
static struct run convert_n(const char *log, size_t len, const struct agb_mtrace_options *opt)
{
    struct run r;
    memset(&r, 0, sizeof r);
    FILE *in = tmpfile();
    FILE *out = tmpfile();
    assert_non_null(in);
    assert_non_null(out);
    assert_int_equal(fwrite(log, 1, len, in), len);
    rewind(in);
    r.rc = agb_mtrace_convert(in, "t.mtrace", out, opt, &r.res, r.err, sizeof r.err);
    long n = ftell(out);
    assert_true(n >= 0);
    r.json = calloc((size_t)n + 1, 1);
    assert_non_null(r.json);
    rewind(out);
    if (n > 0)
        assert_int_equal(fread(r.json, 1, (size_t)n, out), (size_t)n);
    fclose(in);
    fclose(out);
    return r;
}

static struct run convert(const char *log, const struct agb_mtrace_options *opt)
{
    return convert_n(log, strlen(log), opt);
}

#define HEADER(name, stats)                                   \
    "{\n  \"version\": 1,\n  \"arena\": \"ewram\",\n"         \
    "  \"arena_bytes\": 262144,\n  \"name\": \"" name "\",\n" \
    "  \"mtrace\": {" stats "},\n  \"events\": [\n"

static void test_basic_malloc_free_realloc(void **state)
{
    (void)state;
    const char *log =
        "= Start\n"
        "@ ./prog:(main+0x1c)[0x1149] + 0x5581a0 0x18\n"
        "@ /lib/x86_64-linux-gnu/libc.so.6:[0x7a1b] + 0x5581c0 0x100\n"
        "@ ./prog:[0x1150] < 0x5581a0\n"
        "@ ./prog:[0x1150] > 0x5582d0 0x40\n"
        "@ [0x401000] - 0x5581c0\n"
        "+ 0x5581c0 0x20\n"
        "- 0x5582d0\n"
        "= End\n";
    struct run r = convert(log, NULL);
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    assert_string_equal(r.json,
        HEADER("mtrace", "\"events_in\": 6, \"skipped\": 0, \"dropped_unknown_frees\": 0, "
                         "\"unknown_reallocs\": 0, \"dropped_failed\": 0, \"zero_sizes\": 0, "
                         "\"implicit_frees\": 0, \"peak_live_bytes\": 320, \"peak_live_count\": 2, "
                         "\"truncated\": false")
        "[\"alloc\",0,24],\n"
        "[\"alloc\",1,256],\n"
        "[\"realloc\",0,64],\n"
        "[\"free\",1],\n"
        "[\"alloc\",1,32],\n"
        "[\"free\",0]\n"
        "  ]\n}\n");
    assert_int_equal(r.res.allocs, 3);
    assert_int_equal(r.res.frees, 2);
    assert_int_equal(r.res.reallocs, 1);
    assert_int_equal(r.res.peak_live_bytes, 320);
    assert_int_equal(r.res.final_live_bytes, 32);
    assert_int_equal(r.res.ids_used, 2);
    free(r.json);
}

static void test_unknown_free_memalign_failures(void **state)
{
    (void)state;
    struct agb_mtrace_options opt;
    agb_mtrace_options_init(&opt);
    opt.name = "odd \"one\"";
    opt.source = "record-mtrace -o x.log ./a\tb";
    opt.arena_bytes = 4096;
    const char *log =
        "= Start\n"
        "- 0x1000\n"                       /* allocated before mtrace started */
        "@ ./a:[0x10] + 0x2000 0x0\n"      /* malloc(0) */
        "@ ./a:(posix_memalign+0x1)[0x20] + 0x2040 0x80\n" /* memalign: same as malloc */
        "+ (nil) 0x100000\n"               /* failed malloc */
        "! 0x2040 0x200000\n"              /* failed realloc */
        "! (nil) 0x200000\n"               /* failed realloc(NULL, n) */
        "< 0x3000\n> 0x3100 0x10\n"        /* realloc of an unknown block */
        "- (nil)\n"
        "- 0x2000\n";
    struct run r = convert(log, &opt);
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    assert_string_equal(r.json,
        "{\n  \"version\": 1,\n  \"arena\": \"ewram\",\n  \"arena_bytes\": 4096,\n"
        "  \"name\": \"odd \\\"one\\\"\",\n"
        "  \"source\": \"record-mtrace -o x.log ./a\\tb\",\n"
        "  \"mtrace\": {\"events_in\": 9, \"skipped\": 0, \"dropped_unknown_frees\": 1, "
        "\"unknown_reallocs\": 1, \"dropped_failed\": 3, \"zero_sizes\": 1, \"implicit_frees\": 0, "
        "\"peak_live_bytes\": 145, \"peak_live_count\": 3, \"truncated\": false},\n"
        "  \"events\": [\n"
        "[\"alloc\",0,1],\n"
        "[\"alloc\",1,128],\n"
        "[\"alloc\",2,16],\n"
        "[\"free\",0]\n"
        "  ]\n}\n");
    free(r.json);
}

static void test_skip_and_truncate(void **state)
{
    (void)state;
    struct agb_mtrace_options opt;
    agb_mtrace_options_init(&opt);
    opt.name = "t";
    opt.skip_events = 1;
    opt.max_live = 100;
    const char *log =
        "+ 0x10 0x40\n"   /* skipped */
        "+ 0x20 0x30\n"
        "- 0x10\n"        /* its alloc was skipped: dropped */
        "< 0x20\n> 0x20 0x50\n"
        "+ 0x30 0x20\n"   /* 80 + 32 > 100: the trace stops here */
        "- 0x20\n";
    struct run r = convert(log, &opt);
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    assert_string_equal(r.json,
        HEADER("t", "\"events_in\": 6, \"skipped\": 1, \"dropped_unknown_frees\": 1, "
                    "\"unknown_reallocs\": 0, \"dropped_failed\": 0, \"zero_sizes\": 0, "
                    "\"implicit_frees\": 0, \"peak_live_bytes\": 80, \"peak_live_count\": 1, "
                    "\"truncated\": true, \"max_live\": 100, \"truncated_at_line\": 6")
        "[\"alloc\",0,48],\n"
        "[\"realloc\",0,80]\n"
        "  ]\n}\n");
    assert_int_equal(r.res.truncated, 1);
    assert_int_equal(r.res.truncated_at_line, 6);
    free(r.json);
}

static void test_id_reuse_and_implicit_free(void **state)
{
    (void)state;
    const char *log =
        "+ 0xa0 0x8\n+ 0xb0 0x8\n- 0xa0\n+ 0xc0 0x9\n"
        "+ 0xb0 0x4\n"; /* 0xb0 still live: a free of its old block is written first */
    struct run r = convert(log, NULL);
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    const char *ev = strstr(r.json, "\"events\": [\n");
    assert_non_null(ev);
    assert_string_equal(ev,
        "\"events\": [\n"
        "[\"alloc\",0,8],\n[\"alloc\",1,8],\n[\"free\",0],\n[\"alloc\",0,9],\n"
        "[\"free\",1],\n[\"alloc\",1,4]\n  ]\n}\n");
    assert_int_equal(r.res.implicit_frees, 1);
    free(r.json);
}

static void expect_error(const char *log, const char *msg)
{
    struct run r = convert(log, NULL);
    assert_int_equal(r.rc, AGB_MTRACE_EPARSE);
    assert_string_equal(r.err, msg);
    assert_string_equal(r.json, ""); /* nothing half-written */
    free(r.json);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("= Start\n+ 0x10 0x8\n* 0x10\n",
                 "t.mtrace:3:1: unknown mtrace event '*' (expected one of + - < > !)");
    expect_error("@ ./a:[0x1] + 0x10 zz\n",
                 "t.mtrace:1:20: expected a hexadecimal size (0x...)");
    expect_error("+ 10 0x8\n", "t.mtrace:1:3: expected a hexadecimal address (0x...)");
    expect_error("- 0x10 0x8\n", "t.mtrace:1:8: unexpected text after the event");
    expect_error("@ ./a:(f+0x1) + 0x10 0x8\n", "t.mtrace:1:3: caller after '@' has no closing ']'");
    expect_error("< 0x10\n+ 0x20 0x8\n",
                 "t.mtrace:2:1: expected '>' completing the realloc started by '<' on line 1");
    expect_error("> 0x10 0x8\n", "t.mtrace:1:1: '>' without a preceding '<'");
    expect_error("+ 0x10 0x8\n< 0x10\n", "t.mtrace:2:1: '<' (realloc) without the following '>' line");
    expect_error("+ 0x10 0x40001\n",
                 "t.mtrace:1:8: allocation of 262145 bytes exceeds arena_bytes (262144); "
                 "use a max-live limit to truncate the trace");
    /* A zero address written in hex, of any length (the fuzzer found "0x000", as long as
     * "(nil)"): before, a realloc to it freed the block it moved and the trace did not load. */
    expect_error("+ 0x10 0x8\n< 0x10\n> 0x000 0x0\n", "t.mtrace:3:3: null address must be written (nil)");
    expect_error("+ 0x0 0x8\n", "t.mtrace:1:3: null address must be written (nil)");
    expect_error("- 0x00000\n", "t.mtrace:1:3: null address must be written (nil)");
    /* glibc never prints a null '<' or '>' (realloc(NULL, n) logs '+', a failure '!'). */
    expect_error("< (nil)\n> 0x10 0x8\n", "t.mtrace:1:3: expected a hexadecimal address (0x...)");
    expect_error("+ 0x10 0x8\n< 0x10\n> (nil) 0x8\n", "t.mtrace:3:3: expected a hexadecimal address (0x...)");
}

/* Frame marks (the failed mallocs of scripts/agbsim-frame.h) become frame events; other failed
 * mallocs are still dropped. */
static void test_frame_marks(void **state)
{
    (void)state;
    const char *log =
        "= Start\n"
        "@ ./game:[0x11bb] + 0x5581a0 0x1000\n"
        "@ ./game:[0x1190] + (nil) 0xa6b5f00000000001\n"
        "@ ./game:[0x11d2] + 0x5581c0 0x18\n"
        "@ ./game:[0x1190] + (nil) 0xa6b5f00000000000\n"
        "+ (nil) 0xa6b5f000\n"
        "+ (nil) 0xffffffffffff\n"
        "- 0x5581c0\n"
        "- 0x5581a0\n"
        "+ (nil) 0xa6b5f001\n";
    struct run r = convert(log, NULL);
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    assert_int_equal(r.res.frames, 4);
    assert_int_equal(r.res.load_frames, 2);
    assert_int_equal(r.res.dropped_failed, 1);
    assert_non_null(strstr(r.json, "\"frames\": 4, \"load_frames\": 2"));
    assert_non_null(strstr(r.json, "[\"alloc\",0,4096],\n[\"frame\",\"load\"],\n[\"alloc\",1,24],\n"
                                   "[\"frame\"],\n[\"frame\"],\n[\"free\",1],\n[\"free\",0],\n"
                                   "[\"frame\",\"load\"]\n"));
    free(r.json);
}

/* The caller filter: globs on symbols and object names, address ranges; a block's free and
 * realloc follow its allocation; the summary names the top call sites. */
static void test_caller_filter(void **state)
{
    (void)state;
    const char *log =
        "= Start\n"
        "@ ./game:(spawn+0x1c)[0x1149] + 0x1000 0x18\n"                      /* kept */
        "@ /lib/x86_64-linux-gnu/libc.so.6:(strdup+0x1a)[0x7f0] + 0x2000 0x10\n" /* libc */
        "@ ./game:[0x2040] + 0x3000 0x40\n"                                   /* range */
        "@ ./game:(spawn+0x1c)[0x1149] + 0x4000 0x18\n"                      /* kept */
        "@ ./game:[0x1150] < 0x2000\n"
        "@ ./game:[0x1150] > 0x5000 0x20\n"
        "@ ./game:(kill+0x8)[0x1190] - 0x5000\n"
        "- 0x3000\n"
        "- 0x1000\n";
    const char *exclude[] = {"libc.so*", "0x2000-0x2100"};
    struct agb_mtrace_options o;
    agb_mtrace_options_init(&o);
    o.caller_exclude = exclude;
    o.caller_exclude_count = 2;
    struct run r = convert(log, &o);
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    assert_int_equal(r.res.allocs, 2);
    assert_int_equal(r.res.frees, 1);
    assert_int_equal(r.res.reallocs, 0);
    assert_int_equal(r.res.filtered_allocs, 2);
    assert_int_equal(r.res.filtered_reallocs, 1);
    assert_int_equal(r.res.filtered_frees, 2);
    assert_int_equal(r.res.dropped_unknown_frees, 0);
    assert_int_equal(r.res.call_sites, 4);
    assert_int_equal(r.res.top_count, 4);
    assert_string_equal(r.res.top[0].name, "game:spawn+0x1c");
    assert_int_equal(r.res.top[0].allocs, 2);
    assert_int_equal(r.res.top[0].kept, 1);
    free(r.json);

    /* Include: only spawn's blocks; a caller-less event cannot match an include. */
    const char *include[] = {"spawn"};
    agb_mtrace_options_init(&o);
    o.caller_include = include;
    o.caller_include_count = 1;
    r = convert(log, &o);
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    assert_int_equal(r.res.allocs, 2);
    assert_int_equal(r.res.filtered_allocs, 2);
    free(r.json);

    /* A glob on BASENAME:SYMBOL. */
    const char *by_name[] = {"game:sp*"};
    o.caller_include = by_name;
    r = convert(log, &o);
    assert_int_equal(r.res.allocs, 2);
    free(r.json);
}

/* The ELF reader names an object-relative address: this test program's own main. */
static void test_elf_symbols(void **state)
{
    (void)state;
    struct agb_elf_symbols syms;
    char err[128];
    uint64_t off = 1;
#ifdef _WIN32
    skip(); /* the Windows build's test program is a PE file: it has no ELF symbols to read */
#endif
    assert_int_equal(agb_elf_symbols_load("/proc/self/exe", &syms, err, sizeof err), 0);
    assert_true(syms.count > 0);
    uint64_t main_addr = 0;
    for (size_t i = 0; i < syms.count; i++)
        if (strcmp(syms.syms[i].name, "main") == 0)
            main_addr = syms.syms[i].addr;
    assert_true(main_addr != 0);
    assert_string_equal(agb_elf_symbol_at(&syms, main_addr + 4, &off), "main");
    assert_int_equal(off, 4);
    agb_elf_symbols_release(&syms);
    assert_int_equal(agb_elf_symbols_load("/nonexistent", &syms, err, sizeof err), -1);
    assert_int_equal(agb_elf_symbols_load("/proc/self/status", &syms, err, sizeof err), -1);
}

/* Issue 12: input that is not an mtrace log ends in an error, not an endless read. A NUL byte
 * is reported where it is (the old fgets reader joined its line with the next one), a line
 * past 64 KiB and input past max_bytes are errors. */
static void expect_error_n(const char *log, size_t len, const struct agb_mtrace_options *opt,
                           const char *msg)
{
    struct run r = convert_n(log, len, opt);
    assert_int_equal(r.rc, AGB_MTRACE_EPARSE);
    assert_string_equal(r.err, msg);
    assert_string_equal(r.json, "");
    free(r.json);
}

static void test_bounded_input(void **state)
{
    (void)state;
    static const char nul[] = "+ 0x10 0x8\n- 0x\0" "10\n+ 0x20 0x8\n";
    expect_error_n(nul, sizeof nul - 1, NULL, "t.mtrace:2:5: NUL byte in input (not a text file?)");
    static const char zeros[4096];
    expect_error_n(zeros, sizeof zeros, NULL, "t.mtrace:1:1: NUL byte in input (not a text file?)");
    char *long_line = malloc(70001);
    assert_non_null(long_line);
    memset(long_line, 'x', 70000);
    long_line[70000] = '\n';
    expect_error_n(long_line, 70001, NULL,
                   "t.mtrace:1:65536: line longer than 65535 bytes (not an mtrace log?)");
    free(long_line);
    struct agb_mtrace_options opt;
    agb_mtrace_options_init(&opt);
    opt.max_bytes = 22;
    struct run r = convert("+ 0x10 0x8\n- 0x10\n", &opt); /* 18 bytes: within */
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    free(r.json);
    expect_error_n("+ 0x10 0x8\n- 0x10\n+ 0x20 0x8\n", 29, &opt,
                   "t.mtrace: larger than 22 bytes, the most agbsim reads from one input");
    r = convert("+ 0x10 0x8\r\n- 0x10", NULL); /* CRLF, last line without a newline */
    assert_int_equal(r.rc, AGB_MTRACE_OK);
    assert_int_equal(r.res.frees, 1);
    free(r.json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_malloc_free_realloc),
        cmocka_unit_test(test_unknown_free_memalign_failures),
        cmocka_unit_test(test_skip_and_truncate),
        cmocka_unit_test(test_id_reuse_and_implicit_free),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_frame_marks),
        cmocka_unit_test(test_caller_filter),
        cmocka_unit_test(test_elf_symbols),
        cmocka_unit_test(test_bounded_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
