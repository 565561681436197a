/* bestfit_abuse_seq.h — one sequence of bad addresses handed to bestfit's free and realloc,
 * run by agbsim-bestfit-abuse*.gba (src/gba/roms/bestfit_abuse.c: bestfit as Thumb in ROM, or as ARM
 * in IWRAM) and by the host test that boots those ROMs (tests/gba/test_mgba_bestfit_abuse.c,
 * the host build of the core), which compares the two records word for word.
 *
 * A pool is prepared as a game does (control in the meta area), a few blocks allocated (short
 * runs, long runs above AGB_BESTFIT_SMALL blocks, the last next to the top run) and filled; then
 * free and realloc get every kind of address that is not a live block's (include/agb/bestfit.h,
 * "Abuse"): interior addresses of short and long used runs (an inner block, the last, a long
 * run's length halfword), an address just past a block, one in the top run, a double free, one
 * inside a free run, off the 8-byte grid, below and above the pool. After each call the record
 * holds the call's result, agb_bestfit_check's and whether a checksum of the control structure
 * and the whole arena (map, free runs' links and tags, the live blocks' bytes) changed. The live
 * blocks are then freed and the empty pool checked. Freestanding: no libc. */
#ifndef AGB_BESTFIT_ABUSE_SEQ_H
#define AGB_BESTFIT_ABUSE_SEQ_H

#include <stdint.h>

#include "agb/bestfit.h"
#include "agb/machine.h"

#define BFA_ARENA_BYTES 32768u
#define BFA_META_BYTES AGB_BESTFIT_META_BYTES

/* Record layout (uint32 words), written to out[]: */
enum {
	BFA_INIT_RC = 0,  /* agb_bestfit_init's return */
	BFA_FREE0,        /* free bytes of the empty pool */
	BFA_OFF_A,        /* the allocations' offsets from the arena (BFA_OFF_A + i, BFA_NALLOC) */
	BFA_NALLOC = 5,
	BFA_SUM_BEFORE = BFA_OFF_A + BFA_NALLOC, /* checksum before the bad calls */
	BFA_NCASES,       /* bad addresses tried */
	BFA_CASES,        /* then 2 words per case: id << 16 | BFA_F_* flags, realloc's return */
};
/* After the cases (at BFA_CASES + 2 * ncases): */
enum {
	BFA_TAIL_CHECK = 0, /* agb_bestfit_check after freeing the live blocks (0 passes) */
	BFA_TAIL_FREE,      /* free bytes then */
	BFA_TAIL_LARGEST,   /* largest free run then */
	BFA_TAIL_RUNS,      /* free runs then */
	BFA_TAIL_SUM,       /* checksum just before the live blocks are freed */
	BFA_TAIL_WORDS
};
#define BFA_F_FREE_CHECK 1u     /* check failed after free */
#define BFA_F_FREE_CHANGED 2u   /* the checksum changed across free */
#define BFA_F_RE_CHECK 4u       /* check failed after realloc */
#define BFA_F_RE_CHANGED 8u     /* the checksum changed across realloc */
#define BFA_F_RE_NONNULL 16u    /* realloc did not return AGB_NULL */
#define BFA_MAX_CASES 40u
#define BFA_MAX_WORDS (BFA_CASES + 2u * BFA_MAX_CASES + BFA_TAIL_WORDS)

/* Sizes of the allocations: short (3 and 1 blocks; the 1 is freed at once: a free run in a bin),
 * long (500), short (13), long (375, the one next to the top run). */
static const uint32_t bfa_sizes[BFA_NALLOC] = {24u, 8u, 4000u, 100u, 3000u};

static uint32_t bfa_sum(agb_machine *m, uint32_t arena, uint32_t meta)
{
	uint32_t h = 2166136261u;
	for (uint32_t a = meta; a < meta + ((BFA_META_BYTES + 3u) & ~3u); a += 4u)
		h = (h ^ AGB_PEEK32(m, a)) * 16777619u;
	for (uint32_t a = arena; a < arena + BFA_ARENA_BYTES; a += 4u)
		h = (h ^ AGB_PEEK32(m, a)) * 16777619u;
	return h;
}

/* Runs the sequence on an 8-aligned arena of BFA_ARENA_BYTES and a 4-aligned meta area of
 * BFA_META_BYTES; returns the words written to out (BFA_MAX_WORDS at most). */
static uint32_t bfa_run(agb_bestfit *h, agb_machine *m, uint32_t arena, uint32_t meta,
			uint32_t *out)
{
	struct agb_heap_config cfg = {arena, BFA_ARENA_BYTES, meta, BFA_META_BYTES, 0};
	struct agb_heap_stats st;
	uint32_t p[BFA_NALLOC];
	out[BFA_INIT_RC] = (uint32_t)agb_bestfit_init(h, m, &cfg);
	agb_bestfit_stats(h, &st);
	out[BFA_FREE0] = st.free_bytes;
	for (uint32_t i = 0; i < BFA_NALLOC; i++) {
		p[i] = agb_bestfit_alloc(h, bfa_sizes[i], 8u, (uint32_t *)0);
		out[BFA_OFF_A + i] = p[i] - arena;
		for (uint32_t o = 0; p[i] != AGB_NULL && o < bfa_sizes[i]; o += 4u)
			AGB_ST32(m, p[i] + o, 0xA5000000u ^ (i << 20) ^ o);
	}
	const uint32_t a = p[0], b = p[1], c = p[2], d = p[3], e = p[4];
	agb_bestfit_free(h, b); /* a one-block free run between a and c */
	const uint32_t pool_end = arena + BFA_ARENA_BYTES;
	/* Bad addresses; d is freed (legitimately) before case 29. */
	const uint32_t bad[] = {
		a + 8u,                 /* 0 inner block of a short run */
		a + 16u,                /* 1 last block of a short run */
		d + 96u,                /* 2 last block of a short run between two used runs */
		c + 8u,                 /* 3 a long run's second block */
		c + 8u * 8u,            /* 4 8 blocks in: its entry is in the length halfword */
		c + 8u * 250u,          /* 5 a long run's middle */
		c + 8u * 499u,          /* 6 a long run's last block */
		e + 8u,                 /* 7 second block of the long run next to the top run */
		e + 8u * 200u,          /* 8 its middle */
		e + 8u * 374u,          /* 9 its last block */
		a + 24u,                /* 10 just past a: b, freed (same address as 11) */
		b,                      /* 11 double free of b */
		c + 8u * 256u,          /* 12 a long run's block AGB_BESTFIT_SMALL */
		e + 3000u,              /* 13 just past e: the top run's start, never allocated */
		e + 3000u + 8u * 100u,  /* 14 never allocated, inside the top run */
		pool_end - 8u,          /* 15 the pool's last block (top run) */
		a + 4u,                 /* 16 off the grid, inside a live block */
		c + 2u,                 /* 17 off the grid */
		e + 1u,                 /* 18 off the grid */
		d + 7u,                 /* 19 off the grid */
		arena,                  /* 20 the arena head (the map), below block 0 */
		arena - 8u,             /* 21 below the pool */
		arena - 0x100u,         /* 22 below the pool */
		0x01000000u,            /* 23 far below (not RAM) */
		pool_end,               /* 24 just above the pool */
		pool_end + 8u,          /* 25 above the pool */
		meta,                   /* 26 the meta area (IWRAM) */
		0xFFFFFFF8u,            /* 27 the top of the address space */
		0x7FFFFFF8u,            /* 28 */
		d,                      /* 29 double free of d (freed just before this case) */
		d + 40u,                /* 30 inside d's free run */
		d + 96u,                /* 31 d's free run's last block (its boundary tag) */
	};
	_Static_assert(sizeof bad / sizeof bad[0] <= BFA_MAX_CASES, "rec[], host[]: BFA_MAX_CASES");
	const uint32_t n = sizeof bad / sizeof bad[0];
	out[BFA_NCASES] = n;
	uint32_t sum = bfa_sum(m, arena, meta);
	out[BFA_SUM_BEFORE] = sum;
	uint32_t *w = out + BFA_CASES;
	for (uint32_t i = 0; i < n; i++) {
		if (i == 29u) {
			agb_bestfit_free(h, d); /* legitimately: d's run is free from here on */
			sum = bfa_sum(m, arena, meta);
		}
		uint32_t flags = 0;
		agb_bestfit_free(h, bad[i]);
		if (agb_bestfit_check(h, (const char **)0) != 0)
			flags |= BFA_F_FREE_CHECK;
		if (bfa_sum(m, arena, meta) != sum)
			flags |= BFA_F_FREE_CHANGED;
		uint32_t r = agb_bestfit_realloc(h, bad[i], 16u, (uint32_t *)0);
		if (r != AGB_NULL)
			flags |= BFA_F_RE_NONNULL;
		if (agb_bestfit_check(h, (const char **)0) != 0)
			flags |= BFA_F_RE_CHECK;
		if (bfa_sum(m, arena, meta) != sum)
			flags |= BFA_F_RE_CHANGED;
		sum = bfa_sum(m, arena, meta); /* a failure shows once, not in every later case */
		w[0] = i << 16 | flags;
		w[1] = r;
		w += 2;
	}
	w[BFA_TAIL_SUM] = sum;
	agb_bestfit_free(h, a);
	agb_bestfit_free(h, c);
	agb_bestfit_free(h, e);
	w[BFA_TAIL_CHECK] = (uint32_t)agb_bestfit_check(h, (const char **)0);
	agb_bestfit_stats(h, &st);
	w[BFA_TAIL_FREE] = st.free_bytes;
	w[BFA_TAIL_LARGEST] = st.largest_free;
	w[BFA_TAIL_RUNS] = st.free_runs;
	return (uint32_t)(w + BFA_TAIL_WORDS - out);
}

#endif
