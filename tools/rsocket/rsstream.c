// SPDX-License-Identifier: MIT
#include "rsstream.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rsocket.h>

void rs_stream_defaults(struct rs_stream_opts *opt, long long count)
{
	*opt = (struct rs_stream_opts){
		.port = RS_DEFAULT_PORT,
		.series = 1,
		.wait = RS_NONBLOCKING,
		/* a custom test's iterations default to 1: upstream's man page
		 * says 1000, its program does 1 */
		.iters = 1,
		.count = count,
		.size = 1000,
		/* upstream sets this size on every socket (seen with -T s) */
		.buffer_size = 1 << 19,
	};
}

static int parse_mode(struct rs_stream_opts *opt, const char *mode, int full_modes)
{
	if (!rs_wait_option(mode, &opt->wait))
		return 0;
	if (!strcmp(mode, "v") || !strcmp(mode, "verify"))
		opt->verify = 1;
	else if (full_modes && (!strcmp(mode, "s") || !strcmp(mode, "sockets")))
		opt->kernel = 1;
	else if (full_modes && (!strcmp(mode, "f") || !strcmp(mode, "fork")))
		opt->fork_server = opt->kernel = 1;
	else if (full_modes && (!strcmp(mode, "r") || !strcmp(mode, "resolve")))
		opt->resolve = 1;
	else
		return -1;
	return 0;
}

int rs_stream_parse(struct rs_stream_opts *opt, int argc, char **argv,
		    const char *getopt_spec, int full_modes)
{
	int c;

	while ((c = getopt(argc, argv, getopt_spec)) != -1) {
		switch (c) {
		case 's': opt->dst_addr = optarg; break;
		case 'b': opt->src_addr = optarg; break;
		case 'f': opt->format = optarg; break;
		case 'p': opt->port = optarg; break;
		case 'B':
			if (rs_number(optarg, 1, 1LL << 31, &opt->buffer_size))
				return -1;
			break;
		case 'i':
			if (rs_number(optarg, 0, 1 << 16, &opt->inline_size))
				return -1;
			break;
		case 'k':
			if (rs_number(optarg, 0, 1 << 30, &opt->keepalive))
				return -1;
			break;
		case 'I':
			if (rs_number(optarg, 1, 1LL << 40, &opt->iters))
				return -1;
			opt->series = 0;
			break;
		case 'C':
			if (rs_number(optarg, 1, 1LL << 40, &opt->count))
				return -1;
			opt->series = 0;
			break;
		case 'S':
			if (!strcmp(optarg, "all")) {
				opt->series = 1;
				break;
			}
			if (rs_number(optarg, 1, 1LL << 30, &opt->size))
				return -1;
			opt->series = 0;
			break;
		case 'T':
			if (parse_mode(opt, optarg, full_modes))
				return -1;
			break;
		default:
			return -1;
		}
	}
	if (optind != argc)
		return -1;
	opt->server = !opt->dst_addr;
	return 0;
}

/* The socket options both ends set before connecting (buffers must be
 * sized before an rsocket connects) and again on what accept returns. */
static int set_options(const struct rs_stream_opts *opt, const struct rs_calls *calls, int fd)
{
	int size = opt->buffer_size, one = 1;

	if (calls->setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) ||
	    calls->setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) ||
	    calls->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		perror("setsockopt");
		return -1;
	}
	if (opt->inline_size && !opt->kernel) {
		int inline_size = opt->inline_size;

		if (calls->setsockopt(fd, SOL_RDMA, RDMA_INLINE, &inline_size, sizeof(inline_size))) {
			perror("setsockopt RDMA_INLINE");
			return -1;
		}
	}
	/* on an accepted socket upstream's call fails too (its mapping size
	 * came from the listener), and is not fatal */
	if (opt->iomap) {
		int one_map = 1;

		calls->setsockopt(fd, SOL_RDMA, RDMA_IOMAPSIZE, &one_map, sizeof(one_map));
	}
	if (opt->keepalive) {
		int idle = opt->keepalive;

		if (calls->setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) ||
		    calls->setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle))) {
			perror("setsockopt keepalive");
			return -1;
		}
	}
	return rs_apply_wait(calls, fd, opt->wait);
}

int rs_stream_connect(const struct rs_stream_opts *opt, struct rs_conn *conn)
{
	struct sockaddr_storage dst, src;
	socklen_t dst_len, src_len;
	int err = 0;
	socklen_t err_len = sizeof(err);

	if (rs_resolve(opt->dst_addr, opt->port, opt->format, 0, opt->resolve, SOCK_STREAM,
		       &dst, &dst_len))
		return -1;
	conn->fd = conn->calls->socket(dst.ss_family, SOCK_STREAM, 0);
	if (conn->fd < 0) {
		perror("socket");
		return -1;
	}
	if (opt->src_addr) {
		if (rs_resolve(opt->src_addr, "0", opt->format, 1, opt->resolve, SOCK_STREAM,
			       &src, &src_len))
			return -1;
		if (conn->calls->bind(conn->fd, (struct sockaddr *)&src, src_len)) {
			perror("bind");
			return -1;
		}
	}
	if (set_options(opt, conn->calls, conn->fd))
		return -1;
	if (!conn->calls->connect(conn->fd, (struct sockaddr *)&dst, dst_len))
		return 0;
	if (errno != EINPROGRESS) {
		perror("connect");
		return -1;
	}
	if (rs_wait_for(conn->calls, conn->fd, POLLOUT, -1, RS_ASYNC) < 0)
		return -1;
	if (conn->calls->getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &err_len)) {
		perror("getsockopt SO_ERROR");
		return -1;
	}
	if (err) {
		errno = err;
		perror("connect");
		return -1;
	}
	return 0;
}

static int accept_one(const struct rs_stream_opts *opt, struct rs_conn *conn, int listener)
{
	for (;;) {
		int fd = conn->calls->accept(listener, NULL, NULL);

		if (fd >= 0) {
			conn->fd = fd;
			return set_options(opt, conn->calls, fd);
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			perror("accept");
			return -1;
		}
		if (rs_wait_for(conn->calls, listener, POLLIN, -1, opt->wait) < 0)
			return -1;
	}
}

int rs_stream_serve(const struct rs_stream_opts *opt, struct rs_conn *conn,
		    int (*run)(struct rs_conn *conn, const struct rs_stream_opts *opt))
{
	struct sockaddr_storage src;
	socklen_t src_len;
	int listener, one = 1, ret = -1;

	if (rs_resolve(opt->src_addr, opt->port, opt->format, 1, opt->resolve, SOCK_STREAM,
		       &src, &src_len))
		return -1;
	listener = conn->calls->socket(src.ss_family, SOCK_STREAM, 0);
	if (listener < 0) {
		perror("socket");
		return -1;
	}
	if (conn->calls->setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    conn->calls->bind(listener, (struct sockaddr *)&src, src_len) ||
	    conn->calls->listen(listener, 1)) {
		perror("listen");
		goto out;
	}
	if (set_options(opt, conn->calls, listener) || accept_one(opt, conn, listener))
		goto out;
	if (opt->fork_server) {
		pid_t child = fork();
		int status;

		if (child < 0) {
			perror("fork");
			goto out;
		}
		if (child == 0) {
			conn->calls->close(listener);
			exit(run(conn, opt) ? 1 : 0);
		}
		conn->calls->close(conn->fd);
		conn->fd = -1;
		if (waitpid(child, &status, 0) < 0) {
			perror("waitpid");
			goto out;
		}
		ret = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
	} else {
		ret = run(conn, opt);
	}
out:
	conn->calls->close(listener);
	return ret;
}

int rs_stream_sync(struct rs_conn *conn, char *buf, int server)
{
	if (server)
		return rs_recv_all(conn, buf, RS_SYNC_SIZE) || rs_send_all(conn, buf, RS_SYNC_SIZE);
	return rs_send_all(conn, buf, RS_SYNC_SIZE) || rs_recv_all(conn, buf, RS_SYNC_SIZE);
}
