// SPDX-License-Identifier: MIT
/* What the benchmark programs share: see bench_lib.h. */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_lib.h"

bool bench_dirname_is(const char *path, const char *dir)
{
	char real[PATH_MAX];
	char *slash;

	if (!realpath(path, real))
		return false;
	slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return strcmp(real, dir) == 0;
}

struct objects {
	const char *want_dir;	/* resolved */
	bool print;		/* name each object */
	int count;
	int wrong;
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	struct objects *o = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	o->count++;
	if (o->print && info->dlpi_name[0] == '/')
		printf("object %s\n", info->dlpi_name);
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libibverbs.so", 13) == 0 &&
	    !bench_dirname_is(info->dlpi_name, o->want_dir)) {
		printf("wrong_object %s\n", info->dlpi_name);
		o->wrong++;
	}
	return 0;
}

int bench_count_objects(const char *want_dir, bool print)
{
	struct objects o = { .want_dir = want_dir, .print = print };

	dl_iterate_phdr(visit, &o);
	return o.wrong ? -1 : o.count;
}

int bench_check_library(const void *symbol, const char *want_dir)
{
	char real[PATH_MAX];
	Dl_info info;

	if (!dladdr(symbol, &info) || !info.dli_fname || !realpath(info.dli_fname, real)) {
		printf("lib unknown\n");
		return -1;
	}
	printf("lib %s\n", real);
	return bench_dirname_is(real, want_dir) ? 0 : -1;
}

long long bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

long long bench_median(long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ll);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
