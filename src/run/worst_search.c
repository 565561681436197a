/* The worst-case search: genomes of op genes, decoded to traces, replayed, kept when costlier
 * (worst_search.h). */
#include "run/worst_search.h"

#include <stdlib.h>
#include <string.h>

#include "agb/machine.h"
#include "agbsim/mt19937.h"
#include "agb/tiles.h"
#include "platform/platform.h"

#define POOL 16u            /* genomes kept per objective */
#define DEFAULT_MAX_OPS 1500u

enum gene_kind { G_ALLOC, G_FREE, G_REALLOC, G_REF, G_UNREF };

/* One op to make. alloc: a = size, b = align. free, unref: a = which live block or ref
 * (k-th from the oldest, or from the newest when `newest`). realloc: a = which, b = size.
 * ref: a = ROM tile, b = bpp. */
struct gene {
	uint8_t kind, newest;
	uint32_t a, b;
};

struct genome {
	struct gene *g;
	uint32_t n;
	uint32_t fit_call, fit_frame; /* model cycles; 0 with no call of the op */
	uint64_t fit_top;             /* the op's 8 costliest calls summed: breaks ties, so a
				       * search on a plateau still climbs towards deeper states */
	uint32_t events;              /* decoded length */
};

enum domain { D_HEAP, D_OBJ, D_TILES };

struct search {
	const struct agb_worst_params *p;
	enum domain dom;
	struct agb_mt mt;
	uint32_t max_ops;
	uint32_t rom_tiles; /* tiles: ROM tiles per depth the maps cover (refs beyond are refused) */
	/* decode scratch */
	struct agb_event *ev;
	uint32_t *live, *free_slots, *refs; /* live ids' slots; refs: tile | bpp8 << 31 */
	uint32_t *live_id;
	uint32_t *cycles;
	uint8_t *called; /* event was a core call whose cost counts (not skipped) */
	struct gene *tmp; /* max_ops genes: a run being inserted */
	agb_machine *m;
	void *ws;
	size_t ws_bytes;
	struct genome pool[2][POOL];
	uint32_t npool;
	int objectives;
};

/* ---- genes ------------------------------------------------------------------------------ */

static uint32_t rnd(struct search *s, uint32_t n)
{
	return n <= 1u ? 0u : agb_mt_below(&s->mt, n);
}

/* A size between lo and hi (>= lo >= 1), uniform in its binary order of magnitude. */
static uint32_t log_uniform(struct search *s, uint32_t lo, uint32_t hi)
{
	uint32_t lg_lo = 31u - (uint32_t)__builtin_clz(lo), lg_hi = 31u - (uint32_t)__builtin_clz(hi);
	uint32_t k = lg_lo + rnd(s, lg_hi - lg_lo + 1u);
	uint32_t base = 1u << k, v = base + rnd(s, base);
	return v < lo ? lo : v > hi ? hi : v;
}

/* A size seen in the genome (same-class runs are what exact-fit lists are made of). */
static int reuse_size(struct search *s, const struct genome *gm, uint32_t *out)
{
	for (int tries = 0; tries < 4 && gm->n != 0u; tries++) {
		const struct gene *g = &gm->g[rnd(s, gm->n)];
		if (g->kind == G_ALLOC || g->kind == G_REALLOC) {
			*out = g->kind == G_ALLOC ? g->a : g->b;
			return 1;
		}
	}
	return 0;
}

static uint32_t heap_size(struct search *s, const struct genome *gm)
{
	uint32_t pool = s->p->pool_bytes, v;
	switch (rnd(s, 10)) {
	case 0:
	case 1:
		return 1u + rnd(s, 64);
	case 2:
	case 3:
		if (reuse_size(s, gm, &v)) {
			uint32_t d = rnd(s, 17);
			v = v + d > 8u ? v + d - 8u : 1u;
			return v > pool ? pool : v;
		}
		return log_uniform(s, 1, pool / 8u > 1u ? pool / 8u : 1u);
	case 4:
		return log_uniform(s, 1, pool);
	case 5: {
		uint32_t k = 2u + rnd(s, 30u - (uint32_t)__builtin_clz(pool));
		v = (1u << k) + rnd(s, 3) - 1u;
		return v > pool ? pool : v;
	}
	default:
		return log_uniform(s, 1, pool / 8u > 1u ? pool / 8u : 1u);
	}
}

/* OBJ VRAM: sprite shapes (1..32 tiles, powers of two), animation strips (3, 6, 12, 24, 48),
 * any other tile count, and a few byte sizes off the 32-byte grid. */
static uint32_t obj_size(struct search *s, const struct genome *gm)
{
	static const uint32_t strips[] = {3, 6, 12, 24, 48};
	uint32_t blocks = s->p->pool_bytes / 32u, n, v;
	switch (rnd(s, 10)) {
	case 0:
	case 1:
	case 2:
		n = 1u << rnd(s, 6);
		break;
	case 3:
	case 4:
		n = strips[rnd(s, 5)];
		break;
	case 5:
		if (reuse_size(s, gm, &v))
			return v;
		n = 1u + rnd(s, 64);
		break;
	case 6:
		n = 1u + rnd(s, 128);
		break;
	case 7:
		n = log_uniform(s, 1, blocks);
		break;
	case 8:
		return 1u + rnd(s, 64u * 32u);
	default:
		n = 1u + rnd(s, 64);
		break;
	}
	return (n > blocks ? blocks : n) * 32u;
}

static uint32_t pick_align(struct search *s)
{
	uint32_t r = rnd(s, 16), max = s->p->max_align;
	uint32_t a, lg;
	if (r < 12u || max <= 1u)
		return 1u;
	lg = 31u - (uint32_t)__builtin_clz(max);
	a = 2u << rnd(s, lg); /* 2 .. max_align */
	return a > max || a > s->p->pool_bytes ? 1u : a;
}

static struct gene random_gene(struct search *s, const struct genome *gm)
{
	struct gene g = {0, 0, 0, 0};
	uint32_t r = rnd(s, 100);
	if (s->dom == D_TILES) {
		if (r < 60u) {
			g.kind = G_REF;
			/* few distinct tiles (shared refs) or many (uploads, the VRAM filling up) */
			g.a = rnd(s, 4) == 0 ? rnd(s, 64) : rnd(s, s->rom_tiles);
			g.b = rnd(s, 3) == 0 ? 8u : 4u;
		} else {
			g.kind = G_UNREF;
			g.a = rnd(s, 64);
			g.newest = (uint8_t)rnd(s, 2);
		}
		return g;
	}
	if (s->p->op == AGB_OP_REALLOC && r < 20u) {
		g.kind = G_REALLOC;
		g.a = rnd(s, 64);
		g.newest = (uint8_t)rnd(s, 2);
		g.b = s->dom == D_OBJ ? obj_size(s, gm) : heap_size(s, gm);
	} else if (r < 62u || s->p->core->free == NULL) {
		g.kind = G_ALLOC;
		g.a = s->dom == D_OBJ ? obj_size(s, gm) : heap_size(s, gm);
		g.b = pick_align(s);
	} else {
		g.kind = G_FREE;
		g.a = rnd(s, 4) == 0 ? rnd(s, 1024) : rnd(s, 32);
		g.newest = (uint8_t)rnd(s, 2);
	}
	return g;
}

/* ---- decoding ---------------------------------------------------------------------------- */

static uint32_t pick_index(uint32_t a, int newest, uint32_t n)
{
	uint32_t k = a % n;
	return newest ? n - 1u - k : k;
}

/* A request the trace format accepts: 1 .. the pool's bytes. */
static uint32_t clamp_size(const struct search *s, uint32_t v)
{
	return v == 0u ? 1u : v > s->p->pool_bytes ? s->p->pool_bytes : v;
}

/* The genome's trace into s->ev (ids never reused; slots as the loader assigns them: the most
 * recently freed first). Returns the event count; *slots the slot bound. */
static uint32_t decode(struct search *s, const struct genome *gm, uint32_t *slots)
{
	uint32_t n = 0, nlive = 0, nfree = 0, nrefs = 0, nslots = 0, next_id = 0;
	for (uint32_t i = 0; i < gm->n; i++) {
		const struct gene *g = &gm->g[i];
		struct agb_event *e = &s->ev[n];
		memset(e, 0, sizeof *e);
		switch (g->kind) {
		case G_ALLOC:
			e->op = AGB_OP_ALLOC;
			e->id = next_id++;
			e->slot = nfree > 0u ? s->free_slots[--nfree] : nslots++;
			e->size = clamp_size(s, g->a);
			e->align = g->b;
			s->live[nlive] = e->slot;
			s->live_id[nlive++] = e->id;
			break;
		case G_FREE:
		case G_REALLOC: {
			uint32_t k;
			if (nlive == 0u)
				continue;
			k = pick_index(g->a, g->newest, nlive);
			e->op = g->kind == G_FREE ? AGB_OP_FREE : AGB_OP_REALLOC;
			e->id = s->live_id[k];
			e->slot = s->live[k];
			if (g->kind == G_REALLOC) {
				e->size = clamp_size(s, g->b);
				break;
			}
			s->free_slots[nfree++] = e->slot;
			memmove(&s->live[k], &s->live[k + 1u], (nlive - k - 1u) * sizeof *s->live);
			memmove(&s->live_id[k], &s->live_id[k + 1u], (nlive - k - 1u) * sizeof *s->live_id);
			nlive--;
			break;
		}
		case G_REF:
			e->op = AGB_OP_REF;
			e->id = g->a;
			e->size = g->b;
			s->refs[nrefs++] = g->a | (g->b == 8u ? 0x80000000u : 0u);
			break;
		case G_UNREF: {
			uint32_t k, r;
			if (nrefs == 0u)
				continue;
			k = pick_index(g->a, g->newest, nrefs);
			r = s->refs[k];
			e->op = AGB_OP_UNREF;
			e->id = r & 0x7FFFFFFFu;
			e->size = (r >> 31) != 0u ? 8u : 4u;
			memmove(&s->refs[k], &s->refs[k + 1u], (nrefs - k - 1u) * sizeof *s->refs);
			nrefs--;
			break;
		}
		default:
			continue;
		}
		n++;
	}
	*slots = nslots;
	return n;
}

/* ---- evaluation -------------------------------------------------------------------------- */

struct eval_ctx {
	uint32_t *cycles;
	uint8_t *called;
};

static void observe(void *ctx, const struct agb_replay_obs *o)
{
	struct eval_ctx *c = ctx;
	c->cycles[o->index] = o->cycles;
	c->called[o->index] = o->outcome != AGB_OUTCOME_SKIPPED;
}

static int is_call(uint8_t op)
{
	return op == AGB_OP_ALLOC || op == AGB_OP_FREE || op == AGB_OP_REALLOC || op == AGB_OP_REF ||
	       op == AGB_OP_UNREF;
}

/* The best single call of the op and the costliest window of frame_ops calls in s->ev[0..n). */
static uint64_t score(const struct search *s, uint32_t n, struct agb_worst_found *call,
		      struct agb_worst_found *frame)
{
	uint32_t w = s->p->frame_ops, calls = 0, head = 0, top[8] = {0};
	uint64_t sum = 0, top_sum = 0;
	memset(call, 0, sizeof *call);
	memset(frame, 0, sizeof *frame);
	for (uint32_t i = 0; i < n; i++) {
		if (!s->called[i] || !is_call(s->ev[i].op))
			continue;
		if (s->ev[i].op == s->p->op && s->cycles[i] > top[7]) {
			uint32_t k = 7;
			for (; k > 0u && top[k - 1u] < s->cycles[i]; k--)
				top[k] = top[k - 1u];
			top[k] = s->cycles[i];
		}
		if (s->ev[i].op == s->p->op && (!call->found || s->cycles[i] > call->cycles)) {
			call->found = 1;
			call->cycles = s->cycles[i];
			call->index = call->last = i;
			call->requested = s->ev[i].size;
		}
		if (w == 0u)
			continue;
		sum += s->cycles[i];
		calls++;
		if (calls > w) {
			while (!s->called[head] || !is_call(s->ev[head].op))
				head++;
			sum -= s->cycles[head++];
			calls--;
		}
		if (calls == w && sum > frame->cycles) {
			while (!s->called[head] || !is_call(s->ev[head].op))
				head++;
			frame->found = 1;
			frame->cycles = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
			frame->index = head;
			frame->last = i;
		}
	}
	for (int k = 0; k < 8; k++)
		top_sum += top[k];
	return top_sum;
}

/* Decodes and replays gm; fills its fitness and, when keep, the found calls' traces. */
static int evaluate(struct search *s, struct genome *gm, struct agb_worst_found *call,
		    struct agb_worst_found *frame, struct agb_replay_result *res)
{
	struct agb_trace t;
	struct agb_replay_config cfg = s->p->cfg;
	struct eval_ctx ec = {s->cycles, s->called};
	uint32_t slots, n = decode(s, gm, &slots);
	size_t need;
	memset(&t, 0, sizeof t);
	t.arena = s->p->arena;
	t.arena_bytes = s->p->pool_bytes;
	t.event_count = n;
	t.slots = slots;
	t.events = s->ev;
	need = agb_replay_workspace_bytes(&t);
	if (need > s->ws_bytes) {
		void *ws = realloc(s->ws, need);
		if (ws == NULL)
			return -1;
		s->ws = ws;
		s->ws_bytes = need;
	}
	cfg.core = s->p->core;
	cfg.arena_bytes = s->p->pool_bytes;
	cfg.flags = (cfg.flags & ~AGB_REPLAY_CANARIES) | AGB_REPLAY_NO_STATS;
	memset(s->called, 0, n);
	agb_replay_run(&t, &cfg, s->m, s->ws, s->ws_bytes, observe, &ec, res);
	if (res->status != AGB_REPLAY_OK)
		return 1;
	gm->fit_top = score(s, n, call, frame);
	gm->fit_call = call->found ? call->cycles : 0u;
	gm->fit_frame = frame->found ? frame->cycles : 0u;
	gm->events = n;
	return 0;
}

/* ---- mutation ---------------------------------------------------------------------------- */

static void insert_genes(struct search *s, struct genome *gm, uint32_t at, const struct gene *g,
			 uint32_t k)
{
	if (gm->n + k > s->max_ops)
		k = s->max_ops - gm->n;
	if (k == 0u)
		return;
	memmove(&gm->g[at + k], &gm->g[at], (gm->n - at) * sizeof *gm->g);
	memcpy(&gm->g[at], g, k * sizeof *g);
	gm->n += k;
}

static void mutate_once(struct search *s, struct genome *gm)
{
	struct gene *tmp = s->tmp;
	uint32_t at = rnd(s, gm->n + 1u), big = s->max_ops / 2u > 24u ? s->max_ops / 2u : 24u;
	switch (rnd(s, 12)) {
	case 0:
	case 1:
	case 2: { /* one gene's parameters */
		struct gene *g;
		if (gm->n == 0u)
			break;
		g = &gm->g[rnd(s, gm->n)];
		if (g->kind == G_ALLOC || g->kind == G_REALLOC) {
			uint32_t *v = g->kind == G_ALLOC ? &g->a : &g->b;
			uint32_t r = rnd(s, 4);
			if (r == 0u)
				*v = s->dom == D_OBJ ? obj_size(s, gm) : heap_size(s, gm);
			else if (r == 1u && *v * 2u <= s->p->pool_bytes && *v < 0x40000000u)
				*v *= 2u;
			else if (r == 2u && *v >= 2u)
				*v = s->dom == D_OBJ ? (*v / 2u + 31u) / 32u * 32u : *v / 2u;
			else if (s->dom != D_OBJ) {
				uint32_t d = rnd(s, 9);
				*v = *v + d > 4u ? *v + d - 4u : 1u;
			}
			if (*v == 0u)
				*v = s->dom == D_OBJ ? 32u : 1u;
			if (g->kind == G_ALLOC && rnd(s, 4) == 0u)
				g->b = pick_align(s);
		} else if (g->kind == G_REF) {
			g->a = rnd(s, 2) ? rnd(s, s->rom_tiles) : (g->a + rnd(s, 3)) % s->rom_tiles;
			if (rnd(s, 4) == 0u)
				g->b = g->b == 8u ? 4u : 8u;
		} else {
			g->a = rnd(s, 2) ? g->a + 1u : rnd(s, 64);
			if (rnd(s, 4) == 0u)
				g->newest ^= 1u;
		}
		break;
	}
	case 3:
	case 4: { /* insert */
		struct gene g = random_gene(s, gm);
		insert_genes(s, gm, at, &g, 1);
		break;
	}
	case 5: { /* delete a stretch */
		uint32_t k;
		if (gm->n == 0u)
			break;
		at = rnd(s, gm->n);
		k = 1u + rnd(s, rnd(s, 4) == 0 ? 16u : 2u);
		if (at + k > gm->n)
			k = gm->n - at;
		memmove(&gm->g[at], &gm->g[at + k], (gm->n - at - k) * sizeof *gm->g);
		gm->n -= k;
		break;
	}
	case 6: { /* copy a segment elsewhere, possibly several times */
		uint32_t from, k, times = 1u + (rnd(s, 3) == 0 ? rnd(s, 16) : 0u);
		if (gm->n == 0u)
			break;
		from = rnd(s, gm->n);
		k = 1u + rnd(s, 8);
		if (from + k > gm->n)
			k = gm->n - from;
		if (k * times > s->max_ops)
			times = s->max_ops / k;
		for (uint32_t t = 0; t < times; t++)
			memcpy(&tmp[(size_t)t * k], &gm->g[from], k * sizeof *tmp);
		insert_genes(s, gm, at, tmp, k * times);
		break;
	}
	case 7: { /* a run of equal allocs, or of two alternating sizes */
		uint32_t k = 2u + rnd(s, rnd(s, 3) == 0 ? big : 24u);
		struct gene a = random_gene(s, gm), b;
		if (s->dom == D_TILES)
			a.kind = G_REF;
		else
			a.kind = G_ALLOC;
		if (a.kind == G_ALLOC) {
			a.a = s->dom == D_OBJ ? obj_size(s, gm) : heap_size(s, gm);
			a.b = pick_align(s);
		} else {
			a.a = rnd(s, s->rom_tiles);
			a.b = rnd(s, 3) == 0 ? 8u : 4u;
		}
		b = a;
		if (rnd(s, 2) && a.kind == G_ALLOC)
			b.a = s->dom == D_OBJ ? obj_size(s, gm) : heap_size(s, gm);
		if (k > s->max_ops)
			k = s->max_ops;
		for (uint32_t i = 0; i < k; i++) {
			tmp[i] = (i & 1u) ? b : a;
			if (a.kind == G_REF)
				tmp[i].a = (a.a + i) % s->rom_tiles; /* distinct tiles: each one an upload */
		}
		insert_genes(s, gm, at, tmp, k);
		break;
	}
	case 8: { /* a run of frees (unrefs): a stretch (step 0) or every other block (step 1) */
		uint32_t k = 2u + rnd(s, rnd(s, 3) == 0 ? big : 24u), first = rnd(s, 64);
		uint32_t step = rnd(s, 3);
		uint8_t newest = (uint8_t)rnd(s, 2);
		if (s->dom != D_TILES && s->p->core->free == NULL)
			break; /* a core without single frees (bump, stack2) */
		if (k > s->max_ops)
			k = s->max_ops;
		for (uint32_t i = 0; i < k; i++)
			tmp[i] = (struct gene){s->dom == D_TILES ? G_UNREF : G_FREE, newest,
					       first + i * step, 0};
		insert_genes(s, gm, at, tmp, k);
		break;
	}
	case 9: { /* swap two genes */
		struct gene g;
		uint32_t i, j;
		if (gm->n < 2u)
			break;
		i = rnd(s, gm->n);
		j = rnd(s, gm->n);
		g = gm->g[i];
		gm->g[i] = gm->g[j];
		gm->g[j] = g;
		break;
	}
	case 10: { /* move the tail's last gene (often the costly call) to another place */
		struct gene g;
		if (gm->n < 2u)
			break;
		g = gm->g[gm->n - 1u];
		gm->n--;
		at = rnd(s, gm->n + 1u);
		insert_genes(s, gm, at, &g, 1);
		break;
	}
	default: { /* a fresh request at the end: probe the state the genome built */
		struct gene g = random_gene(s, gm);
		if (s->p->op == AGB_OP_ALLOC || s->p->op == AGB_OP_REF) {
			g = random_gene(s, gm);
			if (s->dom != D_TILES) {
				g.kind = G_ALLOC;
				g.a = s->dom == D_OBJ ? obj_size(s, gm) : heap_size(s, gm);
				g.b = pick_align(s);
			}
		}
		insert_genes(s, gm, gm->n, &g, 1);
		break;
	}
	}
}

static int genome_alloc(struct search *s, struct genome *gm)
{
	gm->g = malloc((size_t)s->max_ops * sizeof *gm->g);
	gm->n = 0;
	gm->fit_call = gm->fit_frame = 0;
	gm->fit_top = 0;
	return gm->g == NULL ? -1 : 0;
}

static void genome_copy(struct genome *to, const struct genome *from)
{
	memcpy(to->g, from->g, (size_t)from->n * sizeof *to->g);
	to->n = from->n;
	to->fit_call = from->fit_call;
	to->fit_frame = from->fit_frame;
	to->fit_top = from->fit_top;
	to->events = from->events;
}

static uint32_t fitness(const struct genome *gm, int obj)
{
	return obj == 0 ? gm->fit_call : gm->fit_frame;
}

/* 1 when a is better than b for objective obj: costlier, or as costly and shorter. */
static int better(const struct genome *a, const struct genome *b, int obj)
{
	uint32_t fa = fitness(a, obj), fb = fitness(b, obj);
	if (fa != fb)
		return fa > fb;
	if (a->fit_top != b->fit_top)
		return a->fit_top > b->fit_top;
	return a->n < b->n;
}

static uint32_t weakest(const struct search *s, int obj)
{
	uint32_t w = 0;
	for (uint32_t i = 1; i < s->npool; i++)
		if (better(&s->pool[obj][w], &s->pool[obj][i], obj))
			w = i;
	return w;
}

static uint32_t tournament(struct search *s, int obj)
{
	uint32_t a = rnd(s, s->npool), b = rnd(s, s->npool);
	return better(&s->pool[obj][a], &s->pool[obj][b], obj) ? a : b;
}

/* The child: a pool member (objective obj), maybe crossed with another, mutated. */
static void breed(struct search *s, int obj, struct genome *child)
{
	const struct genome *pa = &s->pool[obj][tournament(s, obj)];
	genome_copy(child, pa);
	if (rnd(s, 8) == 0u) {
		const struct genome *pb = &s->pool[rnd(s, (uint32_t)s->objectives)][rnd(s, s->npool)];
		uint32_t cut_a = rnd(s, pa->n + 1u), cut_b = rnd(s, pb->n + 1u);
		uint32_t tail = pb->n - cut_b;
		if (cut_a + tail > s->max_ops)
			tail = s->max_ops - cut_a;
		memcpy(&child->g[cut_a], &pb->g[cut_b], (size_t)tail * sizeof *child->g);
		child->n = cut_a + tail;
	}
	for (uint32_t k = 1u + rnd(s, 4); k > 0u; k--)
		mutate_once(s, child);
	if (child->n == 0u) {
		struct gene g = random_gene(s, child);
		insert_genes(s, child, 0, &g, 1);
	}
}

static int keep_found(struct agb_worst_found *dst, const struct agb_worst_found *src,
		      const struct agb_event *ev, uint32_t slots)
{
	uint32_t n = src->last + 1u;
	if (n == 0u)
		return -1; /* last is an event index: a wrapped count is no event */
	struct agb_event *copy = malloc((size_t)n * sizeof *copy);
	if (copy == NULL)
		return -1;
	memcpy(copy, ev, (size_t)n * sizeof *copy);
	free(dst->events);
	*dst = *src;
	dst->events = copy;
	dst->event_count = n;
	dst->slots = slots;
	return 0;
}

static uint32_t slots_of(const struct agb_event *ev, uint32_t n)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		if ((ev[i].op == AGB_OP_ALLOC) && ev[i].slot + 1u > m)
			m = ev[i].slot + 1u;
	return m;
}

/* ---- the search -------------------------------------------------------------------------- */

static void search_free(struct search *s)
{
	for (int o = 0; o < 2; o++)
		for (uint32_t i = 0; i < POOL; i++)
			free(s->pool[o][i].g);
	free(s->ev);
	free(s->live);
	free(s->live_id);
	free(s->free_slots);
	free(s->refs);
	free(s->cycles);
	free(s->called);
	free(s->tmp);
	free(s->ws);
	free(s->m);
}

static int budget_left(const struct agb_worst_params *p, uint64_t evals, double t0)
{
	if (p->max_evals != 0u && evals >= p->max_evals)
		return 0;
	if (p->max_seconds > 0.0 && (evals & 15u) == 0u && agb_now_seconds() - t0 >= p->max_seconds)
		return 0;
	return 1;
}

/* Offers an evaluated child to both pools; records new bests. */
static int offer(struct search *s, struct genome *child, const struct agb_worst_found *call,
		 const struct agb_worst_found *frame, struct agb_worst_result *r, uint32_t n_events)
{
	for (int o = 0; o < s->objectives; o++) {
		uint32_t w = weakest(s, o);
		if (better(child, &s->pool[o][w], o))
			genome_copy(&s->pool[o][w], child);
	}
	if (call->found && (!r->call.found || call->cycles > r->call.cycles)) {
		if (keep_found(&r->call, call, s->ev, slots_of(s->ev, call->last + 1u)) != 0)
			return -1;
		r->improvements++;
		r->first_found_eval = (uint32_t)r->evals;
	}
	if (frame->found && (!r->frame.found || frame->cycles > r->frame.cycles))
		if (keep_found(&r->frame, frame, s->ev, slots_of(s->ev, frame->last + 1u)) != 0)
			return -1;
	(void)n_events;
	return 0;
}

int agb_worst_search(const struct agb_worst_params *p, struct agb_worst_result *r)
{
	struct search s;
	struct genome child = {0};
	struct agb_worst_found call, frame;
	struct agb_replay_result res;
	double t0 = agb_now_seconds();
	int rc = 0;
	uint32_t cap;

	memset(&s, 0, sizeof s);
	memset(r, 0, sizeof *r);
	s.p = p;
	s.max_ops = p->max_ops != 0u ? p->max_ops : DEFAULT_MAX_OPS;
	s.dom = p->arena == AGB_ARENA_BG_VRAM ? D_TILES
		: p->arena == AGB_ARENA_OBJ_VRAM ? D_OBJ
						 : D_HEAP;
	s.objectives = p->frame_ops != 0u ? 2 : 1;
	s.npool = POOL;
	s.rom_tiles = (p->cfg.core_flags >> 16 & 0xFFu) != 0u ? (p->cfg.core_flags >> 16 & 0xFFu) * 256u
							   : AGB_TILES_DEFAULT_ROM_TILES;
	agb_mt_seed(&s.mt, p->seed);
	cap = s.max_ops;
	s.ev = malloc((size_t)cap * sizeof *s.ev);
	s.live = malloc((size_t)cap * sizeof *s.live);
	s.live_id = malloc((size_t)cap * sizeof *s.live_id);
	s.free_slots = malloc((size_t)cap * sizeof *s.free_slots);
	s.refs = malloc((size_t)cap * sizeof *s.refs);
	s.cycles = malloc((size_t)cap * sizeof *s.cycles);
	s.called = malloc(cap);
	s.tmp = malloc((size_t)cap * sizeof *s.tmp);
	s.m = malloc(sizeof *s.m);
	if (s.ev == NULL || s.live == NULL || s.live_id == NULL || s.free_slots == NULL ||
	    s.refs == NULL || s.cycles == NULL || s.called == NULL || s.tmp == NULL || s.m == NULL ||
	    genome_alloc(&s, &child) != 0)
		goto oom;
	for (int o = 0; o < 2; o++)
		for (uint32_t i = 0; i < POOL; i++)
			if (genome_alloc(&s, &s.pool[o][i]) != 0)
				goto oom;
	agb_machine_init(s.m, AGB_WAITCNT_DEFAULT);

	/* First generation: random genomes of 8 .. max_ops/4 genes. */
	for (uint32_t i = 0; i < POOL; i++) {
		struct genome *gm = &s.pool[0][i];
		uint32_t len = 8u + rnd(&s, s.max_ops / 4u > 8u ? s.max_ops / 4u - 8u : 1u);
		for (uint32_t k = 0; k < len; k++)
			gm->g[k] = random_gene(&s, gm), gm->n = k + 1u;
		rc = evaluate(&s, gm, &call, &frame, &res);
		if (rc != 0)
			goto stopped;
		r->evals++;
		if (s.objectives == 2)
			genome_copy(&s.pool[1][i], gm);
		if (call.found && (!r->call.found || call.cycles > r->call.cycles)) {
			if (keep_found(&r->call, &call, s.ev, slots_of(s.ev, call.last + 1u)) != 0)
				goto oom;
			r->improvements++;
			r->first_found_eval = (uint32_t)r->evals;
		}
		if (frame.found && (!r->frame.found || frame.cycles > r->frame.cycles))
			if (keep_found(&r->frame, &frame, s.ev, slots_of(s.ev, frame.last + 1u)) != 0)
				goto oom;
	}
	while (budget_left(p, r->evals, t0)) {
		int obj = s.objectives == 2 ? (int)(r->evals & 1u) : 0;
		breed(&s, obj, &child);
		rc = evaluate(&s, &child, &call, &frame, &res);
		if (rc != 0)
			goto stopped;
		r->evals++;
		if (offer(&s, &child, &call, &frame, r, 0) != 0)
			goto oom;
	}
	r->seconds = agb_now_seconds() - t0;
	free(child.g);
	search_free(&s);
	return 0;
stopped:
	if (rc < 0)
		goto oom;
	r->status = res.status;
	r->bad_event = res.failed_event;
	r->why = res.why;
	r->seconds = agb_now_seconds() - t0;
	free(child.g);
	search_free(&s);
	return 1;
oom:
	r->status = -1;
	r->why = "out of memory";
	free(child.g);
	search_free(&s);
	return -1;
}

void agb_worst_release(struct agb_worst_result *r)
{
	free(r->call.events);
	free(r->frame.events);
	r->call.events = r->frame.events = NULL;
}

void agb_worst_trace(const struct agb_worst_params *p, const struct agb_worst_found *f,
		     struct agb_trace *out)
{
	memset(out, 0, sizeof *out);
	out->arena = p->arena;
	out->arena_bytes = p->pool_bytes;
	out->event_count = f->event_count;
	out->slots = f->slots;
	out->events = f->events;
}
