/* SPDX-License-Identifier: MIT */
/*
 * The rsocket socket layer without a kernel: the number index, the
 * configuration files, and options on a socket that never connects (its
 * number is a pipe's fd, so rfcntl has a real fd to switch).
 */
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "rsocket/rs.h"

static struct rsocket *fake_socket(int number)
{
	struct rsocket *rs = rs_alloc(NULL, SOCK_STREAM);

	ck_assert_ptr_nonnull(rs);
	rs->number = number;
	ck_assert_int_eq(rs_insert(rs), 0);
	return rs;
}

START_TEST(index_limits)
{
	struct rsocket *low = fake_socket(0), *high = fake_socket(RS_MAX_NUMBER);
	struct rsocket *rs = rs_alloc(NULL, SOCK_STREAM);

	ck_assert_ptr_eq(rs_lookup(0), low);
	ck_assert_ptr_eq(rs_lookup(RS_MAX_NUMBER), high);
	ck_assert_ptr_null(rs_lookup(1));
	ck_assert_ptr_null(rs_lookup(-1));
	ck_assert_ptr_null(rs_lookup(RS_MAX_NUMBER + 1));
	rs->number = RS_MAX_NUMBER + 1;
	ck_assert_int_eq(rs_insert(rs), ENOMEM);
	rs->number = -1;
	ck_assert_int_eq(rs_insert(rs), EBADF);
	rs->number = 0;
	ck_assert_int_eq(rs_insert(rs), EBADF);		/* taken */
	ck_assert_ptr_eq(rs_lookup(0), low);
	rs_remove(low);
	rs_remove(high);
	rs_free(low);
	rs_free(high);
	rs_free(rs);
}
END_TEST

START_TEST(index_reuse)
{
	struct rsocket *first = fake_socket(1234), *second;

	rs_remove(first);
	ck_assert_ptr_null(rs_lookup(1234));
	second = fake_socket(1234);
	ck_assert_ptr_eq(rs_lookup(1234), second);
	/* A stale socket's removal does not drop the number's new owner. */
	rs_remove(first);
	ck_assert_ptr_eq(rs_lookup(1234), second);
	rs_remove(second);
	rs_free(first);
	rs_free(second);
}
END_TEST

static void config_tree(void)
{
	ck_assert(unit_tree_make("/tmp/unit-rsocket-XXXXXX"));
}

/* unit_at()'s answer outlives its next call. */
static void config_load(struct rs_config *cfg, const char *dir, const char *keepalive)
{
	char *dir_path = strdup(unit_at(dir));

	rs_config_load(cfg, dir_path, unit_at(keepalive));
	free(dir_path);
}

static const struct rs_config config_default = {
	.mem_default = 131072, .wmem_default = 131072,
	.sqsize_default = 384, .rqsize_default = 384, .inline_default = 64,
	.iomap_size = 0, .polling_time = 10, .wake_up_interval = 5000,
	.keepalive_time = 7200,
};

static void assert_config_eq(const struct rs_config *got, const struct rs_config *want)
{
	ck_assert_uint_eq(got->mem_default, want->mem_default);
	ck_assert_uint_eq(got->wmem_default, want->wmem_default);
	ck_assert_uint_eq(got->sqsize_default, want->sqsize_default);
	ck_assert_uint_eq(got->rqsize_default, want->rqsize_default);
	ck_assert_uint_eq(got->inline_default, want->inline_default);
	ck_assert_uint_eq(got->iomap_size, want->iomap_size);
	ck_assert_uint_eq(got->polling_time, want->polling_time);
	ck_assert_int_eq(got->wake_up_interval, want->wake_up_interval);
	ck_assert_uint_eq(got->keepalive_time, want->keepalive_time);
}

START_TEST(config_defaults)
{
	struct rs_config cfg;

	config_tree();
	config_load(&cfg, "missing", "missing/keepalive");
	assert_config_eq(&cfg, &config_default);
	ck_assert(unit_tree_remove());
}
END_TEST

START_TEST(config_files)
{
	struct rs_config cfg;

	config_tree();
	unit_put("rs/mem_default", "65536\n");
	unit_put("rs/wmem_default", "32768");
	unit_put("rs/sqsize_default", "100");
	unit_put("rs/rqsize_default", "200\n");
	unit_put("rs/inline_default", "16");
	unit_put("rs/iomap_size", "64");
	unit_put("rs/polling_time", "0");
	unit_put("rs/wake_up_interval", "-1");
	unit_put("keepalive", "60\n");
	config_load(&cfg, "rs", "keepalive");
	assert_config_eq(&cfg, &(struct rs_config){
		.mem_default = 65536, .wmem_default = 32768,
		.sqsize_default = 100, .rqsize_default = 200,
		.inline_default = 16, .iomap_size = 64, .polling_time = 0,
		.wake_up_interval = -1, .keepalive_time = 60 });
	ck_assert(unit_tree_remove());
}
END_TEST

START_TEST(config_clamps)
{
	struct rs_config cfg, want;

	config_tree();
	unit_put("rs/mem_default", "0");
	unit_put("rs/wmem_default", "2047");
	unit_put("rs/iomap_size", "300");
	unit_put("rs/sqsize_default", "not a number");
	unit_put("rs/rqsize_default", "");
	unit_put("keepalive", "junk");
	config_load(&cfg, "rs", "keepalive");
	want = config_default;
	want.mem_default = 1;
	want.wmem_default = 4096;
	/* Upstream advertises at most 128 for a file value. */
	want.iomap_size = 128;
	assert_config_eq(&cfg, &want);
	ck_assert(unit_tree_remove());
}
END_TEST

/* A stream socket that never connects, on a pipe's read end. */
static int opts_number = -1;
static int opts_pipe[2];

static void opts_setup(void)
{
	rs_config_load(&rs_config, "/nonexistent", "/nonexistent");
	ck_assert_int_eq(pipe2(opts_pipe, O_CLOEXEC), 0);
	opts_number = fake_socket(opts_pipe[0])->number;
}

static void opts_teardown(void)
{
	struct rsocket *rs = rs_lookup(opts_number);

	rs_remove(rs);
	rs_free(rs);
	close(opts_pipe[0]);
	close(opts_pipe[1]);
}

static int get_int(int level, int optname)
{
	socklen_t len = sizeof(int);
	int value = -12345;

	ck_assert_int_eq(rgetsockopt(opts_number, level, optname, &value, &len), 0);
	ck_assert_uint_eq(len, sizeof(int));
	return value;
}

static void set_int(int level, int optname, int value)
{
	ck_assert_int_eq(rsetsockopt(opts_number, level, optname, &value, sizeof(value)), 0);
}

START_TEST(options_socket_level)
{
	struct linger linger = { .l_onoff = 0, .l_linger = 5 };
	socklen_t len = sizeof(linger);

	ck_assert_int_eq(get_int(SOL_SOCKET, SO_RCVBUF), 131072);
	set_int(SOL_SOCKET, SO_RCVBUF, 4096);
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_RCVBUF), 8192);
	set_int(SOL_SOCKET, SO_SNDBUF, 1000);
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_SNDBUF), 4096);	/* below 2048 */
	set_int(SOL_SOCKET, SO_SNDBUF, 65536);
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_SNDBUF), 131072);

	/* Stored inverted: on until switched off. */
	ck_assert_int_eq(rgetsockopt(opts_number, SOL_SOCKET, SO_LINGER, &linger, &len), 0);
	ck_assert_int_eq(linger.l_onoff, 1);
	linger.l_onoff = 0;
	ck_assert_int_eq(rsetsockopt(opts_number, SOL_SOCKET, SO_LINGER, &linger, sizeof(linger)), 0);
	ck_assert_int_eq(rgetsockopt(opts_number, SOL_SOCKET, SO_LINGER, &linger, &len), 0);
	ck_assert_int_eq(linger.l_onoff, 0);
	ck_assert_int_eq(linger.l_linger, 0);

	set_int(SOL_SOCKET, SO_OOBINLINE, 1);
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_OOBINLINE), 1);
	set_int(SOL_SOCKET, SO_OOBINLINE, 0);
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_OOBINLINE), 0);

	rs_lookup(opts_number)->err = ECONNREFUSED;
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_ERROR), ECONNREFUSED);
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_ERROR), 0);	/* read clears it */

	/* Sizes stay once the buffers exist. */
	rs_lookup(opts_number)->sizes_fixed = true;
	set_int(SOL_SOCKET, SO_RCVBUF, 1 << 20);
	ck_assert_int_eq(get_int(SOL_SOCKET, SO_RCVBUF), 8192);
}
END_TEST

START_TEST(options_tcp_level)
{
	int value = 0, count = 7;
	socklen_t len = 1;

	ck_assert_int_eq(get_int(IPPROTO_TCP, TCP_NODELAY), 0);
	set_int(IPPROTO_TCP, TCP_NODELAY, 1);
	ck_assert_int_eq(get_int(IPPROTO_TCP, TCP_NODELAY), 1);
	set_int(IPPROTO_TCP, TCP_KEEPIDLE, 30);
	ck_assert_int_eq(get_int(IPPROTO_TCP, TCP_KEEPIDLE), 30);
	ck_assert_int_eq(rsetsockopt(opts_number, IPPROTO_TCP, TCP_KEEPIDLE, &value, sizeof(value)), -1);
	ck_assert_int_eq(errno, EINVAL);
	set_int(IPPROTO_TCP, TCP_MAXSEG, 1000);
	ck_assert_int_eq(get_int(IPPROTO_TCP, TCP_MAXSEG), 2048);	/* no route */
	/* Upstream answers 1 and leaves optlen alone. */
	len = sizeof(int) + 4;
	ck_assert_int_eq(rgetsockopt(opts_number, IPPROTO_TCP, TCP_KEEPCNT, &count, &len), 0);
	ck_assert_int_eq(count, 1);
	ck_assert_uint_eq(len, sizeof(int) + 4);
}
END_TEST

START_TEST(options_rdma_level)
{
	struct ibv_path_data paths[2] = { { .flags = 1 }, { .flags = 2 } }, got[3];
	socklen_t len = sizeof(got);
	uint32_t big = 100000;

	ck_assert_int_eq(get_int(SOL_RDMA, RDMA_SQSIZE), 384);
	ck_assert_int_eq(rsetsockopt(opts_number, SOL_RDMA, RDMA_SQSIZE, &big, sizeof(big)), 0);
	ck_assert_int_eq(get_int(SOL_RDMA, RDMA_SQSIZE), 65534);
	set_int(SOL_RDMA, RDMA_RQSIZE, 64);
	ck_assert_int_eq(get_int(SOL_RDMA, RDMA_RQSIZE), 64);
	set_int(SOL_RDMA, RDMA_INLINE, 128);
	ck_assert_int_eq(get_int(SOL_RDMA, RDMA_INLINE), 128);
	set_int(SOL_RDMA, RDMA_IOMAPSIZE, 300);
	ck_assert_int_eq(get_int(SOL_RDMA, RDMA_IOMAPSIZE), 256);	/* through the scale */
	set_int(SOL_RDMA, RDMA_IOMAPSIZE, 100);
	ck_assert_int_eq(get_int(SOL_RDMA, RDMA_IOMAPSIZE), 100);

	ck_assert_int_eq(rsetsockopt(opts_number, SOL_RDMA, RDMA_ROUTE, paths, sizeof(paths)), 0);
	ck_assert_int_eq(rgetsockopt(opts_number, SOL_RDMA, RDMA_ROUTE, got, &len), 0);
	ck_assert_uint_eq(len, sizeof(paths));
	ck_assert_mem_eq(got, paths, sizeof(paths));
	len = sizeof(got[0]) - 1;
	ck_assert_int_eq(rgetsockopt(opts_number, SOL_RDMA, RDMA_ROUTE, got, &len), -1);
	ck_assert_int_eq(errno, EINVAL);

	/* Only before connecting. */
	rs_lookup(opts_number)->state = RS_CONNECTING;
	ck_assert_int_eq(rsetsockopt(opts_number, SOL_RDMA, RDMA_RQSIZE, &big, sizeof(big)), -1);
	ck_assert_int_eq(errno, EINVAL);
	rs_lookup(opts_number)->state = RS_INIT;
}
END_TEST

START_TEST(options_bad)
{
	int value = 1;
	socklen_t len = sizeof(value);

	ck_assert_int_eq(rsetsockopt(opts_number, SOL_SOCKET, SO_BROADCAST, &value, len), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rsetsockopt(opts_number, 12345, 1, &value, len), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rsetsockopt(opts_number, SOL_SOCKET, 99, &value, len), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rgetsockopt(opts_number, IPPROTO_TCP, 99, &value, &len), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	/* Upstream's answer for a socket that does not listen. */
	ck_assert_int_eq(raccept(opts_number, NULL, NULL), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(rgetsockopt(opts_number, SOL_RDMA, 99, &value, &len), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rsetsockopt(opts_number, SOL_SOCKET, SO_RCVBUF, NULL, len), -1);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(rsetsockopt(opts_number, SOL_SOCKET, SO_RCVBUF, &value, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rgetsockopt(opts_number, SOL_SOCKET, SO_RCVBUF, &value, NULL), -1);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(rsetsockopt(opts_number + 1, SOL_SOCKET, SO_RCVBUF, &value, len), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(rgetsockopt(-1, SOL_SOCKET, SO_RCVBUF, &value, &len), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(rfcntl(opts_number + 1, F_GETFL), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(rfcntl(opts_number, F_DUPFD, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	/* The upstream quirk: the errno itself, not -1. */
	ck_assert_int_eq(rclose(opts_number + 1), EBADF);
	ck_assert_int_eq(rshutdown(opts_number, 42), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rlisten(opts_number + 1, 1), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

START_TEST(fcntl_flags)
{
	ck_assert_int_eq(rfcntl(opts_number, F_GETFL), 0);
	ck_assert_int_eq(rfcntl(opts_number, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(rfcntl(opts_number, F_GETFL), O_NONBLOCK);
	ck_assert(fcntl(opts_pipe[0], F_GETFL) & O_NONBLOCK);
	ck_assert_int_eq(rfcntl(opts_number, F_SETFL, 0), 0);
	ck_assert(!(fcntl(opts_pipe[0], F_GETFL) & O_NONBLOCK));
	ck_assert_int_eq(rfcntl(opts_number, F_GETFD), FD_CLOEXEC);
	ck_assert_int_eq(rfcntl(opts_number, F_SETFD, 0), 0);
	ck_assert_int_eq(fcntl(opts_pipe[0], F_GETFD), 0);
}
END_TEST

START_TEST(socket_bad_args)
{
	ck_assert_int_eq(rsocket(AF_UNIX, SOCK_STREAM, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rsocket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rsocket(AF_INET, SOCK_SEQPACKET, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rsocket(AF_INET6, SOCK_STREAM, IPPROTO_UDP), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP), -1);
	ck_assert_int_eq(errno, ENOTSUP);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rsocket");
	TCase *tc = tcase_create("index");

	tcase_add_test(tc, index_limits);
	tcase_add_test(tc, index_reuse);
	suite_add_tcase(s, tc);
	tc = tcase_create("config");
	tcase_add_test(tc, config_defaults);
	tcase_add_test(tc, config_files);
	tcase_add_test(tc, config_clamps);
	suite_add_tcase(s, tc);
	tc = tcase_create("options");
	tcase_add_checked_fixture(tc, opts_setup, opts_teardown);
	tcase_add_test(tc, options_socket_level);
	tcase_add_test(tc, options_tcp_level);
	tcase_add_test(tc, options_rdma_level);
	tcase_add_test(tc, options_bad);
	tcase_add_test(tc, fcntl_flags);
	tcase_add_test(tc, socket_bad_args);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK);
}
