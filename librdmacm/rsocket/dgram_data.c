// SPDX-License-Identifier: MIT
/*
 * The datagram data path (WIRE.md B.1, B.4): destination lookup, the
 * 8/24-byte header of UD
 * messages, completions and the one sleeper on the CQ channels, UD sends
 * from 2048-byte slots (over UDP until the peer's QPN is known), the queue
 * of received messages and readiness for rpoll.
 */
#include "dgram.h"

#include <arpa/inet.h>
#include <poll.h>
#include <search.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#define DS_WR_SEND	(1ULL << 63)	/* wr_id of sends; receives: the slot */

/* ---- addresses and destinations ---- */

int ds_addr_key(const struct sockaddr *sa, socklen_t len, union ds_addr *key)
{
	memset(key, 0, sizeof(*key));
	if (!sa || len < sizeof(sa->sa_family))
		return EINVAL;
	switch (sa->sa_family) {
	case AF_INET: {
		const struct sockaddr_in *sin = (const void *)sa;

		if (len < sizeof(*sin))
			return EINVAL;
		key->sin.sin_family = AF_INET;
		key->sin.sin_port = sin->sin_port;
		key->sin.sin_addr = sin->sin_addr;
		return 0;
	}
	case AF_INET6: {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		if (len < sizeof(*sin6))
			return EINVAL;
		key->sin6.sin6_family = AF_INET6;
		key->sin6.sin6_port = sin6->sin6_port;
		key->sin6.sin6_addr = sin6->sin6_addr;
		key->sin6.sin6_scope_id = sin6->sin6_scope_id;
		return 0;
	}
	default:
		return EAFNOSUPPORT;
	}
}

socklen_t ds_addr_len(const union ds_addr *addr)
{
	return addr->sa.sa_family == AF_INET ? sizeof(addr->sin) : sizeof(addr->sin6);
}

int ds_addr_cmp(const void *a, const void *b)
{
	const union ds_addr *x = a, *y = b;

	if (x->sa.sa_family != y->sa.sa_family)
		return x->sa.sa_family < y->sa.sa_family ? -1 : 1;
	return memcmp(x, y, ds_addr_len(x));
}

/* The entry of addr (a key from ds_addr_key), made the first time. */
int ds_get_dest(struct rsocket *rs, const union ds_addr *addr, struct ds_dest **out)
{
	struct rs_dgram *ds = rs->ds;
	struct ds_dest **node;
	int ret = 0;

	pthread_mutex_lock(&ds->lock);
	node = tfind(addr, &ds->dests, ds_addr_cmp);
	if (node)
		*out = *node;
	else
		ret = ds_add_dest(rs, addr, out);
	pthread_mutex_unlock(&ds->lock);
	return ret;
}

void ds_header_fill(struct ds_header *hdr, const union ds_addr *addr)
{
	memset(hdr, 0, sizeof(*hdr));
	if (addr->sa.sa_family == AF_INET) {
		hdr->version = 4;
		hdr->length = DS_IPV4_HDR_LEN;
		hdr->port = addr->sin.sin_port;
		hdr->addr.ipv4 = addr->sin.sin_addr.s_addr;
	} else {
		hdr->version = 6;
		hdr->length = DS_IPV6_HDR_LEN;
		hdr->port = addr->sin6.sin6_port;
		hdr->addr.ipv6.flowinfo = addr->sin6.sin6_flowinfo;
		memcpy(hdr->addr.ipv6.addr, &addr->sin6.sin6_addr, 16);
	}
}

/* The source a message's header names (IPv6: flowinfo kept, scope 0). */
static socklen_t ds_header_source(const struct ds_header *hdr, union ds_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	if (hdr->version == 4) {
		addr->sin.sin_family = AF_INET;
		addr->sin.sin_port = hdr->port;
		addr->sin.sin_addr.s_addr = hdr->addr.ipv4;
		return sizeof(addr->sin);
	}
	addr->sin6.sin6_family = AF_INET6;
	addr->sin6.sin6_port = hdr->port;
	addr->sin6.sin6_flowinfo = hdr->addr.ipv6.flowinfo;
	memcpy(&addr->sin6.sin6_addr, hdr->addr.ipv6.addr, 16);
	return sizeof(addr->sin6);
}

static bool ds_header_valid(const struct ds_header *hdr, uint32_t len)
{
	return len >= DS_IPV4_HDR_LEN &&
	       ((hdr->version == 4 && hdr->length == DS_IPV4_HDR_LEN) ||
		(hdr->version == 6 && hdr->length == DS_IPV6_HDR_LEN && len >= DS_IPV6_HDR_LEN));
}

uint8_t ds_udp_header_len(const struct ds_qp *qp)
{
	return qp->src.sa.sa_family == AF_INET ? DS_UDP_IPV4_HDR_LEN : DS_UDP_IPV6_HDR_LEN;
}

void ds_udp_header_fill(const struct ds_qp *qp, uint8_t op, struct ds_udp_header *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->tag = htonl(DS_UDP_TAG);
	hdr->version = qp->hdr.version;
	hdr->op = op;
	hdr->length = ds_udp_header_len(qp);
	hdr->qpn = htonl(qp->cm_id->qp->qp_num & 0xffffff);
	if (qp->src.sa.sa_family == AF_INET)
		hdr->addr.ipv4 = qp->src.sin.sin_addr.s_addr;
	else
		memcpy(hdr->addr.ipv6, &qp->src.sin6.sin6_addr, 16);
}

/* ---- completions ---- */

static uint8_t *ds_rslot(const struct ds_qp *qp, uint32_t slot)
{
	return qp->rbuf + DS_GRH_SIZE + (size_t)slot * DS_SLOT_SIZE;
}

int ds_post_recv(struct ds_qp *qp, uint32_t slot)
{
	struct ibv_sge sge[2] = {
		{ (uintptr_t)qp->rbuf, DS_GRH_SIZE, qp->rmr->lkey },
		{ (uintptr_t)ds_rslot(qp, slot), DS_SLOT_SIZE, qp->rmr->lkey },
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = sge, .num_sge = 2 }, *bad;

	return ibv_post_recv(qp->cm_id->qp, &wr, &bad);
}

/* A receive completed: queue it for rrecv, or give the slot back. */
static void ds_queue_recv(struct rsocket *rs, struct ds_qp *qp, const struct ibv_wc *wc)
{
	struct rs_dgram *ds = rs->ds;
	uint32_t slot = (uint32_t)wc->wr_id;

	if (wc->status != IBV_WC_SUCCESS)
		return;		/* flushed: the QP is going away */
	if (wc->byte_len < DS_GRH_SIZE + DS_IPV4_HDR_LEN ||
	    !ds_header_valid((void *)ds_rslot(qp, slot), wc->byte_len - DS_GRH_SIZE) ||
	    ds->rmsg_count == rs->rq_size) {
		ds_post_recv(qp, slot);
		return;
	}
	ds->rmsg[(ds->rmsg_head + ds->rmsg_count++) % rs->rq_size] = (struct ds_rmsg){
		qp, slot, wc->byte_len - DS_GRH_SIZE };
}

/* How many completions it reaped. */
static int ds_process_cqs(struct rsocket *rs)
{
	struct ibv_wc wc[8];
	struct ds_qp *qp;
	int n, i, reaped = 0;

	for (qp = rs->ds->qps; qp; qp = qp->next) {
		while ((n = ibv_poll_cq(qp->cq, 8, wc)) > 0) {
			reaped += n;
			for (i = 0; i < n; i++) {
				if (wc[i].wr_id & DS_WR_SEND)
					qp->send_busy--;
				else
					ds_queue_recv(rs, qp, &wc[i]);
			}
		}
	}
	return reaped;
}

static void ds_arm_cqs(struct rsocket *rs)
{
	struct ds_qp *qp;

	for (qp = rs->ds->qps; qp; qp = qp->next) {
		if (!qp->armed && !ibv_req_notify_cq(qp->cq, 0))
			qp->armed = true;
	}
}

/* Consumes what made epfd readable. */
static void ds_drain_events(struct rsocket *rs)
{
	struct ibv_cq *cq;
	struct ds_qp *qp;
	uint64_t count;
	void *ctx;

	for (qp = rs->ds->qps; qp; qp = qp->next) {
		while (!ibv_get_cq_event(qp->channel, &cq, &ctx)) {
			ibv_ack_cq_events(cq, 1);
			qp->armed = false;
		}
	}
	if (read(rs->ds->wake_fd, &count, sizeof(count)) < 0)
		return;		/* nothing was signalled */
}

void ds_wake(struct rs_dgram *ds)
{
	uint64_t one = 1;

	if (write(ds->wake_fd, &one, sizeof(one)) < 0)
		return;		/* the counter is already non-zero */
}

typedef bool ds_ready_fn(struct rsocket *rs, const void *arg);

/* Reaps completions until ready(); sleeps on the CQ channels (one thread
 * at a time, the others on cq_cond) unless nonblock.  cq_lock held. */
static int ds_wait(struct rsocket *rs, ds_ready_fn *ready, const void *arg, bool nonblock)
{
	struct rs_dgram *ds = rs->ds;
	struct epoll_event ev;

	for (;;) {
		ds_process_cqs(rs);
		if (ready(rs, arg))
			return 0;
		if (nonblock)
			return EWOULDBLOCK;
		if (ds->cq_waiting) {
			pthread_cond_wait(&ds->cq_cond, &rs->cq_lock);
			continue;
		}
		/* completions that came before the arming raise no event */
		ds_arm_cqs(rs);
		ds_process_cqs(rs);
		if (ready(rs, arg))
			return 0;
		ds->cq_waiting = true;
		pthread_mutex_unlock(&rs->cq_lock);
		epoll_wait(ds->epfd, &ev, 1, -1);
		pthread_mutex_lock(&rs->cq_lock);
		ds->cq_waiting = false;
		ds_drain_events(rs);
		pthread_cond_broadcast(&ds->cq_cond);
	}
}

static bool ds_has_msg(struct rsocket *rs, const void *arg)
{
	(void)arg;
	return rs->ds->rmsg_count > 0;
}

static bool ds_send_slot_free(struct rsocket *rs, const void *arg)
{
	const struct ds_qp *qp = arg;

	return qp->send_busy < rs->sq_size;
}

/* ---- sending ---- */

/* One UD SEND of hdr + payload from a send slot; slock held. */
static int ds_post_send(struct rsocket *rs, struct ds_qp *qp, struct ibv_ah *ah, uint32_t qpn,
			const struct ds_header *hdr, const void *payload, size_t len,
			bool nonblock)
{
	uint8_t *slot = qp->sbuf + (size_t)qp->send_next * DS_SLOT_SIZE;
	struct ibv_sge sge = { (uintptr_t)slot, (uint32_t)(hdr->length + len), qp->smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = DS_WR_SEND, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = sge.length <= qp->max_inline ? IBV_SEND_INLINE : 0,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = RS_UDP_QKEY },
	}, *bad;
	int ret;

	pthread_mutex_lock(&rs->cq_lock);
	ret = ds_wait(rs, ds_send_slot_free, qp, nonblock);
	if (!ret)
		qp->send_busy++;
	pthread_mutex_unlock(&rs->cq_lock);
	if (ret)
		return ret;
	memcpy(slot, hdr, hdr->length);
	memcpy(slot + hdr->length, payload, len);
	ret = ibv_post_send(qp->cm_id->qp, &wr, &bad);
	if (ret) {
		pthread_mutex_lock(&rs->cq_lock);
		qp->send_busy--;
		pthread_mutex_unlock(&rs->cq_lock);
		return ret;
	}
	qp->send_next = (qp->send_next + 1) % rs->sq_size;
	return 0;
}

void ds_deliver_local(struct rsocket *rs, struct ds_qp *qp, const union ds_addr *from,
		      const void *payload, size_t len)
{
	struct ds_header hdr;

	ds_header_fill(&hdr, from);
	if (hdr.length + len > qp->max_msg)
		return;
	/* Upstream sends to itself through an AH to its own LID, which
	 * RoCE refuses; ours is built from the path to its own address. */
	if (!qp->self_ah)
		qp->self_ah = ds_create_ah(qp, &qp->src);
	if (!qp->self_ah)
		return;
	pthread_mutex_lock(&rs->slock);
	ds_post_send(rs, qp, qp->self_ah, qp->cm_id->qp->qp_num, &hdr, payload, len, true);
	pthread_mutex_unlock(&rs->slock);
}

/* Before the peer's QPN is known: over UDP, behind the resolution header. */
static ssize_t ds_send_udp(struct rsocket *rs, struct ds_dest *dest, const void *buf,
			   size_t len, int flags)
{
	struct ds_udp_header hdr;
	struct iovec iov[2] = { { &hdr, ds_udp_header_len(dest->qp) }, { (void *)buf, len } };
	struct msghdr msg = {
		.msg_name = &dest->addr, .msg_namelen = ds_addr_len(&dest->addr),
		.msg_iov = iov, .msg_iovlen = 2,
	};
	ssize_t sent;

	/* Upstream's service reads 2048 bytes at most: an upstream peer cuts
	 * a payload above 2032 (IPv4) that came this way (IB MTUs only). */
	ds_udp_header_fill(dest->qp, DS_UDP_OP_DATA, &hdr);
	sent = sendmsg(rs->number, &msg, rs_nonblocking(rs, flags) ? MSG_DONTWAIT : 0);
	if (sent < 0)
		return -errno;
	return (ssize_t)len;
}

ssize_t ds_sendto(struct rsocket *rs, const void *buf, size_t len, int flags,
		  const struct sockaddr *dst, socklen_t dstlen)
{
	struct rs_dgram *ds = rs->ds;
	struct ds_dest *dest;
	struct ibv_ah *ah;
	union ds_addr key;
	uint32_t qpn;
	ssize_t ret;

	if (!buf && len)
		return -EFAULT;
	if (dst) {
		ret = ds_addr_key(dst, dstlen, &key);
		if (ret)
			return -ret;
	}
	pthread_mutex_lock(&rs->slock);
	if (dst) {
		ret = -ds_get_dest(rs, &key, &dest);
	} else {
		pthread_mutex_lock(&ds->lock);
		dest = ds->conn_dest;
		pthread_mutex_unlock(&ds->lock);
		ret = dest ? 0 : -EDESTADDRREQ;
	}
	if (ret)
		goto out;
	if (len > dest->qp->max_msg - dest->qp->hdr.length) {
		ret = -EMSGSIZE;	/* would not fit the peer's 2048-byte slot */
		goto out;
	}
	pthread_mutex_lock(&ds->lock);
	ah = dest->ah;
	qpn = dest->qpn;
	pthread_mutex_unlock(&ds->lock);
	if (!ah)
		ret = ds_send_udp(rs, dest, buf, len, flags);
	else
		ret = -ds_post_send(rs, dest->qp, ah, qpn, &dest->qp->hdr, buf, len,
				    rs_nonblocking(rs, flags));
	if (!ret)
		ret = (ssize_t)len;
out:
	pthread_mutex_unlock(&rs->slock);
	return ret;
}

/* ---- receiving ---- */

ssize_t ds_recvfrom(struct rsocket *rs, void *buf, size_t len, int flags,
		    struct sockaddr *src, socklen_t *srclen)
{
	struct rs_dgram *ds = rs->ds;
	const struct ds_header *hdr;
	struct ds_rmsg msg;
	union ds_addr from;
	socklen_t fromlen;
	size_t payload;
	int ret;

	if (!buf && len)
		return -EFAULT;
	pthread_mutex_lock(&rs->rlock);
	pthread_mutex_lock(&rs->cq_lock);
	ret = ds_wait(rs, ds_has_msg, NULL, rs_nonblocking(rs, flags));
	if (!ret)
		msg = ds->rmsg[ds->rmsg_head];
	pthread_mutex_unlock(&rs->cq_lock);
	if (ret) {
		pthread_mutex_unlock(&rs->rlock);
		return -ret;
	}
	/* only rlock holders take messages off the queue: msg stays ours */
	hdr = (const void *)ds_rslot(msg.qp, msg.slot);
	payload = msg.len - hdr->length;
	if (len > payload)
		len = payload;
	memcpy(buf, (const uint8_t *)hdr + hdr->length, len);
	if (src && srclen) {
		fromlen = ds_header_source(hdr, &from);
		memcpy(src, &from, *srclen < fromlen ? *srclen : fromlen);
		*srclen = fromlen;
	}
	if (!(flags & MSG_PEEK)) {
		pthread_mutex_lock(&rs->cq_lock);
		ds->rmsg_head = (ds->rmsg_head + 1) % rs->rq_size;
		ds->rmsg_count--;
		pthread_mutex_unlock(&rs->cq_lock);
		ds_post_recv(msg.qp, msg.slot);
	}
	pthread_mutex_unlock(&rs->rlock);
	return (ssize_t)len;
}

/* ---- readiness ---- */

short ds_poll(struct rsocket *rs, short events)
{
	struct rs_dgram *ds = rs->ds;
	struct ds_qp *qp;
	short revents = POLLOUT;

	pthread_mutex_lock(&rs->cq_lock);
	if (!ds->cq_waiting)	/* else its wake-up is the sleeper's */
		ds_drain_events(rs);
	ds_process_cqs(rs);
	if (ds->rmsg_count)
		revents |= POLLIN;
	for (qp = ds->qps; qp; qp = qp->next) {
		if (qp->send_busy == rs->sq_size)
			revents &= ~POLLOUT;
	}
	pthread_mutex_unlock(&rs->cq_lock);
	return revents & events;
}

int ds_poll_fd(struct rsocket *rs)
{
	struct rs_dgram *ds = rs->ds;

	pthread_mutex_lock(&rs->cq_lock);
	ds_arm_cqs(rs);
	/* what completed before the arming raises no event: say so here */
	if (ds_process_cqs(rs))
		ds_wake(ds);
	pthread_mutex_unlock(&rs->cq_lock);
	return ds->epfd;
}
