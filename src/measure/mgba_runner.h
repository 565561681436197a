/* mgba_runner.h — boot an agbsim GBA ROM in libmgba (headless) and collect what it measured.
 *
 * The ROM/host contract (descriptor at ROM 0xC0, results block, SWI 0xF0 markers) is in
 * src/gba/abi/agb_gba_abi.h. One session per thread at a time (the mGBA logger is process-wide;
 * the runner installs its own while a session runs frames and restores the previous one).
 * Nothing is written to $HOME: no mCoreLoadConfig, no save files, idle-loop optimisation off.
 */
#ifndef AGB_MGBA_RUNNER_H
#define AGB_MGBA_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "agb_gba_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    AGB_MGBA_OK = 0,       /* the ROM set agb_results.done */
    AGB_MGBA_TIMEOUT = 1,  /* max_frames ran out first */
    AGB_MGBA_ERROR = -1    /* could not load/run (message in the result's error) */
};

/* Payload placement: append at the ROM end rounded up to AGB_PAYLOAD_ALIGN. */
#define AGB_MGBA_PAYLOAD_APPEND 0u

struct agb_mgba_marker {
    uint32_t id;     /* r0 at the SWI */
    uint32_t value;  /* r1 at the SWI */
    uint64_t cycle;  /* mTimingGlobalTime() when the SWI executed */
};

struct agb_mgba_result {
    int done;                      /* 1 if the ROM finished */
    int32_t status;                /* agb_results.status */
    uint64_t frames;               /* frames run */
    uint64_t cycles;               /* emulated cycles from reset to the end of the run */
    uint32_t payload_offset;       /* where the payload went in the ROM (0 = none) */
    struct agb_results results;    /* the results block, read back */
    uint32_t *data;                /* copy of results.data_addr[0..data_words) or NULL */
    size_t data_words;
    struct agb_mgba_marker *markers; /* host markers in execution order */
    size_t marker_count;
    char *log;                     /* debug prints, one per line, NUL-terminated ("" if none) */
    size_t log_len;
    char error[256];               /* set when AGB_MGBA_ERROR is returned */
};

struct agb_mgba_options {
    const void *payload;           /* optional trace blob */
    size_t payload_len;
    uint32_t payload_rom_offset;   /* AGB_MGBA_PAYLOAD_APPEND or a ROM offset >= ROM size, 4-aligned */
    uint64_t max_frames;           /* 0 = 3600 (one minute of emulated time) */
    int host_markers;              /* set AGB_DESC_HOST_MARKERS (enables agb_mark) */
    int echo_log;                  /* also print debug lines to stderr */
    uint32_t extra_frames;         /* frames to run after done (lets the picture settle) */
    const char *png_path;          /* if set, save the last frame as PNG here */
    int any_rom;                   /* boot any GBA ROM (or ELF): no agbsim descriptor needed,
                                      none patched, no results block (agbsim record) */
};

/* One-shot run with defaults (host markers on, no PNG). Fills *out (free with
 * agb_mgba_result_free). Returns AGB_MGBA_OK / AGB_MGBA_TIMEOUT / AGB_MGBA_ERROR. */
int agb_mgba_run(const char *rom_path, const void *payload, size_t payload_len,
                 uint32_t payload_rom_offset, uint64_t max_frames, struct agb_mgba_result *out);

int agb_mgba_run_ex(const char *rom_path, const struct agb_mgba_options *opt,
                    struct agb_mgba_result *out);

void agb_mgba_result_free(struct agb_mgba_result *r);

/* Cycles between the first marker `begin_id` and the first later marker `end_id` (0 if
 * either is missing); the caller subtracts the cost of an empty marker pair. */
uint64_t agb_mgba_marker_span(const struct agb_mgba_result *r, uint32_t begin_id, uint32_t end_id);

/* ---- lower level: a session you can step ------------------------------------------------ */
struct agb_mgba;
struct agb_mgba *agb_mgba_open(const char *rom_path, const struct agb_mgba_options *opt,
                               char *err, size_t err_len);
/* Runs up to max_frames frames, stopping after the frame in which the ROM set done. */
int agb_mgba_run_until_done(struct agb_mgba *s, uint64_t max_frames);
void agb_mgba_run_frames(struct agb_mgba *s, uint64_t n);
uint32_t agb_mgba_read32(struct agb_mgba *s, uint32_t addr);
uint64_t agb_mgba_cycles(struct agb_mgba *s);
/* Writes the current video buffer (240x160) as an 8-bit RGB PNG. 0 on success. */
int agb_mgba_save_png(struct agb_mgba *s, const char *path);
/* The session's mGBA core, for src/measure's other modules (mgba_record.c). */
struct mCore;
struct mCore *agb_mgba_core(struct agb_mgba *s);
/* The debug prints collected so far, one per line, NUL-terminated ("" when none). */
const char *agb_mgba_log(const struct agb_mgba *s, size_t *len);
/* Moves the collected state into *out (results, markers, log). */
void agb_mgba_collect(struct agb_mgba *s, struct agb_mgba_result *out);
void agb_mgba_close(struct agb_mgba *s);

/* Write a 240x160-style XBGR8 (mGBA color_t, R in the low byte) buffer as PNG. */
int agb_png_write_xbgr8(const char *path, const uint32_t *pixels, unsigned width, unsigned height,
                        size_t stride_pixels);

#ifdef __cplusplus
}
#endif
#endif
