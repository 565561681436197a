/* Fuzz target: the ELF symbol reader (src/trace/elf_syms.c), for mtrace callers and record's
 * allocator lookup. The input is written to a file and loaded. Checks: the symbols are sorted
 * by address, each name is a NUL-terminated string inside the string block, and a lookup of
 * every symbol's own address and name finds a symbol at that address. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/elf_lines.h"
#include "trace/elf_syms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (path[0] == '\0')
		snprintf(path, sizeof path, "/tmp/agbsim-fuzz-elf-%ld.elf", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (f == NULL)
		return 0;
	int ok = fwrite(data, 1, size, f) == size;
	if (fclose(f) != 0 || !ok)
		return 0;
	struct agb_elf_symbols s;
	char err[128];
	if (agb_elf_symbols_load(path, &s, err, sizeof err) != 0) {
		if (err[0] == '\0')
			abort();
		agb_elf_symbols_release(&s);
		return 0;
	}
	for (size_t i = 0; i < s.count; i++) {
		uint64_t off = 1;
		if (i > 0 && s.syms[i - 1].addr > s.syms[i].addr)
			abort();
		if (s.syms[i].name == NULL)
			abort();
		(void)strlen(s.syms[i].name); /* inside the block: ASan checks */
		const char *at = agb_elf_symbol_at(&s, s.syms[i].addr, &off);
		if (at == NULL || off != 0)
			abort();
		const struct agb_elf_sym *by_name = agb_elf_symbol_find(&s, s.syms[i].name);
		if (by_name == NULL || strcmp(by_name->name, s.syms[i].name) != 0)
			abort();
	}
	agb_elf_symbols_release(&s);
	/* The line tables of the same file: rows sorted, each naming a file it has. */
	struct agb_elf_lines l;
	if (agb_elf_lines_load(path, &l, err, sizeof err) != 0) {
		if (err[0] == '\0' || l.rows != NULL || l.files != NULL)
			abort();
		return 0;
	}
	for (size_t i = 0; i < l.count; i++) {
		uint32_t line = 0;
		if ((i > 0 && l.rows[i - 1].addr > l.rows[i].addr) || l.rows[i].file >= l.n_files)
			abort();
		(void)strlen(l.files[l.rows[i].file]);
		(void)agb_elf_line_at(&l, l.rows[i].addr, &line);
	}
	agb_elf_lines_release(&l);
	return 0;
}
