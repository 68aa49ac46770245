/* SPDX-License-Identifier: MIT */
/* rstream's and riostream's common part: their options, connecting,
 * accepting, and the 16-byte sync both send before each test. */
#ifndef OPENVERBS_RSSTREAM_H
#define OPENVERBS_RSSTREAM_H

#include "rstool.h"

#define RS_SYNC_SIZE 16
#define RS_DEFAULT_PORT "7471"

struct rs_stream_opts {
	const char *dst_addr, *src_addr, *port, *format;
	int server;             /* no -s */
	int series;             /* none of -I, -C, -S given, or -S all */
	int kernel, fork_server, resolve, verify;
	int iomap;              /* riostream: RDMA_IOMAPSIZE 1 on its sockets */
	enum rs_wait wait;
	long long buffer_size, inline_size, iters, count, size, keepalive;
};

void rs_stream_defaults(struct rs_stream_opts *opt, long long count);

/* Parses ARGV by GETOPT_SPEC (a subset of rstream's); -1 for usage.
 * FULL_MODES allows rstream's -T s, f and r besides a, b, n and v. */
int rs_stream_parse(struct rs_stream_opts *opt, int argc, char **argv,
		    const char *getopt_spec, int full_modes);

/* The client's connection into CONN->fd. */
int rs_stream_connect(const struct rs_stream_opts *opt, struct rs_conn *conn);

/* Listens, accepts one connection into CONN->fd and runs RUN on it; with
 * -T f the run happens in a child. */
int rs_stream_serve(const struct rs_stream_opts *opt, struct rs_conn *conn,
		    int (*run)(struct rs_conn *conn, const struct rs_stream_opts *opt));

/* The client sends RS_SYNC_SIZE bytes, the server returns as many. */
int rs_stream_sync(struct rs_conn *conn, char *buf, int server);

#endif
