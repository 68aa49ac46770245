/* SPDX-License-Identifier: MIT */
/*
 * Stream rsockets, the connection manager's side: creation, bind, listen,
 * accept, connect (WIRE.md A.1) and the CM events of connected sockets.
 *
 * Each stream socket's CM id is synchronous, on its own event channel,
 * whose fd is the socket's number.  A connection step waits for its event
 * there; with the fd non-blocking (O_NONBLOCK sockets) the wait returns
 * EAGAIN and rs_do_connect() resumes it later (cma_sync_wait(), the
 * library's own waiter, is used directly for that).
 *
 * A listener's thread accepts connect requests as they arrive (as
 * upstream's does) and queues the new sockets for raccept().
 */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rs.h"

/* Address and route resolution: 1 s, doubled on each retry. */
enum { RS_RESOLVE_TIMEOUT_MS = 1000 };

static int rs_listen_start(struct rsocket *rs);
static void rs_listen_stop(struct rsocket *rs);

static int rs_errno(int ret)
{
	return ret ? errno : 0;
}

struct rsocket *rs_alloc(const struct rsocket *inherit, int type)
{
	struct rsocket *rs;

	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	rs->type = type;
	rs->number = -1;
	if (inherit) {
		rs->domain = inherit->domain;
		rs->sbuf_size = inherit->sbuf_size;
		rs->rbuf_size = inherit->rbuf_size;
		rs->sq_size = inherit->sq_size;
		rs->rq_size = inherit->rq_size;
		rs->sq_inline = inherit->sq_inline;
		rs->target_iomap_size = inherit->target_iomap_size;
	} else {
		rs->sbuf_size = rs_config.wmem_default;
		rs->rbuf_size = rs_config.mem_default;
		rs->sq_size = rs_config.sqsize_default;
		rs->rq_size = rs_config.rqsize_default;
		rs->sq_inline = rs_config.inline_default;
		rs->target_iomap_size = rs_config.iomap_size;
	}
	pthread_mutex_init(&rs->slock, NULL);
	pthread_mutex_init(&rs->rlock, NULL);
	pthread_mutex_init(&rs->cq_lock, NULL);
	pthread_mutex_init(&rs->map_lock, NULL);
	pthread_mutex_init(&rs->cm_lock, NULL);
	return rs;
}

void rs_free(struct rsocket *rs)
{
	if (rs->listen_thread_running)
		rs_listen_stop(rs);
	if (rs->type == SOCK_STREAM) {
		rs_free_resources(rs);
		if (rs->cm_id)
			rdma_destroy_id(rs->cm_id);
	}
	free(rs->route);
	pthread_mutex_destroy(&rs->cm_lock);
	pthread_mutex_destroy(&rs->map_lock);
	pthread_mutex_destroy(&rs->cq_lock);
	pthread_mutex_destroy(&rs->rlock);
	pthread_mutex_destroy(&rs->slock);
	free(rs);
}

static bool rs_type_ok(int type, int protocol)
{
	if (type == SOCK_STREAM)
		return !protocol || protocol == IPPROTO_TCP;
	if (type == SOCK_DGRAM)
		return !protocol || protocol == IPPROTO_UDP;
	return false;
}

static int rs_stream_socket(struct rsocket *rs)
{
	if (rdma_create_id(NULL, &rs->cm_id, rs, RDMA_PS_TCP))
		return errno;
	/* Until bound, the id's address says which family it will use. */
	rs->cm_id->route.addr.src_addr.sa_family = rs->domain;
	rs->number = rs->cm_id->channel->fd;
	return 0;
}

int rsocket(int domain, int type, int protocol)
{
	struct rsocket *rs;
	int ret;

	/* v44 takes neither SOCK_NONBLOCK nor SOCK_CLOEXEC in type. */
	if ((domain != AF_INET && domain != AF_INET6 && domain != AF_IB) ||
	    !rs_type_ok(type, protocol))
		return cma_fail(ENOTSUP);
	rs_configure();
	rs = rs_alloc(NULL, type);
	if (!rs)
		return cma_fail(ENOMEM);
	rs->domain = domain;
	ret = type == SOCK_STREAM ? rs_stream_socket(rs) : ds_socket(rs, domain);
	if (!ret) {
		ret = rs_insert(rs);
		if (ret && type == SOCK_DGRAM)
			ds_close(rs);
	}
	if (ret) {
		rs_free(rs);
		return cma_fail(ret);
	}
	return rs->number;
}

int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rsocket *rs = rs_lookup(socket);
	int ret;

	if (!rs)
		return cma_fail(EBADF);
	if (!addr)
		return cma_fail(EINVAL);
	if (rs->type == SOCK_DGRAM) {
		if (bind(rs->number, addr, addrlen))
			return -1;
		rs->state = RS_BOUND;
		return 0;
	}
	if (rs->state != RS_INIT)
		return cma_fail(EINVAL);
	if (addrlen < ucma_addr_size(addr))
		return cma_fail(EINVAL);
	ret = rs_errno(rdma_bind_addr(rs->cm_id, (struct sockaddr *)addr));
	if (ret)
		return cma_fail(ret);
	rs->state = RS_BOUND;
	return 0;
}

int rlisten(int socket, int backlog)
{
	struct rsocket *rs = rs_lookup(socket);
	int ret;

	if (!rs)
		return cma_fail(EBADF);
	if (rs->type != SOCK_STREAM)
		return cma_fail(EOPNOTSUPP);
	if (rs->state == RS_LISTENING)
		return 0;
	if (rs->state != RS_INIT && rs->state != RS_BOUND)
		return cma_fail(EINVAL);
	if (rdma_listen(rs->cm_id, backlog))
		return -1;
	ret = rs_listen_start(rs);
	if (ret)
		return cma_fail(ret);
	rs->backlog = backlog;
	rs->state = RS_LISTENING;
	return 0;
}

int rs_fd_set_nonblocking(int fd, bool nonblocking)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return errno;
	flags = nonblocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, flags) ? errno : 0;
}

/* The peer's block in a connect request: after the CMA-header slot when
 * the listener is bound to an AF_IB address (A.1.7). */
static const struct rs_conn_data *rs_request_data(const struct rsocket *listener,
						  const struct rdma_cm_event *event)
{
	const struct rdma_conn_param *conn = &event->param.conn;
	size_t offset = listener->cm_id->route.addr.src_addr.sa_family == AF_IB ?
			RS_AF_IB_HDR_LEN : 0;

	if (!conn->private_data || conn->private_data_len < offset + sizeof(struct rs_conn_data))
		return NULL;
	return (const struct rs_conn_data *)((const uint8_t *)conn->private_data + offset);
}

/* Our side of a request the listener took: resources, the peer's block,
 * the reply.  The reply's parameters are the request's, as the kernel
 * turned them around for us (so the peer's depths are answered). */
static int rs_accept_request(struct rsocket *listener, struct rsocket *rs)
{
	const struct rs_conn_data *peer = rs_request_data(listener, rs->cm_id->event);
	struct rdma_conn_param param;
	struct rs_conn_data reply;
	int ret;

	if (!peer || peer->version != RS_CONN_VERSION)
		return ENOTSUP;
	ret = rs_create_resources(rs);
	if (ret)
		return ret;
	rs->sizes_fixed = true;
	ret = rs_conn_data_apply(rs, peer);
	if (ret)
		return ret;
	rs_conn_data_build(rs, &reply);
	param = rs->cm_id->event->param.conn;
	param.private_data = &reply;
	param.private_data_len = sizeof(reply);
	/* A non-blocking listener does not wait for the peer's RTU: the
	 * socket finishes in state accepting (A.1.9). */
	if (listener->fd_flags & O_NONBLOCK) {
		ret = rs_fd_set_nonblocking(rs->number, true);
		if (ret)
			return ret;
	}
	ret = rs_errno(rdma_accept(rs->cm_id, &param));
	if (ret == EAGAIN || ret == EWOULDBLOCK) {
		rs->state = RS_ACCEPTING;
		ret = 0;
	} else if (!ret) {
		rs->state = RS_CONNECT_RDWR;
	}
	if (!ret && (listener->fd_flags & O_NONBLOCK))
		ret = rs_fd_set_nonblocking(rs->number, false);
	return ret;
}

static socklen_t rs_copy_addr(struct sockaddr *addr, socklen_t *addrlen,
			      const struct sockaddr *src)
{
	socklen_t size = ucma_addr_size(src);

	if (!size)
		size = sizeof(struct sockaddr);	/* no address yet */
	if (addr && addrlen)
		memcpy(addr, src, *addrlen < size ? *addrlen : size);
	if (addrlen)
		*addrlen = size;
	return size;
}

/* The next connect request on listener, accepted: 0 and *out; EAGAIN
 * when none is pending; else the failure.  A request with a bad version
 * is refused (a reject without private data) and 0 returned with *out
 * NULL, as upstream's listener does. */
static int rs_take_request(struct rsocket *listener, struct rsocket **out)
{
	struct rdma_cm_id *id;
	struct rsocket *rs;
	int ret;

	*out = NULL;
	ret = rs_errno(rdma_get_request(listener->cm_id, &id));
	if (ret == EPROTO)
		return 0;	/* another event: get_request acks it next time */
	if (ret)
		return ret;
	rs = rs_alloc(listener, SOCK_STREAM);
	if (!rs) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return ENOMEM;
	}
	rs->cm_id = id;
	id->context = rs;
	rs->number = id->channel->fd;
	ret = rs_accept_request(listener, rs);
	if (ret) {
		rdma_reject(id, NULL, 0);
		rs_free(rs);
		return ret == ENOTSUP ? 0 : ret;
	}
	*out = rs;
	return 0;
}

static void rs_queue_accepted(struct rsocket *listener, struct rsocket *rs)
{
	uint64_t one = 1;

	pthread_mutex_lock(&listener->cm_lock);
	if (listener->accept_tail)
		listener->accept_tail->accept_next = rs;
	else
		listener->accept_head = rs;
	listener->accept_tail = rs;
	pthread_mutex_unlock(&listener->cm_lock);
	if (write(listener->accept_fd, &one, sizeof(one)) != sizeof(one))
		abort();	/* an eventfd below its maximum always counts */
}

/*
 * Upstream accepts from a thread as requests come, so that a peer's
 * connect completes before our application calls raccept() (as TCP's
 * does); so does this one, one per listener.  The listener's channel is
 * read only here.
 */
static void *rs_listen_service(void *arg)
{
	struct rsocket *listener = arg;
	struct pollfd fds[2] = {
		{ .fd = listener->number, .events = POLLIN },
		{ .fd = listener->stop_fd, .events = POLLIN },
	};
	struct rsocket *rs;

	for (;;) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			break;
		if (!(fds[0].revents & POLLIN))
			continue;
		if (!rs_take_request(listener, &rs) && rs)
			rs_queue_accepted(listener, rs);
	}
	return NULL;
}

static int rs_listen_start(struct rsocket *rs)
{
	sigset_t all, old;
	int ret;

	rs->accept_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
	if (rs->accept_fd < 0)
		return errno;
	rs->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rs->stop_fd < 0) {
		ret = errno;
		close(rs->accept_fd);
		return ret;
	}
	/* The application's signals are not for this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&rs->listen_thread, NULL, rs_listen_service, rs);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		close(rs->stop_fd);
		close(rs->accept_fd);
		return ret;
	}
	rs->listen_thread_running = true;
	return 0;
}

/* Ends the listen thread; connections accepted but never taken by
 * raccept() are closed (the peer sees a disconnect). */
static void rs_listen_stop(struct rsocket *rs)
{
	uint64_t one = 1;
	struct rsocket *next;

	if (write(rs->stop_fd, &one, sizeof(one)) != sizeof(one))
		abort();
	pthread_join(rs->listen_thread, NULL);
	for (struct rsocket *queued = rs->accept_head; queued; queued = next) {
		next = queued->accept_next;
		rs_free(queued);
	}
	close(rs->stop_fd);
	close(rs->accept_fd);
}

int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rsocket *listener = rs_lookup(socket);
	struct pollfd pfd;
	struct rsocket *rs;
	uint64_t count;
	int ret;

	/* Upstream's answer for a socket that does not listen, too. */
	if (!listener || listener->state != RS_LISTENING || listener->type != SOCK_STREAM)
		return cma_fail(EBADF);
	pfd = (struct pollfd){ .fd = listener->accept_fd, .events = POLLIN };
	while (read(listener->accept_fd, &count, sizeof(count)) != sizeof(count)) {
		if (errno != EAGAIN)
			return -1;
		if (listener->fd_flags & O_NONBLOCK)
			return cma_fail(EAGAIN);
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
	pthread_mutex_lock(&listener->cm_lock);
	rs = listener->accept_head;
	listener->accept_head = rs->accept_next;
	if (!listener->accept_head)
		listener->accept_tail = NULL;
	pthread_mutex_unlock(&listener->cm_lock);
	rs->accept_next = NULL;
	ret = rs_insert(rs);
	if (ret) {
		rs_free(rs);
		return cma_fail(ret);
	}
	if (addrlen)
		rs_copy_addr(addr, addrlen, rdma_get_peer_addr(rs->cm_id));
	return rs->number;
}

static enum rdma_cm_event_type rs_step_event(unsigned int state)
{
	switch (state) {
	case RS_RESOLVING_ADDR:
		return RDMA_CM_EVENT_ADDR_RESOLVED;
	case RS_RESOLVING_ROUTE:
		return RDMA_CM_EVENT_ROUTE_RESOLVED;
	default:
		return RDMA_CM_EVENT_ESTABLISHED;
	}
}

static bool rs_is_iwarp(const struct rsocket *rs)
{
	return rs->cm_id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

/* Resources, private data (76 bytes from an AF_IB id: a zeroed slot, then
 * the block at 36), and the connect (A.1.4, A.1.7). */
static int rs_start_connect(struct rsocket *rs)
{
	uint8_t pdata[RS_AF_IB_HDR_LEN + sizeof(struct rs_conn_data)] = { 0 };
	size_t offset = rs->cm_id->route.addr.src_addr.sa_family == AF_IB ?
			RS_AF_IB_HDR_LEN : 0;
	struct rs_conn_data block;
	struct rdma_conn_param param = {
		.private_data = pdata,
		.private_data_len = offset + sizeof(block),
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,	/* infinite: the protocol relies on it */
	};
	int ret;

	if (!rs->sizes_fixed) {
		ret = rs_create_resources(rs);
		if (ret)
			return ret;
		rs->sizes_fixed = true;
	}
	rs_conn_data_build(rs, &block);
	memcpy(pdata + offset, &block, sizeof(block));
	/* Some iWARP stacks issue an RDMA READ while connecting. */
	if (rs_is_iwarp(rs))
		param.initiator_depth = 1;
	return rs_errno(rdma_connect(rs->cm_id, &param));
}

static int rs_start_route(struct rsocket *rs)
{
	int ret;

	if (!rs->route)
		return rs_errno(rdma_resolve_route(rs->cm_id, RS_RESOLVE_TIMEOUT_MS << rs->retries));
	/* Paths the application gave stand for route resolution; the kernel
	 * still reports ROUTE_RESOLVED. */
	ret = rs_errno(rdma_set_option(rs->cm_id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
				       rs->route, rs->route_len));
	free(rs->route);
	rs->route = NULL;
	rs->route_len = 0;
	if (ret)
		return ret;
	return cma_sync_wait(cma_id_of(rs->cm_id), RDMA_CM_EVENT_ROUTE_RESOLVED);
}

/* Starts what rs->state names; on a blocking socket it also waits for it. */
static int rs_start_step(struct rsocket *rs)
{
	struct sockaddr_storage dst;

	switch (rs->state) {
	case RS_RESOLVING_ADDR:
		memcpy(&dst, &rs->cm_id->route.addr.dst_storage, sizeof(dst));
		return rs_errno(rdma_resolve_addr(rs->cm_id, NULL, (struct sockaddr *)&dst,
						  RS_RESOLVE_TIMEOUT_MS << rs->retries));
	case RS_RESOLVING_ROUTE:
		return rs_start_route(rs);
	default:
		return rs_start_connect(rs);
	}
}

/* The accept reply in the ESTABLISHED event (always at offset 0). */
static int rs_connected(struct rsocket *rs)
{
	const struct rdma_conn_param *conn = &rs->cm_id->event->param.conn;
	const struct rs_conn_data *peer = conn->private_data;
	int ret;

	if (rs->state == RS_CONNECTING) {
		if (!peer || conn->private_data_len < sizeof(*peer) ||
		    peer->version != RS_CONN_VERSION)
			return ENOTSUP;
		ret = rs_conn_data_apply(rs, peer);
		if (ret)
			return ret;
	}
	rs->state = RS_CONNECT_RDWR;
	return 0;
}

/* ret: how the step of rs->state ended.  Moves through the next steps
 * until one has to be waited for. */
static int rs_connect_steps(struct rsocket *rs, int ret)
{
	for (;;) {
		if (ret == EAGAIN || ret == EWOULDBLOCK)
			return EINPROGRESS;
		switch (rs->state) {
		case RS_RESOLVING_ADDR:
		case RS_RESOLVING_ROUTE:
			if (ret == ETIMEDOUT && rs->retries < RS_CONN_RETRIES) {
				rs->retries++;
				break;
			}
			if (ret)
				return ret;
			rs->state = rs->state == RS_RESOLVING_ADDR ? RS_RESOLVING_ROUTE :
								    RS_CONNECTING;
			break;
		default:
			return ret ? ret : rs_connected(rs);
		}
		ret = rs_start_step(rs);
	}
}

static int rs_connect_locked(struct rsocket *rs)
{
	int ret;

	switch (rs->state) {
	case RS_INIT:
	case RS_BOUND:
		rs->state = RS_RESOLVING_ADDR;
		ret = rs_start_step(rs);
		break;
	case RS_RESOLVING_ADDR:
	case RS_RESOLVING_ROUTE:
	case RS_CONNECTING:
	case RS_ACCEPTING:
		ret = cma_sync_wait(cma_id_of(rs->cm_id), rs_step_event(rs->state));
		break;
	case RS_CONNECT_ERROR:
	case RS_DISCONNECTED:
	case RS_ERROR:
		return ENOTCONN;
	default:
		return rs->state & RS_CONNECTED ? 0 : EINVAL;
	}
	ret = rs_connect_steps(rs, ret);
	if (ret && ret != EINPROGRESS) {
		rs->state = RS_CONNECT_ERROR;
		rs->err = ret;
	}
	return ret;
}

int rs_do_connect(struct rsocket *rs)
{
	int ret;

	pthread_mutex_lock(&rs->cm_lock);
	ret = rs_connect_locked(rs);
	pthread_mutex_unlock(&rs->cm_lock);
	return ret;
}

int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rsocket *rs = rs_lookup(socket);
	socklen_t size;
	int ret;

	if (!rs)
		return cma_fail(EBADF);
	if (!addr)
		return cma_fail(EINVAL);
	if (rs->type == SOCK_DGRAM) {
		ret = ds_connect(rs, addr, addrlen);
		return ret ? cma_fail(ret) : 0;
	}
	if (rs->state & RS_CONNECTED)
		return cma_fail(EISCONN);
	if (rs->state == RS_INIT || rs->state == RS_BOUND) {
		size = ucma_addr_size(addr);
		if (!size || addrlen < size)
			return cma_fail(EINVAL);
		pthread_mutex_lock(&rs->cm_lock);
		memcpy(&rs->cm_id->route.addr.dst_storage, addr, size);
		pthread_mutex_unlock(&rs->cm_lock);
	}
	ret = rs_do_connect(rs);
	return ret ? cma_fail(ret) : 0;
}

static bool rs_fd_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

void rs_cm_event(struct rsocket *rs)
{
	struct cma_id *id = cma_id_of(rs->cm_id);
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	if (pthread_mutex_trylock(&rs->cm_lock))
		return;		/* someone else is reading the channel */
	if (rs_fd_readable(rs->number) && !(rs->state & RS_OPENING)) {
		cma_sync_wait(id, RDMA_CM_EVENT_DISCONNECTED);
		if (rs->cm_id->event &&
		    (rs->cm_id->event->event == RDMA_CM_EVENT_DISCONNECTED ||
		     rs->cm_id->event->event == RDMA_CM_EVENT_DEVICE_REMOVAL)) {
			rs->state = RS_DISCONNECTED;
			/* Flushed receives wake whoever waits on the CQ. */
			if (rs->cm_id->qp)
				ibv_modify_qp(rs->cm_id->qp, &attr, IBV_QP_STATE);
		}
	}
	pthread_mutex_unlock(&rs->cm_lock);
}

short rs_cm_poll(struct rsocket *rs, short events, int *wait_fd)
{
	*wait_fd = rs->number;
	if (rs->state == RS_LISTENING) {
		*wait_fd = rs->accept_fd;
		return rs_fd_readable(rs->accept_fd) ? events & POLLIN : 0;
	}
	if ((rs->state & RS_OPENING) && rs_fd_readable(rs->number) &&
	    !pthread_mutex_trylock(&rs->cm_lock)) {
		if (rs->state & RS_OPENING)
			rs_connect_locked(rs);
		pthread_mutex_unlock(&rs->cm_lock);
		if (rs->state & RS_CONNECTED)
			return rs_stream_poll(rs, events);
	}
	if (rs->state == RS_CONNECT_ERROR)
		return (events & (POLLIN | POLLOUT)) | POLLERR;
	return 0;
}

/* Shared by rgetpeername (peer) and rgetsockname (!peer). */
static int rs_get_address(int socket, struct sockaddr *addr, socklen_t *addrlen,
			  bool peer)
{
	struct rsocket *rs = rs_lookup(socket);

	if (!rs)
		return cma_fail(EBADF);
	if (!addr || !addrlen)
		return cma_fail(EFAULT);
	if (rs->type == SOCK_DGRAM)
		return peer ? getpeername(rs->number, addr, addrlen) :
			      getsockname(rs->number, addr, addrlen);
	rs_copy_addr(addr, addrlen, peer ? rdma_get_peer_addr(rs->cm_id) :
					   rdma_get_local_addr(rs->cm_id));
	return 0;
}

int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return rs_get_address(socket, addr, addrlen, true);
}

int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return rs_get_address(socket, addr, addrlen, false);
}
