/* Unit tests for src/trace/ldmap.c (GNU ld link maps) and src/trace/elf_image.c (ELF32 sections
 * and symbols): the shapes ld writes, and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace/elf_image.h"
#include "trace/ldmap.h"

static char path[64];

static void write_tmp(const char *text)
{
	snprintf(path, sizeof path, "/tmp/agb-ldmap-%ld.map", (long)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Discarded sections come before the memory map and are not input sections of the image; a
 * long name puts its fields on the next line; an archive member is split; size 0 is left out;
 * symbol lines and script lines are not sections. */
static void map_shapes(void **state)
{
	(void)state;
	write_tmp("Discarded input sections\n\n"
	          " .text          0x00000000       0x10 /x/libc.a(lib_a-gone.o)\n\n"
	          "Linker script and memory map\n\n"
	          ".bss            0x03000a50      0xb98\n"
	          "                0x03000a50                __bss_start = .\n"
	          " *(.bss .bss.* COMMON)\n"
	          " .bss           0x03000a50        0x0 /usr/lib/crti.o\n"
	          " .bss.a_rather_long_section_name_indeed\n"
	          "                0x03000a50      0x400 CMakeFiles/g.dir/record_game.c.obj\n"
	          "                0x03000a50                shadow_oam\n"
	          " .bss           0x03000e50       0x1c "
	          "/usr/lib/arm-none-eabi/lib/thumb/nofp/libc.a(lib_a-mallocr.o)\n"
	          " COMMON         0x03000e6c        0x4 /usr/lib/x/libc.a(lib_a-reent.o)\n"
	          "                0x03000e6c                errno\n");
	struct agb_ldmap m;
	char err[128];
	assert_int_equal(agb_ldmap_load(path, &m, err, sizeof err), 0);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.e[0].section, ".bss.a_rather_long_section_name_indeed");
	assert_int_equal(m.e[0].addr, 0x03000a50u);
	assert_int_equal(m.e[0].size, 0x400u);
	assert_string_equal(m.e[0].archive, "");
	assert_string_equal(m.e[0].member, "record_game.c.obj");
	assert_string_equal(m.e[1].archive, "libc.a");
	assert_string_equal(m.e[1].member, "lib_a-mallocr.o");
	assert_int_equal(m.e[1].size, 0x1cu);
	assert_string_equal(m.e[2].section, "COMMON");
	assert_string_equal(m.e[2].member, "lib_a-reent.o");
	agb_ldmap_release(&m);
	unlink(path);
}

static void map_refused(void **state)
{
	(void)state;
	struct agb_ldmap m;
	char err[128];
	write_tmp("not a map at all\n");
	assert_int_equal(agb_ldmap_load(path, &m, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a GNU ld link map"));
	unlink(path);
	assert_int_equal(agb_ldmap_load("/nonexistent/x.map", &m, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open"));
}

/* The ELF reader takes 32-bit little-endian files only: this test's own (64-bit) binary and a
 * text file are refused with the reason. */
static void elf_refused(void **state)
{
	(void)state;
	struct agb_elf_image e;
	char err[128];
	assert_int_equal(agb_elf_image_load("/proc/self/exe", &e, err, sizeof err), -1);
	assert_non_null(strstr(err, "32-bit"));
	write_tmp("hello\n");
	assert_int_equal(agb_elf_image_load(path, &e, err, sizeof err), -1);
	assert_string_equal(err, "not an ELF file");
	unlink(path);
}

/* A truncated ELF32 header (the magic and class, nothing after) is refused, not read past. */
static void elf_truncated(void **state)
{
	(void)state;
	static const unsigned char hdr[52] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
	unsigned char b[52];
	memcpy(b, hdr, sizeof b);
	b[32] = 0xF0; /* e_shoff far past the end */
	b[48] = 3;    /* e_shnum */
	b[46] = 40;   /* e_shentsize */
	snprintf(path, sizeof path, "/tmp/agb-elf-%ld", (long)getpid());
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(b, 1, sizeof b, f);
	fclose(f);
	struct agb_elf_image e;
	char err[128];
	assert_int_equal(agb_elf_image_load(path, &e, err, sizeof err), -1);
	assert_string_equal(err, "bad section header table");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(map_shapes),
	        cmocka_unit_test(map_refused),
	        cmocka_unit_test(elf_refused),
	        cmocka_unit_test(elf_truncated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
