// SPDX-License-Identifier: MIT
#include "rstool.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

const struct rs_calls rs_rsocket_calls = {
	.socket = rsocket, .bind = rbind, .listen = rlisten, .accept = raccept,
	.connect = rconnect, .shutdown = rshutdown, .close = rclose,
	.send = rsend, .recv = rrecv, .sendto = rsendto, .recvfrom = rrecvfrom,
	.setsockopt = rsetsockopt, .getsockopt = rgetsockopt, .fcntl = rfcntl,
	.poll = rpoll,
};

const struct rs_calls rs_kernel_calls = {
	.socket = socket, .bind = bind, .listen = listen, .accept = accept,
	.connect = connect, .shutdown = shutdown, .close = close,
	.send = send, .recv = recv, .sendto = sendto, .recvfrom = recvfrom,
	.setsockopt = setsockopt, .getsockopt = getsockopt, .fcntl = fcntl,
	.poll = poll,
};

int rs_wait_option(const char *option, enum rs_wait *wait)
{
	if (!strcmp(option, "b") || !strcmp(option, "blocking"))
		*wait = RS_BLOCKING;
	else if (!strcmp(option, "n") || !strcmp(option, "nonblocking"))
		*wait = RS_NONBLOCKING;
	else if (!strcmp(option, "a") || !strcmp(option, "async"))
		*wait = RS_ASYNC;
	else
		return -1;
	return 0;
}

int rs_apply_wait(const struct rs_calls *calls, int fd, enum rs_wait wait)
{
	if (wait == RS_BLOCKING)
		return 0;
	if (calls->fcntl(fd, F_SETFL, O_NONBLOCK)) {
		perror("fcntl");
		return -1;
	}
	return 0;
}

long long rs_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int rs_wait_for(const struct rs_calls *calls, int fd, short events, int timeout_ms,
		enum rs_wait wait)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	long long deadline = timeout_ms < 0 ? -1 : rs_now_us() + timeout_ms * 1000LL;
	int ret;

	do {
		/* -T n's way of waiting is asking again */
		int slice = wait == RS_NONBLOCKING ? 0 : timeout_ms;

		ret = calls->poll(&pfd, 1, slice);
		if (ret < 0 && errno != EINTR) {
			perror("poll");
			return -1;
		}
		if (ret > 0) {
			if (pfd.revents & (events | POLLHUP | POLLERR))
				return 1;
		}
	} while (deadline < 0 || rs_now_us() < deadline);
	return 0;
}

/* The calls the stream programs move data with: a non-blocking call that
 * would block waits the way the mode says, then tries again. */
static int stream_wait(struct rs_conn *conn, short events)
{
	if (conn->wait == RS_NONBLOCKING)
		return 0;
	return rs_wait_for(conn->calls, conn->fd, events, -1, conn->wait) < 0 ? -1 : 0;
}

int rs_send_all(struct rs_conn *conn, void *buf, size_t len)
{
	uint8_t *bytes = buf;
	size_t done = 0;

	if (conn->verify)
		for (size_t i = 0; i < len; i++)
			bytes[i] = conn->send_pattern++;
	while (done < len) {
		ssize_t ret;

		if (conn->wait == RS_ASYNC && stream_wait(conn, POLLOUT))
			return -1;
		ret = conn->calls->send(conn->fd, bytes + done, len - done,
					conn->wait == RS_BLOCKING ? 0 : MSG_DONTWAIT);
		if (ret > 0) {
			done += ret;
		} else if (ret < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			continue;
		} else {
			perror("rsend");
			return -1;
		}
	}
	return 0;
}

int rs_recv_all(struct rs_conn *conn, void *buf, size_t len)
{
	uint8_t *bytes = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t ret;

		if (conn->wait == RS_ASYNC && stream_wait(conn, POLLIN))
			return -1;
		ret = conn->calls->recv(conn->fd, bytes + done, len - done,
					conn->wait == RS_BLOCKING ? 0 : MSG_DONTWAIT);
		if (ret > 0) {
			done += ret;
		} else if (ret < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			continue;
		} else {
			if (ret == 0)
				fprintf(stderr, "rrecv: the peer closed the connection\n");
			else
				perror("rrecv");
			return -1;
		}
	}
	if (conn->verify) {
		for (size_t i = 0; i < len; i++, conn->recv_pattern++) {
			if (bytes[i] != conn->recv_pattern) {
				fprintf(stderr, "data verification failed: byte %zu is 0x%02x, expected 0x%02x\n",
					i, bytes[i], conn->recv_pattern);
				return -1;
			}
		}
	}
	return 0;
}

static void format_scaled(char *out, size_t outlen, long long value, long long base)
{
	static const char suffixes[] = { 'g', 'm', 'k' };

	for (size_t i = 0; i < sizeof(suffixes); i++) {
		long long unit = base;

		for (size_t power = i; power < sizeof(suffixes) - 1; power++)
			unit *= base;
		if (value < unit)
			continue;
		/* upstream truncates, and shows a tenth only below 10 units */
		if (value % unit && value < 10 * unit)
			snprintf(out, outlen, "%lld.%lld%c", value / unit,
				 value % unit * 10 / unit, suffixes[i]);
		else
			snprintf(out, outlen, "%lld%c", value / unit, suffixes[i]);
		return;
	}
	snprintf(out, outlen, "%lld", value);
}

void rs_format_size(char *out, size_t outlen, long long value)
{
	format_scaled(out, outlen, value, 1024);
}

void rs_format_count(char *out, size_t outlen, long long value)
{
	format_scaled(out, outlen, value, 1000);
}

int rs_number(const char *text, long long min, long long max, long long *out)
{
	char *end;
	long long value;

	errno = 0;
	value = strtoll(text, &end, 0);
	if (errno || end == text || *end || value < min || value > max) {
		fprintf(stderr, "invalid number: '%s' (from %lld to %lld)\n", text, min, max);
		return -1;
	}
	*out = value;
	return 0;
}

static void print_rates(long long bytes, long long xfers, long long usec)
{
	double seconds = usec / 1000000.0;

	if (usec <= 0)
		usec = 1;
	printf("%8.2fs%10.2f%11.2f\n", seconds, bytes * 8.0 / usec / 1000.0,
	       (double)usec / (xfers > 0 ? xfers : 1));
}

void rs_print_stream_header(void)
{
	printf("name      bytes   xfers   iters   total       time     Gb/sec    usec/xfer\n");
}

void rs_print_stream_row(const char *name, long long size, long long xfers,
			 long long iters, long long bytes, long long usec)
{
	char size_text[16], xfers_text[16], iters_text[16], total_text[16];

	rs_format_size(size_text, sizeof(size_text), size);
	rs_format_count(xfers_text, sizeof(xfers_text), xfers);
	rs_format_count(iters_text, sizeof(iters_text), iters);
	rs_format_size(total_text, sizeof(total_text), bytes);
	printf("%-10s%-8s%-8s%-8s%-8s", name, size_text, xfers_text, iters_text, total_text);
	/* usec/xfer counts each way of a round trip */
	print_rates(bytes, 2 * xfers * iters, usec);
	fflush(stdout);
}

void rs_print_dgram_header(void)
{
	printf("name      bytes   xfers   total       time     Gb/sec    usec/xfer\n");
}

void rs_print_dgram_row(const char *name, long long size, long long xfers,
			long long bytes, long long usec)
{
	char size_text[16], xfers_text[16], total_text[16];

	rs_format_size(size_text, sizeof(size_text), size);
	rs_format_count(xfers_text, sizeof(xfers_text), xfers);
	rs_format_size(total_text, sizeof(total_text), bytes);
	printf("%-10s%-8s%-8s%-8s", name, size_text, xfers_text, total_text);
	print_rates(bytes, xfers, usec);
	fflush(stdout);
}

const struct rs_test rs_stream_series[] = {
	{ "64_lat", 64, 1, 100000 },
	{ "4k_lat", 4096, 1, 10000 },
	{ "64k_lat", 65536, 1, 1000 },
	{ "1m_lat", 1 << 20, 1, 100 },
	{ "64_bw", 64, 100000, 1 },
	{ "4k_bw", 4096, 10000, 1 },
	{ "64k_bw", 65536, 1000, 1 },
	{ "1m_bw", 1 << 20, 100, 1 },
};
const size_t rs_stream_series_len = sizeof(rs_stream_series) / sizeof(rs_stream_series[0]);

int rs_resolve(const char *host, const char *port, const char *format, int passive,
	       int resolve, int socktype, struct sockaddr_storage *out, socklen_t *outlen)
{
	int family = AF_UNSPEC, numeric = 0;

	if (format && !strcmp(format, "ip")) {
		family = AF_INET;
		numeric = 1;
	} else if (format && !strcmp(format, "ipv6")) {
		family = AF_INET6;
		numeric = 1;
	} else if (format && !strcmp(format, "gid")) {
		family = AF_IB;
		numeric = 1;
		resolve = 1;
	} else if (format && strcmp(format, "name")) {
		fprintf(stderr, "unknown address format '%s' (name, ip, ipv6 or gid)\n", format);
		return -1;
	}
	if (resolve) {
		struct rdma_addrinfo hints = {
			.ai_flags = (passive ? RAI_PASSIVE : 0) | (numeric ? RAI_NUMERICHOST : 0),
			.ai_family = family,
			.ai_port_space = socktype == SOCK_DGRAM ? RDMA_PS_UDP : RDMA_PS_TCP,
		};
		struct rdma_addrinfo *res;
		struct sockaddr *addr;
		socklen_t len;

		if (rdma_getaddrinfo(host, port, &hints, &res)) {
			perror("rdma_getaddrinfo");
			return -1;
		}
		addr = passive ? res->ai_src_addr : res->ai_dst_addr;
		len = passive ? res->ai_src_len : res->ai_dst_len;
		if (!addr || len > sizeof(*out)) {
			rdma_freeaddrinfo(res);
			fprintf(stderr, "rdma_getaddrinfo: no usable address for %s\n", host ? host : "(any)");
			return -1;
		}
		memcpy(out, addr, len);
		*outlen = len;
		rdma_freeaddrinfo(res);
	} else {
		struct addrinfo hints = {
			.ai_flags = (passive ? AI_PASSIVE : 0) | (numeric ? AI_NUMERICHOST : 0),
			.ai_family = family,
			.ai_socktype = socktype,
		};
		struct addrinfo *res;
		int err = getaddrinfo(host, port, &hints, &res);

		if (err) {
			fprintf(stderr, "getaddrinfo: %s\n", gai_strerror(err));
			return -1;
		}
		if (res->ai_addrlen > sizeof(*out)) {
			freeaddrinfo(res);
			fprintf(stderr, "getaddrinfo: address too long\n");
			return -1;
		}
		memcpy(out, res->ai_addr, res->ai_addrlen);
		*outlen = res->ai_addrlen;
		freeaddrinfo(res);
	}
	return 0;
}
