/* record.h — what `agbsim record` makes of a game it watched (docs/recording.md): trace events
 * from allocator calls (heap mode), from OAM (obj_vram) and from the visible screen maps
 * (bg_vram). Pure host code, no emulator: cmd_record.c feeds it what libmgba saw.
 *
 * Every builder appends to an event list (struct agb_rec_events) that agb_trace_write_json can
 * write; ids are handed out 1, 2, 3... in the order blocks appear. */
#ifndef AGB_TRACE_RECORD_H
#define AGB_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "agb/regions.h"
#include "agbsim/trace.h"

struct agb_rec_events {
	struct agb_event *ev;
	size_t n, cap;
	uint32_t frames, load_frames;
	int oom; /* an append failed: the list is incomplete */
};

void agb_rec_events_release(struct agb_rec_events *e);

/* ---- heap mode ---------------------------------------------------------------------------- */
enum agb_rec_fn { AGB_REC_MALLOC, AGB_REC_CALLOC, AGB_REC_REALLOC, AGB_REC_FREE, AGB_REC_MEMALIGN };

/* The live blocks by address, the counts a summary reports. */
struct agb_rec_heap {
	struct agb_rec_events out;
	uint32_t *keys, *ids, *sizes; /* open addressing by address; key 0 = empty */
	size_t slots, live;
	uint32_t next_id;
	uint64_t calls, failed, free_null, unknown;
	uint32_t lo, hi; /* lowest block address and highest block end seen (lo > hi: none) */
};

void agb_rec_heap_init(struct agb_rec_heap *h);
void agb_rec_heap_release(struct agb_rec_heap *h);

/* One finished call with its C arguments (a, b: malloc(a), calloc(a, b), realloc(a, b), free(a),
 * memalign(a, b)) and its result. Appends what it means:
 *  - a block the game got: ["alloc", id, size] (size 0 asked is 1; memalign's alignment kept);
 *  - realloc of a known block that succeeded: ["realloc", id, size]; realloc(NULL, n) is an
 *    alloc, realloc(p, 0) that returned NULL a free;
 *  - free of a known block: ["free", id].
 * Not events, only counted: requests the game was refused (NULL: nothing changed in its heap),
 * free(NULL), and free/realloc of an address no recorded call returned. O(1) expected. */
void agb_rec_heap_call(struct agb_rec_heap *h, enum agb_rec_fn fn, uint32_t a, uint32_t b,
                       uint32_t result);

/* Appends ["frame"]; agb_rec_frame_kind(e, 1) a loading frame, ["frame", "load"]. */
void agb_rec_frame(struct agb_rec_events *e);
void agb_rec_frame_kind(struct agb_rec_events *e, int load);

/* Whether a frame showed no new picture, so that its work was loading (docs/recording.md):
 * forced blank (DISPCNT bit 7) at the VBlank that ends it, or at its line 0 (line0: the frame
 * had one) forced blank or no BG or OBJ layer on (the display off). */
int agb_rec_is_loading_frame(uint16_t dispcnt_line0, uint16_t dispcnt_end, int line0);

/* The arena of the blocks seen: EWRAM or OBJ VRAM, the pool from the KiB that holds the lowest
 * block to the region's end. Returns 0, or -1 (no blocks, or blocks outside one such region) with
 * the reason in why. */
int agb_rec_heap_arena(const struct agb_rec_heap *h, enum agb_arena *arena, uint32_t *bytes,
                       char *why, size_t why_len);

/* ---- VRAM mode ---------------------------------------------------------------------------- */
/* OBJ VRAM from OAM: a sprite's tile range (first tile, tiles from its shape, size and depth) is
 * a block, allocated the first frame an OAM entry that is not hidden uses it and freed the first
 * frame none does. Per frame, frees then allocations, each by first tile. */
struct agb_rec_obj {
	struct agb_rec_events out;
	uint32_t live[1024];  /* per first tile: id of the live block, 0 none */
	uint16_t tiles[1024]; /* its tile count */
	uint32_t next_id;
	uint64_t blocks;
	int saw_2d; /* a frame used 2D mapping (ranges read as 1D) */
};

void agb_rec_obj_init(struct agb_rec_obj *o);
/* One frame's OAM (512 halfwords) and DISPCNT. Appends the changes, not the frame. */
void agb_rec_obj_sample(struct agb_rec_obj *o, const uint16_t *oam, uint16_t dispcnt);

/* BG VRAM from the visible screen maps: for each text BG (modes 0-1) or affine BG (modes 1-2)
 * that is enabled (and not while forced blank), the cells any pixel of which is on screen.
 * A tile is named by the FNV-1a 64 hash of its bytes in VRAM (32 at 4bpp, 64 at 8bpp), so
 * the same graphics at two tile numbers are one tile; an all-zero tile is the transparent tile
 * 0 and never counted. Per changed cell, in BG then map order: ref of the new tile, then unref
 * of the old (a tile that stays on screen is never released in between). */
#define AGB_REC_BG_CELLS ((size_t)4 * 128u * 128u)
struct agb_rec_bg {
	struct agb_rec_events out;
	uint32_t *cell; /* per BG and map cell: shown tile id | bpp8 << 31, 0 none */
	uint32_t *cell_next;
	uint64_t *hash; /* per id: its hash (id 0: the transparent tile) */
	size_t ids, cap;
	uint32_t *table; /* open addressing hash -> id, 0 empty */
	size_t table_slots;
};

int agb_rec_bg_init(struct agb_rec_bg *b);
void agb_rec_bg_release(struct agb_rec_bg *b);
/* One frame's I/O registers (512 halfwords from 0x04000000) and BG VRAM (64 KiB, 32768
 * halfwords). Appends the changes, not the frame. Returns 0, or -1 out of memory. */
int agb_rec_bg_sample(struct agb_rec_bg *b, const uint16_t *io, const uint16_t *vram);

/* FNV-1a 64 of n bytes. */
uint64_t agb_rec_fnv64(const uint8_t *p, size_t n);

#endif
