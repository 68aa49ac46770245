/* SPDX-License-Identifier: MIT */
/* The netlink request/answer loop, on a socket the caller opened: no
 * libnl, so rtnetlink (eth_l2.c) has it in every build, RDMA netlink
 * (netlink.c) in builds with -Dnetlink. */
#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>

#include "netlink.h"

int verbs_nl_exchange(int fd, struct nlmsghdr *req, void *buf, size_t size,
		      int (*on_msg)(struct nlmsghdr *, void *), void *arg)
{
	static _Atomic uint32_t seq;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK }, from;
	socklen_t from_len;
	struct nlmsghdr *nlh;
	ssize_t len;
	int ret;

	req->nlmsg_seq = ++seq;
	/* A netlink datagram goes whole or not at all. */
	if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return errno;
	for (;;) {
		from_len = sizeof(from);
		len = recvfrom(fd, buf, size, MSG_TRUNC, (struct sockaddr *)&from, &from_len);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return errno;
		if (len > (ssize_t)size)
			return EMSGSIZE;
		/* Only the kernel may answer. */
		if (from.nl_pid != 0)
			continue;
		for (nlh = buf; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = NLMSG_DATA(nlh);

				/* The kernel sends 0 (an ACK) or a negative
				 * errno; anything else is not its answer. */
				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*err)) ||
				    err->error > 0 || err->error < -4095)
					return EPROTO;
				return -err->error;
			}
			ret = on_msg(nlh, arg);
			if (ret)
				return ret;
			if (!(nlh->nlmsg_flags & NLM_F_MULTI))
				return 0;
		}
	}
}
