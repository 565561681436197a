/* A loaded trace as the replay engine sees it: a compact event array (docs/trace-format.md).
 * Freestanding: built by the host loader, or unpacked from ROM on the GBA. */
#ifndef AGB_TRACE_H
#define AGB_TRACE_H

#include <stdint.h>

#include "agb/regions.h"

enum agb_op {
	AGB_OP_ALLOC,
	AGB_OP_FREE,
	AGB_OP_REALLOC,
	AGB_OP_FRAME,
	AGB_OP_REF,
	AGB_OP_UNREF,
	/* Shadow-OAM extension (docs/trace-format.md): id is the sprite id, slot a dense sprite
	 * handle the loader assigns (own namespace), size the depth z (spr_show, spr_z). */
	AGB_OP_SPR_SHOW,
	AGB_OP_SPR_Z,
	AGB_OP_SPR_HIDE,
	/* Linear-allocator extension (docs/trace-format.md, bump and stack2): id is the marker
	 * (mark, reset) or the side, 0 low / 1 high (side). slot is unused. */
	AGB_OP_MARK,
	AGB_OP_RESET,
	AGB_OP_SIDE,
	/* Palette extension (docs/trace-format.md, pal_ram traces). id is the palette id; slot a
	 * dense palette handle the loader assigns (pal_load, pal_free; it keys the engine's slot
	 * table, which for pal_ram traces holds palettes); size the colour count (1..256); align
	 * the colour key in bits 0-30 and the side (0 BG, 1 OBJ) in bit 31 (AGB_PAL_EV_*). pal_free
	 * and pal_pop carry the key, side and colours of the palette they release. */
	AGB_OP_PAL_LOAD,
	AGB_OP_PAL_FREE,
	AGB_OP_PAL_PUSH,
	AGB_OP_PAL_POP,
	/* Streamed-sections extension (docs/trace-format.md, with mark/reset/side): id is a marker
	 * set by an earlier mark; the section allocated on that marker's side since it must be
	 * loaded now (a door). No core call: the metrics judge whether it could have streamed in. */
	AGB_OP_SYNC,
	/* Resource-cache extension (docs/trace-format.md, agb/cache.h): id is the resource key
	 * (0..2^31-1), slot a dense key handle the loader assigns (own namespace, < agb_trace.slots),
	 * size the resource's bytes (lock, touch; the same for every op on a key). */
	AGB_OP_LOCK,
	AGB_OP_UNLOCK,
	AGB_OP_TOUCH,
	/* Refused-request extension (docs/trace-format.md): a request the recorded allocator
	 * refused (the game got NULL). size and align as alloc's; id and slot unused. The engine
	 * asks the core the same: a core that cannot serve it fails as the recording did. */
	AGB_OP_REFUSED,
	AGB_OP_COUNT
};

/* One event. `slot` is a dense handle the loader assigns to each allocation (ids are sparse and
 * reused; slots index the engine's tables directly). Reused only after a free. */
struct agb_event {
	uint8_t op;    /* enum agb_op */
	uint8_t pad[3];
	uint32_t id;   /* the trace's id (alloc/free/realloc) or ROM tile (ref/unref) */
	uint32_t slot; /* alloc/free/realloc: dense handle < agb_trace.slots */
	uint32_t size; /* alloc/realloc: bytes; ref/unref: bpp; frame: 0 or AGB_FRAME_LOAD */
	uint32_t align; /* alloc: power of two >= 1; else 0 */
};

/* A frame event whose frame was spent loading (["frame", "load"]): the frame budget judges
 * gameplay frames only, and reports the worst loading frame apart. */
#define AGB_FRAME_LOAD 1u

/* The side and key packed into agb_event.align by palette ops. */
#define AGB_PAL_EV_SIDE(align) ((align) >> 31)
#define AGB_PAL_EV_KEY(align) ((align) & 0x7FFFFFFFu)
#define AGB_PAL_EV_ALIGN(side, key) ((uint32_t)(side) << 31 | ((key) & 0x7FFFFFFFu))

struct agb_trace {
	enum agb_arena arena;
	uint32_t arena_bytes;
	uint32_t event_count;
	uint32_t slots;          /* max live allocations at once, upper bound of slot + 1 */
	uint32_t frame_count;
	const struct agb_event *events;
	const char *name;        /* may be NULL */
	const char *source;      /* may be NULL */
};

/* Region size of an arena: 262144, 32768, 65536, 1024. */
uint32_t agb_arena_region_bytes(enum agb_arena arena);
/* GBA address of an arena's first byte. */
uint32_t agb_arena_base(enum agb_arena arena);
/* "ewram", "obj_vram", "bg_vram", "pal_ram". */
const char *agb_arena_name(enum agb_arena arena);
const char *agb_op_name(enum agb_op op);

#endif
