/* SPDX-License-Identifier: MIT */
/* RDMA netlink message parsing, apart so tests can feed it messages. */
#ifndef OPENVERBS_NETLINK_H
#define OPENVERBS_NETLINK_H

#include <linux/netlink.h>

#include "internal.h"

/* One device of an RDMA_NLDEV_CMD_GET reply: index, name, GUID, node type.
 * 0, or -1 when the message is malformed or lacks index or name. */
int verbs_nl_parse_device(struct nlmsghdr *nlh, struct verbs_found_device *fd);
/* An RDMA_NLDEV_CMD_GET_CHARDEV reply: char device name, number, ABI and
 * (if reported) driver id, added to fd.  0 or -1. */
int verbs_nl_parse_chardev(struct nlmsghdr *nlh, struct verbs_found_device *fd);

#endif
