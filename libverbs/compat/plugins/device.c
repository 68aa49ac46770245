/* SPDX-License-Identifier: MIT */
/*
 * Devices of provider plugins: claiming one for the first plugin that
 * wants it (FACTS 18-19), and the bridge provider through which the core
 * opens, imports, closes and frees it.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "plugins.h"

struct claim {
	struct verbs_sysfs_dev *sysfs_dev;
	bool named_only;	/* the first pass: tables naming the driver id */
};

static void *try_claim(const struct verbs_device_ops *ops, void *arg)
{
	struct claim *c = arg;
	struct verbs_device *dev;
	bool named = c->sysfs_dev->driver_id &&
		     verbs_plugin_has_driver_id(ops, c->sysfs_dev->driver_id);

	/* The second pass skips what the first one tried. */
	if (named != c->named_only || !verbs_plugin_matches(ops, c->sysfs_dev))
		return NULL;
	dev = ops->alloc_device(c->sysfs_dev);
	if (!dev) {
		verbs_warn("driver %s failed to allocate device %s\n", ops->name,
			   c->sysfs_dev->ibdev_name);
		return NULL;
	}
	/* mlx5 and efa recognise their devices by this pointer (FACTS 12). */
	dev->ops = ops;
	return dev;
}

/* FACTS 18: plugins whose table names the device's driver id first. */
static struct verbs_device *claim_registered(struct verbs_sysfs_dev *sysfs_dev)
{
	struct claim c = { .sysfs_dev = sysfs_dev, .named_only = true };
	struct verbs_device *dev = NULL;

	if (sysfs_dev->driver_id)
		dev = verbs_plugin_each(try_claim, &c);
	c.named_only = false;
	if (!dev)
		dev = verbs_plugin_each(try_claim, &c);
	return dev;
}

static const struct verbs_provider plugin_bridge;

struct verbs_device *verbs_plugin_claim(struct verbs_sysfs_dev *sysfs_dev)
{
	struct verbs_device *dev = claim_registered(sysfs_dev);

#if PLUGIN_LOADER && !defined(VERBS_STATIC_ARCHIVE)
	/* Loading waits for a device nothing registered so far wants
	 * (FACTS 6); the load happens once, the retry is cheap.  Never from
	 * libibverbs.a: plugins bind to libibverbs.so.1, not to a copy
	 * linked into the program (libverbs/meson.build). */
	if (!dev) {
		verbs_plugins_load_once();
		dev = claim_registered(sysfs_dev);
	}
#endif
	if (!dev) {
		errno = ENODEV;
		return NULL;
	}
	sysfs_dev->provider_data = (void *)&plugin_bridge;
	return dev;
}

/* ------------------------------------------------------------------ */
/* The bridge provider                                                 */

static struct verbs_context *bridge_alloc_context(struct verbs_device *dev, int cmd_fd,
						  void *private_data)
{
	/* The plugin's context owns cmd_fd, and closes it on failure. */
	struct verbs_context *vctx = dev->ops->alloc_context(&dev->device, cmd_fd, private_data);

	if (vctx)
		verbs_plugin_fill_core_slots(vctx);
	return vctx;
}

/* A failing plugin import closes the fd it was given (FACTS 22), while
 * ours leaves the caller's open, and a successful one owns the caller's:
 * the plugin works on a duplicate, which the caller's fd then replaces
 * (the plugin's mappings outlive the duplicate). */
static struct verbs_context *bridge_import_context(struct verbs_device *dev, int cmd_fd)
{
	struct verbs_context *vctx;
	int fd;

	if (!dev->ops->import_context) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	fd = fcntl(cmd_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	vctx = dev->ops->import_context(&dev->device, fd);
	if (!vctx)
		return NULL;
	vctx->context.cmd_fd = cmd_fd;
	close(fd);
	verbs_plugin_fill_core_slots(vctx);
	return vctx;
}

/* The plugin releases its resources, then calls verbs_uninit_context()
 * and frees its block (FACTS 25). */
static void bridge_free_context(struct ibv_context *ctx)
{
	verbs_plugin_ops(ctx)->free_context(ctx);
}

static void bridge_free_device(struct verbs_device *dev)
{
	if (dev->ops->uninit_device)
		dev->ops->uninit_device(dev);
}

/* Matched by verbs_plugin_claim() only, never by the core's keys. */
static const struct verbs_provider plugin_bridge = {
	.name = "plugin",
	.alloc_context = bridge_alloc_context,
	.import_context = bridge_import_context,
	.free_context = bridge_free_context,
	.free_device = bridge_free_device,
};
