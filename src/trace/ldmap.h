/* ldmap.h — the input sections of a GNU ld link map (-Wl,-Map=FILE): which object file, or
 * which member of which archive, put how many bytes at which address. `agbsim budget` uses it
 * to say what newlib (libc.a's members) and the other libraries cost in IWRAM and EWRAM. */
#ifndef AGB_TRACE_LDMAP_H
#define AGB_TRACE_LDMAP_H

#include <stddef.h>
#include <stdint.h>

struct agb_ldmap_entry {
	char section[64]; /* the input section's name (".bss", ".data.foo", "COMMON") */
	uint32_t addr, size;
	char archive[64]; /* the archive's file name ("libc.a"), "" for a plain object */
	char member[96];  /* the member ("lib_a-mallocr.o"), or the object's file name */
};

struct agb_ldmap {
	struct agb_ldmap_entry *e;
	size_t n, cap;
};

/* Reads the map at PATH: every input section with a nonzero size listed under "Linker script
 * and memory map". Returns 0, or -1 with the reason in err (unreadable, no memory map in it,
 * out of memory). O(file). */
int agb_ldmap_load(const char *path, struct agb_ldmap *out, char *err, size_t err_len);

void agb_ldmap_release(struct agb_ldmap *m);

#endif
