// SPDX-License-Identifier: MIT
/* riostream: rstream's ping-pong with the data placed by riowrite(3)
 * into the peer's riomap(3) buffer instead of sent.  Each side maps one
 * buffer of the message size at offset 0 (RDMA_IOMAPSIZE 1), the 16-byte
 * sync goes by rsend/rrecv, and then every message is one riowrite of the
 * whole buffer whose last byte is the message's number (mod 256, counted
 * per side from 0); the receiver, which called no receive function at
 * all, spins until that byte in its mapping shows the number it expects.
 * This is what upstream's programs do (observed on their calls and their
 * buffers in the guest), so either is the other's peer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/rsocket.h>

#include "rstool.h"
#include "rsstream.h"

/* Before any message the last byte holds what no first message carries. */
#define MARKER_UNSET 0xff

static void usage(const char *program)
{
	fprintf(stderr, "usage: %s\n", program);
	fprintf(stderr, "\t[-s server_address]\n");
	fprintf(stderr, "\t[-b bind_address]\n");
	fprintf(stderr, "\t[-f address_format]\n");
	fprintf(stderr, "\t    name, ip, ipv6, or gid\n");
	fprintf(stderr, "\t[-B buffer_size]\n");
	fprintf(stderr, "\t[-i inline_size]\n");
	fprintf(stderr, "\t[-I iterations]\n");
	fprintf(stderr, "\t[-C transfer_count]\n");
	fprintf(stderr, "\t[-S transfer_size or all]\n");
	fprintf(stderr, "\t[-p port_number]\n");
	fprintf(stderr, "\t[-T test_option]\n");
	fprintf(stderr, "\t    a|async - asynchronous operation (use poll)\n");
	fprintf(stderr, "\t    b|blocking - use blocking calls\n");
	fprintf(stderr, "\t    n|nonblocking - use nonblocking calls\n");
	fprintf(stderr, "\t    v|verify - verify data\n");
	exit(1);
}

struct iomap_test {
	struct rs_conn *conn;
	long long size;
	volatile uint8_t *recv_buf;     /* mapped: the peer writes into it */
	uint8_t *send_buf;
	uint8_t sent, received;         /* message numbers, mod 256 */
};

static int send_message(struct iomap_test *t)
{
	size_t done = 0, len = t->size;

	if (t->conn->verify)
		for (size_t i = 0; i + 1 < len; i++)
			t->send_buf[i] = t->conn->send_pattern++;
	t->send_buf[len - 1] = t->sent++;
	while (done < len) {
		size_t ret;

		if (t->conn->wait == RS_ASYNC &&
		    rs_wait_for(t->conn->calls, t->conn->fd, POLLOUT, -1, RS_ASYNC) < 0)
			return -1;
		ret = riowrite(t->conn->fd, t->send_buf + done, len - done, done,
			       t->conn->wait == RS_BLOCKING ? MSG_WAITALL : MSG_DONTWAIT);
		if (ret == (size_t)-1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue;
			perror("riowrite");
			return -1;
		}
		done += ret;
	}
	return 0;
}

static int receive_message(struct iomap_test *t)
{
	size_t last = t->size - 1;

	while (t->recv_buf[last] != t->received)
		;
	t->received++;
	if (t->conn->verify) {
		for (size_t i = 0; i < last; i++, t->conn->recv_pattern++) {
			if (t->recv_buf[i] != t->conn->recv_pattern) {
				fprintf(stderr, "data verification failed: byte %zu is 0x%02x, expected 0x%02x\n",
					i, t->recv_buf[i], t->conn->recv_pattern);
				return -1;
			}
		}
	}
	return 0;
}

static int run_test(struct rs_conn *conn, const struct rs_stream_opts *opt, const char *name,
		    long long size, long long count, long long iters)
{
	struct iomap_test t = { .conn = conn, .size = size };
	char sync[RS_SYNC_SIZE] = { 0 };
	uint8_t *recv_buf = calloc(1, size), *send_buf = calloc(1, size);
	long long start;
	int ret = -1;

	if (!recv_buf || !send_buf) {
		perror("malloc");
		goto out;
	}
	recv_buf[size - 1] = MARKER_UNSET;
	t.recv_buf = recv_buf;
	t.send_buf = send_buf;
	if (riomap(conn->fd, recv_buf, size, PROT_WRITE, 0, 0) == -1) {
		perror("riomap");
		goto out;
	}
	/* the sync is not part of -T v's pattern here */
	conn->verify = 0;
	ret = rs_stream_sync(conn, sync, opt->server);
	conn->verify = opt->verify;
	if (ret)
		goto unmap;
	ret = -1;
	start = rs_now_us();
	for (long long i = 0; i < iters; i++) {
		for (int phase = 0; phase < 2; phase++) {
			int receiving = (phase == 0) == opt->server;

			for (long long j = 0; j < count; j++)
				if (receiving ? receive_message(&t) : send_message(&t))
					goto unmap;
		}
	}
	rs_print_stream_row(name, size, count, iters, 2 * size * count * iters,
			    rs_now_us() - start);
	ret = 0;
unmap:
	riounmap(conn->fd, recv_buf, size);
out:
	free(recv_buf);
	free(send_buf);
	return ret;
}

static int run_tests(struct rs_conn *conn, const struct rs_stream_opts *opt)
{
	rs_print_stream_header();
	if (!opt->series)
		return run_test(conn, opt, "custom", opt->size, opt->count, opt->iters);
	for (size_t i = 0; i < rs_stream_series_len; i++) {
		const struct rs_test *t = &rs_stream_series[i];

		if (run_test(conn, opt, t->name, t->size, t->xfers, t->iters))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rs_stream_opts opt;
	struct rs_conn conn = { .fd = -1, .calls = &rs_rsocket_calls };
	int ret;

	rs_stream_defaults(&opt, 1);
	opt.iomap = 1;
	if (rs_stream_parse(&opt, argc, argv, "s:b:f:B:i:I:C:S:p:T:", 0))
		usage(argv[0]);
	conn.wait = opt.wait;
	conn.verify = opt.verify;
	if (opt.server)
		ret = rs_stream_serve(&opt, &conn, run_tests);
	else
		ret = rs_stream_connect(&opt, &conn) || run_tests(&conn, &opt);
	if (conn.fd >= 0) {
		rshutdown(conn.fd, SHUT_RDWR);
		rclose(conn.fd);
	}
	return ret ? 1 : 0;
}
