/* record_zone.c — agbsim-record-zone.gba, the test ROM of `agbsim record` on a game as real games
 * are built (issue 32): -flto -O2, its own zone allocator inside one block of newlib's heap, a
 * level load behind forced blank, and an ending in its own out-of-memory error.
 *
 * - Boot: malloc of the largest block newlib grants, asking 4 bytes less after each refusal (a
 *   retry loop), then Z_Malloc/Z_Free run a first-fit zone inside that block.
 * - LTO: Z_Malloc(size, tag) is called with constant tags, so GCC clones it
 *   (Z_Malloc.constprop.N); the tests check with nm that the clones are there.
 * - Frames 0-3 after boot: the level load, forced blank on (DISPCNT bit 7), the level's blocks
 *   from two call sites (load_level and spawn).
 * - Then gameplay: one spawn a frame, freed 3 frames later, and one block kept per frame that is
 *   never freed, until the zone is full: Z_Malloc's failure path calls Z_Error, which prints
 *   "Z_Malloc: failure" and parks the CPU in a loop with the display off.
 *
 * Its log ("zone ..." lines) gives the block newlib granted after how many refusals, the first
 * gameplay frame, and at the error the zone calls made; tests/gba/record_zone_check.py holds the
 * recordings to it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "agb_gba.h"

#define REG_DISPCNT  0x04000000u
#define REG_DISPSTAT 0x04000004u
#define REG_IF       0x04000202u
#define ZONE_CAP     (72u * 1024u) /* the boot's first ask: more than newlib can give */
#define LOAD_FRAMES  4u
#define TAG_LEVEL    1u
#define TAG_ACTOR    2u
#define TAG_STATIC   3u

void *_sbrk(ptrdiff_t incr);
static uint32_t brk_now;

/* newlib's memory source: 64 KiB of EWRAM after the image, so that the boot's first tries are
 * refused. */
void *_sbrk(ptrdiff_t incr)
{
	uint32_t old = brk_now ? brk_now : (uint32_t)(uintptr_t)__ewram_free_start;
	uint32_t limit = (uint32_t)(uintptr_t)__ewram_free_start + 64u * 1024u;
	if (incr >= 0 ? (uint32_t)incr > limit - old : (uint32_t)-incr > old - 0x02000000u)
		return (void *)-1;
	brk_now = old + (uint32_t)incr;
	return (void *)(uintptr_t)old;
}

/* ---- the zone: first fit over headers inside one malloc'd block --------------------------- */
struct zhead {
	uint32_t size; /* bytes of the block with its header; bit 0: in use */
	uint32_t tag;
};

static uint8_t *zone;
static uint32_t zone_bytes;
static volatile uint32_t game_frame, n_allocs, n_frees;

__attribute__((noinline, noreturn)) void Z_Error(const char *what, uint32_t n)
{
	agb_printf("zone error %s %u at frame %u after %u allocs %u frees", what, (unsigned)n,
	           (unsigned)game_frame, (unsigned)n_allocs, (unsigned)n_frees);
	AGB_REG16(REG_DISPCNT) = 0x0080u; /* forced blank: the error screen */
	for (;;)
		__asm__ volatile("" ::: "memory");
}

/* user: where to store the block too (a Doom-style owner pointer), or NULL. Long-lived tags
 * search from the zone's upper half first, so that they pack away from the churn. */
__attribute__((noinline)) void *Z_Malloc(uint32_t size, uint32_t tag, void **user)
{
	uint32_t need = (size + sizeof(struct zhead) + 7u) & ~7u;
	if (tag == TAG_STATIC && need > 1024u)
		need += 8u; /* room for the owner's back pointer */
	for (uint32_t at = 0; at < zone_bytes;) {
		struct zhead *h = (struct zhead *)(void *)(zone + at);
		uint32_t sz = h->size & ~1u;
		if (!(h->size & 1u) && sz >= need) {
			if (sz - need >= 16u) {
				struct zhead *rest = (struct zhead *)(void *)(zone + at + need);
				rest->size = sz - need;
				rest->tag = 0;
				sz = need;
			}
			h->size = sz | 1u;
			h->tag = tag;
			if (user != NULL)
				*user = h + 1;
			n_allocs++;
			return h + 1;
		}
		at += sz;
	}
	Z_Error("Z_Malloc: failure", size);
}

__attribute__((noinline)) void Z_Free(void *p)
{
	struct zhead *h = (struct zhead *)p - 1;
	h->size &= ~1u;
	n_frees++;
	/* merge with the free blocks after it */
	for (;;) {
		uint8_t *next = (uint8_t *)h + h->size;
		if (next >= zone + zone_bytes)
			break;
		struct zhead *n = (struct zhead *)(void *)next;
		if (n->size & 1u)
			break;
		h->size += n->size;
	}
}

static void zone_init(void)
{
	uint32_t ask = ZONE_CAP, refused = 0;
	while ((zone = malloc(ask)) == NULL) { /* the retry loop: 4 bytes less each time */
		ask -= 4u;
		refused++;
	}
	zone_bytes = ask & ~7u;
	((struct zhead *)(void *)zone)->size = zone_bytes;
	agb_printf("zone block %u bytes after %u refused", (unsigned)zone_bytes, (unsigned)refused);
}

/* ---- the game ----------------------------------------------------------------------------- */
static void *level[8];
static void *actors[4];
static void *statics[64];

__attribute__((noinline)) void *spawn(uint32_t size)
{
	return Z_Malloc(size, TAG_ACTOR, NULL);
}

__attribute__((noinline)) void load_level(uint32_t part)
{
	(void)Z_Malloc(1024u + part * 256u, TAG_LEVEL, &level[part * 2u]);
	(void)Z_Malloc(512u, TAG_LEVEL, &level[part * 2u + 1u]);
}

static void wait_vblank(void)
{
	while ((AGB_REG16(REG_IF) & 1u) == 0)
		;
	AGB_REG16(REG_IF) = 1u;
}

int main(void)
{
	AGB_REG16(REG_DISPSTAT) = 1u << 3;
	AGB_REG16(REG_IF) = 1u;
	agb_init();
	zone_init();
	for (uint32_t f = 0;; f++) {
		wait_vblank();
		game_frame = f;
		if (f < LOAD_FRAMES) {
			AGB_REG16(REG_DISPCNT) = 0x0080u; /* forced blank while the level loads */
			load_level(f);
			continue;
		}
		if (f == LOAD_FRAMES)
			agb_printf("zone gameplay from frame %u", (unsigned)f);
		AGB_REG16(REG_DISPCNT) = 0x1100u; /* BG0 and OBJ on */
		uint32_t k = f % 4u;
		if (actors[k] != NULL)
			Z_Free(actors[k]);
		actors[k] = spawn(200u + 8u * k);
		statics[f % 64u] = Z_Malloc(1500u + 8u * (f & 1u), TAG_STATIC, NULL); /* kept */
	}
}
