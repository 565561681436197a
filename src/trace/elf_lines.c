/* Source lines from DWARF line tables; see elf_lines.h. Every read goes through a cursor that
 * stops at its end: a table that lies about its sizes is refused, never read past. */
#include "trace/elf_lines.h"
#include "trace/trace_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELF_FILE ((size_t)32 << 20) /* as elf_syms.c: the cartridge space */
#define MAX_ROWS ((size_t)1 << 24)

/* DWARF constants (DWARF 5, section 6.2 and 7.5.6). */
enum {
	LNS_COPY = 1, LNS_ADVANCE_PC, LNS_ADVANCE_LINE, LNS_SET_FILE, LNS_SET_COLUMN,
	LNS_NEGATE_STMT, LNS_SET_BASIC_BLOCK, LNS_CONST_ADD_PC, LNS_FIXED_ADVANCE_PC,
	LNE_END_SEQUENCE = 1, LNE_SET_ADDRESS = 2,
	LNCT_PATH = 1,
	FORM_BLOCK2 = 0x03, FORM_BLOCK4 = 0x04, FORM_DATA2 = 0x05, FORM_DATA4 = 0x06,
	FORM_DATA8 = 0x07, FORM_STRING = 0x08, FORM_BLOCK = 0x09, FORM_BLOCK1 = 0x0a,
	FORM_DATA1 = 0x0b, FORM_SDATA = 0x0d, FORM_STRP = 0x0e, FORM_UDATA = 0x0f,
	FORM_DATA16 = 0x1e, FORM_LINE_STRP = 0x1f,
};

struct cursor {
	const unsigned char *p, *end;
	int bad; /* a read went past the end: every later read gives 0 */
};

static int take(struct cursor *c, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	return 1;
}

static uint64_t u(struct cursor *c, unsigned n)
{
	uint64_t v = 0;
	if (!take(c, n))
		return 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | c->p[i];
	c->p += n;
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		unsigned b = (unsigned)u(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7fu) << shift;
		if (c->bad || !(b & 0x80u))
			return v;
	}
}

static int64_t sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0, b;
	do {
		b = (unsigned)u(c, 1);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7fu) << shift;
		shift += 7;
	} while (!c->bad && (b & 0x80u));
	if (shift < 64 && (b & 0x40u))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static const char *cstr(struct cursor *c)
{
	const unsigned char *nul = c->bad ? NULL : memchr(c->p, 0, (size_t)(c->end - c->p));
	if (nul == NULL) {
		c->bad = 1;
		return "";
	}
	const char *s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

static void skip(struct cursor *c, uint64_t n)
{
	if (c->bad || n > (uint64_t)(c->end - c->p))
		c->bad = 1;
	else
		c->p += (size_t)n;
}

/* A string section (.debug_str, .debug_line_str) and the one at OFF in it ("" if none). */
struct strsec {
	const unsigned char *b;
	size_t size;
};

static const char *str_at(const struct strsec *s, uint64_t off)
{
	if (s->b == NULL || off >= s->size || memchr(s->b + off, 0, s->size - off) == NULL)
		return "";
	return (const char *)s->b + off;
}

struct builder {
	struct agb_elf_lines *out;
	size_t row_cap, file_cap;
	struct strsec str, line_str;
};

/* Interns a unit's file entry as its last path component; its index, or -1 (out of memory). */
static long add_file(struct builder *b, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	if (b->out->n_files == b->file_cap) {
		size_t cap = b->file_cap != 0 ? b->file_cap * 2u : 64u;
		char **f = realloc(b->out->files, cap * sizeof *f);
		if (f == NULL)
			return -1;
		b->out->files = f;
		b->file_cap = cap;
	}
	size_t n = strlen(base);
	char *copy = malloc(n + 1u);
	if (copy == NULL)
		return -1;
	memcpy(copy, base, n + 1u);
	b->out->files[b->out->n_files] = copy;
	return (long)b->out->n_files++;
}

static int add_row(struct builder *b, uint32_t addr, uint32_t line, uint32_t file)
{
	if (b->out->count == b->row_cap) {
		if (b->row_cap >= MAX_ROWS)
			return 0; /* enough to name call sites: later rows are dropped */
		size_t cap = b->row_cap != 0 ? b->row_cap * 2u : 1024u;
		struct agb_elf_line_row *r = realloc(b->out->rows, cap * sizeof *r);
		if (r == NULL)
			return -1;
		b->out->rows = r;
		b->row_cap = cap;
	}
	b->out->rows[b->out->count] = (struct agb_elf_line_row){addr, line, file, (uint32_t)b->out->count};
	b->out->count++;
	return 0;
}

/* One attribute value of form FORM: a string for LNCT_path, skipped otherwise. */
static const char *form_value(struct builder *b, struct cursor *c, uint64_t form)
{
	switch (form) {
	case FORM_STRING: return cstr(c);
	case FORM_LINE_STRP: return str_at(&b->line_str, u(c, 4));
	case FORM_STRP: return str_at(&b->str, u(c, 4));
	case FORM_DATA1: skip(c, 1); return NULL;
	case FORM_DATA2: skip(c, 2); return NULL;
	case FORM_DATA4: skip(c, 4); return NULL;
	case FORM_DATA8: skip(c, 8); return NULL;
	case FORM_DATA16: skip(c, 16); return NULL;
	case FORM_UDATA: uleb(c); return NULL;
	case FORM_SDATA: sleb(c); return NULL;
	case FORM_BLOCK: skip(c, uleb(c)); return NULL;
	case FORM_BLOCK1: skip(c, u(c, 1)); return NULL;
	case FORM_BLOCK2: skip(c, u(c, 2)); return NULL;
	case FORM_BLOCK4: skip(c, u(c, 4)); return NULL;
	default: c->bad = 1; return NULL; /* a form this reader does not know: the unit is skipped */
	}
}

/* DWARF 5's directory or file table: its entry format, then its entries. Files are interned and
 * their indices written to files[0..*n) (at most cap; NULL for the directories). */
static int v5_table(struct builder *b, struct cursor *c, long *files, size_t cap, size_t *n)
{
	uint64_t fmt[16][2];
	unsigned nfmt = (unsigned)u(c, 1);
	if (nfmt > 16u) {
		c->bad = 1;
		return 0;
	}
	for (unsigned i = 0; i < nfmt; i++) {
		fmt[i][0] = uleb(c);
		fmt[i][1] = uleb(c);
	}
	uint64_t count = uleb(c);
	for (uint64_t k = 0; k < count && !c->bad; k++) {
		const char *path = "";
		for (unsigned i = 0; i < nfmt; i++) {
			const char *v = form_value(b, c, fmt[i][1]);
			if (fmt[i][0] == LNCT_PATH && v != NULL)
				path = v;
		}
		if (files != NULL && *n < cap && !c->bad) {
			long f = add_file(b, path);
			if (f < 0)
				return -1;
			files[(*n)++] = f;
		}
	}
	return 0;
}

/* The file tables of a unit's header (after its standard opcode lengths) into files[], *n of
 * them, indexed as its program's set_file does (DWARF 5 from 0, earlier versions from 1). */
static int file_tables(struct builder *b, struct cursor *c, unsigned version, long *files,
                       size_t cap, size_t *n)
{
	*n = 0;
	if (version >= 5) {
		if (v5_table(b, c, NULL, 0, n) != 0)
			return -1;
		return v5_table(b, c, files, cap, n);
	}
	while (!c->bad && *cstr(c) != '\0') /* include_directories: one string each */
		;
	files[(*n)++] = -1; /* index 0: none before DWARF 5 */
	for (;;) {
		const char *name = cstr(c);
		if (c->bad || *name == '\0')
			return 0;
		uleb(c); /* directory index, mtime, length */
		uleb(c);
		uleb(c);
		if (*n < cap) {
			long f = add_file(b, name);
			if (f < 0)
				return -1;
			files[(*n)++] = f;
		}
	}
}

struct header {
	unsigned min_inst, line_range, opcode_base;
	int line_base;
	unsigned char std_len[256];
};

/* Runs a unit's line program over prog, adding its rows. Returns 0 or -1 (out of memory). */
static int run_program(struct builder *b, struct cursor *prog, const struct header *h,
                       const long *files, size_t n_files)
{
	uint32_t addr = 0, line = 1;
	uint64_t file = 1;
	while (prog->p < prog->end && !prog->bad) {
		unsigned op = (unsigned)u(prog, 1);
		int emit = 0, end = 0;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			addr += (adj / h->line_range) * h->min_inst;
			line += (uint32_t)(h->line_base + (int)(adj % h->line_range));
			emit = 1;
		} else if (op == 0) {
			uint64_t len = uleb(prog);
			if (prog->bad || len == 0 || len > (uint64_t)(prog->end - prog->p)) {
				prog->bad = 1; /* the rest of this unit is not read */
				return 0;
			}
			const unsigned char *next = prog->p + (size_t)len;
			unsigned sub = (unsigned)u(prog, 1);
			if (sub == LNE_END_SEQUENCE)
				emit = end = 1;
			else if (sub == LNE_SET_ADDRESS && len == 5u)
				addr = (uint32_t)u(prog, 4);
			prog->p = next;
		} else if (op == LNS_COPY) {
			emit = 1;
		} else if (op == LNS_ADVANCE_PC) {
			addr += (uint32_t)uleb(prog) * h->min_inst;
		} else if (op == LNS_ADVANCE_LINE) {
			line += (uint32_t)sleb(prog);
		} else if (op == LNS_SET_FILE) {
			file = uleb(prog);
		} else if (op == LNS_CONST_ADD_PC) {
			addr += ((255u - h->opcode_base) / h->line_range) * h->min_inst;
		} else if (op == LNS_FIXED_ADVANCE_PC) {
			addr += (uint32_t)u(prog, 2);
		} else {
			for (unsigned i = 0; i < h->std_len[op]; i++) /* set_column, isa, ...: skipped */
				uleb(prog);
		}
		if (!emit || prog->bad)
			continue;
		long f = file < n_files ? files[file] : -1;
		/* An end row needs some file to index; with none interned there is no row to end. */
		if ((end && b->out->n_files > 0) || f >= 0)
			if (add_row(b, addr, end ? 0u : line, f >= 0 ? (uint32_t)f : 0u) != 0)
				return -1;
		if (end) {
			addr = 0;
			line = 1;
			file = 1;
		}
	}
	return 0;
}

/* One unit at c (its length first). Returns 0 (read, or skipped when its format is not read
 * here), -1 out of memory, -2 a unit that runs past the section. */
static int unit(struct builder *b, struct cursor *c)
{
	uint64_t length = u(c, 4);
	if (length == 0xffffffffu) { /* 64-bit DWARF: not read here, skipped whole */
		length = u(c, 8);
		if (c->bad || length > (uint64_t)(c->end - c->p))
			return -2;
		c->p += (size_t)length;
		return 0;
	}
	if (c->bad || length > (uint64_t)(c->end - c->p))
		return -2;
	struct cursor all = {c->p, c->p + (size_t)length, 0};
	c->p += (size_t)length;
	unsigned version = (unsigned)u(&all, 2);
	if (length == 0 || version < 2 || version > 5)
		return 0;
	if (version >= 5 && (u(&all, 1) != 4u || u(&all, 1) != 0u)) /* address, selector sizes */
		return 0;
	uint64_t header_length = u(&all, 4);
	if (all.bad || header_length > (uint64_t)(all.end - all.p))
		return -2;
	struct cursor hdr = {all.p, all.p + (size_t)header_length, 0};
	struct cursor prog = {all.p + (size_t)header_length, all.end, 0};
	struct header h;
	memset(&h, 0, sizeof h);
	h.min_inst = (unsigned)u(&hdr, 1);
	if (version >= 4)
		u(&hdr, 1); /* maximum_operations_per_instruction: 1 on ARM */
	u(&hdr, 1);     /* default_is_stmt */
	h.line_base = (int)(signed char)u(&hdr, 1);
	h.line_range = (unsigned)u(&hdr, 1);
	h.opcode_base = (unsigned)u(&hdr, 1);
	if (hdr.bad || h.line_range == 0 || h.opcode_base == 0)
		return 0;
	for (unsigned i = 1; i < h.opcode_base; i++)
		h.std_len[i] = (unsigned char)u(&hdr, 1);
	long files[4096];
	size_t n_files = 0;
	if (file_tables(b, &hdr, version, files, sizeof files / sizeof files[0], &n_files) != 0)
		return -1;
	if (hdr.bad)
		return 0;
	return run_program(b, &prog, &h, files, n_files);
}

static int by_addr(const void *x, const void *y)
{
	const struct agb_elf_line_row *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if ((a->line != 0) != (b->line != 0)) /* an end first: the next sequence starts there */
		return a->line != 0 ? 1 : -1;
	return (a->order > b->order) - (a->order < b->order); /* then as the programs ran */
}

static int fail(char *err, size_t err_len, const char *why)
{
	snprintf(err, err_len, "%s", why);
	return -1;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Section NAME of the ELF32 in b[0..len): its bytes, or NULL (absent, or outside the file). */
static const unsigned char *find_section(const unsigned char *b, size_t len, const char *name,
                                         size_t *size)
{
	uint32_t shoff = rd32(b + 32);
	unsigned shnum = (unsigned)b[48] | (unsigned)b[49] << 8;
	unsigned shstrndx = (unsigned)b[50] | (unsigned)b[51] << 8;
	if (shoff > len || (size_t)shnum * 40u > len - shoff || shstrndx >= shnum)
		return NULL;
	const unsigned char *names = b + shoff + (size_t)shstrndx * 40u;
	uint32_t noff = rd32(names + 16), nsize = rd32(names + 20);
	if (noff > len || nsize > len - noff)
		return NULL;
	for (unsigned i = 0; i < shnum; i++) {
		const unsigned char *h = b + shoff + (size_t)i * 40u;
		uint32_t n = rd32(h), off = rd32(h + 16), sz = rd32(h + 20);
		if (n >= nsize || memchr(b + noff + n, 0, nsize - n) == NULL ||
		    strcmp((const char *)b + noff + n, name) != 0)
			continue;
		if (rd32(h + 4) == 8u || off > len || sz > len - off) /* NOBITS, or outside */
			return NULL;
		*size = sz;
		return b + off;
	}
	return NULL;
}

int agb_elf_lines_load(const char *path, struct agb_elf_lines *out, char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0, line_size = 0;
	memset(out, 0, sizeof *out);
	if (agb_read_regular_file(path, MAX_ELF_FILE, &text, &len) != 0)
		return fail(err, err_len, "cannot read the file (or not a regular file)");
	const unsigned char *b = (const unsigned char *)text;
	if (len < 52u || memcmp(b, "\177ELF", 4) != 0 || b[4] != 1u || b[5] != 1u) {
		free(text);
		return fail(err, err_len, "not an ELF32 little-endian file");
	}
	struct builder bl = {out, 0, 0, {NULL, 0}, {NULL, 0}};
	const unsigned char *lines = find_section(b, len, ".debug_line", &line_size);
	bl.str.b = find_section(b, len, ".debug_str", &bl.str.size);
	bl.line_str.b = find_section(b, len, ".debug_line_str", &bl.line_str.size);
	struct cursor c = {lines, lines != NULL ? lines + line_size : NULL, 0};
	int rc = 0;
	while (lines != NULL && rc == 0 && c.p < c.end)
		rc = unit(&bl, &c);
	free(text);
	if (rc != 0) {
		agb_elf_lines_release(out);
		return fail(err, err_len, rc == -1 ? "out of memory" : "a line table runs past .debug_line");
	}
	if (out->count > 1u)
		qsort(out->rows, out->count, sizeof *out->rows, by_addr);
	return 0;
}

const char *agb_elf_line_at(const struct agb_elf_lines *l, uint32_t addr, uint32_t *line)
{
	size_t lo = 0, hi = l->count;
	addr &= ~1u;
	while (lo < hi) { /* the first row above addr */
		size_t mid = lo + (hi - lo) / 2u;
		if (l->rows[mid].addr <= addr)
			lo = mid + 1u;
		else
			hi = mid;
	}
	if (lo == 0 || l->rows[lo - 1u].line == 0)
		return NULL;
	*line = l->rows[lo - 1u].line;
	return l->files[l->rows[lo - 1u].file];
}

void agb_elf_lines_release(struct agb_elf_lines *l)
{
	for (size_t i = 0; i < l->n_files; i++)
		free(l->files[i]);
	free(l->files);
	free(l->rows);
	memset(l, 0, sizeof *l);
}
