/* Resource-cache scenarios for agbsim gen (src/trace/gen.h; agb/cache.h): the seed's N64 port
 * notes cached animations, scripts and templates in a fixed pool behind two client protocols.
 *
 *   cache-sprites  obj_vram, 32 KiB: a side-scrolling level with more distinct enemy and effect
 *                  sprite graphics than OBJ VRAM holds. The level is a run of zones, each with
 *                  its own roster of 5-9 enemy types (of 48: 2-8 animation frames of 16x16,
 *                  32x32 or 64x32, 4bpp); an enemy on screen keeps its type's graphics locked
 *                  (["lock", type, bytes] as it enters, ["unlock", type] as it leaves: several
 *                  enemies of a type nest their locks). One-shot effects (explosions, sparks,
 *                  pickups: 16 kinds) use the Touch protocol: touched on each frame of their
 *                  animation that draws from them (every 4th frame).
 *   cache-anims    ewram, 64 KiB: animation clips of a third-person game's actors, as the
 *                  N64 port locked each track while it played: 6 actors, each drawing clips
 *                  from its kind's set of 200 (3 kinds; 256 B-6 KiB each; a few clips such as
 *                  idle, walk and the current activity's moves are used far more than the
 *                  rest); a clip is locked when it starts and unlocked when it ends (15-90
 *                  frames).
 *   cache-sprites-touch, cache-anims-touch  the same games with the Touch protocol only:
 *                  whatever a lock would pin is touched each time it is used (every 4th
 *                  frame), so the cache may evict it in between.
 *
 * Deterministic: integer arithmetic on MT19937 outputs only. */
#include <stdlib.h>
#include <string.h>

#include "agbsim/mt19937.h"
#include "trace/gen.h"

#define NONE 0xFFFFFFFFu
#define USE_EVERY 4u /* frames between two uses of a resource (an animation step) */

struct cache_gen {
	struct agb_mt mt;
	struct agb_event *ev;
	size_t n, cap;
	int oom;
	int touch_only; /* the -touch variants: touch where the game would lock */
};

static uint32_t rnd(struct cache_gen *g, uint32_t n)
{
	return agb_mt_below(&g->mt, n);
}

static void emit(struct cache_gen *g, enum agb_op op, uint32_t key, uint32_t size)
{
	if (g->oom || agb_gen_grow(&g->ev, g->n, &g->cap) != 0) {
		g->oom = 1;
		return;
	}
	g->ev[g->n++] = (struct agb_event){.op = (uint8_t)op, .id = key, .size = size};
}

/* An actor starts using resource `key`: lock (Lock/Unlock), or a first touch (-touch). */
static void start_use(struct cache_gen *g, uint32_t key, uint32_t size)
{
	emit(g, g->touch_only ? AGB_OP_TOUCH : AGB_OP_LOCK, key, size);
}

/* A use while it plays: only the Touch protocol says so (a lock pins it already). */
static void keep_using(struct cache_gen *g, uint32_t key, uint32_t size, uint32_t age)
{
	if (g->touch_only && age % USE_EVERY == 0)
		emit(g, AGB_OP_TOUCH, key, size);
}

static void stop_use(struct cache_gen *g, uint32_t key)
{
	if (!g->touch_only)
		emit(g, AGB_OP_UNLOCK, key, 0);
}

/* ---- cache-sprites ---------------------------------------------------------------------- */

#define ENEMY_TYPES 48u
#define EFFECT_KINDS 16u
#define EFFECT_KEY0 1000u /* effect keys after the enemy types' */
#define MAX_ACTORS 12u
#define MAX_EFFECTS 8u
#define ZONE_TYPES_MAX 9u

struct sprite_world {
	uint32_t type_bytes[ENEMY_TYPES], effect_bytes[EFFECT_KINDS];
	uint32_t zone[ZONE_TYPES_MAX], nzone;
	uint32_t actor_type[MAX_ACTORS], actor_left[MAX_ACTORS], actor_age[MAX_ACTORS];
	uint32_t fx_kind[MAX_EFFECTS], fx_left[MAX_EFFECTS], fx_age[MAX_EFFECTS];
};

/* An enemy type's graphics: 2-8 frames of one sprite shape, 4bpp. */
static uint32_t enemy_bytes(struct cache_gen *g)
{
	static const uint32_t shape_bytes[] = {128u, 512u, 512u, 1024u}; /* 16x16, 32x32, 64x32 */
	return (2u + rnd(g, 7)) * shape_bytes[rnd(g, 4)];
}

static void sprite_world_init(struct cache_gen *g, struct sprite_world *w)
{
	memset(w, 0, sizeof *w);
	for (uint32_t t = 0; t < ENEMY_TYPES; t++)
		w->type_bytes[t] = enemy_bytes(g);
	for (uint32_t k = 0; k < EFFECT_KINDS; k++)
		w->effect_bytes[k] = (4u + rnd(g, 13)) * 128u; /* 4-16 frames of 16x16 */
	for (uint32_t i = 0; i < MAX_ACTORS; i++)
		w->actor_type[i] = NONE;
	for (uint32_t i = 0; i < MAX_EFFECTS; i++)
		w->fx_kind[i] = NONE;
}

static void new_zone(struct cache_gen *g, struct sprite_world *w)
{
	w->nzone = 5u + rnd(g, ZONE_TYPES_MAX - 4u);
	for (uint32_t i = 0; i < w->nzone; i++)
		w->zone[i] = rnd(g, ENEMY_TYPES);
}

/* Enemies enter from the zone's roster and leave after 1-6 seconds. */
static void sprite_actors(struct cache_gen *g, struct sprite_world *w)
{
	for (uint32_t i = 0; i < MAX_ACTORS; i++) {
		uint32_t t = w->actor_type[i];
		if (t != NONE && --w->actor_left[i] == 0) {
			stop_use(g, t);
			w->actor_type[i] = NONE;
		} else if (t != NONE) {
			keep_using(g, t, w->type_bytes[t], ++w->actor_age[i]);
		} else if (rnd(g, 40) == 0) {
			t = w->zone[rnd(g, w->nzone)];
			w->actor_type[i] = t;
			w->actor_left[i] = 60u + rnd(g, 301);
			w->actor_age[i] = 0;
			start_use(g, t, w->type_bytes[t]);
		}
	}
}

/* One-shot effects: touched on every animation step while they play (8-40 frames). */
static void sprite_effects(struct cache_gen *g, struct sprite_world *w)
{
	for (uint32_t i = 0; i < MAX_EFFECTS; i++) {
		uint32_t k = w->fx_kind[i];
		if (k != NONE && --w->fx_left[i] == 0) {
			w->fx_kind[i] = NONE;
		} else if (k != NONE) {
			if (++w->fx_age[i] % USE_EVERY == 0)
				emit(g, AGB_OP_TOUCH, EFFECT_KEY0 + k, w->effect_bytes[k]);
		} else if (rnd(g, 30) == 0) {
			k = rnd(g, EFFECT_KINDS);
			w->fx_kind[i] = k;
			w->fx_left[i] = 8u + rnd(g, 33);
			w->fx_age[i] = 0;
			emit(g, AGB_OP_TOUCH, EFFECT_KEY0 + k, w->effect_bytes[k]);
		}
	}
}

static void cache_sprites(struct cache_gen *g, uint32_t frames)
{
	struct sprite_world w;
	sprite_world_init(g, &w);
	for (uint32_t f = 0; f < frames; f++) {
		if (f % 600u == 0)
			new_zone(g, &w); /* every 10 seconds the scenery changes */
		sprite_actors(g, &w);
		sprite_effects(g, &w);
		emit(g, AGB_OP_FRAME, 0, 0);
	}
}

/* ---- cache-anims ------------------------------------------------------------------------ */

#define ACTOR_KINDS 3u
#define CLIPS 200u
#define ACTORS 6u

#define MOOD_CLIPS 6u

/* A clip of one actor kind: mostly (7 in 8) one of the actor's current activity's clips (idle,
 * walk, its moves: 6 of them), else any of the 200, skewed towards the low indices as the
 * product of two uniform draws is (cutscene and one-off clips are the high ones). */
static uint32_t pick_clip(struct cache_gen *g, const uint32_t *mood)
{
	if (rnd(g, 8) != 0)
		return mood[rnd(g, MOOD_CLIPS)];
	return rnd(g, rnd(g, CLIPS) + 1u);
}

/* An activity (exploring, a fight, a conversation): 6 clips, changing every 5-20 seconds. */
static void new_mood(struct cache_gen *g, uint32_t *mood)
{
	for (uint32_t i = 0; i < MOOD_CLIPS; i++)
		mood[i] = rnd(g, rnd(g, CLIPS) + 1u);
}

static uint32_t clip_bytes(uint32_t kind, uint32_t clip)
{
	/* A fixed size per clip (a key keeps its size): 256 B-6 KiB, from a hash of its name. */
	uint32_t h = (kind * CLIPS + clip) * 0x9E3779B1u;
	return 256u + ((h >> 8) % 5889u & ~31u);
}

static void cache_anims(struct cache_gen *g, uint32_t frames)
{
	uint32_t key[ACTORS], left[ACTORS], age[ACTORS], mood[ACTORS][MOOD_CLIPS], mood_left[ACTORS];
	for (uint32_t a = 0; a < ACTORS; a++) {
		key[a] = NONE;
		mood_left[a] = 0;
	}
	for (uint32_t f = 0; f < frames; f++) {
		for (uint32_t a = 0; a < ACTORS; a++) {
			uint32_t kind = a % ACTOR_KINDS;
			if (mood_left[a]-- == 0) {
				new_mood(g, mood[a]);
				mood_left[a] = 300u + rnd(g, 901);
			}
			if (key[a] != NONE && --left[a] == 0) {
				stop_use(g, key[a]);
				key[a] = NONE;
			} else if (key[a] != NONE) {
				keep_using(g, key[a], clip_bytes(kind, key[a] % CLIPS), ++age[a]);
				continue;
			}
			if (key[a] == NONE) { /* the next clip starts at once */
				uint32_t clip = pick_clip(g, mood[a]);
				key[a] = kind * CLIPS + clip;
				left[a] = 15u + rnd(g, 76);
				age[a] = 0;
				start_use(g, key[a], clip_bytes(kind, clip));
			}
		}
		emit(g, AGB_OP_FRAME, 0, 0);
	}
}

/* ---- dispatch ----------------------------------------------------------------------------- */

uint32_t agb_gen_cache_default_frames(const char *scenario)
{
	if (strcmp(scenario, "cache-sprites") == 0 || strcmp(scenario, "cache-sprites-touch") == 0 ||
	    strcmp(scenario, "cache-anims") == 0 || strcmp(scenario, "cache-anims-touch") == 0)
		return 1800;
	return 0;
}

int agb_gen_cache(const char *scenario, uint32_t seed, uint32_t frames, struct agb_gen_trace *out)
{
	struct cache_gen *g;
	int sprites = strncmp(scenario, "cache-sprites", 13) == 0;
	memset(out, 0, sizeof *out);
	if (agb_gen_cache_default_frames(scenario) == 0)
		return -1;
	g = calloc(1, sizeof *g);
	if (g == NULL)
		return -2;
	agb_mt_seed(&g->mt, seed);
	g->touch_only = strstr(scenario, "-touch") != NULL;
	if (sprites)
		cache_sprites(g, frames);
	else
		cache_anims(g, frames);
	if (g->oom) {
		free(g->ev);
		free(g);
		return -2;
	}
	agb_gen_fill(out, scenario, seed, frames, sprites ? AGB_ARENA_OBJ_VRAM : AGB_ARENA_EWRAM,
		     sprites ? 32768u : 65536u, g->ev, g->n);
	free(g);
	return 0;
}
