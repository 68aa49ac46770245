/* SPDX-License-Identifier: MIT */
/*
 * What the unit test programs share: the runner every main() ends in, and
 * a fake kernel driver for the provider tests.
 */
#ifndef OPENVERBS_TESTS_UNIT_H
#define OPENVERBS_TESTS_UNIT_H

#include <check.h>

/* Runs every test of s and frees it: the exit status for main().  fork is
 * CK_FORK_GETENV unless the suite needs one of its own (CK_FORK when
 * tests change process-wide state that cannot be reset). */
int unit_run(Suite *s, enum fork_status fork);

#endif
