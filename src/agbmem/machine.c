/* Host side of the emulated GBA bus: the page table and the cost table (docs/design.md, "The machine and its bus model"). */
#include "agb/machine.h"

#ifndef AGB_TARGET_GBA

#include <string.h>

/* ROM wait states from WAITCNT bits 2-4 (first access) and bit 4 (second access), GBATEK. */
static const uint8_t rom_first_wait[4] = {4, 3, 2, 8};
static const uint8_t rom_second_wait[2] = {2, 1};

static void map_range(agb_machine *m, uint32_t base, uint32_t span, uint8_t *host, uint32_t mask,
		      enum agb_region region, const uint8_t cost[3])
{
	for (uint32_t a = base; a < base + span; a += 0x10000u) {
		struct agb_page *p = &m->page[(a >> 16) & (AGB_PAGE_COUNT - 1u)];
		/* Pages smaller than 64 KiB repeat (mirror) through the whole page. */
		p->host = host + ((a - base) & mask & ~0xFFFFu);
		p->mask = mask < 0xFFFFu ? mask : 0xFFFFu;
		p->region = (uint8_t)region;
		p->counts = m->counts[region];
		memcpy(p->cost, cost, sizeof p->cost);
	}
	for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
		m->region_cost[region][k] = cost[k % 3u];
}

static void map_rom(agb_machine *m, uint16_t waitcnt)
{
	/* Data reads of const tables are random accesses: charge N cycles. A 32-bit access on the
	 * 16-bit cartridge bus is one N and one S access. */
	uint8_t n16 = (uint8_t)(1u + rom_first_wait[(waitcnt >> 2) & 3u]);
	uint8_t s16 = (uint8_t)(1u + rom_second_wait[(waitcnt >> 4) & 1u]);
	const uint8_t cost[3] = {n16, n16, (uint8_t)(n16 + s16)};
	static const uint8_t zero_rom[0x10000u];
	for (uint32_t a = AGB_MEM_ROM; a < AGB_MEM_ROM + AGB_ROM_MAX_SIZE; a += 0x10000u) {
		struct agb_page *p = &m->page[(a >> 16) & (AGB_PAGE_COUNT - 1u)];
		uint32_t off = a - AGB_MEM_ROM;
		p->host = off < m->rom_size ? (uint8_t *)(uintptr_t)(m->rom + off) : (uint8_t *)(uintptr_t)zero_rom;
		p->mask = 0xFFFFu;
		p->region = AGB_REGION_ROM;
		p->counts = m->counts[AGB_REGION_ROM];
		memcpy(p->cost, cost, sizeof p->cost);
	}
	for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
		m->region_cost[AGB_REGION_ROM][k] = cost[k % 3u];
}

void agb_machine_init(agb_machine *m, uint16_t waitcnt)
{
	static const uint8_t cost_unmapped[3] = {1, 1, 1};
	static const uint8_t cost_ewram[3] = {3, 3, 6};
	static const uint8_t cost_iwram[3] = {1, 1, 1};
	static const uint8_t cost_vram[3] = {1, 1, 2};
	static const uint8_t cost_oam[3] = {1, 1, 1};
	/* Palette RAM: 16-bit bus, so a 32-bit access is two 16-bit accesses (one wait state). */
	static const uint8_t cost_pal[3] = {1, 1, 2};

	memset(m, 0, sizeof *m);
	m->waitcnt = waitcnt;
	map_range(m, 0, 0x10000000u, m->unmapped, 0xFFFFu, AGB_REGION_UNMAPPED, cost_unmapped);
	map_range(m, AGB_MEM_EWRAM, 0x01000000u, m->ewram, AGB_EWRAM_SIZE - 1u, AGB_REGION_EWRAM,
	          cost_ewram);
	map_range(m, AGB_MEM_IWRAM, 0x01000000u, m->iwram, AGB_IWRAM_SIZE - 1u, AGB_REGION_IWRAM,
	          cost_iwram);
	map_range(m, AGB_MEM_OAM, 0x01000000u, m->oam, AGB_OAM_SIZE - 1u, AGB_REGION_OAM, cost_oam);
	map_range(m, AGB_MEM_PAL, 0x01000000u, m->pal, AGB_PAL_SIZE - 1u, AGB_REGION_PAL, cost_pal);
	/* VRAM is 96 KiB mirrored in 128 KiB steps; the last 32 KiB of each step mirror OBJ VRAM. */
	for (uint32_t a = AGB_MEM_VRAM; a < AGB_MEM_VRAM + 0x01000000u; a += 0x10000u) {
		uint32_t off = (a - AGB_MEM_VRAM) & 0x1FFFFu;
		if (off >= AGB_VRAM_SIZE)
			off -= 0x8000u;
		map_range(m, a, 0x10000u, m->vram + off, 0xFFFFu,
		          off < AGB_VRAM_BG_SIZE ? AGB_REGION_VRAM_BG : AGB_REGION_VRAM_OBJ,
		          cost_vram);
		if (off >= AGB_VRAM_BG_SIZE)
			m->page[(a >> 16) & (AGB_PAGE_COUNT - 1u)].mask = AGB_VRAM_OBJ_SIZE - 1u;
	}
	map_rom(m, waitcnt);
}

void agb_machine_reset_counters(agb_machine *m)
{
	m->quirk_stores = 0;
	m->work = 0;
	memset(m->counts, 0, sizeof m->counts);
	memset(m->nest, 0, sizeof m->nest);
}

void agb_machine_map_rom(agb_machine *m, const uint8_t *image, uint32_t size)
{
	m->rom = image;
	m->rom_size = size;
	map_rom(m, m->waitcnt);
}

uint32_t agb_machine_cost(const agb_machine *m, uint32_t a, unsigned width_log2)
{
	return m->page[(a >> 16) & (AGB_PAGE_COUNT - 1u)].cost[width_log2 > 2 ? 2 : width_log2];
}

uint8_t *agb_machine_host(agb_machine *m, uint32_t a, uint32_t len)
{
	static const struct {
		uint32_t base, size;
	} canonical[] = {{AGB_MEM_EWRAM, AGB_EWRAM_SIZE},
	                 {AGB_MEM_IWRAM, AGB_IWRAM_SIZE},
	                 {AGB_MEM_VRAM, AGB_VRAM_SIZE},
	                 {AGB_MEM_OAM, AGB_OAM_SIZE},
	                 {AGB_MEM_PAL, AGB_PAL_SIZE}};
#ifdef AGB_PLAIN_MEMORY
	uint8_t *const storage[] = {
	        (uint8_t *)(uintptr_t)AGB_MEM_EWRAM, (uint8_t *)(uintptr_t)AGB_MEM_IWRAM,
	        (uint8_t *)(uintptr_t)AGB_MEM_VRAM, (uint8_t *)(uintptr_t)AGB_MEM_OAM,
	        (uint8_t *)(uintptr_t)AGB_MEM_PAL};
	(void)m;
#else
	uint8_t *const storage[] = {m->ewram, m->iwram, m->vram, m->oam, m->pal};
#endif
	for (unsigned i = 0; i < sizeof canonical / sizeof canonical[0]; i++) {
		uint32_t off = a - canonical[i].base;
		if (a >= canonical[i].base && off < canonical[i].size && len <= canonical[i].size - off)
			return storage[i] + off;
	}
	return NULL;
}

uint64_t agb_machine_counted_cycles(const agb_machine *m)
{
	uint64_t total = 0;
	for (unsigned r = 0; r < AGB_REGION_COUNT; r++)
		for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
			total += (uint64_t)m->counts[r][k] * m->region_cost[r][k];
	return total;
}

const char *agb_region_name(enum agb_region r)
{
	static const char *const names[AGB_REGION_COUNT] = {"ewram", "iwram", "vram_bg", "vram_obj",
							    "oam",   "rom",   "pal",
							    "unmapped"};
	return (unsigned)r < AGB_REGION_COUNT ? names[r] : "?";
}

#endif
