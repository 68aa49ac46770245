/* SPDX-License-Identifier: MIT */
/*
 * A build without RDMA netlink (-Dnetlink=disabled: no libnl) stands
 * these in for netlink.c's two questions, and gives up what only the
 * kernel's netlink answers carry:
 *
 *  - discovery reads sysfs alone (device_list.c falls back to it), where
 *    the kernel publishes no driver id: built-in providers match a device
 *    by its name pattern and plugins by modalias, so a renamed soft
 *    device (a siw device not called siw*, an rxe one not rxe*) or a
 *    device that only its driver id identifies (efa, ...) goes
 *    unclaimed;
 *  - copy-on-fork: a kernel that copies pinned pages into a child of
 *    fork() (Linux 5.13 on) is never recognised, so ibv_fork_init()
 *    turns on the madvise tree it does not need (correct, only slower)
 *    and ibv_is_fork_initialized() never says IBV_FORK_UNNEEDED.
 *
 * ibv_resolve_eth_l2_from_gid() keeps its rtnetlink (eth_l2.c): that is
 * another kernel family, every Linux has it, and it needs no library.
 */
#include <errno.h>

#include "netlink.h"

int verbs_netlink_scan(struct verbs_list_node *found)
{
	(void)found;
	errno = EOPNOTSUPP;
	return -1;
}

bool verbs_netlink_copies_on_fork(void)
{
	return false;
}
