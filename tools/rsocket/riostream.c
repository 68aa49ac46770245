// SPDX-License-Identifier: MIT
/* riostream: rstream's exchange with the data placed by riowrite(3)
 * into the peer's riomap(3) buffer instead of sent.  The calls and the
 * turn markers are upstream's, observed in the guest with an LD_PRELOAD
 * logger on both ends of an upstream pair (riowrite's offset, flags and
 * bytes; -C 1 and 3, -I 2 and 3, with and without -T v):
 * - each side has one buffer of the message size, mapped at offset 0
 *   (RDMA_IOMAPSIZE 1), its last byte 0xff before any message;
 * - after the 16-byte sync (rsend/rrecv), the two sides take turns, the
 *   client first; a turn is COUNT riowrites of that whole buffer, and
 *   only the last one changes its last byte: to the turn's marker, a
 *   counter both sides keep, 0 for the first turn, one more (mod 256)
 *   for each next turn of either side.  The writes before it carry
 *   whatever the buffer holds (the marker the peer wrote last);
 * - a turn to receive waits until its buffer's last byte shows the
 *   turn's marker: RDMA writes land in order, so the whole turn is there;
 * - -T v fills all but the last byte with the running byte counter just
 *   before a turn's last write, and the receiver checks those bytes once
 *   that write has landed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rdma/rsocket.h>

#include "rstool.h"
#include "rsstream.h"

/* A buffer's last byte before any turn: not the first turn's marker. */
#define NO_MARKER 0xff

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
	long long size, count;
	volatile uint8_t *buf;          /* mapped: the peer writes into it */
	uint8_t marker;                 /* the next turn's, either side's */
};

static int write_all(struct iomap_test *t)
{
	size_t len = t->size, done = 0;

	while (done < len) {
		size_t ret;

		if (t->conn->wait == RS_ASYNC &&
		    rs_wait_for(t->conn->calls, t->conn->fd, POLLOUT, -1, RS_ASYNC) < 0)
			return -1;
		ret = riowrite(t->conn->fd, (const void *)(t->buf + done), len - done, done,
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

static int send_turn(struct iomap_test *t)
{
	size_t last = t->size - 1;

	for (long long j = 0; j + 1 < t->count; j++)
		if (write_all(t))
			return -1;
	if (t->conn->verify)
		for (size_t i = 0; i < last; i++)
			t->buf[i] = t->conn->send_pattern++;
	t->buf[last] = t->marker++;
	return write_all(t);
}

static int receive_turn(struct iomap_test *t)
{
	size_t last = t->size - 1;

	while (t->buf[last] != t->marker)
		;
	t->marker++;
	if (t->conn->verify) {
		for (size_t i = 0; i < last; i++, t->conn->recv_pattern++) {
			if (t->buf[i] != t->conn->recv_pattern) {
				fprintf(stderr, "data verification failed: byte %zu is 0x%02x, expected 0x%02x\n",
					i, t->buf[i], t->conn->recv_pattern);
				return -1;
			}
		}
	}
	return 0;
}

static int run_test(struct rs_conn *conn, const struct rs_stream_opts *opt, const char *name,
		    long long size, long long count, long long iters)
{
	struct iomap_test t = { .conn = conn, .size = size, .count = count };
	char sync[RS_SYNC_SIZE] = { 0 };
	uint8_t *buf = calloc(1, size);
	long long start;
	int ret = -1;

	if (!buf) {
		perror("malloc");
		return -1;
	}
	buf[size - 1] = NO_MARKER;
	t.buf = buf;
	if (riomap(conn->fd, buf, size, PROT_WRITE, 0, 0) == -1) {
		perror("riomap");
		goto out;
	}
	/* the sync is zeros here, not part of -T v's pattern */
	conn->verify = 0;
	ret = rs_stream_sync(conn, sync, opt->server);
	conn->verify = opt->verify;
	if (ret)
		goto unmap;
	ret = -1;
	start = rs_now_us();
	for (long long i = 0; i < iters; i++) {
		for (int phase = 0; phase < 2; phase++) {
			if ((phase == 0) == opt->server ? receive_turn(&t) : send_turn(&t))
				goto unmap;
		}
	}
	rs_print_stream_row(name, size, count, iters, 2 * size * count * iters,
			    rs_now_us() - start);
	ret = 0;
unmap:
	riounmap(conn->fd, buf, size);
out:
	free(buf);
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

	/* upstream's man page says 1; its program sends 1000 (observed) */
	rs_stream_defaults(&opt, 1000);
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
