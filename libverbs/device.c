/* SPDX-License-Identifier: MIT */
/* Device, port, GID and P_Key queries. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int verbs_query_device_ex(struct ibv_context *ctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	const struct verbs_ops *ops = verbs_ops(ctx);
	uint64_t fw;
	int ret;

	if (ops->query_device_ex)
		return ops->query_device_ex(ctx, input, attr, attr_size);
	ret = verbs_cmd_query_device(ctx, input, attr, attr_size, &fw, NULL);
	if (ret)
		return ret;
	/* Three 16-bit fields, as the software devices number theirs. */
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver), "%u.%u.%u",
		 (unsigned int)(fw >> 32) & 0xffff, (unsigned int)(fw >> 16) & 0xffff,
		 (unsigned int)fw & 0xffff);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	/* The basic attributes are the head of the extended ones. */
	return verbs_query_device_ex(context, NULL, (struct ibv_device_attr_ex *)device_attr,
				     sizeof(*device_attr));
}

static int query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	const struct verbs_ops *ops = verbs_ops(ctx);

	if (ops->query_port)
		return ops->query_port(ctx, port, attr);
	return verbs_cmd_query_port(ctx, port, attr);
}

int verbs_query_port_sized(struct ibv_context *ctx, uint8_t port,
			   struct ibv_port_attr *attr, size_t attr_len)
{
	struct ibv_port_attr full;
	int ret;

	ret = query_port(ctx, port, &full);
	if (ret)
		return ret;
	/* Callers built against older headers pass less, newer ones more:
	 * fields we do not know read as zero. */
	if (attr_len <= sizeof(full)) {
		memcpy(attr, &full, attr_len);
	} else {
		memcpy(attr, &full, sizeof(full));
		memset((char *)attr + sizeof(full), 0, attr_len - sizeof(full));
	}
	return 0;
}

/* Reached only by callers of the pre-1.1 layout, which ends at
 * link_layer: later fields would overrun their struct. */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	return verbs_query_port_sized(context, port_num, (struct ibv_port_attr *)port_attr,
				      offsetof(struct ibv_port_attr, flags));
}

/* ------------------------------------------------------------------ */
/* sysfs fallbacks: kernels without the ioctl GID methods              */

static int read_port_file(struct ibv_context *ctx, char *buf, size_t size,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int read_port_file(struct ibv_context *ctx, char *buf, size_t size,
			  const char *fmt, ...)
{
	char rel[128];
	va_list ap;
	int len;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	len = ibv_read_sysfs_file(ctx->device->ibdev_path, rel, buf, size - 1);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}

/* "fe80:0000:...:0001" as shown in ports/N/gids/I. */
static int parse_gid(const char *s, union ibv_gid *gid)
{
	unsigned int w[8];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3],
		   &w[4], &w[5], &w[6], &w[7]) != 8)
		return -1;
	for (int i = 0; i < 8; i++) {
		gid->raw[2 * i] = w[i] >> 8;
		gid->raw[2 * i + 1] = w[i] & 0xff;
	}
	return 0;
}

static bool gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

static int sysfs_gid(struct ibv_context *ctx, uint32_t port, uint32_t index,
		     union ibv_gid *gid)
{
	char buf[64];

	/* No such file: no such port or index, an invalid argument. */
	if (read_port_file(ctx, buf, sizeof(buf), "ports/%u/gids/%u", port, index) < 0)
		return errno == ENOENT ? EINVAL : errno;
	return parse_gid(buf, gid) ? EINVAL : 0;
}

/* The GID type file exists only for RoCE ports; its absence means IB. */
static int sysfs_gid_type(struct ibv_context *ctx, uint32_t port, uint32_t index,
			  uint32_t *type)
{
	char buf[32];

	if (read_port_file(ctx, buf, sizeof(buf), "ports/%u/gid_attrs/types/%u", port, index) < 0) {
		if (errno != ENOENT)
			return errno;
		*type = IBV_GID_TYPE_IB;
		return 0;
	}
	if (!strcmp(buf, "RoCE v2"))
		*type = IBV_GID_TYPE_ROCE_V2;
	else if (!strcmp(buf, "IB/RoCE v1"))
		*type = ctx->device->transport_type == IBV_TRANSPORT_IB &&
			read_port_file(ctx, buf, sizeof(buf), "ports/%u/link_layer", port) > 0 &&
			!strcmp(buf, "Ethernet") ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_IB;
	else
		return EINVAL;
	return 0;
}

static int sysfs_gid_entry(struct ibv_context *ctx, uint32_t port, uint32_t index,
			   struct ibv_gid_entry *entry)
{
	char ndev[IF_NAMESIZE + 1];
	int ret;

	memset(entry, 0, sizeof(*entry));
	ret = sysfs_gid(ctx, port, index, &entry->gid);
	if (!ret && gid_is_zero(&entry->gid))
		ret = ENODATA;
	if (!ret)
		ret = sysfs_gid_type(ctx, port, index, &entry->gid_type);
	if (ret)
		return ret;
	entry->gid_index = index;
	entry->port_num = port;
	if (read_port_file(ctx, ndev, sizeof(ndev), "ports/%u/gid_attrs/ndevs/%u", port, index) > 0)
		entry->ndev_ifindex = if_nametoindex(ndev);
	return 0;
}

/* ------------------------------------------------------------------ */
/* GIDs                                                                */

/* The kernel answers GID questions where it has the ioctl queries; their
 * EOPNOTSUPP says it has not, and is the one answer that sends the
 * question to sysfs. */
static bool ask_sysfs(int kernel_ret)
{
	return kernel_ret == EOPNOTSUPP;
}

static int query_gid_entry(struct ibv_context *ctx, uint32_t port, uint32_t index,
			   struct ibv_gid_entry *entry)
{
	int ret = vcmd_query_gid_entry(ctx, port, index, entry);

	return ask_sysfs(ret) ? sysfs_gid_entry(ctx, port, index, entry) : ret;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int ret;

	if (flags || entry_size < sizeof(e))
		return EINVAL;
	ret = query_gid_entry(context, port_num, gid_index, &e);
	if (!ret)
		memcpy(entry, &e, sizeof(e));
	return ret;
}

/* An empty slot reads as the zero GID, as it always has. */
int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
		  union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	int ret;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = vcmd_query_gid_entry(context, port_num, index, &e);
	if (ask_sysfs(ret))
		ret = sysfs_gid(context, port_num, index, &e.gid);
	else if (ret == ENODATA || ret == ENOENT)
		ret = 0, memset(&e.gid, 0, sizeof(e.gid));
	if (ret) {
		errno = ret;
		return -1;
	}
	*gid = e.gid;
	return 0;
}

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type)
{
	struct ibv_gid_entry e;
	int ret;

	ret = vcmd_query_gid_entry(context, port_num, index, &e);
	if (ask_sysfs(ret))
		ret = sysfs_gid_type(context, port_num, index, &e.gid_type);
	if (ret) {
		errno = ret;
		return -1;
	}
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? IBV_GID_TYPE_SYSFS_ROCE_V2
						   : IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

/* Every valid entry of every port, walking sysfs. */
static ssize_t sysfs_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
			       size_t max_entries, size_t entry_size)
{
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	struct ibv_gid_entry e;
	size_t n = 0;
	int ret;

	ret = ibv_query_device(ctx, &dev);
	if (ret)
		return -ret;
	for (uint32_t p = 1; p <= dev.phys_port_cnt; p++) {
		ret = query_port(ctx, p, &port);
		if (ret)
			return -ret;
		for (int i = 0; i < port.gid_tbl_len; i++) {
			ret = sysfs_gid_entry(ctx, p, i, &e);
			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (n == max_entries)
				return -EINVAL;
			memcpy((char *)entries + n++ * entry_size, &e, sizeof(e));
		}
	}
	return n;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry *tmp;
	size_t num;
	int ret;

	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	tmp = calloc(max_entries ? max_entries : 1, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	ret = vcmd_query_gid_table(context, tmp, max_entries, &num);
	if (ask_sysfs(ret)) {
		free(tmp);
		return sysfs_gid_table(context, entries, max_entries, entry_size);
	}
	/* The caller's entries may be larger than ours: keep its stride. */
	for (size_t i = 0; !ret && i < num; i++)
		memcpy((char *)entries + i * entry_size, &tmp[i], sizeof(tmp[i]));
	free(tmp);
	return ret ? -ret : (ssize_t)num;
}

/* ------------------------------------------------------------------ */
/* P_Keys (sysfs is the only source)                                   */

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
		   __be16 *pkey)
{
	char buf[16];
	unsigned int val;

	if (read_port_file(context, buf, sizeof(buf), "ports/%u/pkeys/%d", port_num, index) < 0)
		return -1;
	if (sscanf(buf, "%x", &val) != 1) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16(val);
	return 0;
}

/* The walk ends at the first index that cannot be read: past the table
 * that is ENOENT (no such file), otherwise the read's own errno. */
int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	__be16 cur;

	for (int i = 0; !ibv_query_pkey(context, port_num, i, &cur); i++)
		if (cur == pkey)
			return i;
	return -1;
}
