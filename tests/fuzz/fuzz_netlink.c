/* SPDX-License-Identifier: MIT */
/*
 * Netlink replies: the input is what the kernel answers, read by the
 * request/answer loop (nl_exchange.c) and handed to the parser of one
 * question: a discovery dump entry (device, then its char device), the
 * copy-on-fork query, or eth_l2.c's route and neighbour lookups.  The
 * socket calls are wrapped (-Wl,--wrap=sendto,--wrap=recvfrom) so no
 * kernel is involved; eth_l2.c is included for its static lookups.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "../../libverbs/eth_l2.c"
#include "fuzz.h"

static struct fuzz_input reply;
static uint32_t request_seq;
static bool answered;

ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t to_len);
ssize_t __wrap_recvfrom(int fd, void *buf, size_t size, int flags,
			struct sockaddr *from, socklen_t *from_len);

ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t to_len)
{
	(void)fd, (void)flags, (void)to, (void)to_len;
	request_seq = ((const struct nlmsghdr *)buf)->nlmsg_seq;
	return len;
}

/* The whole reply in one datagram, then nothing more (a non-blocking
 * socket's EAGAIN).  Messages whose sequence number is 0 get the
 * request's, which the fuzzer cannot know. */
ssize_t __wrap_recvfrom(int fd, void *buf, size_t size, int flags,
			struct sockaddr *from, socklen_t *from_len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nlh;
	ssize_t left;

	(void)fd, (void)flags;
	if (answered) {
		errno = EAGAIN;
		return -1;
	}
	answered = true;
	memcpy(buf, reply.p, reply.left < size ? reply.left : size);
	left = (ssize_t)(reply.left < size ? reply.left : size);
	for (nlh = buf; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left))
		if (!nlh->nlmsg_seq)
			nlh->nlmsg_seq = request_seq;
	memcpy(from, &kernel, sizeof(kernel));
	*from_len = sizeof(kernel);
	/* MSG_TRUNC: the datagram's real length. */
	return reply.left;
}

static int on_device(struct nlmsghdr *nlh, void *arg)
{
	struct verbs_sysfs_dev *sysfs = arg;

	return verbs_nl_parse_device(nlh, sysfs) ? 0 : verbs_nl_parse_chardev(nlh, sysfs);
}

static int on_sys(struct nlmsghdr *nlh, void *arg)
{
	return verbs_nl_parse_sys(nlh, arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	struct nlmsghdr req = { .nlmsg_len = NLMSG_LENGTH(0) };
	union {
		struct nlmsghdr hdr;
		char bytes[16384];
	} buf;
	struct verbs_sysfs_dev sysfs;
	struct ip_addr dst = {}, hop;
	uint8_t mac[ETHERNET_LL_SIZE];
	uint8_t op = fuzz_u8(&in);
	bool copies, local;
	int ifindex = (int)fuzz_u32(&in);

	dst.family = op & 0x10 ? AF_INET6 : AF_INET;
	fuzz_take(&in, dst.bytes, sizeof(dst.bytes));
	reply = in;
	answered = false;
	switch (op % 4) {
	case 0:
		memset(&sysfs, 0, sizeof(sysfs));
		verbs_nl_exchange(-1, &req, &buf, sizeof(buf), on_device, &sysfs);
		break;
	case 1:
		verbs_nl_exchange(-1, &req, &buf, sizeof(buf), on_sys, &copies);
		break;
	case 2:
		next_hop(-1, ifindex, &dst, &hop, &local);
		break;
	case 3:
		neighbour(-1, ifindex, &dst, mac);
		break;
	}
	return 0;
}
