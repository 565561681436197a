/* Replay engine (docs/design.md, "Data flow"): one core, one trace, one machine. The op table
 * below is the only place where trace ops become core verbs. */
#include "agbsim/replay.h"
#include "agb/cache.h"
#include "agbsim/cycle_model.h"

#ifndef AGB_TARGET_GBA
#include <string.h>
#endif

/* SLOT_PAL: a loaded palette (pal_ram traces): addr is its first bank's address, requested its
 * colour bytes, granted the bank bytes it took (0 when it shares a resident palette's banks). */
enum slot_state { SLOT_EMPTY, SLOT_LIVE, SLOT_FAILED, SLOT_PAL };

struct slot {
	uint32_t addr;
	uint32_t requested;
	uint32_t granted;
	uint32_t state;
	uint32_t id; /* the trace id: keys the canary pattern */
};

/* Offsets into the workspace: core state first (8-aligned), then the slot table. */
#define STATE_OFFSET 0u
#define SLOTS_OFFSET AGB_HEAP_STATE_MAX

#ifdef AGB_TARGET_GBA
/* GBA bench hooks (src/gba/roms/bench.c overrides these weak no-ops; a game linking libagbmem gets
 * the no-ops). op_begin/op_end bracket exactly the core call of event `index`, so the bench can
 * time it with host markers; addr is what the call returned (AGB_NULL for free and events).
 * slot_table says where the slot table goes: the bench keeps the core state in IWRAM (where a
 * game keeps it) but the table only fits in VRAM or EWRAM, wherever the arena is not. */
void agb_replay_op_begin(uint32_t index);
void agb_replay_op_end(uint32_t index, uint32_t addr);
void *agb_replay_slot_table(void *workspace);
void agb_replay_calibrate_marks(uint32_t n);
__attribute__((weak)) void agb_replay_op_begin(uint32_t index) { (void)index; }
__attribute__((weak)) void agb_replay_op_end(uint32_t index, uint32_t addr)
{
	(void)index;
	(void)addr;
}
__attribute__((weak)) void *agb_replay_slot_table(void *workspace)
{
	return (uint8_t *)workspace + SLOTS_OFFSET;
}
/* n empty begin/end pairs from this file's code placement: the host subtracts their cost. */
void agb_replay_calibrate_marks(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		agb_replay_op_begin(0xFFFFFFFFu);
		agb_replay_op_end(0xFFFFFFFFu, AGB_NULL);
	}
}
#define OP_BEGIN(i) agb_replay_op_begin(i)
#define OP_END(i, a) agb_replay_op_end((i), (a))
#define SLOT_TABLE(ws) ((struct slot *)agb_replay_slot_table(ws))
#else
#define OP_BEGIN(i) ((void)0)
#define OP_END(i, a) ((void)0)
#define SLOT_TABLE(ws) ((struct slot *)(void *)((uint8_t *)(ws) + SLOTS_OFFSET))
#endif

/* The cache state after the sprite handles, 8-aligned (slots are 20 bytes, handles 256). */
#define CACHE_OFFSET(t) (((size_t)(t)->slots * sizeof(struct slot) + AGB_REPLAY_SPRITE_HANDLES + 7u) & ~(size_t)7u)

size_t agb_replay_slot_table_bytes(const struct agb_trace *t)
{
	return CACHE_OFFSET(t) + sizeof(agb_cache);
}

size_t agb_replay_workspace_bytes(const struct agb_trace *t)
{
	return SLOTS_OFFSET + agb_replay_slot_table_bytes(t);
}

void *agb_replay_core_state(void *workspace)
{
	return (uint8_t *)workspace + STATE_OFFSET;
}

/* Meta areas: VRAM arenas keep bookkeeping in EWRAM by default, EWRAM arenas in IWRAM (the
 * upper half: the lower half is left to the program's own IWRAM code and data). */
#define IWRAM_META_ADDR  (AGB_MEM_IWRAM + AGB_IWRAM_SIZE / 2u)
#define IWRAM_META_BYTES (AGB_IWRAM_SIZE / 2u - 0x400u) /* keep clear of the stacks at the top */

static void place(const struct agb_trace *t, const struct agb_replay_config *cfg,
		  struct agb_heap_config *hc)
{
	enum agb_meta_region meta = cfg->meta;
	hc->arena_addr = agb_arena_base(t->arena);
	hc->arena_bytes = cfg->arena_bytes != 0 ? cfg->arena_bytes : t->arena_bytes;
	hc->flags = cfg->core_flags;
	if (meta == AGB_META_DEFAULT)
		meta = t->arena == AGB_ARENA_EWRAM ? AGB_META_IWRAM : AGB_META_EWRAM;
	if (meta == AGB_META_IWRAM) {
		hc->meta_addr = IWRAM_META_ADDR;
		hc->meta_bytes = IWRAM_META_BYTES;
	} else if (t->arena == AGB_ARENA_EWRAM) {
		/* Whatever EWRAM the pool leaves over. */
		hc->meta_addr = AGB_MEM_EWRAM + hc->arena_bytes;
		hc->meta_bytes = AGB_EWRAM_SIZE - hc->arena_bytes;
		if (hc->meta_bytes == 0)
			hc->meta_addr = AGB_NULL;
	} else {
		hc->meta_addr = AGB_MEM_EWRAM;
		hc->meta_bytes = AGB_EWRAM_SIZE;
	}
}

#ifndef AGB_TARGET_GBA
/* The canary pattern of an allocation: a word derived from its id, repeated. Position-
 * independent within the block so a moved (realloc) block can be checked in place. */
static uint32_t canary_word(uint32_t id)
{
	return id * 0x9E3779B1u + 0x7F4A7C15u;
}

/* Eight bytes at a time: a 64-bit word is the 32-bit pattern twice, so the pattern stays
 * position-independent. The tail is byte by byte. */
static void canary_fill(agb_machine *m, uint32_t addr, uint32_t bytes, uint32_t id)
{
	uint8_t *h = agb_machine_host(m, addr, bytes);
	uint32_t w = canary_word(id);
	uint64_t w2 = (uint64_t)w << 32 | w;
	uint32_t i = 0;
	if (h == NULL)
		return;
	for (; i + 8u <= bytes; i += 8u)
		__builtin_memcpy(h + i, &w2, 8);
	for (; i < bytes; i++)
		h[i] = (uint8_t)(w >> ((i & 3u) * 8u));
}

/* Returns the number of bytes that differ from the pattern: words are compared first, bytes
 * counted only inside a word that differs. */
static uint32_t canary_check(agb_machine *m, uint32_t addr, uint32_t bytes, uint32_t id)
{
	uint8_t *h = agb_machine_host(m, addr, bytes);
	uint32_t w = canary_word(id);
	uint64_t w2 = (uint64_t)w << 32 | w;
	uint32_t bad = 0;
	uint32_t i = 0;
	if (h == NULL)
		return bytes;
	for (; i + 8u <= bytes; i += 8u) {
		uint64_t v;
		__builtin_memcpy(&v, h + i, 8);
		if (v != w2)
			for (unsigned k = 0; k < 8u; k++)
				bad += (uint8_t)(v >> (k * 8u)) != (uint8_t)(w2 >> (k * 8u));
	}
	for (; i < bytes; i++)
		bad += h[i] != (uint8_t)(w >> ((i & 3u) * 8u));
	return bad;
}

static void zero_region(agb_machine *m, uint32_t addr, uint32_t bytes)
{
	uint8_t *h = agb_machine_host(m, addr, bytes);
	if (h != NULL)
		__builtin_memset(h, 0, bytes);
}
#else
#define canary_fill(m, a, b, id) ((void)(m), (void)(a), (void)(b), (void)(id))
#define canary_check(m, a, b, id) ((void)(m), (void)(a), (void)(b), (void)(id), 0u)
#define zero_region(m, a, b) ((void)0)
#endif

/* A realloc for cores without one: allocate, copy what both blocks hold through the machine
 * (halfwords, so it is safe on VRAM), free. C semantics on failure. */
static uint32_t realloc_by_move(const struct agb_heap_core *core, void *st, agb_machine *m,
				uint32_t addr, uint32_t old_granted, uint32_t size, uint32_t *granted)
{
	uint32_t to = core->alloc(st, size, 1, granted);
	uint32_t n = old_granted < *granted ? old_granted : *granted;
	if (to == AGB_NULL)
		return AGB_NULL;
	for (uint32_t i = 0; i + 2u <= n; i += 2u)
		AGB_ST16(m, to + i, AGB_LD16(m, addr + i));
	core->free(st, addr);
	return to;
}

/* What a reset released: see op_reset. */
struct release {
	struct slot *slots;
	uint32_t nslots;
	agb_machine *m;
	int canaries;
	uint32_t corrupted, bytes, granted;
};

static void release_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct release *rel = ctx;
	if (kind != AGB_RUN_FREE)
		return;
	for (uint32_t i = 0; i < rel->nslots; i++) {
		struct slot *s = &rel->slots[i];
		if (s->state != SLOT_LIVE || s->addr < addr || s->addr - addr >= bytes)
			continue;
		if (rel->canaries)
			rel->corrupted += canary_check(rel->m, s->addr, s->requested, s->id);
		rel->bytes += s->requested;
		rel->granted += s->granted;
		s->state = SLOT_EMPTY;
	}
}

/* The fitted model (src/engine/cycle_model.c) where it has a row for this op, else the core's own
 * first estimate. */
static uint32_t model_cycles(const struct agb_heap_core *core, const struct agb_cycle_model *fit,
			     enum agb_op op, const struct agb_replay_obs *o)
{
	uint32_t base = 0;
	if (fit != NULL && fit->op[op].fitted)
		return agb_cycle_model_eval_op(fit, op, o->bus_cycles, o->accesses, o->stores,
					       o->rom_reads, agb_cycle_size_log2(o->requested), o->work,
					       o->nest[0], o->nest[1]);
	switch (op) {
	case AGB_OP_ALLOC:
		base = core->model.alloc_base;
		break;
	case AGB_OP_FREE:
		base = core->model.free_base;
		break;
	case AGB_OP_REALLOC:
		base = core->model.realloc_base;
		break;
	default:
		base = core->model.free_base;
		break;
	}
	return base + o->bus_cycles + (uint32_t)(((uint64_t)o->accesses * core->model.per_access) >> 4);
}

static int stop(struct agb_replay_result *out, int status, uint32_t event, const char *why)
{
	out->status = status;
	out->failed_event = event;
	out->why = why;
	return status;
}

/* One replay in progress: what the op handlers share. */
struct run {
	const struct agb_trace *t;
	const struct agb_heap_core *core;
	agb_machine *m;
	void *st;
	struct slot *slots;
	uint8_t *sprites; /* sprite handle -> the core's OAM entry, AGB_SPRITE_NONE when not shown */
	int canaries;
	uint32_t live, live_granted;
	struct agb_replay_result *out;
	/* Palette stack per side: levels pushed, and which of the newest 64 the core served (a pop
	 * of a level whose push failed is skipped, as ops on a failed allocation are). */
	uint32_t pal_depth[2];
	uint64_t pal_pushed[2];
	agb_cache *cache; /* the resource cache when the trace has lock/unlock/touch, else NULL */
};

/* ---- op handlers: the one place where trace ops become core verbs ------------------------
 * Each serves one event: brackets exactly the core call with OP_BEGIN/OP_END (the GBA bench
 * times that), fills the observation and returns AGB_REPLAY_OK or why the run stops. */

typedef int (*op_handler)(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o);

/* The core's alloc of ev's size and alignment, timed, into o (unless !ASK: a failure without a
 * call); a failure counted. Returns whether it served. */
static int ask_alloc(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o, int ask)
{
	o->requested = ev->size;
	if (ask) {
		OP_BEGIN(o->index);
		o->addr = r->core->alloc(r->st, ev->size, ev->align, &o->granted);
		OP_END(o->index, o->addr);
	}
	if (o->addr != AGB_NULL)
		return 1;
	o->outcome = AGB_OUTCOME_FAILED;
	o->granted = 0;
	r->out->failures++;
	return 0;
}

static int op_alloc(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	struct slot *s = &r->slots[ev->slot];
	if (r->core->alloc == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index, "this core does not allocate blocks");
	if (!ask_alloc(r, ev, o, 1)) {
		s->state = SLOT_FAILED;
		return AGB_REPLAY_OK;
	}
	*s = (struct slot){o->addr, ev->size, o->granted, SLOT_LIVE, ev->id};
	r->live += ev->size;
	r->live_granted += o->granted;
	return AGB_REPLAY_OK;
}

/* ["refused", size]: a request the recorded allocator refused. The core is asked the same: if it
 * has no room either, that is its failure too (the recording's end, often); if it serves the
 * request, the block is freed at once (the game, given NULL, never held it) and the outcome is
 * OK: this core would have served what the recorded one did not. */
static int op_refused(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	if (r->core->alloc == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index, "this core does not allocate blocks");
	/* (A refused request may be any size: one above the pool is not asked.) */
	if (ask_alloc(r, ev, o, ev->size <= r->out->arena_bytes) &&
	    r->core->free != NULL) /* a linear core keeps it until its reset */
		r->core->free(r->st, o->addr);
	return AGB_REPLAY_OK;
}

static int op_free(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	struct slot *s = &r->slots[ev->slot];
	if (r->core->free == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index, "this core cannot free single blocks");
	if (s->state != SLOT_LIVE) {
		o->outcome = AGB_OUTCOME_SKIPPED;
		s->state = SLOT_EMPTY;
		return AGB_REPLAY_OK;
	}
	o->addr = s->addr;
	o->requested = s->requested;
	o->granted = s->granted;
	if (r->canaries)
		o->corrupted = canary_check(r->m, s->addr, s->requested, ev->id);
	OP_BEGIN(o->index);
	r->core->free(r->st, s->addr);
	OP_END(o->index, AGB_NULL);
	r->live -= s->requested;
	r->live_granted -= s->granted;
	s->state = SLOT_EMPTY;
	return AGB_REPLAY_OK;
}

static int op_realloc(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	struct slot *s = &r->slots[ev->slot];
	uint32_t to, granted = 0;
	if (s->state != SLOT_LIVE) {
		o->outcome = AGB_OUTCOME_SKIPPED;
		return AGB_REPLAY_OK;
	}
	if (r->core->free == NULL && r->core->realloc == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index, "this core cannot resize blocks");
	o->requested = ev->size;
	if (r->canaries)
		o->corrupted = canary_check(r->m, s->addr, s->requested, ev->id);
	OP_BEGIN(o->index);
	if (r->core->realloc != NULL)
		to = r->core->realloc(r->st, s->addr, ev->size, &granted);
	else
		to = realloc_by_move(r->core, r->st, r->m, s->addr, s->granted, ev->size, &granted);
	OP_END(o->index, to);
	if (to == AGB_NULL) {
		/* C semantics: the old block stays live and intact. */
		o->outcome = AGB_OUTCOME_FAILED;
		r->out->failures++;
		return AGB_REPLAY_OK;
	}
	if (r->canaries) {
		uint32_t kept = s->requested < ev->size ? s->requested : ev->size;
		o->corrupted += canary_check(r->m, to, kept, ev->id);
	}
	r->live = r->live - s->requested + ev->size;
	r->live_granted = r->live_granted - s->granted + granted;
	*s = (struct slot){to, ev->size, granted, SLOT_LIVE, ev->id};
	o->addr = to;
	o->granted = granted;
	return AGB_REPLAY_OK;
}

/* A verb's status as the run sees it: BAD stops the run, FAILED counts a failure. */
static int verb_outcome(struct run *r, struct agb_replay_obs *o, int status)
{
	if (status == AGB_VERB_BAD)
		return stop(r->out, AGB_REPLAY_BAD_EVENT, o->index, "the core rejected this op");
	if (status == AGB_VERB_FAILED) {
		o->outcome = AGB_OUTCOME_FAILED;
		r->out->failures++;
	} else if ((o->result & AGB_VERB_SKIPPED) != 0) {
		o->outcome = AGB_OUTCOME_SKIPPED;
	}
	return AGB_REPLAY_OK;
}

static int unsupported(struct run *r, const struct agb_replay_obs *o)
{
	return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index, "this core cannot serve this op");
}

/* Frames describe the game, not its memory: a core without per-frame work ignores them. */
static int op_frame(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	int status;
	o->requested = ev->size;
	if (r->cache != NULL)
		agb_cache_frame(r->cache);
	if (r->core->frame == NULL)
		return AGB_REPLAY_OK;
	OP_BEGIN(o->index);
	status = r->core->frame(r->st);
	OP_END(o->index, AGB_NULL);
	return verb_outcome(r, o, status);
}

static int op_mark(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	int status;
	o->requested = ev->size;
	if (r->core->mark == NULL)
		return unsupported(r, o);
	OP_BEGIN(o->index);
	status = r->core->mark(r->st, ev->id);
	OP_END(o->index, AGB_NULL);
	return verb_outcome(r, o, status);
}

static int op_side(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	int status;
	o->requested = ev->size;
	if (r->core->side == NULL)
		return unsupported(r, o);
	OP_BEGIN(o->index);
	status = r->core->side(r->st, ev->id);
	OP_END(o->index, AGB_NULL);
	return verb_outcome(r, o, status);
}

/* ["reset", n] (bump, stack2) frees every block allocated after marker n at once. The core is
 * the authority on what is free now, so the engine asks it - walk(), observation only - and
 * forgets each live allocation that lies in a free run, checking its canary first. This keeps
 * the engine free of any core's marker semantics. O(free runs x slots); resets are rare. */
static int op_reset(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	int status;
	o->requested = ev->size;
	if (r->core->reset == NULL)
		return unsupported(r, o);
	OP_BEGIN(o->index);
	status = r->core->reset(r->st, ev->id);
	OP_END(o->index, AGB_NULL);
	if (status == AGB_VERB_DONE) {
		struct release rel = {r->slots, r->t->slots, r->m, r->canaries, 0, 0, 0};
		r->core->walk(r->st, release_run, &rel);
		o->corrupted = rel.corrupted;
		r->live -= rel.bytes;
		r->live_granted -= rel.granted;
	}
	return verb_outcome(r, o, status);
}

static int op_ref(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	int status;
	o->requested = ev->size;
	if (r->core->ref == NULL)
		return unsupported(r, o);
	OP_BEGIN(o->index);
	status = r->core->ref(r->st, ev->id, ev->size, &o->result);
	OP_END(o->index, AGB_NULL);
	return verb_outcome(r, o, status);
}

static int op_unref(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	int status;
	o->requested = ev->size;
	if (r->core->unref == NULL)
		return unsupported(r, o);
	OP_BEGIN(o->index);
	status = r->core->unref(r->st, ev->id, ev->size, &o->result);
	OP_END(o->index, AGB_NULL);
	return verb_outcome(r, o, status);
}

/* Sprite display: the trace's dense sprite handle (ev->slot) keeps the OAM entry the core
 * handed out, as a game keeps it in its sprite struct. A show beyond the handle table or with
 * no entry free is a failure; later ops on that handle are no-ops, as for a failed alloc. A core
 * without a shadow OAM ignores all three. */
static int op_sprite_show(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	uint32_t sprite;
	o->requested = ev->size;
	if (r->core->sprite_show == NULL)
		return AGB_REPLAY_OK;
	if (ev->slot >= AGB_REPLAY_SPRITE_HANDLES)
		return verb_outcome(r, o, AGB_VERB_FAILED);
	OP_BEGIN(o->index);
	sprite = r->core->sprite_show(r->st, ev->size);
	OP_END(o->index, AGB_NULL);
	r->sprites[ev->slot] = (uint8_t)sprite;
	return verb_outcome(r, o, sprite == AGB_SPRITE_NONE ? AGB_VERB_FAILED : AGB_VERB_DONE);
}

/* The shown entry behind handle ev->slot, or AGB_SPRITE_NONE. */
static uint32_t shown_sprite(const struct run *r, const struct agb_event *ev)
{
	return ev->slot < AGB_REPLAY_SPRITE_HANDLES ? r->sprites[ev->slot] : AGB_SPRITE_NONE;
}

static int op_sprite_z(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	uint32_t sprite = shown_sprite(r, ev);
	o->requested = ev->size;
	if (r->core->sprite_z == NULL || sprite == AGB_SPRITE_NONE)
		return AGB_REPLAY_OK;
	OP_BEGIN(o->index);
	r->core->sprite_z(r->st, sprite, ev->size);
	OP_END(o->index, AGB_NULL);
	return AGB_REPLAY_OK;
}

static int op_sprite_hide(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	uint32_t sprite = shown_sprite(r, ev);
	o->requested = ev->size;
	if (r->core->sprite_hide == NULL || sprite == AGB_SPRITE_NONE)
		return AGB_REPLAY_OK;
	OP_BEGIN(o->index);
	r->core->sprite_hide(r->st, sprite);
	OP_END(o->index, AGB_NULL);
	r->sprites[ev->slot] = AGB_SPRITE_NONE;
	return AGB_REPLAY_OK;
}

/* ---- palette RAM (pal_ram traces) ----------------------------------------------------------
 * The slot table holds the loaded palettes by the loader's dense handle, as a game keeps the
 * bank in its sprite or map struct; frees go to the core by bank. */

/* Where the colours of palette `key` come from: ROM data, as in a game (AGB_REPLAY_PAL_SOURCE). */
static uint32_t pal_source(uint32_t key)
{
	return AGB_REPLAY_PAL_SOURCE(key);
}

static uint32_t pal_bank_addr(const struct run *r, uint32_t side, uint32_t bank)
{
	return r->out->arena_addr + side * AGB_PAL_SIDE_BYTES + bank * AGB_PAL_BANK_BYTES;
}

static int op_pal_load(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	struct slot *s = &r->slots[ev->slot];
	uint32_t side = AGB_PAL_EV_SIDE(ev->align), key = AGB_PAL_EV_KEY(ev->align), bank;
	if (r->core->pal_load == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index, "this core does not load palettes");
	o->requested = ev->size * 2u;
	OP_BEGIN(o->index);
	bank = r->core->pal_load(r->st, side, key, pal_source(key), ev->size, &o->result);
	OP_END(o->index, bank);
	if (bank == AGB_PAL_NONE) {
		s->state = SLOT_FAILED;
		return verb_outcome(r, o, AGB_VERB_FAILED);
	}
	o->addr = pal_bank_addr(r, side, bank);
	o->granted = (o->result & AGB_VERB_UPLOADED) != 0
	                     ? AGB_PAL_BANKS_OF(ev->size) * AGB_PAL_BANK_BYTES
	                     : 0;
	*s = (struct slot){o->addr, o->requested, o->granted, SLOT_PAL, ev->id};
	r->live += o->requested;
	r->live_granted += o->granted;
	return AGB_REPLAY_OK;
}

static int op_pal_free(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	struct slot *s = &r->slots[ev->slot];
	uint32_t off = s->addr - r->out->arena_addr;
	int status;
	if (r->core->pal_free == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index, "this core does not load palettes");
	if (s->state != SLOT_PAL) {
		o->outcome = AGB_OUTCOME_SKIPPED;
		s->state = SLOT_EMPTY;
		return AGB_REPLAY_OK;
	}
	o->addr = s->addr;
	o->requested = s->requested;
	OP_BEGIN(o->index);
	status = r->core->pal_free(r->st, off / AGB_PAL_SIDE_BYTES,
	                           off % AGB_PAL_SIDE_BYTES / AGB_PAL_BANK_BYTES, &o->result);
	OP_END(o->index, AGB_NULL);
	o->granted = (o->result & AGB_VERB_RELEASED) != 0
	                     ? AGB_PAL_BANKS_OF(ev->size) * AGB_PAL_BANK_BYTES
	                     : 0;
	r->live -= s->requested;
	r->live_granted -= s->granted;
	s->state = SLOT_EMPTY;
	return verb_outcome(r, o, status);
}

/* The stack's work-RAM frame bytes go to o->granted, the side's bank 0 address to o->addr. */
static int op_pal_push(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	uint32_t side = AGB_PAL_EV_SIDE(ev->align), key = AGB_PAL_EV_KEY(ev->align);
	uint32_t level = r->pal_depth[side]++;
	int status = AGB_VERB_FAILED;
	if (r->core->pal_push == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index,
			    "this core has no palette stack (pal_push/pal_pop)");
	o->requested = ev->size * 2u;
	o->addr = pal_bank_addr(r, side, 0);
	if (level < 64u) {
		OP_BEGIN(o->index);
		status = r->core->pal_push(r->st, side, key, pal_source(key), ev->size, &o->granted);
		OP_END(o->index, AGB_NULL);
		if (status == AGB_VERB_DONE)
			r->pal_pushed[side] |= (uint64_t)1 << level;
		else
			r->pal_pushed[side] &= ~((uint64_t)1 << level);
	}
	return verb_outcome(r, o, status);
}

static int op_pal_pop(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	uint32_t side = AGB_PAL_EV_SIDE(ev->align), level;
	int status;
	if (r->core->pal_pop == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index,
			    "this core has no palette stack (pal_push/pal_pop)");
	if (r->pal_depth[side] == 0)
		return stop(r->out, AGB_REPLAY_BAD_EVENT, o->index, "pal_pop of an empty palette stack");
	level = --r->pal_depth[side];
	o->requested = ev->size * 2u;
	o->addr = pal_bank_addr(r, side, 0);
	if (level >= 64u || (r->pal_pushed[side] >> level & 1u) == 0) {
		o->outcome = AGB_OUTCOME_SKIPPED;
		return AGB_REPLAY_OK;
	}
	OP_BEGIN(o->index);
	status = r->core->pal_pop(r->st, side, &o->granted);
	OP_END(o->index, AGB_NULL);
	return verb_outcome(r, o, status);
}

/* ["sync", marker]: a door the game holds until the section since `marker` has streamed in.
 * Nothing for the core to do; the metrics judge the stall. */
static int op_sync(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	(void)r;
	o->requested = ev->size;
	return AGB_REPLAY_OK;
}

/* ---- resource cache (lock, unlock, touch; agb/cache.h) --------------------------------------
 * The cache sits on the core and calls its alloc and free; the observation carries what it
 * did (hit, load, nope, evictions) and the blocks it holds count as live bytes. */

static int cache_missing(struct run *r, const struct agb_replay_obs *o)
{
	return stop(r->out, AGB_REPLAY_UNSUPPORTED, o->index,
		    "the resource cache needs a core that frees single blocks");
}

/* lock and touch: the address is the resource's block, granted what a load reserved. */
static int op_cache_use(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	struct agb_cache_result res;
	uint32_t before = r->cache != NULL ? r->cache->resident_bytes : 0;
	uint32_t before_granted = r->cache != NULL ? r->cache->resident_granted : 0;
	if (r->cache == NULL)
		return cache_missing(r, o);
	o->requested = ev->size;
	OP_BEGIN(o->index);
	if (ev->op == AGB_OP_LOCK)
		o->addr = agb_cache_lock(r->cache, ev->slot, ev->size, &res);
	else
		o->addr = agb_cache_touch(r->cache, ev->slot, ev->size, &res);
	OP_END(o->index, o->addr);
	o->granted = res.granted;
	o->result = AGB_CACHE_DETAIL(&res);
	o->cache_blocked = res.blocked;
	o->cache_since_evicted = res.since_evicted;
	r->live = r->live - before + r->cache->resident_bytes;
	r->live_granted = r->live_granted - before_granted + r->cache->resident_granted;
	if (o->addr == AGB_NULL) {
		o->outcome = AGB_OUTCOME_FAILED;
		r->out->failures++;
	}
	return AGB_REPLAY_OK;
}

/* unlock of a lock that said "nope" holds nothing: skipped, as a free of a failed alloc. */
static int op_cache_unlock(struct run *r, const struct agb_event *ev, struct agb_replay_obs *o)
{
	uint32_t locks;
	int status;
	if (r->cache == NULL)
		return cache_missing(r, o);
	o->addr = agb_cache_entry(r->cache, ev->slot, &locks);
	if (locks == 0) {
		o->outcome = AGB_OUTCOME_SKIPPED;
		o->addr = AGB_NULL;
		return AGB_REPLAY_OK;
	}
	OP_BEGIN(o->index);
	status = agb_cache_unlock(r->cache, ev->slot);
	OP_END(o->index, AGB_NULL);
	return verb_outcome(r, o, status);
}

static const op_handler op_handlers[AGB_OP_COUNT] = {
	[AGB_OP_ALLOC] = op_alloc,
	[AGB_OP_FREE] = op_free,
	[AGB_OP_REALLOC] = op_realloc,
	[AGB_OP_FRAME] = op_frame,
	[AGB_OP_REF] = op_ref,
	[AGB_OP_UNREF] = op_unref,
	[AGB_OP_SPR_SHOW] = op_sprite_show,
	[AGB_OP_SPR_Z] = op_sprite_z,
	[AGB_OP_SPR_HIDE] = op_sprite_hide,
	[AGB_OP_MARK] = op_mark,
	[AGB_OP_RESET] = op_reset,
	[AGB_OP_SIDE] = op_side,
	[AGB_OP_PAL_LOAD] = op_pal_load,
	[AGB_OP_PAL_FREE] = op_pal_free,
	[AGB_OP_PAL_PUSH] = op_pal_push,
	[AGB_OP_PAL_POP] = op_pal_pop,
	[AGB_OP_SYNC] = op_sync,
	[AGB_OP_LOCK] = op_cache_use,
	[AGB_OP_UNLOCK] = op_cache_unlock,
	[AGB_OP_TOUCH] = op_cache_use,
	[AGB_OP_REFUSED] = op_refused,
};

/* ---- the run ------------------------------------------------------------------------------ */

/* Counter totals at the end of the previous event. Between events nothing counted runs
 * (canaries use host pointers, stats and walks peek), so one snapshot per event suffices. */
static struct agb_inputs counters_now(const agb_machine *m)
{
#ifndef AGB_TARGET_GBA
	return agb_machine_inputs(m);
#else
	(void)m;
	return (struct agb_inputs){0, 0, 0, 0, 0};
#endif
}

/* Fills the observation's cost inputs from the counters' growth since *prev, then the model's
 * estimate. Work not done costs nothing: skipped ops, and frames or extension ops (spr_* on a
 * core without a shadow OAM) that the core passes over without touching memory. */
static void observe_cost(const struct run *r, const struct agb_cycle_model *fit,
			 const struct agb_event *ev, struct agb_inputs *prev, struct agb_replay_obs *o)
{
	struct agb_inputs now = counters_now(r->m);
	o->bus_cycles = now.bus - prev->bus;
	o->accesses = now.accesses - prev->accesses;
	o->stores = now.stores - prev->stores;
	o->rom_reads = now.rom_reads - prev->rom_reads;
	o->work = now.work - prev->work;
	*prev = now;
#ifndef AGB_TARGET_GBA
	if (r->cache != NULL) { /* the core calls inside this op, then a fresh sum for the next */
		for (unsigned k = 0; k < 2u; k++)
			for (unsigned f = 0; f < AGB_NEST_FIELDS; f++) {
				o->nest[k][f] = r->m->nest[k][f];
				r->m->nest[k][f] = 0;
			}
	}
#endif
	/* A refused request's probe (alloc, then free) is not the game's work: not priced. */
	if (o->outcome == AGB_OUTCOME_SKIPPED || ev->op == AGB_OP_REFUSED ||
	    ((ev->op == AGB_OP_FRAME || ev->op >= AGB_OP_SPR_SHOW) && o->accesses == 0)) {
		o->cycles = 0;
		return;
	}
	o->cycles = model_cycles(r->core, fit, (enum agb_op)ev->op, o);
	if (fit != NULL && o->accesses != 0 &&
	    agb_cycle_model_extrapolates(
		    &fit->op[ev->op], o->accesses - agb_cycle_nested(fit, ev->op, o->nest[0], o->nest[1], 2),
		    agb_cycle_size_log2(o->requested),
		    o->work - agb_cycle_nested(fit, ev->op, o->nest[0], o->nest[1], 5))) {
		if (r->out->extrapolated_ops++ == 0)
			r->out->first_extrapolated = o->index;
	}
}

/* Whether the trace uses the resource cache (lock, unlock or touch). O(events). */
static int uses_cache(const struct agb_trace *t)
{
	for (uint32_t i = 0; i < t->event_count; i++)
		if (t->events[i].op >= AGB_OP_LOCK && t->events[i].op <= AGB_OP_TOUCH)
			return 1;
	return 0;
}

void *agb_replay_cache_state(void *workspace, const struct agb_trace *t)
{
	return (uint8_t *)SLOT_TABLE(workspace) + CACHE_OFFSET(t);
}

/* The cache's entry table takes the start of the meta area (one entry per key handle: the
 * trace's slots bound them), the core the rest from the next 16-byte boundary. (The start: the
 * GBA bench keeps its slot table at the top of EWRAM, the end of a VRAM trace's meta area.)
 * Returns the table's address, AGB_NULL when the meta area cannot hold it. */
static uint32_t carve_cache_table(const struct agb_trace *t, struct agb_heap_config *hc)
{
	uint32_t bytes = (t->slots * AGB_CACHE_ENTRY_BYTES + 15u) & ~15u, table = hc->meta_addr;
	if (hc->meta_addr == AGB_NULL || t->slots > AGB_CACHE_MAX_KEYS || hc->meta_bytes < bytes)
		return AGB_NULL;
	hc->meta_addr += bytes;
	hc->meta_bytes -= bytes;
	if (hc->meta_bytes == 0)
		hc->meta_addr = AGB_NULL;
	return table;
}

#ifndef AGB_TARGET_GBA
/* agb_cache.freed_enough on the host: the core's free bytes (stats() peeks: uncounted). */
static int cache_freed_enough(const agb_cache *c, uint32_t size)
{
	struct agb_heap_stats s;
	c->core->stats(c->core_state, &s);
	return s.free_bytes >= size;
}
#endif

/* After the core: the cache on top of it, when the trace has cache ops. */
static int cache_begin(struct run *r, void *slot_table, uint32_t table)
{
	int st;
	if (table == AGB_NULL) {
		r->out->init_status = AGB_HEAP_META_TOO_SMALL;
		return stop(r->out, AGB_REPLAY_INIT_FAILED, 0,
			    "no room for the resource cache's table in the meta area");
	}
	if (r->core->free == NULL)
		return stop(r->out, AGB_REPLAY_UNSUPPORTED, 0,
			    "the resource cache needs a core that frees single blocks");
	r->cache = (agb_cache *)(void *)((uint8_t *)slot_table + CACHE_OFFSET(r->t));
	st = agb_cache_init(r->cache, r->m, r->core, r->st, table, r->t->slots);
	if (st != AGB_HEAP_OK) {
		r->out->init_status = st;
		return stop(r->out, AGB_REPLAY_INIT_FAILED, 0, "the resource cache cannot start");
	}
	r->out->overhead_bytes += r->t->slots * AGB_CACHE_ENTRY_BYTES;
#ifndef AGB_TARGET_GBA
	r->cache->freed_enough = cache_freed_enough;
#endif
	return AGB_REPLAY_OK;
}

/* Resets the workspace tables, places arena and meta area and initialises the core. */
static int run_begin(struct run *r, const struct agb_replay_config *cfg, void *workspace)
{
	struct agb_heap_config hc;
	const int cache = uses_cache(r->t);
	uint32_t table = AGB_NULL;
	r->st = (uint8_t *)workspace + STATE_OFFSET;
	r->slots = SLOT_TABLE(workspace);
	r->sprites = (uint8_t *)(r->slots + r->t->slots);
	for (uint32_t i = 0; i < r->t->slots; i++)
		r->slots[i] = (struct slot){0, 0, 0, SLOT_EMPTY, 0};
	for (uint32_t i = 0; i < AGB_REPLAY_SPRITE_HANDLES; i++)
		r->sprites[i] = AGB_SPRITE_NONE;
	place(r->t, cfg, &hc);
	if (cache)
		table = carve_cache_table(r->t, &hc);
	r->out->arena_addr = hc.arena_addr;
	r->out->arena_bytes = hc.arena_bytes;
	r->out->meta_addr = hc.meta_addr;
	r->out->meta_bytes = hc.meta_bytes;
	zero_region(r->m, hc.arena_addr, hc.arena_bytes);
	if (hc.meta_addr != AGB_NULL)
		zero_region(r->m, hc.meta_addr, hc.meta_bytes);
	r->out->init_status = r->core->init(r->st, r->m, &hc);
	if (r->out->init_status != AGB_HEAP_OK)
		return stop(r->out, AGB_REPLAY_INIT_FAILED, 0, "the core cannot manage this arena");
	r->out->overhead_bytes = r->core->overhead_bytes(r->st);
	if (cache && cache_begin(r, r->slots, table) != AGB_REPLAY_OK)
		return r->out->status;
#ifndef AGB_TARGET_GBA
	agb_machine_reset_counters(r->m);
#endif
	return AGB_REPLAY_OK;
}

/* After an event: canaries for the new block, live totals, the free-space sample and, with
 * AGB_REPLAY_CHECK, the invariant checker. Returns AGB_REPLAY_OK or CHECK_FAILED. */
static int observe_state(struct run *r, const struct agb_replay_config *cfg,
			 const struct agb_event *ev, struct agb_replay_obs *o)
{
	const int sampling = (cfg->flags & AGB_REPLAY_NO_STATS) == 0;
	if (r->canaries && o->outcome == AGB_OUTCOME_OK &&
	    (ev->op == AGB_OP_ALLOC || ev->op == AGB_OP_REALLOC))
		canary_fill(r->m, o->addr, ev->size, ev->id);
	r->out->corrupted_bytes += o->corrupted;
	o->live_bytes = r->live;
	o->live_granted = r->live_granted;
	if (sampling && (r->t->frame_count == 0 || ev->op == AGB_OP_FRAME)) {
		r->core->stats(r->st, &o->stats);
		o->sampled = AGB_SAMPLE_REGULAR;
	} else if (o->outcome == AGB_OUTCOME_FAILED && sampling) {
		/* Telling fragmentation from exhaustion needs the free space at the failure. */
		r->core->stats(r->st, &o->stats);
		o->sampled = AGB_SAMPLE_AT_FAILURE;
	}
	if ((cfg->flags & AGB_REPLAY_CHECK) != 0) {
		const char *why = "invariant violated";
		if (r->core->check(r->st, &why) != 0 ||
		    (r->cache != NULL && agb_cache_check(r->cache, &why) != 0))
			return stop(r->out, AGB_REPLAY_CHECK_FAILED, o->index, why);
	}
	return AGB_REPLAY_OK;
}

/* End of the trace: the canaries of blocks still live, the final free space, the machine's
 * record of accesses a correct core never makes. */
static void run_end(struct run *r)
{
	if (r->canaries)
		for (uint32_t i = 0; i < r->t->slots; i++)
			if (r->slots[i].state == SLOT_LIVE)
				r->out->corrupted_bytes += canary_check(r->m, r->slots[i].addr,
									r->slots[i].requested,
									r->slots[i].id);
	r->core->stats(r->st, &r->out->final_stats);
#ifndef AGB_TARGET_GBA
	r->out->quirk_stores = r->m->quirk_stores;
	r->out->unmapped_accesses = 0;
	for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
		r->out->unmapped_accesses += r->m->counts[AGB_REGION_UNMAPPED][k];
#endif
	r->out->status = AGB_REPLAY_OK;
}

int agb_replay_run(const struct agb_trace *t, const struct agb_replay_config *cfg, agb_machine *m,
		   void *workspace, size_t workspace_bytes, agb_replay_observer observe, void *ctx,
		   struct agb_replay_result *out)
{
	const struct agb_cycle_model *fit = agb_cycle_model_find(cfg->core->name);
	struct run r = {t, cfg->core, m, NULL, NULL, NULL, (cfg->flags & AGB_REPLAY_CANARIES) != 0,
			/* cppcheck-suppress ctuuninitvar ; *out is written at the end, never read */
			0, 0, out, {0, 0}, {0, 0}, NULL};
	struct agb_inputs prev = {0, 0, 0, 0, 0};
	int rc;

	*out = (struct agb_replay_result){0};
	if (workspace_bytes < agb_replay_workspace_bytes(t) ||
	    cfg->core->state_bytes > AGB_HEAP_STATE_MAX)
		return stop(out, AGB_REPLAY_NO_WORKSPACE, 0, "workspace too small");
	rc = run_begin(&r, cfg, workspace);
	for (uint32_t i = 0; rc == AGB_REPLAY_OK && i < t->event_count; i++) {
		const struct agb_event *ev = &t->events[i];
		struct agb_replay_obs o = {.index = i, .op = ev->op, .outcome = AGB_OUTCOME_OK,
					   .id = ev->id, .addr = AGB_NULL};
		rc = op_handlers[ev->op](&r, ev, &o);
		if (rc != AGB_REPLAY_OK)
			break;
		observe_cost(&r, fit, ev, &prev, &o);
		rc = observe_state(&r, cfg, ev, &o);
		if (observe != NULL)
			observe(ctx, &o);
	}
	if (rc == AGB_REPLAY_OK)
		run_end(&r);
	return rc;
}

uint32_t agb_replay_min_arena(const struct agb_trace *t, const struct agb_replay_config *cfg,
			      agb_machine *m, void *workspace, size_t workspace_bytes, uint32_t step)
{
	struct agb_replay_config c = *cfg;
	struct agb_replay_result r;
	uint32_t region = agb_arena_region_bytes(t->arena);
	uint32_t lo = 0;                /* in steps: known to fail (or unusable) */
	uint32_t hi = region / step;    /* in steps: candidate that succeeds */

	c.flags = AGB_REPLAY_NO_STATS;
	c.arena_bytes = hi * step;
	if (agb_replay_run(t, &c, m, workspace, workspace_bytes, NULL, NULL, &r) != AGB_REPLAY_OK ||
	    r.failures != 0)
		return 0;
	while (hi - lo > 1u) {
		uint32_t mid = lo + (hi - lo) / 2u;
		c.arena_bytes = mid * step;
		if (agb_replay_run(t, &c, m, workspace, workspace_bytes, NULL, NULL, &r) ==
			    AGB_REPLAY_OK &&
		    r.failures == 0)
			hi = mid;
		else
			lo = mid;
	}
	return hi * step;
}
