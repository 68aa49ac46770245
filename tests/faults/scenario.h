/* SPDX-License-Identifier: MIT */
/*
 * What the fault scenarios (verbs.c, cm.c) share.  A scenario makes two
 * attempts at the same work in one process: the first under the injector
 * (injector.c: one call of our libraries fails), the second clean.  In
 * the first, each call may fail, but only as documented: NULL or -1 with
 * errno set, or an errno value returned; the program must not crash or
 * hang, and what it made is torn down (a failed destroy is retried once:
 * the fault fires once).  The second must succeed in full.  The last
 * line gives the counts the sweep (sweep.sh) compares with a clean
 * run's: open fds, mappings, and the device's kernel objects.
 */
#ifndef FAULT_SCENARIO_H
#define FAULT_SCENARIO_H

#include <stdbool.h>

#include "vmtest.h"

/* One attempt's record: its first failed step (NULL: none). */
struct attempt {
	int number;
	const char *failed_step;
	int failed_errno;
};

/* An object-returning call's result: true if obj is non-NULL; otherwise
 * records the failed step, and fails the test if errno is 0. */
bool sc_made(struct attempt *a, const char *step, const void *obj);
/* An errno-returning call's result (0 or a positive errno): true if 0;
 * otherwise records it, and fails the test on a negative value. */
bool sc_ret(struct attempt *a, const char *step, int ret);
/* A -1-with-errno call's result: true if 0. */
bool sc_errno(struct attempt *a, const char *step, int ret);
/* A step that failed without a call to blame (wrong data, no event):
 * a test failure unless a call failed before it. */
void sc_broken(struct attempt *a, const char *step);

/*
 * Runs attempt(a) twice: the first under the fault (if the injector is
 * loaded), the second after fault_stop(); prints each outcome, fails the
 * test if the second does not succeed, and prints the counts ("counts
 * fds N maps M res ...") for device dev.  The exit status for main().
 */
int sc_run(const char *name, const char *dev, void (*attempt)(struct attempt *a));

#endif
