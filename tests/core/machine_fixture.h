/* One emulated machine per test program: `M`, made by machine_setup and freed by
 * machine_teardown (the cmocka group fixture). Include after cmocka.h. */
#ifndef AGB_TEST_MACHINE_FIXTURE_H
#define AGB_TEST_MACHINE_FIXTURE_H

#include <stdlib.h>

#include "agb/machine.h"

static agb_machine *M;

static inline int machine_setup(void **state)
{
	(void)state;
	M = malloc(sizeof *M);
	if (M == NULL)
		return -1;
	agb_machine_init(M, AGB_WAITCNT_DEFAULT);
	return 0;
}

static inline int machine_teardown(void **state)
{
	(void)state;
	free(M);
	return 0;
}

#endif
