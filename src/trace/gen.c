/* Scenario generators (see gen.h). Each scenario is a small frame loop over fixed-size entity
 * tables; every random choice is an integer drawn from MT19937, so output depends only on
 * (scenario, seed, frames). */
#include "trace/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agbsim/mt19937.h"

const char *const agb_gen_scenarios[] = {"shmup",  "rpg",           "particles", "strips",
					 "ai-scratch", "levels", "levels-linear", "pal-action",
					 "pal-crowded", "pal-menus", "sections", "cache-sprites",
					 "cache-sprites-touch", "cache-anims", "cache-anims-touch", NULL};

#define NONE 0xFFFFFFFFu
#define SPRITE_BUDGET 120u /* sprites a game lets itself show: 8 OAM entries kept in reserve */

struct gen {
	struct agb_mt mt;
	struct agb_event *ev;
	size_t n, cap;
	int oom;
	uint32_t next_id, next_sid, shown;
};

static uint32_t rnd(struct gen *g, uint32_t n)
{
	return agb_mt_below(&g->mt, n);
}

/* 1 with probability 1/n. */
static int chance(struct gen *g, uint32_t n)
{
	return rnd(g, n) == 0;
}

int agb_gen_grow(struct agb_event **ev, size_t n, size_t *cap)
{
	if (n == *cap) {
		size_t grown_cap = *cap == 0 ? 4096 : *cap * 2;
		struct agb_event *grown = realloc(*ev, grown_cap * sizeof *grown);
		if (grown == NULL)
			return -1;
		*ev = grown;
		*cap = grown_cap;
	}
	return 0;
}

static void push(struct gen *g, enum agb_op op, uint32_t id, uint32_t size, uint32_t align)
{
	if (g->oom || agb_gen_grow(&g->ev, g->n, &g->cap) != 0) {
		g->oom = 1;
		return;
	}
	g->ev[g->n++] = (struct agb_event){.op = (uint8_t)op, .id = id, .size = size, .align = align};
}

/* Sprite graphics of w x h pixels at bpp: w*h*bpp/8 bytes; 8bpp asks for an even tile index
 * with align 64 (agb/obj.h). */
static uint32_t gfx(struct gen *g, uint32_t w, uint32_t h, uint32_t bpp)
{
	uint32_t id = g->next_id++;
	push(g, AGB_OP_ALLOC, id, w * h * bpp / 8u, bpp == 8u ? 64u : 1u);
	return id;
}

static uint32_t alloc_bytes(struct gen *g, uint32_t size)
{
	uint32_t id = g->next_id++;
	push(g, AGB_OP_ALLOC, id, size, 1u);
	return id;
}

static void release(struct gen *g, uint32_t *id)
{
	if (*id != NONE)
		push(g, AGB_OP_FREE, *id, 0, 0);
	*id = NONE;
}

/* Shows a sprite at depth z unless the game's sprite budget is spent (then NONE). */
static uint32_t show(struct gen *g, uint32_t z)
{
	uint32_t sid;
	if (g->shown >= SPRITE_BUDGET)
		return NONE;
	sid = g->next_sid++;
	g->shown++;
	push(g, AGB_OP_SPR_SHOW, sid, z, 0);
	return sid;
}

static void hide(struct gen *g, uint32_t *sid)
{
	if (*sid == NONE)
		return;
	push(g, AGB_OP_SPR_HIDE, *sid, 0, 0);
	g->shown--;
	*sid = NONE;
}

static void set_z(struct gen *g, uint32_t sid, uint32_t z)
{
	if (sid != NONE)
		push(g, AGB_OP_SPR_Z, sid, z, 0);
}

static void frame(struct gen *g)
{
	push(g, AGB_OP_FRAME, 0, 0, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* shmup */

struct dims {
	uint8_t w, h;
};

#define MAX_BULLETS 64
#define MAX_ENEMIES 24
#define MAX_BOOMS 8
#define MAX_WAVES 2

struct thing {
	uint32_t sid, gfx, ttl, owner;
};

struct wave {
	int live;
	uint32_t left, anim[4], nanim, bullet_gfx;
};

/* Everything on screen in a shmup. Bullets of owner MAX_WAVES are the player's or the boss's. */
struct shmup {
	struct thing bullets[MAX_BULLETS], enemies[MAX_ENEMIES], booms[MAX_BOOMS], item;
	struct wave waves[MAX_WAVES];
	uint32_t boss_gfx[5], boss_sid[3], boss_z;
	uint32_t boss_start, boss_end, next_wave;
};

static void shmup_init(struct shmup *s, uint32_t frames)
{
	const struct thing none = {NONE, NONE, 0, 0};
	for (int i = 0; i < MAX_BULLETS; i++)
		s->bullets[i] = none;
	for (int i = 0; i < MAX_ENEMIES; i++)
		s->enemies[i] = none;
	for (int i = 0; i < MAX_BOOMS; i++)
		s->booms[i] = none;
	s->item = none;
	for (int i = 0; i < MAX_WAVES; i++)
		s->waves[i].live = 0;
	for (int i = 0; i < 5; i++)
		s->boss_gfx[i] = NONE;
	for (int i = 0; i < 3; i++)
		s->boss_sid[i] = NONE;
	s->boss_z = 0;
	s->boss_start = frames - frames / 4u;
	s->boss_end = frames > 90u ? frames - 60u : frames;
	s->next_wave = 30;
}

/* Resident for the whole level: a font (8x8 4bpp glyphs), the player's two frames, the
 * player's shot; the HUD (score digits and lives, in front of the HUD layer) and the player. */
static void shmup_residents(struct gen *g)
{
	for (int i = 0; i < 36; i++)
		(void)gfx(g, 8, 8, 4);
	(void)gfx(g, 32, 32, 4);
	(void)gfx(g, 32, 32, 4);
	(void)gfx(g, 8, 16, 4);
	for (int i = 0; i < 11; i++)
		(void)show(g, 0x0800);
	(void)show(g, 0x5000);
}

/* A bullet in the first free slot, at depth z_base (+ a random 0..z_rnd-1 when z_rnd != 0),
 * living ttl_base (+ 0..ttl_rnd-1) frames. The draws happen only when a slot is free. */
static void shmup_fire(struct gen *g, struct shmup *s, uint32_t z_base, uint32_t z_rnd,
		       uint32_t ttl_base, uint32_t ttl_rnd, uint32_t owner)
{
	for (int b = 0; b < MAX_BULLETS; b++) {
		struct thing *bu = &s->bullets[b];
		if (bu->ttl != 0)
			continue;
		bu->sid = show(g, z_base + (z_rnd != 0 ? rnd(g, z_rnd) : 0u));
		bu->ttl = bu->sid != NONE ? ttl_base + (ttl_rnd != 0 ? rnd(g, ttl_rnd) : 0u) : 0u;
		bu->owner = owner;
		return;
	}
}

/* An explosion of size x size 4bpp pixels in the first free slot (frames streamed into it). */
static void shmup_boom(struct gen *g, struct shmup *s, uint32_t size, uint32_t z_rnd,
		       uint32_t ttl_base, uint32_t ttl_rnd)
{
	for (int x = 0; x < MAX_BOOMS; x++) {
		struct thing *bo = &s->booms[x];
		if (bo->ttl != 0)
			continue;
		bo->gfx = gfx(g, size, size, 4);
		bo->sid = show(g, 0x2800u + (z_rnd != 0 ? rnd(g, z_rnd) : 0u));
		bo->ttl = ttl_base + (ttl_rnd != 0 ? rnd(g, ttl_rnd) : 0u);
		return;
	}
}

/* A wave arrives in the first idle wave slot: its animation frames, its bullet graphic and a
 * few enemies. */
static void shmup_wave_arrives(struct gen *g, struct shmup *s)
{
	static const struct dims enemy_dims[] = {{16, 16}, {32, 16}, {32, 32}, {16, 32}, {64, 32}};
	for (int w = 0; w < MAX_WAVES; w++) {
		struct wave *wv = &s->waves[w];
		const struct dims *d;
		uint32_t bpp, count;
		if (wv->live)
			continue;
		d = &enemy_dims[rnd(g, 5)];
		bpp = chance(g, 4) ? 8u : 4u;
		wv->live = 1;
		wv->left = 240u + rnd(g, 240);
		wv->nanim = 2u + rnd(g, 3);
		for (uint32_t k = 0; k < wv->nanim; k++)
			wv->anim[k] = gfx(g, d->w, d->h, bpp);
		wv->bullet_gfx = chance(g, 2) ? gfx(g, 8, 8, 8) : gfx(g, 16, 16, 4);
		count = 3u + rnd(g, 6);
		for (int e = 0; e < MAX_ENEMIES && count > 0; e++) {
			struct thing *en = &s->enemies[e];
			if (en->sid != NONE || en->ttl != 0)
				continue;
			en->sid = show(g, 0x6000u + rnd(g, 0x1000));
			en->owner = (uint32_t)w;
			en->ttl = 1;
			count--;
		}
		return;
	}
}

/* Enemies fire, dive (Z change), die into explosions. */
static void shmup_enemies_act(struct gen *g, struct shmup *s)
{
	for (int e = 0; e < MAX_ENEMIES; e++) {
		struct thing *en = &s->enemies[e];
		if (en->ttl == 0)
			continue;
		if (en->sid != NONE && chance(g, 90))
			shmup_fire(g, s, 0x4800u, 0x100u, 60u, 30u, en->owner);
		if (en->sid != NONE && chance(g, 300))
			set_z(g, en->sid, 0x3000u + rnd(g, 0x3000));
		if (chance(g, 200)) {
			hide(g, &en->sid);
			en->ttl = 0;
			shmup_boom(g, s, 32u, 0x400u, 20u, 12u);
		}
	}
}

/* Wave end: survivors leave, their graphics and bullets go. */
static void shmup_waves_end(struct gen *g, struct shmup *s)
{
	for (int w = 0; w < MAX_WAVES; w++) {
		struct wave *wv = &s->waves[w];
		if (!wv->live || --wv->left != 0)
			continue;
		for (int e = 0; e < MAX_ENEMIES; e++)
			if (s->enemies[e].ttl != 0 && s->enemies[e].owner == (uint32_t)w) {
				hide(g, &s->enemies[e].sid);
				s->enemies[e].ttl = 0;
			}
		for (int b = 0; b < MAX_BULLETS; b++)
			if (s->bullets[b].ttl != 0 && s->bullets[b].owner == (uint32_t)w) {
				hide(g, &s->bullets[b].sid);
				s->bullets[b].ttl = 0;
			}
		for (uint32_t k = 0; k < wv->nanim; k++)
			release(g, &wv->anim[k]);
		release(g, &wv->bullet_gfx);
		wv->live = 0;
	}
}

/* The boss rises from behind BG2 (at boss_start), fights, explodes (at boss_end). */
static void shmup_boss(struct gen *g, struct shmup *s, uint32_t f)
{
	if (f == s->boss_start) {
		s->boss_gfx[0] = gfx(g, 64, 64, 8);
		s->boss_gfx[1] = gfx(g, 64, 64, 8);
		s->boss_gfx[2] = gfx(g, 32, 32, 4);
		s->boss_gfx[3] = gfx(g, 32, 32, 4);
		s->boss_gfx[4] = gfx(g, 16, 16, 8);
		s->boss_z = 0x9000;
		s->boss_sid[0] = show(g, s->boss_z);
		s->boss_sid[1] = show(g, s->boss_z - 0x100u);
		s->boss_sid[2] = show(g, s->boss_z - 0x100u);
	}
	if (f > s->boss_start && f < s->boss_end && s->boss_sid[0] != NONE) {
		if (s->boss_z > 0x6000u && (f - s->boss_start) % 10u == 0) {
			s->boss_z -= 0x800u;
			for (int p = 0; p < 3; p++)
				set_z(g, s->boss_sid[p], s->boss_z - (p != 0 ? 0x100u : 0u));
		}
		if (chance(g, 6))
			shmup_fire(g, s, 0x4800u, 0x100u, 90u, 0u, MAX_WAVES);
	}
	if (f == s->boss_end && s->boss_sid[0] != NONE) {
		for (int p = 0; p < 3; p++)
			hide(g, &s->boss_sid[p]);
		for (int i = 0; i < 5; i++)
			release(g, &s->boss_gfx[i]);
		shmup_boom(g, s, 64u, 0u, 59u, 0u);
	}
}

/* Lifetimes: bullets, explosions and the power-up that run out go. */
static void shmup_expire(struct gen *g, struct shmup *s)
{
	for (int b = 0; b < MAX_BULLETS; b++)
		if (s->bullets[b].ttl != 0 && --s->bullets[b].ttl == 0)
			hide(g, &s->bullets[b].sid);
	for (int x = 0; x < MAX_BOOMS; x++)
		if (s->booms[x].ttl != 0 && --s->booms[x].ttl == 0) {
			hide(g, &s->booms[x].sid);
			release(g, &s->booms[x].gfx);
		}
	if (s->item.ttl != 0 && --s->item.ttl == 0) {
		hide(g, &s->item.sid);
		release(g, &s->item.gfx);
	}
}

static void shmup(struct gen *g, uint32_t frames)
{
	struct shmup s;
	shmup_init(&s, frames);
	shmup_residents(g);
	for (uint32_t f = 0; f < frames; f++) {
		/* Waves arrive until the boss. */
		if (f >= s.next_wave && f + 120u < s.boss_start) {
			shmup_wave_arrives(g, &s);
			s.next_wave = f + 150u + rnd(g, 120);
		}
		shmup_enemies_act(g, &s);
		shmup_waves_end(g, &s);
		/* The player shoots every 8 frames (owner MAX_WAVES: the resident shot graphic). */
		if (f % 8u == 0)
			shmup_fire(g, &s, 0x4F00u, 0u, 40u, 0u, MAX_WAVES);
		/* A power-up now and then. */
		if (s.item.ttl == 0 && chance(g, 400)) {
			s.item.gfx = gfx(g, 16, 16, 4);
			s.item.sid = show(g, 0x5800);
			s.item.ttl = 300;
		}
		shmup_boss(g, &s, f);
		shmup_expire(g, &s);
		frame(g);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* rpg */

#define MAX_NPC_TYPES 5
#define MAX_NPCS 10
#define MAX_PROPS 6

struct npc {
	uint32_t sid, y, type;
};

static uint32_t y_depth(uint32_t y)
{
	/* Lower on screen = nearer: z falls as y grows (y 0..159 -> 0x7000..0x6610). */
	return 0x7000u - y * 16u;
}

/* One room's set and the walkers in it, the player's depth and the dialog on screen. */
struct rpg {
	uint32_t types[MAX_NPC_TYPES][8], ntypes;
	uint32_t props[MAX_PROPS][4], nprop_frames[MAX_PROPS], nprops, prop_sid[MAX_PROPS];
	struct npc npcs[MAX_NPCS];
	uint32_t nnpcs, player_sid, player_y, room_left;
	uint32_t dialog_gfx[4], dialog_sid[4], dialog_left;
};

/* Leave the room: hide and unload its set. */
static void rpg_leave_room(struct gen *g, struct rpg *r)
{
	for (uint32_t i = 0; i < r->nnpcs; i++)
		hide(g, &r->npcs[i].sid);
	for (uint32_t i = 0; i < r->nprops; i++) {
		hide(g, &r->prop_sid[i]);
		for (uint32_t k = 0; k < r->nprop_frames[i]; k++)
			release(g, &r->props[i][k]);
	}
	for (uint32_t t = 0; t < r->ntypes; t++)
		for (int k = 0; k < 8; k++)
			release(g, &r->types[t][k]);
}

/* Enter the next room: 2-5 NPC types (4 directions x 2 frames each), props, the NPCs. */
static void rpg_enter_room(struct gen *g, struct rpg *r)
{
	r->ntypes = 2u + rnd(g, 4);
	for (uint32_t t = 0; t < r->ntypes; t++)
		for (int k = 0; k < 8; k++)
			r->types[t][k] = chance(g, 8) ? gfx(g, 32, 32, 4) : gfx(g, 16, 32, 4);
	r->nprops = 1u + rnd(g, MAX_PROPS);
	for (uint32_t i = 0; i < r->nprops; i++) {
		uint32_t kind = rnd(g, 3);
		r->nprop_frames[i] = kind == 2 ? 4u : 2u;
		for (uint32_t k = 0; k < r->nprop_frames[i]; k++)
			r->props[i][k] = kind == 0   ? gfx(g, 16, 16, 4)
					 : kind == 1 ? gfx(g, 32, 32, 4)
						     : gfx(g, 16, 32, 4);
		r->prop_sid[i] = show(g, y_depth(rnd(g, 160)));
	}
	r->nnpcs = 2u + rnd(g, MAX_NPCS - 1);
	for (uint32_t i = 0; i < r->nnpcs; i++) {
		r->npcs[i].y = rnd(g, 160);
		r->npcs[i].type = rnd(g, r->ntypes);
		r->npcs[i].sid = show(g, y_depth(r->npcs[i].y));
	}
	r->room_left = 300u + rnd(g, 600);
}

/* Walking changes screen y, and with it the depth. */
static void rpg_walk(struct gen *g, struct rpg *r)
{
	for (uint32_t i = 0; i < r->nnpcs; i++) {
		if (r->npcs[i].sid == NONE || !chance(g, 20))
			continue;
		r->npcs[i].y = (r->npcs[i].y + 156u + rnd(g, 9)) % 160u;
		set_z(g, r->npcs[i].sid, y_depth(r->npcs[i].y));
	}
	if (chance(g, 8)) {
		r->player_y = (r->player_y + 158u + rnd(g, 5)) % 160u;
		set_z(g, r->player_sid, y_depth(r->player_y));
	}
}

/* Dialogs: a 64x64 portrait and a box of three 64x32 pieces, in front of everything. */
static void rpg_dialog(struct gen *g, struct rpg *r)
{
	if (r->dialog_left == 0 && r->dialog_gfx[0] == NONE && chance(g, 500)) {
		r->dialog_gfx[0] = gfx(g, 64, 64, 4);
		for (int k = 1; k < 4; k++)
			r->dialog_gfx[k] = gfx(g, 64, 32, 4);
		for (int k = 0; k < 4; k++)
			r->dialog_sid[k] = show(g, 0x0400);
		r->dialog_left = 120u + rnd(g, 180);
	}
	if (r->dialog_left != 0 && --r->dialog_left == 0) {
		for (int k = 0; k < 4; k++) {
			hide(g, &r->dialog_sid[k]);
			release(g, &r->dialog_gfx[k]);
		}
	}
}

static void rpg(struct gen *g, uint32_t frames)
{
	struct rpg r = {.player_y = 80};
	for (int k = 0; k < 4; k++)
		r.dialog_gfx[k] = r.dialog_sid[k] = NONE;
	/* Resident: the player's 4 directions x 3 frames (16x32 4bpp), a dialog font of 8x16
	 * glyphs, a cursor. */
	for (int i = 0; i < 12; i++)
		(void)gfx(g, 16, 32, 4);
	for (int i = 0; i < 48; i++)
		(void)gfx(g, 8, 16, 4);
	(void)gfx(g, 8, 8, 4);
	r.player_sid = show(g, y_depth(r.player_y));

	for (uint32_t f = 0; f < frames; f++) {
		if (r.room_left == 0) {
			rpg_leave_room(g, &r);
			frame(g); /* the frame of the fade */
			if (++f >= frames)
				break;
			rpg_enter_room(g, &r);
		}
		r.room_left--;
		rpg_walk(g, &r);
		rpg_dialog(g, &r);
		frame(g);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* particles */

#define MAX_BURSTS 6
#define MAX_PARTICLES 120

struct burst {
	uint32_t gfx[3], ngfx, alive;
};

struct particle {
	uint32_t sid, ttl, burst;
};

static void particles(struct gen *g, uint32_t frames)
{
	static const struct {
		uint8_t w, h, bpp;
	} kinds[] = {{8, 8, 4}, {8, 8, 8}, {16, 16, 4}, {16, 16, 8}, {32, 32, 4}};
	struct burst bursts[MAX_BURSTS];
	struct particle parts[MAX_PARTICLES];
	uint32_t emitter = gfx(g, 32, 32, 4), emitter_sid = show(g, 0x5000), next = 5;
	(void)emitter;
	(void)emitter_sid;
	for (int i = 0; i < MAX_BURSTS; i++)
		bursts[i].ngfx = 0;
	for (int i = 0; i < MAX_PARTICLES; i++)
		parts[i].ttl = 0;
	for (uint32_t f = 0; f < frames; f++) {
		if (f >= next) {
			for (int b = 0; b < MAX_BURSTS; b++) {
				uint32_t count;
				if (bursts[b].ngfx != 0)
					continue;
				bursts[b].ngfx = 1u + rnd(g, 3);
				for (uint32_t k = 0; k < bursts[b].ngfx; k++) {
					uint32_t kind = rnd(g, 5);
					bursts[b].gfx[k] = gfx(g, kinds[kind].w, kinds[kind].h, kinds[kind].bpp);
				}
				bursts[b].alive = 0;
				count = 16u + rnd(g, 33);
				for (int p = 0; p < MAX_PARTICLES && count > 0; p++) {
					if (parts[p].ttl != 0)
						continue;
					parts[p].sid = show(g, 0x3000u + rnd(g, 0x4000));
					if (parts[p].sid == NONE)
						break;
					parts[p].ttl = 15u + rnd(g, 46);
					parts[p].burst = (uint32_t)b;
					bursts[b].alive++;
					count--;
				}
				break;
			}
			next = f + 10u + rnd(g, 50);
		}
		for (int p = 0; p < MAX_PARTICLES; p++) {
			struct particle *pt = &parts[p];
			if (pt->ttl == 0)
				continue;
			if (chance(g, 16))
				set_z(g, pt->sid, 0x3000u + rnd(g, 0x4000));
			if (--pt->ttl == 0) {
				struct burst *bu = &bursts[pt->burst];
				hide(g, &pt->sid);
				if (--bu->alive == 0) {
					for (uint32_t k = 0; k < bu->ngfx; k++)
						release(g, &bu->gfx[k]);
					bu->ngfx = 0;
				}
			}
		}
		/* A burst whose particles all failed to show frees its graphics at once. */
		for (int b = 0; b < MAX_BURSTS; b++)
			if (bursts[b].ngfx != 0 && bursts[b].alive == 0) {
				for (uint32_t k = 0; k < bursts[b].ngfx; k++)
					release(g, &bursts[b].gfx[k]);
				bursts[b].ngfx = 0;
			}
		frame(g);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* ai-scratch */

#define MAX_AI 12

struct ai {
	int live;
	uint32_t state, path, path_left, think_in;
};

static void ai_scratch(struct gen *g, uint32_t frames)
{
	struct ai ai[MAX_AI];
	for (int i = 0; i < MAX_AI; i++)
		ai[i].live = 0;
	for (uint32_t f = 0; f < frames; f++) {
		/* Enemies come on screen... */
		if (chance(g, 25)) {
			for (int i = 0; i < MAX_AI; i++) {
				if (ai[i].live)
					continue;
				ai[i].live = 1;
				ai[i].state = alloc_bytes(g, 24u + 4u * rnd(g, 11)); /* 24..64 bytes */
				ai[i].path = NONE;
				ai[i].path_left = 0;
				ai[i].think_in = 1u + rnd(g, 8);
				break;
			}
		}
		for (int i = 0; i < MAX_AI; i++) {
			struct ai *a = &ai[i];
			if (!a->live)
				continue;
			if (a->think_in != 0 && --a->think_in == 0) {
				/* ...think with a temporary (a sensor list, an option score table)... */
				uint32_t tmp = alloc_bytes(g, 8u + 4u * rnd(g, 11));
				if (a->path == NONE && chance(g, 3)) {
					/* ...plan a path (4 bytes per step) and follow it for a while... */
					a->path = alloc_bytes(g, 32u + 8u * rnd(g, 29));
					a->path_left = 30u + rnd(g, 90);
				}
				release(g, &tmp);
				a->think_in = 4u + rnd(g, 13);
			}
			if (a->path_left != 0 && --a->path_left == 0)
				release(g, &a->path);
			/* ...and leave the screen or die. */
			if (chance(g, 240)) {
				release(g, &a->path);
				release(g, &a->state);
				a->live = 0;
			}
		}
		frame(g);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* levels, levels-linear */

#define MAX_LEVEL_BLOCKS 40
#define MAX_ROOM_BLOCKS 24

/* Sizes rounded to 32 bytes, as asset converters pad them. */
static uint32_t asset(struct gen *g, uint32_t lo, uint32_t hi)
{
	return (lo + rnd(g, hi - lo + 1u)) & ~31u;
}

/* Frees in reverse order of allocation (levels) or resets to a marker (levels-linear). */
static void drop_all(struct gen *g, uint32_t *ids, uint32_t *n, int linear, uint32_t marker)
{
	if (linear)
		push(g, AGB_OP_RESET, marker, 0, 0);
	else
		while (*n > 0)
			release(g, &ids[--*n]);
	*n = 0;
}

/* A game loading levels into EWRAM: resident data for the whole run; per level its assets
 * (tileset cache, collision map, entity table, scripts, enemy structs); per room scratch (a
 * path grid, room variables, temporaries). Everything of a room goes at the room's end and
 * everything of a level at the level's end, so the lifetimes nest: the pattern the seed's
 * linear allocator with markers is made for. `linear` releases with mark/reset instead of
 * frees (for bump and stack2); the allocation sequence is the same. */
static void levels(struct gen *g, uint32_t frames, int linear)
{
	uint32_t level_ids[MAX_LEVEL_BLOCKS], room_ids[MAX_ROOM_BLOCKS];
	uint32_t nlevel = 0, nroom = 0, f = 0;
	const uint32_t frames_per_level = 600u;

	alloc_bytes(g, 2048u); /* font */
	alloc_bytes(g, 512u);  /* player state */
	alloc_bytes(g, 1024u); /* save buffer */
	alloc_bytes(g, 4096u); /* sound mixer */
	if (linear)
		push(g, AGB_OP_MARK, 1u, 0, 0);
	while (f < frames) {
		uint32_t enemies = 8u + rnd(g, 17), rooms = 3u + rnd(g, 4);
		level_ids[nlevel++] = alloc_bytes(g, asset(g, 8192u, 24576u));  /* tileset cache */
		level_ids[nlevel++] = alloc_bytes(g, asset(g, 2048u, 8192u));   /* collision */
		level_ids[nlevel++] = alloc_bytes(g, asset(g, 1024u, 4096u));   /* entity table */
		level_ids[nlevel++] = alloc_bytes(g, asset(g, 512u, 4096u));    /* scripts */
		for (uint32_t e = 0; e < enemies && nlevel < MAX_LEVEL_BLOCKS; e++)
			level_ids[nlevel++] = alloc_bytes(g, 96u + 16u * rnd(g, 11));
		if (linear)
			push(g, AGB_OP_MARK, 2u, 0, 0);
		for (uint32_t r = 0; r < rooms && f < frames; r++) {
			uint32_t temps = 4u + rnd(g, 9);
			room_ids[nroom++] = alloc_bytes(g, asset(g, 1024u, 4096u)); /* path grid */
			room_ids[nroom++] = alloc_bytes(g, asset(g, 256u, 1024u));  /* room variables */
			for (uint32_t k = 0; k < temps && nroom < MAX_ROOM_BLOCKS; k++)
				room_ids[nroom++] = alloc_bytes(g, 32u + 16u * rnd(g, 31));
			for (uint32_t k = 0; k < frames_per_level / rooms && f < frames; k++, f++)
				frame(g);
			drop_all(g, room_ids, &nroom, linear, 2u);
		}
		drop_all(g, level_ids, &nlevel, linear, 1u);
		if (f < frames) {
			frame(g); /* the loading screen */
			f++;
		}
	}
}

/* ---------------------------------------------------------------------------------------- */
/* sections: an open-world side-scroller streams its world through the two-sided allocator
 * (stack2; the seed's open-world notes). While the player crosses section i, section i+1
 * streams into the other side, a piece at a time; at the door the game syncs on it; then it
 * drops section i by resetting its side's marker. Sections are uneven, so one can take more
 * than half the pool while its neighbours are small: what two sides buy over two halves. */

#define SECTIONS_POOL 131072u
#define SECTION_MIN 8192u
#define SECTION_MAX 90112u

/* A section that fits beside its neighbour of `other` bytes (256-byte steps). */
static uint32_t section_size(struct gen *g, uint32_t other)
{
	uint32_t hi = SECTIONS_POOL - other - 4096u;
	if (hi > SECTION_MAX)
		hi = SECTION_MAX;
	return (SECTION_MIN + rnd(g, hi - SECTION_MIN + 1u)) & ~255u;
}

/* One piece of a streaming section (tiles, map, entities: 512 B to 4 KiB); the last is what
 * remains. Returns the bytes still to stream. */
static uint32_t stream_piece(struct gen *g, uint32_t left)
{
	uint32_t piece = (512u + rnd(g, 3585)) & ~31u;
	if (piece > left)
		piece = left;
	alloc_bytes(g, piece);
	return left - piece;
}

static void sections(struct gen *g, uint32_t frames)
{
	uint32_t f = 0, size = section_size(g, 0), side = 0;
	/* Section 0 loads behind the title screen, whole. */
	push(g, AGB_OP_MARK, 1u, 0, 0);
	for (uint32_t left = size; left > 0;)
		left = stream_piece(g, left);
	push(g, AGB_OP_FRAME, 0, AGB_FRAME_LOAD, 0); /* one of the frames asked for */
	for (f = 1; f < frames;) {
		uint32_t next = section_size(g, size), cross = 120u + rnd(g, 481), left = next;
		uint32_t per_frame = next / (cross - cross / 4u) + 1u; /* done before the last quarter */
		side ^= 1u;
		push(g, AGB_OP_SIDE, side, 0, 0);
		push(g, AGB_OP_MARK, side + 1u, 0, 0);
		for (uint32_t k = 0; k < cross && f < frames; k++, f++) {
			for (uint32_t got = 0; left > 0 && got < per_frame;) {
				uint32_t before = left;
				left = stream_piece(g, left);
				got += before - left;
			}
			frame(g);
		}
		while (left > 0) /* the door came early: what is left loads now */
			left = stream_piece(g, left);
		push(g, AGB_OP_SYNC, side + 1u, 0, 0);
		push(g, AGB_OP_RESET, (side ^ 1u) + 1u, 0, 0); /* the section behind the door */
		size = next;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* strips: a brawler's fighters stream animation strips (all frames of one move, packed), so
 * requests are 3, 6, 12, 24 or 48 tiles at once -- not sprite shapes. */

#define MAX_FIGHTERS 6
#define FIGHTER_STRIPS 4

struct fighter {
	uint32_t sid, strip[FIGHTER_STRIPS], attack, attack_left, life;
};

/* A strip of n 4bpp 8x8 tiles (32 bytes each). */
static uint32_t strip(struct gen *g, uint32_t tiles)
{
	return alloc_bytes(g, tiles * 32u);
}

static uint32_t strip_tiles(struct gen *g)
{
	static const uint8_t sizes[] = {3, 6, 12, 24, 48};
	return sizes[rnd(g, 5)];
}

static void fighter_spawn(struct gen *g, struct fighter *f)
{
	/* Idle, walk, hurt (and a jump half the time): strips kept while the fighter lives. */
	for (uint32_t k = 0; k < FIGHTER_STRIPS; k++)
		f->strip[k] = k < 3u || chance(g, 2) ? strip(g, strip_tiles(g)) : NONE;
	f->attack = NONE;
	f->attack_left = 0;
	f->life = 200u + rnd(g, 900);
	f->sid = show(g, 0x4000u + rnd(g, 0x100));
}

static void fighter_leave(struct gen *g, struct fighter *f)
{
	hide(g, &f->sid);
	release(g, &f->attack);
	for (uint32_t k = 0; k < FIGHTER_STRIPS; k++)
		release(g, &f->strip[k]);
	f->life = 0;
}

static void strips(struct gen *g, uint32_t frames)
{
	struct fighter fs[MAX_FIGHTERS];
	uint32_t hud[6], fx = NONE, fx_left = 0;

	memset(fs, 0, sizeof fs);
	/* Resident HUD: life bars and portraits, sprite shapes. */
	for (int i = 0; i < 6; i++)
		hud[i] = i < 2 ? gfx(g, 32, 32, 4) : gfx(g, 16, 16, 4);
	(void)hud;
	for (uint32_t f = 0; f < frames; f++) {
		for (uint32_t i = 0; i < MAX_FIGHTERS; i++) {
			struct fighter *p = &fs[i];
			if (p->life == 0) {
				if (chance(g, 40))
					fighter_spawn(g, p);
				continue;
			}
			if (--p->life == 0) {
				fighter_leave(g, p);
				continue;
			}
			/* Attacks load their strip on demand and drop it when the move ends. */
			if (p->attack == NONE && chance(g, 30)) {
				p->attack = strip(g, strip_tiles(g));
				p->attack_left = 20u + rnd(g, 40);
			} else if (p->attack != NONE && --p->attack_left == 0) {
				release(g, &p->attack);
			}
			if (p->sid != NONE && chance(g, 10))
				set_z(g, p->sid, 0x4000u + rnd(g, 0x100));
		}
		/* Hit sparks: a short strip now and then. */
		if (fx == NONE && chance(g, 25)) {
			fx = strip(g, 3u + 3u * rnd(g, 2));
			fx_left = 10u + rnd(g, 20);
		} else if (fx != NONE && --fx_left == 0) {
			release(g, &fx);
		}
		frame(g);
	}
}

/* ---------------------------------------------------------------------------------------- */

uint32_t agb_gen_default_frames(const char *scenario)
{
	if (strcmp(scenario, "shmup") == 0)
		return 1800;
	if (strcmp(scenario, "rpg") == 0)
		return 3600;
	if (strcmp(scenario, "particles") == 0)
		return 1200;
	if (strcmp(scenario, "strips") == 0)
		return 3600;
	if (strcmp(scenario, "ai-scratch") == 0)
		return 1800;
	if (strcmp(scenario, "levels") == 0 || strcmp(scenario, "levels-linear") == 0 ||
	    strcmp(scenario, "sections") == 0)
		return 3600;
	if (agb_gen_cache_default_frames(scenario) != 0)
		return agb_gen_cache_default_frames(scenario);
	return agb_gen_pal_default_frames(scenario);
}

int agb_gen(const char *scenario, uint32_t seed, uint32_t frames, struct agb_gen_trace *out)
{
	struct gen *g;
	enum agb_arena arena = AGB_ARENA_OBJ_VRAM;
	uint32_t arena_bytes = 32768;
	if (agb_gen_pal_default_frames(scenario) != 0)
		return agb_gen_pal(scenario, seed, frames, out);
	if (agb_gen_cache_default_frames(scenario) != 0)
		return agb_gen_cache(scenario, seed, frames == 0 ? 1 : frames, out);
	memset(out, 0, sizeof *out);
	if (agb_gen_default_frames(scenario) == 0)
		return -1;
	g = calloc(1, sizeof *g); /* the MT state is 2.5 KiB */
	if (g == NULL)
		return -2;
	agb_mt_seed(&g->mt, seed);
	if (frames == 0)
		frames = 1;
	if (strcmp(scenario, "shmup") == 0) {
		shmup(g, frames);
	} else if (strcmp(scenario, "rpg") == 0) {
		rpg(g, frames);
	} else if (strcmp(scenario, "particles") == 0) {
		particles(g, frames);
	} else if (strcmp(scenario, "strips") == 0) {
		strips(g, frames);
	} else if (strcmp(scenario, "ai-scratch") == 0) {
		arena = AGB_ARENA_EWRAM;
		arena_bytes = 4096;
		ai_scratch(g, frames);
	} else if (strcmp(scenario, "sections") == 0) {
		arena = AGB_ARENA_EWRAM;
		arena_bytes = SECTIONS_POOL;
		sections(g, frames);
	} else {
		arena = AGB_ARENA_EWRAM;
		arena_bytes = 65536;
		levels(g, frames, strcmp(scenario, "levels-linear") == 0);
	}
	if (g->oom) {
		free(g->ev);
		free(g);
		return -2;
	}
	agb_gen_fill(out, scenario, seed, frames, arena, arena_bytes, g->ev, g->n);
	free(g);
	return 0;
}

void agb_gen_fill(struct agb_gen_trace *out, const char *scenario, uint32_t seed, uint32_t frames,
		  enum agb_arena arena, uint32_t arena_bytes, struct agb_event *events, size_t n)
{
	out->events = events;
	snprintf(out->name, sizeof out->name, "%s", scenario);
	snprintf(out->source, sizeof out->source,
		 "agbsim gen %s --seed %lu --frames %lu (MT19937 scenario generator)", scenario,
		 (unsigned long)seed, (unsigned long)frames);
	out->trace.arena = arena;
	out->trace.arena_bytes = arena_bytes;
	out->trace.event_count = (uint32_t)n;
	out->trace.frame_count = frames;
	out->trace.events = events;
	out->trace.name = out->name;
	out->trace.source = out->source;
}

void agb_gen_release(struct agb_gen_trace *t)
{
	free(t->events);
	memset(t, 0, sizeof *t);
}
