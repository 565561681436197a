/* The emulated bus: costs per region and width, counting, quirks, mirroring. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "agb/machine.h"

static int setup(void **state)
{
	agb_machine *m = malloc(sizeof *m);
	if (m == NULL)
		return -1;
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void costs_match_the_gba_table(void **state)
{
	agb_machine *m = *state;
	/* docs/design.md, bus model: EWRAM 3/3/6, IWRAM 1/1/1, VRAM 1/1/2, OAM 1/1/1, ROM at 4317h N 4/4/6. */
	const struct {
		uint32_t addr;
		uint32_t c8, c16, c32;
	} table[] = {
	        {AGB_MEM_EWRAM, 3, 3, 6},    {AGB_MEM_IWRAM, 1, 1, 1}, {AGB_MEM_VRAM_BG, 1, 1, 2},
	        {AGB_MEM_VRAM_OBJ, 1, 1, 2}, {AGB_MEM_OAM, 1, 1, 1},   {AGB_MEM_ROM, 4, 4, 6},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		assert_int_equal(agb_machine_cost(m, table[i].addr, 0), table[i].c8);
		assert_int_equal(agb_machine_cost(m, table[i].addr, 1), table[i].c16);
		assert_int_equal(agb_machine_cost(m, table[i].addr, 2), table[i].c32);
	}
}

static void power_on_waitcnt_is_slower(void **state)
{
	(void)state;
	agb_machine *m = malloc(sizeof *m);
	assert_non_null(m);
	agb_machine_init(m, 0);
	assert_int_equal(agb_machine_cost(m, AGB_MEM_ROM, 1), 5);
	assert_int_equal(agb_machine_cost(m, AGB_MEM_ROM, 2), 8);
	free(m);
}

static void every_access_is_counted_and_charged(void **state)
{
	agb_machine *m = *state;
	agb_machine_reset_counters(m);
	AGB_ST32(m, AGB_MEM_EWRAM + 8, 0xDEADBEEFu);
	assert_int_equal(AGB_LD32(m, AGB_MEM_EWRAM + 8), 0xDEADBEEFu);
	assert_int_equal(AGB_LD16(m, AGB_MEM_EWRAM + 10), 0xDEADu);
	assert_int_equal(AGB_LD8(m, AGB_MEM_EWRAM + 8), 0xEFu);
	AGB_ST16(m, AGB_MEM_IWRAM, 0x1234u);
	assert_int_equal(agb_machine_accesses(m), 5);
	assert_int_equal(agb_machine_bus_cycles(m), 6 + 6 + 3 + 3 + 1);
	assert_int_equal(m->counts[AGB_REGION_EWRAM][AGB_STORE32], 1);
	assert_int_equal(m->counts[AGB_REGION_EWRAM][AGB_LOAD16], 1);
	assert_int_equal(m->counts[AGB_REGION_IWRAM][AGB_STORE16], 1);
	assert_int_equal(agb_machine_counted_cycles(m), agb_machine_bus_cycles(m));
}

static void peeks_are_not_counted(void **state)
{
	agb_machine *m = *state;
	AGB_ST32(m, AGB_MEM_EWRAM, 7);
	agb_machine_reset_counters(m);
	assert_int_equal(AGB_PEEK32(m, AGB_MEM_EWRAM), 7);
	assert_int_equal(agb_machine_accesses(m), 0);
}

static void byte_store_to_obj_vram_and_oam_is_ignored(void **state)
{
	agb_machine *m = *state;
	AGB_ST16(m, AGB_MEM_VRAM_OBJ + 4, 0xAABBu);
	AGB_ST8(m, AGB_MEM_VRAM_OBJ + 4, 0x11u);
	assert_int_equal(AGB_LD16(m, AGB_MEM_VRAM_OBJ + 4), 0xAABBu);
	AGB_ST16(m, AGB_MEM_OAM + 2, 0xCCDDu);
	AGB_ST8(m, AGB_MEM_OAM + 3, 0x22u);
	assert_int_equal(AGB_LD16(m, AGB_MEM_OAM + 2), 0xCCDDu);
	assert_int_equal(m->quirk_stores, 2);
}

static void byte_store_to_bg_vram_fills_the_halfword(void **state)
{
	agb_machine *m = *state;
	AGB_ST16(m, AGB_MEM_VRAM_BG + 6, 0x0000u);
	AGB_ST8(m, AGB_MEM_VRAM_BG + 7, 0x5Au);
	assert_int_equal(AGB_LD16(m, AGB_MEM_VRAM_BG + 6), 0x5A5Au);
}

/* Palette RAM (GBATEK "GBA Memory Map", mGBA's GBAStore8): a 16-bit bus, so 8- and 16-bit
 * accesses take one cycle and a 32-bit access two; a byte store writes the byte to both halves
 * of its halfword (counted as a quirk: no core should rely on it); 1 KiB mirrored up to
 * 0x05FFFFFF; uploads counted as bus traffic like any store. */
static void palette_ram_bus_rules(void **state)
{
	agb_machine *m = *state;
	assert_int_equal(agb_machine_cost(m, AGB_MEM_PAL, 0), 1);
	assert_int_equal(agb_machine_cost(m, AGB_MEM_PAL, 1), 1);
	assert_int_equal(agb_machine_cost(m, AGB_MEM_PAL + 0x3FE, 2), 2);
	agb_machine_reset_counters(m);
	AGB_ST32(m, AGB_MEM_PAL + 0x200, 0x7FFF001Fu);
	AGB_ST16(m, AGB_MEM_PAL + 0x204, 0x03E0u);
	assert_int_equal(AGB_LD32(m, AGB_MEM_PAL + 0x200), 0x7FFF001Fu);
	assert_int_equal(m->counts[AGB_REGION_PAL][AGB_STORE32], 1);
	assert_int_equal(m->counts[AGB_REGION_PAL][AGB_STORE16], 1);
	assert_int_equal(m->counts[AGB_REGION_PAL][AGB_LOAD32], 1);
	assert_int_equal(agb_machine_bus_cycles(m), 2 + 1 + 2);
	assert_int_equal(m->quirk_stores, 0);
	AGB_ST8(m, AGB_MEM_PAL + 0x205, 0x5Au);
	assert_int_equal(AGB_LD16(m, AGB_MEM_PAL + 0x204), 0x5A5Au);
	assert_int_equal(m->quirk_stores, 1);
	/* Mirrors: every 1 KiB through the 16 MiB region. */
	assert_int_equal(AGB_LD32(m, AGB_MEM_PAL + 0x400 + 0x200), 0x7FFF001Fu);
	assert_int_equal(AGB_LD32(m, AGB_MEM_PAL + 0xFFFC00u + 0x200), 0x7FFF001Fu);
	assert_ptr_equal(agb_machine_host(m, AGB_MEM_PAL + 0x200, 4), &m->pal[0x200]);
	assert_null(agb_machine_host(m, AGB_MEM_PAL + 0x3FE, 4));
}

static void regions_mirror_like_the_hardware(void **state)
{
	agb_machine *m = *state;
	AGB_ST32(m, AGB_MEM_EWRAM + 0x100, 0x01020304u);
	assert_int_equal(AGB_LD32(m, AGB_MEM_EWRAM + AGB_EWRAM_SIZE + 0x100), 0x01020304u);
	AGB_ST16(m, AGB_MEM_IWRAM + 0x10, 0x4242u);
	assert_int_equal(AGB_LD16(m, AGB_MEM_IWRAM + AGB_IWRAM_SIZE + 0x10), 0x4242u);
	/* 0x06018000-0x0601FFFF mirrors OBJ VRAM. */
	AGB_ST16(m, AGB_MEM_VRAM_OBJ + 0x20, 0x7777u);
	assert_int_equal(AGB_LD16(m, AGB_MEM_VRAM + 0x18020), 0x7777u);
}

static void rom_is_read_only_and_unmapped_reads_zero(void **state)
{
	agb_machine *m = *state;
	static const uint8_t image[4] = {1, 2, 3, 4};
	agb_machine_map_rom(m, image, sizeof image);
	AGB_ST16(m, AGB_MEM_ROM, 0xFFFFu);
	assert_int_equal(AGB_LD16(m, AGB_MEM_ROM), 0x0201u);
	assert_int_equal(AGB_LD16(m, 0x01000000u), 0);
	agb_machine_reset_counters(m);
	(void)AGB_LD16(m, 0x01000000u);
	assert_int_equal(m->counts[AGB_REGION_UNMAPPED][AGB_LOAD16], 1);
}

static void host_pointer_only_for_canonical_ram(void **state)
{
	agb_machine *m = *state;
	assert_ptr_equal(agb_machine_host(m, AGB_MEM_EWRAM + 16, 32), m->ewram + 16);
	assert_ptr_equal(agb_machine_host(m, AGB_MEM_VRAM_OBJ, AGB_VRAM_OBJ_SIZE),
	                 m->vram + AGB_VRAM_BG_SIZE);
	assert_null(agb_machine_host(m, AGB_MEM_EWRAM + AGB_EWRAM_SIZE - 4, 8));
	assert_null(agb_machine_host(m, AGB_MEM_ROM, 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(costs_match_the_gba_table, setup, teardown),
		cmocka_unit_test(power_on_waitcnt_is_slower),
		cmocka_unit_test_setup_teardown(every_access_is_counted_and_charged, setup, teardown),
		cmocka_unit_test_setup_teardown(peeks_are_not_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(byte_store_to_obj_vram_and_oam_is_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(byte_store_to_bg_vram_fills_the_halfword, setup, teardown),
		cmocka_unit_test_setup_teardown(palette_ram_bus_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(regions_mirror_like_the_hardware, setup, teardown),
		cmocka_unit_test_setup_teardown(rom_is_read_only_and_unmapped_reads_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(host_pointer_only_for_canonical_ram, setup, teardown),
	};
	return cmocka_run_group_tests_name("machine", tests, NULL, NULL);
}
