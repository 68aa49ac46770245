/* SPDX-License-Identifier: MIT */
/*
 * sysfs attribute files: the input is the contents of one uverbs device's
 * files (each a length byte, then its bytes), in a scratch tree that
 * SYSFS_PATH points discovery at; the sysfs scan reads them and the
 * built-in providers' match looks at each record found.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "internal.h"
#include "unit.h"

static const char *const files[] = {
	"sys/class/infiniband_verbs/uverbs0/ibdev",
	"sys/class/infiniband_verbs/uverbs0/abi_version",
	"sys/class/infiniband_verbs/uverbs0/dev",
	"sys/class/infiniband/rxe0/node_type",
	"sys/class/infiniband/rxe0/node_guid",
	"sys/class/infiniband/rxe0/device/modalias",
};

static void remove_tree(void)
{
	unit_tree_remove();
}

/* Each file stays open and is rewritten in place, in a tree on tmpfs
 * where one is mounted: on a disk file system truncating and rewriting
 * six files per run made the kernel's file system code most of the
 * target's time (ext4: ~560 runs/s; tmpfs: see README.md). */
static int fds[sizeof(files) / sizeof(files[0])];

static const char *scratch_template(void)
{
	return access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm/openverbs-fuzz-XXXXXX"
						    : "/tmp/openverbs-fuzz-XXXXXX";
}

static void put_file(int fd, const uint8_t *bytes, size_t len)
{
	if (pwrite(fd, bytes, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct fuzz_input in = { data, size };
	struct verbs_list_node found = { &found, &found };
	uint8_t bytes[256];

	if (!ready) {
		if (!unit_tree_make(scratch_template()))
			abort();
		atexit(remove_tree);
		unit_tree_serve_devices();
		unit_add_device("uverbs0", "rxe0", "2", false);
		unit_put(files[5], "");
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			if ((fds[i] = open(unit_at(files[i]), O_RDWR | O_CLOEXEC)) < 0)
				abort();
		ready = true;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put_file(fds[i], bytes, fuzz_take(&in, bytes, fuzz_u8(&in)));
	if (verbs_sysfs_scan(&found) < 0)
		return 0;
	while (found.next != &found) {
		struct verbs_sysfs_dev *sysfs = container_of(found.next, struct verbs_sysfs_dev, entry);

		if (verbs_read_sysfs(sysfs->modalias, sizeof(sysfs->modalias),
				     "class/infiniband/%s/device/modalias", sysfs->ibdev_name) < 0)
			sysfs->modalias[0] = '\0';
		verbs_match_provider(sysfs);
		verbs_list_del(&sysfs->entry);
		free(sysfs);
	}
	return 0;
}
