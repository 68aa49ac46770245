/* SPDX-License-Identifier: MIT */
/*
 * rsetsockopt, rgetsockopt, rfcntl (WIRE.md D.3-D.5, v44 semantics, with
 * v64's F_GETFD/F_SETFD).  Most options are only stored, as bits
 * (1 << optname) per level; the ones that mean something change sizes
 * before the buffers exist, the CM id, or keepalive.
 */
#include <endian.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rs.h"

static void rs_store_flag(uint64_t *opts, int optname, bool on)
{
	if (on)
		*opts |= 1ULL << optname;
	else
		*opts &= ~(1ULL << optname);
}

static bool rs_flag(uint64_t opts, int optname)
{
	return opts & (1ULL << optname);
}

/* The CM options a stream socket passes on (REUSEADDR, AFONLY).  Upstream
 * ignores a kernel without them, and on InfiniBand a failure once the id
 * is bound (the port space is already chosen). */
static int rs_cm_option(struct rsocket *rs, int optname, const void *optval, socklen_t optlen)
{
	int ret;

	if (rs->type != SOCK_STREAM)
		return 0;
	ret = rdma_set_option(rs->cm_id, RDMA_OPTION_ID, optname, (void *)optval, optlen) ?
	      errno : 0;
	if (ret == ENOSYS)
		return 0;
	if (ret && rs->state != RS_INIT && rs->cm_id->verbs &&
	    rs->cm_id->verbs->device->transport_type == IBV_TRANSPORT_IB)
		return 0;
	return ret;
}

static int rs_set_socket_level(struct rsocket *rs, int optname, const void *optval,
			       socklen_t optlen)
{
	int value = *(const int *)optval;
	int ret = 0;

	switch (optname) {
	case SO_REUSEADDR:
		ret = rs_cm_option(rs, RDMA_OPTION_ID_REUSEADDR, optval, optlen);
		break;
	case SO_RCVBUF:
		if (!rs->sizes_fixed)
			rs->rbuf_size = (uint32_t)value << 1;
		return 0;
	case SO_SNDBUF:
		if (!rs->sizes_fixed) {
			rs->sbuf_size = (uint32_t)value << 1;
			if (rs->sbuf_size < RS_SNDLOWAT)
				rs->sbuf_size = RS_SNDLOWAT << 1;
		}
		return 0;
	case SO_LINGER:
		if (optlen < sizeof(struct linger))
			return EINVAL;
		/* Stored inverted (the bit means "off"), no effect. */
		value = !((const struct linger *)optval)->l_onoff;
		break;
	case SO_KEEPALIVE:
		if (rs->type == SOCK_STREAM)
			ret = rs_set_keepalive(rs, value);
		break;
	case SO_OOBINLINE:
		break;
	default:
		return ENOTSUP;
	}
	if (!ret)
		rs_store_flag(&rs->so_opts, optname, value);
	return ret;
}

static int rs_set_tcp_level(struct rsocket *rs, int optname, int value)
{
	switch (optname) {
	case TCP_NODELAY:
		rs_store_flag(&rs->tcp_opts, optname, value);
		return 0;
	case TCP_MAXSEG:
	case TCP_KEEPINTVL:
	case TCP_KEEPCNT:
		return 0;
	case TCP_KEEPIDLE:
		if (value <= 0)
			return EINVAL;
		rs->keepalive_time = value;
		return rs_flag(rs->so_opts, SO_KEEPALIVE) && rs->type == SOCK_STREAM ?
		       rs_set_keepalive(rs, true) : 0;
	default:
		return ENOTSUP;
	}
}

static uint16_t rs_queue_size(uint32_t value)
{
	return value < RS_QP_MAX_SIZE ? value : RS_QP_MAX_SIZE;
}

static int rs_set_rdma_level(struct rsocket *rs, int optname, const void *optval,
			     socklen_t optlen)
{
	uint32_t value = *(const uint32_t *)optval;

	/* a datagram socket's first QP fixed its sizes */
	if (rs->state >= RS_OPENING || (rs->type == SOCK_DGRAM && rs->sizes_fixed))
		return EINVAL;
	switch (optname) {
	case RDMA_SQSIZE:
		rs->sq_size = rs_queue_size(value);
		return 0;
	case RDMA_RQSIZE:
		rs->rq_size = rs_queue_size(value);
		return 0;
	case RDMA_INLINE:
		rs->sq_inline = rs_queue_size(value);
		return 0;
	case RDMA_IOMAPSIZE:
		/* What byte 7 can say: rounded through the 8-bit scale. */
		rs->target_iomap_size = rs_scale_decode(rs_scale_encode(*(const int *)optval));
		return 0;
	case RDMA_ROUTE:
		if (optlen < sizeof(struct ibv_path_data))
			return EINVAL;
		free(rs->route);
		rs->route = malloc(optlen);
		if (!rs->route) {
			rs->route_len = 0;
			return ENOMEM;
		}
		memcpy(rs->route, optval, optlen);
		rs->route_len = optlen;
		return 0;
	default:
		return ENOTSUP;
	}
}

static int rs_setsockopt(struct rsocket *rs, int level, int optname, const void *optval,
			 socklen_t optlen)
{
	if (!optval)
		return EFAULT;
	if (optlen < sizeof(int))
		return EINVAL;
	/* A datagram socket's UDP socket gets every option but SOL_RDMA's,
	 * and has the last word. */
	if (rs->type == SOCK_DGRAM && level != SOL_RDMA &&
	    setsockopt(rs->number, level, optname, optval, optlen))
		return errno;
	switch (level) {
	case SOL_SOCKET:
		return rs_set_socket_level(rs, optname, optval, optlen);
	case IPPROTO_TCP:
		return rs_set_tcp_level(rs, optname, *(const int *)optval);
	case IPPROTO_IPV6:
		if (optname != IPV6_V6ONLY)
			return ENOTSUP;
		rs_store_flag(&rs->ipv6_opts, optname, *(const int *)optval);
		return rs_cm_option(rs, RDMA_OPTION_ID_AFONLY, optval, optlen);
	case SOL_RDMA:
		return rs_set_rdma_level(rs, optname, optval, optlen);
	default:
		return ENOTSUP;
	}
}

int rsetsockopt(int socket, int level, int optname, const void *optval, socklen_t optlen)
{
	struct rsocket *rs = rs_lookup(socket);
	int ret;

	if (!rs)
		return cma_fail(EBADF);
	ret = rs_setsockopt(rs, level, optname, optval, optlen);
	return ret ? cma_fail(ret) : 0;
}

/* A value as an int: *optlen becomes its size. */
static int rs_int_opt(void *optval, socklen_t *optlen, int value)
{
	*(int *)optval = value;
	*optlen = sizeof(int);
	return 0;
}

static int rs_get_socket_level(struct rsocket *rs, int optname, void *optval, socklen_t *optlen)
{
	int err;

	switch (optname) {
	case SO_REUSEADDR:
	case SO_KEEPALIVE:
	case SO_OOBINLINE:
		return rs_int_opt(optval, optlen, rs_flag(rs->so_opts, optname));
	case SO_RCVBUF:
		return rs_int_opt(optval, optlen, rs->rbuf_size);
	case SO_SNDBUF:
		return rs_int_opt(optval, optlen, rs->sbuf_size);
	case SO_LINGER:
		if (*optlen < sizeof(struct linger))
			return EINVAL;
		*(struct linger *)optval = (struct linger){
			.l_onoff = !rs_flag(rs->so_opts, SO_LINGER),
		};
		*optlen = sizeof(struct linger);
		return 0;
	case SO_ERROR:
		err = rs->err;
		rs->err = 0;
		return rs_int_opt(optval, optlen, err);
	default:
		return ENOTSUP;
	}
}

static int rs_path_mtu_bytes(const struct rsocket *rs)
{
	if (rs->cm_id && rs->cm_id->route.num_paths)
		return 1 << (7 + rs->cm_id->route.path_rec->mtu);
	return 2048;
}

static int rs_get_tcp_level(struct rsocket *rs, int optname, void *optval, socklen_t *optlen)
{
	switch (optname) {
	case TCP_KEEPCNT:
	case TCP_KEEPINTVL:
		*(int *)optval = 1;	/* upstream leaves optlen as it is */
		return 0;
	case TCP_KEEPIDLE:
		return rs_int_opt(optval, optlen, rs->keepalive_time);
	case TCP_NODELAY:
		return rs_int_opt(optval, optlen, rs_flag(rs->tcp_opts, optname));
	case TCP_MAXSEG:
		return rs_int_opt(optval, optlen, rs_path_mtu_bytes(rs));
	default:
		return ENOTSUP;
	}
}

static void rs_path_data(const struct ibv_sa_path_rec *rec, struct ibv_path_data *out)
{
	struct ibv_path_record *path = &out->path;

	*out = (struct ibv_path_data){
		.flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY | IBV_PATH_FLAG_BIDIRECTIONAL,
	};
	path->dgid = rec->dgid;
	path->sgid = rec->sgid;
	path->dlid = rec->dlid;
	path->slid = rec->slid;
	path->flowlabel_hoplimit = htobe32(be32toh(rec->flow_label) << 8 | rec->hop_limit);
	path->tclass = rec->traffic_class;
	path->reversible_numpath = (rec->reversible ? 0x80 : 0) | (rec->numb_path & 0x7f);
	path->pkey = rec->pkey;
	path->qosclass_sl = htobe16(rec->sl & 0xf);
	path->mtu = rec->mtu_selector << 6 | rec->mtu;
	path->rate = rec->rate_selector << 6 | rec->rate;
	path->packetlifetime = rec->packet_life_time_selector << 6 | rec->packet_life_time;
	path->preference = rec->preference;
}

/* The paths a route set before connecting, or the id's route. */
static int rs_get_route(struct rsocket *rs, void *optval, socklen_t *optlen)
{
	size_t n, max = *optlen / sizeof(struct ibv_path_data);

	if (!max)
		return EINVAL;
	if (rs->route) {
		/* Upstream copies the wrong way here; the stored paths are
		 * what the caller asked for. */
		n = rs->route_len < max * sizeof(struct ibv_path_data) ?
		    rs->route_len : max * sizeof(struct ibv_path_data);
		memcpy(optval, rs->route, n);
		*optlen = n;
		return 0;
	}
	n = rs->cm_id ? (size_t)rs->cm_id->route.num_paths : 0;
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		rs_path_data(&rs->cm_id->route.path_rec[i], (struct ibv_path_data *)optval + i);
	*optlen = n * sizeof(struct ibv_path_data);
	return 0;
}

static int rs_get_rdma_level(struct rsocket *rs, int optname, void *optval, socklen_t *optlen)
{
	switch (optname) {
	case RDMA_SQSIZE:
		return rs_int_opt(optval, optlen, rs->sq_size);
	case RDMA_RQSIZE:
		return rs_int_opt(optval, optlen, rs->rq_size);
	case RDMA_INLINE:
		return rs_int_opt(optval, optlen, rs->sq_inline);
	case RDMA_IOMAPSIZE:
		return rs_int_opt(optval, optlen, rs->target_iomap_size);
	case RDMA_ROUTE:
		return rs_get_route(rs, optval, optlen);
	default:
		return ENOTSUP;
	}
}

static int rs_getsockopt(struct rsocket *rs, int level, int optname, void *optval,
			 socklen_t *optlen)
{
	if (!optval || !optlen)
		return EFAULT;
	if (*optlen < sizeof(int))
		return EINVAL;
	switch (level) {
	case SOL_SOCKET:
		return rs_get_socket_level(rs, optname, optval, optlen);
	case IPPROTO_TCP:
		return rs_get_tcp_level(rs, optname, optval, optlen);
	case IPPROTO_IPV6:
		if (optname != IPV6_V6ONLY)
			return ENOTSUP;
		return rs_int_opt(optval, optlen, rs_flag(rs->ipv6_opts, optname));
	case SOL_RDMA:
		return rs_get_rdma_level(rs, optname, optval, optlen);
	default:
		return ENOTSUP;
	}
}

int rgetsockopt(int socket, int level, int optname, void *optval, socklen_t *optlen)
{
	struct rsocket *rs = rs_lookup(socket);
	int ret;

	if (!rs)
		return cma_fail(EBADF);
	ret = rs_getsockopt(rs, level, optname, optval, optlen);
	return ret ? cma_fail(ret) : 0;
}

/* The internal fds a non-blocking socket must never sleep on: its CM
 * channel (or UDP socket) and its CQ channel. */
static int rs_set_nonblocking(struct rsocket *rs, bool on)
{
	int ret;

	ret = rs_fd_set_nonblocking(rs->number, on);
	if (!ret && rs->cq_channel)
		ret = rs_fd_set_nonblocking(rs->cq_channel->fd, on);
	return ret;
}

static int rs_fcntl(struct rsocket *rs, int cmd, int arg)
{
	int ret;

	switch (cmd) {
	case F_GETFL:
		return rs->fd_flags;
	case F_SETFL:
		if ((arg ^ rs->fd_flags) & O_NONBLOCK) {
			ret = rs_set_nonblocking(rs, arg & O_NONBLOCK);
			if (ret)
				return cma_fail(ret);
		}
		rs->fd_flags = arg;
		return 0;
	case F_GETFD:
	case F_SETFD:
		/* The socket's fd is the number: its FD_CLOEXEC is the one. */
		return fcntl(rs->number, cmd, arg);
	default:
		return cma_fail(ENOTSUP);
	}
}

int rfcntl(int socket, int cmd, ...)
{
	struct rsocket *rs = rs_lookup(socket);
	va_list args;
	int arg;

	if (!rs)
		return cma_fail(EBADF);
	va_start(args, cmd);
	arg = cmd == F_SETFL || cmd == F_SETFD ? va_arg(args, int) : 0;
	va_end(args);
	return rs_fcntl(rs, cmd, arg);
}
