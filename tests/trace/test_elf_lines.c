/* elf_lines: the DWARF line tables of data/lines-dwarf4-elf and data/lines-dwarf5-elf, the same
 * data/lines.c built for the GBA in two DWARF versions:
 *   arm-none-eabi-gcc -mthumb -O1 -g -gdwarf-N -nostdlib -nostartfiles -Wl,-e,f -o ... lines.c
 * The expected lines are binutils' (arm-none-eabi-addr2line) for the same addresses; helper()
 * is inlined into alloc_like at 0x8000, where addr2line names the inlined line 5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "trace/elf_lines.h"

static char data_dir[1024];

static void expect_lines(const char *name)
{
	static const struct {
		uint32_t addr, line; /* line 0: no line */
	} want[] = {{0x8000, 5}, {0x8004, 5}, {0x8014, 14}, {0x801a, 15}, {0x801b, 15},
	            {0x801e, 15}, {0x8026, 16}, {0x8028, 16}, {0x802c, 0}, {0x7ffe, 0}};
	struct agb_elf_lines l;
	char path[1200], err[128];
	snprintf(path, sizeof path, "%s/%s", data_dir, name);
	assert_int_equal(agb_elf_lines_load(path, &l, err, sizeof err), 0);
	assert_true(l.count > 0);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		uint32_t line = 0;
		const char *file = agb_elf_line_at(&l, want[i].addr, &line);
		if (want[i].line == 0) {
			assert_null(file);
			continue;
		}
		assert_non_null(file);
		assert_string_equal(file, "lines.c");
		assert_int_equal(line, want[i].line);
	}
	agb_elf_lines_release(&l);
	assert_null(l.rows);
}

static void dwarf4(void **state)
{
	(void)state;
	expect_lines("lines-dwarf4-elf");
}

static void dwarf5(void **state)
{
	(void)state;
	expect_lines("lines-dwarf5-elf");
}

/* Not an ELF32: refused with a reason. An ELF32 without .debug_line: no rows, no error. */
static void refusals(void **state)
{
	struct agb_elf_lines l;
	char path[1200], err[128] = "";
	(void)state;
	snprintf(path, sizeof path, "%s/lines.c", data_dir);
	assert_int_equal(agb_elf_lines_load(path, &l, err, sizeof err), -1);
	assert_string_equal(err, "not an ELF32 little-endian file");
	assert_null(l.rows);
	snprintf(path, sizeof path, "%s/no-such-file", data_dir);
	assert_int_equal(agb_elf_lines_load(path, &l, err, sizeof err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dwarf4),
		cmocka_unit_test(dwarf5),
		cmocka_unit_test(refusals),
	};
	const char *slash;
	/* The data sit beside this file; __FILE__ is the absolute path CMake compiled. */
	snprintf(data_dir, sizeof data_dir, "%s", __FILE__);
	slash = strrchr(data_dir, '/');
	if (slash != NULL)
		snprintf(data_dir + (slash - data_dir), sizeof data_dir - (size_t)(slash - data_dir),
		         "/data");
	else
		snprintf(data_dir, sizeof data_dir, "data");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
