/* Shared declarations of the agbsim command-line program. */
#ifndef AGBSIM_CLI_H
#define AGBSIM_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "agb/heap.h"
#include "agbsim/metrics.h"
#include "agbsim/replay.h"
#include "agbsim/trace.h"
#include "cli/options.h"

/* Exit status (README, "Commands"). */
enum agbsim_exit {
	AGBSIM_EXIT_OK = 0,
	AGBSIM_EXIT_REGRESSION = 1, /* the gate found a regression */
	AGBSIM_EXIT_USAGE = 2,      /* bad usage or bad input */
	AGBSIM_EXIT_IO = 3          /* I/O or internal error */
};

struct agbsim_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Prints "agbsim: " + message to stderr. */
void agbsim_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "agbsim: CMD: message" and "Try 'agbsim CMD --help'." to stderr; returns EXIT_USAGE. */
int agbsim_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

enum agbsim_format { FORMAT_TABLE, FORMAT_JSON, FORMAT_CSV, FORMAT_MD };

/* Parses "table|json|csv|md"; returns -1 when unknown. */
int agbsim_parse_format(const char *s);

/* One (trace x core) replay with everything a report needs. */
struct agbsim_run {
	const char *trace_path;
	const struct agb_trace *trace;
	const struct agb_heap_core *core;
	struct agb_replay_config cfg;
	struct agb_replay_result result;
	struct agb_metrics metrics;
	const char *cycle_source; /* "model" or "mgba" */
	/* mgba: 1 when the alloc/free/realloc (tiles: ref/unref) figures are the core's functions
	 * called directly (as a game calls them; the bench ROM's direct run), with the same calls
	 * through the core table in table_call[op]; 0 when they are through the table. */
	int direct_calls;
	struct agb_cycle_stats table_call[AGB_OP_COUNT];
	struct agbsim_stream_opts stream; /* --load-rate, --thrash-window, --load-cost (0: default) */
	int status;               /* AGBSIM_EXIT_* of the run */
	double host_ns_per_op;    /* bench --timing: counted replay on this host, 0 if not timed */
	double plain_ns_per_op;   /* the same with plain memory (agbsim-plain), 0 if unknown */
	char error[512];          /* why the run produced no numbers, when status != OK */
};

/* Observer called for each event in addition to the metrics (e.g. --events-out); may be NULL. */
struct agbsim_tap {
	agb_replay_observer fn;
	void *ctx;
};

enum agbsim_run_options {
	RUN_MIN_ARENA = 0x1 /* also search min_arena_bytes (about 16 more replays) */
};

/* Replays run->trace on run->core with run->cfg and fills result and metrics. Returns (and
 * stores in run->status) AGBSIM_EXIT_OK, or AGBSIM_EXIT_USAGE when the core cannot run the trace,
 * or AGBSIM_EXIT_IO when out of memory or an invariant broke; run->error then says why (nothing
 * is printed: the caller reports it). Thread-safe for distinct runs. */
int agbsim_run_replay(struct agbsim_run *run, unsigned options, const struct agbsim_tap *tap);

/* Fills run->error from fmt, sets run->status = rc and returns rc: how a run fails (the replay,
 * the measured runs). */
int agbsim_run_fail(struct agbsim_run *run, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prints one note on stderr when any of the n runs (model cycles, status OK) had ops whose
 * inputs lie beyond the cycle model's calibration range, naming the first few. */
void agbsim_note_extrapolated(const struct agbsim_run *runs, size_t n);

/* Step of the min_arena_bytes search for an arena. */
uint32_t agbsim_min_arena_step(enum agb_arena arena);

/* Reports (report.c). A report of several runs is one document (a JSON array, one CSV table). */
void agbsim_report(FILE *out, enum agbsim_format fmt, const struct agbsim_run *runs, size_t n);

/* The run's name in reports: the trace's "name", else its path. */
const char *agbsim_trace_name(const struct agbsim_run *r);

struct agbsim_json;

/* The members that name a run in every JSON document: trace, path, allocator, arena. */
void agbsim_json_run_identity(struct agbsim_json *w, const struct agbsim_run *r);

/* One run as a JSON object, the next value of w (json_out.h): the report's keys. */
void agbsim_report_json_run(struct agbsim_json *w, const struct agbsim_run *r);

/* The --events-out writer: ctx is the FILE and the event array. */
struct agbsim_events_out {
	FILE *out;
	const struct agb_trace *trace;
	uint32_t arena_addr;
	int features; /* also print the cycle model's other inputs ("stores", "rom_reads", "size_log2") */
};
void agbsim_events_out_observe(void *ctx, const struct agb_replay_obs *obs);

/* Subcommands, one file each. */
int agbsim_cmd_replay(int argc, char **argv);
int agbsim_cmd_list(int argc, char **argv);
int agbsim_cmd_convert(int argc, char **argv);
int agbsim_cmd_perf(int argc, char **argv);
int agbsim_cmd_gen(int argc, char **argv);
int agbsim_cmd_bench(int argc, char **argv);
int agbsim_cmd_gate(int argc, char **argv);
int agbsim_cmd_view(int argc, char **argv);
int agbsim_cmd_record(int argc, char **argv);
int agbsim_cmd_budget(int argc, char **argv);
int agbsim_cmd_worst(int argc, char **argv);

/* The viewer (cmd_view.c) on a loaded trace that cfg's core can run: a window, or with
 * `snapshot` a PNG of the state after event `at` (-1: the last). Built without SDL2 it prints
 * that there is no viewer. Returns AGBSIM_EXIT_OK, or AGBSIM_EXIT_IO (no display, I/O error,
 * no SDL2) after printing why. */
int agbsim_view_open(const char *trace_path, const struct agb_trace *t,
		     const struct agb_replay_config *cfg, const char *snapshot, int64_t at,
		     int paused, const char *script);

/* What a build without libmgba or SDL2 tells its user: how to get them (the Linux build), or
 * (the Windows build, which CMakeLists.txt gives its own texts) that they do not exist there. */
#ifndef AGBSIM_MGBA_HINT
#define AGBSIM_MGBA_HINT                                                                           \
	"install libmgba-dev, gcc-arm-none-eabi and libnewlib-arm-none-eabi (scripts/setup) and rebuild"
#define AGBSIM_MGBA_NOTE ""
#endif
#ifndef AGBSIM_SDL_HINT
#define AGBSIM_SDL_HINT                                                                            \
	"install libsdl2-dev and libsdl2-image-dev and rebuild with -DAGBSIM_WITH_SDL=ON"
#endif

#endif
