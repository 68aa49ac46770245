/* SPDX-License-Identifier: MIT */
/*
 * The device list: every ibv_get_device_list() rescans (netlink, or sysfs
 * when netlink cannot answer) and gives each uverbs device to a provider:
 * the built-in ones first, then upstream's provider plugins
 * (verbs_plugin_claim).  Device objects are shared between lists and
 * contexts and freed with the last reference, so pointers from an older
 * list stay valid until it is freed, even for unplugged devices.
 *
 * Rescans are cheap: what the last scan found stays cached, claimed
 * devices with a reference of the cache's own, unclaimed ones as their
 * record, so a device seen again is neither re-read nor re-probed.  A
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

int (*verbs_netlink_scanner)(struct verbs_list_node *found) = verbs_netlink_scan;
const struct verbs_provider *const *verbs_providers = verbs_builtin_providers;

/* The cache, as of the last scan: devices by their entry, the records of
 * devices nobody claimed by theirs. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verbs_list_node devices = { &devices, &devices };
static struct verbs_list_node unclaimed = { &unclaimed, &unclaimed };

static struct verbs_sysfs_dev *record_of(struct verbs_list_node *node)
{
	return container_of(node, struct verbs_sysfs_dev, entry);
}

static struct verbs_device *device_of(struct verbs_list_node *node)
{
	return container_of(node, struct verbs_device, entry);
}

/* Moves every node of from to the end of to. */
static void move_all(struct verbs_list_node *to, struct verbs_list_node *from)
{
	while (!verbs_list_empty(from)) {
		struct verbs_list_node *node = from->next;

		verbs_list_del(node);
		verbs_list_add_tail(to, node);
	}
}

static void free_records(struct verbs_list_node *list)
{
	while (!verbs_list_empty(list)) {
		struct verbs_sysfs_dev *sysfs = record_of(list->next);

		verbs_list_del(&sysfs->entry);
		free(sysfs);
	}
}

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

static bool sysfs_device(const char *cdev, struct verbs_sysfs_dev *sysfs)
{
	unsigned int major, minor;
	char buf[64];

	memset(sysfs, 0, sizeof(*sysfs));
	sysfs->ibdev_idx = -1;
	sysfs->driver_id = RDMA_DRIVER_UNKNOWN;
	sysfs->node_type = IBV_NODE_UNKNOWN;
	if (strlen(cdev) >= sizeof(sysfs->sysfs_name) ||
	    verbs_read_sysfs(sysfs->ibdev_name, sizeof(sysfs->ibdev_name),
			     "class/infiniband_verbs/%s/ibdev", cdev) <= 0 ||
	    verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/%s/abi_version", cdev) <= 0)
		return false;
	strcpy(sysfs->sysfs_name, cdev);
	sysfs->abi_ver = atoi(buf);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband_verbs/%s/dev", cdev) > 0 &&
	    sscanf(buf, "%u:%u", &major, &minor) == 2)
		sysfs->sysfs_cdev = makedev(major, minor);
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband/%s/node_type",
			     sysfs->ibdev_name) > 0)
		sysfs->node_type = verbs_node_type(atoi(buf));
	if (verbs_read_sysfs(buf, sizeof(buf), "class/infiniband/%s/node_guid",
			     sysfs->ibdev_name) > 0) {
		sysfs->node_guid = parse_guid(buf);
		sysfs->flags |= VSYSFS_READ_NODE_GUID;
	}
	return true;
}

int verbs_sysfs_scan(struct verbs_list_node *found)
{
	struct verbs_list_node devs = { &devs, &devs };
	struct verbs_sysfs_dev *sysfs;
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
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
		sysfs = malloc(sizeof(*sysfs));
		if (!sysfs) {
			closedir(dir);
			free_records(&devs);
			errno = ENOMEM;
			return -1;
		}
		if (!sysfs_device(de->d_name, sysfs)) {
			free(sysfs);
			continue;
		}
		verbs_list_add_tail(&devs, &sysfs->entry);
		n++;
	}
	closedir(dir);
	move_all(found, &devs);
	return n;
}

/* ------------------------------------------------------------------ */
/* Providers                                                           */

static bool match_any(const char *const *patterns, const char *s)
{
	for (; patterns && *patterns; patterns++)
		if (!fnmatch(*patterns, s, 0))
			return true;
	return false;
}

static bool enabled(const struct verbs_provider *p)
{
	return !verbs_provider_disabled(p->name);
}

static const struct verbs_provider *find_provider(const struct verbs_sysfs_dev *sysfs)
{
	const struct verbs_provider *const *p;

	if (sysfs->driver_id != RDMA_DRIVER_UNKNOWN)
		for (p = verbs_providers; *p; p++)
			if ((*p)->driver_id == (enum rdma_driver_id)sysfs->driver_id && enabled(*p))
				return *p;
	for (p = verbs_providers; *p; p++)
		if (match_any((*p)->ibdev_patterns, sysfs->ibdev_name) && enabled(*p))
			return *p;
	if (sysfs->modalias[0])
		for (p = verbs_providers; *p; p++)
			if (match_any((*p)->modalias_patterns, sysfs->modalias) && enabled(*p))
				return *p;
	return NULL;
}

const struct verbs_provider *verbs_match_provider(const struct verbs_sysfs_dev *sysfs)
{
	const struct verbs_provider *p = find_provider(sysfs);

	if (!p)
		return NULL;
	if (sysfs->abi_ver < (uint32_t)p->min_abi || sysfs->abi_ver > (uint32_t)p->max_abi) {
		verbs_warn("%s: driver ABI %u not supported by provider %s (%d..%d)\n",
			   sysfs->ibdev_name, sysfs->abi_ver, p->name, p->min_abi, p->max_abi);
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
 * is always by an owner that no longer lists it.  The record goes first,
 * then the device (FACTS 20). */
void verbs_device_put(struct verbs_device *dev)
{
	const struct verbs_provider *provider;

	if (atomic_fetch_sub(&dev->refcount, 1) != 1)
		return;
	provider = verbs_sysfs_provider(dev->sysfs);
	free(dev->sysfs);
	dev->sysfs = NULL;
	if (provider->free_device)
		provider->free_device(dev);
	else
		free(dev);
}

/* The kernel never reuses an index; sysfs-only devices differ in their
 * creation time (FACTS 20) or in their dev_t if they are re-created. */
static bool same_record(const struct verbs_sysfs_dev *a, const struct verbs_sysfs_dev *b)
{
	return !strcmp(a->sysfs_name, b->sysfs_name) && a->ibdev_idx == b->ibdev_idx &&
	       (a->ibdev_idx != -1 ||
		(a->time_created.tv_sec == b->time_created.tv_sec &&
		 a->time_created.tv_nsec == b->time_created.tv_nsec)) &&
	       !strcmp(a->ibdev_name, b->ibdev_name) && a->sysfs_cdev == b->sysfs_cdev &&
	       a->node_guid == b->node_guid && a->abi_ver == b->abi_ver;
}

static enum ibv_transport_type transport_of(enum ibv_node_type node_type)
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

/* What the core sets in every claimed device, built-in or plugin
 * (FACTS 19); dev now owns sysfs. */
static void complete_device(struct verbs_device *dev, struct verbs_sysfs_dev *sysfs)
{
	struct ibv_device *ib = &dev->device;

	atomic_init(&dev->refcount, 1);
	ib->node_type = sysfs->node_type;
	ib->transport_type = transport_of(sysfs->node_type);
	snprintf(ib->name, sizeof(ib->name), "%s", sysfs->ibdev_name);
	snprintf(ib->dev_name, sizeof(ib->dev_name), "%s", sysfs->sysfs_name);
	snprintf(ib->dev_path, sizeof(ib->dev_path), "%s/class/infiniband_verbs/%s",
		 ibv_get_sysfs_path(), sysfs->sysfs_name);
	snprintf(ib->ibdev_path, sizeof(ib->ibdev_path), "%s", sysfs->ibdev_path);
	dev->sysfs = sysfs;
}

/* The record's remaining fields, from sysfs.  A device is usable only
 * through its /dev node (containers often see the sysfs/netlink entry
 * without it): false without one. */
static bool complete_record(struct verbs_sysfs_dev *sysfs)
{
	char path[PATH_MAX];
	struct stat st;

	if (!verbs_dev_path(path, sizeof(path), sysfs->sysfs_name) || stat(path, &st))
		return false;
	snprintf(sysfs->ibdev_path, sizeof(sysfs->ibdev_path), "%s/class/infiniband/%s",
		 ibv_get_sysfs_path(), sysfs->ibdev_name);
	if (!stat(sysfs->ibdev_path, &st))
		sysfs->time_created = st.st_mtim;
	return true;
}

bool verbs_cached_chardev(struct verbs_sysfs_dev *sysfs)
{
	const struct verbs_sysfs_dev *known = NULL;
	struct verbs_list_node *node;

	pthread_mutex_lock(&cache_lock);
	for (node = devices.next; node != &devices && !known; node = node->next) {
		const struct verbs_sysfs_dev *d = device_of(node)->sysfs;

		if (d->ibdev_idx == sysfs->ibdev_idx && !strcmp(d->ibdev_name, sysfs->ibdev_name))
			known = d;
	}
	for (node = unclaimed.next; node != &unclaimed && !known; node = node->next) {
		const struct verbs_sysfs_dev *d = record_of(node);

		if (d->ibdev_idx == sysfs->ibdev_idx && !strcmp(d->ibdev_name, sysfs->ibdev_name))
			known = d;
	}
	if (known) {
		memcpy(sysfs->sysfs_name, known->sysfs_name, sizeof(sysfs->sysfs_name));
		sysfs->sysfs_cdev = known->sysfs_cdev;
		sysfs->abi_ver = known->abi_ver;
		sysfs->driver_id = known->driver_id;
	}
	pthread_mutex_unlock(&cache_lock);
	return known;
}

static struct verbs_device *find_device(struct verbs_list_node *list,
					const struct verbs_sysfs_dev *sysfs)
{
	for (struct verbs_list_node *node = list->next; node != list; node = node->next)
		if (same_record(device_of(node)->sysfs, sysfs))
			return device_of(node);
	return NULL;
}

static struct verbs_sysfs_dev *find_unclaimed(struct verbs_list_node *list,
					      const struct verbs_sysfs_dev *sysfs)
{
	for (struct verbs_list_node *node = list->next; node != list; node = node->next)
		if (same_record(record_of(node), sysfs))
			return record_of(node);
	return NULL;
}

/* A device for sysfs from the first provider that wants it, built-in or
 * plugin, with sysfs->provider_data set; NULL if none does. */
static struct verbs_device *claim(struct verbs_sysfs_dev *sysfs)
{
	const struct verbs_provider *provider = verbs_match_provider(sysfs);
	struct verbs_device *dev;

	if (!provider) {
		dev = verbs_plugin_claim(sysfs);
		if (!dev) {
			int err = errno;

			verbs_warn("no userspace device-specific driver found for %s\n",
				   sysfs->ibdev_name);
			errno = err;
		}
		return dev;
	}
	dev = calloc(1, sizeof(*dev));
	if (dev)
		sysfs->provider_data = (void *)provider;
	return dev;
}

/* Probes a device not in the cache and caches the outcome (the record
 * belongs to the cache or the device afterwards); the new object (with
 * the cache's reference) or NULL. */
static struct verbs_device *probe(struct verbs_sysfs_dev *sysfs)
{
	struct verbs_device *dev;

	if (verbs_read_sysfs(sysfs->modalias, sizeof(sysfs->modalias),
			     "class/infiniband/%s/device/modalias", sysfs->ibdev_name) < 0)
		sysfs->modalias[0] = '\0';
	sysfs->flags |= VSYSFS_READ_MODALIAS;
	dev = claim(sysfs);
	if (!dev) {
		/* Without memory it is merely probed again next time. */
		if (errno == ENOMEM)
			free(sysfs);
		else
			verbs_list_add_tail(&unclaimed, &sysfs->entry);
		return NULL;
	}
	complete_device(dev, sysfs);
	verbs_list_add_tail(&devices, &dev->entry);
	return dev;
}

/* The device object for sysfs, cached or new, with a reference taken for
 * the caller; the record is used or freed.  Entries found again move from
 * old_devs / old_unclaimed back into the cache. */
static struct verbs_device *get_device(struct verbs_sysfs_dev *sysfs,
				       struct verbs_list_node *old_devs,
				       struct verbs_list_node *old_unclaimed)
{
	struct verbs_sysfs_dev *known;
	struct verbs_device *dev;

	dev = find_device(old_devs, sysfs);
	if (dev) {
		verbs_list_del(&dev->entry);
		verbs_list_add_tail(&devices, &dev->entry);
		free(sysfs);
	} else if ((known = find_unclaimed(old_unclaimed, sysfs))) {
		verbs_list_del(&known->entry);
		verbs_list_add_tail(&unclaimed, &known->entry);
		free(sysfs);
		return NULL;
	} else if ((dev = find_device(&devices, sysfs))) {
		/* Listed twice in one scan. */
		free(sysfs);
	} else if (find_unclaimed(&unclaimed, sysfs)) {
		free(sysfs);
		return NULL;
	} else {
		dev = probe(sysfs);
		if (!dev)
			return NULL;
	}
	verbs_device_get(dev);
	return dev;
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct verbs_list_node found = { &found, &found };
	struct verbs_list_node old_devs = { &old_devs, &old_devs };
	struct verbs_list_node old_unclaimed = { &old_unclaimed, &old_unclaimed };
	struct verbs_list_node *node, *next;
	struct verbs_device *dev;
	struct ibv_device **list;
	int n, usable = 0, listed = 0;

	verbs_init_once();
	n = verbs_netlink_scanner(&found);
	if (n < 0)
		n = verbs_sysfs_scan(&found);
	if (n < 0)
		return NULL;
	for (node = found.next; node != &found; node = next) {
		next = node->next;
		if (complete_record(record_of(node))) {
			usable++;
			continue;
		}
		verbs_list_del(node);
		free(record_of(node));
	}
	list = calloc(usable + 1, sizeof(*list));
	if (!list) {
		free_records(&found);
		errno = ENOMEM;
		return NULL;
	}
	/* Rebuild the cache from this scan; what it did not find is dropped. */
	pthread_mutex_lock(&cache_lock);
	move_all(&old_devs, &devices);
	move_all(&old_unclaimed, &unclaimed);
	while (!verbs_list_empty(&found)) {
		node = found.next;
		verbs_list_del(node);
		dev = get_device(record_of(node), &old_devs, &old_unclaimed);
		if (dev)
			list[listed++] = &dev->device;
	}
	pthread_mutex_unlock(&cache_lock);
	while (!verbs_list_empty(&old_devs)) {
		dev = device_of(old_devs.next);
		verbs_list_del(&dev->entry);
		verbs_device_put(dev);
	}
	free_records(&old_unclaimed);
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
	return htobe64(verbs_get_device(device)->sysfs->node_guid);
}

int ibv_get_device_index(struct ibv_device *device)
{
	return verbs_get_device(device)->sysfs->ibdev_idx;
}
