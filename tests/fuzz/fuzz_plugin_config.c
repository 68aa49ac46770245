/* SPDX-License-Identifier: MIT */
/*
 * The plugin loader's config files (*.driver in plugin_confdir): the
 * input is a file's contents; each plugin name it gives is turned into
 * the paths the loader would dlopen.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compat/plugins/plugins.h"
#include "fuzz.h"

static void add(const char *name, void *arg)
{
	char paths[2][PATH_MAX];

	(void)arg;
	verbs_plugin_candidates(name, paths);
}

/* The file is a memfd, read through its /proc/self/fd path: rewriting
 * a file on disk per run made the file system most of the target's time. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[32];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("openverbs-fuzz-driver", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (pwrite(fd, data, size, 0) != (ssize_t)size || ftruncate(fd, (off_t)size))
		abort();
	verbs_plugin_read_config(path, add, NULL);
	return 0;
}
