// SPDX-License-Identifier: MIT
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "scenario.h"

/* Each wait of a scenario is bounded, but a call into the library or
 * the kernel may still block: the run reports where it stopped before
 * sweep.sh's 45 s kill would leave only "exit status 137". */
enum { RUN_LIMIT_S = 40 };

/* The step whose call returned last, for the report of a stuck run. */
static const char *volatile last_step = "(none: the first call)";
static volatile int current_attempt;

/* write(2) of a string: async-signal-safe, unlike stdio */
static void say(const char *text)
{
	size_t len = strlen(text);

	if (write(STDOUT_FILENO, text, len) != (ssize_t)len)
		_exit(3);
}

static void stuck(int sig)
{
	char number[2] = { (char)('0' + current_attempt), 0 };

	(void)sig;
	say("FAIL: run not done within its limit, stuck in attempt ");
	say(number);
	say(", in the call after ");
	say(last_step);
	say("\n");
	_exit(3);
}

static bool record(struct attempt *a, const char *step, int err)
{
	if (!a->failed_step) {
		a->failed_step = step;
		a->failed_errno = err;
	}
	if (a->number > 1)
		vt_fail("attempt %d: %s failed (%s)", a->number, step, vt_errname(err));
	return false;
}

bool sc_made(struct attempt *a, const char *step, const void *obj)
{
	int err = errno;

	last_step = step;
	if (obj)
		return true;
	CHECK(err != 0, "%s returned NULL with errno 0", step);
	return record(a, step, err);
}

bool sc_ret(struct attempt *a, const char *step, int ret)
{
	last_step = step;
	if (!ret)
		return true;
	CHECK(ret > 0, "%s returned %d, not an errno value", step, ret);
	return record(a, step, ret);
}

bool sc_errno(struct attempt *a, const char *step, int ret)
{
	int err = errno;

	last_step = step;
	if (!ret)
		return true;
	CHECK(ret == -1 && err != 0, "%s returned %d with errno %d", step, ret, err);
	return record(a, step, err);
}

void sc_broken(struct attempt *a, const char *step)
{
	/* Every call so far said it succeeded: one of them hid its failure. */
	if (!a->failed_step)
		vt_fail("attempt %d: %s went wrong after no call failed", a->number, step);
	record(a, step, 0);
}

static void outcome(const struct attempt *a)
{
	if (a->failed_step)
		printf("attempt %d: %s failed (%s)\n", a->number, a->failed_step,
		       vt_errname(a->failed_errno));
	else
		printf("attempt %d: all steps succeeded\n", a->number);
}

int sc_run(const char *name, const char *dev, void (*attempt)(struct attempt *a))
{
	void (*fault_stop)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "fault_stop");
	struct attempt first = { .number = 1 }, second = { .number = 2 };
	char res[256];

	/* a run killed for hanging still shows how far it came */
	setvbuf(stdout, NULL, _IOLBF, 0);
	vt_init(name);
	signal(SIGALRM, stuck);
	alarm(RUN_LIMIT_S);
	current_attempt = 1;
	attempt(&first);
	outcome(&first);
	if (fault_stop)
		fault_stop();
	current_attempt = 2;
	attempt(&second);
	outcome(&second);
	if (!vt_rdma_res(dev, res, sizeof(res)))
		snprintf(res, sizeof(res), "(rdma res failed)");
	printf("counts fds %d maps %d res %s\n", vt_count_fds(), vt_count_maps(), res);
	return vt_finish();
}
