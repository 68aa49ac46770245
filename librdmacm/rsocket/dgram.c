// SPDX-License-Identifier: MIT
/*
 * Datagram rsockets (WIRE.md part B).  The rsocket number is a kernel UDP
 * socket; data goes as UD SENDs from a QP per local address to the QP
 * each destination told us about over that UDP socket (dgram_svc.c).
 * Until a destination has answered, datagrams go to it over UDP with the
 * resolution header and its service delivers them.  This file, off the
 * data path (compiled for size): the socket, its QPs, new destinations and
 * address handles; dgram_data.c the data path, the destination lookup
 * included.
 */
#include "dgram.h"

#include <arpa/inet.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#define DS_RESOLVE_MS	2000

/* ---- addresses ---- */

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
	qp->max_inline = attr.cap.max_inline_data;
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

/* A new entry for addr, with a QP the first time its source is seen;
 * ds->lock held (ds_get_dest's miss). */
int ds_add_dest(struct rsocket *rs, const union ds_addr *addr, struct ds_dest **out)
{
	struct ds_dest *dest;
	int ret;

	dest = calloc(1, sizeof(*dest));
	if (!dest)
		return ENOMEM;
	dest->addr = *addr;
	ret = ds_find_qp(rs, addr, &dest->qp);
	if (!ret && !tsearch(dest, &rs->ds->dests, ds_addr_cmp))
		ret = ENOMEM;
	if (ret)
		free(dest);
	else
		*out = dest;
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
