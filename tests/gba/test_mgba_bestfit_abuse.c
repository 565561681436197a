/* test_mgba_bestfit_abuse.c — bestfit's free and realloc refuse bad addresses on the GBA too.
 *
 *   test_mgba_bestfit_abuse ROM.gba [ROM-iwram.gba]
 *
 * Boots each ROM (src/gba/roms/bestfit_abuse.c: the core as hand-written Thumb in ROM, and as ARM in
 * IWRAM) in libmgba. The ROM runs src/gba/roms/bestfit_abuse_seq.h: interior addresses of short and
 * long used runs, addresses past a block and in the top run, double frees, an address inside a
 * free run, off the grid, below and above the pool, each to free and to realloc. Asserts, per
 * include/agb/bestfit.h ("Abuse"): every realloc returned AGB_NULL, agb_bestfit_check passed
 * after every call, the control structure and the arena (map, free runs, live blocks' bytes)
 * are bit for bit unchanged, and the empty pool comes back whole once the live blocks are
 * freed. Then the host build of the core runs the same sequence at the same addresses and must
 * give the same record, word for word. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgba_runner.h"
#include "bestfit_abuse_seq.h"

static const char *roms[2];
static int nroms;

static void check_record(const char *who, const uint32_t *rec, uint32_t n)
{
	assert_true(n > BFA_CASES + BFA_TAIL_WORDS);
	assert_int_equal(rec[BFA_INIT_RC], AGB_HEAP_OK);
	for (uint32_t i = 0; i < BFA_NALLOC; i++) { /* allocated: inside the arena, on the grid */
		assert_true(rec[BFA_OFF_A + i] < BFA_ARENA_BYTES);
		assert_int_equal(rec[BFA_OFF_A + i] & 7u, 0);
	}
	/* the long run e (index 4) ends where the top run starts: checked by the cases' layout */
	assert_true(rec[BFA_OFF_A + 4] > rec[BFA_OFF_A + 2]);
	uint32_t ncases = rec[BFA_NCASES];
	assert_int_equal(n, BFA_CASES + 2u * ncases + BFA_TAIL_WORDS);
	assert_true(ncases >= 30u);
	for (uint32_t i = 0; i < ncases; i++) {
		uint32_t w = rec[BFA_CASES + 2u * i], r = rec[BFA_CASES + 2u * i + 1u];
		if (w != (i << 16) || r != AGB_NULL)
			fail_msg("%s: bad address case %u: flags %#x (1 check failed after free, 2 pool "
				 "changed by free, 4 check failed after realloc, 8 pool changed by realloc, 16 "
				 "realloc did not refuse), realloc returned %#x",
				 who, (unsigned)(w >> 16), (unsigned)(w & 0xFFFFu), (unsigned)r);
	}
	const uint32_t *t = rec + BFA_CASES + 2u * ncases;
	/* the checksum sees a change: d's legitimate free between the two */
	assert_int_not_equal(t[BFA_TAIL_SUM], rec[BFA_SUM_BEFORE]);
	assert_int_equal(t[BFA_TAIL_CHECK], 0);
	assert_int_equal(t[BFA_TAIL_FREE], rec[BFA_FREE0]);
	assert_int_equal(t[BFA_TAIL_LARGEST], rec[BFA_FREE0]);
	assert_int_equal(t[BFA_TAIL_RUNS], 1);
}

static void run_one(const char *rom)
{
	struct agb_mgba_options o = {0};
	o.max_frames = 600;
	struct agb_mgba_result r;
	memset(&r, 0, sizeof r);
	int rc = agb_mgba_run_ex(rom, &o, &r);
	if (rc == AGB_MGBA_ERROR)
		fail_msg("runner: %s", r.error);
	assert_int_equal(rc, AGB_MGBA_OK);
	assert_int_equal(r.done, 1);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.results.magic, AGB_RESULTS_MAGIC);
	assert_true(r.results.count >= 3u);
	uint32_t arena = r.results.values[0], meta = r.results.values[1], n = r.results.values[2];
	assert_int_equal(r.results.count, 3u + n);
	assert_true(n <= BFA_MAX_WORDS);
	const uint32_t *gba = r.results.values + 3;
	check_record(rom, gba, n);

	/* The host build at the same addresses: the same record, checksums included. */
	agb_machine *m = malloc(sizeof *m);
	assert_non_null(m);
	agb_machine_init(m, AGB_WAITCNT_DEFAULT);
	agb_bestfit h;
	uint32_t host[BFA_MAX_WORDS];
	uint32_t hn = bfa_run(&h, m, arena, meta, host);
	check_record("host", host, hn);
	assert_int_equal(hn, n);
	for (uint32_t i = 0; i < n; i++)
		if (host[i] != gba[i])
			fail_msg("%s: record word %u: GBA %#x, host %#x", rom, (unsigned)i,
				 (unsigned)gba[i], (unsigned)host[i]);
	print_message("%s: %u bad addresses refused by free and realloc, pool untouched, "
		      "host record equal\n", rom, (unsigned)gba[BFA_NCASES]);
	free(m);
	agb_mgba_result_free(&r);
}

static void test_rom(void **state)
{
	(void)state;
	run_one(roms[0]);
}

static void test_iwram(void **state)
{
	(void)state;
	if (nroms < 2)
		skip();
	run_one(roms[1]);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s ROM.gba [ROM-iwram.gba]\n", argv[0]);
		return 2;
	}
	roms[0] = argv[1];
	nroms = 1;
	if (argc > 2) {
		roms[1] = argv[2];
		nroms = 2;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rom),
		cmocka_unit_test(test_iwram),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
