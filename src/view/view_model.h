/* What the viewer knows about one replay at the event it shows: per-unit kinds and owners,
 * counters for the side panel, the fragmentation history. Built from the replay engine's
 * observations plus the core's walk()/stats() at pauses. SDL-free. Internal to src/view. */
#ifndef AGB_VIEW_MODEL_H
#define AGB_VIEW_MODEL_H

#include <stdint.h>

#include "agb/heap.h"
#include "agbsim/replay.h"
#include "agbsim/trace.h"

enum { VK_FREE = 0, VK_META = 1, VK_USED = 2 };

/* One live allocation (by slot) or resident tile (by first unit). */
struct view_rec {
	uint32_t id;
	uint32_t addr;
	uint32_t requested; /* bytes asked for; bpp for a tile */
	uint32_t granted;
	uint32_t birth_frame;
	uint8_t live;
	uint8_t tile;
	/* Resource cache entries (set at each refresh from the cache): */
	uint8_t cached;   /* 1: a resident cache entry (id is its key) */
	uint8_t locked;   /* its lock count is not 0 */
	uint16_t recency; /* 0 the most recently used, up to 65535 */
	/* Streamed sections (traces with side ops): the side it was allocated on + 1 (0: no side
	 * ops) and that side's section number (marks on that side before it). */
	uint8_t side;
	uint16_t section;
};

/* Palette RAM (pal_ram traces), by bank: BG banks 0-15 are 0-15, OBJ banks 0-15 are 16-31. */
#define VIEW_PAL_BANKS 32u
#define VIEW_PAL_STACK 64u /* pushes per side the replay serves */

/* The palette a bank holds. */
struct view_pal_bank {
	uint32_t id, key;    /* owner: the palette id (a sharer's once the uploader is freed) */
	uint32_t refs;       /* loads holding it (palbanks shares identical palettes); 1 if pushed */
	uint32_t birth_frame;
	uint16_t colors;     /* the palette's colour count (an 8bpp palette spans several banks) */
	uint8_t first;       /* the palette's first bank, within its side */
	uint8_t level;       /* 0: loaded; n >= 1: frame n (1: bottom) of the side's palette stack */
	uint8_t live;
};

/* One pushed frame of a side's palette stack. */
struct view_pal_frame {
	uint32_t id, key, birth_frame;
	uint16_t colors;
};

struct view_pal {
	struct view_pal_bank loaded[VIEW_PAL_BANKS];    /* pal_load'ed palettes */
	struct view_pal_frame stack[2][VIEW_PAL_STACK]; /* pushed frames per side, bottom first */
	uint32_t depth[2];
	/* As of the last refresh: what each bank shows (a stack frame over the loaded palette it
	 * covers) and palette RAM's contents (BGR555, from the emulated machine). */
	struct view_pal_bank shown[VIEW_PAL_BANKS];
	uint16_t ram[AGB_PAL_SIZE / 2u];
};

struct view_model {
	const struct agb_trace *t;
	const struct agb_heap_core *core;
	void *state;            /* core state, valid once the first event ran */
	void *state_ws;         /* the workspace of a replay an observer feeds (view_map.c) */
	uint32_t base, arena_bytes, unit_bytes, units;
	uint8_t *kind;          /* per unit, VK_*, as of the last refresh */
	uint8_t *scratch;       /* per unit, for re-syncing owners after ref/unref/reset */
	uint8_t *initial;       /* per unit, VK_* right after the core's init (reserved blocks) */
	uint32_t *owner;        /* per unit: record index + 1, 0: none */
	struct view_rec *rec;   /* t->slots allocation records, then one per unit for tiles */
	uint32_t nrec;
	/* Tiles (ref/unref traces): every (tile, bpp) the trace names, sorted, with its reference
	 * count now; resident tiles as the core uploaded and released them. */
	uint32_t *tile_key;     /* tile << 1 | (bpp == 8) */
	uint32_t *tile_refs;
	uint32_t ntile_keys;
	uint32_t resident_tiles, resident_tile_bytes, tile_refs_total;

	int64_t index;          /* last event applied, -1: none */
	struct agb_replay_obs last;
	uint32_t frames;        /* frame events so far */
	uint32_t failures;
	int64_t fail_index;     /* event of the last failure, -1: none */
	struct agb_replay_obs fail;
	struct agb_heap_stats stats; /* at the last refresh */
	int have_stats;
	uint32_t largest_addr, largest_bytes; /* the largest free run by walk, at the last refresh */
	uint32_t overhead;

	float *spark;           /* frag_external at each regular sample */
	uint32_t nspark;

	/* pal_ram traces only (else NULL): the palette model, and the ROM image the machine maps
	 * so that uploads copy real colours (agb_view_pal_colour at AGB_REPLAY_PAL_SOURCE). */
	struct view_pal *pal;
	uint8_t *pal_rom;
	agb_machine *m;         /* the machine of the run shown (view_model_machine) */

	/* Resource cache (lock/unlock/touch traces; else NULL): the run's agb_cache, and the
	 * resident entries at the last refresh. */
	int has_cache;
	uint32_t *cache_keys;   /* per key handle (< t->slots): the trace's key */
	void *cache;
	uint32_t cache_resident;
	/* Streamed sections: whether the trace picks sides, the current side, sections per side. */
	int sides;
	uint32_t side, sections[2];
};


/* Allocates the tables for t on cfg's core and records what the core uses right after init
 * (by an empty replay), so reserved blocks are never taken for a tile. Returns 0 or -1 when out
 * of memory or the core refuses the arena (then view_model_free is still safe). */
int view_model_init(struct view_model *vm, const struct agb_trace *t,
		    const struct agb_replay_config *cfg);

/* Initialises m for a replay the model will show: agb_machine_init with the default WAITCNT,
 * plus, for pal_ram traces, the model's palette ROM. The model reads palette RAM from m at each
 * refresh. O(machine size). */
void view_model_machine(struct view_model *vm, agb_machine *m);

/* Back to "no event applied", keeping the tables. O(units + slots). */
void view_model_reset(struct view_model *vm);

/* Points the model at the replay workspace ws (its core state and resource cache). O(1). */
void view_model_bind(struct view_model *vm, void *ws);

/* Takes one observation (ws: the replay's workspace). O(units the event touched), plus a walk
 * when a ref/unref/reset changed which units are used. */
void view_model_apply(struct view_model *vm, void *ws, const struct agb_replay_obs *o);

/* Refreshes kinds, stats and the largest free run from the core, and the cache's entries by
 * recency (observation only: call while the replay is paused or finished). O(arena + cache
 * entries). */
void view_model_refresh(struct view_model *vm);

void view_model_free(struct view_model *vm);

/* Fit-to-arena: the units per row of the zoom-0 map for `units` units in a map_w x map_h area.
 * Starts from the arena's natural width (base_cols: OBJ 32, BG 64, EWRAM 256) and halves it,
 * down to 8, while the rows of square cells still fit the height: a small pool fills the map
 * instead of a sliver at the top. Pure. */
uint32_t view_fit_cols(uint32_t base_cols, uint32_t units, int map_w, int map_h);

/* Resident tiles and their reference counts, for the figures panel. */
struct view_tile_summary {
	uint32_t resident, bytes; /* tiles in VRAM and their bytes */
	uint32_t refs;            /* references held, all tiles */
	uint32_t max_refs, max_tile, max_bpp; /* the most referenced tile (first by key) */
	uint32_t hist[4];         /* tiles with 1, 2, 3-4 and 5+ references */
};

/* References held on ROM tile `tile` at depth `bpp` (0 for a tile the trace never names). */
uint32_t view_model_tile_refs(const struct view_model *vm, uint32_t tile, uint32_t bpp);

void view_model_tile_summary(const struct view_model *vm, struct view_tile_summary *out);

/* Whether the trace streams tiles (ref/unref), so the panel shows tiles instead of live bytes. */
int view_model_has_tiles(const struct view_model *vm);

/* The frame the shown event belongs to (0-based, as agb_view_scan numbers them): a frame event
 * belongs to the frame it closes. 0 before the first event. */
uint32_t view_model_current_frame(const struct view_model *vm);

#endif
