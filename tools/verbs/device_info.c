// SPDX-License-Identifier: MIT
#include "device_info.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The board id only sysfs knows (drivers of real NICs set it). */
static void read_board_id(struct ibv_device *device, char *out, size_t size)
{
	char path[IBV_SYSFS_PATH_MAX + 16];
	ssize_t len = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/board_id", device->ibdev_path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, out, size - 1);
		close(fd);
	}
	if (len < 0)
		len = 0;
	while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == '\0'))
		len--;
	out[len] = '\0';
}

/* Older kernels lack the GID table query: ask index by index. */
static int query_gids_by_index(struct ibv_context *context, struct port_info *port)
{
	int size = port->attr.gid_tbl_len;

	port->gids = calloc(size ? size : 1, sizeof(*port->gids));
	if (!port->gids)
		return ENOMEM;
	for (int i = 0; i < size; i++)
		if (!ibv_query_gid_ex(context, port->port_num, i,
				      &port->gids[port->gid_count], 0))
			port->gid_count++;
	return 0;
}

/* The valid GIDs of every port in INFO, from one table query. */
static int query_gids(struct ibv_context *context, struct device_info *info)
{
	struct ibv_gid_entry *table;
	size_t max = 0;
	ssize_t count;

	for (size_t i = 0; i < info->port_count; i++)
		max += info->ports[i].attr.gid_tbl_len;
	table = calloc(max ? max : 1, sizeof(*table));
	if (!table)
		return ENOMEM;
	count = ibv_query_gid_table(context, table, max, 0);
	if (count < 0) {
		free(table);
		for (size_t i = 0; i < info->port_count; i++) {
			int ret = query_gids_by_index(context, &info->ports[i]);

			if (ret)
				return ret;
		}
		return 0;
	}
	for (size_t i = 0; i < info->port_count; i++) {
		struct port_info *port = &info->ports[i];

		port->gids = calloc(count ? count : 1, sizeof(*port->gids));
		if (!port->gids) {
			free(table);
			return ENOMEM;
		}
		for (ssize_t e = 0; e < count; e++)
			if (table[e].port_num == port->port_num)
				port->gids[port->gid_count++] = table[e];
	}
	free(table);
	return 0;
}

static int query_ports(struct ibv_context *context, uint8_t port_num,
		       struct device_info *info)
{
	uint8_t first = port_num ? port_num : 1;

	info->port_count = port_num ? 1 : info->attr.orig_attr.phys_port_cnt;
	info->ports = calloc(info->port_count ? info->port_count : 1, sizeof(*info->ports));
	if (!info->ports)
		return ENOMEM;
	for (size_t i = 0; i < info->port_count; i++) {
		struct port_info *port = &info->ports[i];

		port->port_num = first + i;
		if (ibv_query_port(context, port->port_num, &port->attr))
			return errno ? errno : EIO;
	}
	return query_gids(context, info);
}

int device_info_query(struct ibv_device *device, uint8_t port_num,
		      struct device_info *info)
{
	struct ibv_context *context;
	int ret = 0;

	memset(info, 0, sizeof(*info));
	info->device = device;
	context = ibv_open_device(device);
	if (!context)
		return errno ? errno : ENODEV;
	if (ibv_query_device_ex(context, NULL, &info->attr)) {
		memset(&info->attr, 0, sizeof(info->attr));
		if (ibv_query_device(context, &info->attr.orig_attr))
			ret = errno ? errno : EIO;
	}
	info->num_comp_vectors = context->num_comp_vectors;
	if (!ret && port_num > info->attr.orig_attr.phys_port_cnt)
		ret = ENXIO;
	if (!ret)
		ret = query_ports(context, port_num, info);
	ibv_close_device(context);
	if (ret)
		device_info_free(info);
	else
		read_board_id(device, info->board_id, sizeof(info->board_id));
	return ret;
}

void device_info_free(struct device_info *info)
{
	for (size_t i = 0; i < info->port_count; i++)
		free(info->ports[i].gids);
	free(info->ports);
	info->ports = NULL;
	info->port_count = 0;
}
