/* frames-demo: a host "game" for the recording test (tests/trace/record_frames.sh). It loads a
 * level (one loading frame), plays 30 frames in which entities spawn and die, each frame also
 * asking a "library" for a scratch buffer, then tears the level down (a second loading frame).
 * The frame marks come from scripts/agbsim-frame.h. Built with -O0 -g so every call site keeps
 * its function. */
#include <stdlib.h>
#include <string.h>

#include "agbsim-frame.h"

struct entity {
	struct entity *next;
	int x, y, hp;
};

static struct entity *live;

__attribute__((noinline)) static void *level_alloc(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static struct entity *spawn_entity(int x)
{
	struct entity *e = malloc(sizeof *e);
	if (e != NULL) {
		memset(e, 0, sizeof *e);
		e->x = x;
		e->next = live;
		live = e;
	}
	return e;
}

__attribute__((noinline)) static void *lib_scratch(size_t n)
{
	return malloc(n);
}

int main(void)
{
	void *tiles = level_alloc(4096), *map = level_alloc(2048);
	AGBSIM_LOAD_FRAME();
	for (int f = 0; f < 30; f++) {
		void *scratch = lib_scratch(256);
		spawn_entity(f);
		if (f % 3 == 2 && live != NULL && live->next != NULL) {
			struct entity *dead = live->next;
			live->next = dead->next;
			free(dead);
		}
		free(scratch);
		AGBSIM_FRAME();
	}
	while (live != NULL) {
		struct entity *e = live;
		live = e->next;
		free(e);
	}
	free(map);
	free(tiles);
	AGBSIM_LOAD_FRAME();
	return 0;
}
