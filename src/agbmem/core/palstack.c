/* `palstack` core: block copies and the seed's palette stack. See include/agb/palstack.h. */
#include "agb/palstack.h"

#include "pal_tables.h"

#define STACK_HDR(p, side) ((p)->stacks + (side) * 8u)
#define STACK_TOP(p, side) ((p)->stacks + (side) * 8u + 4u)
#define BUFFER(p, side) ((p)->buffers + (side) * AGB_PALSTACK_BUFFER_BYTES)
#define FRAME_BYTES(n)     ((n)*AGB_PAL_BANK_BYTES + 4u)

int agb_palstack_init(agb_palstack *p, agb_machine *m, const struct agb_heap_config *cfg)
{
	int status = pal_tables_place(cfg, AGB_PALSTACK_META_BYTES);
	if (status != AGB_HEAP_OK)
		return status;
	p->m = m;
	p->pal = cfg->arena_addr;
	p->meta = cfg->meta_addr;
	p->stacks = cfg->meta_addr + PAL_TABLE_BYTES;
	p->buffers = p->stacks + 16u;
	/* The buffers need no clearing: only bytes below a side's top are ever read. */
	pal_zero(m, p->meta, PAL_TABLE_BYTES + 16u);
	return AGB_HEAP_OK;
}

uint32_t agb_palstack_load(agb_palstack *p, uint32_t side, uint32_t key, uint32_t src,
			   uint32_t colors, uint32_t *detail)
{
	uint32_t bank, busy, cover, n = AGB_PAL_BANKS_OF(colors);
	*detail = 0;
	if (side > 1u || colors == 0 || colors > 256u)
		return AGB_PAL_NONE;
	cover = AGB_LD32(p->m, STACK_HDR(p, side)) & 0xFFu;
	busy = AGB_LD32(p->m, PAL_MASK(p->meta, side)) | PAL_RUN_MASK(cover);
	bank = pal_pick(p->m, busy, n);
	if (bank == AGB_PAL_NONE)
		return AGB_PAL_NONE;
	pal_claim(p->m, p->meta, side, bank, n, key, colors);
	pal_copy(p->m, PAL_BANK_ADDR(p->pal, side, bank), src, colors);
	*detail = AGB_VERB_UPLOADED;
	return bank;
}

int agb_palstack_free(agb_palstack *p, uint32_t side, uint32_t bank, uint32_t *detail)
{
	return pal_release(p->m, p->meta, side, bank, detail);
}

/* Copies `words` words between palette RAM and the buffer (either way). O(words). */
static void copy_words(agb_machine *m, uint32_t dst, uint32_t src, uint32_t words)
{
	AGB_WORK(m, words);
	for (uint32_t i = 0; i < words; i++)
		AGB_ST32(m, dst + i * 4u, AGB_LD32(m, src + i * 4u));
}

int agb_palstack_push(agb_palstack *p, uint32_t side, uint32_t key, uint32_t src, uint32_t colors,
		      uint32_t *bytes)
{
	uint32_t hdr, cover, top, frame, n = AGB_PAL_BANKS_OF(colors);
	(void)key;
	*bytes = 0;
	if (side > 1u || colors == 0 || colors > 256u)
		return AGB_VERB_BAD;
	hdr = AGB_LD32(p->m, STACK_HDR(p, side));
	top = AGB_LD32(p->m, STACK_TOP(p, side));
	frame = FRAME_BYTES(n);
	if (top + frame > AGB_PALSTACK_BUFFER_BYTES)
		return AGB_VERB_FAILED;
	cover = hdr & 0xFFu;
	copy_words(p->m, BUFFER(p, side) + top, PAL_BANK_ADDR(p->pal, side, 0), n * 8u);
	AGB_ST32(p->m, BUFFER(p, side) + top + frame - 4u, n | cover << 8);
	pal_copy(p->m, PAL_BANK_ADDR(p->pal, side, 0), src, colors);
	AGB_ST32(p->m, STACK_HDR(p, side), (n > cover ? n : cover) | ((hdr >> 8) + 1u) << 8);
	AGB_ST32(p->m, STACK_TOP(p, side), top + frame);
	*bytes = frame;
	return AGB_VERB_DONE;
}

int agb_palstack_pop(agb_palstack *p, uint32_t side, uint32_t *bytes)
{
	uint32_t hdr, top, frame, n;
	*bytes = 0;
	if (side > 1u)
		return AGB_VERB_BAD;
	hdr = AGB_LD32(p->m, STACK_HDR(p, side));
	if ((hdr >> 8) == 0)
		return AGB_VERB_BAD;
	top = AGB_LD32(p->m, STACK_TOP(p, side));
	frame = AGB_LD32(p->m, BUFFER(p, side) + top - 4u);
	n = frame & 0xFFu;
	top -= FRAME_BYTES(n);
	copy_words(p->m, PAL_BANK_ADDR(p->pal, side, 0), BUFFER(p, side) + top, n * 8u);
	AGB_ST32(p->m, STACK_HDR(p, side), (frame >> 8 & 0xFFu) | ((hdr >> 8) - 1u) << 8);
	AGB_ST32(p->m, STACK_TOP(p, side), top);
	*bytes = FRAME_BYTES(n);
	return AGB_VERB_DONE;
}

uint32_t agb_palstack_depth(agb_palstack *p, uint32_t side)
{
	return side > 1u ? 0u : AGB_PEEK32(p->m, STACK_HDR(p, side)) >> 8;
}

uint32_t agb_palstack_buffer_used(agb_palstack *p, uint32_t side)
{
	return side > 1u ? 0u : AGB_PEEK32(p->m, STACK_TOP(p, side));
}

static void covered(agb_palstack *p, uint32_t extra[2])
{
	for (uint32_t side = 0; side < 2u; side++)
		extra[side] = PAL_RUN_MASK(AGB_PEEK32(p->m, STACK_HDR(p, side)) & 0xFFu);
}

void agb_palstack_stats(agb_palstack *p, struct agb_heap_stats *out)
{
	uint32_t extra[2];
	covered(p, extra);
	pal_tables_stats(p->m, p->meta, extra, out);
}

void agb_palstack_walk(agb_palstack *p, agb_walk_fn fn, void *ctx)
{
	uint32_t extra[2];
	covered(p, extra);
	pal_tables_walk(p->m, p->pal, p->meta, extra, fn, ctx);
}

/* One side's frames, newest first: each header's bank count and the extent below it must
 * rebuild the covered extent, and the frames must add up to the top at the given depth. */
static int check_stack(agb_palstack *p, uint32_t side, const char **why)
{
	uint32_t hdr = AGB_PEEK32(p->m, STACK_HDR(p, side));
	uint32_t top = AGB_PEEK32(p->m, STACK_TOP(p, side));
	uint32_t cover = hdr & 0xFFu, depth = hdr >> 8;
	if (cover > AGB_PAL_BANKS || top > AGB_PALSTACK_BUFFER_BYTES)
		return *why = "palette stack header out of range", 1;
	for (; depth > 0; depth--) {
		uint32_t frame, n, below;
		if (top < FRAME_BYTES(1))
			return *why = "palette stack frames do not fill the buffer top", 1;
		frame = AGB_PEEK32(p->m, BUFFER(p, side) + top - 4u);
		n = frame & 0xFFu;
		below = frame >> 8 & 0xFFu;
		if (n == 0 || n > AGB_PAL_BANKS || FRAME_BYTES(n) > top || below > AGB_PAL_BANKS ||
		    cover != (n > below ? n : below))
			return *why = "palette stack frame disagrees with the covered extent", 1;
		top -= FRAME_BYTES(n);
		cover = below;
	}
	if (top != 0 || cover != 0)
		return *why = "palette stack depth disagrees with its frames", 1;
	return 0;
}

int agb_palstack_check(agb_palstack *p, const char **why)
{
	if (pal_tables_check(p->m, p->meta, 0, 1u, why) != 0)
		return 1;
	for (uint32_t side = 0; side < 2u; side++)
		if (check_stack(p, side, why) != 0)
			return 1;
	return 0;
}

uint32_t agb_palstack_overhead_bytes(const agb_palstack *p)
{
	(void)p;
	return AGB_PALSTACK_META_BYTES;
}

AGB_BASE_CORE_ADAPTERS(palstack)
AGB_CORE_ADAPTER(palstack, pal_load)
AGB_CORE_ADAPTER(palstack, pal_free)
AGB_CORE_ADAPTER(palstack, pal_push)
AGB_CORE_ADAPTER(palstack, pal_pop)

const struct agb_heap_core agb_palstack_core = {
        .name = "palstack",
        .summary = "palette RAM: block copies, no sharing, and a palette stack saved to work RAM "
                   "(seed)",
        .arenas = AGB_ARENA_BIT(AGB_ARENA_PAL_RAM),
        .unit = AGB_PAL_BANK_BYTES,
        .state_bytes = sizeof(agb_palstack),
        AGB_BASE_CORE_MEMBERS,
        .pal_load = core_pal_load,
        .pal_free = core_pal_free,
        .pal_push = core_pal_push,
        .pal_pop = core_pal_pop,
        .model = {.alloc_base = 40, .free_base = 30, .realloc_base = 0, .per_access = 32},
};
