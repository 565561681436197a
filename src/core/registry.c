/* The cores compiled into agbmem, by --allocator= name. */
#include "agb/cores.h"

#include <stddef.h>

const struct agb_heap_core *const agb_heap_cores[] = {
	&agb_tree_core,
	&agb_tiles_core,
	NULL,
};

static int names_equal(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct agb_heap_core *agb_heap_core_find(const char *name)
{
	for (size_t i = 0; agb_heap_cores[i] != NULL; i++)
		if (names_equal(agb_heap_cores[i]->name, name))
			return agb_heap_cores[i];
	return NULL;
}

const struct agb_heap_core *agb_heap_core_default(enum agb_arena arena)
{
	if (arena == AGB_ARENA_BG_VRAM)
		return &agb_tiles_core;
	return &agb_tree_core;
}
