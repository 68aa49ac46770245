// SPDX-License-Identifier: MIT
/* udpong: datagram ping-pong over rsockets (SOCK_DGRAM on UD QPs) or,
 * with -T s, the kernel's UDP.  Every datagram starts with a 16-byte
 * header, as upstream's (observed on the wire with -T s):
 *   byte 0 op, byte 2 sequence number (mod 256), bytes 4-7 a big-endian
 *   value, the rest zero.
 * The client sends op 0 then op 1, each answered by the server with the
 * same datagram (retried each second until it is); then COUNT datagrams
 * of SIZE bytes, op 2, or op 3 with -T e, which the server echoes, each
 * awaited before the next; then op 4, which the server answers with op 4
 * carrying how many data datagrams it received.  The server serves
 * clients one after another and never ends. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rstool.h"

#define DEFAULT_PORT "7174"
#define HEADER_SIZE 16
#define MAX_DATAGRAM 65536
#define CONTROL_TIMEOUT_MS 1000
#define ECHO_TIMEOUT_MS 1

enum op { OP_HELLO = 0, OP_START = 1, OP_DATA = 2, OP_DATA_ECHO = 3, OP_END = 4 };

struct header {
	uint8_t op;
	uint8_t reserved1;
	uint8_t seq;
	uint8_t reserved2;
	uint32_t value;         /* big endian */
	uint8_t reserved3[8];
};
_Static_assert(sizeof(struct header) == HEADER_SIZE, "udpong's header is 16 bytes");

struct options {
	const char *dst_addr, *src_addr, *port;
	const struct rs_calls *calls;
	enum rs_wait wait;
	int echo, series;
	long long buffer_size, count, size;
};

struct client {
	const struct options *opt;
	int fd;
	uint8_t seq;
	char *buf;
};

static void usage(const char *program)
{
	fprintf(stderr, "usage: %s\n", program);
	fprintf(stderr, "\t[-s server_address]\n");
	fprintf(stderr, "\t[-b bind_address]\n");
	fprintf(stderr, "\t[-B buffer_size]\n");
	fprintf(stderr, "\t[-C transfer_count]\n");
	fprintf(stderr, "\t[-S transfer_size]\n");
	fprintf(stderr, "\t[-p port_number]\n");
	fprintf(stderr, "\t[-T test_option]\n");
	fprintf(stderr, "\t    s|sockets - use standard tcp/ip sockets\n");
	fprintf(stderr, "\t    a|async - asynchronous operation (use poll)\n");
	fprintf(stderr, "\t    b|blocking - use blocking calls\n");
	fprintf(stderr, "\t    n|nonblocking - use nonblocking calls\n");
	fprintf(stderr, "\t    e|echo - server echoes all messages\n");
	exit(1);
}

static int open_socket(const struct options *opt, int passive)
{
	struct sockaddr_storage addr;
	socklen_t len;
	int size = opt->buffer_size;
	int fd;

	if (rs_resolve(passive ? opt->src_addr : opt->dst_addr, opt->port, NULL, passive, 0,
		       SOCK_DGRAM, &addr, &len))
		return -1;
	fd = opt->calls->socket(addr.ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	if (opt->calls->setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) ||
	    opt->calls->setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size))) {
		perror("setsockopt");
		goto fail;
	}
	if (rs_apply_wait(opt->calls, fd, opt->wait))
		goto fail;
	if (passive ? opt->calls->bind(fd, (struct sockaddr *)&addr, len)
		    : opt->calls->connect(fd, (struct sockaddr *)&addr, len)) {
		perror(passive ? "bind" : "connect");
		goto fail;
	}
	return fd;
fail:
	opt->calls->close(fd);
	return -1;
}

static int send_datagram(const struct options *opt, int fd, const void *buf, size_t len,
			 const struct sockaddr *to, socklen_t tolen)
{
	for (;;) {
		ssize_t ret = opt->calls->sendto(fd, buf, len, opt->wait == RS_BLOCKING ? 0 : MSG_DONTWAIT,
						 to, tolen);

		if (ret == (ssize_t)len)
			return 0;
		if (ret >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			perror("rsend");
			return -1;
		}
		if (opt->wait != RS_NONBLOCKING &&
		    rs_wait_for(opt->calls, fd, POLLOUT, -1, opt->wait) < 0)
			return -1;
	}
}

/* The answer to the datagram just sent (same op and sequence number),
 * within TIMEOUT_MS: 1 when it came, 0 if not. */
static int await_answer(struct client *c, const struct header *sent, size_t len, int timeout_ms)
{
	long long deadline = rs_now_us() + timeout_ms * 1000LL;

	do {
		struct header *got = (struct header *)c->buf;
		int ready = rs_wait_for(c->opt->calls, c->fd, POLLIN, timeout_ms, c->opt->wait);
		ssize_t ret;

		if (ready <= 0)
			return ready;
		ret = c->opt->calls->recv(c->fd, c->buf, len, MSG_DONTWAIT);
		if (ret < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			perror("rrecv");
			return -1;
		}
		if (ret >= HEADER_SIZE && got->op == sent->op && got->seq == sent->seq)
			return 1;
	} while (rs_now_us() < deadline);
	return 0;
}

/* Sends a datagram of LEN bytes with OP until it is answered; the answer
 * stays in c->buf. */
static int transact(struct client *c, enum op op, size_t len, int timeout_ms)
{
	struct header *out = malloc(len);
	int ret;

	if (!out) {
		perror("malloc");
		return -1;
	}
	memset(out, 0, len);
	out->op = op;
	out->seq = c->seq++;
	do {
		if (send_datagram(c->opt, c->fd, out, len, NULL, 0)) {
			ret = -1;
			break;
		}
		ret = await_answer(c, out, len, timeout_ms);
	} while (ret == 0);
	free(out);
	return ret < 0 ? -1 : 0;
}

static int run_test(struct client *c, const char *name, long long size, long long count)
{
	const struct options *opt = c->opt;
	long long start, xfers;
	struct header *data = (struct header *)c->buf;

	if (transact(c, OP_HELLO, HEADER_SIZE, CONTROL_TIMEOUT_MS) ||
	    transact(c, OP_START, HEADER_SIZE, CONTROL_TIMEOUT_MS))
		return -1;
	start = rs_now_us();
	for (long long i = 0; i < count; i++) {
		if (opt->echo) {
			if (transact(c, OP_DATA_ECHO, size, ECHO_TIMEOUT_MS))
				return -1;
			continue;
		}
		memset(data, 0, size);
		data->op = OP_DATA;
		data->seq = c->seq++;
		if (send_datagram(opt, c->fd, data, size, NULL, 0))
			return -1;
	}
	if (transact(c, OP_END, HEADER_SIZE, CONTROL_TIMEOUT_MS))
		return -1;
	/* with echo each datagram crossed twice; without, what arrived */
	xfers = opt->echo ? 2 * count : ntohl(((struct header *)c->buf)->value);
	rs_print_dgram_row(name, size, xfers, xfers * size, rs_now_us() - start);
	return 0;
}

static int client(const struct options *opt)
{
	static const struct { const char *name; long long size, count; } series[] = {
		{ "64_lat", 64, 1000 }, { "1k_lat", 1024, 1000 },
	};
	struct client c = { .opt = opt };
	int ret = 0;

	c.buf = malloc(MAX_DATAGRAM);
	if (!c.buf) {
		perror("malloc");
		return -1;
	}
	c.fd = open_socket(opt, 0);
	if (c.fd < 0) {
		free(c.buf);
		return -1;
	}
	rs_print_dgram_header();
	if (!opt->series) {
		ret = run_test(&c, "custom", opt->size, opt->count);
	} else {
		struct options echoing = *opt;

		/* the series measures round trips */
		echoing.echo = 1;
		c.opt = &echoing;
		for (size_t i = 0; !ret && i < sizeof(series) / sizeof(series[0]); i++)
			ret = run_test(&c, series[i].name, series[i].size, series[i].count);
	}
	opt->calls->close(c.fd);
	free(c.buf);
	return ret;
}

static int server(const struct options *opt)
{
	char *buf = malloc(MAX_DATAGRAM);
	uint32_t received = 0;
	int fd;

	if (!buf) {
		perror("malloc");
		return -1;
	}
	fd = open_socket(opt, 1);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	for (;;) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		struct header *msg = (struct header *)buf;
		ssize_t len;

		if (opt->wait != RS_BLOCKING &&
		    rs_wait_for(opt->calls, fd, POLLIN, -1, opt->wait) < 0)
			break;
		len = opt->calls->recvfrom(fd, buf, MAX_DATAGRAM,
					   opt->wait == RS_BLOCKING ? 0 : MSG_DONTWAIT,
					   (struct sockaddr *)&from, &fromlen);
		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			perror("rrecvfrom");
			break;
		}
		if (len < HEADER_SIZE)
			continue;
		switch (msg->op) {
		case OP_HELLO:
			received = 0;
			break;
		case OP_START:
			break;
		case OP_DATA:
			received++;
			continue;
		case OP_DATA_ECHO:
			received++;
			break;
		case OP_END:
			msg->value = htonl(received);
			received = 0;
			break;
		default:
			continue;
		}
		if (send_datagram(opt, fd, buf, len, (struct sockaddr *)&from, fromlen))
			break;
	}
	opt->calls->close(fd);
	free(buf);
	return -1;
}

int main(int argc, char **argv)
{
	struct options opt = {
		.port = DEFAULT_PORT,
		.calls = &rs_rsocket_calls,
		.wait = RS_NONBLOCKING,
		.series = 1,
		.buffer_size = 1 << 19,
		.count = 1000,
		.size = 1000,
	};
	int c;

	while ((c = getopt(argc, argv, "s:b:B:C:S:p:T:")) != -1) {
		switch (c) {
		case 's': opt.dst_addr = optarg; break;
		case 'b': opt.src_addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'B':
			if (rs_number(optarg, 1, 1LL << 31, &opt.buffer_size))
				usage(argv[0]);
			break;
		case 'C':
			if (rs_number(optarg, 1, 1LL << 40, &opt.count))
				usage(argv[0]);
			opt.series = 0;
			break;
		case 'S':
			if (rs_number(optarg, HEADER_SIZE, MAX_DATAGRAM, &opt.size))
				usage(argv[0]);
			opt.series = 0;
			break;
		case 'T':
			if (!rs_wait_option(optarg, &opt.wait))
				break;
			if (!strcmp(optarg, "s") || !strcmp(optarg, "sockets"))
				opt.calls = &rs_kernel_calls;
			else if (!strcmp(optarg, "e") || !strcmp(optarg, "echo"))
				opt.echo = 1;
			else
				usage(argv[0]);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);
	return (opt.dst_addr ? client(&opt) : server(&opt)) ? 1 : 0;
}
