/* `stack2` core: double-ended linear allocator. See include/agb/stack2.h. */
#include "agb/stack2.h"

/* AGB_WORK (docs/design.md, "Cycle figures"), weighted: every data-dependent arm and loop step
 * declares the non-memory Thumb instructions it executes per pass, one unit per instruction
 * (scripts/profile-gba on traces/calib/linear-random.json, source lines from an -g build of the
 * same flags): alloc's low and high arms 14 each; realloc's in-place arm 8 and its move 25 (the
 * alloc it calls included; the copy is counted loads and stores: no unit); reset's marker
 * search 8 a marker, its compaction 18 a marker and 5 more for one kept. mark and side have no
 * branch or loop: their rows' base. */

#define MARK_ID(s, i) ((s)->marks + (i) * 8u)
#define MARK_AT(s, i) ((s)->marks + (i) * 8u + 4u) /* address | side (addresses are 4-aligned) */

int agb_stack2_init(agb_stack2 *s, agb_machine *m, const struct agb_heap_config *cfg)
{
	if ((cfg->arena_addr & 3u) != 0 || (cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	s->m = m;
	s->arena = cfg->arena_addr;
	s->arena_end = cfg->arena_addr + (cfg->arena_bytes & ~3u);
	if (cfg->meta_addr != AGB_NULL && cfg->meta_bytes >= AGB_STACK2_MARKS * 8u) {
		s->marks = cfg->meta_addr;
		s->start = s->arena;
	} else {
		if (cfg->arena_bytes <= AGB_STACK2_MARKS * 8u + 4u)
			return AGB_HEAP_ARENA_TOO_SMALL;
		s->marks = s->arena;
		s->start = s->arena + AGB_STACK2_MARKS * 8u;
	}
	s->low = s->floor_low = s->start;
	s->high = s->arena_end;
	s->side = 0;
	s->last_low = AGB_NULL;
	s->nmarks = 0;
	return AGB_HEAP_OK;
}

static uint32_t round_size(uint32_t size)
{
	uint32_t need = (size + 3u) & ~3u;
	if (need < size)
		return 0xFFFFFFFCu;
	return need == 0 ? 4u : need;
}

uint32_t agb_stack2_alloc(agb_stack2 *s, uint32_t size, uint32_t align, uint32_t *granted)
{
	uint32_t need = round_size(size), a;
	if (align < 4u)
		align = 4u;
	if (s->side == 0) {
		AGB_WORK(s->m, 14u);
		a = (s->low + align - 1u) & ~(align - 1u);
		if (a < s->low || a > s->high || need > s->high - a)
			return AGB_NULL;
		s->low = a + need;
		s->last_low = a;
	} else {
		AGB_WORK(s->m, 14u);
		if (need > s->high - s->low)
			return AGB_NULL;
		a = (s->high - need) & ~(align - 1u);
		if (a < s->low)
			return AGB_NULL;
		s->high = a;
	}
	if (granted != NULL)
		*granted = need;
	return a;
}

uint32_t agb_stack2_realloc(agb_stack2 *s, uint32_t addr, uint32_t size, uint32_t *granted)
{
	uint32_t need = round_size(size), to, n;
	if (addr == AGB_NULL)
		return agb_stack2_alloc(s, size, 4u, granted);
	if ((addr & 3u) != 0u ||
	    (addr - s->start >= s->low - s->start && addr - s->high >= s->arena_end - s->high))
		return AGB_NULL; /* not in a block of either side (agb/stack2.h) */
	if (addr == s->last_low && addr >= s->floor_low && addr < s->low) {
		AGB_WORK(s->m, 8u);
		if (need > s->high - addr)
			return AGB_NULL;
		s->low = addr + need;
		if (granted != NULL)
			*granted = need;
		return addr;
	}
	/* No headers, so the old size is unknown: copy up to the end of the block's side, which
	 * covers it; bytes beyond the old block are don't-care in the new one. The source is
	 * below `low` or at/above `high`, the destination in the gap: they never overlap. */
	AGB_WORK(s->m, 25u - 14u); /* the move; the alloc below declares its 14 */
	n = (addr < s->low ? s->low : s->arena_end) - addr;
	if (n > need)
		n = need;
	to = agb_stack2_alloc(s, size, 4u, granted);
	if (to == AGB_NULL)
		return AGB_NULL;
	agb_heap_copy_words(s->m, to, addr, n);
	return to;
}

int agb_stack2_side(agb_stack2 *s, uint32_t side)
{
	if (side > 1u)
		return AGB_VERB_BAD;
	s->side = side;
	return AGB_VERB_DONE;
}

int agb_stack2_mark(agb_stack2 *s, uint32_t marker)
{
	agb_machine *m = s->m;
	if (s->nmarks == AGB_STACK2_MARKS)
		return AGB_VERB_FAILED;
	AGB_ST32(m, MARK_ID(s, s->nmarks), marker);
	AGB_ST32(m, MARK_AT(s, s->nmarks), (s->side == 0 ? s->low : s->high) | s->side);
	s->nmarks++;
	if (s->side == 0)
		s->floor_low = s->low;
	return AGB_VERB_DONE;
}

int agb_stack2_reset(agb_stack2 *s, uint32_t marker)
{
	agb_machine *m = s->m;
	uint32_t i = s->nmarks, at, side, kept;
	while (i-- > 0) {
		AGB_WORK(m, 8u);
		if (AGB_LD32(m, MARK_ID(s, i)) == marker)
			break;
	}
	if (i >= s->nmarks)
		return AGB_VERB_BAD;
	at = AGB_LD32(m, MARK_AT(s, i));
	side = at & 1u;
	at &= ~3u;
	/* Forget the same side's newer markers; keep the other side's (compacting). */
	kept = i + 1u;
	for (uint32_t j = i + 1u; j < s->nmarks; j++) {
		uint32_t v = AGB_LD32(m, MARK_AT(s, j));
		AGB_WORK(m, 18u);
		if ((v & 1u) != side) {
			AGB_WORK(m, 5u);
			AGB_ST32(m, MARK_ID(s, kept), AGB_LD32(m, MARK_ID(s, j)));
			AGB_ST32(m, MARK_AT(s, kept), v);
			kept++;
		}
	}
	s->nmarks = kept;
	if (side == 0) {
		s->low = s->floor_low = at;
		s->last_low = AGB_NULL;
	} else {
		s->high = at;
	}
	return AGB_VERB_DONE;
}

void agb_stack2_stats(agb_stack2 *s, struct agb_heap_stats *out)
{
	agb_heap_stats_one_run(out, s->high - s->low);
}

void agb_stack2_walk(agb_stack2 *s, agb_walk_fn fn, void *ctx)
{
	if (s->start > s->arena)
		fn(ctx, s->arena, s->start - s->arena, AGB_RUN_META);
	if (s->low > s->start)
		fn(ctx, s->start, s->low - s->start, AGB_RUN_USED);
	if (s->high > s->low)
		fn(ctx, s->low, s->high - s->low, AGB_RUN_FREE);
	if (s->arena_end > s->high)
		fn(ctx, s->high, s->arena_end - s->high, AGB_RUN_USED);
}

#define FAIL(msg) AGB_CHECK_FAIL(why, msg)

int agb_stack2_check(agb_stack2 *s, const char **why)
{
	uint32_t lo = s->start, hi = s->arena_end, newest_low = s->start;
	if (!(s->start <= s->floor_low && s->floor_low <= s->low && s->low <= s->high &&
	      s->high <= s->arena_end))
		FAIL("stack2: pointers out of order (start <= floor <= low <= high <= end)");
	if (s->side > 1u || s->nmarks > AGB_STACK2_MARKS)
		FAIL("stack2: side or marker count out of range");
	if (s->last_low != AGB_NULL && (s->last_low < s->start || s->last_low >= s->low))
		FAIL("stack2: last low block outside the low side");
	for (uint32_t i = 0; i < s->nmarks; i++) {
		uint32_t v = AGB_PEEK32(s->m, MARK_AT(s, i)), a = v & ~3u;
		if ((v & 1u) == 0) {
			if (a < lo || a > s->low)
				FAIL("stack2: low markers not increasing below the low top");
			lo = newest_low = a;
		} else {
			if (a > hi || a < s->high)
				FAIL("stack2: high markers not decreasing above the high top");
			hi = a;
		}
	}
	if (newest_low != s->floor_low)
		FAIL("stack2: low floor is not the newest low marker");
	return 0;
}

uint32_t agb_stack2_overhead_bytes(const agb_stack2 *s)
{
	return AGB_STACK2_MARKS * 8u + (s->arena_end - s->arena) % 4u;
}

AGB_LINEAR_CORE_ADAPTERS(stack2)
AGB_CORE_ADAPTER(stack2, side)

const struct agb_heap_core agb_stack2_core = {
	.name = "stack2",
	.summary = "double-ended linear allocator: [\"side\",0|1] picks up/down, mark/reset per side",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM) | AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = 4,
	.state_bytes = sizeof(agb_stack2),
	AGB_LINEAR_CORE_MEMBERS,
	.side = core_side,
	.model = {.alloc_base = 20, .free_base = 10, .realloc_base = 30, .per_access = 32},
};
