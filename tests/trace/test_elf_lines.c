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
#include <unistd.h>

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

/* An ELF32 whose one .debug_line unit (DWARF 4) names no file and only ends a sequence: no
 * rows (an end row must index a file; the fuzzer found one that indexed none). */
static void end_without_files(void **state)
{
	static const unsigned char unit[] = {
		0, 0, 0, 0, 4, 0,                     /* unit_length (set below), version 4 */
		20, 0, 0, 0,                          /* header_length */
		2, 1, 1, (unsigned char)-5, 14, 13,   /* min_inst .. opcode_base */
		0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1,   /* standard opcode lengths */
		0,                                    /* no include directories */
		0,                                    /* no files */
		0, 5, 2, 0x00, 0x80, 0x00, 0x08,      /* set_address 0x08008000 */
		0, 1, 1,                              /* end_sequence */
	};
	static const char names[] = "\0.shstrtab\0.debug_line";
	unsigned char elf[52 + sizeof unit + sizeof names + 3 * 40];
	size_t unit_at = 52, names_at = unit_at + sizeof unit, sh_at = names_at + sizeof names;
	memset(elf, 0, sizeof elf);
	memcpy(elf, "\177ELF\1\1\1", 7);
	elf[32] = (unsigned char)sh_at;  /* e_shoff */
	elf[48] = 3;                     /* e_shnum */
	elf[50] = 1;                     /* e_shstrndx */
	memcpy(elf + unit_at, unit, sizeof unit);
	elf[unit_at] = (unsigned char)(sizeof unit - 4);
	memcpy(elf + names_at, names, sizeof names);
	const struct {
		size_t name, off, size;
	} sh[2] = {{1, names_at, sizeof names}, {11, unit_at, sizeof unit}};
	for (int i = 0; i < 2; i++) {
		unsigned char *h = elf + sh_at + (size_t)(i + 1) * 40u;
		h[0] = (unsigned char)sh[i].name;
		h[4] = 1; /* PROGBITS */
		h[16] = (unsigned char)sh[i].off;
		h[20] = (unsigned char)sh[i].size;
	}
	char path[64], err[128] = "";
	snprintf(path, sizeof path, "/tmp/agbsim-test-lines-%ld", (long)getpid());
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(elf, 1, sizeof elf, f), sizeof elf);
	assert_int_equal(fclose(f), 0);
	struct agb_elf_lines l;
	uint32_t line = 0;
	(void)state;
	assert_int_equal(agb_elf_lines_load(path, &l, err, sizeof err), 0);
	remove(path);
	assert_int_equal(l.count, 0);
	assert_null(agb_elf_line_at(&l, 0x08008000u, &line));
	agb_elf_lines_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dwarf4),
		cmocka_unit_test(dwarf5),
		cmocka_unit_test(refusals),
		cmocka_unit_test(end_without_files),
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
