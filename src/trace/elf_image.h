/* elf_image.h — the sections and symbols of a 32-bit little-endian ELF executable (a GBA game's
 * ELF), for `agbsim budget`: what the linker put where (IWRAM, EWRAM, ROM) and which objects and
 * functions those bytes are. Host only. */
#ifndef AGB_TRACE_ELF_IMAGE_H
#define AGB_TRACE_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define AGB_ELF_SHF_WRITE  0x1u
#define AGB_ELF_SHF_ALLOC  0x2u
#define AGB_ELF_SHF_EXEC   0x4u
#define AGB_ELF_SHT_NOBITS 8u

struct agb_elf_section {
	const char *name; /* into agb_elf_image.strings */
	uint32_t type, flags, addr, size;
	uint32_t lma; /* load address (the program header holding it), = addr when none does */
};

enum agb_elf_symkind { AGB_ELF_SYM_OTHER, AGB_ELF_SYM_OBJECT, AGB_ELF_SYM_FUNC };

struct agb_elf_symbol {
	const char *name;
	uint32_t value, size; /* value: a Thumb function's has bit 0 set */
	uint16_t section;     /* section index (0: undefined; >= 0xFF00: special) */
	uint8_t kind;         /* enum agb_elf_symkind */
	uint8_t global;       /* STB_GLOBAL or STB_WEAK */
};

struct agb_elf_image {
	struct agb_elf_section *sections; /* in file order, index 0 the null section */
	size_t n_sections;
	struct agb_elf_symbol *symbols; /* in file order */
	size_t n_symbols;
	char *strings; /* every name, NUL-terminated */
	uint32_t entry;
	unsigned machine; /* e_machine: 40 for ARM */
};

/* Reads PATH. Returns 0, or -1 with a short reason in err (unreadable, not an ELF, not 32-bit
 * little-endian, truncated or inconsistent tables, out of memory). An ELF without .symtab has
 * n_symbols 0. O(file size). */
int agb_elf_image_load(const char *path, struct agb_elf_image *out, char *err, size_t err_len);

/* The section called NAME, or NULL. O(sections). */
const struct agb_elf_section *agb_elf_image_section(const struct agb_elf_image *e,
                                                    const char *name);

/* The symbol called NAME (a defined one), or NULL. O(symbols). */
const struct agb_elf_symbol *agb_elf_image_symbol(const struct agb_elf_image *e, const char *name);

void agb_elf_image_release(struct agb_elf_image *e);

#endif
