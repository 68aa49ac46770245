// SPDX-License-Identifier: MIT
/*
 * Fork mode (PRELOAD.md 5, WIRE.md part E): a TCP connection made before a
 * fork becomes an rsocket at its first data call.  The server side opens an
 * rsocket listener on its TCP port (wildcard address), announces it with one
 * 4-byte zero word over TCP and accepts; the client peeks that word and
 * connects to the same address and port over RDMA.  Anything unexpected
 * leaves the fd on its TCP socket.
 *
 * Unlike upstream, the listener binds the accepted connection's own local
 * address, not the wildcard: that is the address the client connects to,
 * and a wildcard rdma_cm listener also listens on any iWARP device, whose
 * iw_cm takes the kernel TCP port, which the server's TCP listener holds
 * (rdma_listen fails with EADDRINUSE; seen in the test guest with siw0).
 */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/socket.h>
#include <rdma/rsocket.h>

#include "preload.h"

#define FORK_SEMAPHORE "/rsocket_fork"

/* Conversions are rare; one lock keeps two threads from converting one fd. */
static pthread_mutex_t convert_lock = PTHREAD_MUTEX_INITIALIZER;

/* The TCP socket goes; the fd's record now names rsocket RS. */
static void adopt_rsocket(struct psock *ps, int rs)
{
	apply_env_options(rs);
	copy_socket_state(ps->sfd, false, rs, true);
	real.shutdown(ps->sfd, SHUT_RDWR);
	real.close(ps->sfd);
	ps->sfd = rs;
	ps->kind = PSOCK_RSOCKET;
}

static int announce_ready(int tcp_fd)
{
	uint32_t zero = 0;

	return real.write(tcp_fd, &zero, sizeof(zero)) == sizeof(zero) ? 0 : -1;
}

/* Under the host-wide semaphore: listen, announce, accept one. */
static void convert_passive_locked(struct psock *ps, struct sockaddr_storage *addr, socklen_t len)
{
	int listener, rs, one = 1;

	listener = rsocket_guarded(addr->ss_family, SOCK_STREAM, 0);
	if (listener < 0)
		return;
	rsetsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rbind(listener, (struct sockaddr *)addr, len) || rlisten(listener, 1) ||
	    announce_ready(ps->sfd))
		goto close_listener;
	rs = raccept(listener, NULL, NULL);
	if (rs >= 0)
		adopt_rsocket(ps, rs);
close_listener:
	rclose(listener);
}

static void convert_passive(struct psock *ps)
{
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	sem_t *sem;

	if (real.getsockname(ps->sfd, (struct sockaddr *)&addr, &len))
		return;
	sem = sem_open(FORK_SEMAPHORE, O_CREAT | O_RDWR, 0770, 1);
	if (sem == SEM_FAILED)
		return;
	sem_wait(sem);
	convert_passive_locked(ps, &addr, len);
	sem_post(sem);
	sem_close(sem);
}

/* Waits (blocking, whatever the fd's mode) for the server's zero word. */
static bool peer_announced(int tcp_fd)
{
	int flags = real.fcntl(tcp_fd, F_GETFL);
	uint32_t word = 1;
	ssize_t got;

	if (flags < 0)
		return false;
	if (flags & O_NONBLOCK)
		real.fcntl(tcp_fd, F_SETFL, flags & ~O_NONBLOCK);
	got = real.recv(tcp_fd, &word, sizeof(word), MSG_PEEK);
	if (flags & O_NONBLOCK)
		real.fcntl(tcp_fd, F_SETFL, flags);
	return got == sizeof(word) && word == 0;
}

static void convert_active(struct psock *ps)
{
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	int rs;

	if (!peer_announced(ps->sfd) ||
	    real.getpeername(ps->sfd, (struct sockaddr *)&addr, &len))
		return;
	rs = rsocket_guarded(addr.ss_family, SOCK_STREAM, 0);
	if (rs < 0)
		return;
	if (rconnect(rs, (struct sockaddr *)&addr, len)) {
		rclose(rs);
		return;
	}
	adopt_rsocket(ps, rs);
}

void fork_convert(struct psock *ps)
{
	pthread_mutex_lock(&convert_lock);
	if (ps->fork == FORK_PASSIVE)
		convert_passive(ps);
	else if (ps->fork == FORK_ACTIVE)
		convert_active(ps);
	/* Converted or not, it is settled: no further attempts. */
	ps->fork = FORK_NONE;
	pthread_mutex_unlock(&convert_lock);
}
