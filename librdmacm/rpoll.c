/* SPDX-License-Identifier: MIT */
/*
 * rpoll() before rsockets exist: every fd is then an ordinary one, which
 * rpoll() waits on exactly as poll() does.  Upstream's rdmacm-utils
 * (rping, ucmatose, udaddy, mckey, cmtime) import it and bind at load, so
 * they cannot start on a librdmacm without it.
 */
#include <poll.h>

#pragma GCC visibility push(default)
#include <rdma/rsocket.h>
#pragma GCC visibility pop

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}
