// SPDX-License-Identifier: MIT
/*
 * Datagram rsockets through the r* calls, on rxe0 (rsocket-dgram.sh runs
 * it on our librdmacm only: upstream's cannot make its UD address handles
 * on RoCE, see there): the first datagram to a peer (over UDP, handed to
 * the peer's QP by its service), the ones after it (UD), the source
 * address a receiver sees, MSG_PEEK, truncation, EMSGSIZE, MSG_DONTWAIT,
 * rpoll readiness, a receiver blocked in another thread, rconnect/rsend,
 * and the sizes SOL_RDMA reports once the first QP fixed them.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "cmtest.h"

#define BURST 32

static struct sockaddr_in addr_of(int rs)
{
	struct sockaddr_in sin = {};
	socklen_t len = sizeof(sin);

	MUST(!rgetsockname(rs, (struct sockaddr *)&sin, &len));
	return sin;
}

static int dgram_socket(void)
{
	struct sockaddr_in sin = vt_cm_addr("RDMAVM_RXE_IP", 0);
	int rs = rsocket(AF_INET, SOCK_DGRAM, 0);

	if (!MUST(rs >= 0) || !MUST(!rbind(rs, (struct sockaddr *)&sin, sizeof(sin))))
		exit(vt_finish());
	return rs;
}

static bool same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family && a->sin_port == b->sin_port &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr;
}

/* One datagram within 5 s (rpoll first: a lost one fails, not hangs). */
static ssize_t recv_one(int rs, void *buf, size_t len, int flags, struct sockaddr_in *from)
{
	struct pollfd pfd = { .fd = rs, .events = POLLIN };
	socklen_t fromlen = sizeof(*from);

	if (rpoll(&pfd, 1, 5000) != 1)
		return -2;
	return rrecvfrom(rs, buf, len, flags, (struct sockaddr *)from, &fromlen);
}

static void test_first_and_source(int a, int b)
{
	struct sockaddr_in to = addr_of(b), from, a_addr = addr_of(a);
	char buf[64] = "";

	CHECK(rsendto(a, "first", 5, 0, (struct sockaddr *)&to, sizeof(to)) == 5,
	      "rsendto: %m");
	CHECK(recv_one(b, buf, sizeof(buf), 0, &from) == 5 && !memcmp(buf, "first", 5),
	      "the first datagram (over UDP) did not arrive: %m");
	CHECK(same_addr(&from, &a_addr), "source %s:%u, sender bound to port %u",
	      inet_ntoa(from.sin_addr), ntohs(from.sin_port), ntohs(a_addr.sin_port));
}

static void test_peek_truncate(int a, int b)
{
	struct sockaddr_in to = addr_of(b), from;
	char big[1016], buf[1016];
	ssize_t first, second;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7);
	CHECK(rsendto(a, big, sizeof(big), 0, (struct sockaddr *)&to, sizeof(to)) == sizeof(big),
	      "rsendto 1016 bytes (rxe0's MTU minus the header): %m");
	CHECK(recv_one(b, buf, 10, MSG_PEEK, &from) == 10 && !memcmp(buf, big, 10),
	      "MSG_PEEK: %m");
	CHECK(recv_one(b, buf, sizeof(buf), 0, &from) == sizeof(big) && !memcmp(buf, big, sizeof(big)),
	      "after MSG_PEEK the same datagram, whole: %m");
	CHECK(rsendto(a, big, 100, 0, (struct sockaddr *)&to, sizeof(to)) == 100, "rsendto: %m");
	CHECK(rsendto(a, "next", 4, 0, (struct sockaddr *)&to, sizeof(to)) == 4, "rsendto: %m");
	/* the two may swap while the sender's AH is being made */
	first = recv_one(b, buf, 10, 0, &from);
	second = recv_one(b, buf, 10, 0, &from);
	CHECK((first == 10 && second == 4) || (first == 4 && second == 10),
	      "100 bytes truncated to a 10-byte buffer, then 4: got %zd and %zd", first, second);
	errno = 0;
	CHECK(rsendto(a, big, sizeof(big) + 1, 0, (struct sockaddr *)&to, sizeof(to)) == -1 &&
	      errno == EMSGSIZE, "1017 bytes: EMSGSIZE, got errno %d", errno);
	errno = 0;
	CHECK(rsendto(a, NULL, 8, 0, (struct sockaddr *)&to, sizeof(to)) == -1 && errno == EFAULT,
	      "rsendto from NULL: EFAULT, got errno %d", errno);
	errno = 0;
	CHECK(rrecvfrom(b, NULL, 8, MSG_DONTWAIT, NULL, NULL) == -1 && errno == EFAULT,
	      "rrecvfrom into NULL: EFAULT, got errno %d", errno);
	errno = 0;
	CHECK(rrecvfrom(b, buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL) == -1 &&
	      (errno == EAGAIN || errno == EWOULDBLOCK), "nothing queued: EAGAIN, got %d", errno);
}

/* A burst after resolution: each exactly once (the first few may have
 * gone over UDP, so order is not promised). */
static void test_burst(int a, int b)
{
	struct sockaddr_in to = addr_of(b), from;
	int seen[BURST] = {}, i, n, dup = 0, got = 0, sent = 0;

	for (i = 0; i < BURST; i++)
		sent += rsendto(a, &i, sizeof(i), 0, (struct sockaddr *)&to, sizeof(to)) == sizeof(i);
	CHECK(sent == BURST, "%d of %d rsendto calls succeeded: %m", sent, BURST);
	for (i = 0; i < BURST; i++) {
		if (recv_one(b, &n, sizeof(n), 0, &from) != sizeof(n) || n < 0 || n >= BURST)
			break;
		dup += seen[n]++;
		got++;
	}
	CHECK(got == BURST && !dup, "%d of %d datagrams, %d twice", got, BURST, dup);
}

static void test_poll(int a, int b)
{
	struct sockaddr_in to = addr_of(b);
	struct pollfd pfd = { .fd = b, .events = POLLIN | POLLOUT };
	char buf[8];

	CHECK(rpoll(&pfd, 1, 0) == 1 && pfd.revents == POLLOUT,
	      "empty: POLLOUT only, revents %#x", pfd.revents);
	pfd.events = POLLIN;
	CHECK(rpoll(&pfd, 1, 100) == 0, "empty: no POLLIN within 100 ms");
	CHECK(rsendto(a, "x", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1, "rsendto: %m");
	CHECK(rpoll(&pfd, 1, 5000) == 1 && pfd.revents == POLLIN, "POLLIN, revents %#x",
	      pfd.revents);
	CHECK(rrecv(b, buf, sizeof(buf), 0) == 1, "rrecv: %m");
}

struct blocked {
	int rs;
	ssize_t got;
	char buf[16];
};

static void *blocked_recv(void *arg)
{
	struct blocked *blk = arg;

	blk->got = rrecv(blk->rs, blk->buf, sizeof(blk->buf), 0);
	return NULL;
}

static void test_blocked_receiver(int a, int b)
{
	struct sockaddr_in to = addr_of(b);
	struct blocked blk = { .rs = b };
	pthread_t thread;

	if (!MUST(!pthread_create(&thread, NULL, blocked_recv, &blk)))
		return;
	usleep(200 * 1000);
	CHECK(rsendto(a, "wake", 4, 0, (struct sockaddr *)&to, sizeof(to)) == 4, "rsendto: %m");
	pthread_join(thread, NULL);
	CHECK(blk.got == 4 && !memcmp(blk.buf, "wake", 4), "the blocked rrecv got %zd", blk.got);
}

static void test_connected(int b)
{
	struct sockaddr_in to = addr_of(b), from, c_addr;
	int c = dgram_socket();
	char buf[16];

	c_addr = addr_of(c);
	CHECK(!rconnect(c, (struct sockaddr *)&to, sizeof(to)), "rconnect: %m");
	CHECK(rsend(c, "conn", 4, 0) == 4, "rsend on a connected socket: %m");
	CHECK(recv_one(b, buf, sizeof(buf), 0, &from) == 4 && !memcmp(buf, "conn", 4) &&
	      same_addr(&from, &c_addr), "from the connected socket: %m");
	CHECK(rsendto(b, "back", 4, 0, (struct sockaddr *)&from, sizeof(from)) == 4,
	      "reply to the source rrecvfrom named: %m");
	CHECK(recv_one(c, buf, sizeof(buf), 0, &from) == 4 && !memcmp(buf, "back", 4),
	      "the reply: %m");
	CHECK(rclose(c) == 0, "rclose: %m");
}

static void test_sizes(int b)
{
	uint32_t size = 0, value = 16;
	socklen_t len = sizeof(size);
	int rcvbuf = 0;

	CHECK(!rgetsockopt(b, SOL_RDMA, RDMA_RQSIZE, &size, &len) && size == 64,
	      "RDMA_RQSIZE %u: the 128 KiB default receive buffer / 2048", size);
	len = sizeof(rcvbuf);
	CHECK(!rgetsockopt(b, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len) && rcvbuf == 64 * 2048,
	      "SO_RCVBUF %d", rcvbuf);
	errno = 0;
	CHECK(rsetsockopt(b, SOL_RDMA, RDMA_RQSIZE, &value, sizeof(value)) == -1 && errno == EINVAL,
	      "RDMA_RQSIZE once the QP exists: EINVAL, got errno %d", errno);
}

int main(void)
{
	int a, b;

	vt_cm_init("rsocket-dgram-api");
	errno = 0;
	CHECK(rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP) == -1 && errno == ENOTSUP,
	      "SOCK_DGRAM with IPPROTO_TCP: ENOTSUP, got errno %d", errno);
	a = dgram_socket();
	b = dgram_socket();
	test_first_and_source(a, b);
	test_burst(a, b);
	test_peek_truncate(a, b);
	test_poll(a, b);
	test_blocked_receiver(a, b);
	test_connected(b);
	test_sizes(b);
	CHECK(rclose(a) == 0 && rclose(b) == 0, "rclose: %m");
	CHECK(rclose(a) == EBADF, "rclose of a closed one: EBADF, returned (upstream)");
	return vt_finish();
}
