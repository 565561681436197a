/* Palette RAM scenarios for agbsim gen (src/trace/gen.h): an action game walking through rooms.
 *
 * Every room brings a tileset (2-4 BG palettes) and a roster of enemy types (OBJ palettes, one
 * per variant; a variant that is only a different sprite shares its type's palette, a recolour
 * has its own). A room transition loads the next room's palettes while the old room is still on
 * screen, then frees the old room's (palettes both rooms use are loaded twice: a sharing core
 * serves the second from the resident copy). Explosions and pickups load short-lived effect
 * palettes (a few keys, used again and again). Every fourth room ends with a boss whose 8bpp
 * OBJ palette needs banks 0..n-1 of the OBJ side. The HUD, font, player and item palettes stay
 * resident. pal-menus adds the palette stack: a pause menu pushes a full 256-colour BG palette
 * and a cursor palette on the OBJ side, sometimes an inventory over it; dialogue boxes push one
 * BG bank.
 *
 *   pal-action   rooms of 2-4 enemy types, most variants sharing their type's palette
 *   pal-crowded  rooms of 5-9 enemy types, mostly recolours: 16 OBJ banks run out
 *   pal-menus    pal-action plus the menus (needs a core with a palette stack: palstack)
 *
 * Deterministic: integer arithmetic on MT19937 outputs only. */
#include <stdlib.h>
#include <string.h>

#include "agbsim/mt19937.h"
#include "trace/gen.h"

#define MAX_LIVE 64u
#define TYPES 24u

struct pal_gen {
	struct agb_mt mt;
	struct agb_event *ev;
	size_t n, cap;
	int oom;
	uint32_t next_id;
	uint32_t room[MAX_LIVE], nroom;   /* palettes of the current room */
	uint32_t fx[MAX_LIVE], fx_end[MAX_LIVE], nfx; /* effect palettes and their last frame */
	uint32_t boss;                   /* the boss palette id, NONE when no boss is on screen */
};

struct pal_params {
	uint32_t types_lo, types_hi; /* enemy types per room */
	uint32_t recolour_pct;       /* chance that a variant has its own palette */
	int menus;
};

#define NONE 0xFFFFFFFFu

static uint32_t rnd(struct pal_gen *g, uint32_t n)
{
	return agb_mt_below(&g->mt, n);
}

static void emit(struct pal_gen *g, enum agb_op op, uint32_t id, uint32_t size, uint32_t align)
{
	if (g->oom || agb_gen_grow(&g->ev, g->n, &g->cap) != 0) {
		g->oom = 1;
		return;
	}
	g->ev[g->n++] = (struct agb_event){(uint8_t)op, {0, 0, 0}, id, 0, size, align};
}

static uint32_t load(struct pal_gen *g, uint32_t side, uint32_t key, uint32_t colors)
{
	uint32_t id = g->next_id++;
	emit(g, AGB_OP_PAL_LOAD, id, colors, AGB_PAL_EV_ALIGN(side, key));
	return id;
}

static void unload(struct pal_gen *g, uint32_t id)
{
	emit(g, AGB_OP_PAL_FREE, id, 0, 0);
}

/* Keys: 1-9 resident, 10-19 effects, 100+ tilesets, 1000+ enemy variants, 5000+ bosses,
 * 9000+ menus. Colour counts are what such palettes use. */
static void residents(struct pal_gen *g)
{
	load(g, 0, 1, 16); /* HUD */
	load(g, 0, 2, 4);  /* font */
	load(g, 1, 3, 16); /* player */
	load(g, 1, 4, 16); /* items and pickups */
}

/* The next room: its tileset and roster are loaded first, the old room's freed after. */
static void enter_room(struct pal_gen *g, const struct pal_params *p)
{
	uint32_t old[MAX_LIVE], nold = g->nroom, tileset = rnd(g, 6), pals = 2 + rnd(g, 3);
	uint32_t types = p->types_lo + rnd(g, p->types_hi - p->types_lo + 1u);
	memcpy(old, g->room, sizeof old);
	g->nroom = 0;
	for (uint32_t j = 0; j < pals; j++)
		g->room[g->nroom++] = load(g, 0, 100 + tileset * 8 + j, 16);
	for (uint32_t t = 0; t < types && g->nroom < MAX_LIVE - 4u; t++) {
		uint32_t type = rnd(g, TYPES), variants = 1 + rnd(g, 3);
		for (uint32_t v = 0; v < variants && g->nroom < MAX_LIVE - 4u; v++) {
			uint32_t own = v != 0 && rnd(g, 100) < p->recolour_pct;
			g->room[g->nroom++] = load(g, 1, 1000 + type * 4 + (own ? v : 0), 16);
		}
	}
	for (uint32_t i = 0; i < nold; i++)
		unload(g, old[i]);
}

static void effects(struct pal_gen *g, uint32_t frame)
{
	for (uint32_t i = 0; i < g->nfx;) {
		if (g->fx_end[i] > frame) {
			i++;
			continue;
		}
		unload(g, g->fx[i]);
		g->nfx--;
		g->fx[i] = g->fx[g->nfx];
		g->fx_end[i] = g->fx_end[g->nfx];
	}
	if (g->nfx < 8u && rnd(g, 30) == 0) {
		g->fx[g->nfx] = load(g, 1, 10 + rnd(g, 3), 16);
		g->fx_end[g->nfx++] = frame + 20 + rnd(g, 40);
	}
}

/* Emits up to k frames, no more than *left. */
static void hold(struct pal_gen *g, uint32_t k, uint32_t *left)
{
	for (; k > 0 && *left > 0; k--, --*left)
		emit(g, AGB_OP_FRAME, 0, 0, 0);
}

/* A pause menu (full BG palette, a cursor on the OBJ side, sometimes an inventory over it) or
 * a dialogue box (one BG bank) held for some frames, at most `left`. Returns the frames taken. */
static uint32_t menu(struct pal_gen *g, uint32_t left)
{
	uint32_t budget = left, k = 60 + rnd(g, 240);
	if (rnd(g, 3) == 0) {
		emit(g, AGB_OP_PAL_PUSH, g->next_id++, 16, AGB_PAL_EV_ALIGN(0, 9000 + rnd(g, 2)));
		hold(g, k, &budget);
		emit(g, AGB_OP_PAL_POP, 0, 0, AGB_PAL_EV_ALIGN(0, 0));
		return left - budget;
	}
	emit(g, AGB_OP_PAL_PUSH, g->next_id++, 256, AGB_PAL_EV_ALIGN(0, 9100));
	emit(g, AGB_OP_PAL_PUSH, g->next_id++, 16, AGB_PAL_EV_ALIGN(1, 9101));
	hold(g, k / 2, &budget);
	if (rnd(g, 2) == 0) {
		emit(g, AGB_OP_PAL_PUSH, g->next_id++, 48, AGB_PAL_EV_ALIGN(0, 9200));
		hold(g, 30 + rnd(g, 90), &budget);
		emit(g, AGB_OP_PAL_POP, 0, 0, AGB_PAL_EV_ALIGN(0, 0));
	}
	hold(g, k - k / 2, &budget);
	emit(g, AGB_OP_PAL_POP, 0, 0, AGB_PAL_EV_ALIGN(1, 0));
	emit(g, AGB_OP_PAL_POP, 0, 0, AGB_PAL_EV_ALIGN(0, 0));
	return left - budget;
}

static void action(struct pal_gen *g, const struct pal_params *p, uint32_t frames)
{
	uint32_t room_end = 0, rooms = 0;
	g->boss = NONE;
	residents(g);
	for (uint32_t f = 0; f < frames; f++) {
		if (f >= room_end) {
			if (g->boss != NONE)
				unload(g, g->boss);
			g->boss = NONE;
			enter_room(g, p);
			room_end = f + 300 + rnd(g, 600);
			rooms++;
		}
		if (rooms % 4u == 0 && g->boss == NONE && room_end - f == 240u)
			g->boss = load(g, 1, 5000 + rnd(g, 4), 64 + 16 * rnd(g, 5));
		effects(g, f);
		if (p->menus && rnd(g, 700) == 0)
			f += menu(g, frames - f - 1u);
		emit(g, AGB_OP_FRAME, 0, 0, 0);
	}
}

uint32_t agb_gen_pal_default_frames(const char *scenario)
{
	if (strcmp(scenario, "pal-action") == 0 || strcmp(scenario, "pal-crowded") == 0 ||
	    strcmp(scenario, "pal-menus") == 0)
		return 7200;
	return 0;
}

int agb_gen_pal(const char *scenario, uint32_t seed, uint32_t frames, struct agb_gen_trace *out)
{
	static const struct pal_params action_p = {2, 4, 25, 0}, crowded_p = {5, 9, 60, 0},
					menus_p = {2, 4, 25, 1};
	const struct pal_params *p = strcmp(scenario, "pal-crowded") == 0 ? &crowded_p
				     : strcmp(scenario, "pal-menus") == 0  ? &menus_p
									    : &action_p;
	struct pal_gen *g;
	memset(out, 0, sizeof *out);
	if (agb_gen_pal_default_frames(scenario) == 0)
		return -1;
	g = calloc(1, sizeof *g);
	if (g == NULL)
		return -2;
	agb_mt_seed(&g->mt, seed);
	action(g, p, frames != 0 ? frames : 1u);
	if (g->oom) {
		free(g->ev);
		free(g);
		return -2;
	}
	agb_gen_fill(out, scenario, seed, frames, AGB_ARENA_PAL_RAM, AGB_PAL_SIZE, g->ev, g->n);
	free(g);
	return 0;
}
