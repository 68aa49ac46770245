/* SPDX-License-Identifier: MIT */
/*
 * The device list: every ibv_get_device_list() rescans (netlink, or sysfs
 * when netlink cannot answer) and matches each uverbs device with a
 * built-in provider.  Device objects are shared between lists and
 * contexts and freed with the last reference, so pointers from an older
 * list stay valid until it is freed, even for unplugged devices.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "internal.h"

int (*verbs_scan_netlink)(struct verbs_found_device **out) = verbs_netlink_scan;

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verbs_device *devices;	/* every device object alive */

/* ------------------------------------------------------------------ */
/* sysfs discovery                                                     */

/* "0002:c903:0010:ab12" -> host-order 64 bits. */
static uint64_t parse_guid(const char *s)
{
	unsigned int g[4];

	if (sscanf(s, "%x:%x:%x:%x", &g[0], &g[1], &g[2], &g[3]) != 4)
		return 0;
	return (uint64_t)g[0] << 48 | (uint64_t)g[1] << 32 | (uint64_t)g[2] << 16 | g[3];
}

static bool sysfs_device(const char *cdev, struct verbs_found_device *fd)
{
	unsigned int major, minor;
	char buf[64];

	memset(fd, 0, sizeof(*fd));
	fd->ibdev_index = -1;
	fd->driver_id = RDMA_DRIVER_UNKNOWN;
	fd->node_type = IBV_NODE_UNKNOWN;
	if (strlen(cdev) >= sizeof(fd->cdev) ||
	    verbs_read_sysfs(fd->ibdev, sizeof(fd->ibdev), "class/infiniband_verbs/%s/ibdev", cdev) <= 0 ||
	    verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/%s/abi_version", cdev) <= 0)
		return false;
	strcpy(fd->cdev, cdev);
	fd->abi_version = atoi(buf);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/%s/dev", cdev) > 0 &&
	    sscanf(buf, "%u:%u", &major, &minor) == 2)
		fd->devnum = makedev(major, minor);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband/%s/node_type", fd->ibdev) > 0)
		fd->node_type = atoi(buf);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband/%s/node_guid", fd->ibdev) > 0)
		fd->node_guid = parse_guid(buf);
	return true;
}

int verbs_sysfs_scan(struct verbs_found_device **out)
{
	struct verbs_found_device *devs = NULL, *grown;
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/class/infiniband_verbs", ibv_get_sysfs_path());
	dir = opendir(path);
	if (!dir) {
		/* No uverbs class at all: no RDMA support in this kernel. */
		errno = ENOSYS;
		return -1;
	}
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(devs, cap * sizeof(*devs));
			if (!grown) {
				closedir(dir);
				free(devs);
				errno = ENOMEM;
				return -1;
			}
			devs = grown;
		}
		if (sysfs_device(de->d_name, &devs[n]))
			n++;
	}
	closedir(dir);
	*out = devs;
	return n;
}

/* ------------------------------------------------------------------ */
/* Providers                                                           */

/* The linker collects VERBS_PROVIDER() registrations between these. */
extern const struct verbs_provider *const __start_verbs_providers[]
	__attribute__((weak, visibility("hidden")));
extern const struct verbs_provider *const __stop_verbs_providers[]
	__attribute__((weak, visibility("hidden")));

static bool match_any(const char *const *patterns, const char *s)
{
	for (; patterns && *patterns; patterns++)
		if (!fnmatch(*patterns, s, 0))
			return true;
	return false;
}

static const struct verbs_provider *find_provider(const struct verbs_found_device *fd)
{
	const struct verbs_provider *const *p;

	if (fd->driver_id != RDMA_DRIVER_UNKNOWN)
		for (p = __start_verbs_providers; p < __stop_verbs_providers; p++)
			if ((*p)->driver_id == fd->driver_id)
				return *p;
	for (p = __start_verbs_providers; p < __stop_verbs_providers; p++)
		if (match_any((*p)->ibdev_patterns, fd->ibdev))
			return *p;
	if (fd->modalias[0])
		for (p = __start_verbs_providers; p < __stop_verbs_providers; p++)
			if (match_any((*p)->modalias_patterns, fd->modalias))
				return *p;
	return NULL;
}

const struct verbs_provider *verbs_match_provider(const struct verbs_found_device *fd)
{
	const struct verbs_provider *p = find_provider(fd);

	if (!p) {
		verbs_warn("no userspace device-specific driver found for %s\n", fd->ibdev);
		return NULL;
	}
	if (fd->abi_version < p->min_abi || fd->abi_version > p->max_abi) {
		verbs_warn("%s: driver ABI %d not supported by provider %s (%d..%d)\n",
			   fd->ibdev, fd->abi_version, p->name, p->min_abi, p->max_abi);
		return NULL;
	}
	return p;
}

/* ------------------------------------------------------------------ */
/* Device objects                                                      */

void verbs_device_get(struct verbs_device *dev)
{
	atomic_fetch_add(&dev->refcount, 1);
}

void verbs_device_put(struct verbs_device *dev)
{
	struct verbs_device **pp;

	pthread_mutex_lock(&devices_lock);
	if (atomic_fetch_sub(&dev->refcount, 1) == 1) {
		for (pp = &devices; *pp; pp = &(*pp)->next)
			if (*pp == dev) {
				*pp = dev->next;
				break;
			}
		free(dev);
	}
	pthread_mutex_unlock(&devices_lock);
}

static bool same_device(const struct verbs_device *dev, const struct verbs_found_device *fd)
{
	return !strcmp(dev->device.name, fd->ibdev) &&
	       !strcmp(dev->device.dev_name, fd->cdev) &&
	       dev->devnum == fd->devnum && dev->ibdev_index == fd->ibdev_index &&
	       dev->node_guid == htobe64(fd->node_guid) &&
	       dev->abi_version == fd->abi_version;
}

static enum ibv_transport_type transport_of(int node_type)
{
	switch (node_type) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
		return IBV_TRANSPORT_IB;
	case IBV_NODE_RNIC:
		return IBV_TRANSPORT_IWARP;
	case IBV_NODE_USNIC:
		return IBV_TRANSPORT_USNIC;
	case IBV_NODE_USNIC_UDP:
		return IBV_TRANSPORT_USNIC_UDP;
	case IBV_NODE_UNSPECIFIED:
		return IBV_TRANSPORT_UNSPECIFIED;
	default:
		return IBV_TRANSPORT_UNKNOWN;
	}
}

static struct verbs_device *new_device(const struct verbs_found_device *fd,
				       const struct verbs_provider *provider)
{
	const char *sysfs = ibv_get_sysfs_path();
	struct verbs_device *dev = calloc(1, sizeof(*dev));
	struct ibv_device *ib;

	if (!dev)
		return NULL;
	ib = &dev->device;
	ib->node_type = fd->node_type;
	ib->transport_type = transport_of(fd->node_type);
	snprintf(ib->name, sizeof(ib->name), "%s", fd->ibdev);
	snprintf(ib->dev_name, sizeof(ib->dev_name), "%s", fd->cdev);
	snprintf(ib->dev_path, sizeof(ib->dev_path), "%s/class/infiniband_verbs/%s", sysfs, fd->cdev);
	snprintf(ib->ibdev_path, sizeof(ib->ibdev_path), "%s/class/infiniband/%s", sysfs, fd->ibdev);
	dev->provider = provider;
	dev->driver_id = fd->driver_id;
	dev->abi_version = fd->abi_version;
	dev->ibdev_index = fd->ibdev_index;
	dev->node_guid = htobe64(fd->node_guid);
	dev->devnum = fd->devnum;
	memcpy(dev->modalias, fd->modalias, sizeof(dev->modalias));
	return dev;
}

/* A device is usable only through its /dev node: containers often see
 * the sysfs/netlink entry without it. */
static bool has_dev_node(const struct verbs_found_device *fd)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", verbs_dev_dir, fd->cdev);
	return !stat(path, &st);
}

/* The device object for fd, existing or new, with a reference taken. */
static struct verbs_device *get_device(struct verbs_found_device *fd)
{
	const struct verbs_provider *provider;
	struct verbs_device *dev;

	for (dev = devices; dev; dev = dev->next)
		if (same_device(dev, fd)) {
			verbs_device_get(dev);
			return dev;
		}
	verbs_read_sysfs(fd->modalias, sizeof(fd->modalias),
			 "class/infiniband/%s/device/modalias", fd->ibdev);
	provider = verbs_match_provider(fd);
	if (!provider)
		return NULL;
	dev = new_device(fd, provider);
	if (!dev)
		return NULL;
	atomic_init(&dev->refcount, 1);
	dev->next = devices;
	devices = dev;
	return dev;
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct verbs_found_device *found = NULL;
	struct ibv_device **list;
	int n, listed = 0;

	verbs_init_once();
	n = verbs_scan_netlink(&found);
	if (n < 0)
		n = verbs_sysfs_scan(&found);
	if (n < 0)
		return NULL;
	list = calloc(n + 1, sizeof(*list));
	if (!list) {
		free(found);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&devices_lock);
	for (int i = 0; i < n; i++) {
		struct verbs_device *dev;

		if (!has_dev_node(&found[i]) || !(dev = get_device(&found[i])))
			continue;
		list[listed++] = &dev->device;
	}
	pthread_mutex_unlock(&devices_lock);
	free(found);
	if (num_devices)
		*num_devices = listed;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	if (!list)
		return;
	for (struct ibv_device **d = list; *d; d++)
		verbs_device_put(verbs_get_device(*d));
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	return verbs_get_device(device)->node_guid;
}

int ibv_get_device_index(struct ibv_device *device)
{
	return (int)verbs_get_device(device)->ibdev_index;
}
