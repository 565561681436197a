/* `palbanks` core: 16-colour banks with reference counts. See include/agb/palbanks.h. */
#include "agb/palbanks.h"

#include "pal_tables.h"

int agb_palbanks_init(agb_palbanks *p, agb_machine *m, const struct agb_heap_config *cfg)
{
	int status = pal_tables_place(cfg, AGB_PALBANKS_META_BYTES);
	if (status != AGB_HEAP_OK)
		return status;
	p->m = m;
	p->pal = cfg->arena_addr;
	p->meta = cfg->meta_addr;
	pal_zero(m, p->meta, AGB_PALBANKS_META_BYTES);
	return AGB_HEAP_OK;
}

/* The first bank of a resident palette with this key and colour count, or AGB_PAL_NONE. An
 * 8bpp palette can only start at bank 0, so only 4bpp loads scan every bank. The key is
 * compared first: most banks differ there, so a miss costs one load per bank. O(banks). */
static uint32_t find_resident(agb_palbanks *p, uint32_t side, uint32_t key, uint32_t colors)
{
	uint32_t last = colors > 16u ? 1u : AGB_PAL_BANKS;
	for (uint32_t b = 0; b < last; b++) {
		AGB_WORK(p->m, 1);
		if (AGB_LD32(p->m, PAL_ENTRY(p->meta, side, b)) == key &&
		    AGB_LD32(p->m, PAL_ENTRY(p->meta, side, b) + 4u) >> 16 == colors)
			return b;
	}
	return AGB_PAL_NONE;
}

uint32_t agb_palbanks_load(agb_palbanks *p, uint32_t side, uint32_t key, uint32_t src,
			   uint32_t colors, uint32_t *detail)
{
	uint32_t bank, n = AGB_PAL_BANKS_OF(colors);
	*detail = 0;
	if (side > 1u || colors == 0 || colors > 256u)
		return AGB_PAL_NONE;
	bank = find_resident(p, side, key, colors);
	if (bank != AGB_PAL_NONE) {
		uint32_t e = PAL_ENTRY(p->meta, side, bank) + 4u;
		AGB_ST32(p->m, e, AGB_LD32(p->m, e) + 1u);
		*detail = AGB_VERB_SHARED;
		return bank;
	}
	bank = pal_pick(p->m, AGB_LD32(p->m, PAL_MASK(p->meta, side)), n);
	if (bank == AGB_PAL_NONE)
		return AGB_PAL_NONE;
	pal_claim(p->m, p->meta, side, bank, n, key, colors);
	pal_copy(p->m, PAL_BANK_ADDR(p->pal, side, bank), src, colors);
	*detail = AGB_VERB_UPLOADED;
	return bank;
}

int agb_palbanks_free(agb_palbanks *p, uint32_t side, uint32_t bank, uint32_t *detail)
{
	return pal_release(p->m, p->meta, side, bank, detail);
}

uint32_t agb_palbanks_refs(agb_palbanks *p, uint32_t side, uint32_t bank)
{
	if (side > 1u || bank >= AGB_PAL_BANKS)
		return 0;
	return AGB_PEEK32(p->m, PAL_ENTRY(p->meta, side, bank) + 4u) & 0xFFFFu;
}

static const uint32_t no_extra[2] = {0, 0};

void agb_palbanks_stats(agb_palbanks *p, struct agb_heap_stats *out)
{
	pal_tables_stats(p->m, p->meta, no_extra, out);
}

void agb_palbanks_walk(agb_palbanks *p, agb_walk_fn fn, void *ctx)
{
	pal_tables_walk(p->m, p->pal, p->meta, no_extra, fn, ctx);
}

int agb_palbanks_check(agb_palbanks *p, const char **why)
{
	return pal_tables_check(p->m, p->meta, 1, 0xFFFFu, why);
}

uint32_t agb_palbanks_overhead_bytes(const agb_palbanks *p)
{
	(void)p;
	return AGB_PALBANKS_META_BYTES;
}

AGB_BASE_CORE_ADAPTERS(palbanks)
AGB_CORE_ADAPTER(palbanks, pal_load)
AGB_CORE_ADAPTER(palbanks, pal_free)

const struct agb_heap_core agb_palbanks_core = {
        .name = "palbanks",
        .summary = "palette RAM: 16-colour banks shared by reference count, 8bpp from bank 0",
        .arenas = AGB_ARENA_BIT(AGB_ARENA_PAL_RAM),
        .unit = AGB_PAL_BANK_BYTES,
        .state_bytes = sizeof(agb_palbanks),
        AGB_BASE_CORE_MEMBERS,
        .pal_load = core_pal_load,
        .pal_free = core_pal_free,
        .model = {.alloc_base = 40, .free_base = 30, .realloc_base = 0, .per_access = 32},
};
