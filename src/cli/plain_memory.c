/* agbsim-plain only: GBA regions mapped at their own addresses, so cores built with
 * AGB_PLAIN_MEMORY run with plain loads and stores (the simulation-overhead baseline). */
#ifdef AGB_PLAIN_MEMORY
#include <stdint.h>

#include "agb/machine.h"
#include "platform/platform.h"

int agb_plain_map_regions(void)
{
	static const struct {
		uint32_t addr, size;
	} regions[] = {{AGB_MEM_EWRAM, AGB_EWRAM_SIZE},
	               {AGB_MEM_IWRAM, AGB_IWRAM_SIZE},
	               {AGB_MEM_VRAM, AGB_VRAM_SIZE},
	               {AGB_MEM_OAM, 0x1000u},
	               {AGB_MEM_PAL, 0x1000u}};
	static int mapped;
	if (mapped)
		return 0;
	for (unsigned i = 0; i < sizeof regions / sizeof regions[0]; i++)
		if (agb_map_fixed(regions[i].addr, regions[i].size) != 0)
			return -1;
	mapped = 1;
	return 0;
}
#else
/* The counting build has nothing to map. */
typedef int agbsim_plain_memory_unused;
#endif
