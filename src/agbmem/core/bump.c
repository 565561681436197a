/* `bump` core: linear allocator with markers. See include/agb/bump.h. */
#include "agb/bump.h"

#define MARK_ID(b, i) ((b)->marks + (i) * 8u)
#define MARK_ADDR(b, i) ((b)->marks + (i) * 8u + 4u)

int agb_bump_init(agb_bump *b, agb_machine *m, const struct agb_heap_config *cfg)
{
	if ((cfg->arena_addr & 3u) != 0 || (cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	b->m = m;
	b->arena = cfg->arena_addr;
	b->arena_end = cfg->arena_addr + cfg->arena_bytes;
	if (cfg->meta_addr != AGB_NULL && cfg->meta_bytes >= AGB_BUMP_MARKS * 8u) {
		b->marks = cfg->meta_addr;
		b->start = b->arena;
	} else {
		if (cfg->arena_bytes <= AGB_BUMP_MARKS * 8u)
			return AGB_HEAP_ARENA_TOO_SMALL;
		b->marks = b->arena;
		b->start = b->arena + AGB_BUMP_MARKS * 8u;
	}
	b->top = b->floor = b->start;
	b->last = AGB_NULL;
	b->nmarks = 0;
	return AGB_HEAP_OK;
}

uint32_t agb_bump_alloc(agb_bump *b, uint32_t size, uint32_t align, uint32_t *granted)
{
	uint32_t a, need = (size + 3u) & ~3u;
	if (need == 0 || need < size)
		need = size == 0 ? 4u : 0xFFFFFFFCu;
	if (align < 4u)
		align = 4u;
	a = (b->top + align - 1u) & ~(align - 1u);
	if (a < b->top || a > b->arena_end || need > b->arena_end - a)
		return AGB_NULL;
	b->top = a + need;
	b->last = a;
	if (granted != NULL)
		*granted = need;
	return a;
}

uint32_t agb_bump_realloc(agb_bump *b, uint32_t addr, uint32_t size, uint32_t *granted)
{
	uint32_t need = (size + 3u) & ~3u, to, n;
	if (addr == AGB_NULL)
		return agb_bump_alloc(b, size, 4u, granted);
	if ((addr & 3u) != 0u || addr - b->start >= b->top - b->start)
		return AGB_NULL; /* not in a block: nothing to copy from (agb/bump.h) */
	if (need == 0 || need < size) /* 0, or a size within 3 of 2^32 that wrapped: as alloc */
		need = size == 0 ? 4u : 0xFFFFFFFCu;
	if (addr == b->last && addr >= b->floor) {
		if (need > b->arena_end - addr)
			return AGB_NULL;
		b->top = addr + need;
		if (granted != NULL)
			*granted = need;
		return addr;
	}
	/* Without headers the old size is unknown; the block lies below top, so copying up to
	 * top (or the new size) preserves it - the extra bytes are don't-care in the new block. */
	n = b->top - addr < need ? b->top - addr : need;
	to = agb_bump_alloc(b, size, 4u, granted);
	if (to == AGB_NULL)
		return AGB_NULL;
	agb_heap_copy_words(b->m, to, addr, n);
	return to;
}

int agb_bump_mark(agb_bump *b, uint32_t marker)
{
	if (b->nmarks == AGB_BUMP_MARKS)
		return AGB_VERB_FAILED;
	AGB_ST32(b->m, MARK_ID(b, b->nmarks), marker);
	AGB_ST32(b->m, MARK_ADDR(b, b->nmarks), b->top);
	b->nmarks++;
	b->floor = b->top;
	return AGB_VERB_DONE;
}

int agb_bump_reset(agb_bump *b, uint32_t marker)
{
	for (uint32_t i = b->nmarks; i-- > 0;) {
		AGB_WORK(b->m, 1);
		if (AGB_LD32(b->m, MARK_ID(b, i)) == marker) {
			b->top = b->floor = AGB_LD32(b->m, MARK_ADDR(b, i));
			b->nmarks = i + 1u;
			b->last = AGB_NULL;
			return AGB_VERB_DONE;
		}
	}
	return AGB_VERB_BAD;
}

void agb_bump_stats(agb_bump *b, struct agb_heap_stats *out)
{
	agb_heap_stats_one_run(out, b->arena_end - b->top);
}

void agb_bump_walk(agb_bump *b, agb_walk_fn fn, void *ctx)
{
	if (b->start > b->arena)
		fn(ctx, b->arena, b->start - b->arena, AGB_RUN_META);
	if (b->top > b->start)
		fn(ctx, b->start, b->top - b->start, AGB_RUN_USED);
	if (b->arena_end > b->top)
		fn(ctx, b->top, b->arena_end - b->top, AGB_RUN_FREE);
}

int agb_bump_check(agb_bump *b, const char **why)
{
	uint32_t prev = b->start;
	const char *msg = NULL;
	if (!(b->start <= b->floor && b->floor <= b->top && b->top <= b->arena_end))
		msg = "bump: pointers out of order (start <= floor <= top <= end)";
	else if (b->nmarks > AGB_BUMP_MARKS)
		msg = "bump: marker count beyond the table";
	else if (b->last != AGB_NULL && (b->last < b->start || b->last >= b->top))
		msg = "bump: last block outside the used part";
	for (uint32_t i = 0; msg == NULL && i < b->nmarks; i++) {
		uint32_t a = AGB_PEEK32(b->m, MARK_ADDR(b, i));
		if (a < prev || a > b->top)
			msg = "bump: markers not non-decreasing below top";
		prev = a;
	}
	if (msg == NULL && b->nmarks != 0 && prev != b->floor)
		msg = "bump: floor is not the newest marker";
	if (msg != NULL && why != NULL)
		*why = msg;
	return msg != NULL;
}

uint32_t agb_bump_overhead_bytes(const agb_bump *b)
{
	(void)b;
	return AGB_BUMP_MARKS * 8u;
}

AGB_LINEAR_CORE_ADAPTERS(bump)

const struct agb_heap_core agb_bump_core = {
	.name = "bump",
	.summary = "linear allocator with mark/reset (no single free), from the seed",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM) | AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = 4,
	.state_bytes = sizeof(agb_bump),
	AGB_LINEAR_CORE_MEMBERS,
	.model = {.alloc_base = 15, .free_base = 10, .realloc_base = 25, .per_access = 32},
};
