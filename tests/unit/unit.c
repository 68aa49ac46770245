/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "unit.h"

int unit_run(Suite *s, enum fork_status fork)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
