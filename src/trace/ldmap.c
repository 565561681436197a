/* The input sections of a GNU ld link map (see ldmap.h). An input section line is
 *   " NAME  0xADDR  0xSIZE  FILE"
 * or, when NAME is long, " NAME" alone and "  0xADDR 0xSIZE FILE" on the next line; FILE is an
 * object's path or "ARCHIVE(MEMBER)". Symbol lines ("  0xADDR  NAME") and script lines are
 * skipped. */
#include "trace/ldmap.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t n, const char *why)
{
	snprintf(err, n, "%s", why);
	return -1;
}

static void copy(char *dst, size_t n, const char *src, size_t len)
{
	if (len >= n)
		len = n - 1u;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* "path/libc.a(lib_a-mallocr.o)" -> archive "libc.a", member "lib_a-mallocr.o"; "dir/x.o" ->
 * archive "", member "x.o". */
static void split_file(const char *file, struct agb_ldmap_entry *e)
{
	size_t len = strlen(file);
	const char *open = strchr(file, '(');
	if (open != NULL && len > 0 && file[len - 1] == ')') {
		const char *slash = open;
		while (slash > file && slash[-1] != '/')
			slash--;
		copy(e->archive, sizeof e->archive, slash, (size_t)(open - slash));
		copy(e->member, sizeof e->member, open + 1, (size_t)(file + len - 1 - open - 1));
	} else {
		const char *slash = strrchr(file, '/');
		e->archive[0] = '\0';
		copy(e->member, sizeof e->member, slash ? slash + 1 : file,
		     strlen(slash ? slash + 1 : file));
	}
}

static int push(struct agb_ldmap *m, const struct agb_ldmap_entry *e)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2u : 256u;
		struct agb_ldmap_entry *ne = realloc(m->e, cap * sizeof *ne);
		if (ne == NULL)
			return -1;
		m->e = ne;
		m->cap = cap;
	}
	m->e[m->n++] = *e;
	return 0;
}

/* "0xADDR 0xSIZE FILE" at p: 1 when it is that, with the fields. */
static int addr_size_file(const char *p, uint32_t *addr, uint32_t *size, char *file, size_t n)
{
	char *end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "0x", 2) != 0)
		return 0;
	unsigned long long a = strtoull(p, &end, 16);
	if (end == p || (*end != ' ' && *end != '\t'))
		return 0;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "0x", 2) != 0)
		return 0;
	unsigned long long s = strtoull(p, &end, 16);
	if (end == p || (*end != ' ' && *end != '\t'))
		return 0;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t len = strcspn(p, "\r\n");
	if (len == 0 || a > 0xFFFFFFFFull || s > 0xFFFFFFFFull)
		return 0;
	copy(file, n, p, len);
	*addr = (uint32_t)a;
	*size = (uint32_t)s;
	return 1;
}

int agb_ldmap_load(const char *path, struct agb_ldmap *out, char *err, size_t err_len)
{
	FILE *f = fopen(path, "r");
	char line[4096], pending[64] = "", file[1024];
	int in_map = 0;
	memset(out, 0, sizeof *out);
	if (f == NULL)
		return fail(err, err_len, "cannot open the link map");
	while (fgets(line, sizeof line, f) != NULL) {
		struct agb_ldmap_entry e;
		uint32_t addr, size;
		if (!in_map) {
			in_map = strncmp(line, "Linker script and memory map", 28) == 0;
			continue;
		}
		memset(&e, 0, sizeof e);
		if (pending[0] != '\0') {
			int ok = addr_size_file(line, &addr, &size, file, sizeof file);
			copy(e.section, sizeof e.section, pending, strlen(pending));
			pending[0] = '\0';
			if (ok && size != 0u) {
				e.addr = addr;
				e.size = size;
				split_file(file, &e);
				if (push(out, &e) != 0)
					goto oom;
			}
			if (ok)
				continue;
		}
		/* An input section: one space, then a name (not '*', a script pattern). */
		if (line[0] != ' ' || line[1] == ' ' || line[1] == '*' || line[1] == '\n' ||
		    !(isalnum((unsigned char)line[1]) || line[1] == '.' || line[1] == '_'))
			continue;
		size_t nl = strcspn(line + 1, " \t\r\n");
		const char *rest = line + 1 + nl;
		if (strspn(rest, " \t\r\n") ==
		    strlen(rest)) { /* the name alone: fields next line */
			copy(pending, sizeof pending, line + 1, nl);
			continue;
		}
		if (addr_size_file(rest, &addr, &size, file, sizeof file) && size != 0u) {
			copy(e.section, sizeof e.section, line + 1, nl);
			e.addr = addr;
			e.size = size;
			split_file(file, &e);
			if (push(out, &e) != 0)
				goto oom;
		}
	}
	fclose(f);
	if (!in_map) {
		agb_ldmap_release(out);
		return fail(err, err_len,
		            "not a GNU ld link map (no \"Linker script and memory map\")");
	}
	return 0;
oom:
	fclose(f);
	agb_ldmap_release(out);
	return fail(err, err_len, "out of memory");
}

void agb_ldmap_release(struct agb_ldmap *m)
{
	free(m->e);
	memset(m, 0, sizeof *m);
}
