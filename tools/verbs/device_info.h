/* SPDX-License-Identifier: MIT */
/*
 * Everything ibv_devinfo reports about a device, queried once through the
 * public verbs and then printed as text or as JSON.
 */
#ifndef TOOLS_VERBS_DEVICE_INFO_H
#define TOOLS_VERBS_DEVICE_INFO_H

#include <stddef.h>
#include <infiniband/verbs.h>

struct port_info {
	uint8_t port_num;
	struct ibv_port_attr attr;
	struct ibv_gid_entry *gids;	/* the port's valid entries, by index */
	size_t gid_count;
};

struct device_info {
	struct ibv_device *device;
	struct ibv_device_attr_ex attr;	/* ex fields zero without ibv_query_device_ex */
	char board_id[65];		/* empty when sysfs has none */
	int num_comp_vectors;
	struct port_info *ports;
	size_t port_count;
};

/*
 * Fills INFO for DEVICE: one port (PORT_NUM) or, with PORT_NUM 0, all of
 * them.  Returns 0, or an errno value with INFO freed: ENXIO when the
 * device has no port PORT_NUM.
 */
int device_info_query(struct ibv_device *device, uint8_t port_num,
		      struct device_info *info);
void device_info_free(struct device_info *info);

#endif
