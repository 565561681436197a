/* Replay engine (DESIGN section 1): one core, one trace, one machine. */
#include "agb/replay.h"
#include "agb/cycle_model.h"

#ifndef AGB_TARGET_GBA
#include <string.h>
#endif

enum slot_state { SLOT_EMPTY, SLOT_LIVE, SLOT_FAILED };

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
/* GBA bench hooks (src/gba/bench.c overrides these weak no-ops; a game linking libagbmem gets
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

size_t agb_replay_workspace_bytes(const struct agb_trace *t)
{
	return SLOTS_OFFSET + (size_t)t->slots * sizeof(struct slot);
}

void *agb_replay_core_state(void *workspace)
{
	return (uint8_t *)workspace + STATE_OFFSET;
}

/* Meta areas: VRAM arenas keep bookkeeping in EWRAM by default, EWRAM arenas in IWRAM (the
 * upper half: the lower half is left to the program's own IWRAM code and data). */
#define IWRAM_META_ADDR (MEM_IWRAM + IWRAM_SIZE / 2u)
#define IWRAM_META_BYTES (IWRAM_SIZE / 2u - 0x400u) /* keep clear of the stacks at the top */

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
		hc->meta_addr = MEM_EWRAM + hc->arena_bytes;
		hc->meta_bytes = EWRAM_SIZE - hc->arena_bytes;
		if (hc->meta_bytes == 0)
			hc->meta_addr = AGB_NULL;
	} else {
		hc->meta_addr = MEM_EWRAM;
		hc->meta_bytes = EWRAM_SIZE;
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

/* ["reset", n] (bump, stack2) frees every block allocated after marker n at once. The core is
 * the authority on what is free now, so the engine asks it - walk(), observation only - and
 * forgets each live allocation that lies in a free run, checking its canary first. This keeps
 * the engine free of any core's marker semantics. O(free runs x slots); resets are rare. */
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

/* The fitted model (src/sim/cycle_model.c) where it has a row for this op, else the core's own
 * first estimate. */
static uint32_t model_cycles(const struct agb_heap_core *core, const struct agb_cycle_model *fit,
			     enum agb_op op, const struct agb_replay_obs *o)
{
	uint32_t base = 0;
	if (fit != NULL && fit->op[op].fitted)
		return agb_cycle_model_eval(&fit->op[op], o->bus_cycles, o->accesses, o->stores,
					    o->rom_reads, agb_cycle_size_log2(o->requested), o->work);
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

int agb_replay_run(const struct agb_trace *t, const struct agb_replay_config *cfg, agb_machine *m,
		   void *workspace, size_t workspace_bytes, agb_replay_observer observe, void *ctx,
		   struct agb_replay_result *out)
{
	const struct agb_heap_core *core = cfg->core;
	const struct agb_cycle_model *fit = agb_cycle_model_find(core->name);
	const int canaries = (cfg->flags & AGB_REPLAY_CANARIES) != 0;
	const int sample_every_event = t->frame_count == 0 && (cfg->flags & AGB_REPLAY_NO_STATS) == 0;
	const int sample_frames = (cfg->flags & AGB_REPLAY_NO_STATS) == 0;
	struct agb_heap_config hc;
	struct slot *slots;
	void *st;
	uint32_t live = 0, live_granted = 0;

	*out = (struct agb_replay_result){0};
	if (workspace_bytes < agb_replay_workspace_bytes(t) || core->state_bytes > AGB_HEAP_STATE_MAX)
		return stop(out, AGB_REPLAY_NO_WORKSPACE, 0, "workspace too small");
	st = (uint8_t *)workspace + STATE_OFFSET;
	slots = SLOT_TABLE(workspace);
	for (uint32_t i = 0; i < t->slots; i++)
		slots[i] = (struct slot){0, 0, 0, SLOT_EMPTY, 0};

	place(t, cfg, &hc);
	out->arena_addr = hc.arena_addr;
	out->arena_bytes = hc.arena_bytes;
	out->meta_addr = hc.meta_addr;
	out->meta_bytes = hc.meta_bytes;
	zero_region(m, hc.arena_addr, hc.arena_bytes);
	if (hc.meta_addr != AGB_NULL)
		zero_region(m, hc.meta_addr, hc.meta_bytes);
	out->init_status = core->init(st, m, &hc);
	if (out->init_status != AGB_HEAP_OK)
		return stop(out, AGB_REPLAY_INIT_FAILED, 0, "the core cannot manage this arena");
	out->overhead_bytes = core->overhead_bytes(st);
#ifndef AGB_TARGET_GBA
	agb_machine_reset_counters(m);
#endif

	/* Counter totals at the end of the previous event. Between events nothing counted runs
	 * (canaries use host pointers, stats and walks peek), so one snapshot per event suffices. */
	uint32_t bus_prev = 0, acc_prev = 0, st_prev = 0, rom_prev = 0, work_prev = 0;
	for (uint32_t i = 0; i < t->event_count; i++) {
		const struct agb_event *ev = &t->events[i];
		struct agb_replay_obs o;
		struct slot *s = ev->op <= AGB_OP_REALLOC ? &slots[ev->slot] : NULL;
		o.index = i;
		o.op = ev->op;
		o.outcome = AGB_OUTCOME_OK;
		o.id = ev->id;
		o.requested = 0;
		o.addr = AGB_NULL;
		o.granted = 0;
		o.result = 0;
		o.corrupted = 0;
		o.sampled = 0;
		switch ((enum agb_op)ev->op) {
		case AGB_OP_ALLOC:
			if (core->alloc == NULL)
				return stop(out, AGB_REPLAY_UNSUPPORTED, i, "this core does not allocate blocks");
			o.requested = ev->size;
			OP_BEGIN(i);
			o.addr = core->alloc(st, ev->size, ev->align, &o.granted);
			OP_END(i, o.addr);
			if (o.addr == AGB_NULL) {
				o.outcome = AGB_OUTCOME_FAILED;
				o.granted = 0;
				s->state = SLOT_FAILED;
				out->failures++;
			} else {
				*s = (struct slot){o.addr, ev->size, o.granted, SLOT_LIVE, ev->id};
				live += ev->size;
				live_granted += o.granted;
			}
			break;
		case AGB_OP_FREE:
			if (core->free == NULL)
				return stop(out, AGB_REPLAY_UNSUPPORTED, i, "this core cannot free single blocks");
			if (s->state != SLOT_LIVE) {
				o.outcome = AGB_OUTCOME_SKIPPED;
				s->state = SLOT_EMPTY;
				break;
			}
			o.addr = s->addr;
			o.requested = s->requested;
			o.granted = s->granted;
			if (canaries)
				o.corrupted = canary_check(m, s->addr, s->requested, ev->id);
			OP_BEGIN(i);
			core->free(st, s->addr);
			OP_END(i, AGB_NULL);
			live -= s->requested;
			live_granted -= s->granted;
			s->state = SLOT_EMPTY;
			break;
		case AGB_OP_REALLOC: {
			uint32_t to, granted = 0;
			if (s->state != SLOT_LIVE) {
				o.outcome = AGB_OUTCOME_SKIPPED;
				break;
			}
			if (core->free == NULL && core->realloc == NULL)
				return stop(out, AGB_REPLAY_UNSUPPORTED, i, "this core cannot resize blocks");
			o.requested = ev->size;
			if (canaries)
				o.corrupted = canary_check(m, s->addr, s->requested, ev->id);
			OP_BEGIN(i);
			if (core->realloc != NULL)
				to = core->realloc(st, s->addr, ev->size, &granted);
			else
				to = realloc_by_move(core, st, m, s->addr, s->granted, ev->size, &granted);
			OP_END(i, to);
			if (to == AGB_NULL) {
				/* C semantics: the old block stays live and intact. */
				o.outcome = AGB_OUTCOME_FAILED;
				out->failures++;
				o.addr = AGB_NULL;
				break;
			}
			if (canaries) {
				uint32_t kept = s->requested < ev->size ? s->requested : ev->size;
				o.corrupted += canary_check(m, to, kept, ev->id);
			}
			live = live - s->requested + ev->size;
			live_granted = live_granted - s->granted + granted;
			*s = (struct slot){to, ev->size, granted, SLOT_LIVE, ev->id};
			o.addr = to;
			o.granted = granted;
			break;
		}
		default: {
			int r;
			OP_BEGIN(i);
			r = core->event != NULL ? core->event(st, ev, &o.result) : AGB_EVENT_UNSUPPORTED;
			OP_END(i, AGB_NULL);
			/* Frames and sprite display ops describe the game, not its memory: a core that
			 * does not manage OAM ignores them. Anything else it cannot serve stops the run. */
			if (r == AGB_EVENT_UNSUPPORTED && ev->op != AGB_OP_FRAME &&
			    ev->op != AGB_OP_SPR_SHOW && ev->op != AGB_OP_SPR_Z &&
			    ev->op != AGB_OP_SPR_HIDE)
				return stop(out, AGB_REPLAY_UNSUPPORTED, i, "this core cannot serve this op");
			if (r == AGB_EVENT_BAD)
				return stop(out, AGB_REPLAY_BAD_EVENT, i, "the core rejected this op");
			if (r == AGB_EVENT_FAILED) {
				o.outcome = AGB_OUTCOME_FAILED;
				out->failures++;
			} else if ((o.result & AGB_EVENT_RESULT_SKIPPED) != 0) {
				o.outcome = AGB_OUTCOME_SKIPPED;
			}
			if (ev->op == AGB_OP_RESET && r == AGB_EVENT_DONE) {
				struct release rel = {slots, t->slots, m, canaries, 0, 0, 0};
				core->walk(st, release_run, &rel);
				o.corrupted = rel.corrupted;
				live -= rel.bytes;
				live_granted -= rel.granted;
			}
			o.requested = ev->size;
			break;
		}
		}
#ifndef AGB_TARGET_GBA
		{
			uint32_t bus, acc;
			/* The cycle model's other inputs: stores (any region) and ROM loads. */
			uint32_t stn = 0, rom;
			agb_machine_totals(m, &bus, &acc);
			for (unsigned r = 0; r < AGB_REGION_COUNT; r++)
				stn += m->counts[r][AGB_STORE8] + m->counts[r][AGB_STORE16] +
				      m->counts[r][AGB_STORE32];
			rom = m->counts[AGB_REGION_ROM][AGB_LOAD8] + m->counts[AGB_REGION_ROM][AGB_LOAD16] +
			      m->counts[AGB_REGION_ROM][AGB_LOAD32];
			o.bus_cycles = bus - bus_prev;
			o.accesses = acc - acc_prev;
			o.stores = stn - st_prev;
			o.rom_reads = rom - rom_prev;
			o.work = m->work - work_prev;
			work_prev = m->work;
			bus_prev = bus;
			acc_prev = acc;
			st_prev = stn;
			rom_prev = rom;
		}
#else
		/* On the GBA the cycles are measured around the call, not counted. */
		(void)bus_prev;
		(void)acc_prev;
		(void)st_prev;
		(void)rom_prev;
		(void)work_prev;
		o.bus_cycles = 0;
		o.accesses = 0;
		o.stores = 0;
		o.rom_reads = 0;
		o.work = 0;
#endif
		/* Work not done costs nothing: skipped ops, and frames or extension ops (spr_* on a
		 * core without a shadow OAM) that the core passes over without touching memory. */
		o.cycles = (o.outcome == AGB_OUTCOME_SKIPPED ||
			    ((ev->op == AGB_OP_FRAME || ev->op >= AGB_OP_SPR_SHOW) && o.accesses == 0))
				   ? 0u
				   : model_cycles(core, fit, (enum agb_op)ev->op, &o);
		if (canaries && o.outcome == AGB_OUTCOME_OK &&
		    (ev->op == AGB_OP_ALLOC || ev->op == AGB_OP_REALLOC))
			canary_fill(m, o.addr, ev->size, ev->id);
		out->corrupted_bytes += o.corrupted;
		o.live_bytes = live;
		o.live_granted = live_granted;
		if (sample_every_event || (sample_frames && ev->op == AGB_OP_FRAME)) {
			core->stats(st, &o.stats);
			o.sampled = AGB_SAMPLE_REGULAR;
		} else if (o.outcome == AGB_OUTCOME_FAILED && sample_frames) {
			/* Telling fragmentation from exhaustion needs the free space at the failure. */
			core->stats(st, &o.stats);
			o.sampled = AGB_SAMPLE_AT_FAILURE;
		}
		if ((cfg->flags & AGB_REPLAY_CHECK) != 0) {
			const char *why = "invariant violated";
			if (core->check(st, &why) != 0) {
				if (observe != NULL)
					observe(ctx, &o);
				return stop(out, AGB_REPLAY_CHECK_FAILED, i, why);
			}
		}
		if (observe != NULL)
			observe(ctx, &o);
	}

	if (canaries)
		for (uint32_t i = 0; i < t->slots; i++)
			if (slots[i].state == SLOT_LIVE)
				out->corrupted_bytes += canary_check(m, slots[i].addr, slots[i].requested,
								     slots[i].id);
	core->stats(st, &out->final_stats);
#ifndef AGB_TARGET_GBA
	out->quirk_stores = m->quirk_stores;
	out->unmapped_accesses = 0;
	for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
		out->unmapped_accesses += m->counts[AGB_REGION_UNMAPPED][k];
#endif
	out->status = AGB_REPLAY_OK;
	return AGB_REPLAY_OK;
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
