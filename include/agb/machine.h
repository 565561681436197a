/* The emulated GBA bus that every allocator core touches memory through.
 *
 * Cores address memory by 32-bit GBA address and never dereference host pointers. On the GBA
 * (AGB_TARGET_GBA) the access macros are plain volatile loads and stores. On the host they go
 * through an agb_machine: each access is counted by region and width, charged its wait-state
 * cost, and the hardware quirks are applied (an 8-bit store to OBJ VRAM or OAM is dropped, to BG
 * VRAM or palette RAM it writes the byte to both halves of the halfword), so a core that byte-writes VRAM
 * misbehaves here exactly as it would on hardware.
 *
 * Freestanding: only <stdint.h> and <string.h> (memcpy, which compilers inline). */
#ifndef AGB_MACHINE_H
#define AGB_MACHINE_H

#include <stdint.h>
#ifndef AGB_TARGET_GBA
#include <string.h> /* the host bus: memcpy */
#endif

#include "agb/regions.h"

#ifdef __cplusplus
extern "C" {
#endif

enum agb_region {
	AGB_REGION_EWRAM,
	AGB_REGION_IWRAM,
	AGB_REGION_VRAM_BG,
	AGB_REGION_VRAM_OBJ,
	AGB_REGION_OAM,
	AGB_REGION_ROM,
	AGB_REGION_PAL, /* palette RAM: 16-bit bus, byte stores widened like BG VRAM */
	AGB_REGION_UNMAPPED, /* any access here is a core bug; counted, reads 0 */
	AGB_REGION_COUNT
};

enum agb_access {
	AGB_LOAD8,
	AGB_LOAD16,
	AGB_LOAD32,
	AGB_STORE8,
	AGB_STORE16,
	AGB_STORE32,
	AGB_ACCESS_COUNT
};

#define AGB_NEST_ALLOC 0u
#define AGB_NEST_FREE 1u
#define AGB_NEST_FIELDS 6u /* calls, bus, accesses, stores, rom_reads, work */

/* The cycle model's counted inputs (host only; agb_machine_inputs): bus cycles, accesses,
 * stores, ROM loads and declared work units. */
struct agb_inputs {
	uint32_t bus, accesses, stores, rom_reads, work;
};

#ifdef AGB_TARGET_GBA

typedef struct agb_machine agb_machine; /* never defined on the GBA: the bus is the machine */

#else /* host */

/* One 64 KiB page of the GBA address space as the machine maps it. */
struct agb_page {
	uint8_t *host;       /* host storage for this page (offset already applied) */
	uint32_t *counts;    /* the machine's counters row of this page's region */
	uint32_t mask;       /* offset mask within the page: region mirroring */
	uint8_t region;      /* enum agb_region */
	uint8_t cost[3];     /* cycles for an 8/16/32-bit access */
};

#define AGB_PAGE_COUNT 4096u /* 0x00000000..0x0FFFFFFF in 64 KiB pages */

typedef struct agb_machine {
	/* Accesses since the last agb_machine_reset_counters, by region and kind: the only thing an
	 * access updates (one increment), totals are derived. Wrap-around is fine for deltas. */
	uint32_t counts[AGB_REGION_COUNT][AGB_ACCESS_COUNT];
	/* Cycles of one access of each kind per region: laid out like counts so totals are one
	 * flat dot product. */
	uint32_t region_cost[AGB_REGION_COUNT][AGB_ACCESS_COUNT];
	/* 8-bit stores the hardware ignores or widens: a core doing this has a bug. */
	uint32_t quirk_stores;
	/* Units of instruction work a core declared through AGB_WORK (nodes visited, rotations,
	 * map words decoded...): a cycle model input, not a bus access; it changes no bus figure.
	 * Wrap-around is fine for deltas. */
	uint32_t work;
	/* The counted inputs of the core calls a layer made (the resource cache's loads and
	 * evictions, src/agbmem/cache.c) since the replay last zeroed them, per kind (AGB_NEST_ALLOC,
	 * AGB_NEST_FREE): calls, bus cycles, accesses, stores, ROM loads, work units. The cycle model
	 * prices them with the core's own alloc and free rows (agb_cycle_model_eval_op). */
	uint32_t nest[2][AGB_NEST_FIELDS];

	struct agb_page page[AGB_PAGE_COUNT];

	/* Backing storage, at the GBA's sizes. */
	uint8_t ewram[AGB_EWRAM_SIZE];
	uint8_t iwram[AGB_IWRAM_SIZE];
	uint8_t vram[AGB_VRAM_SIZE];
	uint8_t oam[AGB_OAM_SIZE];
	uint8_t pal[AGB_PAL_SIZE];
	uint8_t unmapped[0x10000u];
	const uint8_t *rom;
	uint32_t rom_size;
	uint16_t waitcnt;
} agb_machine;

/* ROM wait states as set through WAITCNT (0x04000204). 0x4317 is what games set. */
#define AGB_WAITCNT_DEFAULT 0x4317u

/* Initialises the machine: all RAM zeroed, ROM empty, WAITCNT as given, counters at 0.
 * The struct is large (about 700 KiB): allocate it statically or on the heap. O(size). */
void agb_machine_init(agb_machine *m, uint16_t waitcnt);

/* Sets counters and cycle totals to 0 without touching memory. O(1). */
void agb_machine_reset_counters(agb_machine *m);

/* Maps a read-only ROM image at 0x08000000 (mirrors included). Writes to ROM are counted and
 * dropped. The image must outlive the machine's use of it. */
void agb_machine_map_rom(agb_machine *m, const uint8_t *image, uint32_t size);

/* Cycles of one access of the given width (0: 8-bit, 1: 16-bit, 2: 32-bit) to address a, non
 * sequential. Pure lookup. */
uint32_t agb_machine_cost(const agb_machine *m, uint32_t a, unsigned width_log2);

/* Host pointer to `len` bytes at GBA address a, or NULL unless the range lies inside one RAM
 * region at its canonical (unmirrored) address. For observers (canaries, viewer), never for cores: accesses are not counted. */
uint8_t *agb_machine_host(agb_machine *m, uint32_t a, uint32_t len);

/* Bus cycles of every counted access (64-bit: never wraps in practice). O(regions). */
uint64_t agb_machine_counted_cycles(const agb_machine *m);

/* Accesses and bus cycles so far, modulo 2^32: take differences around an op. O(regions). */
static inline void agb_machine_totals(const agb_machine *m, uint32_t *bus_cycles,
				      uint32_t *accesses)
{
	const uint32_t *c = &m->counts[0][0], *w = &m->region_cost[0][0];
	uint32_t bus = 0, n = 0;
	for (unsigned i = 0; i < AGB_REGION_COUNT * AGB_ACCESS_COUNT; i++) {
		n += c[i];
		bus += c[i] * w[i];
	}
	*bus_cycles = bus;
	*accesses = n;
}

static inline uint32_t agb_machine_accesses(const agb_machine *m)
{
	uint32_t bus, n;
	agb_machine_totals(m, &bus, &n);
	return n;
}

static inline uint32_t agb_machine_bus_cycles(const agb_machine *m)
{
	uint32_t bus, n;
	agb_machine_totals(m, &bus, &n);
	return bus;
}

/* The cycle model's counted inputs so far (struct agb_inputs), modulo 2^32: take differences
 * around an op or a call. O(regions). */
static inline struct agb_inputs agb_machine_inputs(const agb_machine *m)
{
	struct agb_inputs in = {0, 0, 0, 0, m->work};
	agb_machine_totals(m, &in.bus, &in.accesses);
	for (unsigned r = 0; r < AGB_REGION_COUNT; r++)
		in.stores += m->counts[r][AGB_STORE8] + m->counts[r][AGB_STORE16] +
			     m->counts[r][AGB_STORE32];
	in.rom_reads = m->counts[AGB_REGION_ROM][AGB_LOAD8] + m->counts[AGB_REGION_ROM][AGB_LOAD16] +
		       m->counts[AGB_REGION_ROM][AGB_LOAD32];
	return in;
}

const char *agb_region_name(enum agb_region r);

static inline struct agb_page *agb__page(agb_machine *m, uint32_t a)
{
	return &m->page[(a >> 16) & (AGB_PAGE_COUNT - 1u)];
}

static inline void agb__count(agb_machine *m, const struct agb_page *p, enum agb_access kind,
			      unsigned width_log2)
{
	(void)m;
	(void)width_log2;
	p->counts[kind]++;
}

static inline uint8_t agb_ld8(agb_machine *m, uint32_t a)
{
	struct agb_page *p = agb__page(m, a);
	agb__count(m, p, AGB_LOAD8, 0);
	return p->host[a & p->mask];
}

static inline uint16_t agb_ld16(agb_machine *m, uint32_t a)
{
	struct agb_page *p = agb__page(m, a);
	uint16_t v;
	agb__count(m, p, AGB_LOAD16, 1);
	__builtin_memcpy(&v, p->host + (a & p->mask & ~1u), sizeof v);
	return v;
}

static inline uint32_t agb_ld32(agb_machine *m, uint32_t a)
{
	struct agb_page *p = agb__page(m, a);
	uint32_t v;
	agb__count(m, p, AGB_LOAD32, 2);
	__builtin_memcpy(&v, p->host + (a & p->mask & ~3u), sizeof v);
	return v;
}

/* Stores to ROM and the unmapped page are dropped by the page's mask pointing at scratch. */
static inline void agb_st8(agb_machine *m, uint32_t a, uint8_t v)
{
	struct agb_page *p = agb__page(m, a);
	agb__count(m, p, AGB_STORE8, 0);
	switch (p->region) {
	case AGB_REGION_VRAM_OBJ:
	case AGB_REGION_OAM:
	case AGB_REGION_ROM:
		m->quirk_stores++;
		return;
	case AGB_REGION_VRAM_BG:
	case AGB_REGION_PAL: {
		uint8_t *h = p->host + (a & p->mask & ~1u);
		m->quirk_stores++;
		h[0] = v;
		h[1] = v;
		return;
	}
	default:
		p->host[a & p->mask] = v;
	}
}

static inline void agb_st16(agb_machine *m, uint32_t a, uint16_t v)
{
	struct agb_page *p = agb__page(m, a);
	agb__count(m, p, AGB_STORE16, 1);
	if (p->region == AGB_REGION_ROM)
		return;
	__builtin_memcpy(p->host + (a & p->mask & ~1u), &v, sizeof v);
}

static inline void agb_st32(agb_machine *m, uint32_t a, uint32_t v)
{
	struct agb_page *p = agb__page(m, a);
	agb__count(m, p, AGB_STORE32, 2);
	if (p->region == AGB_REGION_ROM)
		return;
	__builtin_memcpy(p->host + (a & p->mask & ~3u), &v, sizeof v);
}

/* Uncounted reads for observers (stats, walk, check): never part of an op's cost. */
static inline uint32_t agb_peek32(agb_machine *m, uint32_t a)
{
	struct agb_page *p = agb__page(m, a);
	uint32_t v;
	__builtin_memcpy(&v, p->host + (a & p->mask & ~3u), sizeof v);
	return v;
}
static inline uint16_t agb_peek16(agb_machine *m, uint32_t a)
{
	struct agb_page *p = agb__page(m, a);
	uint16_t v;
	__builtin_memcpy(&v, p->host + (a & p->mask & ~1u), sizeof v);
	return v;
}
static inline uint8_t agb_peek8(agb_machine *m, uint32_t a)
{
	struct agb_page *p = agb__page(m, a);
	return p->host[a & p->mask];
}

/* A read of a const table that lives in ROM on the GBA: counted as a ROM access. */
static inline void agb_count_rom_read(agb_machine *m, unsigned width_log2)
{
	agb__count(m, agb__page(m, AGB_MEM_ROM), width_log2 == 0 ? AGB_LOAD8 : AGB_LOAD16,
	           width_log2);
}

/* A read of a const table that the GBA build keeps in IWRAM (.data, copied there at boot): counted
 * as an IWRAM access. */
static inline void agb_count_iwram_read(agb_machine *m)
{
	agb__count(m, agb__page(m, AGB_MEM_IWRAM), AGB_LOAD8, 0);
}

#ifdef AGB_PLAIN_MEMORY
/* The simulation-overhead baseline (bench --timing): the regions are mapped at their GBA
 * addresses in the host process (agb_machine_init does it) and every access is a plain load or
 * store, the same code the GBA build runs (see the plain access macros at the end). Nothing is
 * counted. */
/* Maps EWRAM, IWRAM, VRAM and OAM at their GBA addresses, once per process, before any
 * machine is used. Provided by the host program built with AGB_PLAIN_MEMORY; returns 0 or -1. */
int agb_plain_map_regions(void);
#else
#define AGB_LD8(m, a) agb_ld8((m), (a))
#define AGB_LD16(m, a) agb_ld16((m), (a))
#define AGB_LD32(m, a) agb_ld32((m), (a))
#define AGB_ST8(m, a, v) agb_st8((m), (a), (uint8_t)(v))
#define AGB_ST16(m, a, v) agb_st16((m), (a), (uint16_t)(v))
#define AGB_ST32(m, a, v) agb_st32((m), (a), (uint32_t)(v))
#define AGB_ROM_LD8(m, table, i) (agb_count_rom_read((m), 0), (table)[i])
#define AGB_ROM_LD16(m, table, i) (agb_count_rom_read((m), 1), (table)[i])
#define AGB_IWRAM_LD8(m, table, i) (agb_count_iwram_read(m), (table)[i])
#define AGB_PEEK8(m, a) agb_peek8((m), (a))
#define AGB_PEEK16(m, a) agb_peek16((m), (a))
#define AGB_PEEK32(m, a) agb_peek32((m), (a))
/* n units of instruction work the bus does not see (a node visited, a rotation, a map word
 * decoded): counted in m->work for the cycle model, never a bus access. */
#define AGB_WORK(m, n) ((void)((m)->work += (uint32_t)(n)))

#endif /* AGB_PLAIN_MEMORY */

#endif /* host */

#if defined(AGB_TARGET_GBA) || defined(AGB_PLAIN_MEMORY)
/* Plain accesses: on the GBA the bus is the machine (m is unused; a game passes NULL), and
 * agbsim-plain maps the regions at their GBA addresses. */
#define AGB_LD8(m, a) ((void)(m), *(volatile uint8_t *)(uintptr_t)(a))
#define AGB_LD16(m, a) ((void)(m), *(volatile uint16_t *)(uintptr_t)(a))
#define AGB_LD32(m, a) ((void)(m), *(volatile uint32_t *)(uintptr_t)(a))
#define AGB_ST8(m, a, v) ((void)(m), *(volatile uint8_t *)(uintptr_t)(a) = (uint8_t)(v))
#define AGB_ST16(m, a, v) ((void)(m), *(volatile uint16_t *)(uintptr_t)(a) = (uint16_t)(v))
#define AGB_ST32(m, a, v) ((void)(m), *(volatile uint32_t *)(uintptr_t)(a) = (uint32_t)(v))
/* Reads of const tables: on the GBA they sit in ROM and are plain reads. */
#define AGB_ROM_LD8(m, table, i) ((void)(m), (table)[i])
#define AGB_ROM_LD16(m, table, i) ((void)(m), (table)[i])
#define AGB_IWRAM_LD8(m, table, i) ((void)(m), (table)[i])
/* Observation-only reads (stats, walks, checks): plain reads too. */
#define AGB_PEEK8(m, a) AGB_LD8(m, a)
#define AGB_PEEK16(m, a) AGB_LD16(m, a)
#define AGB_PEEK32(m, a) AGB_LD32(m, a)
/* Instruction work (a cycle-model input, counted on the host only). */
#define AGB_WORK(m, n) ((void)(m), (void)(n))
#endif

/* AGB_WORK for a weighted count (instructions on the path taken: bestfit, obj-fast, tiles):
 * evaluated only where work is counted (the host's counting build). On the GBA and in
 * agbsim-plain it leaves no code even when the count is a conditional expression, which GCC
 * kept the compares of when it was merely cast to void; the dead arm of a constant conditional
 * keeps the count's variables "used" (sizeof would too, but clang-tidy flags sizeof of a
 * literal count). */
#if defined(AGB_TARGET_GBA) || defined(AGB_PLAIN_MEMORY)
#define AGB_WORK_WEIGHTED(m, n) ((void)(m), (void)(0 ? (n) : 0u))
#else
#define AGB_WORK_WEIGHTED(m, n) AGB_WORK(m, n)
#endif

#ifdef __cplusplus
}
#endif

#endif
