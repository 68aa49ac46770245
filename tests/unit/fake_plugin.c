/* SPDX-License-Identifier: MIT */
/*
 * A provider plugin as upstream builds them, for unit-plugins: a shared
 * object named lib<name>-rdmav34.so whose ELF constructor registers its
 * verbs_device_ops, and which uses only the IBVERBS_PRIVATE_34 calls.  It
 * claims devices named "plug*"; its contexts make PDs without a kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "compat/plugins/plugins.h"

#define EXPORT __attribute__((visibility("default")))

struct fake_device {
	int cookie;
	struct verbs_device vdev;	/* not at offset 0 of the plugin's struct */
};

struct fake_context {
	char before[40];
	struct verbs_context vctx;
	int pds;
};

/* What the test reads back. */
EXPORT int fake_plugin_registrations, fake_plugin_devices, fake_plugin_abi;

static struct ibv_pd *fake_alloc_pd(struct ibv_context *ctx)
{
	struct fake_context *fc = container_of(verbs_get_ctx(ctx), struct fake_context, vctx);

	fc->pds++;
	return calloc(1, sizeof(struct ibv_pd));
}

static int fake_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

static void fake_free_context(struct ibv_context *ctx)
{
	struct fake_context *fc = container_of(verbs_get_ctx(ctx), struct fake_context, vctx);

	verbs_uninit_context(&fc->vctx);
	free(fc);
}

static const struct verbs_context_ops fake_ctx_ops = {
	.alloc_pd = fake_alloc_pd,
	.dealloc_pd = fake_dealloc_pd,
	.free_context = fake_free_context,
};

static struct verbs_context *fake_alloc_context(struct ibv_device *ibdev, int cmd_fd,
						void *private_data)
{
	struct fake_context *fc;

	(void)private_data;
	fc = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*fc),
					   &((struct fake_context *)NULL)->vctx, 77);
	if (!fc)
		return NULL;
	/* No kernel behind this fd to give an event fd: one of our own. */
	fc->vctx.context.async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	verbs_set_ops(&fc->vctx, &fake_ctx_ops);
	return &fc->vctx;
}

/* Imports fail for a process that set FAKE_PLUGIN_REFUSE_IMPORT. */
static struct verbs_context *fake_import_context(struct ibv_device *ibdev, int cmd_fd)
{
	if (getenv("FAKE_PLUGIN_REFUSE_IMPORT")) {
		close(cmd_fd);
		errno = EPERM;
		return NULL;
	}
	return fake_alloc_context(ibdev, cmd_fd, NULL);
}

static struct verbs_device *fake_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct fake_device *fd = calloc(1, sizeof(*fd));

	if (!fd)
		return NULL;
	fake_plugin_devices++;
	fake_plugin_abi = sysfs_dev->abi_ver;
	return &fd->vdev;
}

static void fake_uninit_device(struct verbs_device *vdev)
{
	fake_plugin_devices--;
	free(container_of(vdev, struct fake_device, vdev));
}

static const struct verbs_match_ent fake_table[] = {
	{ .u.modalias = "rdma_device:*Nplug*", .kind = VERBS_MATCH_MODALIAS },
	{ .kind = VERBS_MATCH_SENTINEL },
};

EXPORT const struct verbs_device_ops fake_plugin_ops = {
	.name = "fakeplug",
	.match_min_abi_version = 1,
	.match_max_abi_version = 1,
	.match_table = fake_table,
	.alloc_context = fake_alloc_context,
	.import_context = fake_import_context,
	.alloc_device = fake_alloc_device,
	.uninit_device = fake_uninit_device,
};

__attribute__((constructor)) static void fake_plugin_register(void)
{
	fake_plugin_registrations++;
	verbs_register_driver_34(&fake_plugin_ops);
}
