// SPDX-License-Identifier: MIT
/*
 * poll() and select(): with an rsocket among the fds, everything is
 * translated to the underlying descriptors and handed to rpoll(), which
 * mixes rsockets and kernel fds; otherwise libc's own call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rsocket.h>

#include "preload.h"

#define STACK_FDS 32

static bool any_mapped(const struct pollfd *fds, nfds_t nfds)
{
	nfds_t i;

	for (i = 0; i < nfds; i++)
		if (fdmap_get(fds[i].fd))
			return true;
	return false;
}

/* fds[i].fd -> the descriptor rpoll understands (negative ones stay). */
static void translate(struct pollfd *out, const struct pollfd *in, nfds_t nfds)
{
	struct psock *ps;
	nfds_t i;

	for (i = 0; i < nfds; i++) {
		out[i] = in[i];
		ps = fdmap_get(in[i].fd);
		if (ps)
			out[i].fd = ps->sfd;
	}
}

static int rpoll_translated(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct pollfd stack_fds[STACK_FDS], *copy = stack_fds;
	nfds_t i;
	int ret;

	if (nfds > STACK_FDS) {
		copy = calloc(nfds, sizeof(*copy));
		if (!copy) {
			errno = ENOMEM;
			return -1;
		}
	}
	translate(copy, fds, nfds);
	ret = rpoll(copy, nfds, timeout);
	for (i = 0; i < nfds; i++)
		fds[i].revents = copy[i].revents;
	if (copy != stack_fds)
		free(copy);
	return ret;
}

PRELOAD_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	preload_init();
	if (!any_mapped(fds, nfds))
		return real.poll(fds, nfds, timeout);
	return rpoll_translated(fds, nfds, timeout);
}

static bool in_set(int fd, const fd_set *set)
{
	return set && FD_ISSET(fd, set);
}

/* The select() sets as poll entries; returns how many. */
static nfds_t sets_to_pollfds(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct pollfd *fds)
{
	nfds_t n = 0;
	short events;
	int fd;

	for (fd = 0; fd < nfds; fd++) {
		events = (in_set(fd, rd) ? POLLIN : 0) | (in_set(fd, wr) ? POLLOUT : 0) |
			 (in_set(fd, ex) ? POLLPRI : 0);
		if (!events)
			continue;
		fds[n].fd = fd;
		fds[n].events = events;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

static void mark(fd_set *set, int fd, bool ready, int *count)
{
	if (!set)
		return;
	if (ready) {
		FD_SET(fd, set);
		(*count)++;
	}
}

/* Rewrites the sets from the poll results (as the kernel maps them); returns the bit count. */
static int pollfds_to_sets(const struct pollfd *fds, nfds_t n, fd_set *rd, fd_set *wr, fd_set *ex)
{
	int count = 0;
	nfds_t i;

	if (rd)
		FD_ZERO(rd);
	if (wr)
		FD_ZERO(wr);
	if (ex)
		FD_ZERO(ex);
	for (i = 0; i < n; i++) {
		short r = fds[i].revents;

		if (fds[i].events & POLLIN)
			mark(rd, fds[i].fd, r & (POLLIN | POLLHUP | POLLERR), &count);
		if (fds[i].events & POLLOUT)
			mark(wr, fds[i].fd, r & (POLLOUT | POLLERR), &count);
		if (fds[i].events & POLLPRI)
			mark(ex, fds[i].fd, r & POLLPRI, &count);
	}
	return count;
}

/*
 * Unlike upstream, select() without an rsocket stays libc's, and results
 * are reported on the application's own fd numbers (v64's fix).
 */
PRELOAD_EXPORT int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *timeout)
{
	struct pollfd fds[FD_SETSIZE];
	nfds_t n;
	int ret, ms;

	preload_init();
	if (nfds < 0 || nfds > FD_SETSIZE)
		return real.select(nfds, rd, wr, ex, timeout);
	n = sets_to_pollfds(nfds, rd, wr, ex, fds);
	if (!any_mapped(fds, n))
		return real.select(nfds, rd, wr, ex, timeout);
	ms = timeout ? (int)(timeout->tv_sec * 1000 + (timeout->tv_usec + 999) / 1000) : -1;
	ret = rpoll_translated(fds, n, ms);
	if (ret < 0)
		return ret;
	return pollfds_to_sets(fds, n, rd, wr, ex);
}
