/* The one registry of cores: those compiled into agbmem, by --allocator= name, and the
 * reference allocators that exist only inside a GBA bench ROM. */
#include "agb/cores.h"

#include <stddef.h>

const struct agb_heap_core *const agb_heap_cores[] = {
	&agb_tree_core,
	&agb_bestfit_core,
	&agb_tiles_core,
	&agb_obj_core,
	&agb_obj_fast_core,
	&agb_oam_core,
	&agb_tlsf_core,
	&agb_buddy_core,
	&agb_firstfit_core,
	&agb_slots_core,
	&agb_bump_core,
	&agb_stack2_core,
	&agb_palbanks_core,
	&agb_palstack_core,
	NULL,
};

/* Descriptor entries: name, summary, arenas and unit; every function pointer is NULL (the
 * allocator is newlib's, linked into its bench ROM; src/gba/roms/newlib_core.c). */
static const struct agb_heap_core agb_newlib_reference = {
	.name = "newlib",
	.summary = "GBA-only reference: newlib's malloc (libc.a, dlmalloc 2.6.4) as a game links it",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM),
	.unit = 8,
};
static const struct agb_heap_core agb_newlib_nano_reference = {
	.name = "newlib-nano",
	.summary = "GBA-only reference: newlib-nano's malloc (libc_nano.a) as a game links it",
	.arenas = AGB_ARENA_BIT(AGB_ARENA_EWRAM),
	.unit = 8,
};

const struct agb_heap_core *const agb_reference_cores[] = {
	&agb_newlib_reference,
	&agb_newlib_nano_reference,
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

const struct agb_heap_core *agb_reference_core_find(const char *name)
{
	for (size_t i = 0; name != NULL && agb_reference_cores[i] != NULL; i++)
		if (names_equal(agb_reference_cores[i]->name, name))
			return agb_reference_cores[i];
	return NULL;
}

const struct agb_heap_core *agb_heap_core_default(enum agb_arena arena)
{
	if (arena == AGB_ARENA_BG_VRAM)
		return &agb_tiles_core;
	/* obj-fast: the same placements as the seed's obj at a fraction of the worst-case cost,
	 * and a quarter of its metadata. (The CLI picks oam for traces with spr_* ops.) */
	if (arena == AGB_ARENA_OBJ_VRAM)
		return &agb_obj_fast_core;
	/* palstack serves every palette op (palbanks has no stack), so any pal trace replays. */
	if (arena == AGB_ARENA_PAL_RAM)
		return &agb_palstack_core;
	/* bestfit: the recommended heap (docs/recommendation.md). */
	return &agb_bestfit_core;
}
