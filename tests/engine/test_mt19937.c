/* MT19937 against the reference outputs of Matsumoto and Nishimura's mt19937ar.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "agbsim/mt19937.h"

static void reference_outputs_for_5489(void **state)
{
	(void)state;
	static const uint32_t want[] = {3499211612u, 581869302u, 3890346734u, 3586334585u,
					545404204u};
	struct agb_mt *mt = malloc(sizeof *mt);
	assert_non_null(mt);
	agb_mt_seed(mt, 5489);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(agb_mt_next(mt), want[i]);
	/* The 10000th output, as C++ std::mt19937 requires of a default-seeded engine. */
	for (size_t i = 5; i < 9999; i++)
		agb_mt_next(mt);
	assert_int_equal(agb_mt_next(mt), 4123659995u);
	free(mt);
}

static void below_stays_in_range(void **state)
{
	(void)state;
	struct agb_mt *mt = malloc(sizeof *mt);
	uint32_t seen[7] = {0};
	assert_non_null(mt);
	agb_mt_seed(mt, 1);
	for (int i = 0; i < 7000; i++) {
		uint32_t v = agb_mt_below(mt, 7);
		assert_true(v < 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)
		assert_true(seen[i] > 800);
	free(mt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reference_outputs_for_5489),
		cmocka_unit_test(below_stays_in_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
