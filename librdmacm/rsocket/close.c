/* SPDX-License-Identifier: MIT */
/*
 * rshutdown, rclose (WIRE.md A.7.1-A.7.3) and keepalive (A.7.8).
 *
 * Keepalive: one thread, started when the first socket turns
 * SO_KEEPALIVE on, probes every such socket once per interval with the
 * engine's zero-length write (a dead peer shows as a failed send).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "rs.h"

static struct {
	pthread_mutex_t lock;	/* before any socket's locks */
	pthread_cond_t cond;
	bool started;
	struct rsocket *list;
} rs_keepalive = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t rs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint64_t rs_keepalive_interval_ns(const struct rsocket *rs)
{
	uint32_t s = rs->keepalive_time ? rs->keepalive_time : rs_config.keepalive_time;

	return (uint64_t)s * 1000000000u;
}

/* Probes the sockets that are due; the earliest next due time, or 0. */
static uint64_t rs_keepalive_round(uint64_t now)
{
	uint64_t next = 0;

	for (struct rsocket *rs = rs_keepalive.list; rs; rs = rs->keepalive_next) {
		if (rs->keepalive_due <= now) {
			/* A probe only when a control slot is free (a
			 * hint: rs_send_ctrl() would wait for one, and this
			 * thread serves every socket). */
			if ((rs->state & RS_CONNECTED) &&
			    __atomic_load_n(&rs->ctrl_avail, __ATOMIC_RELAXED))
				rs_send_ctrl(rs, RS_CTRL_KEEPALIVE);
			rs->keepalive_due = now + rs_keepalive_interval_ns(rs);
		}
		if (!next || rs->keepalive_due < next)
			next = rs->keepalive_due;
	}
	return next;
}

static void *rs_keepalive_thread(void *arg)
{
	struct timespec ts;
	uint64_t next;

	(void)arg;
	pthread_mutex_lock(&rs_keepalive.lock);
	for (;;) {
		next = rs_keepalive_round(rs_now_ns());
		if (!next) {
			pthread_cond_wait(&rs_keepalive.cond, &rs_keepalive.lock);
			continue;
		}
		ts.tv_sec = next / 1000000000u;
		ts.tv_nsec = next % 1000000000u;
		pthread_cond_timedwait(&rs_keepalive.cond, &rs_keepalive.lock, &ts);
	}
	return NULL;
}

/* Called with the lock held. */
static int rs_keepalive_start(void)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	pthread_t thread;
	int ret;

	if (rs_keepalive.started)
		return 0;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&rs_keepalive.cond, &attr);
	pthread_condattr_destroy(&attr);
	/* The application's signals are not for this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&thread, NULL, rs_keepalive_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		pthread_cond_destroy(&rs_keepalive.cond);
		return ret;
	}
	pthread_detach(thread);
	rs_keepalive.started = true;
	return 0;
}

static void rs_keepalive_unlink(struct rsocket *rs)
{
	for (struct rsocket **p = &rs_keepalive.list; *p; p = &(*p)->keepalive_next) {
		if (*p == rs) {
			*p = rs->keepalive_next;
			rs->keepalive_next = NULL;
			return;
		}
	}
}

int rs_set_keepalive(struct rsocket *rs, bool on)
{
	int ret = 0;

	pthread_mutex_lock(&rs_keepalive.lock);
	rs_keepalive_unlink(rs);
	if (on) {
		ret = rs_keepalive_start();
		if (!ret) {
			if (!rs->keepalive_time)
				rs->keepalive_time = rs_config.keepalive_time;
			rs->keepalive_due = rs_now_ns() + rs_keepalive_interval_ns(rs);
			rs->keepalive_next = rs_keepalive.list;
			rs_keepalive.list = rs;
			pthread_cond_signal(&rs_keepalive.cond);
		}
	}
	pthread_mutex_unlock(&rs_keepalive.lock);
	return ret;
}

/* The control message a shutdown sends, after updating the state bits;
 * -1 when nothing is to be sent (A.7.1). */
static int rs_shutdown_ctrl(struct rsocket *rs, int how)
{
	int ctrl = RS_CTRL_DISCONNECT;

	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->rlock);
	switch (how) {
	case SHUT_RDWR:
		rs->state &= ~(RS_READABLE | RS_WRITABLE);
		break;
	case SHUT_WR:
		rs->state &= ~RS_WRITABLE;
		if (rs->state & RS_READABLE)
			ctrl = RS_CTRL_SHUTDOWN;
		break;
	default:
		rs->state &= ~RS_READABLE;
		if (rs->state & RS_WRITABLE)
			ctrl = -1;
		break;
	}
	pthread_mutex_unlock(&rs->rlock);
	pthread_mutex_unlock(&rs->slock);
	return ctrl;
}

static int rs_shutdown(struct rsocket *rs, int how)
{
	struct ibv_qp_attr attr;
	int ctrl, ret = 0;

	rs_set_keepalive(rs, false);
	if (rs->state & RS_CONNECTED) {
		ctrl = rs_shutdown_ctrl(rs, how);
		/* Waits for a control slot even on a non-blocking socket. */
		if (ctrl >= 0 && (rs->state & RS_CONNECTED))
			ret = rs_send_ctrl(rs, ctrl);
	}
	if (rs->state & RS_CONNECTED)
		rs_drain_sends(rs);
	/* No CM disconnect here: the QP is flushed (IB) or drained (iWARP)
	 * so that pollers wake; destroying the id sends the DREQ. */
	if ((rs->state & RS_DISCONNECTED) && rs->cm_id && rs->cm_id->qp) {
		attr.qp_state = rs->iwarp ? IBV_QPS_SQD : IBV_QPS_ERR;
		ibv_modify_qp(rs->cm_id->qp, &attr, IBV_QP_STATE);
	}
	return ret;
}

int rshutdown(int socket, int how)
{
	struct rsocket *rs = rs_lookup(socket);
	int ret;

	if (!rs)
		return cma_fail(EBADF);
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return cma_fail(EINVAL);
	if (rs->type == SOCK_DGRAM)
		return 0;
	ret = rs_shutdown(rs, how);
	return ret ? cma_fail(ret) : 0;
}

int rclose(int socket)
{
	struct rsocket *rs = rs_lookup(socket);

	/* Upstream returns the errno itself here, not -1. */
	if (!rs)
		return EBADF;
	if (rs->type == SOCK_DGRAM) {
		rs_remove(rs);
		ds_close(rs);
		rs_free(rs);
		return 0;
	}
	if (rs->state & RS_CONNECTED)
		rs_shutdown(rs, SHUT_RDWR);
	rs_set_keepalive(rs, false);
	rs_remove(rs);
	rs_free(rs);
	return 0;
}
