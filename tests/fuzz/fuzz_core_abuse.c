/* Fuzz target: the normal build's abuse guards (agb/heap.h, "Abuse"). Byte 0 picks a core that
 * refuses abuse in every build; the rest is decoded into calls straight on the core table:
 * allocs, frees and reallocs of live blocks, and frees and reallocs of addresses that are not
 * live blocks. After every call the core's check() must pass and every live block must keep the
 * canary words the fuzzer wrote at its ends; a refused call must leave the free bytes as they
 * were and a refused realloc return AGB_NULL. Anything else aborts.
 *
 * What each core promises decides what it is handed (the headers say it): the cores whose map
 * lives outside the blocks (buddy, slots, obj, obj-fast, oam), `tree` (whose map keeps every
 * inner entry clear) and the boundary-tag cores (tlsf, firstfit: their starts bitmap) get any
 * address at all - interior ones, freed ones, random words. `bestfit` refuses every address
 * only in the checking build (test_checked, test_abuse_checked). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/heap.h"
#include "agb/machine.h"
#include "agb/regions.h"

#define MAX_LIVE 32u
#define MAX_FREED 32u
#define CANARY 0xA5C3A5C3u

struct blk {
	uint32_t addr, bytes;
};

static const char *const cores[] = {"buddy", "slots",  "obj",  "obj-fast",
				    "oam",   "tree",   "tlsf", "firstfit"};
#define COMPLETE 8u /* cores[0..7] refuse every address that is not a live block */

struct run {
	const struct agb_heap_core *c;
	agb_machine *m;
	uint64_t state[AGB_HEAP_STATE_MAX / 8];
	struct agb_heap_config cfg;
	int complete;
	struct blk live[MAX_LIVE], freed[MAX_FREED];
	uint32_t nlive, nfreed;
	const uint8_t *p, *end;
};

static uint32_t take(struct run *r, unsigned bytes)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < bytes && r->p < r->end; i++)
		v |= (uint32_t)*r->p++ << (8 * i);
	return v;
}

static void die(const struct run *r, const char *what, uint32_t addr)
{
	fprintf(stderr, "%s: %s (0x%08x)\n", r->c->name, what, (unsigned)addr);
	abort();
}

static uint32_t free_bytes(const struct run *r)
{
	struct agb_heap_stats s;
	r->c->stats((void *)r->state, &s);
	return s.free_bytes;
}

static void put(const struct run *r, uint32_t addr, uint32_t v)
{
	memcpy(agb_machine_host(r->m, addr, 4), &v, 4);
}

static uint32_t get(const struct run *r, uint32_t addr)
{
	return AGB_PEEK32(r->m, addr);
}

/* A live block's canaries: its first and last word. */
static void mark(const struct run *r, const struct blk *b)
{
	put(r, b->addr, CANARY);
	put(r, b->addr + ((b->bytes - 4u) & ~3u), CANARY ^ b->addr);
}

static void sound(const struct run *r, const char *after, uint32_t addr)
{
	const char *why = "?";
	if (r->c->check((void *)r->state, &why) != 0) {
		fprintf(stderr, "%s after %s (0x%08x): %s\n", r->c->name, after, (unsigned)addr, why);
		abort();
	}
	for (uint32_t i = 0; i < r->nlive; i++) {
		const struct blk *b = &r->live[i];
		if (get(r, b->addr) != CANARY ||
		    get(r, b->addr + ((b->bytes - 4u) & ~3u)) != (CANARY ^ b->addr))
			die(r, "a live block's canary changed", b->addr);
	}
}

static int overlaps(const struct blk *a, uint32_t addr, uint32_t bytes)
{
	return addr < a->addr + a->bytes && a->addr < addr + bytes;
}

/* A block just handed out: inside the pool, clear of every live block; freed blocks it
 * overlaps are no longer free memory (their double free is an interior address now). */
static void handed_out(struct run *r, uint32_t addr, uint32_t bytes)
{
	if (addr < r->cfg.arena_addr || bytes > r->cfg.arena_addr + r->cfg.arena_bytes - addr)
		die(r, "a block outside the pool", addr);
	for (uint32_t i = 0; i < r->nlive; i++)
		if (overlaps(&r->live[i], addr, bytes))
			die(r, "a block overlapping a live one", addr);
	for (uint32_t i = 0; i < r->nfreed;)
		if (overlaps(&r->freed[i], addr, bytes))
			r->freed[i] = r->freed[--r->nfreed];
		else
			i++;
}

static void do_alloc(struct run *r, uint8_t a)
{
	uint32_t size = 1u + take(r, 2) % (r->cfg.arena_bytes / 8u), align = 1u << (a % 7u), g = 0;
	uint32_t addr;
	if (r->nlive == MAX_LIVE)
		return;
	addr = r->c->alloc(r->state, size, align, &g);
	if (addr == AGB_NULL)
		return;
	if (g < size || (addr & (align - 1u)) != 0)
		die(r, "a block smaller or less aligned than asked", addr);
	handed_out(r, addr, g);
	r->live[r->nlive] = (struct blk){addr, g};
	mark(r, &r->live[r->nlive++]);
}

static void do_free(struct run *r, uint8_t a)
{
	struct blk b;
	if (r->nlive == 0)
		return;
	uint32_t i = a % r->nlive;
	b = r->live[i];
	r->live[i] = r->live[--r->nlive]; /* the index first: the two were unsequenced */
	r->c->free(r->state, b.addr);
	if (r->nfreed < MAX_FREED)
		r->freed[r->nfreed++] = b;
}

static void do_realloc(struct run *r, uint8_t a)
{
	uint32_t k, size = 1u + take(r, 2) % (r->cfg.arena_bytes / 8u), g = 0, to;
	struct blk old;
	if (r->nlive == 0 || r->c->realloc == NULL)
		return;
	k = a % r->nlive;
	old = r->live[k];
	r->live[k] = r->live[--r->nlive]; /* out of the overlap test while it moves */
	to = r->c->realloc(r->state, old.addr, size, &g);
	if (to == AGB_NULL) {
		r->live[r->nlive++] = old;
		return;
	}
	if (g < size || get(r, to) != CANARY)
		die(r, "a realloc lost the block's start", to);
	handed_out(r, to, g);
	r->live[r->nlive] = (struct blk){to, g};
	mark(r, &r->live[r->nlive++]);
}

/* An address that is not a live block, of a kind this core refuses by contract. */
static uint32_t abusive(struct run *r, uint8_t a)
{
	uint32_t unit = r->c->unit, end = r->cfg.arena_addr + r->cfg.arena_bytes, v = take(r, 4);
	const struct blk *l = r->nlive ? &r->live[v % r->nlive] : NULL;
	switch (a % (r->complete ? 7u : 4u)) {
	case 0:
		return end + (v % 64u) * 4u; /* past the pool */
	case 1:
		return r->cfg.arena_addr - unit * (1u + v % 4u); /* below it */
	case 2:
		return l != NULL ? l->addr + 1u + v % (unit - 1u) : end; /* off the grid */
	case 3: /* a double free (the fuzzer keeps only blocks whose memory is still free) */
		return r->nfreed ? r->freed[v % r->nfreed].addr : AGB_NULL;
	case 4: /* an interior address of a live block */
		return l != NULL && l->bytes > unit
			       ? l->addr + unit * (1u + v % ((l->bytes - 1u) / unit))
			       : 0x08000000u;
	case 5: /* anywhere inside a freed block */
		return r->nfreed ? r->freed[v % r->nfreed].addr + (v >> 8) % r->freed[v % r->nfreed].bytes
				 : v;
	default:
		return v; /* any word */
	}
}

static void do_abuse(struct run *r, uint8_t a, int realloc)
{
	uint32_t addr = abusive(r, a), before = free_bytes(r), g = 0;
	for (uint32_t i = 0; i < r->nlive; i++)
		if (r->live[i].addr == addr)
			return; /* the word happened to be a live block */
	if (addr == AGB_NULL)
		return; /* free(AGB_NULL) is a no-op and realloc(AGB_NULL) an alloc: not abuse */
	if (realloc && r->c->realloc != NULL) {
		if (r->c->realloc(r->state, addr, 1u + a, &g) != AGB_NULL)
			die(r, "a realloc of a non-block was served", addr);
	} else {
		r->c->free(r->state, addr);
	}
	if (free_bytes(r) != before)
		die(r, "a refused call changed the free bytes", addr);
	sound(r, realloc ? "an abusive realloc" : "an abusive free", addr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run r;
	static agb_machine *m;
	uint32_t pick;
	if (size < 2)
		return 0;
	if (m == NULL && (m = malloc(sizeof *m)) == NULL)
		abort();
	memset(&r, 0, sizeof r);
	pick = data[0] % (sizeof cores / sizeof cores[0]);
	r.c = agb_heap_core_find(cores[pick]);
	if (r.c == NULL)
		abort();
	r.complete = pick < COMPLETE;
	r.m = m;
	r.p = data + 1;
	r.end = data + size;
	if ((r.c->arenas & AGB_ARENA_BIT(AGB_ARENA_EWRAM)) != 0)
		r.cfg = (struct agb_heap_config){AGB_MEM_EWRAM, 65536u, AGB_MEM_IWRAM, 0x4000u, 0};
	else
		r.cfg = (struct agb_heap_config){AGB_MEM_VRAM_OBJ, 32768u, AGB_MEM_IWRAM, 0x4000u,
		                                 0};
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	if (r.c->init(r.state, m, &r.cfg) != AGB_HEAP_OK)
		abort();
	while (r.p < r.end) {
		uint8_t op = (uint8_t)take(&r, 1), a = (uint8_t)take(&r, 1);
		switch (op % 6u) {
		case 0:
		case 1:
			do_alloc(&r, a);
			break;
		case 2:
			do_free(&r, a);
			break;
		case 3:
			do_realloc(&r, a);
			break;
		default:
			do_abuse(&r, a, op % 6u == 5u);
			break;
		}
		sound(&r, "a call", 0);
	}
	return 0;
}
