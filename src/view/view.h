/* The SDL2 memory-map viewer and its PNG export (docs/design.md, "Data flow").
 *
 * The viewer replays a trace on a core and draws the arena as a grid of allocation units
 * (OBJ VRAM: 32-byte blocks, 32 per row; BG VRAM: 32-byte tiles, 64 per row, so each row is one
 * 2 KiB screen map; EWRAM: 8-byte blocks, 256 per row), each live allocation in a colour derived
 * from its id, free space dark, metadata hatched, the largest free run outlined and, at a failed
 * request, the free space flashed red (the bytes that were free but could not serve it).
 *
 * Palette RAM (pal_ram traces) is drawn as 32 rows of 16 colour swatches, one row per 16-colour
 * bank (BG banks 0-15, then OBJ banks 0-15), each swatch in the colour palette RAM holds, read
 * from the emulated palette RAM itself. A trace carries no colours, so the viewer maps a ROM whose
 * block at AGB_REPLAY_PAL_SOURCE(key) holds colours derived from the key (agb_view_pal_colour):
 * what the core copied, pushed, saved and restored is what is drawn. Hovering a swatch names the
 * owner (palette id, key) and its reference count or stack frame.
 *
 * The same drawing code serves the window and headless snapshots: a snapshot renders into an
 * SDL_Surface through SDL's software renderer, so it needs no display and no video driver.
 *
 * This header does not include SDL: the CLI includes it only when the viewer is built
 * (AGBSIM_HAVE_VIEW), and tests use the geometry and colour functions to check pixels. */
#ifndef AGB_VIEW_H
#define AGB_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agbsim/replay.h"
#include "agbsim/trace.h"

/* Size of the picture (window and snapshot), in pixels. */
#define AGB_VIEW_WIDTH 848
#define AGB_VIEW_HEIGHT 612

/* Colours (0xRRGGBB) the map uses, fixed so tests and README readers can rely on them. */
#define AGB_VIEW_RGB_BACKGROUND 0x0c0c10u
#define AGB_VIEW_RGB_FREE 0x1c1e24u
#define AGB_VIEW_RGB_FREE_FLASH 0x961818u  /* free units while a failed request is shown */
#define AGB_VIEW_RGB_META 0x464a5au
#define AGB_VIEW_RGB_META_HATCH 0x6e7282u
#define AGB_VIEW_RGB_UNTRACKED 0x96a0afu   /* used, but no event of the trace placed it */
#define AGB_VIEW_RGB_LARGEST 0xffdc00u     /* outline of the largest free run */
#define AGB_VIEW_RGB_FAIL_BORDER 0xff2828u /* map frame at a failure */
#define AGB_VIEW_RGB_PAL_SPARE 0x3a3f4cu   /* colours of a taken bank beyond its palette's count */

/* Height of the per-frame cycle strip along the bottom of the picture (its label included). */
#define AGB_VIEW_STRIP_H 64

/* Colours of the cycle strip. */
#define AGB_VIEW_RGB_STRIP_BAR 0x50b48cu     /* a gameplay frame within the budget */
#define AGB_VIEW_RGB_STRIP_OVER 0xff8c3cu    /* a gameplay frame over the budget */
#define AGB_VIEW_RGB_STRIP_LOAD 0x5a6070u    /* a loading frame (not judged) */
#define AGB_VIEW_RGB_STRIP_CURRENT 0xffffffu /* the frame shown */
#define AGB_VIEW_RGB_STRIP_BUDGET 0xff4646u  /* the 10% budget line */

/* What one full replay says about the whole trace, for --at peak|first-failure|max-frag and the
 * per-frame cycle strip: fed by agb_view_scan_observe (an agb_replay_observer), closed by
 * agb_view_scan_end. Frame k (0-based) holds the model cycles of the events after frame event
 * k - 1 up to and including frame event k, as the frame budget counts them; a stretch after the
 * last frame event is one more frame when it costs anything. */
struct agb_view_scan {
	int64_t peak;          /* first event with the most bytes in use, -1: no event */
	int64_t first_failure; /* first failed request, -1: none */
	int64_t max_frag;      /* first sampled event with the highest frag_external, -1: none */
	uint32_t peak_bytes;   /* live bytes requested + resident tile bytes there */
	double max_frag_value;
	uint32_t *frame_cycles; /* nframes entries */
	uint8_t *frame_load;    /* 1: a loading frame (["frame", "load"]) */
	uint32_t nframes, cap;
	uint32_t tile_bytes;    /* running: resident tile bytes (uploads - releases) */
	uint32_t open_cycles;   /* running: the frame in progress */
	int any_frame;
};

/* Which moment --at names. */
enum agb_view_moment { AGB_VIEW_AT_PEAK, AGB_VIEW_AT_FIRST_FAILURE, AGB_VIEW_AT_MAX_FRAG };

/* Sizes the tables for t (frame_count + 1 frames). Returns 0 or -1 when out of memory. */
int agb_view_scan_init(struct agb_view_scan *s, const struct agb_trace *t);
void agb_view_scan_observe(void *ctx, const struct agb_replay_obs *o);
void agb_view_scan_end(struct agb_view_scan *s);
void agb_view_scan_free(struct agb_view_scan *s);

/* init + a full replay of t on cfg + end. Returns 0, or -1 (out of memory, or the replay
 * stopped; *s is then empty but safe to free). O(events x core cost). */
int agb_view_scan_run(struct agb_view_scan *s, const struct agb_trace *t,
		      const struct agb_replay_config *cfg);

/* The event of moment m, or -1 when the trace has none (no failure, no event). */
int64_t agb_view_scan_moment(const struct agb_view_scan *s, enum agb_view_moment m);

/* Parses "peak", "first-failure" or "max-frag" into *m. Returns 0 or -1. */
int agb_view_moment_parse(const char *text, enum agb_view_moment *m);

/* What to view. The trace and the core must outlive the call. */
struct agb_view_config {
	const char *trace_path;            /* for the title and snapshot names */
	const struct agb_trace *trace;
	struct agb_replay_config replay;   /* replay.core must be set */
	int64_t start_at;                  /* window: pause first at this event (-1: event 0) */
	int start_paused;                  /* window: start paused instead of playing */
	const char *script;                /* window: synthetic key presses (see agb_view_window) */
	const struct agb_view_scan *scan;  /* the whole trace (cycle strip); NULL: the view scans */
};

/* Renders the state right after event `at_event` (0-based; must be < event_count, or 0 for a
 * trace without events, which shows the initial state) and writes it as a PNG to `png_path`
 * (through a temporary file renamed on success: never a partial PNG). Needs no display.
 * Returns 0, or 3 with a message in err (n bytes) on I/O or SDL errors. O(events up to at_event +
 * arena units). */
int agb_view_snapshot(const struct agb_view_config *c, uint32_t at_event, const char *png_path,
		      char *err, size_t n);

/* Writes the map right after event `at_event` (as agb_view_snapshot) as one inline SVG element
 * of the map's size: the same cells and colours as the picture (view_map.c), metadata hatched,
 * the largest free run outlined, a failed request's free space in red. SDL-free: the HTML
 * report uses it in every build. Returns 0, or 3 with a message in err. O(events up to at_event
 * + arena units). */
int agb_view_map_svg(FILE *out, const struct agb_view_config *c, uint32_t at_event, char *err,
		     size_t n);

/* Opens the window and runs it until the user quits: the replay runs in a worker thread that
 * pauses after each shown event, so play/pause/step never race the core. Keys: space play/pause,
 * right step one event, shift+right one frame, +/- speed, home restart, [ ] zoom, wheel or
 * page up/down scroll, s PNG snapshot (agbsim-NAME-eEVENT.png in the current directory), q/Esc
 * quit. `script` (for tests) is a comma-separated list of keys fed as SDL key events, one each
 * time the replay is paused: space, right, shift+right, plus, minus, home, s, q, zoomin, zoomout,
 * hover:X:Y (mouse motion), wait:MS; the window closes when the script ends. Returns 0, or 3 with
 * a message in err when SDL cannot open a window. */
int agb_view_window(const struct agb_view_config *c, char *err, size_t n);

/* The resource cache's trade-off curve (agbsim bench --plot): one series per (trace, core) pair,
 * its points in increasing pool size. */
struct agb_view_curve_point {
	uint32_t pool_bytes;
	double hit_rate;              /* 0..1 */
	double load_cycles_per_frame;
};
struct agb_view_curve {
	const char *label;
	const struct agb_view_curve_point *p;
	size_t n;
};

/* Draws hit rate (upper chart) and load cycles per frame (lower chart) against the pool size
 * for n series, titled `title`, and writes a 720 x 480 PNG to path (whole or not at all).
 * Needs no display. Returns 0, or -1 with a message in err. O(points). */
int agb_view_plot_curves(const char *path, const char *title, const struct agb_view_curve *c,
			 size_t n, char *err, size_t errn);

/* Geometry of the map at zoom 1 and no scroll, for tests: the centre pixel of the cell that
 * shows allocation unit `unit` (unit bytes: agb_view_unit_bytes) of an arena of `arena_bytes`.
 * Returns 0, or -1 when the unit is not on screen. */
int agb_view_unit_centre(enum agb_arena arena, uint32_t arena_bytes, uint32_t unit, int *x, int *y);

/* Bytes per drawn unit for an arena: 8 for EWRAM, 32 for VRAM, 2 (one colour) for palette RAM. */
uint32_t agb_view_unit_bytes(enum agb_arena arena);

/* The colour (0xRRGGBB) of a live allocation with trace id `id`: a hash, so the same id keeps
 * its colour across runs and snapshots; hues near red are avoided (red means failure). Tiles use
 * agb_view_tile_rgb. Pure. */
uint32_t agb_view_id_rgb(uint32_t id);

/* The colour of resident ROM tile `tile` at depth `bpp`. Pure. */
uint32_t agb_view_tile_rgb(uint32_t tile, uint32_t bpp);

/* Colour `index` (0..255) of palette `key` as the viewer's ROM holds it, in the GBA's BGR555
 * (red bits 0-4, green 5-9, blue 10-14): a hue from the key (mod 2048, like
 * AGB_REPLAY_PAL_SOURCE), shifted per 16-colour bank, brightening along the bank. Pure. */
uint16_t agb_view_pal_colour(uint32_t key, uint32_t index);

/* A BGR555 colour as the map draws it (0xRRGGBB, 5 bits widened to 8). Pure. */
uint32_t agb_view_bgr555_rgb(uint16_t c);

#endif
