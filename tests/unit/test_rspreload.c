/* SPDX-License-Identifier: MIT */
/*
 * librspreload's pieces that need no RDMA device: preload_config rules
 * (PRELOAD.md 3.1-3.2) and the fd map (4.1-4.2).  Each test runs in a child
 * of its own, so each loads the rules once, as a process does.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "preload.h"
#include "unit.h"

static void load_rules(const char *text)
{
	char path[] = "/tmp/unit-rspreload-XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	config_load(path);
	unlink(path);
}

START_TEST(no_rules_every_socket)
{
	config_load("/nonexistent/preload_config");
	ck_assert(config_wants(AF_UNIX, SOCK_STREAM, 0));
	ck_assert(config_wants(AF_INET, SOCK_DGRAM, 0));
}
END_TEST

START_TEST(only_invalid_rules_every_socket)
{
	load_rules("# socat inet stream tcp\nsocat inet stream\nsocat unix stream tcp\n");
	ck_assert(config_wants(AF_INET6, SOCK_DGRAM, IPPROTO_UDP));
}
END_TEST

START_TEST(rules_match_by_prefix_and_name)
{
	program_invocation_short_name = "SoCaT-debug";
	load_rules("socat inet stream tcp\n"
		   "* AF_INET6 * *\n"
		   "other PF_IB SOCK_DGRAM IPPROTO_UDP\n");
	/* protocol 0 is TCP for a stream socket, UDP for a datagram one */
	ck_assert(config_wants(AF_INET, SOCK_STREAM, 0));
	ck_assert(config_wants(AF_INET, SOCK_STREAM, IPPROTO_TCP));
	ck_assert(!config_wants(AF_INET, SOCK_DGRAM, 0));
	ck_assert(config_wants(AF_INET6, SOCK_DGRAM, 0));
	ck_assert(!config_wants(AF_IB, SOCK_DGRAM, IPPROTO_UDP));
	program_invocation_short_name = "other";
	ck_assert(config_wants(AF_IB, SOCK_DGRAM, 0));
	ck_assert(!config_wants(AF_INET, SOCK_STREAM, 0));
	/* a rule name longer than the program's does not match */
	program_invocation_short_name = "soc";
	ck_assert(!config_wants(AF_INET, SOCK_STREAM, 0));
}
END_TEST

START_TEST(map_limits)
{
	struct psock *ps = psock_new(PSOCK_KERNEL, -1);

	ck_assert_ptr_nonnull(ps);
	ck_assert_ptr_null(fdmap_get(5));
	ck_assert_int_eq(fdmap_set(5, ps), 0);
	ck_assert_ptr_eq(fdmap_get(5), ps);
	ck_assert_ptr_null(fdmap_get(6));
	ck_assert_int_eq(fdmap_set(PRELOAD_MAX_FD, ps), 0);
	ck_assert_ptr_eq(fdmap_get(PRELOAD_MAX_FD), ps);
	ck_assert_int_eq(fdmap_set(PRELOAD_MAX_FD + 1, ps), ENOMEM);
	ck_assert_int_eq(fdmap_set(-1, ps), ENOMEM);
	ck_assert_ptr_null(fdmap_get(PRELOAD_MAX_FD + 1));
	ck_assert_ptr_null(fdmap_get(-1));
	fdmap_clear(5);
	ck_assert_ptr_null(fdmap_get(5));
	free(ps);
}
END_TEST

/* The kernel socket behind a record closes with its last reference. */
START_TEST(last_reference_closes)
{
	int fds[2];
	struct psock *ps;

	libc_resolve();
	ck_assert_int_eq(pipe(fds), 0);
	ps = psock_new(PSOCK_KERNEL, fds[0]);
	atomic_fetch_add(&ps->refs, 1);
	ck_assert_int_eq(psock_put(ps), 0);
	ck_assert_int_ge(fcntl(fds[0], F_GETFD), 0);
	ck_assert_int_eq(psock_put(ps), 0);
	ck_assert_int_eq(fcntl(fds[0], F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
	close(fds[1]);
}
END_TEST

START_TEST(placeholder_is_dev_null)
{
	int fd = placeholder_open();
	char buf[4];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 0);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rspreload");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, no_rules_every_socket);
	tcase_add_test(tc, only_invalid_rules_every_socket);
	tcase_add_test(tc, rules_match_by_prefix_and_name);
	tcase_add_test(tc, map_limits);
	tcase_add_test(tc, last_reference_closes);
	tcase_add_test(tc, placeholder_is_dev_null);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK);
}
