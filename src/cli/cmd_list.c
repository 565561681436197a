/* agbsim list: the cores compiled in. */
#include <stdio.h>
#include <string.h>

#include "agb/cores.h"
#include "cli/agbsim.h"

int agbsim_cmd_list(int argc, char **argv)
{
	(void)argv;
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("Usage: agbsim list\n\nLists every allocator core: name, the arenas it can "
		       "manage, its allocation unit\nand what it is.\n");
		return AGBSIM_EXIT_OK;
	}
	if (argc > 1)
		return agbsim_usage_error("list", "unexpected argument '%s'", argv[1]);
	printf("%-10s %-26s %6s  %s\n", "allocator", "arenas", "unit", "summary");
	for (size_t i = 0; agb_heap_cores[i] != NULL; i++) {
		const struct agb_heap_core *c = agb_heap_cores[i];
		char arenas[64] = "";
		for (int a = 0; a < AGB_ARENA_COUNT; a++) {
			if ((c->arenas & AGB_ARENA_BIT(a)) == 0)
				continue;
			if (arenas[0] != '\0')
				strcat(arenas, ",");
			strcat(arenas, agb_arena_name((enum agb_arena)a));
		}
		printf("%-10s %-26s %6u  %s\n", c->name, arenas, c->unit, c->summary);
	}
	return AGBSIM_EXIT_OK;
}
