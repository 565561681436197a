/* The checking build's shared part (agb/heap.h, AGB_HEAP_CHECKED): is an address a live block,
 * and the record of refused calls. Freestanding; unused (and not linked) in a normal build. */
#include "agb/heap.h"

struct agb_heap_abuse agb_heap_abuse;

struct live_find {
	uint32_t addr, header;
	int found;
};

static void find_live(void *ctx, uint32_t addr, uint32_t bytes, enum agb_run_kind kind)
{
	struct live_find *f = ctx;
	if (kind == AGB_RUN_USED && bytes > f->header && f->addr == addr + f->header)
		f->found = 1;
}

int agb_heap_live_block(void *state, void (*walk)(void *state, agb_walk_fn fn, void *ctx),
			uint32_t addr, uint32_t header)
{
	struct live_find f = {addr, header, 0};
	if (addr == AGB_NULL)
		return 0;
	walk(state, find_live, &f);
	return f.found;
}

void agb_heap_refuse(const char *core, const char *op, uint32_t addr)
{
	agb_heap_abuse.count++;
	agb_heap_abuse.addr = addr;
	agb_heap_abuse.core = core;
	agb_heap_abuse.op = op;
}
