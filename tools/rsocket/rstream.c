// SPDX-License-Identifier: MIT
/* rstream: a stream ping-pong over rsockets (or, with -T s, the kernel's
 * TCP).  Once connected the client sends 16 bytes and the server returns
 * 16 (the sync); then, each iteration, the client sends COUNT messages of
 * SIZE bytes and the server, having received them all, sends COUNT back.
 * Both print the results table.  -T v fills what is sent with a running
 * byte counter (each direction its own, from 0 at the sync) and checks
 * what arrives against it: upstream's does the same, so either program
 * verifies the other. */
#include <stdio.h>
#include <stdlib.h>

#include "rstool.h"
#include "rsstream.h"

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
	fprintf(stderr, "\t[-k keepalive_time]\n");
	fprintf(stderr, "\t[-T test_option]\n");
	fprintf(stderr, "\t    s|sockets - use standard tcp/ip sockets\n");
	fprintf(stderr, "\t    a|async - asynchronous operation (use poll)\n");
	fprintf(stderr, "\t    b|blocking - use blocking calls\n");
	fprintf(stderr, "\t    f|fork - fork server processing\n");
	fprintf(stderr, "\t    n|nonblocking - use nonblocking calls\n");
	fprintf(stderr, "\t    r|resolve - use rdma cm to resolve address\n");
	fprintf(stderr, "\t    v|verify - verify data\n");
	exit(1);
}

/* One iteration's exchange: the side that receives first is the server. */
static int exchange(struct rs_conn *conn, char *buf, long long size, long long count,
		    int server)
{
	for (int phase = 0; phase < 2; phase++) {
		int receiving = (phase == 0) == server;

		for (long long i = 0; i < count; i++)
			if (receiving ? rs_recv_all(conn, buf, size) : rs_send_all(conn, buf, size))
				return -1;
	}
	return 0;
}

static int run_test(struct rs_conn *conn, const struct rs_stream_opts *opt, const char *name,
		    long long size, long long count, long long iters)
{
	char *buf = calloc(1, size > RS_SYNC_SIZE ? size : RS_SYNC_SIZE);
	long long start;
	int ret = -1;

	if (!buf) {
		perror("malloc");
		return -1;
	}
	if (rs_stream_sync(conn, buf, opt->server))
		goto out;
	start = rs_now_us();
	for (long long i = 0; i < iters; i++)
		if (exchange(conn, buf, size, count, opt->server))
			goto out;
	rs_print_stream_row(name, size, count, iters, 2 * size * count * iters,
			    rs_now_us() - start);
	ret = 0;
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
	struct rs_conn conn = { .fd = -1 };
	int ret;

	rs_stream_defaults(&opt, 1000);
	if (rs_stream_parse(&opt, argc, argv, "s:b:f:B:i:I:C:S:p:k:T:", 1))
		usage(argv[0]);
	conn.calls = opt.kernel ? &rs_kernel_calls : &rs_rsocket_calls;
	conn.wait = opt.wait;
	conn.verify = opt.verify;
	if (opt.server)
		ret = rs_stream_serve(&opt, &conn, run_tests);
	else
		ret = rs_stream_connect(&opt, &conn) || run_tests(&conn, &opt);
	if (conn.fd >= 0) {
		conn.calls->shutdown(conn.fd, SHUT_RDWR);
		conn.calls->close(conn.fd);
	}
	return ret ? 1 : 0;
}
