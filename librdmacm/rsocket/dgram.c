// SPDX-License-Identifier: MIT
/*
 * Datagram rsockets (WIRE.md part B).  The rsocket number is a kernel UDP
 * socket; data goes as UD SENDs from a QP per local address to the QP
 * each destination told us about over that UDP socket (dgram_svc.c).
 * Until a destination has answered, datagrams go to it over UDP with the
 * resolution header and its service delivers them.
 */
#include "dgram.h"

#include <arpa/inet.h>
#include <poll.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#define DS_RESOLVE_MS	2000
#define DS_WR_SEND	(1ULL << 63)	/* wr_id of sends; receives: the slot */

/* ---- addresses ---- */

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

static socklen_t ds_addr_len(const union ds_addr *addr)
{
	return addr->sa.sa_family == AF_INET ? sizeof(addr->sin) : sizeof(addr->sin6);
}

static int ds_addr_cmp(const void *a, const void *b)
{
	const union ds_addr *x = a, *y = b;

	if (x->sa.sa_family != y->sa.sa_family)
		return x->sa.sa_family < y->sa.sa_family ? -1 : 1;
	return memcmp(x, y, ds_addr_len(x));
}

static bool ds_same_host(const union ds_addr *a, const union ds_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->sin.sin_addr.s_addr == b->sin.sin_addr.s_addr;
	return !memcmp(&a->sin6.sin6_addr, &b->sin6.sin6_addr, sizeof(a->sin6.sin6_addr));
}

static bool ds_addr_unspecific(const union ds_addr *addr)
{
	if (addr->sa.sa_family == AF_INET)
		return addr->sin.sin_addr.s_addr == htonl(INADDR_ANY) ||
		       (ntohl(addr->sin.sin_addr.s_addr) >> 24) == IN_LOOPBACKNET;
	return IN6_IS_ADDR_UNSPECIFIED(&addr->sin6.sin6_addr) ||
	       IN6_IS_ADDR_LOOPBACK(&addr->sin6.sin6_addr);
}

static uint16_t ds_addr_port(const union ds_addr *addr)
{
	return addr->sa.sa_family == AF_INET ? addr->sin.sin_port : addr->sin6.sin6_port;
}

static void ds_header_fill(struct ds_header *hdr, const union ds_addr *addr)
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

static int ds_post_recv(struct ds_qp *qp, uint32_t slot)
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

static void ds_wake(struct rs_dgram *ds)
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

/* ---- QPs ---- */

/* The sizes of WIRE.md B.1.2, fixed by the first QP: whole 2048-byte
 * slots, at most what the device allows. */
static int ds_fix_sizes(struct rsocket *rs, struct ibv_context *verbs)
{
	struct ibv_device_attr attr;
	uint32_t max_wr;

	if (ibv_query_device(verbs, &attr))
		return errno;
	max_wr = attr.max_qp_wr < RS_QP_MAX_SIZE ? (uint32_t)attr.max_qp_wr : RS_QP_MAX_SIZE;
	if (rs->rq_size > rs->rbuf_size / DS_SLOT_SIZE)
		rs->rq_size = rs->rbuf_size / DS_SLOT_SIZE;
	if (rs->sq_size > rs->sbuf_size / DS_SLOT_SIZE)
		rs->sq_size = rs->sbuf_size / DS_SLOT_SIZE;
	rs->rq_size = rs->rq_size < 1 ? 1 : rs->rq_size > max_wr ? max_wr : rs->rq_size;
	rs->sq_size = rs->sq_size < 1 ? 1 : rs->sq_size > max_wr ? max_wr : rs->sq_size;
	rs->rbuf_size = rs->rq_size * DS_SLOT_SIZE;
	rs->sbuf_size = rs->sq_size * DS_SLOT_SIZE;
	rs->sizes_fixed = true;
	rs->ds->rmsg = calloc(rs->rq_size, sizeof(*rs->ds->rmsg));
	return rs->ds->rmsg ? 0 : ENOMEM;
}

static void ds_free_qp(struct ds_qp *qp)
{
	if (qp->self_ah)
		ibv_destroy_ah(qp->self_ah);
	rdma_destroy_qp(qp->cm_id);
	if (qp->smr)
		ibv_dereg_mr(qp->smr);
	if (qp->rmr)
		ibv_dereg_mr(qp->rmr);
	free(qp->sbuf);
	free(qp->rbuf);
	if (qp->cq)
		ibv_destroy_cq(qp->cq);
	if (qp->channel)
		ibv_destroy_comp_channel(qp->channel);
	rdma_destroy_id(qp->cm_id);
	free(qp);
}

static int ds_create_cq(struct rsocket *rs, struct ds_qp *qp)
{
	struct rdma_cm_id *id = qp->cm_id;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = qp };

	qp->channel = ibv_create_comp_channel(id->verbs);
	if (!qp->channel)
		return errno;
	if (fcntl(qp->channel->fd, F_SETFL, O_NONBLOCK))
		return errno;
	qp->cq = ibv_create_cq(id->verbs, rs->sq_size + rs->rq_size, qp, qp->channel, 0);
	if (!qp->cq)
		return errno;
	if (epoll_ctl(rs->ds->epfd, EPOLL_CTL_ADD, qp->channel->fd, &ev))
		return errno;
	/* armed from the start: a thread may already sleep on epfd */
	qp->armed = !ibv_req_notify_cq(qp->cq, 0);
	return 0;
}

static int ds_create_buffers(struct rsocket *rs, struct ds_qp *qp)
{
	struct ibv_pd *pd = qp->cm_id->qp->pd;
	size_t rlen = DS_GRH_SIZE + (size_t)rs->rq_size * DS_SLOT_SIZE;
	size_t slen = (size_t)rs->sq_size * DS_SLOT_SIZE;
	uint32_t slot;
	int ret;

	qp->rbuf = malloc(rlen);
	qp->sbuf = malloc(slen);
	if (!qp->rbuf || !qp->sbuf)
		return ENOMEM;
	qp->rmr = ibv_reg_mr(pd, qp->rbuf, rlen, IBV_ACCESS_LOCAL_WRITE);
	if (!qp->rmr)
		return errno;
	qp->smr = ibv_reg_mr(pd, qp->sbuf, slen, 0);
	if (!qp->smr)
		return errno;
	for (slot = 0; slot < rs->rq_size; slot++) {
		ret = ds_post_recv(qp, slot);
		if (ret)
			return ret;
	}
	return 0;
}

/* UD allows one packet per message: the smaller of a slot and the MTU. */
static int ds_max_msg(struct ds_qp *qp)
{
	struct ibv_port_attr attr;
	uint32_t mtu;

	if (ibv_query_port(qp->cm_id->verbs, qp->cm_id->port_num, &attr))
		return errno;
	mtu = 128U << attr.active_mtu;
	qp->max_msg = mtu < DS_SLOT_SIZE ? mtu : DS_SLOT_SIZE;
	return 0;
}

static int ds_create_qp(struct rsocket *rs, const union ds_addr *src, struct ds_qp **out)
{
	struct ibv_qp_init_attr attr = {};
	struct ds_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return ENOMEM;
	qp->src = *src;
	ds_header_fill(&qp->hdr, src);
	if (rdma_create_id(NULL, &qp->cm_id, qp, RDMA_PS_UDP)) {
		free(qp);
		return errno;
	}
	ret = rdma_bind_addr(qp->cm_id, (struct sockaddr *)&src->sa) ? errno : 0;
	if (!ret && !qp->cm_id->verbs)
		ret = EADDRNOTAVAIL;	/* no RDMA device has this address */
	if (!ret && !rs->ds->rmsg)
		ret = ds_fix_sizes(rs, qp->cm_id->verbs);
	if (!ret)
		ret = ds_create_cq(rs, qp);
	if (ret)
		goto err;
	attr.send_cq = attr.recv_cq = qp->cq;
	attr.qp_type = IBV_QPT_UD;
	attr.sq_sig_all = 1;
	attr.cap.max_send_wr = rs->sq_size;
	attr.cap.max_recv_wr = rs->rq_size;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 2;
	attr.cap.max_inline_data = rs->sq_inline;
	ret = rdma_create_qp(qp->cm_id, NULL, &attr) ? errno : 0;
	if (!ret)
		ret = ds_create_buffers(rs, qp);
	if (!ret)
		ret = ds_max_msg(qp);
	if (ret)
		goto err;
	pthread_mutex_lock(&rs->cq_lock);
	qp->next = rs->ds->qps;
	rs->ds->qps = qp;
	pthread_mutex_unlock(&rs->cq_lock);
	ds_wake(rs->ds);
	*out = qp;
	return 0;
err:
	ds_free_qp(qp);
	return ret;
}

/* ---- destinations ---- */

/* Bound to a specific address: that one; else the one the kernel would
 * send from to dst (upstream: a throw-away connected UDP socket).  The
 * UDP socket's port either way: bound now if it was not, so that the
 * headers never carry port 0 (upstream's quirk, B.2.3, which leaves
 * replies nowhere to go). */
static int ds_source(struct rsocket *rs, const union ds_addr *dst, union ds_addr *src)
{
	socklen_t len = sizeof(*src);
	union ds_addr any = {}, route = {};
	uint16_t port;
	int fd, ret;

	if (getsockname(rs->number, &src->sa, &len))
		return errno;
	if (!ds_addr_port(src)) {
		any.sa.sa_family = src->sa.sa_family;
		if (bind(rs->number, &any.sa, ds_addr_len(&any)) && errno != EINVAL)
			return errno;
		len = sizeof(*src);
		if (getsockname(rs->number, &src->sa, &len))
			return errno;
	}
	if (!ds_addr_unspecific(src))
		return 0;
	fd = (int)syscall(SYS_socket, dst->sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	len = sizeof(route);
	ret = connect(fd, &dst->sa, ds_addr_len(dst)) ||
	      getsockname(fd, &route.sa, &len) ? errno : 0;
	close(fd);
	if (ret)
		return ret;
	port = ds_addr_port(src);
	*src = route;
	if (src->sa.sa_family == AF_INET)
		src->sin.sin_port = port;
	else
		src->sin6.sin6_port = port;
	return 0;
}

static int ds_find_qp(struct rsocket *rs, const union ds_addr *dst, struct ds_qp **out)
{
	union ds_addr src;
	struct ds_qp *qp;
	int ret;

	ret = ds_source(rs, dst, &src);
	if (ret)
		return ret;
	for (qp = rs->ds->qps; qp; qp = qp->next) {
		if (ds_same_host(&qp->src, &src)) {
			*out = qp;
			return 0;
		}
	}
	return ds_create_qp(rs, &src, out);
}

/* The entry of addr (a key from ds_addr_key), made with a QP the first time. */
int ds_get_dest(struct rsocket *rs, const union ds_addr *addr, struct ds_dest **out)
{
	struct rs_dgram *ds = rs->ds;
	struct ds_dest *dest, **node;
	int ret = 0;

	pthread_mutex_lock(&ds->lock);
	node = tfind(addr, &ds->dests, ds_addr_cmp);
	if (node) {
		*out = *node;
		goto out;
	}
	dest = calloc(1, sizeof(*dest));
	if (!dest) {
		ret = ENOMEM;
		goto out;
	}
	dest->addr = *addr;
	ret = ds_find_qp(rs, addr, &dest->qp);
	if (!ret && !tsearch(dest, &ds->dests, ds_addr_cmp))
		ret = ENOMEM;
	if (ret)
		free(dest);
	else
		*out = dest;
out:
	pthread_mutex_unlock(&ds->lock);
	return ret;
}

/* ---- address handles (WIRE.md B.3.4) ---- */

static uint8_t ds_gid_index(struct ibv_context *verbs, uint8_t port, const union ibv_gid *gid)
{
	union ibv_gid entry;
	int i;

	for (i = 0; i < 16; i++) {
		if (!ibv_query_gid(verbs, port, i, &entry) && !memcmp(&entry, gid, sizeof(entry)))
			return (uint8_t)i;
	}
	return 0;
}

/* Upstream puts a GRH only in front of a path longer than one hop; RoCE
 * needs one always (a LID-only AH is what makes upstream's own datagram
 * sockets fail on RoCE: rs-findings.md), so there it is always built. */
static struct ibv_ah *ds_ah_from_path(struct ds_qp *qp, struct rdma_cm_id *id)
{
	struct ibv_sa_path_rec *path = &id->route.path_rec[0];
	struct ibv_ah_attr attr = {};
	struct ibv_port_attr port;

	if (ibv_query_port(id->verbs, id->port_num, &port))
		return NULL;
	attr.dlid = ntohs(path->dlid);
	attr.sl = path->sl;
	attr.src_path_bits = ntohs(path->slid) & ((1U << port.lmc) - 1);
	attr.static_rate = path->rate;
	attr.port_num = id->port_num;
	if (path->hop_limit > 1 || port.link_layer == IBV_LINK_LAYER_ETHERNET) {
		attr.is_global = 1;
		attr.grh.dgid = path->dgid;
		attr.grh.flow_label = ntohl(path->flow_label);
		attr.grh.sgid_index = ds_gid_index(id->verbs, id->port_num, &path->sgid);
		attr.grh.hop_limit = path->hop_limit;
		attr.grh.traffic_class = path->traffic_class;
	}
	return ibv_create_ah(qp->cm_id->qp->pd, &attr);
}

/* The AH from qp's address to dst, from the path rdma_cm resolves. */
struct ibv_ah *ds_create_ah(struct ds_qp *qp, const union ds_addr *dst)
{
	union ds_addr src = qp->src;
	struct rdma_cm_id *id;
	struct ibv_ah *ah = NULL;

	if (src.sa.sa_family == AF_INET)
		src.sin.sin_port = 0;
	else
		src.sin6.sin6_port = 0;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP))
		return NULL;
	if (!rdma_resolve_addr(id, &src.sa, (struct sockaddr *)&dst->sa, DS_RESOLVE_MS) &&
	    !rdma_resolve_route(id, DS_RESOLVE_MS) && id->route.num_paths > 0)
		ah = ds_ah_from_path(qp, id);
	rdma_destroy_id(id);
	return ah;
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
		.send_flags = sge.length <= rs->sq_inline ? IBV_SEND_INLINE : 0,
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

int ds_connect(struct rsocket *rs, const struct sockaddr *addr, socklen_t len)
{
	struct ds_dest *dest;
	union ds_addr key;
	int ret;

	ret = ds_addr_key(addr, len, &key);
	if (ret)
		return ret;
	if (connect(rs->number, addr, len))
		return errno;
	ret = ds_get_dest(rs, &key, &dest);
	if (ret)
		return ret;
	pthread_mutex_lock(&rs->ds->lock);
	rs->ds->conn_dest = dest;
	pthread_mutex_unlock(&rs->ds->lock);
	return 0;
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

/* ---- the socket ---- */

static void ds_free(struct rsocket *rs);

int ds_socket(struct rsocket *rs, int domain)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct rs_dgram *ds;
	int ret;

	if (domain != AF_INET && domain != AF_INET6)
		return EAFNOSUPPORT;
	ds = calloc(1, sizeof(*ds));
	if (!ds)
		return ENOMEM;
	ds->epfd = ds->wake_fd = -1;
	rs->number = (int)syscall(SYS_socket, domain, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (rs->number < 0) {
		free(ds);
		return errno;
	}
	rs->ds = ds;
	pthread_mutex_init(&ds->lock, NULL);
	pthread_cond_init(&ds->cq_cond, NULL);
	ds->epfd = epoll_create1(EPOLL_CLOEXEC);
	ds->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = ds->epfd < 0 || ds->wake_fd < 0 ||
	      epoll_ctl(ds->epfd, EPOLL_CTL_ADD, ds->wake_fd, &ev) ? errno : 0;
	if (!ret)
		ret = ds_svc_add(rs);
	if (ret) {
		ds_free(rs);
		return ret;
	}
	return 0;
}

static void ds_free_dest(void *node)
{
	struct ds_dest *dest = node;

	if (dest->ah)
		ibv_destroy_ah(dest->ah);
	free(dest);
}

static void ds_free(struct rsocket *rs)
{
	struct rs_dgram *ds = rs->ds;
	struct ds_qp *qp;

	tdestroy(ds->dests, ds_free_dest);
	while ((qp = ds->qps)) {
		ds->qps = qp->next;
		ds_free_qp(qp);
	}
	if (ds->epfd >= 0)
		close(ds->epfd);
	if (ds->wake_fd >= 0)
		close(ds->wake_fd);
	close(rs->number);
	free(ds->rmsg);
	pthread_cond_destroy(&ds->cq_cond);
	pthread_mutex_destroy(&ds->lock);
	free(ds);
	rs->ds = NULL;
}

void ds_close(struct rsocket *rs)
{
	ds_svc_remove(rs);
	ds_free(rs);
}
