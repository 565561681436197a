/* The sections and symbols of an ELF32 little-endian executable (see elf_image.h). The file is
 * read whole; every offset and size is checked against it before use. */
#include "trace/elf_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHT_SYMTAB   2u
#define PT_LOAD      1u
#define STT_OBJECT   1u
#define STT_FUNC     2u
#define STB_GLOBAL   1u
#define STB_WEAK     2u
#define MAX_ELF_FILE ((size_t)1 << 30)

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static int fail(char *err, size_t n, const char *why)
{
	snprintf(err, n, "%s", why);
	return -1;
}

/* The whole file, or NULL (why in err). */
static unsigned char *slurp(const char *path, size_t *len, char *err, size_t n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long size;
	if (f == NULL) {
		fail(err, n, "cannot open the file");
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		fail(err, n, "cannot read the file");
		return NULL;
	}
	if ((size_t)size > MAX_ELF_FILE) {
		fclose(f);
		fail(err, n, "file too large for an ELF");
		return NULL;
	}
	b = malloc((size_t)size + 1u);
	if (b == NULL || fread(b, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(b);
		fail(err, n, b == NULL ? "out of memory" : "cannot read the file");
		return NULL;
	}
	fclose(f);
	*len = (size_t)size;
	return b;
}

static int in_file(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

/* Load address of a section from the PT_LOAD program headers: the one whose virtual range holds
 * it (a section copied to RAM by the start-up code is loaded in ROM). */
static uint32_t lma_of(const unsigned char *b, size_t len, uint32_t phoff, uint16_t phnum,
                       uint16_t phentsize, uint32_t addr, uint32_t size)
{
	for (uint16_t i = 0; i < phnum; i++) {
		uint64_t at = (uint64_t)phoff + (uint64_t)i * phentsize;
		if (phentsize < 32u || !in_file(len, at, 32u))
			break;
		const unsigned char *p = b + at;
		uint32_t vaddr = rd32(p + 8), paddr = rd32(p + 12), memsz = rd32(p + 20);
		if (rd32(p) == PT_LOAD && addr >= vaddr &&
		    (uint64_t)addr + size <= (uint64_t)vaddr + memsz && memsz != 0u)
			return paddr + (addr - vaddr);
	}
	return addr;
}

static int load_sections(const unsigned char *b, size_t len, struct agb_elf_image *e,
                         uint32_t *symtab, size_t *names_len, char *err, size_t n)
{
	uint32_t shoff = rd32(b + 32), phoff = rd32(b + 28);
	uint16_t phentsize = rd16(b + 42), phnum = rd16(b + 44);
	uint16_t shentsize = rd16(b + 46), shnum = rd16(b + 48), shstrndx = rd16(b + 50);
	if (shnum == 0u || shentsize < 40u || !in_file(len, shoff, (uint64_t)shnum * shentsize) ||
	    shstrndx >= shnum)
		return fail(err, n, "bad section header table");
	const unsigned char *str = b + shoff + (size_t)shstrndx * shentsize;
	uint32_t stroff = rd32(str + 16), strsize = rd32(str + 20);
	if (!in_file(len, stroff, strsize))
		return fail(err, n, "bad section name table");
	e->sections = calloc(shnum, sizeof *e->sections);
	e->strings = malloc((size_t)strsize + 1u);
	if (e->sections == NULL || e->strings == NULL)
		return fail(err, n, "out of memory");
	memcpy(e->strings, b + stroff, strsize);
	e->strings[strsize] = '\0';
	*names_len = (size_t)strsize + 1u;
	e->n_sections = shnum;
	*symtab = 0;
	for (uint16_t i = 0; i < shnum; i++) {
		const unsigned char *h = b + shoff + (size_t)i * shentsize;
		struct agb_elf_section *s = &e->sections[i];
		uint32_t name = rd32(h);
		s->name = e->strings + (name < strsize ? name : strsize);
		s->type = rd32(h + 4);
		s->flags = rd32(h + 8);
		s->addr = rd32(h + 12);
		s->size = rd32(h + 20);
		s->lma = (s->flags & AGB_ELF_SHF_ALLOC) != 0u
		                 ? lma_of(b, len, phoff, phnum, phentsize, s->addr, s->size)
		                 : s->addr;
		if (s->type == SHT_SYMTAB && *symtab == 0u)
			*symtab = i;
	}
	return 0;
}

/* The .symtab and its string table, appended to e->strings. */
static int load_symbols(const unsigned char *b, size_t len, struct agb_elf_image *e,
                        uint32_t symtab, size_t shstr_len, char *err, size_t n)
{
	uint32_t shoff = rd32(b + 32);
	uint16_t shentsize = rd16(b + 46);
	const unsigned char *h = b + shoff + (size_t)symtab * shentsize;
	uint32_t off = rd32(h + 16), size = rd32(h + 20), link = rd32(h + 24);
	if (!in_file(len, off, size) || link >= e->n_sections)
		return fail(err, n, "bad symbol table");
	const unsigned char *sh = b + shoff + (size_t)link * shentsize;
	uint32_t soff = rd32(sh + 16), ssize = rd32(sh + 20);
	if (!in_file(len, soff, ssize))
		return fail(err, n, "bad symbol string table");
	/* Names: section names first, then the symbol strings; the pointers are rebased after. */
	size_t name_off[256], nn = e->n_sections < 256u ? e->n_sections : 256u;
	if (e->n_sections > 256u)
		return fail(err, n, "more than 256 sections");
	for (size_t i = 0; i < nn; i++)
		name_off[i] = (size_t)(e->sections[i].name - e->strings);
	char *all = realloc(e->strings, shstr_len + (size_t)ssize + 1u);
	if (all == NULL)
		return fail(err, n, "out of memory");
	for (size_t i = 0; i < nn; i++)
		e->sections[i].name = all + name_off[i];
	e->strings = all;
	char *symstr = all + shstr_len;
	memcpy(symstr, b + soff, ssize);
	symstr[ssize] = '\0';
	size_t count = size / 16u;
	e->symbols = calloc(count != 0 ? count : 1u, sizeof *e->symbols);
	if (e->symbols == NULL)
		return fail(err, n, "out of memory");
	for (size_t i = 0; i < count; i++) {
		const unsigned char *s = b + off + i * 16u;
		uint32_t name = rd32(s);
		struct agb_elf_symbol *y = &e->symbols[i];
		unsigned type = s[12] & 0xFu, bind = s[12] >> 4;
		y->name = symstr + (name < ssize ? name : ssize);
		y->value = rd32(s + 4);
		y->size = rd32(s + 8);
		y->section = rd16(s + 14);
		y->kind = type == STT_FUNC     ? AGB_ELF_SYM_FUNC
		          : type == STT_OBJECT ? AGB_ELF_SYM_OBJECT
		                               : AGB_ELF_SYM_OTHER;
		y->global = bind == STB_GLOBAL || bind == STB_WEAK;
	}
	e->n_symbols = count;
	return 0;
}

int agb_elf_image_load(const char *path, struct agb_elf_image *out, char *err, size_t err_len)
{
	size_t len = 0;
	uint32_t symtab = 0;
	size_t names_len = 0;
	memset(out, 0, sizeof *out);
	unsigned char *b = slurp(path, &len, err, err_len);
	if (b == NULL)
		return -1;
	int rc = 0;
	if (len < 52u || memcmp(b, "\177ELF", 4) != 0)
		rc = fail(err, err_len, "not an ELF file");
	else if (b[4] != 1u || b[5] != 1u)
		rc = fail(err, err_len, "not a 32-bit little-endian ELF (a GBA game's is)");
	else {
		out->machine = rd16(b + 18);
		out->entry = rd32(b + 24);
		rc = load_sections(b, len, out, &symtab, &names_len, err, err_len);
		if (rc == 0 && symtab != 0u)
			rc = load_symbols(b, len, out, symtab, names_len, err, err_len);
	}
	free(b);
	if (rc != 0)
		agb_elf_image_release(out);
	return rc;
}

const struct agb_elf_section *agb_elf_image_section(const struct agb_elf_image *e, const char *name)
{
	for (size_t i = 0; i < e->n_sections; i++)
		if (strcmp(e->sections[i].name, name) == 0)
			return &e->sections[i];
	return NULL;
}

const struct agb_elf_symbol *agb_elf_image_symbol(const struct agb_elf_image *e, const char *name)
{
	for (size_t i = 0; i < e->n_symbols; i++)
		if (e->symbols[i].section != 0u && strcmp(e->symbols[i].name, name) == 0)
			return &e->symbols[i];
	return NULL;
}

void agb_elf_image_release(struct agb_elf_image *e)
{
	free(e->sections);
	free(e->symbols);
	free(e->strings);
	memset(e, 0, sizeof *e);
}
