/* Function symbols of an ELF little-endian object (64-bit hosts, 32-bit GBA games); see
 * elf_syms.h. Reads the file whole and checks every offset against its size before use. */
#include "trace/elf_syms.h"
#include "trace/trace_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHT_SYMTAB 2u
#define SHT_NOBITS 8u
#define SHT_DYNSYM 11u
#define STT_FUNC 2u
#define MAX_ELF_FILE ((size_t)32 << 20) /* the GBA cartridge space: no game is larger */

static uint64_t rd(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static int fail(char *err, size_t err_len, const char *why)
{
	snprintf(err, err_len, "%s", why);
	return -1;
}

/* Where the fields are in ELF64 and ELF32 files. */
struct layout {
	unsigned shdr_bytes, sym_bytes, w; /* w: bytes of an address or offset */
	unsigned sh_off, sh_size, sh_link, sh_entsize;
	unsigned st_value, st_size, st_info;
};
static const struct layout elf64 = {64, 24, 8, 24, 32, 40, 56, 8, 16, 4};
static const struct layout elf32 = {40, 16, 4, 16, 20, 24, 36, 4, 8, 12};

/* Section header I's (type, offset, size, link, entsize); 0 when it lies inside the file. */
struct shdr {
	uint64_t type, off, size, link, entsize;
};

static int section(const unsigned char *b, size_t len, const struct layout *L, uint64_t shoff,
		   uint64_t i, struct shdr *s)
{
	uint64_t at = shoff + i * L->shdr_bytes;
	if (at > len || len - at < L->shdr_bytes)
		return -1;
	const unsigned char *h = b + at;
	s->type = rd(h + 4, 4);
	s->off = rd(h + L->sh_off, L->w);
	s->size = rd(h + L->sh_size, L->w);
	s->link = rd(h + L->sh_link, 4);
	s->entsize = rd(h + L->sh_entsize, L->w);
	if (s->type == SHT_NOBITS)
		s->size = 0; /* .bss: occupies no bytes of the file */
	return s->off > len || len - s->off < s->size ? -1 : 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct agb_elf_sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Copies the function symbols of symbol table `tab` (strings in `str`) into out. */
static int collect(const unsigned char *b, const struct layout *L, const struct shdr *tab,
		   const struct shdr *str, struct agb_elf_symbols *out)
{
	size_t n = (size_t)(tab->size / L->sym_bytes), k = 0;
	out->syms = calloc(n != 0 ? n : 1u, sizeof *out->syms);
	out->strings = malloc(str->size + 1u);
	if (out->syms == NULL || out->strings == NULL)
		return -1;
	memcpy(out->strings, b + str->off, str->size);
	out->strings[str->size] = '\0';
	for (size_t i = 0; i < n; i++) {
		const unsigned char *s = b + tab->off + i * L->sym_bytes;
		uint64_t name = rd(s, 4), value = rd(s + L->st_value, L->w);
		if ((s[L->st_info] & 0xFu) != STT_FUNC || value == 0 || name >= str->size)
			continue;
		out->syms[k++] =
			(struct agb_elf_sym){value, rd(s + L->st_size, L->w), out->strings + name};
	}
	out->count = k;
	qsort(out->syms, k, sizeof *out->syms, by_addr);
	return 0;
}

int agb_elf_symbols_load(const char *path, struct agb_elf_symbols *out, char *err, size_t err_len)
{
	size_t len = 0;
	struct shdr tab = {0}, str;
	int found = 0;
	memset(out, 0, sizeof *out);
	char *text = NULL;
	if (agb_read_regular_file(path, MAX_ELF_FILE, &text, &len) != 0)
		return fail(err, err_len, "cannot read the file (or not a regular file)");
	unsigned char *b = (unsigned char *)text;
	if (len < 64u || memcmp(b, "\177ELF", 4) != 0 || (b[4] != 1u && b[4] != 2u) || b[5] != 1u) {
		free(b);
		return fail(err, err_len, "not an ELF little-endian file");
	}
	const struct layout *L = b[4] == 2u ? &elf64 : &elf32;
	out->bits = b[4] == 2u ? 64u : 32u;
	out->machine = (unsigned)rd(b + 18, 2);
	uint64_t shoff = b[4] == 2u ? rd(b + 40, 8) : rd(b + 32, 4);
	uint64_t shnum = b[4] == 2u ? rd(b + 60, 2) : rd(b + 48, 2);
	for (uint64_t i = 0; i < shnum; i++) {
		struct shdr s;
		if (section(b, len, L, shoff, i, &s) != 0) {
			free(b);
			return fail(err, err_len, "truncated section table");
		}
		/* .symtab names every function; .dynsym only the exported ones. */
		if (s.type == SHT_SYMTAB || (s.type == SHT_DYNSYM && !found)) {
			tab = s;
			found = s.type == SHT_SYMTAB ? 2 : 1;
		}
	}
	if (!found || section(b, len, L, shoff, tab.link, &str) != 0 || tab.entsize != L->sym_bytes) {
		free(b); /* bits and machine stay: the caller may say what kind of file had none */
		return fail(err, err_len, "no symbol table");
	}
	int rc = collect(b, L, &tab, &str, out);
	free(b);
	if (rc != 0) {
		agb_elf_symbols_release(out);
		return fail(err, err_len, "out of memory");
	}
	return 0;
}

const char *agb_elf_symbol_at(const struct agb_elf_symbols *s, uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi = s->count;
	while (lo < hi) { /* the last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2u;
		if (s->syms[mid].addr <= addr)
			lo = mid + 1u;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct agb_elf_sym *y = &s->syms[lo - 1u];
	if (y->size != 0 && addr - y->addr >= y->size)
		return NULL;
	if (offset != NULL)
		*offset = addr - y->addr;
	return y->name;
}

const struct agb_elf_sym *agb_elf_symbol_find(const struct agb_elf_symbols *s, const char *name)
{
	for (size_t i = 0; i < s->count; i++)
		if (strcmp(s->syms[i].name, name) == 0)
			return &s->syms[i];
	return NULL;
}

void agb_elf_symbols_release(struct agb_elf_symbols *s)
{
	free(s->syms);
	free(s->strings);
	memset(s, 0, sizeof *s);
}
