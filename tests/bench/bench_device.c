// SPDX-License-Identifier: MIT
/*
 * Device discovery and open/close timings, for tests/bench/run.sh.  The
 * same binary runs on our libibverbs and on upstream's (LD_LIBRARY_PATH
 * picks one), so it uses nothing but the public ABI.
 *
 *   bench_device LIBDIR cold
 *       times the process's first ibv_get_device_list(): whatever the
 *       library does on first use (upstream dlopens its providers) counts.
 *       Also counts the page faults it took and names every shared object
 *       mapped by then ("object PATH").
 *   bench_device LIBDIR steady DEVICE COUNT
 *       after one untimed discovery, COUNT timed list+free pairs ("warm"),
 *       then COUNT timed ibv_open_device+ibv_close_device on DEVICE.
 *
 * LIBDIR is where libibverbs.so.1 must have come from: the program names
 * the object it really uses and exits 2 if that is anything else.  Output
 * is one "key value..." line per fact; times are medians in nanoseconds.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <infiniband/verbs.h>

#include "bench_lib.h"

static void print_devices(struct ibv_device **list, int n)
{
	printf("devices %d", n);
	for (int i = 0; i < n; i++)
		printf(" %s", ibv_get_device_name(list[i]));
	printf("\n");
}

static int bench_cold(const char *want_dir)
{
	struct ibv_device **list;
	struct rusage ru0, ru1;
	long long t0, t1;
	int before, after, n = 0;

	before = bench_count_objects(want_dir, false);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = bench_now_ns();
	list = ibv_get_device_list(&n);
	t1 = bench_now_ns();
	getrusage(RUSAGE_SELF, &ru1);
	if (!list) {
		printf("error ibv_get_device_list: %s\n", strerror(errno));
		return 1;
	}
	after = bench_count_objects(want_dir, true);
	print_devices(list, n);
	ibv_free_device_list(list);
	if (before < 0 || after < 0)
		return 2;
	printf("objects_loaded %d\n", after - before);
	/* Page faults: each first touch of library code or data costs one. */
	printf("cold_faults %ld\n", ru1.ru_minflt - ru0.ru_minflt + ru1.ru_majflt - ru0.ru_majflt);
	printf("cold_ns %lld\n", t1 - t0);
	return 0;
}

static int bench_warm(int count)
{
	long long *t = calloc(count, sizeof(*t));
	struct ibv_device **list;

	if (!t)
		return 1;
	for (int i = 0; i < count; i++) {
		long long t0 = bench_now_ns();

		list = ibv_get_device_list(NULL);
		if (!list) {
			printf("error ibv_get_device_list: %s\n", strerror(errno));
			free(t);
			return 1;
		}
		ibv_free_device_list(list);
		t[i] = bench_now_ns() - t0;
	}
	printf("warm_ns %lld\n", bench_median(t, count));
	free(t);
	return 0;
}

/* "open_ns n/a REASON" when the library cannot open DEVICE: the harness
 * reports that rather than failing. */
static int bench_open(const char *name, int count)
{
	struct ibv_device **list, *dev = NULL;
	long long *t = calloc(count, sizeof(*t));
	int n = 0, ret = 0;

	list = ibv_get_device_list(&n);
	if (!t || !list) {
		free(t);
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			dev = list[i];
	if (!dev) {
		printf("open_ns n/a (no %s)\n", name);
		goto out;
	}
	for (int i = 0; i < count; i++) {
		long long t0 = bench_now_ns();
		struct ibv_context *ctx = ibv_open_device(dev);

		if (!ctx) {
			printf("open_ns n/a (ibv_open_device: %s)\n", strerror(errno));
			goto out;
		}
		if (ibv_close_device(ctx)) {
			printf("error ibv_close_device: %s\n", strerror(errno));
			ret = 1;
			goto out;
		}
		t[i] = bench_now_ns() - t0;
	}
	printf("open_ns %lld\n", bench_median(t, count));
out:
	ibv_free_device_list(list);
	free(t);
	return ret;
}

static int bench_steady(const char *want_dir, const char *name, int count)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		printf("error ibv_get_device_list: %s\n", strerror(errno));
		return 1;
	}
	print_devices(list, n);
	ibv_free_device_list(list);
	if (bench_count_objects(want_dir, false) < 0)
		return 2;
	return bench_warm(count) || bench_open(name, count);
}

int main(int argc, char **argv)
{
	char want_dir[PATH_MAX];
	int count = 0;

	if (argc == 5)
		count = atoi(argv[4]);
	if (argc < 3 || !realpath(argv[1], want_dir) ||
	    !((argc == 3 && strcmp(argv[2], "cold") == 0) ||
	      (argc == 5 && strcmp(argv[2], "steady") == 0 && count > 0))) {
		fprintf(stderr, "usage: %s LIBDIR cold | LIBDIR steady DEVICE COUNT\n", argv[0]);
		return 64;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (bench_check_library((void *)ibv_get_device_list, want_dir)) {
		printf("error libibverbs.so.1 is not from %s\n", want_dir);
		return 2;
	}
	if (argc == 3)
		return bench_cold(want_dir);
	return bench_steady(want_dir, argv[3], count);
}
