/* SPDX-License-Identifier: MIT */
/*
 * The plugin loader's config files (*.driver in plugin_confdir): the
 * input is a file's contents; each plugin name it gives is turned into
 * the paths the loader would dlopen.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "compat/plugins/plugins.h"
#include "fuzz.h"

static void add(const char *name, void *arg)
{
	char paths[2][PATH_MAX];

	(void)arg;
	verbs_plugin_candidates(name, paths);
}

static char path[] = "/tmp/openverbs-fuzz-XXXXXX";

static void remove_file(void)
{
	unlink(path);
}

/* The file stays open and is rewritten in place, so its data is never
 * written out (truncating it to 0 or replacing it makes ext4 write it
 * out on the next close: a wait for the disk per run). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0) {
		fd = mkostemp(path, O_CLOEXEC);
		if (fd < 0)
			abort();
		atexit(remove_file);
	}
	if (pwrite(fd, data, size, 0) != (ssize_t)size || ftruncate(fd, (off_t)size))
		abort();
	verbs_plugin_read_config(path, add, NULL);
	return 0;
}
