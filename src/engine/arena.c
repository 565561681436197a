/* Arena and op names and geometry shared by the loader, the engine and the reports. */
#include "agbsim/trace.h"

uint32_t agb_arena_region_bytes(enum agb_arena arena)
{
	static const uint32_t bytes[AGB_ARENA_COUNT] = {AGB_EWRAM_SIZE, AGB_VRAM_OBJ_SIZE,
	                                                AGB_VRAM_BG_SIZE, AGB_PAL_SIZE};
	return (unsigned)arena < AGB_ARENA_COUNT ? bytes[arena] : 0u;
}

uint32_t agb_arena_base(enum agb_arena arena)
{
	static const uint32_t base[AGB_ARENA_COUNT] = {AGB_MEM_EWRAM, AGB_MEM_VRAM_OBJ,
	                                               AGB_MEM_VRAM_BG, AGB_MEM_PAL};
	return (unsigned)arena < AGB_ARENA_COUNT ? base[arena] : AGB_NULL;
}

const char *agb_arena_name(enum agb_arena arena)
{
	static const char *const names[AGB_ARENA_COUNT] = {"ewram", "obj_vram", "bg_vram",
							   "pal_ram"};
	return (unsigned)arena < AGB_ARENA_COUNT ? names[arena] : "?";
}

const char *agb_op_name(enum agb_op op)
{
	static const char *const names[AGB_OP_COUNT] = {"alloc", "free",     "realloc",
							"frame", "ref",      "unref",
							"spr_show", "spr_z", "spr_hide",
							"mark",  "reset",    "side",
						"pal_load", "pal_free", "pal_push",
						"pal_pop", "sync", "lock", "unlock", "touch",
						"refused"};
	return (unsigned)op < AGB_OP_COUNT ? names[op] : "?";
}
