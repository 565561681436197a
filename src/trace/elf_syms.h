/* elf_syms.h - function symbols of an ELF little-endian object: a host program or shared library
 * (ELF64), for naming the callers in an mtrace recording, or a GBA game (ELF32, ARM), for finding
 * its allocator (agbsim record). On ARM a Thumb function's value has bit 0 set.
 *
 * glibc's mtrace prints a caller as "FILE:(SYMBOL+OFF)[ADDR]" when the dynamic symbol table names
 * it and as "FILE:[ADDR]" otherwise, ADDR then being relative to the object's load address. That
 * relative address is an ELF symbol value of the object (for a position-independent object; for a
 * fixed-address executable the load address is 0), so the object's .symtab (or, when stripped,
 * .dynsym) names it. */
#ifndef AGB_TRACE_ELF_SYMS_H
#define AGB_TRACE_ELF_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct agb_elf_sym {
	uint64_t addr, size;
	const char *name; /* into agb_elf_symbols.strings */
};

struct agb_elf_symbols {
	struct agb_elf_sym *syms; /* sorted by addr */
	size_t count;
	char *strings;
	unsigned bits;    /* 32 or 64 */
	unsigned machine; /* e_machine: 40 ARM, 62 x86-64 */
};

/* Reads the function symbols (STT_FUNC with a nonzero value) of the ELF file at PATH: .symtab when
 * there is one, else .dynsym. Returns 0, or -1 with a short reason in ERR (not an ELF
 * little-endian file, unreadable, truncated, no symbol table, out of memory; bits and machine
 * are still set for an ELF without symbols). O(file + symbols log symbols). */
int agb_elf_symbols_load(const char *path, struct agb_elf_symbols *out, char *err, size_t err_len);

/* The function containing ADDR (an object-relative address), or NULL. *offset (may be NULL)
 * receives ADDR minus the symbol's value. A symbol of size 0 covers up to the next symbol.
 * O(log symbols). */
const char *agb_elf_symbol_at(const struct agb_elf_symbols *s, uint64_t addr, uint64_t *offset);

/* The function symbol called NAME, or NULL. O(symbols). */
const struct agb_elf_sym *agb_elf_symbol_find(const struct agb_elf_symbols *s, const char *name);

void agb_elf_symbols_release(struct agb_elf_symbols *s);

#endif
