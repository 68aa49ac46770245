// SPDX-License-Identifier: MIT
/*
 * The intercepted libc calls (PRELOAD.md 3-4).  An fd that is not in the
 * map goes to libc unchanged; a mapped one goes to its rsocket's r* call or
 * to libc with the kernel socket behind it.
 *
 * glibc declares accept() and friends with a transparent union under
 * _GNU_SOURCE, which a definition with plain pointers would contradict, so
 * this file is built without it; accept4 is declared below instead.  Nor
 * with _FILE_OFFSET_BITS=64, which renames fcntl to fcntl64 (both are
 * defined here; on 64-bit ABIs they are the same call).
 */
#undef _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#define _DEFAULT_SOURCE
#define _LARGEFILE64_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sendfile.h>
#include <rdma/rsocket.h>

#include "preload.h"

int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/* Every wrapper's first step: libc's pointers are ready afterwards. */
static struct psock *lookup(int fd)
{
	preload_init();
	return fdmap_get(fd);
}

static bool is_rsocket(const struct psock *ps)
{
	return ps->kind == PSOCK_RSOCKET;
}

/* Sockets librdmacm itself makes inside rsocket() must stay kernel ones. */
static __thread bool in_rsocket;

int rsocket_guarded(int domain, int type, int protocol)
{
	int rs;

	in_rsocket = true;
	rs = rsocket(domain, type, protocol);
	in_rsocket = false;
	return rs;
}

static void set_rdma_option(int rs, int name, int value)
{
	if (value)
		rsetsockopt(rs, SOL_RDMA, name, &value, sizeof(value));
}

void apply_env_options(int rs)
{
	set_rdma_option(rs, RDMA_SQSIZE, preload_env.sq_size);
	set_rdma_option(rs, RDMA_RQSIZE, preload_env.rq_size);
	set_rdma_option(rs, RDMA_INLINE, preload_env.inline_size);
}

static int any_getsockopt(int fd, bool rs, int level, int name, void *value, socklen_t *len)
{
	return rs ? rgetsockopt(fd, level, name, value, len) :
		    real.getsockopt(fd, level, name, value, len);
}

static int any_setsockopt(int fd, bool rs, int level, int name, const void *value, socklen_t len)
{
	return rs ? rsetsockopt(fd, level, name, value, len) :
		    real.setsockopt(fd, level, name, value, len);
}

static void copy_option(int from, bool from_rs, int to, bool to_rs, int level, int name)
{
	int value;
	socklen_t len = sizeof(value);

	if (!any_getsockopt(from, from_rs, level, name, &value, &len) && value)
		any_setsockopt(to, to_rs, level, name, &value, len);
}

/* What a converted socket keeps, as upstream: O_* flags, SO_REUSEADDR, TCP_NODELAY. */
void copy_socket_state(int from, bool from_rs, int to, bool to_rs)
{
	int flags = from_rs ? rfcntl(from, F_GETFL) : real.fcntl(from, F_GETFL);

	copy_option(from, from_rs, to, to_rs, SOL_SOCKET, SO_REUSEADDR);
	copy_option(from, from_rs, to, to_rs, IPPROTO_TCP, TCP_NODELAY);
	if (flags > 0) {
		if (to_rs)
			rfcntl(to, F_SETFL, flags);
		else
			real.fcntl(to, F_SETFL, flags);
	}
}

/* Maps a new placeholder to PS; on failure releases both and returns -1/errno. */
static int map_new(int fd, struct psock *ps)
{
	int err = fdmap_set(fd, ps);

	if (!err)
		return fd;
	real.close(fd);
	psock_put(ps);
	errno = err;
	return -1;
}

static int new_psock_fd(int fd, enum psock_kind kind, int sfd, int type)
{
	struct psock *ps = psock_new(kind, sfd);

	if (!ps) {
		if (kind == PSOCK_RSOCKET)
			rclose(sfd);
		else
			real.close(sfd);
		real.close(fd);
		errno = ENOMEM;
		return -1;
	}
	ps->type = type;
	return map_new(fd, ps);
}

static bool fork_candidate(int domain, int type, int protocol)
{
	return preload_env.fork_mode && (domain == AF_INET || domain == AF_INET6) &&
	       type == SOCK_STREAM && (protocol == 0 || protocol == IPPROTO_TCP);
}

/*
 * Unlike upstream, SOCK_NONBLOCK/SOCK_CLOEXEC are carried over (rfcntl and
 * the placeholder's FD_CLOEXEC) instead of leaving such sockets on TCP.
 */
PRELOAD_EXPORT int socket(int domain, int type, int protocol)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	int fd, sfd;

	preload_init();
	if (in_rsocket || !config_wants(domain, base, protocol))
		return real.socket(domain, type, protocol);
	fd = placeholder_open();
	if (fd < 0)
		return real.socket(domain, type, protocol);
	if (type & SOCK_CLOEXEC)
		real.fcntl(fd, F_SETFD, FD_CLOEXEC);

	if (fork_candidate(domain, base, protocol)) {
		sfd = real.socket(domain, type, protocol);
		if (sfd < 0)
			goto undo;
		fd = new_psock_fd(fd, PSOCK_KERNEL, sfd, base);
		if (fd >= 0)
			fdmap_get(fd)->fork = FORK_SOCKET;
		return fd;
	}

	sfd = rsocket_guarded(domain, base, protocol);
	if (sfd < 0)
		goto undo;
	apply_env_options(sfd);
	if (type & SOCK_NONBLOCK)
		rfcntl(sfd, F_SETFL, O_NONBLOCK);
	return new_psock_fd(fd, PSOCK_RSOCKET, sfd, base);

undo:
	/* Not for rsockets (AF_UNIX, no device, ...): the kernel's, unmapped. */
	real.close(fd);
	return real.socket(domain, type, protocol);
}

PRELOAD_EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct psock *ps = lookup(fd);

	if (!ps)
		return real.bind(fd, addr, len);
	return is_rsocket(ps) ? rbind(ps->sfd, addr, len) : real.bind(ps->sfd, addr, len);
}

PRELOAD_EXPORT int listen(int fd, int backlog)
{
	struct psock *ps = lookup(fd);
	int ret;

	if (!ps)
		return real.listen(fd, backlog);
	if (is_rsocket(ps))
		return rlisten(ps->sfd, backlog);
	ret = real.listen(ps->sfd, backlog);
	if (!ret && ps->fork == FORK_SOCKET)
		ps->fork = FORK_LISTEN;
	return ret;
}

static int accept_on(struct psock *ps, struct sockaddr *addr, socklen_t *len, int flags)
{
	int fd, sfd, err;
	enum psock_fork fork_state = ps->fork == FORK_LISTEN ? FORK_PASSIVE : FORK_NONE;

	fd = placeholder_open();
	if (fd < 0)
		return -1;
	if (is_rsocket(ps))
		sfd = raccept(ps->sfd, addr, len);
	else
		sfd = real.accept4(ps->sfd, addr, len, flags & SOCK_NONBLOCK);
	if (sfd < 0) {
		err = errno;
		real.close(fd);
		errno = err;
		return -1;
	}
	if (flags & SOCK_CLOEXEC)
		real.fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (is_rsocket(ps) && (flags & SOCK_NONBLOCK))
		rfcntl(sfd, F_SETFL, O_NONBLOCK);
	fd = new_psock_fd(fd, ps->kind, sfd, ps->type);
	if (fd >= 0)
		fdmap_get(fd)->fork = fork_state;
	return fd;
}

PRELOAD_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct psock *ps = lookup(fd);

	return ps ? accept_on(ps, addr, len, 0) : real.accept(fd, addr, len);
}

PRELOAD_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	struct psock *ps = lookup(fd);

	return ps ? accept_on(ps, addr, len, flags) : real.accept4(fd, addr, len, flags);
}

/*
 * rconnect failed (no RDMA route, loopback, ...): the same fd number
 * continues as a kernel socket of the same family and type (PRELOAD.md 3.5).
 */
static int connect_kernel_instead(struct psock *ps, const struct sockaddr *addr, socklen_t len)
{
	int err = errno;
	int kfd = real.socket(addr->sa_family, ps->type, 0);

	if (kfd < 0) {
		errno = err;
		return -1;
	}
	copy_socket_state(ps->sfd, true, kfd, false);
	rclose(ps->sfd);
	ps->sfd = kfd;
	ps->kind = PSOCK_KERNEL;
	return real.connect(kfd, addr, len);
}

PRELOAD_EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct psock *ps = lookup(fd);
	int ret;

	if (!ps)
		return real.connect(fd, addr, len);
	if (is_rsocket(ps)) {
		ret = rconnect(ps->sfd, addr, len);
		if (ret && errno != EINPROGRESS && addr)
			ret = connect_kernel_instead(ps, addr, len);
		return ret;
	}
	ret = real.connect(ps->sfd, addr, len);
	if (ps->fork == FORK_SOCKET && (!ret || errno == EINPROGRESS))
		ps->fork = FORK_ACTIVE;
	return ret;
}

/*
 * For the data calls: the fd to use (*sfd: the mapped socket, converted
 * first in fork mode, or fd itself when unmapped) and whether it is an
 * rsocket.
 */
static bool data_target(int fd, int *sfd)
{
	struct psock *ps = lookup(fd);

	if (!ps) {
		*sfd = fd;
		return false;
	}
	fork_convert_pending(ps);
	*sfd = ps->sfd;
	return is_rsocket(ps);
}

PRELOAD_EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	int sfd;

	return data_target(fd, &sfd) ? rread(sfd, buf, count) : real.read(sfd, buf, count);
}

PRELOAD_EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	int sfd;

	return data_target(fd, &sfd) ? rreadv(sfd, iov, iovcnt) : real.readv(sfd, iov, iovcnt);
}

PRELOAD_EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	int sfd;

	return data_target(fd, &sfd) ? rrecv(sfd, buf, len, flags) :
					    real.recv(sfd, buf, len, flags);
}

PRELOAD_EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
				struct sockaddr *addr, socklen_t *addrlen)
{
	int sfd;

	return data_target(fd, &sfd) ? rrecvfrom(sfd, buf, len, flags, addr, addrlen) :
					    real.recvfrom(sfd, buf, len, flags, addr, addrlen);
}

PRELOAD_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	int sfd;

	return data_target(fd, &sfd) ? rrecvmsg(sfd, msg, flags) : real.recvmsg(sfd, msg, flags);
}

PRELOAD_EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	int sfd;

	return data_target(fd, &sfd) ? rwrite(sfd, buf, count) : real.write(sfd, buf, count);
}

PRELOAD_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	int sfd;

	return data_target(fd, &sfd) ? rwritev(sfd, iov, iovcnt) : real.writev(sfd, iov, iovcnt);
}

PRELOAD_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	int sfd;

	return data_target(fd, &sfd) ? rsend(sfd, buf, len, flags) :
					    real.send(sfd, buf, len, flags);
}

PRELOAD_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
			      const struct sockaddr *addr, socklen_t addrlen)
{
	int sfd;

	return data_target(fd, &sfd) ? rsendto(sfd, buf, len, flags, addr, addrlen) :
					    real.sendto(sfd, buf, len, flags, addr, addrlen);
}

PRELOAD_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	int sfd;

	return data_target(fd, &sfd) ? rsendmsg(sfd, msg, flags) : real.sendmsg(sfd, msg, flags);
}

PRELOAD_EXPORT int shutdown(int fd, int how)
{
	struct psock *ps = lookup(fd);

	if (!ps)
		return real.shutdown(fd, how);
	return is_rsocket(ps) ? rshutdown(ps->sfd, how) : real.shutdown(ps->sfd, how);
}

PRELOAD_EXPORT int getsockopt(int fd, int level, int name, void *value, socklen_t *len)
{
	struct psock *ps = lookup(fd);

	if (!ps)
		return real.getsockopt(fd, level, name, value, len);
	return any_getsockopt(ps->sfd, is_rsocket(ps), level, name, value, len);
}

PRELOAD_EXPORT int setsockopt(int fd, int level, int name, const void *value, socklen_t len)
{
	struct psock *ps = lookup(fd);

	if (!ps)
		return real.setsockopt(fd, level, name, value, len);
	return any_setsockopt(ps->sfd, is_rsocket(ps), level, name, value, len);
}

PRELOAD_EXPORT int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct psock *ps = lookup(fd);

	if (!ps)
		return real.getpeername(fd, addr, len);
	return is_rsocket(ps) ? rgetpeername(ps->sfd, addr, len) :
				real.getpeername(ps->sfd, addr, len);
}

PRELOAD_EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct psock *ps = lookup(fd);

	if (!ps)
		return real.getsockname(fd, addr, len);
	return is_rsocket(ps) ? rgetsockname(ps->sfd, addr, len) :
				real.getsockname(ps->sfd, addr, len);
}

PRELOAD_EXPORT int close(int fd)
{
	struct psock *ps = lookup(fd);

	if (!ps)
		return real.close(fd);
	fdmap_clear(fd);
	real.close(fd);
	return psock_put(ps);
}

/* NEWFD, already a copy of a placeholder, becomes another name of PS. */
static int share_psock(int newfd, struct psock *ps)
{
	atomic_fetch_add(&ps->refs, 1);
	return map_new(newfd, ps);
}

/*
 * Unlike upstream, duplicates share one record with a reference count: the
 * socket closes with its last fd, and a fork-pending socket need not be
 * converted first.
 */
PRELOAD_EXPORT int dup2(int oldfd, int newfd)
{
	struct psock *old_ps, *new_ps;
	int ret;

	old_ps = lookup(oldfd);
	new_ps = fdmap_get(newfd);
	if ((!old_ps && !new_ps) || oldfd == newfd)
		return real.dup2(oldfd, newfd);
	ret = real.dup2(oldfd, newfd);
	if (ret < 0)
		return ret;
	if (new_ps) {
		fdmap_clear(newfd);
		psock_put(new_ps);
	}
	return old_ps ? share_psock(newfd, old_ps) : newfd;
}

PRELOAD_EXPORT int dup(int oldfd)
{
	struct psock *ps;
	int fd;

	ps = lookup(oldfd);
	fd = real.dup(oldfd);
	if (!ps || fd < 0)
		return fd;
	return share_psock(fd, ps);
}

/*
 * glibc itself fetches fcntl's optional argument as a pointer whatever the
 * command, which carries ints as well on every Linux ABI.  On a mapped fd
 * the fd-level commands act on the placeholder (upstream sends them to
 * rfcntl, which knows only F_GETFL/F_SETFL in v44); the rest go to the
 * socket.
 */
static int fcntl_on(int (*libc_fcntl)(int, int, ...), int fd, int cmd, void *arg)
{
	struct psock *ps;
	int newfd;

	preload_init();
	ps = fdmap_get(fd);
	if (!ps)
		return libc_fcntl(fd, cmd, arg);
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		newfd = libc_fcntl(fd, cmd, arg);
		return newfd < 0 ? newfd : share_psock(newfd, ps);
	case F_GETFD:
	case F_SETFD:
		return libc_fcntl(fd, cmd, arg);
	default:
		return is_rsocket(ps) ? rfcntl(ps->sfd, cmd, arg) : libc_fcntl(ps->sfd, cmd, arg);
	}
}

PRELOAD_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_on(real.fcntl, fd, cmd, arg);
}

PRELOAD_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_on(real.fcntl64, fd, cmd, arg);
}
