/* SPDX-License-Identifier: MIT */
/*
 * librspreload: what its files share.  The fd an application sees for a
 * converted socket is a placeholder (/dev/null, so the kernel cannot hand
 * the number out again); the fd map (fdmap.c) ties it to a struct psock,
 * which says what really carries the socket: an rsocket number or a kernel
 * socket fd.  dup2()/dup() give one psock several fds (a reference each).
 * The module reaches librdmacm only through <rdma/rsocket.h> and libc only
 * through the pointers in `real` (libc.c), so it runs on any librdmacm 1.
 */
#ifndef RSPRELOAD_H
#define RSPRELOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/select.h>
#include <sys/uio.h>
#include <poll.h>

#define PRELOAD_MAX_FD 65535	/* as upstream's map: 64 blocks of 1024 */

enum psock_kind {
	PSOCK_RSOCKET,		/* sfd is an rsocket number */
	PSOCK_KERNEL,		/* sfd is a kernel socket (fork mode, until converted) */
};

/* Fork mode (PRELOAD.md 5): kernel TCP now, an rsocket after the fork. */
enum psock_fork {
	FORK_NONE,
	FORK_SOCKET,		/* created, neither connected nor listening */
	FORK_LISTEN,
	FORK_ACTIVE,		/* connected; converts on its first data call */
	FORK_PASSIVE,		/* accepted; converts on its first data call */
};

struct psock {
	enum psock_kind kind;
	enum psock_fork fork;
	int sfd;
	int type;		/* SOCK_STREAM/SOCK_DGRAM, for a kernel fallback */
	atomic_int refs;	/* application fds mapped to it */
};

/* libc.c: the real functions, found with dlsym(RTLD_NEXT) once. */
struct real_libc {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*accept)(int, struct sockaddr *, socklen_t *);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
	int (*shutdown)(int, int);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*fcntl)(int, int, ...);
	int (*fcntl64)(int, int, ...);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*close)(int);
	ssize_t (*sendfile)(int, int, off_t *, size_t);
	ssize_t (*sendfile64)(int, int, off64_t *, size_t);
};
extern struct real_libc real;

/* Process-wide settings from the environment (PRELOAD.md 2). */
struct preload_env {
	int sq_size, rq_size, inline_size;	/* 0: leave librdmacm's default */
	bool fork_mode;				/* RDMAV_FORK_SAFE non-zero */
};
extern struct preload_env preload_env;

/* Runs the one-time setup (libc pointers, environment, config file). */
void preload_init(void);
void libc_resolve(void);

/* fdmap.c */
struct psock *fdmap_get(int fd);
int fdmap_set(int fd, struct psock *ps);	/* 0 or ENOMEM (fd too big) */
void fdmap_clear(int fd);
struct psock *psock_new(enum psock_kind kind, int sfd);
int placeholder_open(void);			/* a /dev/null fd or -1 */
/* Drops one application fd's reference; the last closes sfd.  0 or -1/errno. */
int psock_put(struct psock *ps);

/* config.c: should socket(domain, type, protocol) become an rsocket? */
void config_load(const char *path);
bool config_wants(int domain, int type, int protocol);

#define PRELOAD_EXPORT __attribute__((visibility("default")))

/* preload.c helpers fork.c uses */
int rsocket_guarded(int domain, int type, int protocol);
void apply_env_options(int rs);
void copy_socket_state(int from_fd, bool from_rsocket, int to_fd, bool to_rsocket);

/* fork.c: converts a FORK_ACTIVE/FORK_PASSIVE psock; stays kernel on failure. */
void fork_convert(struct psock *ps);
static inline void fork_convert_pending(struct psock *ps)
{
	if (ps->fork == FORK_ACTIVE || ps->fork == FORK_PASSIVE)
		fork_convert(ps);
}

#endif
