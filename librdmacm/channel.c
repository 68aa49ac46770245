/* SPDX-License-Identifier: MIT */
/*
 * Event channels: each one an open rdma_cm character device.  The kernel
 * names the device through RDMA netlink; kernels without that answer are
 * found at the fixed path, with the ABI version from sysfs.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "config.h"
#include "internal.h"

/* The rdma_cm ABI versions whose commands ucma.c speaks. */
enum { ABI_MIN = 3, ABI_MAX = 4 };

struct chardev {
	char name[32];
	dev_t devnum;			/* 0: not known, any will do */
	uint64_t abi;
};

#if RDMA_NETLINK
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <rdma/rdma_netlink.h>

/* The attributes are checked here rather than by an nla_policy: a policy
 * array indexed by attribute type cost more .data than these lines cost
 * code.  nlmsg_parse skips attributes above maxtype. */
static bool nl_u64_valid(const struct nlattr *attr)
{
	return attr && nla_len(attr) >= (int)sizeof(uint64_t);
}

static bool nl_string_valid(const struct nlattr *attr)
{
	return attr && nla_len(attr) > 0 && !((const char *)nla_data(attr))[nla_len(attr) - 1];
}

static int on_chardev(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_CHARDEV + 1];
	struct chardev *cdev = arg;
	uint64_t devnum;

	if (nlmsg_parse(nlmsg_hdr(msg), 0, tb, RDMA_NLDEV_ATTR_CHARDEV, NULL) ||
	    !nl_u64_valid(tb[RDMA_NLDEV_ATTR_CHARDEV]) ||
	    !nl_u64_valid(tb[RDMA_NLDEV_ATTR_CHARDEV_ABI]) ||
	    !nl_string_valid(tb[RDMA_NLDEV_ATTR_CHARDEV_NAME]))
		return NL_SKIP;
	if (nla_strlcpy(cdev->name, tb[RDMA_NLDEV_ATTR_CHARDEV_NAME], sizeof(cdev->name)) >=
	    sizeof(cdev->name))
		return NL_SKIP;
	/* The kernel's 64-bit dev_t: minor's low byte, major, rest of minor. */
	devnum = nla_get_u64(tb[RDMA_NLDEV_ATTR_CHARDEV]);
	cdev->devnum = makedev((devnum >> 8) & 0xfff, (devnum & 0xff) | ((devnum >> 12) & 0xfff00));
	cdev->abi = nla_get_u64(tb[RDMA_NLDEV_ATTR_CHARDEV_ABI]);
	return NL_OK;
}

/* Asks the kernel for the global (device-less) chardev named rdma_cm. */
static int chardev_by_netlink(struct chardev *cdev)
{
	struct nl_sock *sk;
	struct nl_msg *msg = NULL;
	int ret = ENODEV;

	sk = nl_socket_alloc();
	if (!sk)
		return ENOMEM;
	if (nl_connect(sk, NETLINK_RDMA))
		goto out;
	nl_socket_disable_auto_ack(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_chardev, cdev);
	msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV),
				 NLM_F_REQUEST);
	if (!msg || nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "rdma_cm") ||
	    nl_send_auto(sk, msg) < 0 || nl_recvmsgs_default(sk) < 0)
		goto out;
	if (cdev->name[0])
		ret = 0;
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	return ret;
}
#else
/* A build without RDMA netlink (-Dnetlink=disabled) finds the device at
 * its fixed path only, and cannot check that the node there is the
 * device the kernel means (any /dev/infiniband/rdma_cm is taken). */
static int chardev_by_netlink(struct chardev *cdev)
{
	(void)cdev;
	return EOPNOTSUPP;
}
#endif

static int chardev_by_sysfs(struct chardev *cdev)
{
	/* SYSFS_PATH moves the tree for tests, as libibverbs allows. */
	const char *sysfs = secure_getenv("SYSFS_PATH");
	char path[PATH_MAX];
	unsigned long long abi;
	FILE *f;
	int n;

	if ((size_t)snprintf(path, sizeof(path), "%s/class/misc/rdma_cm/abi_version",
			     sysfs && *sysfs ? sysfs : "/sys") >= sizeof(path))
		return ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return ENODEV;
	n = fscanf(f, "%llu", &abi);
	fclose(f);
	if (n != 1)
		return ENODEV;
	strcpy(cdev->name, "rdma_cm");
	cdev->abi = abi;
	return 0;
}

/* Opens the rdma_cm device: *fd, or a positive errno. */
static int open_chardev(int *fd)
{
	struct chardev cdev = {};
	char path[64];
	struct stat st;
	int err;

	err = chardev_by_netlink(&cdev);
	if (err)
		err = chardev_by_sysfs(&cdev);
	if (err)
		return err;
	if (cdev.abi < ABI_MIN || cdev.abi > ABI_MAX)
		return ENOSYS;
	snprintf(path, sizeof(path), "/dev/infiniband/%s", cdev.name);
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return errno;
	/* A node that is not the device the kernel named is someone else's. */
	if (cdev.devnum && (fstat(*fd, &st) || st.st_rdev != cdev.devnum)) {
		close(*fd);
		return ENODEV;
	}
	return 0;
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rdma_event_channel *channel;
	int ret;

	ret = cma_need_device();
	if (ret)
		return cma_fail_null(ret);
	channel = malloc(sizeof(*channel));
	if (!channel)
		return cma_fail_null(ENOMEM);
	ret = open_chardev(&channel->fd);
	if (ret) {
		free(channel);
		return cma_fail_null(ret);
	}
	return channel;
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	close(channel->fd);
	free(channel);
}
