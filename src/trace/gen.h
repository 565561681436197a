/* Scenario generators (agbsim gen): game-like traces from a seeded MT19937.
 *
 * Scenarios:
 *   shmup       obj_vram: shoot-'em-up: resident font and player, enemy waves with animation
 *               frames, bullets, explosions streamed into their own buffers, power-ups, a boss
 *               with 8bpp 64x64 parts; sprite graphics allocs plus spr_show/spr_z/spr_hide.
 *   rpg         obj_vram: walking between rooms: each room loads its NPC and prop sprite set and
 *               unloads the previous one; NPCs are Z-sorted by screen y (spr_z as they walk);
 *               dialog portraits come and go.
 *   particles   obj_vram: overlapping particle bursts, each loading a few particle graphics and
 *               showing dozens of short-lived sprites.
 *   strips      obj_vram: brawler fighters streaming animation strips of 3, 6, 12, 24 or 48
 *               tiles (requests that are not sprite shapes), attack strips loaded on demand.
 *   ai-scratch  ewram, 4 KiB pool: the seed article's AI scratch memory: enemies on screen
 *               allocate small state structs, path buffers and per-think temporaries.
 *   levels      ewram, 64 KiB pool: loading levels and rooms: resident data, per-level assets
 *               and enemy structs, per-room scratch; all freed at the room's / level's end.
 *   levels-linear  the same allocations released with mark/reset (for bump and stack2).
 *   pal-action, pal-crowded, pal-menus  pal_ram: palettes of an action game's rooms, enemy
 *               variants, effects and bosses, and menus on the palette stack (src/trace/gen_pal.c).
 *   cache-sprites, cache-anims (and -touch)  lock/unlock/touch through the resource cache:
 *               sprite graphics over OBJ VRAM, animation clips over EWRAM (src/trace/gen_cache.c).
 *
 * Determinism: only integer arithmetic on MT19937 outputs, no floating point, no clocks, no
 * addresses: the same (scenario, seed, frames) gives the same events on every machine. */
#ifndef AGB_TRACE_GEN_H
#define AGB_TRACE_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "agbsim/trace.h"

struct agb_gen_trace {
	struct agb_trace trace;   /* points into the members below */
	struct agb_event *events; /* malloc'd */
	char name[64];
	char source[160];
};

/* Names of the scenarios, NULL-terminated. */
extern const char *const agb_gen_scenarios[];

/* Default number of frames for a scenario (0 when unknown). */
uint32_t agb_gen_default_frames(const char *scenario);

/* Generates SCENARIO with SEED over FRAMES frames (>= 1) into *OUT. Returns 0, -1 for an unknown
 * scenario, -2 when out of memory. Release with agb_gen_release. */
int agb_gen(const char *scenario, uint32_t seed, uint32_t frames, struct agb_gen_trace *out);

void agb_gen_release(struct agb_gen_trace *t);

/* The pal_ram scenarios (src/trace/gen_pal.c), dispatched by agb_gen and
 * agb_gen_default_frames: same contracts. */
uint32_t agb_gen_pal_default_frames(const char *scenario);
int agb_gen_pal(const char *scenario, uint32_t seed, uint32_t frames, struct agb_gen_trace *out);

/* The resource-cache scenarios (src/trace/gen_cache.c): cache-sprites, cache-anims and their
 * -touch variants, dispatched by agb_gen and agb_gen_default_frames: same contracts. */
uint32_t agb_gen_cache_default_frames(const char *scenario);
int agb_gen_cache(const char *scenario, uint32_t seed, uint32_t frames, struct agb_gen_trace *out);

/* Makes room for one more event in the generator's array *ev of n events (capacity *cap,
 * doubled from 4096 when full). Returns 0, or -1 when out of memory (*ev unchanged). Amortized
 * O(1). */
int agb_gen_grow(struct agb_event **ev, size_t n, size_t *cap);

/* The end of every generator: *out takes the N generated events (malloc'd; out owns them
 * now), the scenario's name and source line ("agbsim gen SCENARIO --seed S --frames F") and the
 * trace header. O(1). */
void agb_gen_fill(struct agb_gen_trace *out, const char *scenario, uint32_t seed, uint32_t frames,
		  enum agb_arena arena, uint32_t arena_bytes, struct agb_event *events, size_t n);

#endif
