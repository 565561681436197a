/* elf_lines.h — source lines of a GBA game's code from its ELF's DWARF line tables
 * (.debug_line, versions 2 to 5, 32-bit DWARF), for naming a recorded call site "file.c:LINE"
 * (agbsim record). Host only. */
#ifndef AGB_TRACE_ELF_LINES_H
#define AGB_TRACE_ELF_LINES_H

#include <stddef.h>
#include <stdint.h>

struct agb_elf_line_row {
	uint32_t addr;
	uint32_t line; /* 0: the end of a sequence (no line from here on) */
	uint32_t file; /* index into agb_elf_lines.files */
	uint32_t order; /* its place in the line programs: of rows at one addr, the last names it */
};

struct agb_elf_lines {
	struct agb_elf_line_row *rows; /* sorted by addr; at one addr an end first, then by order */
	size_t count;
	char **files; /* the file names (their last path component), one per unit's file entry */
	size_t n_files;
};

/* Reads the line tables of the 32-bit little-endian ELF at PATH (at most 32 MiB). Returns 0 —
 * count 0 when it has no .debug_line — or -1 with a short reason in err (unreadable, not an
 * ELF32, a line table that runs past its section, out of memory). A unit in a format it does
 * not read (64-bit DWARF, another address size) is skipped. O(file + rows log rows). */
int agb_elf_lines_load(const char *path, struct agb_elf_lines *out, char *err, size_t err_len);

/* The file of the code at ADDR (bit 0 ignored) and its line in *line, or NULL when no row
 * covers it. O(log rows). */
const char *agb_elf_line_at(const struct agb_elf_lines *l, uint32_t addr, uint32_t *line);

void agb_elf_lines_release(struct agb_elf_lines *l);

#endif
