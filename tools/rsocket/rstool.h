/* SPDX-License-Identifier: MIT */
/* What rstream, riostream, rcopy and udpong share: the socket calls of
 * either kind (rsockets, or the kernel's with -T s), the -T modes, the
 * results table and its sizes, the verify pattern.  Helpers returning
 * int give 0, or -1 having printed why on stderr. */
#ifndef OPENVERBS_RSTOOL_H
#define OPENVERBS_RSTOOL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* One table of socket calls: the r* ones or the kernel's. */
struct rs_calls {
	int (*socket)(int domain, int type, int protocol);
	int (*bind)(int fd, const struct sockaddr *addr, socklen_t len);
	int (*listen)(int fd, int backlog);
	int (*accept)(int fd, struct sockaddr *addr, socklen_t *len);
	int (*connect)(int fd, const struct sockaddr *addr, socklen_t len);
	int (*shutdown)(int fd, int how);
	int (*close)(int fd);
	ssize_t (*send)(int fd, const void *buf, size_t len, int flags);
	ssize_t (*recv)(int fd, void *buf, size_t len, int flags);
	ssize_t (*sendto)(int fd, const void *buf, size_t len, int flags,
			  const struct sockaddr *to, socklen_t tolen);
	ssize_t (*recvfrom)(int fd, void *buf, size_t len, int flags,
			    struct sockaddr *from, socklen_t *fromlen);
	int (*setsockopt)(int fd, int level, int name, const void *val, socklen_t len);
	int (*getsockopt)(int fd, int level, int name, void *val, socklen_t *len);
	int (*fcntl)(int fd, int cmd, ...);
	int (*poll)(struct pollfd *fds, nfds_t nfds, int timeout);
};
extern const struct rs_calls rs_rsocket_calls, rs_kernel_calls;

/* How a program waits: -T b blocks in the calls, -T n spins on EAGAIN
 * (the default), -T a polls before each call. */
enum rs_wait { RS_NONBLOCKING, RS_BLOCKING, RS_ASYNC };

struct rs_conn {
	const struct rs_calls *calls;
	int fd;
	enum rs_wait wait;
	int verify;
	uint8_t send_pattern, recv_pattern;  /* next byte of -T v's counters */
};

/* -T b|n|a and their long names into WAIT; 0 if OPTION is one of them. */
int rs_wait_option(const char *option, enum rs_wait *wait);

/* Sends or receives exactly LEN bytes on a stream, as the wait mode says;
 * with verify, what is sent is the running byte counter and what is
 * received is checked against the peer's. */
int rs_send_all(struct rs_conn *conn, void *buf, size_t len);
int rs_recv_all(struct rs_conn *conn, void *buf, size_t len);

/* Waits (poll, or spinning for RS_NONBLOCKING) until FD shows EVENTS or
 * TIMEOUT_MS passes (-1: forever); 1 when ready, 0 on timeout. */
int rs_wait_for(const struct rs_calls *calls, int fd, short events, int timeout_ms,
		enum rs_wait wait);

/* Makes FD non-blocking unless WAIT is RS_BLOCKING. */
int rs_apply_wait(const struct rs_calls *calls, int fd, enum rs_wait wait);

/* A size with upstream's suffixes (powers of 1024): 4k, 1.1k, 125m. */
void rs_format_size(char *out, size_t outlen, long long value);
/* A count with the same suffixes, for powers of 1000: 1k, 100k. */
void rs_format_count(char *out, size_t outlen, long long value);

/* A non-negative option value, at least MIN; -1 (having said so) if not. */
int rs_number(const char *text, long long min, long long max, long long *out);

/* Microseconds on the monotonic clock. */
long long rs_now_us(void);

/* The results table: the stream programs' (with iters) and udpong's. */
void rs_print_stream_header(void);
void rs_print_stream_row(const char *name, long long size, long long xfers,
			 long long iters, long long bytes, long long usec);
void rs_print_dgram_header(void);
void rs_print_dgram_row(const char *name, long long size, long long xfers,
			long long bytes, long long usec);

/* The series of tests the stream programs run without -I/-C/-S. */
struct rs_test { const char *name; long long size, xfers, iters; };
extern const struct rs_test rs_stream_series[];
extern const size_t rs_stream_series_len;

/* getaddrinfo or (RESOLVE) rdma_getaddrinfo of HOST:PORT into OUT,
 * FORMAT being -f's name|ip|ipv6|gid (NULL: name). */
int rs_resolve(const char *host, const char *port, const char *format, int passive,
	       int resolve, int socktype, struct sockaddr_storage *out, socklen_t *outlen);

#endif
