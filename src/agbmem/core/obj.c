/* `obj`: the OBJ VRAM allocator of the seed article, one map byte per 32-byte block.
 *
 * The map holds UNUSED, USED (first block of an allocation) or CONTINUE (the rest of it). An
 * allocation is tried only at block indices that are multiples of its rounded size, so small
 * sprites do not land in the middle of a run that a bigger sprite could use, and a freed block
 * recombines with its free neighbours by construction: the map has no free list to merge.
 *
 * The map lives in the meta area the caller supplies (EWRAM by default), so every map byte the
 * core touches is a counted 8-bit access: this core is the straightforward reference that
 * `obj-fast` is measured and differential-tested against (see agb/obj.h for the rule). */
#include "agb/obj.h"

_Static_assert(sizeof(agb_obj) <= AGB_HEAP_STATE_MAX, "state too large");

#define MAP(st, b) ((st)->map + (b) - (st)->first)

/* AGB_WORK (docs/design.md, "Cycle figures"): one unit per size doubled and per candidate
 * tried. The loops over map bytes take none: each of their iterations is one counted access,
 * so a unit would only repeat the access count (and the fit could not tell a candidate's ~20
 * instructions from a byte's ~6). */

/* Smallest power of two >= n (n >= 1). A loop: ARMv4T has no CLZ and n is at most 1024.
 * *doublings receives the loop's iteration count (an op's work units). */
static uint32_t pow2_ceil(uint32_t n, uint32_t *doublings)
{
	uint32_t p = 1, k = 0;
	while (p < n) {
		p <<= 1;
		k++;
	}
	*doublings = k;
	return p;
}

int agb_obj_init(agb_obj *h, agb_machine *m, const struct agb_heap_config *cfg)
{
	agb_obj *st = h;
	uint32_t nblocks = cfg->arena_bytes / AGB_OBJ_BLOCK_BYTES;
	uint32_t first = (cfg->flags & AGB_HEAP_FLAG_OBJ_BITMAP_MODE) != 0
				 ? AGB_OBJ_BITMAP_FIRST_BLOCK
				 : 0u;
	if ((cfg->arena_addr & (AGB_OBJ_BLOCK_BYTES - 1u)) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (nblocks > AGB_OBJ_MAX_BLOCKS)
		return AGB_HEAP_ARENA_TOO_LARGE;
	if (nblocks <= first)
		return AGB_HEAP_ARENA_TOO_SMALL;
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < AGB_OBJ_META_BYTES(nblocks, first))
		return AGB_HEAP_META_TOO_SMALL;
	st->m = m;
	st->arena = cfg->arena_addr;
	st->map = cfg->meta_addr;
	st->first = first;
	st->nblocks = nblocks;
	for (uint32_t b = first; b < nblocks; b++)
		AGB_ST8(m, MAP(st, b), AGB_OBJ_UNUSED);
	return AGB_HEAP_OK;
}

/* Contract: size >= 1, align a power of two. Returns the first candidate (see agb/obj.h) whose
 * blocks are all UNUSED, or AGB_NULL; *granted = n * 32. Cost: one map byte read per block
 * examined; a candidate that hits a used block at j resumes at the next multiple of the step
 * past j (every candidate in between would contain j), so each block is read at most once. */
uint32_t agb_obj_alloc(agb_obj *h, uint32_t size, uint32_t align, uint32_t *granted)
{
	agb_obj *st = h;
	agb_machine *m = st->m;
	uint32_t n, step, b, doublings;
	*granted = 0;
	if (size == 0 || size > st->nblocks * AGB_OBJ_BLOCK_BYTES)
		return AGB_NULL;
	n = (size + AGB_OBJ_BLOCK_BYTES - 1u) / AGB_OBJ_BLOCK_BYTES;
	step = pow2_ceil(n, &doublings);
	AGB_WORK(m, doublings);
	if (align / AGB_OBJ_BLOCK_BYTES > step)
		step = align / AGB_OBJ_BLOCK_BYTES;
	b = (st->first + step - 1u) & ~(step - 1u);
	while (b + n <= st->nblocks) {
		uint32_t j = b;
		AGB_WORK(m, 1);
		while (j < b + n && AGB_LD8(m, MAP(st, j)) == AGB_OBJ_UNUSED)
			j++;
		if (j == b + n) {
			AGB_ST8(m, MAP(st, b), AGB_OBJ_USED);
			for (j = b + 1u; j < b + n; j++)
				AGB_ST8(m, MAP(st, j), AGB_OBJ_CONTINUE);
			*granted = n * AGB_OBJ_BLOCK_BYTES;
			return st->arena + b * AGB_OBJ_BLOCK_BYTES;
		}
		b = (j & ~(step - 1u)) + step;
	}
	return AGB_NULL;
}

#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

/* Contract: see agb/obj.h. An address that is not the first block of a live allocation (off
 * the 32-byte grid, outside the usable blocks, a map byte other than USED) is refused
 * untouched: one map byte read. Else marks the USED block and the CONTINUE run after it
 * UNUSED; neighbours need no merging. O(blocks of the allocation). */
void agb_obj_free(agb_obj *h, uint32_t addr)
{
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("obj", "free", h, addr, 0u, );
#endif
	agb_obj *st = h;
	agb_machine *m = st->m;
	uint32_t off = addr - st->arena, b = off / AGB_OBJ_BLOCK_BYTES;
	if ((off & (AGB_OBJ_BLOCK_BYTES - 1u)) != 0 || b - st->first >= st->nblocks - st->first ||
	    AGB_LD8(m, MAP(st, b)) != AGB_OBJ_USED)
		return;
	AGB_ST8(m, MAP(st, b), AGB_OBJ_UNUSED);
	for (b++; b < st->nblocks && AGB_LD8(m, MAP(st, b)) == AGB_OBJ_CONTINUE; b++)
		AGB_ST8(m, MAP(st, b), AGB_OBJ_UNUSED);
}

static void add_run(struct agb_heap_stats *out, uint32_t blocks)
{
	uint32_t bytes = blocks * AGB_OBJ_BLOCK_BYTES;
	if (blocks == 0)
		return;
	out->free_bytes += bytes;
	out->free_runs++;
	out->free_sq_sum += (uint64_t)bytes * bytes;
	if (bytes > out->largest_free)
		out->largest_free = bytes;
}

/* Contract: observation only (uncounted peeks). Free runs are maximal UNUSED stretches of the
 * usable blocks. O(blocks). */
void agb_obj_stats(agb_obj *h, struct agb_heap_stats *out)
{
	agb_obj *st = h;
	uint32_t run = 0;
	*out = (struct agb_heap_stats){0};
	for (uint32_t b = st->first; b < st->nblocks; b++) {
		if (AGB_PEEK8(st->m, MAP(st, b)) == AGB_OBJ_UNUSED) {
			run++;
		} else {
			add_run(out, run);
			run = 0;
		}
	}
	add_run(out, run);
}

/* Contract: observation only. In bitmap modes the lower 16 KiB (the frame buffer) is reported
 * as one META run; each allocation is one USED run, free stretches one FREE run. O(blocks). */
void agb_obj_walk(agb_obj *h, agb_walk_fn fn, void *ctx)
{
	agb_obj *st = h;
	uint32_t b = st->first;
	if (st->first != 0)
		fn(ctx, st->arena, st->first * AGB_OBJ_BLOCK_BYTES, AGB_RUN_META);
	while (b < st->nblocks) {
		uint32_t v = AGB_PEEK8(st->m, MAP(st, b)), e = b + 1u;
		if (v == AGB_OBJ_UNUSED) {
			while (e < st->nblocks && AGB_PEEK8(st->m, MAP(st, e)) == AGB_OBJ_UNUSED)
				e++;
		} else {
			while (e < st->nblocks && AGB_PEEK8(st->m, MAP(st, e)) == AGB_OBJ_CONTINUE)
				e++;
		}
		fn(ctx, st->arena + b * AGB_OBJ_BLOCK_BYTES, (e - b) * AGB_OBJ_BLOCK_BYTES,
		   v == AGB_OBJ_UNUSED ? AGB_RUN_FREE : AGB_RUN_USED);
		b = e;
	}
}

/* Contract: observation only. Checks that every map byte is one of the three values, that no
 * CONTINUE starts a run, and that each allocation of n blocks starts at a multiple of n rounded
 * to a power of two (the placement rule). O(blocks). */
int agb_obj_check(agb_obj *h, const char **why)
{
	agb_obj *st = h;
	uint32_t b = st->first;
	while (b < st->nblocks) {
		uint32_t v = AGB_PEEK8(st->m, MAP(st, b)), e = b + 1u;
		if (v == AGB_OBJ_UNUSED) {
			b++;
			continue;
		}
		if (v == AGB_OBJ_CONTINUE) {
			*why = "obj: CONTINUE block without a USED block before it";
			return 1;
		}
		if (v != AGB_OBJ_USED) {
			*why = "obj: map byte is not UNUSED, USED or CONTINUE";
			return 1;
		}
		while (e < st->nblocks && AGB_PEEK8(st->m, MAP(st, e)) == AGB_OBJ_CONTINUE)
			e++;
		uint32_t unused;
		if ((b & (pow2_ceil(e - b, &unused) - 1u)) != 0) {
			*why = "obj: allocation not at a multiple of its rounded size";
			return 1;
		}
		b = e;
	}
	return 0;
}

/* Contract: the map bytes (outside the arena). */
uint32_t agb_obj_overhead_bytes(agb_obj *h)
{
	const agb_obj *st = h;
	return st->nblocks - st->first;
}

AGB_BLOCK_CORE_ADAPTERS(obj)

/* Model: the scan loop is about six Thumb instructions per map byte (ldrb, cmp, branch, add,
 * cmp, branch) at ~2 cycles each from ROM (WAITCNT 4317h, prefetch on): 12 cycles per access
 * on top of the bus cycles. */
const struct agb_heap_core agb_obj_core = {
	.name = "obj",
	.summary = "OBJ VRAM: 32-byte blocks, USED/CONTINUE byte map, size-aligned first fit (seed)",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = AGB_OBJ_BLOCK_BYTES,
	.state_bytes = sizeof(agb_obj),
	AGB_BLOCK_CORE_MEMBERS,
	.model = {.alloc_base = 40, .free_base = 30, .realloc_base = 80, .per_access = 192},
};
