/* `slots` core: static slot classes (the manual baseline). See include/agb/slots.h. */
#include "agb/slots.h"

#define SLOT_BYTES(k) (1u << (AGB_SLOTS_MIN_LOG2 + (k)))
#define HEAD(s, k) ((s)->heads + (k) * 4u)

static void bit_put(agb_slots *s, uint32_t i, uint32_t v)
{
	uint32_t a = s->bitmap + (i >> 5) * 4u, w = AGB_LD32(s->m, a);
	w = v ? w | (1u << (i & 31u)) : w & ~(1u << (i & 31u));
	AGB_ST32(s->m, a, w);
}

static uint32_t bit_peek(agb_slots *s, uint32_t i)
{
	return (AGB_PEEK32(s->m, s->bitmap + (i >> 5) * 4u) >> (i & 31u)) & 1u;
}

int agb_slots_init(agb_slots *s, agb_machine *m, const struct agb_heap_config *cfg)
{
	uint32_t share = cfg->arena_bytes / AGB_SLOTS_CLASSES, at = cfg->arena_addr, total = 0;
	if ((cfg->arena_addr & 15u) != 0 || (cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (share < SLOT_BYTES(AGB_SLOTS_CLASSES - 1u))
		return AGB_HEAP_ARENA_TOO_SMALL;
	s->m = m;
	s->arena = cfg->arena_addr;
	s->arena_end = cfg->arena_addr + cfg->arena_bytes;
	s->max_align = cfg->arena_addr & (0u - cfg->arena_addr);
	/* Largest class first: each class then starts at a multiple of its slot size. */
	for (uint32_t k = AGB_SLOTS_CLASSES; k-- > 0;) {
		s->count[k] = share / SLOT_BYTES(k);
		s->base[k] = at;
		at += s->count[k] * SLOT_BYTES(k);
	}
	s->end = at;
	for (uint32_t k = 0; k < AGB_SLOTS_CLASSES; k++) {
		s->index[k] = total;
		total += s->count[k];
	}
	s->meta_bytes = AGB_SLOTS_CLASSES * 4u + ((total + 31u) / 32u) * 4u;
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < s->meta_bytes)
		return AGB_HEAP_META_TOO_SMALL;
	s->heads = cfg->meta_addr;
	s->bitmap = cfg->meta_addr + AGB_SLOTS_CLASSES * 4u;
	for (uint32_t a = 0; a < s->meta_bytes; a += 4u)
		AGB_ST32(m, cfg->meta_addr + a, 0u);
	/* Thread each class's list in address order (last slot pushed first). */
	for (uint32_t k = 0; k < AGB_SLOTS_CLASSES; k++) {
		uint32_t next = AGB_NULL;
		for (uint32_t i = s->count[k]; i-- > 0;) {
			uint32_t x = s->base[k] + i * SLOT_BYTES(k);
			AGB_ST32(m, x, next);
			next = x;
		}
		AGB_ST32(m, HEAD(s, k), next);
		s->free_count[k] = s->count[k];
	}
	return AGB_HEAP_OK;
}

uint32_t agb_slots_alloc(agb_slots *s, uint32_t size, uint32_t align, uint32_t *granted)
{
	uint32_t need = size > align ? size : align, k = 0, x;
	if (need > SLOT_BYTES(AGB_SLOTS_CLASSES - 1u) || align > s->max_align)
		return AGB_NULL;
	while (SLOT_BYTES(k) < need) {
		AGB_WORK(s->m, 1);
		k++;
	}
	x = AGB_LD32(s->m, HEAD(s, k));
	if (x == AGB_NULL)
		return AGB_NULL; /* the class is exhausted: a fixed plan does not borrow */
	AGB_ST32(s->m, HEAD(s, k), AGB_LD32(s->m, x));
	bit_put(s, s->index[k] + ((x - s->base[k]) >> (AGB_SLOTS_MIN_LOG2 + k)), 1u);
	s->free_count[k]--;
	if (granted != NULL)
		*granted = SLOT_BYTES(k);
	return x;
}

/* Class of a slot address: classes are contiguous, largest (lowest address) first. */
static uint32_t class_of(const agb_slots *s, uint32_t addr)
{
	uint32_t k = 0;
	while (k + 1u < AGB_SLOTS_CLASSES && addr < s->base[k]) {
		AGB_WORK(s->m, 1);
		k++;
	}
	return k;
}

#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

/* The normal build's abuse guard: 1 with *k = its class, *word = the bitmap word's address and
 * *cleared = its value with the slot's bit cleared when addr is a used slot, else 0 (outside
 * the classes, off its class's slot grid, or a free slot). The bitmap load is the one free
 * makes anyway. O(classes). */
static int used_slot(agb_slots *s, uint32_t addr, uint32_t *k, uint32_t *word, uint32_t *cleared)
{
	uint32_t i, bit, w;
	if (addr - s->arena >= s->end - s->arena)
		return 0;
	*k = class_of(s, addr);
	if (((addr - s->base[*k]) & (SLOT_BYTES(*k) - 1u)) != 0)
		return 0;
	i = s->index[*k] + ((addr - s->base[*k]) >> (AGB_SLOTS_MIN_LOG2 + *k));
	*word = s->bitmap + (i >> 5) * 4u;
	bit = 1u << (i & 31u);
	w = AGB_LD32(s->m, *word);
	*cleared = w & ~bit;
	return (w & bit) != 0;
}

void agb_slots_free(agb_slots *s, uint32_t addr)
{
	uint32_t k, word, cleared;
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("slots", "free", s, addr, 0u, );
#endif
	if (!used_slot(s, addr, &k, &word, &cleared))
		return; /* AGB_NULL, or not a used slot: refused untouched (agb/slots.h) */
	AGB_ST32(s->m, word, cleared);
	AGB_ST32(s->m, addr, AGB_LD32(s->m, HEAD(s, k)));
	AGB_ST32(s->m, HEAD(s, k), addr);
	s->free_count[k]++;
}

uint32_t agb_slots_realloc(agb_slots *s, uint32_t addr, uint32_t size, uint32_t *granted)
{
	uint32_t k, word, cleared, to;
	if (addr == AGB_NULL)
		return agb_slots_alloc(s, size, 1u, granted);
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("slots", "realloc", s, addr, 0u, AGB_NULL);
#endif
	if (!used_slot(s, addr, &k, &word, &cleared))
		return AGB_NULL; /* not a used slot: refused untouched */
	if (size <= SLOT_BYTES(k)) {
		if (granted != NULL)
			*granted = SLOT_BYTES(k);
		return addr;
	}
	to = agb_slots_alloc(s, size, 1u, granted);
	if (to == AGB_NULL)
		return AGB_NULL;
	agb_heap_copy_words(s->m, to, addr, SLOT_BYTES(k));
	agb_slots_free(s, addr);
	return to;
}

void agb_slots_stats(agb_slots *s, struct agb_heap_stats *out)
{
	*out = (struct agb_heap_stats){0};
	for (uint32_t k = 0; k < AGB_SLOTS_CLASSES; k++) {
		uint32_t n = s->free_count[k];
		out->free_bytes += n * SLOT_BYTES(k);
		out->free_runs += n;
		out->free_sq_sum += (uint64_t)n * SLOT_BYTES(k) * SLOT_BYTES(k);
		if (n != 0)
			out->largest_free = SLOT_BYTES(k);
	}
}

void agb_slots_walk(agb_slots *s, agb_walk_fn fn, void *ctx)
{
	for (uint32_t k = AGB_SLOTS_CLASSES; k-- > 0;)
		for (uint32_t i = 0; i < s->count[k]; i++)
			fn(ctx, s->base[k] + i * SLOT_BYTES(k), SLOT_BYTES(k),
			   bit_peek(s, s->index[k] + i) ? AGB_RUN_USED : AGB_RUN_FREE);
	if (s->end < s->arena_end)
		fn(ctx, s->end, s->arena_end - s->end, AGB_RUN_META);
}

#define FAIL(msg) AGB_CHECK_FAIL(why, msg)

int agb_slots_check(agb_slots *s, const char **why)
{
	for (uint32_t k = 0; k < AGB_SLOTS_CLASSES; k++) {
		uint32_t n = 0, clear = 0;
		for (uint32_t x = AGB_PEEK32(s->m, HEAD(s, k)); x != AGB_NULL;
		     x = AGB_PEEK32(s->m, x)) {
			uint32_t off = x - s->base[k];
			if (x < s->base[k] || off >= s->count[k] * SLOT_BYTES(k) ||
			    (off & (SLOT_BYTES(k) - 1u)) != 0)
				FAIL("slots: free-list entry is not a slot of its class");
			if (bit_peek(s, s->index[k] + (off >> (AGB_SLOTS_MIN_LOG2 + k))))
				FAIL("slots: a used slot is on the free list");
			if (++n > s->free_count[k])
				FAIL("slots: free list longer than the class's free count (cycle?)");
		}
		for (uint32_t i = 0; i < s->count[k]; i++)
			clear += !bit_peek(s, s->index[k] + i);
		if (n != s->free_count[k] || clear != n)
			FAIL("slots: free list, bitmap and free count disagree");
	}
	return 0;
}

uint32_t agb_slots_overhead_bytes(const agb_slots *s)
{
	return s->meta_bytes + (s->arena_end - s->end);
}

AGB_HEAP_CORE_ADAPTERS(slots)

const struct agb_heap_core agb_slots_core = {
	.name = "slots",
	.summary = "static slot classes 16..4096 B, equal byte share each, no borrowing (baseline)",
	/* EWRAM only: the rule needs 9 x 4096 bytes, more than OBJ VRAM has. */
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM),
	.unit = 16,
	.state_bytes = sizeof(agb_slots),
	AGB_HEAP_CORE_MEMBERS,
	.model = {.alloc_base = 30, .free_base = 30, .realloc_base = 40, .per_access = 32},
};
