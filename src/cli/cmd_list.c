/* agbsim list: the cores compiled in. */
#include <stdio.h>
#include <string.h>

#include "agb/cores.h"
#include "cli/agbsim.h"
#include "cli/gba_only.h"

static void list_core(const struct agb_heap_core *c)
{
	char arenas[64] = "";
	for (int a = 0; a < AGB_ARENA_COUNT; a++) {
		if ((c->arenas & AGB_ARENA_BIT(a)) == 0)
			continue;
		size_t n = strlen(arenas);
		snprintf(arenas + n, sizeof arenas - n, "%s%s", n != 0 ? "," : "",
			 agb_arena_name((enum agb_arena)a));
	}
	printf("%-10s %-26s %6u  %s\n", c->name, arenas, c->unit, c->summary);
}

int agbsim_cmd_list(int argc, char **argv)
{
	(void)argv;
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("Usage: agbsim list\n\nLists every allocator core: name, the arenas it can "
		       "manage, its allocation unit\nand what it is. The GBA-only reference allocators "
		       "(newlib's malloc as a game\nlinks it) run only in the bench ROM: use "
		       "'agbsim measure' or 'agbsim bench --cycles=mgba'.\n");
		return AGBSIM_EXIT_OK;
	}
	if (argc > 1)
		return agbsim_usage_error("list", "unexpected argument '%s'", argv[1]);
	printf("%-10s %-26s %6s  %s\n", "allocator", "arenas", "unit", "summary");
	for (size_t i = 0; agb_heap_cores[i] != NULL; i++)
		list_core(agb_heap_cores[i]);
	/* Reference allocators that exist only in a bench ROM (their summary says "GBA-only"). */
	for (size_t i = 0; agb_reference_cores[i] != NULL; i++)
		list_core(agb_reference_cores[i]);
	return AGBSIM_EXIT_OK;
}
