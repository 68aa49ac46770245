/* SPDX-License-Identifier: MIT */
/*
 * Lists the devices a libibverbs finds, one line each, in a form two
 * libraries' runs can be compared with diff: name, kernel device name,
 * node and transport type, GUID, paths, the plugin that claimed it and
 * how opening it fails.  Built against our public headers; which
 * libibverbs runs is the loader's choice (LD_LIBRARY_PATH), and the
 * program prints the libibverbs and plugins it mapped, so that a run
 * proves what it tested.
 *
 * Which plugin claimed a device is not public: upstream's verbs_device
 * (both libraries' layout, checked by abi-private-layouts) keeps the
 * plugin's registered ops right after struct ibv_device, and that table
 * lives in the plugin's file (dladdr).
 *
 * It is built a second time for direct-link.sh, linked directly against
 * libmlx5.so.1 and libefa.so.1 as mlx5dv/efadv applications are: then
 * mlx5dv_is_supported resolves and each device says what it answers.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <endian.h>
#include <infiniband/verbs.h>

/* libmlx5.so.1's, at MLX5_1.8; NULL unless this build links it */
bool mlx5dv_is_supported(struct ibv_device *device) __attribute__((weak));

struct claimed_device {		/* the head of upstream's struct verbs_device */
	struct ibv_device device;
	const void *ops;
};

static const char *claimer(struct ibv_device *dev)
{
	const struct claimed_device *claimed = (const struct claimed_device *)dev;
	Dl_info info;

	if (!claimed->ops)
		return "built-in";
	if (!dladdr(claimed->ops, &info) || !info.dli_fname)
		return "unknown";
	return info.dli_fname;
}

static void print_mapped(void)
{
	char line[4096], *path;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps) {
		perror("/proc/self/maps");
		return;
	}
	while (fgets(line, sizeof(line), maps)) {
		path = strchr(line, '/');
		if (!path || !strstr(line, " r-xp "))
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (strstr(path, "/libibverbs.so") || strstr(path, "-rdmav") ||
		    strstr(path, "/libmlx5.so") || strstr(path, "/libefa.so"))
			printf("mapped %s\n", path);
	}
	fclose(maps);
}

int main(void)
{
	struct ibv_device **list;
	int num, i;

	/* a crash later leaves the lines before it */
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&num);
	if (!list) {
		printf("ibv_get_device_list: NULL, errno %d (%s)\n", errno, strerror(errno));
		print_mapped();
		return 0;
	}
	printf("%d devices\n", num);
	for (i = 0; i < num; i++) {
		struct ibv_device *dev = list[i];

		printf("device %s: kernel %s node %s (%d) transport %d guid %016" PRIx64
		       " dev_path %s ibdev_path %s claimed by %s\n",
		       ibv_get_device_name(dev), dev->dev_name,
		       ibv_node_type_str(dev->node_type), dev->node_type,
		       dev->transport_type, be64toh(ibv_get_device_guid(dev)),
		       dev->dev_path, dev->ibdev_path, claimer(dev));
		if (mlx5dv_is_supported)
			printf("mlx5dv_is_supported %s: %s\n", ibv_get_device_name(dev),
			       mlx5dv_is_supported(dev) ? "true" : "false");
	}
	/* after the listing: opening runs the plugin's own code */
	for (i = 0; i < num; i++) {
		struct ibv_context *ctx;
		int open_errno;

		errno = 0;
		ctx = ibv_open_device(list[i]);
		open_errno = errno;
		printf("open %s: %s (errno %d %s)\n", ibv_get_device_name(list[i]),
		       ctx ? "opened" : "NULL", open_errno, strerror(open_errno));
		if (ctx)
			ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	print_mapped();
	return 0;
}
