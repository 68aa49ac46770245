/* SPDX-License-Identifier: MIT */
/* RDMA netlink: message parsing, apart so tests can feed it messages, and
 * the request/answer loop shared by every netlink question libverbs asks.
 * The parsers exist only in builds with -Dnetlink; the loop in all. */
#ifndef OPENVERBS_NETLINK_H
#define OPENVERBS_NETLINK_H

#include <linux/netlink.h>

#include "internal.h"

/* One device of an RDMA_NLDEV_CMD_GET reply into a fresh record: index,
 * name, GUID, node type, number of ports.  0, or EPROTO when the message
 * is malformed or lacks index or name. */
int verbs_nl_parse_device(struct nlmsghdr *nlh, struct verbs_sysfs_dev *sysfs);
/* An RDMA_NLDEV_CMD_GET_CHARDEV reply: char device name, number, ABI and
 * (if reported) driver id, added to sysfs.  0 or EPROTO. */
int verbs_nl_parse_chardev(struct nlmsghdr *nlh, struct verbs_sysfs_dev *sysfs);
/* An RDMA_NLDEV_CMD_SYS_GET reply: whether the kernel copies pinned pages
 * into a child of fork() (false when it does not say).  0 or EPROTO. */
int verbs_nl_parse_sys(struct nlmsghdr *nlh, bool *copy_on_fork);
/* Whether the kernel copies pinned pages into a child of fork(), asked
 * over RDMA netlink: false when it does not say or cannot be asked.
 * errno and the descriptor table are left as they were. */
bool verbs_netlink_copies_on_fork(void);

/*
 * One request and its answer on netlink socket fd, read into buf: sends
 * req (numbering it), then hands each message of the answer to on_msg,
 * until the end of a dump or after a single reply.  Only the kernel's
 * messages for this request count.  0 or a positive errno: the kernel's
 * if it refused the request, on_msg's if it failed (on_msg returns 0 or
 * an errno), else the socket's (EMSGSIZE for a message larger than buf).
 * After a failure the rest of the answer may still be waiting on fd.
 */
int verbs_nl_exchange(int fd, struct nlmsghdr *req, void *buf, size_t size,
		      int (*on_msg)(struct nlmsghdr *, void *), void *arg);

#endif
