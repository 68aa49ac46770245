/* SPDX-License-Identifier: MIT */
/*
 * What the benchmark programs of tests/bench share.  Each runs on our
 * libibverbs and on upstream's (LD_LIBRARY_PATH picks one), so they use
 * nothing but the public ABI, and each proves which library it got.
 */
#ifndef BENCH_LIB_H
#define BENCH_LIB_H

#include <stdbool.h>

/* Whether the file at path, symlinks resolved, lives in the directory dir
 * (itself already resolved). */
bool bench_dirname_is(const char *path, const char *dir);

/* Prints "lib PATH", the libibverbs that defines symbol; 0 if that is in
 * want_dir (resolved), -1 otherwise. */
int bench_check_library(const void *symbol, const char *want_dir);

/* The number of objects mapped, or -1 if one is a libibverbs that is not
 * from want_dir ("wrong_object PATH" says which: a provider could drag in
 * a second copy by a full path).  print: "object PATH" for each. */
int bench_count_objects(const char *want_dir, bool print);

long long bench_now_ns(void);
/* Sorts v. */
long long bench_median(long long *v, int n);

#endif
