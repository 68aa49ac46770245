/* SPDX-License-Identifier: MIT */
/*
 * rpoll()/rselect() over rsockets and ordinary fds mixed (WIRE.md D.7):
 * busy-poll the rsockets for polling_time, then sleep in poll(2) on their
 * internal fds (a connected stream socket's CQ channel and CM channel,
 * what the socket layer or the datagram code name otherwise) beside the
 * ordinary fds, waking at least every wake_up_interval ms to look again.
 */
#include "engine.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

enum { RS_POLL_STACK = 32 };

static bool rs_stream_connected(const struct rsocket *rs)
{
	return rs->cq && (rs->state & (RS_CONNECTED | RS_DISCONNECTED | RS_ERROR));
}

static short rs_revents(struct rsocket *rs, short events, int *wait_fd)
{
	*wait_fd = -1;
	if (rs->type == SOCK_DGRAM)
		return ds_poll(rs, events);
	if (rs_stream_connected(rs))
		return rs_stream_poll(rs, events);
	return rs_cm_poll(rs, events, wait_fd);
}

/* Fills revents of the rsockets; the count of those with any. */
static int rs_poll_check(struct pollfd *fds, nfds_t nfds, struct rsocket **socks)
{
	int ready = 0, fd;

	for (nfds_t i = 0; i < nfds; i++) {
		if (!socks[i])
			continue;
		fds[i].revents = rs_revents(socks[i], fds[i].events, &fd);
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

static uint64_t rs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t rs_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The fds one rsocket sleeps on, armed; fills up to two entries. */
static int rs_wait_fds(struct rsocket *rs, short events, struct pollfd *out)
{
	int fd;

	if (rs->type == SOCK_DGRAM) {
		out[0] = (struct pollfd){ .fd = ds_poll_fd(rs), .events = POLLIN };
		return 1;
	}
	if (rs_stream_connected(rs)) {
		rs_arm_cq(rs);
		out[0] = (struct pollfd){ .fd = rs->cq_channel->fd, .events = POLLIN };
		out[1] = (struct pollfd){ .fd = rs->number, .events = POLLIN };
		return 2;
	}
	rs_cm_poll(rs, events, &fd);
	out[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	return 1;
}

/* What woke on a connected stream socket's fds: the CQ event is taken
 * (the CQ is re-armed before the next sleep), a CM event handled. */
static void rs_wait_done(struct rsocket *rs, const struct pollfd *w, int n)
{
	if (rs->type != SOCK_STREAM || n != 2)
		return;
	if (w[0].revents)
		rs_cq_woke(rs);
	if (w[1].revents)
		rs_cm_event(rs);
}

struct rs_poll_ctx {
	struct pollfd *fds;
	nfds_t nfds;
	struct rsocket **socks;
	struct pollfd *wfds;		/* what poll(2) sleeps on */
	int *first;			/* fds[i]'s first entry in wfds */
	int *count;			/* and how many */
};

/* Sleeps once, at most ms; then fills every revents.  The count ready. */
static int rs_poll_sleep(struct rs_poll_ctx *c, int ms)
{
	int n = 0, ready, ret;

	for (nfds_t i = 0; i < c->nfds; i++) {
		c->first[i] = n;
		if (c->socks[i]) {
			c->count[i] = rs_wait_fds(c->socks[i], c->fds[i].events, &c->wfds[n]);
		} else {
			c->wfds[n] = c->fds[i];
			c->count[i] = 1;
		}
		n += c->count[i];
	}
	/* Armed: whatever completes from now on wakes the sleep below. */
	ready = rs_poll_check(c->fds, c->nfds, c->socks);
	ret = poll(c->wfds, (nfds_t)n, ready ? 0 : ms);
	if (ret < 0)
		return -1;
	for (nfds_t i = 0; i < c->nfds; i++) {
		struct pollfd *w = &c->wfds[c->first[i]];

		if (c->socks[i])
			rs_wait_done(c->socks[i], w, c->count[i]);
		else
			c->fds[i].revents = w->revents;
	}
	ready = rs_poll_check(c->fds, c->nfds, c->socks);
	for (nfds_t i = 0; i < c->nfds; i++)
		if (!c->socks[i] && c->fds[i].revents)
			ready++;
	return ready;
}

static int rs_poll_blocking(struct rs_poll_ctx *c, int timeout)
{
	uint64_t start = rs_now_ms();

	for (;;) {
		int ms = rs_config.wake_up_interval > 0 ? rs_config.wake_up_interval : -1;
		int ret;

		if (timeout >= 0) {
			uint64_t spent = rs_now_ms() - start;
			int left = spent >= (uint64_t)timeout ? 0 : timeout - (int)spent;

			if (ms < 0 || left < ms)
				ms = left;
		}
		ret = rs_poll_sleep(c, ms);
		if (ret)
			return ret;
		if (timeout >= 0 && rs_now_ms() - start >= (uint64_t)timeout)
			return 0;
	}
}

/* The ordinary fds' events now, beside rsockets already ready. */
static int rs_poll_plain(struct pollfd *fds, nfds_t nfds, struct rsocket **socks)
{
	int ready = 0;

	for (nfds_t i = 0; i < nfds; i++) {
		if (socks[i])
			continue;
		if (poll(&fds[i], 1, 0) <= 0)
			fds[i].revents = 0;
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

static int rs_poll_mixed(struct pollfd *fds, nfds_t nfds, int timeout, struct rsocket **socks)
{
	struct pollfd wstack[2 * RS_POLL_STACK];
	int istack[2 * RS_POLL_STACK];
	struct rs_poll_ctx c = { .fds = fds, .nfds = nfds, .socks = socks };
	void *heap = NULL;
	uint64_t start;
	int ret;

	/* Busy first: a connected peer usually answers within polling_time. */
	start = rs_now_us();
	do {
		ret = rs_poll_check(fds, nfds, socks);
		if (ret)
			return ret + rs_poll_plain(fds, nfds, socks);
	} while (timeout && rs_now_us() - start < rs_config.polling_time);

	if (nfds <= RS_POLL_STACK) {
		c.wfds = wstack;
		c.first = istack;
		c.count = istack + RS_POLL_STACK;
	} else {
		heap = malloc(nfds * (2 * sizeof(struct pollfd) + 2 * sizeof(int)));
		if (!heap)
			return cma_fail(ENOMEM);
		c.wfds = heap;
		c.first = (int *)(c.wfds + 2 * nfds);
		c.count = c.first + nfds;
	}
	ret = timeout ? rs_poll_blocking(&c, timeout) : rs_poll_sleep(&c, 0);
	free(heap);
	return ret;
}

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct rsocket *stack[RS_POLL_STACK], **socks = stack;
	bool any = false;
	int ret;

	if (nfds && !fds)
		return cma_fail(EFAULT);
	if (nfds > RS_POLL_STACK) {
		socks = calloc(nfds, sizeof(*socks));
		if (!socks)
			return cma_fail(ENOMEM);
	}
	for (nfds_t i = 0; i < nfds; i++) {
		socks[i] = fds[i].fd >= 0 ? rs_lookup(fds[i].fd) : NULL;
		any |= socks[i] != NULL;
	}
	ret = any ? rs_poll_mixed(fds, nfds, timeout, socks) : poll(fds, nfds, timeout);
	if (socks != stack)
		free(socks);
	return ret;
}

static int rs_select_timeout(const struct timeval *tv)
{
	if (!tv)
		return -1;
	return (int)(tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000);
}

static bool rs_in(const fd_set *set, int fd)
{
	return set && FD_ISSET(fd, set);
}

int rselect(int nfds, fd_set *readfds, fd_set *writefds,
	    fd_set *exceptfds, struct timeval *timeout)
{
	struct pollfd *fds;
	int n = 0, ret;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return cma_fail(EINVAL);
	fds = calloc(nfds ? (size_t)nfds : 1, sizeof(*fds));
	if (!fds)
		return cma_fail(ENOMEM);
	for (int fd = 0; fd < nfds; fd++) {
		short events = (rs_in(readfds, fd) ? POLLIN : 0) |
			       (rs_in(writefds, fd) ? POLLOUT : 0) |
			       (rs_in(exceptfds, fd) ? POLLPRI : 0);

		if (events)
			fds[n++] = (struct pollfd){ .fd = fd, .events = events };
	}
	ret = rpoll(fds, (nfds_t)n, rs_select_timeout(timeout));
	if (ret >= 0) {
		ret = 0;
		if (readfds)
			FD_ZERO(readfds);
		if (writefds)
			FD_ZERO(writefds);
		if (exceptfds)
			FD_ZERO(exceptfds);
		for (int i = 0; i < n; i++) {
			short r = fds[i].revents;
			int fd = fds[i].fd;

			if (readfds && (fds[i].events & POLLIN) && (r & (POLLIN | POLLHUP | POLLERR))) {
				FD_SET(fd, readfds);
				ret++;
			}
			if (writefds && (fds[i].events & POLLOUT) && (r & (POLLOUT | POLLERR))) {
				FD_SET(fd, writefds);
				ret++;
			}
			if (exceptfds && (fds[i].events & POLLPRI) && (r & POLLPRI)) {
				FD_SET(fd, exceptfds);
				ret++;
			}
		}
	}
	free(fds);
	return ret;
}
