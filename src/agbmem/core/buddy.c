/* `buddy` core: binary buddy with external metadata. See include/agb/buddy.h. */
#include "agb/buddy.h"

#define UNIT_LOG2 4u
/* Order-map value of a unit that starts no block: what lets free refuse an interior address,
 * or a block that merged into a bigger one, from the map alone (agb/buddy.h). */
#define NOT_START 15u
_Static_assert(AGB_BUDDY_ORDERS <= NOT_START, "NOT_START must not be an order");

static uint32_t order_get(agb_machine *m, const agb_buddy *b, uint32_t u)
{
	return ((uint32_t)AGB_LD16(m, b->ordermap + (u >> 2) * 2u) >> ((u & 3u) * 4u)) & 15u;
}

/* Nibbles are read-modify-written as halfwords: no byte stores, so the map may sit in VRAM. */
static void order_set(agb_machine *m, const agb_buddy *b, uint32_t u, uint32_t k)
{
	uint32_t a = b->ordermap + (u >> 2) * 2u, sh = (u & 3u) * 4u;
	AGB_ST16(m, a, (AGB_LD16(m, a) & ~(15u << sh)) | (k << sh));
}

static uint32_t free_get(agb_machine *m, const agb_buddy *b, uint32_t u)
{
	return (AGB_LD32(m, b->freemap + (u >> 5) * 4u) >> (u & 31u)) & 1u;
}

static void free_put(agb_machine *m, const agb_buddy *b, uint32_t u, uint32_t v)
{
	uint32_t a = b->freemap + (u >> 5) * 4u, w = AGB_LD32(m, a);
	w = v ? w | (1u << (u & 31u)) : w & ~(1u << (u & 31u));
	AGB_ST32(m, a, w);
}

/* Lists a free block of order k at offset off and marks it in both maps. */
static void push(agb_buddy *b, uint32_t off, uint32_t k)
{
	agb_machine *m = b->m;
	uint32_t x = b->arena + off, h = AGB_LD32(m, b->heads + k * 4u);
	AGB_ST32(m, x, h);
	AGB_ST32(m, x + 4u, AGB_NULL);
	if (h != AGB_NULL)
		AGB_ST32(m, h + 4u, x);
	AGB_ST32(m, b->heads + k * 4u, x);
	order_set(m, b, off >> UNIT_LOG2, k);
	free_put(m, b, off >> UNIT_LOG2, 1u);
	b->free_bytes += AGB_BUDDY_UNIT << k;
	b->free_runs++;
	b->free_sq += (uint64_t)(AGB_BUDDY_UNIT << k) * (AGB_BUDDY_UNIT << k);
}

/* Unlists the free block of order k at offset off and clears its free bit. */
static void unlink_block(agb_buddy *b, uint32_t off, uint32_t k)
{
	agb_machine *m = b->m;
	uint32_t x = b->arena + off, n = AGB_LD32(m, x), p = AGB_LD32(m, x + 4u);
	if (p != AGB_NULL)
		AGB_ST32(m, p, n);
	else
		AGB_ST32(m, b->heads + k * 4u, n);
	if (n != AGB_NULL)
		AGB_ST32(m, n + 4u, p);
	free_put(m, b, off >> UNIT_LOG2, 0u);
	b->free_bytes -= AGB_BUDDY_UNIT << k;
	b->free_runs--;
	b->free_sq -= (uint64_t)(AGB_BUDDY_UNIT << k) * (AGB_BUDDY_UNIT << k);
}

int agb_buddy_init(agb_buddy *b, agb_machine *m, const struct agb_heap_config *cfg)
{
	uint32_t map_bytes, bits_bytes, off;
	if ((cfg->arena_addr & (AGB_BUDDY_UNIT - 1u)) != 0 || (cfg->meta_addr & 3u) != 0)
		return AGB_HEAP_BAD_ALIGNMENT;
	if (cfg->arena_bytes < AGB_BUDDY_UNIT)
		return AGB_HEAP_ARENA_TOO_SMALL;
	if (cfg->arena_bytes > (AGB_BUDDY_UNIT << (AGB_BUDDY_ORDERS - 1u)))
		return AGB_HEAP_ARENA_TOO_LARGE;
	b->m = m;
	b->arena = cfg->arena_addr;
	b->units = cfg->arena_bytes >> UNIT_LOG2;
	b->bytes = b->units << UNIT_LOG2;
	b->tail = cfg->arena_bytes - b->bytes;
	map_bytes = ((b->units + 7u) / 8u) * 4u; /* 4 bits per unit, whole words */
	bits_bytes = ((b->units + 31u) / 32u) * 4u;
	b->meta_bytes = map_bytes + bits_bytes + AGB_BUDDY_ORDERS * 4u;
	if (cfg->meta_addr == AGB_NULL || cfg->meta_bytes < b->meta_bytes)
		return AGB_HEAP_META_TOO_SMALL;
	b->ordermap = cfg->meta_addr;
	b->freemap = b->ordermap + map_bytes;
	b->heads = b->freemap + bits_bytes;
	b->max_align = cfg->arena_addr & (0u - cfg->arena_addr);
	for (b->orders = 1; b->orders < AGB_BUDDY_ORDERS && (AGB_BUDDY_UNIT << b->orders) <= b->bytes;
	     b->orders++)
		;
	for (uint32_t a = 0; a < b->meta_bytes; a += 4u)
		AGB_ST32(m, cfg->meta_addr + a, a < map_bytes ? 0xFFFFFFFFu : 0u); /* NOT_START */
	b->free_bytes = b->free_runs = 0;
	b->free_sq = 0;
	/* Cover the pool with the largest aligned blocks that fit, left to right. */
	for (off = 0; off < b->bytes;) {
		uint32_t k = b->orders - 1u;
		/* Ends by k = 0: off and bytes are multiples of the unit. */
		/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
		while ((off & ((AGB_BUDDY_UNIT << k) - 1u)) != 0 || off + (AGB_BUDDY_UNIT << k) > b->bytes)
			k--;
		push(b, off, k);
		off += AGB_BUDDY_UNIT << k;
	}
	return AGB_HEAP_OK;
}

uint32_t agb_buddy_alloc(agb_buddy *b, uint32_t size, uint32_t align, uint32_t *granted)
{
	agb_machine *m = b->m;
	uint32_t need = size > align ? size : align, k = 0, j, x, off;
	if (need > b->bytes || align > b->max_align)
		return AGB_NULL;
	while ((AGB_BUDDY_UNIT << k) < need) {
		AGB_WORK(m, 1);
		k++;
	}
	for (j = k; j < b->orders; j++) { /* one counted load a step: no unit */
		if ((x = AGB_LD32(m, b->heads + j * 4u)) != AGB_NULL)
			break;
	}
	if (j >= b->orders)
		return AGB_NULL;
	off = x - b->arena;
	unlink_block(b, off, j);
	/* Split down to order k; each upper half goes back free. */
	while (j > k) {
		AGB_WORK(m, 1);
		j--;
		push(b, off + (AGB_BUDDY_UNIT << j), j);
	}
	order_set(m, b, off >> UNIT_LOG2, k);
	if (granted != NULL)
		*granted = AGB_BUDDY_UNIT << k;
	return x;
}

#ifdef AGB_HEAP_CHECKED
static void core_walk(void *st, agb_walk_fn fn, void *ctx);
#endif

/* The normal build's abuse guard: 1 with *k = its order when arena offset `off` starts a used
 * block, else 0 (off the unit grid, past the pool, not a block start - an interior address or
 * a block merged away - or a free block). One order-map and one bitmap load. O(1). */
static int used_start(agb_buddy *b, uint32_t off, uint32_t *k)
{
	if (off >= b->bytes || (off & (AGB_BUDDY_UNIT - 1u)) != 0)
		return 0;
	*k = order_get(b->m, b, off >> UNIT_LOG2);
	return *k < b->orders && !free_get(b->m, b, off >> UNIT_LOG2);
}

void agb_buddy_free(agb_buddy *b, uint32_t addr)
{
	agb_machine *m = b->m;
	uint32_t off, k;
	if (addr == AGB_NULL)
		return;
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("buddy", "free", b, addr, 0u, );
#endif
	off = addr - b->arena;
	if (!used_start(b, off, &k))
		return; /* not a used block: refused untouched (agb/buddy.h) */
	while (k + 1u < b->orders) {
		uint32_t bo = off ^ (AGB_BUDDY_UNIT << k);
		AGB_WORK(m, 1);
		if (bo + (AGB_BUDDY_UNIT << k) > b->bytes || !free_get(m, b, bo >> UNIT_LOG2) ||
		    order_get(m, b, bo >> UNIT_LOG2) != k)
			break;
		unlink_block(b, bo, k);
		/* The upper half's first unit is now inside the merged block. */
		order_set(m, b, (off | bo) >> UNIT_LOG2, NOT_START);
		off &= ~(AGB_BUDDY_UNIT << k);
		k++;
	}
	push(b, off, k);
}

uint32_t agb_buddy_realloc(agb_buddy *b, uint32_t addr, uint32_t size, uint32_t *granted)
{
	agb_machine *m = b->m;
	uint32_t off, k, kn = 0, to;
	if (addr == AGB_NULL)
		return agb_buddy_alloc(b, size, 1u, granted);
#ifdef AGB_HEAP_CHECKED
	AGB_HEAP_REFUSE_UNLESS_LIVE("buddy", "realloc", b, addr, 0u, AGB_NULL);
#endif
	off = addr - b->arena;
	if (size > b->bytes || !used_start(b, off, &k))
		return AGB_NULL;
	while ((AGB_BUDDY_UNIT << kn) < size) {
		AGB_WORK(m, 1);
		kn++;
	}
	if (kn <= k) {
		/* Shrink in place: give back upper halves. Each one's buddy is the kept lower part,
		 * which is used, so none can merge. */
		while (k > kn) {
			AGB_WORK(m, 1);
			k--;
			push(b, off + (AGB_BUDDY_UNIT << k), k);
		}
		order_set(m, b, off >> UNIT_LOG2, kn);
		if (granted != NULL)
			*granted = AGB_BUDDY_UNIT << kn;
		return addr;
	}
	to = agb_buddy_alloc(b, size, 1u, granted);
	if (to == AGB_NULL)
		return AGB_NULL;
	agb_heap_copy_words(m, to, addr, AGB_BUDDY_UNIT << k);
	agb_buddy_free(b, addr);
	return to;
}

void agb_buddy_stats(agb_buddy *b, struct agb_heap_stats *out)
{
	out->free_bytes = b->free_bytes;
	out->free_runs = b->free_runs;
	out->free_sq_sum = b->free_sq;
	out->largest_free = 0;
	for (uint32_t k = b->orders; k-- > 0;)
		if (AGB_PEEK32(b->m, b->heads + k * 4u) != AGB_NULL) {
			out->largest_free = AGB_BUDDY_UNIT << k;
			break;
		}
}

static uint32_t peek_order(agb_buddy *b, uint32_t u)
{
	return ((uint32_t)AGB_PEEK16(b->m, b->ordermap + (u >> 2) * 2u) >> ((u & 3u) * 4u)) & 15u;
}

static uint32_t peek_free(agb_buddy *b, uint32_t u)
{
	return (AGB_PEEK32(b->m, b->freemap + (u >> 5) * 4u) >> (u & 31u)) & 1u;
}

void agb_buddy_walk(agb_buddy *b, agb_walk_fn fn, void *ctx)
{
	for (uint32_t off = 0; off < b->bytes;) {
		uint32_t u = off >> UNIT_LOG2, s = AGB_BUDDY_UNIT << peek_order(b, u);
		if (s > b->bytes - off)
			s = b->bytes - off; /* corrupt map: check() says so; keep the walk bounded */
		fn(ctx, b->arena + off, s, peek_free(b, u) ? AGB_RUN_FREE : AGB_RUN_USED);
		off += s;
	}
	if (b->tail != 0)
		fn(ctx, b->arena + b->bytes, b->tail, AGB_RUN_META);
}

#define FAIL(msg) AGB_CHECK_FAIL(why, msg)

int agb_buddy_check(agb_buddy *b, const char **why)
{
	uint32_t per_order[AGB_BUDDY_ORDERS] = {0};
	uint32_t nfree = 0, bytes = 0, bits = 0;
	uint64_t sq = 0;
	for (uint32_t off = 0; off < b->bytes;) {
		uint32_t u = off >> UNIT_LOG2, k = peek_order(b, u), s = AGB_BUDDY_UNIT << k;
		if (k >= b->orders || (off & (s - 1u)) != 0 || s > b->bytes - off)
			FAIL("buddy: block order misaligned or past the pool");
		for (uint32_t i = u + 1u; i < u + (s >> UNIT_LOG2); i++)
			if (peek_order(b, i) != NOT_START)
				FAIL("buddy: a unit inside a block is marked as a block start");
		if (peek_free(b, u)) {
			uint32_t bo = off ^ s;
			if (k + 1u < b->orders && bo + s <= b->bytes && peek_free(b, bo >> UNIT_LOG2) &&
			    peek_order(b, bo >> UNIT_LOG2) == k)
				FAIL("buddy: two free buddies left unmerged");
			per_order[k]++;
			nfree++;
			bytes += s;
			sq += (uint64_t)s * s;
		}
		off += s;
	}
	for (uint32_t w = 0; w < (b->units + 31u) / 32u; w++) {
		uint32_t v = AGB_PEEK32(b->m, b->freemap + w * 4u);
		for (; v != 0; v &= v - 1u)
			bits++;
	}
	if (bits != nfree)
		FAIL("buddy: free bitmap marks something other than free block starts");
	for (uint32_t k = 0; k < AGB_BUDDY_ORDERS; k++) {
		uint32_t x = k < b->orders ? AGB_PEEK32(b->m, b->heads + k * 4u) : AGB_NULL, p = AGB_NULL;
		uint32_t n = 0;
		if (k >= b->orders && AGB_PEEK32(b->m, b->heads + k * 4u) != AGB_NULL)
			FAIL("buddy: list of an order the pool cannot have");
		for (; x != AGB_NULL; p = x, x = AGB_PEEK32(b->m, x)) {
			uint32_t off = x - b->arena;
			if (x < b->arena || off >= b->bytes || (off & (AGB_BUDDY_UNIT - 1u)) != 0)
				FAIL("buddy: free-list link outside the pool");
			if (!peek_free(b, off >> UNIT_LOG2) || peek_order(b, off >> UNIT_LOG2) != k)
				FAIL("buddy: list entry is not a free block of the list's order");
			if (AGB_PEEK32(b->m, x + 4u) != p)
				FAIL("buddy: free-list prev link broken");
			if (++n > per_order[k])
				FAIL("buddy: list longer than its free blocks (cycle or stale entry)");
		}
		if (n != per_order[k])
			FAIL("buddy: free block missing from its order's list");
	}
	if (nfree != b->free_runs || bytes != b->free_bytes || sq != b->free_sq)
		FAIL("buddy: observation counters disagree with the pool");
	return 0;
}

uint32_t agb_buddy_overhead_bytes(const agb_buddy *b)
{
	return b->meta_bytes + b->tail;
}

AGB_HEAP_CORE_ADAPTERS(buddy)

const struct agb_heap_core agb_buddy_core = {
	.name = "buddy",
	.summary = "binary buddy, 16 B..256 KiB power-of-two blocks, all metadata outside the arena",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM) | AGB_ARENA_BIT(AGB_ARENA_OBJ_VRAM),
	.unit = AGB_BUDDY_UNIT,
	.state_bytes = sizeof(agb_buddy),
	AGB_HEAP_CORE_MEMBERS,
	.model = {.alloc_base = 50, .free_base = 50, .realloc_base = 60, .per_access = 40},
};
