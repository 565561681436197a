/* mtrace.h - convert a glibc mtrace log into an agbsim v1 trace (JSON).
 *
 * Input: the text written by glibc's mtrace() (MALLOC_TRACE=LOG), e.g. by
 * scripts/record-mtrace.  Recognised lines (an optional caller prefix
 * "@ CALLER " may precede every event line):
 *   "= Start" / "= End"       markers (ignored)
 *   "+ 0xADDR 0xSIZE"         malloc / calloc / memalign / realloc(NULL, n)
 *   "+ (nil) 0xSIZE"          failed allocation (dropped, counted)
 *   "- 0xADDR"                free, or realloc(p, 0)
 *   "< 0xOLD" + "> 0xNEW 0xSIZE"  a successful realloc (always a pair)
 *   "! 0xOLD 0xSIZE"          failed realloc (old block stays; dropped, counted)
 * Note: glibc writes memalign/posix_memalign/aligned_alloc exactly like
 * malloc ("+ ADDR SIZE"); the alignment is not in the log, so the converter
 * never emits the 4-element ["alloc", id, size, align] form.
 *
 * Frame marks: a failed allocation of one of the magic sizes below ("+ (nil) 0xa6b5f00000000000",
 * written by AGBSIM_FRAME() of scripts/agbsim-frame.h) becomes ["frame"]; the size plus one
 * (AGBSIM_LOAD_FRAME()) becomes ["frame", "load"].
 *
 * Callers: every event line may start with glibc's caller ("@ FILE:(SYMBOL+0xOFF)[0xADDR]",
 * "@ FILE:[0xOFF]" with OFF relative to FILE's load address, or "@ [0xADDR]"). A caller without a
 * symbol is named from FILE's ELF symbols (or those of --symbols). An allocation is kept when its
 * caller matches one of caller_include (if any) and none of caller_exclude; a pattern is a glob
 * (fnmatch) on the symbol, on FILE's basename or on "BASENAME:SYMBOL", or an address range
 * "0xLO-0xHI" (object-relative, as printed). A block's fate is decided by the call that allocated
 * it: its frees and reallocs follow it, whoever calls them.
 *
 * Output: {"version":1, "arena":..., "arena_bytes":..., "name":...,
 * "source":..., "mtrace":{statistics}, "events":[...]} with one compact
 * event per line.  Addresses become small dense ids (reused after free).
 * Nothing is written to OUT unless the whole input converted successfully.
 */
#ifndef AGB_TRACE_MTRACE_H
#define AGB_TRACE_MTRACE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct agb_mtrace_options {
    const char *name;          /* "name" key; NULL -> "mtrace" */
    const char *source;        /* "source" key (exact recording command); NULL -> omitted */
    const char *arena;         /* NULL -> "ewram" */
    unsigned long arena_bytes; /* 0 -> 262144; an alloc/realloc larger than this is an error */
    unsigned long skip_events; /* ignore the first N mtrace events (a realloc pair is one event);
                                  pointers allocated there become "unknown" afterwards */
    unsigned long max_live;    /* 0 = no limit; else stop the trace before the first event that
                                  would make the live bytes exceed this */
    unsigned long max_bytes;   /* 0 -> AGB_MTRACE_MAX_BYTES; reading more of IN is an error
                                  ("larger than N bytes"), as is a line over 64 KiB or a NUL */
    const char *const *caller_include; /* patterns (see above); count 0 = keep every caller */
    size_t caller_include_count;
    const char *const *caller_exclude;
    size_t caller_exclude_count;
    const char *symbols;       /* ELF file naming the callers in the object of the same basename;
                                  NULL: each caller's FILE as printed, when it can be read */
};

/* The most input the converter reads by default: 1 GiB, the trace loader's limit. */
#define AGB_MTRACE_MAX_BYTES (1UL << 30)

/* Magic sizes of the frame marks (64-bit hosts, 32-bit hosts); +1: a loading frame. */
#define AGB_MTRACE_FRAME_SIZE64 0xa6b5f00000000000ULL
#define AGB_MTRACE_FRAME_SIZE32 0xa6b5f000ULL

/* One call site's share of the allocations, for the converter's summary. */
struct agb_mtrace_caller {
    char name[96];            /* "BASENAME:SYMBOL", or "BASENAME:[0xADDR]" when unnamed */
    unsigned long allocs, bytes;
    int kept;                 /* its allocations passed the caller filter */
};

#define AGB_MTRACE_TOP_CALLERS 8

struct agb_mtrace_result {
    unsigned long lines;              /* input lines read */
    unsigned long mtrace_events;      /* events parsed (a realloc pair counts once) */
    unsigned long skipped;            /* events ignored by skip_events */
    unsigned long events;             /* events written */
    unsigned long allocs, frees, reallocs;  /* written, by op */
    unsigned long dropped_unknown_frees;    /* free of a pointer never seen */
    unsigned long unknown_reallocs;   /* realloc of a pointer never seen: written as an alloc */
    unsigned long dropped_failed;     /* failed malloc ("+ (nil)") / failed realloc ("!") */
    unsigned long zero_sizes;         /* malloc(0): written with size 1 */
    unsigned long implicit_frees;     /* "+ ADDR" while ADDR was live: a free was written first */
    unsigned long peak_live_bytes;    /* max over the written events of the sum of requested
                                         sizes of live allocations */
    unsigned long peak_live_count;    /* max number of live allocations */
    unsigned long final_live_bytes, final_live_count;  /* at the end of the written trace */
    unsigned long ids_used;           /* ids are 0 .. ids_used-1 */
    unsigned long frames, load_frames;   /* frame marks written */
    unsigned long filtered_allocs;    /* allocations the caller filter left out (with their */
    unsigned long filtered_frees;     /* frees and reallocs, not written) */
    unsigned long filtered_reallocs;
    unsigned long call_sites;         /* distinct callers of allocations */
    struct agb_mtrace_caller top[AGB_MTRACE_TOP_CALLERS]; /* by allocations, most first */
    size_t top_count;
    int truncated;                    /* 1 if max_live cut the trace */
    unsigned long truncated_at_line;  /* input line of the first event not written */
};

enum {
    AGB_MTRACE_OK = 0,
    AGB_MTRACE_EPARSE = 1, /* malformed input: err = "FILE:LINE:COL: message" */
    AGB_MTRACE_EIO = 2,    /* read/write error: err = "FILE: message" */
    AGB_MTRACE_ENOMEM = 3
};

/* Fills *opt with the defaults (all zero / NULL). */
void agb_mtrace_options_init(struct agb_mtrace_options *opt);

/* Converts the mtrace log IN (named IN_NAME in messages) to a v1 trace
 * written to OUT.  OPT may be NULL (defaults); RES may be NULL.  Returns an
 * AGB_MTRACE_* code; on failure a message is stored in ERR (if errlen > 0). */
int agb_mtrace_convert(FILE *in, const char *in_name, FILE *out,
                       const struct agb_mtrace_options *opt,
                       struct agb_mtrace_result *res, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
