/* SPDX-License-Identifier: MIT */
/*
 * Rescans share one netlink socket per process.  Many at once, from
 * threads and then from a parent and its child at the same time, must
 * each list rxe0.  SYSFS_PATH points at an empty directory, so that a
 * netlink failure shows as a failure instead of being covered by the
 * sysfs fallback: two processes sharing one socket would be refused a
 * second dump while one runs, or read each other's answers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vmtest.h"

#define ROUNDS 200

/* n rescans, each of which must list rxe0: 0, or the failing round. */
static int relist(int n)
{
	for (int i = 1; i <= n; i++) {
		struct ibv_device **list = ibv_get_device_list(NULL);
		bool found = false;

		for (struct ibv_device **d = list; d && *d; d++)
			found |= !strcmp(ibv_get_device_name(*d), "rxe0");
		ibv_free_device_list(list);
		if (!found)
			return i;
	}
	return 0;
}

static void *relist_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)relist(ROUNDS);
}

int main(void)
{
	char empty[] = "/tmp/rescans-sysfs-XXXXXX";
	pthread_t threads[4];
	void *failed;
	int status, round;
	pid_t child;

	vt_init("rescans");
	if (!MUST(mkdtemp(empty)))
		return vt_finish();
	if (!MUST(setenv("SYSFS_PATH", empty, 1) == 0))
		return vt_finish();
	if (!MUST(relist(1) == 0))
		return vt_finish();
	printf("ok rxe0 listed over netlink alone (SYSFS_PATH=%s)\n", empty);

	for (int i = 0; i < 4; i++)
		if (!MUST(pthread_create(&threads[i], NULL, relist_thread, NULL) == 0))
			return vt_finish();
	for (int i = 0; i < 4; i++) {
		if (!MUST(pthread_join(threads[i], &failed) == 0))
			return vt_finish();
		if (!MUST(failed == NULL))
			return vt_finish();
	}
	printf("ok 4 threads x %d rescans\n", ROUNDS);

	child = fork();
	if (!MUST(child >= 0))
		return vt_finish();
	if (child == 0)
		_exit(relist(ROUNDS) ? 1 : 0);
	round = relist(ROUNDS);
	if (!MUST(waitpid(child, &status, 0) == child))
		return vt_finish();
	if (!MUST(round == 0))
		return vt_finish();
	if (!MUST(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return vt_finish();
	printf("ok parent and child x %d rescans at the same time\n", ROUNDS);
	rmdir(empty);
	return vt_finish();
}
