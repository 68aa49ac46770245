// SPDX-License-Identifier: MIT
#include <dlfcn.h>
#include <stdio.h>

#include "scenario.h"

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

	if (obj)
		return true;
	CHECK(err != 0, "%s returned NULL with errno 0", step);
	return record(a, step, err);
}

bool sc_ret(struct attempt *a, const char *step, int ret)
{
	if (!ret)
		return true;
	CHECK(ret > 0, "%s returned %d, not an errno value", step, ret);
	return record(a, step, ret);
}

bool sc_errno(struct attempt *a, const char *step, int ret)
{
	int err = errno;

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
	attempt(&first);
	outcome(&first);
	if (fault_stop)
		fault_stop();
	attempt(&second);
	outcome(&second);
	if (!vt_rdma_res(dev, res, sizeof(res)))
		snprintf(res, sizeof(res), "(rdma res failed)");
	printf("counts fds %d maps %d res %s\n", vt_count_fds(), vt_count_maps(), res);
	return vt_finish();
}
