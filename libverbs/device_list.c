/* SPDX-License-Identifier: MIT */
/*
 * The device list: every ibv_get_device_list() rescans (netlink, or sysfs
 * when netlink cannot answer) and matches each uverbs device with a
 * built-in provider.  Device objects are shared between lists and
 * contexts and freed with the last reference, so pointers from an older
 * list stay valid until it is freed, even for unplugged devices.
 *
 * Rescans are cheap: what the last scan found stays cached, matched
 * devices with a reference of the cache's own, unmatched ones as their
 * identity, so a device seen again is neither re-read nor re-probed.  A
 * device missing from a scan leaves the cache; if it comes back it is a
 * new object.
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

int (*verbs_netlink_scanner)(struct verbs_found_device **out) = verbs_netlink_scan;

/* A device no provider wants, remembered so it is not probed again. */
struct unmatched {
	struct verbs_found_device found;
	struct unmatched *next;
};

/* The cache, as of the last scan. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verbs_device *devices;
static struct unmatched *unmatched;

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

static bool sysfs_device(const char *cdev, struct verbs_found_device *found)
{
	unsigned int major, minor;
	char buf[64];

	memset(found, 0, sizeof(*found));
	found->ibdev_index = -1;
	found->driver_id = RDMA_DRIVER_UNKNOWN;
	found->node_type = IBV_NODE_UNKNOWN;
	if (strlen(cdev) >= sizeof(found->cdev) ||
	    verbs_read_sysfs(found->ibdev, sizeof(found->ibdev), "class/infiniband_verbs/%s/ibdev", cdev) <= 0 ||
	    verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/%s/abi_version", cdev) <= 0)
		return false;
	strcpy(found->cdev, cdev);
	found->abi_version = atoi(buf);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/%s/dev", cdev) > 0 &&
	    sscanf(buf, "%u:%u", &major, &minor) == 2)
		found->devnum = makedev(major, minor);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband/%s/node_type", found->ibdev) > 0)
		found->node_type = atoi(buf);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband/%s/node_guid", found->ibdev) > 0)
		found->node_guid = parse_guid(buf);
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

static const struct verbs_provider *find_provider(const struct verbs_found_device *found)
{
	const struct verbs_provider *const *p;

	if (found->driver_id != RDMA_DRIVER_UNKNOWN)
		for (p = __start_verbs_providers; p < __stop_verbs_providers; p++)
			if ((*p)->driver_id == found->driver_id)
				return *p;
	for (p = __start_verbs_providers; p < __stop_verbs_providers; p++)
		if (match_any((*p)->ibdev_patterns, found->ibdev))
			return *p;
	if (found->modalias[0])
		for (p = __start_verbs_providers; p < __stop_verbs_providers; p++)
			if (match_any((*p)->modalias_patterns, found->modalias))
				return *p;
	return NULL;
}

const struct verbs_provider *verbs_match_provider(const struct verbs_found_device *found)
{
	const struct verbs_provider *p = find_provider(found);

	if (!p) {
		verbs_warn("no userspace device-specific driver found for %s\n", found->ibdev);
		return NULL;
	}
	if (found->abi_version < p->min_abi || found->abi_version > p->max_abi) {
		verbs_warn("%s: driver ABI %d not supported by provider %s (%d..%d)\n",
			   found->ibdev, found->abi_version, p->name, p->min_abi, p->max_abi);
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

/* The cache holds a reference on each device it lists: the last put
 * is always by an owner that no longer lists it. */
void verbs_device_put(struct verbs_device *dev)
{
	if (atomic_fetch_sub(&dev->refcount, 1) == 1)
		free(dev);
}

static bool same_device(const struct verbs_device *dev, const struct verbs_found_device *found)
{
	/* The kernel never reuses an index, and sysfs-only devices differ in
	 * their dev_t if they are re-created. */
	return !strcmp(dev->device.name, found->ibdev) &&
	       !strcmp(dev->device.dev_name, found->cdev) &&
	       dev->devnum == found->devnum && dev->ibdev_index == found->ibdev_index &&
	       dev->node_guid == htobe64(found->node_guid) &&
	       dev->abi_version == found->abi_version;
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

static struct verbs_device *new_device(const struct verbs_found_device *found,
				       const struct verbs_provider *provider)
{
	const char *sysfs = ibv_get_sysfs_path();
	struct verbs_device *dev = calloc(1, sizeof(*dev));
	struct ibv_device *ib;

	if (!dev)
		return NULL;
	ib = &dev->device;
	ib->node_type = found->node_type;
	ib->transport_type = transport_of(found->node_type);
	snprintf(ib->name, sizeof(ib->name), "%s", found->ibdev);
	snprintf(ib->dev_name, sizeof(ib->dev_name), "%s", found->cdev);
	snprintf(ib->dev_path, sizeof(ib->dev_path), "%s/class/infiniband_verbs/%s", sysfs, found->cdev);
	snprintf(ib->ibdev_path, sizeof(ib->ibdev_path), "%s/class/infiniband/%s", sysfs, found->ibdev);
	dev->provider = provider;
	dev->driver_id = found->driver_id;
	dev->abi_version = found->abi_version;
	dev->ibdev_index = found->ibdev_index;
	dev->node_guid = htobe64(found->node_guid);
	dev->devnum = found->devnum;
	memcpy(dev->modalias, found->modalias, sizeof(dev->modalias));
	return dev;
}

/* A device is usable only through its /dev node: containers often see
 * the sysfs/netlink entry without it. */
static bool has_dev_node(const struct verbs_found_device *found)
{
	char path[PATH_MAX];
	struct stat st;

	return verbs_dev_path(path, sizeof(path), found->cdev) && !stat(path, &st);
}

static bool same_unmatched(const struct unmatched *u, const struct verbs_found_device *found)
{
	return !strcmp(u->found.ibdev, found->ibdev) && !strcmp(u->found.cdev, found->cdev) &&
	       u->found.devnum == found->devnum && u->found.ibdev_index == found->ibdev_index &&
	       u->found.node_guid == found->node_guid && u->found.abi_version == found->abi_version;
}

bool verbs_cached_chardev(struct verbs_found_device *found)
{
	struct verbs_device *dev;
	struct unmatched *u;
	bool cached = false;

	pthread_mutex_lock(&cache_lock);
	for (dev = devices; dev && !cached; dev = dev->next)
		if (dev->ibdev_index == found->ibdev_index && !strcmp(dev->device.name, found->ibdev)) {
			snprintf(found->cdev, sizeof(found->cdev), "%s", dev->device.dev_name);
			found->devnum = dev->devnum;
			found->abi_version = dev->abi_version;
			found->driver_id = dev->driver_id;
			cached = true;
		}
	for (u = unmatched; u && !cached; u = u->next)
		if (u->found.ibdev_index == found->ibdev_index && !strcmp(u->found.ibdev, found->ibdev)) {
			memcpy(found->cdev, u->found.cdev, sizeof(found->cdev));
			found->devnum = u->found.devnum;
			found->abi_version = u->found.abi_version;
			found->driver_id = u->found.driver_id;
			cached = true;
		}
	pthread_mutex_unlock(&cache_lock);
	return cached;
}

/* Unlinks and returns the entry of *list for found, or NULL. */
static struct verbs_device *take_device(struct verbs_device **list,
					const struct verbs_found_device *found)
{
	for (struct verbs_device **pp = list; *pp; pp = &(*pp)->next)
		if (same_device(*pp, found)) {
			struct verbs_device *dev = *pp;

			*pp = dev->next;
			return dev;
		}
	return NULL;
}

static struct unmatched *take_unmatched(struct unmatched **list,
					const struct verbs_found_device *found)
{
	for (struct unmatched **pp = list; *pp; pp = &(*pp)->next)
		if (same_unmatched(*pp, found)) {
			struct unmatched *u = *pp;

			*pp = u->next;
			return u;
		}
	return NULL;
}

/* Probes a device not in the cache and caches the outcome; the new
 * object (with the cache's reference) or NULL. */
static struct verbs_device *probe(struct verbs_found_device *found)
{
	const struct verbs_provider *provider;
	struct verbs_device *dev;
	struct unmatched *u;

	verbs_read_sysfs(found->modalias, sizeof(found->modalias),
			 "class/infiniband/%s/device/modalias", found->ibdev);
	provider = verbs_match_provider(found);
	if (!provider) {
		/* Without memory it is merely probed again next time. */
		u = malloc(sizeof(*u));
		if (u) {
			u->found = *found;
			u->next = unmatched;
			unmatched = u;
		}
		return NULL;
	}
	dev = new_device(found, provider);
	if (!dev)
		return NULL;
	atomic_init(&dev->refcount, 1);
	dev->next = devices;
	devices = dev;
	return dev;
}

/* The device object for found, cached or new, with a reference taken for
 * the caller.  Entries found again move from *old_devs / *old_unmatched
 * back into the cache. */
static struct verbs_device *get_device(struct verbs_found_device *found,
				       struct verbs_device **old_devs,
				       struct unmatched **old_unmatched)
{
	struct verbs_device *dev;
	struct unmatched *u;

	dev = take_device(old_devs, found);
	if (dev) {
		dev->next = devices;
		devices = dev;
	} else if ((u = take_unmatched(old_unmatched, found))) {
		u->next = unmatched;
		unmatched = u;
		return NULL;
	} else {
		/* Listed twice in one scan: found in the new cache. */
		for (dev = devices; dev && !same_device(dev, found); dev = dev->next)
			;
		for (u = unmatched; !dev && u; u = u->next)
			if (same_unmatched(u, found))
				return NULL;
		if (!dev)
			dev = probe(found);
		if (!dev)
			return NULL;
	}
	verbs_device_get(dev);
	return dev;
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct verbs_found_device *found = NULL;
	struct verbs_device *old_devs, *dev;
	struct unmatched *old_unmatched, *u;
	struct ibv_device **list;
	int n, usable = 0, listed = 0;

	verbs_init_once();
	n = verbs_netlink_scanner(&found);
	if (n < 0)
		n = verbs_sysfs_scan(&found);
	if (n < 0)
		return NULL;
	for (int i = 0; i < n; i++)
		if (has_dev_node(&found[i]))
			found[usable++] = found[i];
	list = calloc(usable + 1, sizeof(*list));
	if (!list) {
		free(found);
		errno = ENOMEM;
		return NULL;
	}
	/* Rebuild the cache from this scan; what it did not find is dropped. */
	pthread_mutex_lock(&cache_lock);
	old_devs = devices;
	old_unmatched = unmatched;
	devices = NULL;
	unmatched = NULL;
	for (int i = 0; i < usable; i++) {
		dev = get_device(&found[i], &old_devs, &old_unmatched);
		if (dev)
			list[listed++] = &dev->device;
	}
	pthread_mutex_unlock(&cache_lock);
	free(found);
	while ((dev = old_devs)) {
		old_devs = dev->next;
		verbs_device_put(dev);
	}
	while ((u = old_unmatched)) {
		old_unmatched = u->next;
		free(u);
	}
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
