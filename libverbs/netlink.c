/* SPDX-License-Identifier: MIT */
/*
 * RDMA netlink: device discovery (one dump of the devices, then one
 * question about its uverbs character device per device not seen before),
 * the kernel's copy-on-fork support, and the parsing of the replies
 * libverbs reads.  Built with -Dnetlink (libnl-3); no_netlink.c stands in
 * without it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <rdma/rdma_netlink.h>

#include "netlink.h"

/* The attributes discovery and fork safety read, with the least payload each may have
 * (strings: their NUL).  Parsed by hand: libnl's policy-checked parse of
 * every attribute of every reply was a third of a warm rescan. */
enum { STRING = 0x8000 };
static const uint16_t wanted[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = sizeof(uint32_t),
	[RDMA_NLDEV_ATTR_DEV_NAME] = STRING | 1,
	[RDMA_NLDEV_ATTR_PORT_INDEX] = sizeof(uint32_t),
	[RDMA_NLDEV_ATTR_NODE_GUID] = sizeof(uint64_t),
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] = sizeof(uint8_t),
	[RDMA_NLDEV_ATTR_CHARDEV] = sizeof(uint64_t),
	[RDMA_NLDEV_ATTR_CHARDEV_ABI] = sizeof(uint64_t),
	[RDMA_NLDEV_ATTR_CHARDEV_NAME] = STRING | 1,
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID] = sizeof(uint32_t),
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK] = sizeof(uint8_t),
};

/* tb[type] = the last attribute of each wanted type; EPROTO if one of
 * them is too short or an unterminated string. */
static int parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	int left = (int)nlh->nlmsg_len - NLMSG_HDRLEN;
	struct nlattr *nla = NLMSG_DATA(nlh);

	if (left < 0)
		return EPROTO;
	while (left >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN && nla->nla_len <= left) {
		unsigned int type = nla->nla_type & NLA_TYPE_MASK;
		int len = nla->nla_len - NLA_HDRLEN;

		if (type < RDMA_NLDEV_ATTR_MAX && wanted[type]) {
			if (len < (wanted[type] & ~STRING))
				return EPROTO;
			if ((wanted[type] & STRING) && ((char *)nla_data(nla))[len - 1])
				return EPROTO;
			tb[type] = nla;
		}
		left -= NLA_ALIGN(nla->nla_len);
		nla = (struct nlattr *)((char *)nla + NLA_ALIGN(nla->nla_len));
	}
	/* Trailing bytes too short for an attribute are ignored, as libnl does. */
	return 0;
}

int verbs_nl_parse_device(struct nlmsghdr *nlh, struct verbs_sysfs_dev *sysfs)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};

	if (parse(nlh, tb) || !tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return EPROTO;
	memset(sysfs, 0, sizeof(*sysfs));
	sysfs->ibdev_idx = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (nla_strlcpy(sysfs->ibdev_name, tb[RDMA_NLDEV_ATTR_DEV_NAME],
			sizeof(sysfs->ibdev_name)) >= sizeof(sysfs->ibdev_name))
		return EPROTO;
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID]) {
		sysfs->node_guid = nla_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
		sysfs->flags |= VSYSFS_READ_NODE_GUID;
	}
	/* The number of ports, in the dump of devices. */
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		sysfs->num_ports = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	sysfs->node_type = verbs_node_type(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] ?
					   nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]) : 0);
	sysfs->driver_id = RDMA_DRIVER_UNKNOWN;
	return 0;
}

int verbs_nl_parse_chardev(struct nlmsghdr *nlh, struct verbs_sysfs_dev *sysfs)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
	struct nlattr *id;
	uint64_t devnum;

	if (parse(nlh, tb) || !tb[RDMA_NLDEV_ATTR_CHARDEV] ||
	    !tb[RDMA_NLDEV_ATTR_CHARDEV_NAME] || !tb[RDMA_NLDEV_ATTR_CHARDEV_ABI])
		return EPROTO;
	if (nla_strlcpy(sysfs->sysfs_name, tb[RDMA_NLDEV_ATTR_CHARDEV_NAME],
			sizeof(sysfs->sysfs_name)) >= sizeof(sysfs->sysfs_name))
		return EPROTO;
	/* The kernel's 64-bit encoding of dev_t: minor's low byte, major,
	 * then the rest of the minor. */
	devnum = nla_get_u64(tb[RDMA_NLDEV_ATTR_CHARDEV]);
	sysfs->sysfs_cdev = makedev((devnum >> 8) & 0xfff, (devnum & 0xff) | ((devnum >> 12) & 0xfff00));
	sysfs->abi_ver = nla_get_u64(tb[RDMA_NLDEV_ATTR_CHARDEV_ABI]);
	/* Documented as u64, sent as u32 by the kernels we know. */
	id = tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID];
	if (id && nla_len(id) == sizeof(uint32_t))
		sysfs->driver_id = nla_get_u32(id);
	else if (id && nla_len(id) == sizeof(uint64_t))
		sysfs->driver_id = nla_get_u64(id);
	return 0;
}

int verbs_nl_parse_sys(struct nlmsghdr *nlh, bool *copy_on_fork)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {};
	struct nlattr *copies;

	if (parse(nlh, tb))
		return EPROTO;
	copies = tb[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK];
	*copy_on_fork = copies && nla_get_u8(copies) == 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Copy-on-fork                                                        */

static int on_sys_reply(struct nlmsghdr *nlh, void *copies)
{
	return verbs_nl_parse_sys(nlh, copies);
}

/* Not knowing only costs the tree: every failure reads as "no", and
 * callers see no trace of a kernel without RDMA netlink. */
bool verbs_netlink_copies_on_fork(void)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(0),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET),
		.nlmsg_flags = NLM_F_REQUEST,
	};
	union {
		struct nlmsghdr hdr;
		char bytes[4096];
	} answer;
	bool copies = false;
	int saved_errno = errno, fd;

	/* The kernel answers while handling sendto(), so the reply is already
	 * queued: a non-blocking socket never waits, even if it never comes. */
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_RDMA);
	if (fd >= 0) {
		if (verbs_nl_exchange(fd, &req, &answer, sizeof(answer), on_sys_reply, &copies))
			copies = false;
		close(fd);
	}
	errno = saved_errno;
	return copies;
}

/* ------------------------------------------------------------------ */
/* Talking to the kernel                                               */

/* libnl opens the discovery socket; requests and answers go
 * through one static buffer instead of libnl's message objects, which
 * allocate and clear a page each and were most of a rescan's work.  The
 * buffer, like the socket, belongs to whoever holds sock_lock.  Dump
 * answers are sized to the reader's buffer, so they always fit. */
static union {
	struct nlmsghdr hdr;
	char bytes[16384];
} io;

static int exchange(struct nl_sock *sk, struct nlmsghdr *req,
		    int (*on_msg)(struct nlmsghdr *, void *), void *arg)
{
	return verbs_nl_exchange(nl_socket_get_fd(sk), req, &io, sizeof(io), on_msg, arg);
}

struct dump {
	struct verbs_list_node *found;
	int n;
};

static int on_device(struct nlmsghdr *nlh, void *arg)
{
	struct dump *d = arg;
	struct verbs_sysfs_dev *sysfs = malloc(sizeof(*sysfs));

	if (!sysfs)
		return ENOMEM;
	if (verbs_nl_parse_device(nlh, sysfs)) {
		free(sysfs);
		return 0;
	}
	verbs_list_add_tail(d->found, &sysfs->entry);
	d->n++;
	return 0;
}

static int on_chardev(struct nlmsghdr *nlh, void *arg)
{
	/* A reply that cannot be parsed is a device we cannot use. */
	if (verbs_nl_parse_chardev(nlh, arg))
		((struct verbs_sysfs_dev *)arg)->sysfs_name[0] = '\0';
	return 0;
}

/* Asks which uverbs char device belongs to sysfs's device: 0 with sysfs
 * filled in, else an errno: the kernel's refusal (a device without uverbs,
 * or a kernel without GET_CHARDEV: such devices are not listed), EPROTO for
 * a reply that cannot be used, or the socket's failure.  No ACK is asked
 * for: it would come as a second message. */
static int query_chardev(struct nl_sock *sk, struct verbs_sysfs_dev *sysfs)
{
	struct {
		struct nlmsghdr hdr;
		struct nlattr index_attr;
		uint32_t index;
		struct nlattr type_attr;
		char type[8];
	} req = {
		.hdr = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV),
			.nlmsg_flags = NLM_F_REQUEST,
		},
		.index_attr = { NLA_HDRLEN + sizeof(uint32_t), RDMA_NLDEV_ATTR_DEV_INDEX },
		.index = sysfs->ibdev_idx,
		.type_attr = { NLA_HDRLEN + sizeof("uverbs"), RDMA_NLDEV_ATTR_CHARDEV_TYPE },
		.type = "uverbs",
	};
	struct verbs_sysfs_dev reply = *sysfs;
	int ret;

	reply.sysfs_name[0] = '\0';
	ret = exchange(sk, &req.hdr, on_chardev, &reply);
	if (ret)
		return ret;
	if (!reply.sysfs_name[0])
		return EPROTO;
	reply.entry = sysfs->entry;
	*sysfs = reply;
	return 0;
}

/* One socket for the life of the process, opened by the first scan:
 * setting one up is most of what a rescan would otherwise cost.  Scans
 * take turns on it.  A socket that saw an exchange fail is dropped, since
 * it may still hold the rest of an answer (a refusal by the kernel does
 * not leave one, but is rare enough not to be told apart); so is the
 * parent's in a child of fork(), whose answers would go to whichever
 * process read first. */
static pthread_mutex_t sock_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static struct nl_sock *sock;

static void drop_sock(void)
{
	nl_socket_free(sock);
	sock = NULL;
}

static void before_fork(void)
{
	pthread_mutex_lock(&sock_lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&sock_lock);
}

static void after_fork_child(void)
{
	drop_sock();
	pthread_mutex_unlock(&sock_lock);
}

static void register_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static __attribute__((destructor)) void close_sock(void)
{
	drop_sock();
}

static struct nl_sock *open_sock(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk)
		return NULL;
	if (nl_connect(sk, NETLINK_RDMA)) {
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

static void free_records(struct verbs_list_node *list)
{
	while (!verbs_list_empty(list)) {
		struct verbs_sysfs_dev *sysfs = container_of(list->next, struct verbs_sysfs_dev, entry);

		verbs_list_del(&sysfs->entry);
		free(sysfs);
	}
}

/* *suspect is set when an exchange failed: the rest of its answer may
 * still come, so the socket is not used again. */
static int scan(struct nl_sock *sk, struct verbs_list_node *found, bool *suspect)
{
	struct nlmsghdr req = {
		.nlmsg_len = sizeof(req),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
	};
	struct verbs_list_node devs, *node, *next;
	struct dump d = { .found = &devs };
	int kept = 0;

	verbs_list_init(&devs);
	if (exchange(sk, &req, on_device, &d)) {
		*suspect = true;
		free_records(&devs);
		errno = EOPNOTSUPP;
		return -1;
	}
	for (node = devs.next; node != &devs; node = next) {
		struct verbs_sysfs_dev *sysfs = container_of(node, struct verbs_sysfs_dev, entry);

		next = node->next;
		if (verbs_cached_chardev(sysfs) || !query_chardev(sk, sysfs)) {
			kept++;
			continue;
		}
		*suspect = true;
		verbs_list_del(node);
		free(sysfs);
	}
	/* A query that failed may have been the socket's (a lost answer, no
	 * memory), not the kernel's refusal, and exchange() cannot tell them
	 * apart: listing the others would drop a device that exists.  sysfs
	 * describes them all, as it does a kernel older than GET_CHARDEV
	 * (devices but no char device answers). */
	if (kept < d.n) {
		free_records(&devs);
		errno = EOPNOTSUPP;
		return -1;
	}
	while (!verbs_list_empty(&devs)) {
		node = devs.next;
		verbs_list_del(node);
		verbs_list_add_tail(found, node);
	}
	return kept;
}

int verbs_netlink_scan(struct verbs_list_node *found)
{
	bool suspect = false;
	int n;

	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&sock_lock);
	if (!sock)
		sock = open_sock();
	if (!sock) {
		pthread_mutex_unlock(&sock_lock);
		errno = EOPNOTSUPP;
		return -1;
	}
	n = scan(sock, found, &suspect);
	if (suspect)
		drop_sock();
	pthread_mutex_unlock(&sock_lock);
	return n;
}
