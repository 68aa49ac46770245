/* SPDX-License-Identifier: MIT */
/*
 * Device discovery over RDMA netlink: one dump of the devices, then one
 * question about its uverbs character device per device not seen before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <rdma/rdma_netlink.h>

#include "netlink.h"

static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_NODE_GUID] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_CHARDEV] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_CHARDEV_ABI] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_CHARDEV_NAME] = { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE] = { .type = NLA_NUL_STRING },
};

static int parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	return nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, policy) ? -1 : 0;
}

int verbs_nl_parse_device(struct nlmsghdr *nlh, struct verbs_found_device *fd)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};

	if (parse(nlh, tb) || !tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -1;
	memset(fd, 0, sizeof(*fd));
	fd->ibdev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (nla_strlcpy(fd->ibdev, tb[RDMA_NLDEV_ATTR_DEV_NAME], sizeof(fd->ibdev)) >=
	    sizeof(fd->ibdev))
		return -1;
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
		fd->node_guid = nla_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
	fd->node_type = tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] ?
		nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]) : IBV_NODE_UNKNOWN;
	fd->driver_id = RDMA_DRIVER_UNKNOWN;
	fd->abi_version = -1;
	return 0;
}

int verbs_nl_parse_chardev(struct nlmsghdr *nlh, struct verbs_found_device *fd)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
	struct nlattr *id;
	uint64_t devnum;

	if (parse(nlh, tb) || !tb[RDMA_NLDEV_ATTR_CHARDEV] ||
	    !tb[RDMA_NLDEV_ATTR_CHARDEV_NAME] || !tb[RDMA_NLDEV_ATTR_CHARDEV_ABI])
		return -1;
	if (nla_strlcpy(fd->cdev, tb[RDMA_NLDEV_ATTR_CHARDEV_NAME], sizeof(fd->cdev)) >=
	    sizeof(fd->cdev))
		return -1;
	/* The kernel's 64-bit encoding of dev_t: minor's low byte, major,
	 * then the rest of the minor. */
	devnum = nla_get_u64(tb[RDMA_NLDEV_ATTR_CHARDEV]);
	fd->devnum = makedev((devnum >> 8) & 0xfff, (devnum & 0xff) | ((devnum >> 12) & 0xfff00));
	fd->abi_version = nla_get_u64(tb[RDMA_NLDEV_ATTR_CHARDEV_ABI]);
	/* Documented as u64, sent as u32 by the kernels we know. */
	id = tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID];
	if (id && nla_len(id) == sizeof(uint32_t))
		fd->driver_id = nla_get_u32(id);
	else if (id && nla_len(id) == sizeof(uint64_t))
		fd->driver_id = nla_get_u64(id);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Talking to the kernel                                               */

struct dump {
	struct verbs_found_device *devs;
	int n, cap;
	int err;
};

static int on_device(struct nl_msg *msg, void *arg)
{
	struct dump *d = arg;
	struct verbs_found_device *grown;

	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 8;
		grown = realloc(d->devs, d->cap * sizeof(*grown));
		if (!grown) {
			d->err = ENOMEM;
			return NL_STOP;
		}
		d->devs = grown;
	}
	if (!verbs_nl_parse_device(nlmsg_hdr(msg), &d->devs[d->n]))
		d->n++;
	return NL_OK;
}

struct chardev_reply {
	struct verbs_found_device fd;
	bool ok;
};

static int on_chardev(struct nl_msg *msg, void *arg)
{
	struct chardev_reply *reply = arg;

	if (verbs_nl_parse_chardev(nlmsg_hdr(msg), &reply->fd))
		return NL_SKIP;
	reply->ok = true;
	return NL_OK;
}

/* One reply or one error, each in one datagram: asking for an ACK as
 * well would leave it to be read as the next question's answer.  A
 * device without uverbs (or a kernel without GET_CHARDEV) answers with an
 * error: such devices are simply not listed. */
static bool query_chardev(struct nl_sock *sk, struct verbs_found_device *fd)
{
	struct chardev_reply reply = { *fd, false };
	struct nl_msg *msg;
	int ret;

	msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV),
				 NLM_F_REQUEST);
	if (!msg)
		return false;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, fd->ibdev_index) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs")) {
		nlmsg_free(msg);
		return false;
	}
	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return false;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_chardev, &reply);
	if (nl_recvmsgs_default(sk) < 0 || !reply.ok)
		return false;
	*fd = reply.fd;
	return true;
}

int verbs_netlink_scan(struct verbs_found_device **out)
{
	struct dump d = {};
	struct nl_sock *sk;
	int kept = 0;

	sk = nl_socket_alloc();
	if (!sk) {
		errno = ENOMEM;
		return -1;
	}
	nl_socket_disable_auto_ack(sk);
	/* RDMA replies are small: one recvmsg() each instead of peeking first. */
	nl_socket_disable_msg_peek(sk);
	if (nl_connect(sk, NETLINK_RDMA) ||
	    nl_send_simple(sk, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
			   NLM_F_DUMP, NULL, 0) < 0) {
		nl_socket_free(sk);
		errno = EOPNOTSUPP;
		return -1;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_device, &d);
	if (nl_recvmsgs_default(sk) < 0 || d.err) {
		nl_socket_free(sk);
		free(d.devs);
		errno = d.err ? d.err : EOPNOTSUPP;
		return -1;
	}
	for (int i = 0; i < d.n; i++)
		if (verbs_cached_chardev(&d.devs[i]) || query_chardev(sk, &d.devs[i]))
			d.devs[kept++] = d.devs[i];
	nl_socket_free(sk);
	/* Devices but no char device answers: a kernel older than
	 * GET_CHARDEV, which sysfs can still describe. */
	if (d.n && !kept) {
		free(d.devs);
		errno = EOPNOTSUPP;
		return -1;
	}
	*out = d.devs;
	return kept;
}
