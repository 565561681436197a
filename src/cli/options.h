/* Option values shared by several subcommands. */
#ifndef AGBSIM_OPTIONS_H
#define AGBSIM_OPTIONS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "agb/heap.h"
#include "agbsim/replay.h"
#include "agbsim/trace.h"
#include "platform/output_file.h"
#include "platform/platform.h"

/* Parses a decimal (leading zeros are still decimal: 010 is ten) or 0x-hex unsigned 32-bit
 * integer, the whole string, digits only. Returns 0 or -1. */
int agbsim_parse_u32(const char *s, uint32_t *out);

/* "ewram" | "iwram". Returns 0 or -1. */
int agbsim_parse_meta(const char *s, enum agb_meta_region *out);

/* The core named `name` (NULL: the arena's default), checked against the trace's arena.
 * Prints why and returns AGBSIM_EXIT_USAGE when it cannot run this trace. */
int agbsim_pick_core(const char *name, const struct agb_trace *t, const struct agb_heap_core **out);

struct agb_loaded_trace;
struct agbsim_run;

/* agbsim_pick_core for run->trace into run->core, then an --arena-bytes (run->cfg) that must fit
 * the trace's region. Prints why (as command `cmd`) and returns AGBSIM_EXIT_USAGE, else
 * AGBSIM_EXIT_OK. */
int agbsim_pick_run_core(const char *cmd, const char *allocator, struct agbsim_run *run);

/* Set once a failed write to stdout has been reported, so main() does not say it twice. */
extern int agbsim_stdout_reported;

/* An output file written whole or not at all (src/platform/output_file.h has the policy:
 * temporary file by O_CREAT|O_EXCL beside OUT, mode kept, read-only OUT refused, a symlink's
 * target replaced, FIFOs and devices written through), or for '-' a memory buffer copied to
 * stdout on success. */
struct agbsim_output {
	const char *path;
	struct agb_out_file file;  /* PATH */
	struct agb_memstream mem;  /* '-': the buffer */
	FILE *f;                   /* write here */
};

/* Opens o->f for PATH. Returns AGBSIM_EXIT_OK, or AGBSIM_EXIT_IO after printing why. */
int agbsim_output_open(struct agbsim_output *o, const char *path);

/* Closes o->f; with keep, puts the output in place (or on stdout), else discards it. Every
 * write error counts: of the stream, of the final flush (a full device reports ENOSPC there), of
 * the sync, of close and of the rename or copy. Returns AGBSIM_EXIT_OK, or AGBSIM_EXIT_IO after
 * printing "agbsim: PATH: cannot write: REASON" (no temporary file is left behind). Safe on an
 * output that was never opened. */
int agbsim_output_close(struct agbsim_output *o, int keep);

/* Loads the trace at PATH ('-': stdin). On bad input prints "agbsim: FILE:LINE:COL: message"
 * and returns AGBSIM_EXIT_USAGE; AGBSIM_EXIT_IO when it cannot be read; else AGBSIM_EXIT_OK.
 * At most AGB_TRACE_MAX_BYTES (1 GiB) of text are read, or fewer when the environment variable
 * AGBSIM_MAX_TRACE_BYTES holds a smaller positive integer: more is bad input ("larger than N
 * bytes", exit 2). */
int agbsim_load_trace(const char *path, struct agb_loaded_trace *out);

/* The most bytes the CLI reads from one input (a trace, a baseline, a map, an mtrace log):
 * AGB_TRACE_MAX_BYTES, or AGBSIM_MAX_TRACE_BYTES when that is a smaller positive integer. */
size_t agbsim_max_input_bytes(void);

/* Reads all of PATH ('-': stdin) into *TEXT (malloc'd, *LEN bytes, not NUL-terminated) within
 * agbsim_max_input_bytes(). Returns AGBSIM_EXIT_OK; else prints why and returns
 * AGBSIM_EXIT_USAGE (larger than the limit) or AGBSIM_EXIT_IO (cannot open or read). */
int agbsim_read_input(const char *path, char **text, size_t *len);

/* getopt values of the options every replaying command shares (replay, view, measure). */
enum {
	AGBSIM_OPT_ARENA_BYTES = 0x1000, /* --pool=N (--arena-bytes=N: the same) */
	AGBSIM_OPT_META,                 /* --meta=ewram|iwram */
	AGBSIM_OPT_OBJ_BITMAP,           /* --obj-bitmap: OBJ VRAM limited to bitmap modes' 16 KiB */
	AGBSIM_OPT_ROM_TILES,            /* --rom-tiles=N: tiles' ROM->VRAM map size per depth */
	AGBSIM_OPT_SCREEN_MAPS           /* --screen-maps=N: tiles' screen maps in the arena */
};
#define AGBSIM_REPLAY_LONGOPTS                                                                     \
	{"pool", required_argument, NULL, AGBSIM_OPT_ARENA_BYTES},                                 \
		{"arena-bytes", required_argument, NULL, AGBSIM_OPT_ARENA_BYTES},                  \
		{"meta", required_argument, NULL, AGBSIM_OPT_META},                                \
		{"obj-bitmap", no_argument, NULL, AGBSIM_OPT_OBJ_BITMAP},                          \
		{"rom-tiles", required_argument, NULL, AGBSIM_OPT_ROM_TILES},                      \
		{"screen-maps", required_argument, NULL, AGBSIM_OPT_SCREEN_MAPS}

/* Applies one of those options to CFG. Returns AGBSIM_EXIT_OK, AGBSIM_EXIT_USAGE after printing
 * why the value is bad, or -1 when OPT is not one of them. */
int agbsim_replay_option(const char *cmd, int opt, const char *arg, struct agb_replay_config *cfg);

/* The options that judge streaming and caching (replay and bench): metrics parameters, not the
 * replay's. 0 means the default for each. */
struct agbsim_stream_opts {
	uint32_t load_rate;       /* --load-rate: bytes streamed per frame (sections' stalls) */
	uint32_t thrash_window;   /* --thrash-window: frames (default AGB_THRASH_WINDOW) */
	uint32_t load_cost_milli; /* --load-cost: cycles per byte loaded x 1000 (default copy) */
};

enum {
	AGBSIM_OPT_CACHE = 0x1100,  /* --cache=lru */
	AGBSIM_OPT_THRASH_WINDOW,   /* --thrash-window=FRAMES */
	AGBSIM_OPT_LOAD_COST,       /* --load-cost=copy|lz77|CYCLES */
	AGBSIM_OPT_LOAD_RATE        /* --load-rate=BYTES */
};
#define AGBSIM_STREAM_LONGOPTS                                                                     \
	{"cache", required_argument, NULL, AGBSIM_OPT_CACHE},                                      \
		{"thrash-window", required_argument, NULL, AGBSIM_OPT_THRASH_WINDOW},              \
		{"load-cost", required_argument, NULL, AGBSIM_OPT_LOAD_COST},                      \
		{"load-rate", required_argument, NULL, AGBSIM_OPT_LOAD_RATE}
#define AGBSIM_STREAM_USAGE                                                                        \
	"  --cache=lru          the resource cache lock/unlock/touch ops go through (the only\n"  \
	"                       policy: least recently used unlocked entry evicted first); it\n"  \
	"                       allocates from the --allocator core\n"                            \
	"  --thrash-window=N    a reload within N frames of the key's eviction is thrashing\n"    \
	"                       (default 60)\n"                                                    \
	"  --load-cost=COST     cycles per byte a cache load costs: copy (ROM to RAM, 32-bit),\n" \
	"                       lz77 (BIOS LZ77UnCompWram) or a number such as 2.5 (default copy)\n" \
	"  --load-rate=BYTES    bytes the game streams in per frame: judges each [\"sync\", m]\n"   \
	"                       (a door) and reports the frames players wait (stall frames)\n"

/* Applies one of AGBSIM_STREAM_LONGOPTS to O. Returns AGBSIM_EXIT_OK, AGBSIM_EXIT_USAGE after
 * printing why, or -1 when OPT is not one of them. */
int agbsim_stream_option(const char *cmd, int opt, const char *arg, struct agbsim_stream_opts *o);

#endif
