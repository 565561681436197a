/* Metrics from observations (the keys are listed in docs/trace-format.md, "Metrics"). */
#include "agbsim/metrics.h"
#include "agb/cache.h"

static uint64_t isqrt64(uint64_t v)
{
	uint64_t r = 0, bit = (uint64_t)1 << 62;
	while (bit > v)
		bit >>= 2;
	while (bit != 0) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

double agb_frag_external(const struct agb_heap_stats *s)
{
	if (s->free_bytes == 0)
		return 0.0;
	return 1.0 - (double)s->largest_free / (double)s->free_bytes;
}

double agb_frag_umm(const struct agb_heap_stats *s)
{
	if (s->free_bytes == 0)
		return 0.0;
	/* Integer square root: exact enough for runs below 2^32 and free of libm. */
	return 1.0 - (double)isqrt64(s->free_sq_sum) / (double)s->free_bytes;
}

void agb_metrics_begin(struct agb_metrics_acc *acc, struct agb_metrics *out,
		       const struct agb_trace *t, uint32_t unit, uint32_t *cycles)
{
	uint32_t counts[AGB_OP_COUNT] = {0};
	uint32_t at = 0;
	*acc = (struct agb_metrics_acc){0};
	*out = (struct agb_metrics){0};
	out->first_failure_event = -1;
	acc->out = out;
	acc->unit = unit != 0 ? unit : 1u;
	acc->cycles = cycles;
	for (uint32_t i = 0; i < t->event_count; i++)
		counts[t->events[i].op]++;
	/* Group samples by op with frames and refused requests last, so the ops all_ops sums (the
	 * game's calls that were served or priced) form one prefix. */
	for (unsigned op = 0; op < AGB_OP_COUNT; op++) {
		if (op == AGB_OP_FRAME || op == AGB_OP_REFUSED)
			continue;
		acc->start[op] = at;
		acc->cursor[op] = at;
		at += counts[op];
	}
	acc->start[AGB_OP_FRAME] = at;
	acc->cursor[AGB_OP_FRAME] = at;
	at += counts[AGB_OP_FRAME];
	acc->start[AGB_OP_REFUSED] = at;
	acc->cursor[AGB_OP_REFUSED] = at;
	out->thrash_window = AGB_THRASH_WINDOW;
	out->load_cost_milli = AGB_LOAD_COST_COPY_MILLI;
}

void agb_metrics_set_cache(struct agb_metrics_acc *acc, uint32_t thrash_window,
			   uint32_t load_cost_milli)
{
	acc->out->thrash_window = thrash_window;
	acc->out->load_cost_milli = load_cost_milli;
}

/* lock/touch: hit or miss; a miss loads (perhaps a reload soon after an eviction: thrash) or
 * finds no room (nope); the evictions it took. */
static void observe_cache(struct agb_metrics_acc *acc, const struct agb_replay_obs *obs)
{
	struct agb_metrics *o = acc->out;
	o->cache_evictions += AGB_CACHE_DETAIL_EVICTIONS(obs->result);
	o->cache_blocked_evictions += obs->cache_blocked;
	if ((obs->result & AGB_CACHE_HIT) != 0) {
		o->cache_hits++;
		return;
	}
	o->cache_misses++;
	if ((obs->result & AGB_CACHE_NOPE) != 0) {
		o->cache_nopes++;
		return;
	}
	o->cache_loads++;
	o->cache_bytes_loaded += obs->requested;
	if (obs->cache_since_evicted != AGB_CACHE_NEVER && obs->cache_since_evicted < o->thrash_window)
		o->cache_thrash++;
}

static void sample(struct agb_metrics_acc *acc, const struct agb_heap_stats *s)
{
	double fe = agb_frag_external(s), fu = agb_frag_umm(s);
	struct agb_metrics *o = acc->out;
	acc->frag_sum += fe;
	acc->umm_sum += fu;
	acc->samples++;
	if (fe > o->frag_external.max)
		o->frag_external.max = fe;
	if (fu > o->frag_umm.max)
		o->frag_umm.max = fu;
	acc->last = *s;
	acc->have_last = 1;
}

/* Closes the current frame: a loading frame is kept apart from the budget. */
static void end_frame(struct agb_metrics_acc *acc, int loading, uint32_t index)
{
	struct agb_metrics *o = acc->out;
	uint32_t *max = loading ? &o->load_frame_max_cycles : &o->frame_max_cycles;
	uint32_t *seen = loading ? &o->load_frames : &acc->gameplay_frames;
	if (*seen == 0 || acc->frame_cycles > *max) {
		*max = acc->frame_cycles;
		*(loading ? &o->load_frame_max_index : &o->frame_max_index) = index;
		*(loading ? &o->load_frame_max_first_event : &o->frame_max_first_event) =
			acc->frame_first;
		*(loading ? &o->load_frame_max_ops : &o->frame_max_ops) = acc->frame_ops;
	}
	(*seen)++;
	if (!loading && (double)acc->frame_cycles * 100.0 > AGB_FRAME_BUDGET_PCT * AGB_FRAME_CYCLES)
		o->frames_over_budget++;
	acc->frame_cycles = 0;
	acc->frame_ops = 0;
	acc->frame_open = 0;
}

/* ---- streamed sections ---- */

/* The marker's record, or NULL when it was never marked (or fell out of the table). */
static struct agb_metrics_marker *marker_find(struct agb_metrics_acc *acc, uint32_t marker)
{
	for (uint32_t i = 0; i < acc->nmarkers; i++)
		if (acc->markers[i].marker == marker)
			return &acc->markers[i];
	return 0;
}

static void section_alloc(struct agb_metrics_acc *acc, uint32_t granted)
{
	uint32_t s = acc->side;
	acc->side_alloc[s] += granted;
	acc->side_live[s] += granted;
	if (acc->side_live[s] > acc->out->section_peak_bytes[s])
		acc->out->section_peak_bytes[s] = (uint32_t)acc->side_live[s];
}

/* side/mark/reset/sync: which side allocates, where each marker was set, what a reset gives
 * back (a two-sided stack: the side holds what it held at the mark), what a door waits for. */
static void observe_section(struct agb_metrics_acc *acc, const struct agb_replay_obs *obs)
{
	struct agb_metrics *o = acc->out;
	struct agb_metrics_marker *m;
	if (obs->outcome != AGB_OUTCOME_OK)
		return;
	if (obs->op == AGB_OP_SIDE) {
		acc->side = obs->id & 1u;
		return;
	}
	m = marker_find(acc, obs->id); /* id: the marker of mark, reset and sync */
	if (obs->op == AGB_OP_MARK) {
		if (m == 0) {
			if (acc->nmarkers == AGB_METRICS_MARKERS) { /* forget the oldest */
				for (uint32_t i = 1; i < AGB_METRICS_MARKERS; i++)
					acc->markers[i - 1u] = acc->markers[i];
				acc->nmarkers--;
			}
			m = &acc->markers[acc->nmarkers++];
		}
		*m = (struct agb_metrics_marker){obs->id, acc->side, o->frames,
						 acc->side_alloc[acc->side], acc->side_live[acc->side]};
		return;
	}
	if (m == 0)
		return;
	if (obs->op == AGB_OP_RESET) {
		acc->side_live[m->side] = m->live_at;
		return;
	}
	/* sync */
	uint64_t bytes = acc->side_alloc[m->side] - m->alloc_at;
	o->syncs++;
	if (bytes > o->largest_section_bytes)
		o->largest_section_bytes = (uint32_t)bytes;
	if (o->load_rate != 0) {
		uint64_t need = (bytes + o->load_rate - 1u) / o->load_rate;
		uint64_t had = o->frames - m->frame;
		if (need > had)
			o->stall_frames += (uint32_t)(need - had);
	}
}

/* The side (0 BG, 1 OBJ) of a palette op: its address is a bank of that side. */
static uint32_t pal_side(const struct agb_replay_obs *obs)
{
	return (obs->addr - AGB_MEM_PAL) >= AGB_PAL_SIDE_BYTES ? 1u : 0u;
}

/* pal_load / pal_free: uploads, sharing and the banks loaded palettes hold. */
static void observe_pal_bank(struct agb_metrics_acc *acc, const struct agb_replay_obs *obs)
{
	struct agb_metrics *o = acc->out;
	uint32_t side = pal_side(obs), banks = obs->granted / AGB_PAL_BANK_BYTES;
	if (obs->op == AGB_OP_PAL_FREE) {
		if ((obs->result & AGB_VERB_RELEASED) != 0 && acc->pal_banks[side] >= banks)
			acc->pal_banks[side] -= banks;
		return;
	}
	if (obs->outcome == AGB_OUTCOME_FAILED)
		o->pal_failures++;
	if ((obs->result & AGB_VERB_SHARED) != 0)
		o->pal_dedup_hits++;
	if ((obs->result & AGB_VERB_UPLOADED) != 0) {
		o->pal_uploads++;
		o->pal_bytes_uploaded += obs->requested;
		acc->pal_banks[side] += banks;
		if (acc->pal_banks[side] > o->pal_peak_banks[side])
			o->pal_peak_banks[side] = acc->pal_banks[side];
	}
}

/* pal_push / pal_pop: the stack's depth and work-RAM buffer (o->granted: the frame's bytes, a
 * 4-byte header and the saved banks a pop copies back). */
static void observe_pal_stack(struct agb_metrics_acc *acc, const struct agb_replay_obs *obs)
{
	struct agb_metrics *o = acc->out;
	uint32_t side = pal_side(obs);
	if (obs->outcome != AGB_OUTCOME_OK)
		return;
	o->pal_uploads++;
	if (obs->op == AGB_OP_PAL_PUSH) {
		o->pal_bytes_uploaded += obs->requested;
		acc->pal_depth[side]++;
		acc->pal_buffer += obs->granted;
		if (acc->pal_depth[side] > o->pal_stack_peak_depth)
			o->pal_stack_peak_depth = acc->pal_depth[side];
		if (acc->pal_buffer > o->pal_stack_buffer_bytes)
			o->pal_stack_buffer_bytes = acc->pal_buffer;
		return;
	}
	o->pal_bytes_uploaded += obs->granted >= 4u ? obs->granted - 4u : 0u;
	if (acc->pal_depth[side] > 0)
		acc->pal_depth[side]--;
	acc->pal_buffer -= obs->granted <= acc->pal_buffer ? obs->granted : acc->pal_buffer;
}

/* ref/unref: refs, uploads and the peak of tiles with refs, failures; unrefs and releases. A
 * tiles release leaves the tile in VRAM, unreferenced; a revival (a ref of such a tile) makes it
 * referenced again with no upload: it counts back in like an upload. */
static void observe_tile(struct agb_metrics_acc *acc, const struct agb_replay_obs *obs)
{
	struct agb_metrics *o = acc->out;
	if (obs->op == AGB_OP_UNREF) {
		o->unrefs++;
		if ((obs->result & AGB_VERB_RELEASED) && acc->resident_tiles > 0)
			acc->resident_tiles--;
		return;
	}
	o->refs++;
	if (obs->result & AGB_VERB_UPLOADED)
		o->tile_uploads++;
	if (obs->result & (AGB_VERB_UPLOADED | AGB_VERB_REVIVED)) {
		if (++acc->resident_tiles > o->peak_resident_tiles)
			o->peak_resident_tiles = acc->resident_tiles;
	}
	if (obs->outcome == AGB_OUTCOME_FAILED)
		o->tile_failures++;
}

/* A failed op: the count, the first one, and whether free space would have served it (a
 * fragmentation failure: a sampled alloc or realloc with enough free bytes, just not in one
 * run). */
static void observe_failure(struct agb_metrics_acc *acc, const struct agb_replay_obs *obs)
{
	struct agb_metrics *o = acc->out;
	o->failures++;
	if (o->first_failure_event < 0) {
		o->first_failure_event = obs->index;
		o->live_bytes_at_first_failure = obs->live_bytes;
	}
	if ((obs->op == AGB_OP_ALLOC || obs->op == AGB_OP_REALLOC || obs->op == AGB_OP_REFUSED) &&
	    obs->sampled) {
		uint64_t need = ((uint64_t)obs->requested + acc->unit - 1u) / acc->unit * acc->unit;
		if (obs->stats.free_bytes >= need)
			o->frag_failures++;
	}
}

void agb_metrics_observe(void *ctx, const struct agb_replay_obs *obs)
{
	struct agb_metrics_acc *acc = ctx;
	struct agb_metrics *o = acc->out;
	o->events++;
	o->corrupted_bytes += obs->corrupted;
	acc->cycles[acc->cursor[obs->op]++] = obs->cycles;
	/* A frame event's own work (e.g. the shadow OAM copy at V-blank) closes the frame it ends:
	 * it counts in that frame's budget and in the total, but not in all_ops. */
	o->total_cycles += obs->cycles;
	if (!acc->frame_open)
		acc->frame_first = obs->index;
	acc->frame_open = 1;
	acc->frame_cycles += obs->cycles;
	acc->frame_ops += obs->op != AGB_OP_FRAME;
	o->live_bytes_end = obs->live_bytes;
	switch ((enum agb_op)obs->op) {
	case AGB_OP_ALLOC:
		o->allocs++;
		break;
	case AGB_OP_FREE:
		o->frees++;
		break;
	case AGB_OP_REALLOC:
		o->reallocs++;
		break;
	case AGB_OP_FRAME:
		o->frames++;
		acc->any_frame = 1;
		end_frame(acc, obs->requested == AGB_FRAME_LOAD, o->frames - 1u);
		break;
	case AGB_OP_REF:
	case AGB_OP_UNREF:
		observe_tile(acc, obs);
		break;
	case AGB_OP_PAL_LOAD:
	case AGB_OP_PAL_FREE:
		observe_pal_bank(acc, obs);
		break;
	case AGB_OP_PAL_PUSH:
	case AGB_OP_PAL_POP:
		observe_pal_stack(acc, obs);
		break;
	case AGB_OP_SIDE:
	case AGB_OP_MARK:
	case AGB_OP_RESET:
	case AGB_OP_SYNC:
		observe_section(acc, obs);
		break;
	case AGB_OP_LOCK:
	case AGB_OP_TOUCH:
		observe_cache(acc, obs);
		break;
	case AGB_OP_REFUSED:
		o->refused++;
		o->refused_served += obs->outcome == AGB_OUTCOME_OK;
		break;
	default:
		break;
	}
	if (obs->op == AGB_OP_ALLOC && obs->outcome == AGB_OUTCOME_OK)
		section_alloc(acc, obs->granted);
	if (obs->outcome == AGB_OUTCOME_SKIPPED)
		o->skipped++;
	if (obs->outcome == AGB_OUTCOME_FAILED)
		observe_failure(acc, obs);
	if (obs->live_bytes > o->peak_live_bytes) {
		o->peak_live_bytes = obs->live_bytes;
		/* Palette loads that share a resident palette ask for colours but take no bank
		 * bytes: with sharing, granted can fall below requested (no waste, not 4 GiB). */
		o->internal_bytes = obs->live_granted > obs->live_bytes
					    ? obs->live_granted - obs->live_bytes
					    : 0u;
	}
	if (obs->sampled == AGB_SAMPLE_REGULAR)
		sample(acc, &obs->stats);
}

/* In-place heapsort: no libc qsort in freestanding code. */
static void sift(uint32_t *a, uint32_t start, uint32_t n)
{
	uint32_t root = start;
	for (;;) {
		uint32_t child = 2u * root + 1u;
		if (child >= n)
			return;
		if (child + 1u < n && a[child + 1u] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		uint32_t tmp = a[root];
		a[root] = a[child];
		a[child] = tmp;
		root = child;
	}
}

static void sort_u32(uint32_t *a, uint32_t n)
{
	for (uint32_t i = n / 2u; i-- > 0;)
		sift(a, i, n);
	for (uint32_t end = n; end-- > 1u;) {
		uint32_t tmp = a[0];
		a[0] = a[end];
		a[end] = tmp;
		sift(a, 0, end);
	}
}

/* Nearest-rank percentile of a sorted sample. */
static uint32_t percentile(const uint32_t *sorted, uint32_t n, uint32_t pct)
{
	uint64_t rank = ((uint64_t)pct * n + 99u) / 100u;
	if (n == 0)
		return 0;
	return sorted[rank == 0 ? 0 : rank - 1u];
}

static void summarize(struct agb_cycle_stats *c, uint32_t *a, uint32_t n)
{
	sort_u32(a, n);
	c->count = n;
	c->total = 0;
	for (uint32_t i = 0; i < n; i++)
		c->total += a[i];
	c->mean = n != 0 ? (double)c->total / (double)n : 0.0;
	c->p50 = percentile(a, n, 50);
	c->p95 = percentile(a, n, 95);
	c->p99 = percentile(a, n, 99);
	c->max = n != 0 ? a[n - 1u] : 0;
}

void agb_metrics_set_load_rate(struct agb_metrics_acc *acc, uint32_t bytes_per_frame)
{
	acc->out->load_rate = bytes_per_frame;
}

void agb_metrics_end(struct agb_metrics_acc *acc, const struct agb_replay_result *res)
{
	struct agb_metrics *o = acc->out;
	/* The stretch after the last frame event is a partial frame; it still counts. */
	if (acc->frame_cycles != 0)
		end_frame(acc, 0, o->frames);
	if (!acc->any_frame) {
		/* Without frames there is no frame budget to judge. */
		o->frames_over_budget = 0;
		o->frame_max_cycles = 0;
	}
	o->max_frame_pct = (double)o->frame_max_cycles * 100.0 / (double)AGB_FRAME_CYCLES;
	o->max_load_frame_pct = (double)o->load_frame_max_cycles * 100.0 / (double)AGB_FRAME_CYCLES;
	o->arena_bytes = res->arena_bytes;
	o->overhead_bytes = res->overhead_bytes;
	o->overhead_ratio = res->arena_bytes != 0
				    ? (double)res->overhead_bytes / (double)res->arena_bytes
				    : 0.0;
	o->corrupted_bytes = res->corrupted_bytes;
	o->quirk_stores = res->quirk_stores;
	o->unmapped_accesses = res->unmapped_accesses;
	if (acc->samples == 0)
		sample(acc, &res->final_stats);
	o->frag_external.final = agb_frag_external(&res->final_stats);
	o->frag_umm.final = agb_frag_umm(&res->final_stats);
	o->frag_external.mean = acc->frag_sum / acc->samples;
	o->frag_umm.mean = acc->umm_sum / acc->samples;
	for (unsigned op = 0; op < AGB_OP_COUNT; op++) {
		uint32_t n = acc->cursor[op] - acc->start[op];
		summarize(&o->cycles[op], acc->cycles + acc->start[op], n);
	}
	o->load_cycles = o->cache_bytes_loaded * o->load_cost_milli / 1000u;
	o->cache_hit_rate = o->cache_hits + o->cache_misses != 0
				    ? (double)o->cache_hits / (double)(o->cache_hits + o->cache_misses)
				    : 0.0;
	o->load_cycles_per_frame = o->frames != 0 ? (double)o->load_cycles / (double)o->frames
						  : (double)o->load_cycles;
	/* Every op but frames: per-op summaries are taken, so the prefix can be re-sorted whole. */
	summarize(&o->all_ops, acc->cycles, acc->start[AGB_OP_FRAME]);
}
