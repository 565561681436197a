/* The viewer's picture of a replay, built from observations (see view_model.h). */
#include "view/view_model.h"

#include "agb/cache.h"

#include <stdlib.h>
#include <string.h>

#include "agb/machine.h"
#include "agbsim/metrics.h"
#include "view/view.h"

uint32_t agb_view_unit_bytes(enum agb_arena arena)
{
	/* EWRAM cores work in 8-byte blocks (tree, tlsf, firstfit); VRAM in 32-byte tiles; palette
	 * RAM is drawn colour by colour. */
	switch (arena) {
	case AGB_ARENA_EWRAM:
		return 8u;
	case AGB_ARENA_PAL_RAM:
		return 2u;
	default:
		return 32u;
	}
}

static void walk_into(struct view_model *vm, uint8_t *out, int track_largest);
static int tiles_init(struct view_model *vm);
static void track_tile_refs(struct view_model *vm, const struct agb_replay_obs *o);

/* The ROM the replay's palette ops copy from: block b holds the colours of every key = b mod
 * 2048. O(1 MiB). */
static void pal_rom_fill(uint8_t *rom)
{
	for (uint32_t b = 0; b < AGB_REPLAY_PAL_ROM_BYTES / 0x200u; b++) {
		uint8_t *p = rom + (AGB_REPLAY_PAL_SOURCE(b) - AGB_MEM_ROM);
		for (size_t i = 0; i < 256u; i++) {
			uint16_t c = agb_view_pal_colour(b, (uint32_t)i);
			p[2u * i] = (uint8_t)c;
			p[2u * i + 1u] = (uint8_t)(c >> 8);
		}
	}
}

void view_model_machine(struct view_model *vm, agb_machine *m)
{
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	if (vm->pal_rom != NULL)
		agb_machine_map_rom(m, vm->pal_rom, AGB_REPLAY_PAL_ROM_BYTES);
	vm->m = m;
}

int view_model_init(struct view_model *vm, const struct agb_trace *t,
		    const struct agb_replay_config *cfg)
{
	struct agb_trace empty = *t;
	struct agb_replay_result res;
	agb_machine *m;
	void *ws;
	size_t wsb = agb_replay_workspace_bytes(t);
	memset(vm, 0, sizeof *vm);
	vm->t = t;
	vm->core = cfg->core;
	vm->base = agb_arena_base(t->arena);
	vm->arena_bytes = cfg->arena_bytes != 0 ? cfg->arena_bytes : t->arena_bytes;
	vm->unit_bytes = agb_view_unit_bytes(t->arena);
	vm->units = (vm->arena_bytes + vm->unit_bytes - 1u) / vm->unit_bytes;
	vm->nrec = t->slots + vm->units;
	vm->kind = calloc(vm->units + 1u, 1);
	vm->scratch = calloc(vm->units + 1u, 1);
	vm->initial = calloc(vm->units + 1u, 1);
	vm->owner = calloc(vm->units + 1u, sizeof *vm->owner);
	vm->rec = calloc(vm->nrec + 1u, sizeof *vm->rec);
	/* One sample per event at most (traces without frames sample every event). */
	vm->spark = malloc(((size_t)t->event_count + 1u) * sizeof *vm->spark);
	if (vm->kind == NULL || vm->scratch == NULL || vm->initial == NULL || vm->owner == NULL ||
	    vm->rec == NULL || vm->spark == NULL || tiles_init(vm) != 0)
		return -1;
	/* Cache traces: the trace's key of each handle (for colours and the hover line). */
	vm->cache_keys = calloc(t->slots + 1u, sizeof *vm->cache_keys);
	if (vm->cache_keys == NULL)
		return -1;
	for (uint32_t i = 0; i < t->event_count; i++) {
		const struct agb_event *e = &t->events[i];
		if ((e->op == AGB_OP_LOCK || e->op == AGB_OP_TOUCH) && e->slot < t->slots) {
			vm->has_cache = 1;
			vm->cache_keys[e->slot] = e->id;
		}
		vm->sides |= e->op == AGB_OP_SIDE;
	}
	if (t->arena == AGB_ARENA_PAL_RAM) {
		vm->pal = calloc(1, sizeof *vm->pal);
		vm->pal_rom = malloc(AGB_REPLAY_PAL_ROM_BYTES);
		if (vm->pal == NULL || vm->pal_rom == NULL)
			return -1;
		pal_rom_fill(vm->pal_rom);
	}
	/* The core right after init, through the engine itself: same placement, same meta area. */
	m = malloc(sizeof *m);
	ws = malloc(wsb);
	if (m == NULL || ws == NULL) {
		free(m);
		free(ws);
		return -1;
	}
	view_model_machine(vm, m);
	empty.event_count = 0;
	agb_replay_run(&empty, cfg, m, ws, wsb, NULL, NULL, &res);
	if (res.status == AGB_REPLAY_OK) {
		view_model_bind(vm, ws);
		walk_into(vm, vm->initial, 0);
	}
	vm->state = NULL;
	vm->cache = NULL;
	vm->m = NULL;
	free(ws);
	free(m);
	view_model_reset(vm);
	return res.status == AGB_REPLAY_OK ? 0 : -1;
}

void view_model_reset(struct view_model *vm)
{
	memset(vm->kind, VK_FREE, vm->units);
	memset(vm->owner, 0, vm->units * sizeof *vm->owner);
	memset(vm->rec, 0, vm->nrec * sizeof *vm->rec);
	if (vm->tile_refs != NULL)
		memset(vm->tile_refs, 0, vm->ntile_keys * sizeof *vm->tile_refs);
	vm->resident_tiles = vm->resident_tile_bytes = vm->tile_refs_total = 0;
	vm->state = NULL;
	vm->cache = NULL;
	vm->cache_resident = 0;
	vm->side = 0;
	vm->sections[0] = vm->sections[1] = 0;
	vm->index = -1;
	memset(&vm->last, 0, sizeof vm->last);
	vm->frames = 0;
	vm->failures = 0;
	vm->fail_index = -1;
	vm->have_stats = 0;
	vm->largest_addr = vm->largest_bytes = 0;
	vm->nspark = 0;
	vm->overhead = 0;
	if (vm->pal != NULL)
		memset(vm->pal, 0, sizeof *vm->pal);
}

void view_model_free(struct view_model *vm)
{
	free(vm->tile_key);
	free(vm->tile_refs);
	free(vm->kind);
	free(vm->scratch);
	free(vm->initial);
	free(vm->owner);
	free(vm->rec);
	free(vm->spark);
	free(vm->pal);
	free(vm->pal_rom);
	free(vm->cache_keys);
	memset(vm, 0, sizeof *vm);
}

/* Units [first, end) that bytes [addr, addr + bytes) touch, clamped to the arena. */
static void unit_span(const struct view_model *vm, uint32_t addr, uint32_t bytes, uint32_t *first,
		      uint32_t *end)
{
	uint32_t lo = addr < vm->base ? 0u : addr - vm->base;
	uint32_t hi = addr - vm->base + bytes;
	if (addr < vm->base || lo >= vm->arena_bytes || bytes == 0) {
		*first = *end = 0;
		return;
	}
	if (hi > vm->arena_bytes)
		hi = vm->arena_bytes;
	*first = lo / vm->unit_bytes;
	*end = (hi + vm->unit_bytes - 1u) / vm->unit_bytes;
}

static void paint(struct view_model *vm, uint32_t r)
{
	struct view_rec *rec = &vm->rec[r];
	uint32_t a, b;
	unit_span(vm, rec->addr, rec->granted > rec->requested || rec->tile ? rec->granted
									       : rec->requested,
		  &a, &b);
	for (uint32_t u = a; u < b; u++)
		vm->owner[u] = r + 1u;
}

static void unpaint(struct view_model *vm, uint32_t r)
{
	struct view_rec *rec = &vm->rec[r];
	uint32_t a, b;
	unit_span(vm, rec->addr, rec->granted > rec->requested || rec->tile ? rec->granted
									       : rec->requested,
		  &a, &b);
	for (uint32_t u = a; u < b; u++)
		if (vm->owner[u] == r + 1u)
			vm->owner[u] = 0;
	rec->live = 0;
}

struct walk_fill {
	struct view_model *vm;
	uint8_t *out;
	int track_largest;
};

static void fill_run(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct walk_fill *w = ctx;
	struct view_model *vm = w->vm;
	uint32_t a, b;
	uint8_t k = kind == AGB_RUN_USED ? VK_USED : kind == AGB_RUN_META ? VK_META : VK_FREE;
	if (w->track_largest && kind == AGB_RUN_FREE && bytes > vm->largest_bytes) {
		vm->largest_addr = addr;
		vm->largest_bytes = bytes;
	}
	unit_span(vm, addr, bytes, &a, &b);
	/* A unit shared by two runs shows the busier one: a cell half used is not free. */
	for (uint32_t u = a; u < b; u++)
		if (k > w->out[u])
			w->out[u] = k;
}

static void walk_into(struct view_model *vm, uint8_t *out, int track_largest)
{
	struct walk_fill w = {vm, out, track_largest};
	memset(out, VK_FREE, vm->units);
	if (track_largest)
		vm->largest_addr = vm->largest_bytes = 0;
	vm->core->walk(vm->state, fill_run, &w);
}

/* After ops the engine does not place (ref/unref, reset): the core says which units are used
 * now; units newly used belong to this event's id (a tile), units now free lose their owner. */
static void resync(struct view_model *vm, const struct agb_replay_obs *o)
{
	walk_into(vm, vm->scratch, 0);
	for (uint32_t u = 0; u < vm->units; u++) {
		if (vm->scratch[u] != VK_USED && vm->owner[u] != 0) {
			struct view_rec *rec = &vm->rec[vm->owner[u] - 1u];
			vm->owner[u] = 0;
			rec->live = 0;
		} else if (vm->scratch[u] == VK_USED && vm->owner[u] == 0 &&
			   vm->initial[u] != VK_USED && o->op == AGB_OP_REF &&
			   (o->result & (AGB_VERB_UPLOADED | AGB_VERB_REVIVED)) != 0) {
			uint32_t r = vm->t->slots + u;
			uint32_t e = u;
			while (e < vm->units && vm->scratch[e] == VK_USED && vm->owner[e] == 0 &&
			       vm->initial[e] != VK_USED)
				e++;
			vm->rec[r] = (struct view_rec){o->id, vm->base + u * vm->unit_bytes, o->requested,
						       (e - u) * vm->unit_bytes, vm->frames, 1, 1, 0, 0, 0, 0, 0};
			paint(vm, r);
			u = e - 1u;
		}
	}
}

/* ---- palette RAM ---------------------------------------------------------------------------- */

/* The bank (0..31, OBJ from 16) a palette op's address names. */
static uint32_t pal_bank_of(const struct view_model *vm, uint32_t addr)
{
	return (addr - vm->base) / AGB_PAL_BANK_BYTES % VIEW_PAL_BANKS;
}

static void pal_apply(struct view_model *vm, const struct agb_event *ev,
		      const struct agb_replay_obs *o)
{
	struct view_pal *p = vm->pal;
	uint32_t side = AGB_PAL_EV_SIDE(ev->align), n = AGB_PAL_BANKS_OF(ev->size), b;
	switch (o->op) {
	case AGB_OP_PAL_LOAD:
		b = pal_bank_of(vm, o->addr);
		vm->rec[ev->slot] = (struct view_rec){o->id, o->addr, o->requested, o->granted,
						      vm->frames, 1, 0, 0, 0, 0, 0, 0};
		for (uint32_t k = b; k < b + n && k < VIEW_PAL_BANKS; k++) {
			if ((o->result & AGB_VERB_UPLOADED) != 0 || !p->loaded[k].live)
				p->loaded[k] = (struct view_pal_bank){o->id,
				                                      AGB_PAL_EV_KEY(ev->align),
				                                      0,
				                                      vm->frames,
				                                      (uint16_t)ev->size,
				                                      (uint8_t)(b % AGB_PAL_BANKS),
				                                      0,
				                                      1};
			p->loaded[k].refs++;
		}
		break;
	case AGB_OP_PAL_FREE: {
		struct view_rec *heir = NULL;
		b = pal_bank_of(vm, o->addr);
		vm->rec[ev->slot].live = 0;
		if ((o->result & AGB_VERB_RELEASED) == 0 && p->loaded[b].id == o->id)
			/* The owner went but sharers stay: the longest-standing one owns it now. */
			for (uint32_t r = 0; r < vm->t->slots; r++)
				if (vm->rec[r].live && vm->rec[r].addr == o->addr &&
				    (heir == NULL || vm->rec[r].birth_frame < heir->birth_frame))
					heir = &vm->rec[r];
		for (uint32_t k = b; k < b + n && k < VIEW_PAL_BANKS; k++) {
			if ((o->result & AGB_VERB_RELEASED) != 0 || p->loaded[k].refs <= 1u) {
				memset(&p->loaded[k], 0, sizeof p->loaded[k]);
				continue;
			}
			p->loaded[k].refs--;
			if (heir != NULL) {
				p->loaded[k].id = heir->id;
				p->loaded[k].birth_frame = heir->birth_frame;
			}
		}
		break;
	}
	case AGB_OP_PAL_PUSH:
		if (p->depth[side] < VIEW_PAL_STACK)
			p->stack[side][p->depth[side]] = (struct view_pal_frame){
				o->id, AGB_PAL_EV_KEY(ev->align), vm->frames, (uint16_t)ev->size};
		p->depth[side]++;
		break;
	case AGB_OP_PAL_POP:
		if (p->depth[side] > 0)
			p->depth[side]--;
		break;
	default:
		break;
	}
}

/* What each bank shows: the newest stack frame covering it, else its loaded palette; and
 * palette RAM's colours. Observation only. O(banks x depth). */
static void pal_refresh(struct view_model *vm)
{
	struct view_pal *p = vm->pal;
	const uint8_t *ram = vm->m != NULL ? agb_machine_host(vm->m, vm->base, AGB_PAL_SIZE) : NULL;
	for (uint32_t k = 0; k < VIEW_PAL_BANKS; k++) {
		uint32_t side = k / AGB_PAL_BANKS, bank = k % AGB_PAL_BANKS;
		uint32_t depth = p->depth[side] < VIEW_PAL_STACK ? p->depth[side] : VIEW_PAL_STACK;
		p->shown[k] = p->loaded[k];
		for (uint32_t f = depth; f-- > 0;) {
			const struct view_pal_frame *fr = &p->stack[side][f];
			if (AGB_PAL_BANKS_OF(fr->colors) > bank) {
				p->shown[k] = (struct view_pal_bank){fr->id, fr->key, 1, fr->birth_frame,
								     fr->colors, 0, (uint8_t)(f + 1u), 1};
				break;
			}
		}
	}
	for (size_t i = 0; i < AGB_PAL_SIZE / 2u; i++)
		p->ram[i] = ram != NULL ? (uint16_t)(ram[2u * i] | ram[2u * i + 1u] << 8) : 0u;
}

void view_model_bind(struct view_model *vm, void *ws)
{
	vm->state = agb_replay_core_state(ws);
	vm->cache = vm->has_cache ? agb_replay_cache_state(ws, vm->t) : NULL;
}

/* side/mark (streamed sections): which side allocations go to, and each side's section count. */
static void sections_apply(struct view_model *vm, const struct agb_replay_obs *o)
{
	if (o->op == AGB_OP_SIDE)
		vm->side = o->id & 1u;
	else if (o->op == AGB_OP_MARK)
		vm->sections[vm->side]++;
}

void view_model_apply(struct view_model *vm, void *ws, const struct agb_replay_obs *o)
{
	const struct agb_event *ev = &vm->t->events[o->index];
	view_model_bind(vm, ws);
	vm->index = o->index;
	vm->last = *o;
	if (o->outcome == AGB_OUTCOME_FAILED) {
		vm->failures++;
		vm->fail_index = o->index;
		vm->fail = *o;
	}
	if (o->op == AGB_OP_FRAME)
		vm->frames++;
	if (o->sampled == AGB_SAMPLE_REGULAR)
		vm->spark[vm->nspark++] = (float)agb_frag_external(&o->stats);
	if (o->outcome != AGB_OUTCOME_OK)
		return;
	if (vm->pal != NULL) {
		pal_apply(vm, ev, o);
		return;
	}
	if (vm->sides)
		sections_apply(vm, o);
	switch (o->op) {
	case AGB_OP_ALLOC:
		vm->rec[ev->slot] = (struct view_rec){o->id, o->addr, o->requested, o->granted,
						      vm->frames, 1, 0, 0, 0, 0, 0, 0};
		if (vm->sides) {
			vm->rec[ev->slot].side = (uint8_t)(vm->side + 1u);
			vm->rec[ev->slot].section = (uint16_t)vm->sections[vm->side];
		}
		paint(vm, ev->slot);
		break;
	case AGB_OP_FREE:
		if (vm->rec[ev->slot].live)
			unpaint(vm, ev->slot);
		break;
	case AGB_OP_REALLOC: {
		/* Age counts from the first alloc: the data lives on in the moved block. */
		uint32_t birth = vm->rec[ev->slot].live ? vm->rec[ev->slot].birth_frame : vm->frames;
		if (vm->rec[ev->slot].live)
			unpaint(vm, ev->slot);
		vm->rec[ev->slot] = (struct view_rec){o->id, o->addr, o->requested, o->granted,
						      birth, 1, 0, 0, 0, 0, 0, 0};
		paint(vm, ev->slot);
		break;
	}
	case AGB_OP_REF:
	case AGB_OP_UNREF:
		track_tile_refs(vm, o);
		/* An upload, a release and a revival change which blocks are free (walk counts an
		 * unreferenced tile's slot free). */
		if ((o->result & (AGB_VERB_UPLOADED | AGB_VERB_RELEASED | AGB_VERB_REVIVED)) != 0)
			resync(vm, o);
		break;
	case AGB_OP_RESET:
		resync(vm, o);
		break;
	default:
		break;
	}
}

/* The cache's resident entries, most recent first: each owns its block's units, as record
 * `key handle`'s (the first t->slots records; cache traces allocate nothing else). */
struct cache_paint {
	struct view_model *vm;
	uint32_t rank;
};

static void paint_entry(void *ctx, uint32_t key, uint32_t addr, uint32_t bytes, uint32_t locks)
{
	struct cache_paint *cp = ctx;
	struct view_model *vm = cp->vm;
	struct view_rec *rec;
	if (key >= vm->t->slots)
		return;
	rec = &vm->rec[key];
	*rec = (struct view_rec){0};
	rec->addr = addr;
	rec->requested = rec->granted = bytes;
	rec->live = rec->cached = 1;
	rec->locked = locks != 0;
	rec->recency = (uint16_t)(cp->rank < 0xFFFFu ? cp->rank : 0xFFFFu);
	rec->id = vm->cache_keys[key];
	cp->rank++;
	paint(vm, key);
}

static void cache_refresh(struct view_model *vm)
{
	struct cache_paint cp = {vm, 0};
	for (uint32_t u = 0; u < vm->units; u++)
		vm->owner[u] = 0;
	for (uint32_t r = 0; r < vm->t->slots; r++)
		vm->rec[r].live = 0;
	agb_cache_walk(vm->cache, paint_entry, &cp);
	vm->cache_resident = cp.rank;
}

void view_model_refresh(struct view_model *vm)
{
	if (vm->state == NULL)
		return;
	if (vm->cache != NULL)
		cache_refresh(vm);
	walk_into(vm, vm->kind, 1);
	vm->core->stats(vm->state, &vm->stats);
	vm->have_stats = 1;
	vm->overhead = vm->core->overhead_bytes(vm->state);
	if (vm->pal != NULL)
		pal_refresh(vm);
}

uint32_t view_fit_cols(uint32_t base_cols, uint32_t units, int map_w, int map_h)
{
	uint32_t cols = base_cols;
	while (cols > 8u) {
		uint32_t half = cols / 2u;
		uint64_t rows = (units + half - 1u) / half;
		if (rows * (uint64_t)(map_w / (int)half) > (uint64_t)map_h)
			break;
		cols = half;
	}
	return cols;
}

/* ---- tiles: reference counts ------------------------------------------------------------ */

static uint32_t tile_key(uint32_t tile, uint32_t bpp)
{
	return tile << 1 | (bpp == 8u);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The sorted set of (tile, bpp) keys the trace refs or unrefs. O(events log events). */
static int tiles_init(struct view_model *vm)
{
	const struct agb_trace *t = vm->t;
	uint32_t n = 0, k = 0;
	for (uint32_t i = 0; i < t->event_count; i++)
		n += t->events[i].op == AGB_OP_REF || t->events[i].op == AGB_OP_UNREF;
	if (n == 0)
		return 0;
	vm->tile_key = malloc(n * sizeof *vm->tile_key);
	vm->tile_refs = calloc(n, sizeof *vm->tile_refs);
	if (vm->tile_key == NULL || vm->tile_refs == NULL)
		return -1;
	for (uint32_t i = 0; i < t->event_count; i++)
		if (t->events[i].op == AGB_OP_REF || t->events[i].op == AGB_OP_UNREF)
			vm->tile_key[k++] = tile_key(t->events[i].id, t->events[i].size);
	qsort(vm->tile_key, n, sizeof *vm->tile_key, cmp_u32);
	k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (k == 0 || vm->tile_key[k - 1u] != vm->tile_key[i])
			vm->tile_key[k++] = vm->tile_key[i];
	vm->ntile_keys = k;
	return 0;
}

/* Index of key in tile_key, or -1. */
static int64_t tile_index(const struct view_model *vm, uint32_t key)
{
	uint32_t lo = 0, hi = vm->ntile_keys;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2u;
		if (vm->tile_key[mid] < key)
			lo = mid + 1u;
		else
			hi = mid;
	}
	return lo < vm->ntile_keys && vm->tile_key[lo] == key ? (int64_t)lo : -1;
}

/* A served ref holds one more reference, a served unref one less; uploads and releases are the
 * core's word on what is resident. */
static void track_tile_refs(struct view_model *vm, const struct agb_replay_obs *o)
{
	int64_t i = tile_index(vm, tile_key(o->id, o->requested));
	uint32_t bytes = o->requested == 8u ? 64u : 32u;
	if (i < 0 || (o->result & AGB_VERB_SKIPPED) != 0)
		return;
	if (o->op == AGB_OP_REF) {
		vm->tile_refs[i]++;
		vm->tile_refs_total++;
		if ((o->result & (AGB_VERB_UPLOADED | AGB_VERB_REVIVED)) != 0) {
			vm->resident_tiles++;
			vm->resident_tile_bytes += bytes;
		}
		return;
	}
	if (vm->tile_refs[i] != 0) {
		vm->tile_refs[i]--;
		vm->tile_refs_total--;
	}
	if ((o->result & AGB_VERB_RELEASED) != 0 && vm->resident_tiles != 0) {
		vm->resident_tiles--;
		vm->resident_tile_bytes -= bytes <= vm->resident_tile_bytes ? bytes
									     : vm->resident_tile_bytes;
	}
}

uint32_t view_model_tile_refs(const struct view_model *vm, uint32_t tile, uint32_t bpp)
{
	int64_t i = tile_index(vm, tile_key(tile, bpp));
	return i < 0 ? 0u : vm->tile_refs[i];
}

int view_model_has_tiles(const struct view_model *vm)
{
	return vm->ntile_keys != 0;
}

void view_model_tile_summary(const struct view_model *vm, struct view_tile_summary *out)
{
	memset(out, 0, sizeof *out);
	out->resident = vm->resident_tiles;
	out->bytes = vm->resident_tile_bytes;
	out->refs = vm->tile_refs_total;
	for (uint32_t i = 0; i < vm->ntile_keys; i++) {
		uint32_t r = vm->tile_refs[i];
		if (r == 0)
			continue;
		out->hist[r == 1u ? 0 : r == 2u ? 1 : r <= 4u ? 2 : 3]++;
		if (r > out->max_refs) {
			out->max_refs = r;
			out->max_tile = vm->tile_key[i] >> 1;
			out->max_bpp = (vm->tile_key[i] & 1u) != 0 ? 8u : 4u;
		}
	}
}

uint32_t view_model_current_frame(const struct view_model *vm)
{
	if (vm->index >= 0 && vm->last.op == AGB_OP_FRAME && vm->frames != 0)
		return vm->frames - 1u;
	return vm->frames;
}
