/* SPDX-License-Identifier: MIT */
/* Private to libibverbs: nothing here is part of the ABI. */
#ifndef OPENVERBS_INTERNAL_H
#define OPENVERBS_INTERNAL_H

#include <stddef.h>

#include "config.h"

/*
 * Everything is built with -fvisibility=hidden.  What the public headers
 * declare gets default visibility here, and the version script generated
 * from ABI.symvers then decides what is really exported.
 */
#pragma GCC visibility push(default)
/* Exported since IBVERBS_1.0 but declared in no public header: upstream
 * keeps them in its provider interface. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
#pragma GCC visibility pop

/* Reads "<sysfs>/<fmt...>" into buf as a NUL-terminated string without
 * its trailing newline; returns the length or -1 with errno set. */
int verbs_read_sysfs(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
