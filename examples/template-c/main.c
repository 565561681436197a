/* template-c — start a GBA game in C on agbmem: malloc is agbmem's drop-in heap, the runtime is
 * agbmem's (crt0, gba.ld, newlib's syscalls), nothing else is needed. Copy this directory and
 * build it against an installed agbmem (docs/using-agbmem.md):
 *
 *   cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=<prefix>/lib/cmake/agbmem/arm-none-eabi-gba.cmake \
 *         -Dagbmem_DIR=<prefix>/lib/cmake/agbmem
 *   cmake --build build            # build/template-c.gba
 *
 * What it shows: entities with strdup'd names on malloc/free, a growing array on realloc, the
 * heap's figures (agb_malloc_stats) and its out-of-memory hook. printf goes to mGBA's log.
 * GAME_FRAMES 0 runs forever, as a game does; the suite builds it with a count and checks the
 * log (tests/gba, gba_template_c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agb/malloc.h"

#ifndef GAME_FRAMES
#define GAME_FRAMES 0
#endif

#define REG_DISPCNT (*(volatile uint16_t *)0x04000000)
#define REG_VCOUNT (*(volatile uint16_t *)0x04000006)
#define BG_PALETTE ((volatile uint16_t *)0x05000000)

struct entity {
	int x, y, dx;
	char *name;
	struct entity *next;
};

static struct entity *entities;
static int *scores;
static unsigned score_count, score_cap;

static void wait_vblank(void)
{
	while (REG_VCOUNT >= 160)
		;
	while (REG_VCOUNT < 160)
		;
}

static void on_out_of_memory(size_t request, size_t align, const struct agb_malloc_stats *s)
{
	printf("out of memory: %u bytes (align %u); used %u, free %u, largest free %u\n",
	       (unsigned)request, (unsigned)align, (unsigned)s->used_bytes, (unsigned)s->free_bytes,
	       (unsigned)s->largest_free);
}

static int spawn(unsigned n)
{
	char name[24];
	struct entity *e = malloc(sizeof *e);
	if (e == NULL)
		return 0;
	snprintf(name, sizeof name, "slime-%u", n);
	e->name = strdup(name); /* newlib's strdup: its _malloc_r is the drop-in heap too */
	e->x = (int)(n * 37u % 240u);
	e->y = (int)(n * 53u % 160u);
	e->dx = (n & 1u) ? 1 : -1;
	e->next = entities;
	entities = e;
	return e->name != NULL;
}

static void despawn_first(void)
{
	struct entity *e = entities;
	if (e == NULL)
		return;
	entities = e->next;
	free(e->name);
	free(e);
}

static void add_score(int v)
{
	if (score_count == score_cap) {
		unsigned cap = score_cap ? score_cap * 2u : 8u;
		int *grown = realloc(scores, cap * sizeof *grown);
		if (grown == NULL)
			return;
		scores = grown;
		score_cap = cap;
	}
	scores[score_count++] = v;
}

int main(void)
{
	agb_malloc_set_oom_hook(on_out_of_memory);
	REG_DISPCNT = 0; /* mode 0, no layers: the backdrop colour shows */
	BG_PALETTE[0] = 0x7C00; /* blue */
	printf("template-c: start\n");
	/* stdio's own buffers (allocated by that first printf) stay: what the game frees is
	 * judged against this. */
	struct agb_malloc_stats start;
	agb_malloc_stats(&start);

	unsigned spawned = 0;
	for (unsigned frame = 0; GAME_FRAMES == 0 || frame < GAME_FRAMES; frame++) {
		wait_vblank();
		if (frame % 3u == 0u && spawn(spawned))
			spawned++;
		if (frame % 5u == 4u)
			despawn_first();
		for (struct entity *e = entities; e != NULL; e = e->next)
			e->x = (e->x + e->dx + 240) % 240;
		add_score((int)frame);
	}

	struct agb_malloc_stats s;
	agb_malloc_stats(&s);
	printf("template-c: %u frames, %u spawned, %u blocks live, used %u, peak %u, pool %u\n",
	       (unsigned)GAME_FRAMES, spawned, (unsigned)s.live_blocks, (unsigned)s.used_bytes,
	       (unsigned)s.peak_used, (unsigned)s.pool_bytes);

	void *too_big = malloc(s.pool_bytes); /* refused: the hook prints why */
	printf("template-c: a pool-sized request %s\n", too_big ? "was served" : "was refused");

	while (entities != NULL)
		despawn_first();
	free(scores);
	agb_malloc_stats(&s);
	printf("template-c: after freeing everything: %u blocks live, used %u (stdio's: %u, %u)\n",
	       (unsigned)s.live_blocks, (unsigned)s.used_bytes, (unsigned)start.live_blocks,
	       (unsigned)start.used_bytes);
	return s.live_blocks == start.live_blocks && s.used_bytes == start.used_bytes && too_big == NULL
		       ? 0
		       : 1;
}
