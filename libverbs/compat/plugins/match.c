/* SPDX-License-Identifier: MIT */
/* Whether a registered plugin wants a device (FACTS 16-17). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "plugins.h"

/* Read the first time a table needs it (FACTS 14). */
static const char *modalias_of(struct verbs_sysfs_dev *sysfs_dev)
{
	if (!(sysfs_dev->flags & VSYSFS_READ_MODALIAS)) {
		sysfs_dev->flags |= VSYSFS_READ_MODALIAS;
		if (ibv_read_ibdev_sysfs_file(sysfs_dev->modalias, sizeof(sysfs_dev->modalias),
					      sysfs_dev, "device/modalias") < 0)
			sysfs_dev->modalias[0] = '\0';
	}
	return sysfs_dev->modalias;
}

static bool entry_matches_modalias(const struct verbs_match_ent *e, const char *modalias)
{
	char pattern[64];

	switch (e->kind) {
	case VERBS_MATCH_MODALIAS:
		return !fnmatch(e->u.modalias, modalias, 0);
	case VERBS_MATCH_PCI:
		/* Upper-case hex, as the kernel writes PCI modaliases. */
		snprintf(pattern, sizeof(pattern), "pci:v%08Xd%08Xsv*", e->vendor, e->device);
		return !fnmatch(pattern, modalias, 0);
	default:
		return false;
	}
}

/* The first hit of FACTS 16's three passes, or NULL. */
static const struct verbs_match_ent *table_match(const struct verbs_match_ent *table,
						 struct verbs_sysfs_dev *sysfs_dev)
{
	const struct verbs_match_ent *e;
	char by_name[sizeof("rdma_device:N") + sizeof(sysfs_dev->ibdev_name)];
	const char *modalias;

	if (!table)
		return NULL;
	if (sysfs_dev->driver_id)
		for (e = table; e->kind != VERBS_MATCH_SENTINEL; e++)
			if (e->kind == VERBS_MATCH_DRIVER_ID && e->u.driver_id == sysfs_dev->driver_id)
				return e;
	/* Matching by device name is spelt as a modalias pattern. */
	snprintf(by_name, sizeof(by_name), "rdma_device:N%s", sysfs_dev->ibdev_name);
	for (e = table; e->kind != VERBS_MATCH_SENTINEL; e++)
		if (e->kind == VERBS_MATCH_MODALIAS && !fnmatch(e->u.modalias, by_name, 0))
			return e;
	modalias = modalias_of(sysfs_dev);
	if (!*modalias)
		return NULL;
	for (e = table; e->kind != VERBS_MATCH_SENTINEL; e++)
		if (entry_matches_modalias(e, modalias))
			return e;
	return NULL;
}

bool verbs_plugin_has_driver_id(const struct verbs_device_ops *ops, uint32_t driver_id)
{
	for (const struct verbs_match_ent *e = ops->match_table;
	     e && e->kind != VERBS_MATCH_SENTINEL; e++)
		if (e->kind == VERBS_MATCH_DRIVER_ID && e->u.driver_id == driver_id)
			return true;
	return false;
}

bool verbs_plugin_matches(const struct verbs_device_ops *ops, struct verbs_sysfs_dev *sysfs_dev)
{
	sysfs_dev->match = table_match(ops->match_table, sysfs_dev);
	if (ops->match_device ? !ops->match_device(sysfs_dev) : !sysfs_dev->match)
		return false;
	if (sysfs_dev->abi_ver < ops->match_min_abi_version ||
	    sysfs_dev->abi_ver > ops->match_max_abi_version) {
		verbs_warn("driver %s does not support the kernel ABI of %u (supports %u to %u) for device %s\n",
			   ops->name, sysfs_dev->abi_ver, ops->match_min_abi_version,
			   ops->match_max_abi_version, sysfs_dev->ibdev_path);
		return false;
	}
	return true;
}
