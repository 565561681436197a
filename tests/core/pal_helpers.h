/* Shared by the palette core suites (test_palbanks.c, test_palstack.c): a machine with a ROM
 * image of known colours, configs for both meta placements, and uncounted reads of palette
 * RAM. Include after cmocka.h. */
#ifndef AGB_TEST_PAL_HELPERS_H
#define AGB_TEST_PAL_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "machine_fixture.h"

#include "agb/heap.h"
#include "agbsim/mt19937.h"

#define PAL_ROM_BYTES 0x40000u
static uint8_t pal_rom[PAL_ROM_BYTES];

/* Colour data of key k: 256 colours at ROM + k * 512 (keys below 512). */
static inline uint32_t pal_src(uint32_t key)
{
	return AGB_MEM_ROM + key * 0x200u;
}

static inline int pal_setup(void **state)
{
	if (machine_setup(state) != 0)
		return -1;
	for (uint32_t i = 0; i < PAL_ROM_BYTES; i += 2) {
		uint16_t c = (uint16_t)((i * 2654435761u >> 13) & 0x7FFFu);
		memcpy(pal_rom + i, &c, 2);
	}
	agb_machine_map_rom(M, pal_rom, PAL_ROM_BYTES);
	return 0;
}

static inline struct agb_heap_config pal_config(int iwram)
{
	struct agb_heap_config c = {AGB_MEM_PAL, AGB_PAL_SIZE,
	                            iwram ? AGB_MEM_IWRAM + 0x4000u : AGB_MEM_EWRAM,
	                            iwram ? 0x3C00u : AGB_EWRAM_SIZE, 0};
	return c;
}

/* Whether bank `bank` of `side` holds the first `colors` colours (up to 16) of `key`. */
static inline int pal_bank_holds(uint32_t side, uint32_t bank, uint32_t key, uint32_t first,
				 uint32_t colors)
{
	const uint8_t *ram = agb_machine_host(
	        M, AGB_MEM_PAL + side * AGB_PAL_SIDE_BYTES + bank * AGB_PAL_BANK_BYTES,
	        AGB_PAL_BANK_BYTES);
	return memcmp(ram, pal_rom + key * 0x200u + first * 2u, colors * 2u) == 0;
}

/* Palette RAM must only be stored to in halfwords or words: no byte quirks, nothing unmapped. */
static inline void pal_bus_clean(void)
{
	assert_int_equal(M->quirk_stores, 0);
	assert_int_equal(M->counts[AGB_REGION_PAL][AGB_STORE8], 0);
	for (unsigned k = 0; k < AGB_ACCESS_COUNT; k++)
		assert_int_equal(M->counts[AGB_REGION_UNMAPPED][k], 0);
}

#endif
