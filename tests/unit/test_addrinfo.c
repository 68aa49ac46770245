/* SPDX-License-Identifier: MIT */
/*
 * rdma_getaddrinfo(): what it returns for each kind of input, and how it
 * talks to an ibacm service.  The expectations are upstream rdma-core 44's
 * answers to the same calls, measured with a probe program (numeric hosts
 * only, so no name service is needed) and with a fake ibacm capturing its
 * requests.  The device checks are answered by a wrapped
 * ibv_get_device_list(); ibacm here is a thread on a unix socket, or on a
 * loopback TCP port named by a port file.
 */
#include "internal.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <infiniband/ib.h>

#include "unit.h"

/* ------------------------------------------------------------------ */
/* Devices: ibv_get_device_list() is wrapped at link time.            */

static int fake_ndevices = 1;
static struct ibv_device *fake_list[2] = { (struct ibv_device *)&fake_list[1] };

struct ibv_device **__wrap_ibv_get_device_list(int *num);
void __wrap_ibv_free_device_list(struct ibv_device **list);

struct ibv_device **__wrap_ibv_get_device_list(int *num)
{
	*num = fake_ndevices;
	fake_list[0] = fake_ndevices ? (struct ibv_device *)&fake_list[1] : NULL;
	return fake_list;
}

void __wrap_ibv_free_device_list(struct ibv_device **list)
{
	ck_assert_ptr_eq(list, fake_list);
}

/* The fake device is no libibverbs device: the table asks its GUID here. */
__be64 __wrap_ibv_get_device_guid(struct ibv_device *device);
__be64 __wrap_ibv_get_device_guid(struct ibv_device *device)
{
	ck_assert_ptr_eq(device, &fake_list[1]);
	return htobe64(0x1122);
}

/* ------------------------------------------------------------------ */
/* A fake ibacm.  The wire layout is written out here on its own, from */
/* ibacm's protocol: a 16-byte header, then 72-byte endpoints.         */

struct wire_hdr {
	uint8_t version, opcode, status, data[3];
	uint16_t length;
	uint64_t tid;
};

struct wire_ep {
	uint32_t flags;
	uint16_t type, reserved;
	uint8_t info[64];
};

enum {
	EP_IP = 2, EP_IP6 = 3, EP_PATH = 0x10,
	EP_SOURCE = 1, EP_DEST = 2, EP_NODELAY = 1 << 30,
	MAX_EPS = 8,
};

static struct {
	int listen_fd;
	char dir[64], sock[96], port_file[96];
	/* What arrived. */
	int requests;
	struct wire_hdr req;
	struct wire_ep req_ep[MAX_EPS];
	/* What goes back. */
	uint8_t status;
	int neps;
	struct wire_ep ep[MAX_EPS];
} acm;

static bool read_all(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n <= 0)
			return false;
		got += n;
	}
	return true;
}

static void serve(int fd)
{
	while (read_all(fd, &acm.req, sizeof(acm.req))) {
		struct wire_hdr reply = acm.req;
		size_t eps_len = acm.req.length - sizeof(acm.req);

		if (eps_len > sizeof(acm.req_ep) || !read_all(fd, acm.req_ep, eps_len))
			break;
		acm.requests++;
		reply.opcode |= 0x80;
		reply.status = acm.status;
		reply.length = sizeof(reply) + acm.neps * sizeof(acm.ep[0]);
		if (write(fd, &reply, sizeof(reply)) != sizeof(reply) ||
		    write(fd, acm.ep, acm.neps * sizeof(acm.ep[0])) !=
			    (ssize_t)(acm.neps * sizeof(acm.ep[0])))
			break;
	}
	close(fd);
}

static void *acm_thread(void *arg)
{
	int fd;

	(void)arg;
	while ((fd = accept(acm.listen_fd, NULL, NULL)) >= 0)
		serve(fd);
	return NULL;
}

static void start_thread(void)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, acm_thread, NULL), 0);
	pthread_detach(t);
}

static void acm_listen_unix(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	acm.listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sun.sun_path, acm.sock);
	ck_assert_int_eq(bind(acm.listen_fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(listen(acm.listen_fd, 4), 0);
	start_thread();
}

/* ibacm on loopback TCP, its port in the port file. */
static void acm_listen_tcp(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	FILE *f;

	acm.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(acm.listen_fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(acm.listen_fd, 4), 0);
	ck_assert_int_eq(getsockname(acm.listen_fd, (struct sockaddr *)&sin, &len), 0);
	f = fopen(acm.port_file, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%u\n", ntohs(sin.sin_port));
	fclose(f);
	start_thread();
}

static void setup(void)
{
	snprintf(acm.dir, sizeof(acm.dir), "/tmp/ov-acm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(acm.dir));
	snprintf(acm.sock, sizeof(acm.sock), "%s/ibacm.sock", acm.dir);
	snprintf(acm.port_file, sizeof(acm.port_file), "%s/ibacm.port", acm.dir);
	cma_acm_paths.socket = acm.sock;
	cma_acm_paths.port_file = acm.port_file;
}

static void teardown(void)
{
	unlink(acm.sock);
	unlink(acm.port_file);
	rmdir(acm.dir);
}

/* A path record endpoint: GIDs fe80::1 -> fe80::2, P_Key 0xffff. */
static void reply_path(struct wire_ep *ep, uint32_t flags)
{
	struct ibv_path_record rec = { .pkey = htons(0xffff), .dlid = htons(2), .slid = htons(1) };

	inet_pton(AF_INET6, "fe80::1", &rec.sgid);
	inet_pton(AF_INET6, "fe80::2", &rec.dgid);
	memset(ep, 0, sizeof(*ep));
	ep->flags = flags;
	ep->type = EP_PATH;
	memcpy(ep->info, &rec, sizeof(rec));
}

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

static struct rdma_addrinfo *get(const char *node, const char *service,
				 const struct rdma_addrinfo *hints)
{
	struct rdma_addrinfo *res = NULL;
	int ret = rdma_getaddrinfo(node, service, hints, &res);

	ck_assert_msg(ret == 0, "rdma_getaddrinfo(%s, %s): %d errno %d", node, service, ret, errno);
	ck_assert_ptr_nonnull(res);
	ck_assert_ptr_null(res->ai_next);
	return res;
}

static void check_in(const struct sockaddr *sa, socklen_t len, const char *ip, unsigned port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	char text[INET_ADDRSTRLEN];

	ck_assert_ptr_nonnull(sa);
	ck_assert_uint_eq(len, sizeof(*sin));
	ck_assert_int_eq(sin->sin_family, AF_INET);
	ck_assert_str_eq(inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text)), ip);
	ck_assert_uint_eq(ntohs(sin->sin_port), port);
}

static void check_in6(const struct sockaddr *sa, socklen_t len, const char *ip, unsigned port)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;
	char text[INET6_ADDRSTRLEN];

	ck_assert_ptr_nonnull(sa);
	ck_assert_uint_eq(len, sizeof(*sin6));
	ck_assert_int_eq(sin6->sin6_family, AF_INET6);
	ck_assert_str_eq(inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text)), ip);
	ck_assert_uint_eq(ntohs(sin6->sin6_port), port);
}

static void check_kind(const struct rdma_addrinfo *rai, int flags, int family, int qp_type,
		       int ps)
{
	ck_assert_int_eq(rai->ai_flags, flags);
	ck_assert_int_eq(rai->ai_family, family);
	ck_assert_int_eq(rai->ai_qp_type, qp_type);
	ck_assert_int_eq(rai->ai_port_space, ps);
	ck_assert_ptr_null(rai->ai_src_canonname);
	ck_assert_ptr_null(rai->ai_dst_canonname);
	ck_assert_ptr_null(rai->ai_connect);
	ck_assert_uint_eq(rai->ai_connect_len, 0);
}

static void check_no_route(const struct rdma_addrinfo *rai)
{
	ck_assert_ptr_null(rai->ai_route);
	ck_assert_uint_eq(rai->ai_route_len, 0);
}

/* ------------------------------------------------------------------ */
/* Names, services and hints                                          */

START_TEST(numeric_ipv4_is_the_destination)
{
	struct rdma_addrinfo *rai = get("10.0.0.2", "7471", NULL);

	check_kind(rai, 0, AF_INET, IBV_QPT_RC, RDMA_PS_TCP);
	check_in(rai->ai_dst_addr, rai->ai_dst_len, "10.0.0.2", 7471);
	ck_assert_ptr_null(rai->ai_src_addr);
	ck_assert_uint_eq(rai->ai_src_len, 0);
	check_no_route(rai);
	rdma_freeaddrinfo(rai);

	rai = get("10.0.0.2", NULL, NULL);
	check_in(rai->ai_dst_addr, rai->ai_dst_len, "10.0.0.2", 0);
	rdma_freeaddrinfo(rai);
}
END_TEST

START_TEST(numeric_ipv6_keeps_its_scope)
{
	struct rdma_addrinfo *rai = get("fe80::1%lo", "1", NULL);

	check_kind(rai, 0, AF_INET6, IBV_QPT_RC, RDMA_PS_TCP);
	check_in6(rai->ai_dst_addr, rai->ai_dst_len, "fe80::1", 1);
	ck_assert_uint_ne(((struct sockaddr_in6 *)rai->ai_dst_addr)->sin6_scope_id, 0);
	rdma_freeaddrinfo(rai);
}
END_TEST

START_TEST(passive_results_are_the_source)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE }, *rai;

	rai = get(NULL, "7471", &hints);
	check_kind(rai, RAI_PASSIVE, AF_INET, IBV_QPT_RC, RDMA_PS_TCP);
	check_in(rai->ai_src_addr, rai->ai_src_len, "0.0.0.0", 7471);
	ck_assert_ptr_null(rai->ai_dst_addr);
	ck_assert_uint_eq(rai->ai_dst_len, 0);
	rdma_freeaddrinfo(rai);

	rai = get("10.1.2.3", "7471", &hints);
	check_in(rai->ai_src_addr, rai->ai_src_len, "10.1.2.3", 7471);
	rdma_freeaddrinfo(rai);

	hints.ai_family = AF_INET6;
	rai = get(NULL, "7471", &hints);
	check_kind(rai, RAI_PASSIVE, AF_INET6, IBV_QPT_RC, RDMA_PS_TCP);
	check_in6(rai->ai_src_addr, rai->ai_src_len, "::", 7471);
	rdma_freeaddrinfo(rai);

	/* AF_IB is asked of the resolver as any family. */
	hints.ai_family = AF_IB;
	rai = get(NULL, "7471", &hints);
	check_in(rai->ai_src_addr, rai->ai_src_len, "0.0.0.0", 7471);
	rdma_freeaddrinfo(rai);
}
END_TEST

START_TEST(only_passive_survives_in_the_flags)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_NUMERICHOST | RAI_NOROUTE | RAI_FAMILY |
						   0x100 }, *rai;

	rai = get("10.0.0.2", "7471", &hints);
	ck_assert_int_eq(rai->ai_flags, 0);
	rdma_freeaddrinfo(rai);
	hints.ai_flags |= RAI_PASSIVE;
	rai = get("10.0.0.2", "7471", &hints);
	ck_assert_int_eq(rai->ai_flags, RAI_PASSIVE);
	rdma_freeaddrinfo(rai);
}
END_TEST

/* What the C library's getaddrinfo answers NODE with these hints; an
 * error, which rdma_getaddrinfo passes through as upstream.  The codes are
 * the C library's own: a socket type and protocol that do not go together
 * are EAI_SOCKTYPE to glibc but EAI_SERVICE to musl. */
static int libc_refusal(const char *node, int family, int flags, int socktype, int protocol)
{
	struct addrinfo hints = { .ai_flags = flags, .ai_family = family,
				  .ai_socktype = socktype, .ai_protocol = protocol }, *ai = NULL;
	int ret = getaddrinfo(node, "7471", &hints, &ai);

	if (!ret)
		freeaddrinfo(ai);
	ck_assert_int_lt(ret, 0);
	return ret;
}

/* QP type and port space: each hint pair and what comes back. */
static const struct {
	int qp_type, ps;		/* hints */
	int out_qp_type, out_ps;
} kinds[] = {
	{ 0, 0, IBV_QPT_RC, RDMA_PS_TCP },
	{ IBV_QPT_RC, 0, IBV_QPT_RC, RDMA_PS_TCP },
	{ IBV_QPT_UC, 0, IBV_QPT_UC, RDMA_PS_TCP },
	{ IBV_QPT_UD, 0, IBV_QPT_UD, RDMA_PS_UDP },
	{ IBV_QPT_RAW_PACKET, 0, IBV_QPT_RAW_PACKET, RDMA_PS_TCP },
	{ IBV_QPT_XRC_SEND, 0, IBV_QPT_XRC_SEND, RDMA_PS_TCP },
	{ 77, 0, 77, RDMA_PS_TCP },
	{ 0, RDMA_PS_TCP, IBV_QPT_RC, RDMA_PS_TCP },
	{ 0, RDMA_PS_UDP, IBV_QPT_UD, RDMA_PS_UDP },
	{ 0, RDMA_PS_IPOIB, IBV_QPT_UD, RDMA_PS_IPOIB },
	{ 0, RDMA_PS_IB, IBV_QPT_RC, RDMA_PS_IB },
	{ 0, 0x1234, IBV_QPT_RC, 0x1234 },
	{ IBV_QPT_UD, RDMA_PS_IB, IBV_QPT_UD, RDMA_PS_IB },
	{ IBV_QPT_UD, 0x1234, IBV_QPT_UD, 0x1234 },
	{ IBV_QPT_UC, RDMA_PS_TCP, IBV_QPT_UC, RDMA_PS_TCP },
	{ IBV_QPT_RAW_PACKET, RDMA_PS_UDP, IBV_QPT_RAW_PACKET, RDMA_PS_UDP },
};

START_TEST(qp_type_and_port_space)
{
	struct rdma_addrinfo hints = { .ai_qp_type = kinds[_i].qp_type,
				       .ai_port_space = kinds[_i].ps }, *rai = NULL;
	int ret = rdma_getaddrinfo("127.0.0.1", "7471", &hints, &rai);

	ck_assert_int_eq(ret, 0);
	check_kind(rai, 0, AF_INET, kinds[_i].out_qp_type, kinds[_i].out_ps);
	check_in(rai->ai_dst_addr, rai->ai_dst_len, "127.0.0.1", 7471);
	rdma_freeaddrinfo(rai);
}
END_TEST

/* A QP type and port space that do not go together: the socket type and
 * protocol they stand for, which the C library refuses. */
static const struct {
	int qp_type, ps;
	int socktype, protocol;
} refused_kinds[] = {
	{ IBV_QPT_RC, RDMA_PS_UDP, SOCK_STREAM, IPPROTO_UDP },
	{ IBV_QPT_UC, RDMA_PS_UDP, SOCK_STREAM, IPPROTO_UDP },
	{ IBV_QPT_UD, RDMA_PS_TCP, SOCK_DGRAM, IPPROTO_TCP },
	{ IBV_QPT_RC, RDMA_PS_IPOIB, SOCK_STREAM, IPPROTO_UDP },
};

START_TEST(refused_kind_is_the_libc_code)
{
	struct rdma_addrinfo hints = { .ai_qp_type = refused_kinds[_i].qp_type,
				       .ai_port_space = refused_kinds[_i].ps }, *rai = NULL;

	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &rai),
			 libc_refusal("127.0.0.1", 0, 0, refused_kinds[_i].socktype,
				      refused_kinds[_i].protocol));
	ck_assert_ptr_null(rai);
}
END_TEST

START_TEST(resolver_errors_are_eai_codes)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_NUMERICHOST }, *rai = NULL;

	ck_assert_int_eq(rdma_getaddrinfo("localhost", "7471", &hints, &rai), EAI_NONAME);
	ck_assert_int_eq(rdma_getaddrinfo("1.2.3.4.5", "7471", &hints, &rai), EAI_NONAME);
	ck_assert_int_eq(rdma_getaddrinfo("", "7471", &hints, &rai), EAI_NONAME);
	hints.ai_family = AF_INET;
	/* EAI_ADDRFAMILY from glibc, EAI_NONAME from musl */
	ck_assert_int_eq(rdma_getaddrinfo("::1", "7471", &hints, &rai),
			 libc_refusal("::1", AF_INET, AI_NUMERICHOST, 0, 0));
	hints.ai_family = AF_INET6;
	hints.ai_flags |= RAI_FAMILY;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &rai),
			 libc_refusal("127.0.0.1", AF_INET6, AI_NUMERICHOST, 0, 0));
	hints.ai_family = AF_UNIX;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &rai), EAI_FAMILY);
	hints.ai_family = 99;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &rai), EAI_FAMILY);
	hints.ai_family = 0;
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "no-such-service", &hints, &rai),
			 EAI_SERVICE);
	ck_assert_int_eq(rdma_getaddrinfo("127.0.0.1", "-1", &hints, &rai), EAI_SERVICE);
	ck_assert_ptr_null(rai);
}
END_TEST

START_TEST(bad_arguments_and_no_devices)
{
	struct rdma_addrinfo hints = { 0 }, *rai = NULL;

	errno = 0;
	ck_assert_int_eq(rdma_getaddrinfo(NULL, NULL, NULL, &rai), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(rdma_getaddrinfo("10.0.0.1", "1", NULL, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);

	fake_ndevices = 0;
	errno = 0;
	ck_assert_int_eq(rdma_getaddrinfo("10.0.0.1", "1", NULL, &rai), -1);
	ck_assert_int_eq(errno, ENODEV);
	errno = 0;
	ck_assert_int_eq(rdma_getaddrinfo(NULL, NULL, &hints, &rai), -1);
	ck_assert_int_eq(errno, ENODEV);
	ck_assert_ptr_null(rai);
	rdma_freeaddrinfo(NULL);
}
END_TEST

START_TEST(event_channel_needs_a_device)
{
	struct rdma_event_channel *channel;

	/* A sysfs that offers rdma_cm: only the device check can refuse. */
	ck_assert(unit_tree_make("/tmp/unit-addrinfo.XXXXXX"));
	unit_put("class/misc/rdma_cm/abi_version", "4\n");
	setenv("SYSFS_PATH", unit_root, 1);

	/* Upstream's answer with rdma_cm loaded and no device (measured in
	 * the guest after deleting rxe0 and siw0). */
	fake_ndevices = 0;
	errno = 0;
	ck_assert_ptr_null(rdma_create_event_channel());
	ck_assert_int_eq(errno, ENODEV);
	/* With a device it goes on to the character device: this host's
	 * answer, whatever it is, is not the missing device's. */
	fake_ndevices = 1;
	errno = 0;
	channel = rdma_create_event_channel();
	if (channel)
		rdma_destroy_event_channel(channel);
	else
		ck_assert_int_ne(errno, ENODEV);

	ck_assert(unit_tree_remove());
}
END_TEST

START_TEST(services_by_name)
{
	/* getservbyname()'s answer lives only until its next call. */
	struct servent *tcp = getservbyname("ssh", "tcp");
	unsigned int port = tcp ? ntohs(tcp->s_port) : 0;
	bool udp = getservbyname("ssh", "udp");
	struct rdma_addrinfo hints = { .ai_qp_type = IBV_QPT_UD }, *rai = NULL;

	if (!port) {
		printf("services_by_name: no 'ssh' in the services database, nothing to check\n");
		return;
	}
	rai = get("10.0.0.2", "ssh", NULL);
	check_in(rai->ai_dst_addr, rai->ai_dst_len, "10.0.0.2", port);
	rdma_freeaddrinfo(rai);
	/* ssh is a TCP service only (when the database says so): no UD. */
	if (!udp) {
		rai = NULL;
		ck_assert_int_eq(rdma_getaddrinfo("10.0.0.2", "ssh", &hints, &rai), EAI_SERVICE);
		ck_assert_ptr_null(rai);
	}
}
END_TEST

START_TEST(hints_alone_are_the_answer)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_port = htons(99),
				   .sin_addr.s_addr = htonl(0x0a000002) };
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_port = htons(5),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	uint8_t route[64] = { 1 }, conn[8] = { 2 };
	struct rdma_addrinfo hints = {
		.ai_flags = 0xff & ~RAI_PASSIVE, .ai_family = AF_IB, .ai_qp_type = IBV_QPT_UD,
		.ai_port_space = RDMA_PS_IB,
		.ai_src_addr = (struct sockaddr *)&src, .ai_src_len = sizeof(src),
		.ai_dst_addr = (struct sockaddr *)&dst, .ai_dst_len = sizeof(dst),
		.ai_route = route, .ai_route_len = sizeof(route),
		.ai_connect = conn, .ai_connect_len = sizeof(conn),
	}, *rai;

	rai = get(NULL, NULL, &hints);
	check_kind(rai, 0xff & ~RAI_PASSIVE, AF_IB, IBV_QPT_UD, RDMA_PS_IB);
	check_in(rai->ai_src_addr, rai->ai_src_len, "10.0.0.2", 99);
	check_in6(rai->ai_dst_addr, rai->ai_dst_len, "::1", 5);
	ck_assert_ptr_ne(rai->ai_src_addr, hints.ai_src_addr);
	check_no_route(rai);
	rdma_freeaddrinfo(rai);

	/* An address without a length is no address; a short one is copied
	 * as short as it is. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_src_addr = (struct sockaddr *)&src;
	rai = get(NULL, NULL, &hints);
	ck_assert_ptr_null(rai->ai_src_addr);
	rdma_freeaddrinfo(rai);
	hints.ai_src_len = 4;
	rai = get(NULL, NULL, &hints);
	ck_assert_uint_eq(rai->ai_src_len, 4);
	ck_assert_mem_eq(rai->ai_src_addr, &src, 4);
	rdma_freeaddrinfo(rai);
}
END_TEST

START_TEST(hinted_source_joins_a_resolved_destination)
{
	struct sockaddr_in6 src = { .sin6_family = AF_INET6, .sin6_port = htons(5),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(99),
				   .sin_addr.s_addr = htonl(0x0a000002) };
	struct rdma_addrinfo hints = { .ai_src_addr = (struct sockaddr *)&src,
				       .ai_src_len = sizeof(src),
				       .ai_dst_addr = (struct sockaddr *)&dst,
				       .ai_dst_len = sizeof(dst) }, *rai;

	/* Even of another family; the hinted destination loses to the node. */
	rai = get("127.0.0.1", "7471", &hints);
	check_in6(rai->ai_src_addr, rai->ai_src_len, "::1", 5);
	check_in(rai->ai_dst_addr, rai->ai_dst_len, "127.0.0.1", 7471);
	rdma_freeaddrinfo(rai);

	/* Passive: the node is the source, the hints' addresses unused. */
	hints.ai_flags = RAI_PASSIVE;
	rai = get("127.0.0.1", "7471", &hints);
	check_in(rai->ai_src_addr, rai->ai_src_len, "127.0.0.1", 7471);
	ck_assert_ptr_null(rai->ai_dst_addr);
	rdma_freeaddrinfo(rai);
}
END_TEST

/* ------------------------------------------------------------------ */
/* ibacm                                                              */

START_TEST(no_ibacm_is_no_route)
{
	struct rdma_addrinfo *rai = get("10.0.0.2", "7471", NULL);

	check_no_route(rai);
	ck_assert_ptr_null(rai->ai_src_addr);
	rdma_freeaddrinfo(rai);
}
END_TEST

START_TEST(ibacm_is_asked_for_the_destination)
{
	struct rdma_addrinfo hints = { 0 }, *rai;
	uint8_t v4[4] = { 10, 0, 0, 2 }, v6[16];

	acm_listen_unix();
	acm.status = 3;		/* no data */
	rai = get("10.0.0.2", "7471", &hints);
	check_no_route(rai);
	rdma_freeaddrinfo(rai);
	ck_assert_int_eq(acm.requests, 1);
	ck_assert_uint_eq(acm.req.version, 1);
	ck_assert_uint_eq(acm.req.opcode, 1);
	ck_assert_uint_eq(acm.req.length, 16 + 72);
	ck_assert_uint_eq(acm.req_ep[0].flags, EP_DEST);
	ck_assert_uint_eq(acm.req_ep[0].type, EP_IP);
	ck_assert_mem_eq(acm.req_ep[0].info, v4, 4);

	/* Numeric hosts and RAI_NOROUTE ask it not to wait; same connection. */
	hints.ai_flags = RAI_NUMERICHOST;
	rdma_freeaddrinfo(get("fe80::2", "7471", &hints));
	ck_assert_int_eq(acm.requests, 2);
	ck_assert_uint_eq(acm.req_ep[0].flags, EP_DEST | EP_NODELAY);
	ck_assert_uint_eq(acm.req_ep[0].type, EP_IP6);
	inet_pton(AF_INET6, "fe80::2", v6);
	ck_assert_mem_eq(acm.req_ep[0].info, v6, 16);
	hints.ai_flags = RAI_NOROUTE;
	rdma_freeaddrinfo(get("10.0.0.2", "7471", &hints));
	ck_assert_uint_eq(acm.req_ep[0].flags, EP_DEST | EP_NODELAY);

	/* The passive side asks nothing. */
	hints.ai_flags = RAI_PASSIVE;
	rdma_freeaddrinfo(get("10.0.0.2", "7471", &hints));
	ck_assert_int_eq(acm.requests, 3);
}
END_TEST

START_TEST(ibacm_gets_the_source_first)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0a000001) };
	struct rdma_addrinfo hints = { .ai_src_addr = (struct sockaddr *)&src,
				       .ai_src_len = sizeof(src) };
	uint8_t v4[4] = { 10, 0, 0, 1 };

	acm_listen_unix();
	rdma_freeaddrinfo(get("10.0.0.2", "7471", &hints));
	ck_assert_uint_eq(acm.req.length, 16 + 2 * 72);
	ck_assert_uint_eq(acm.req_ep[0].flags, EP_SOURCE);
	ck_assert_uint_eq(acm.req_ep[0].type, EP_IP);
	ck_assert_mem_eq(acm.req_ep[0].info, v4, 4);
	ck_assert_uint_eq(acm.req_ep[1].flags, EP_DEST);

	/* A source alone is a question too. */
	rdma_freeaddrinfo(get(NULL, NULL, &hints));
	ck_assert_int_eq(acm.requests, 2);
	ck_assert_uint_eq(acm.req.length, 16 + 72);
	ck_assert_uint_eq(acm.req_ep[0].flags, EP_SOURCE);

	/* A source too short to hold its family is none, and is not read
	 * past its length (fuzz-getaddrinfo's finding; the sanitize suite
	 * sees the read). */
	hints.ai_src_len = 1;
	rdma_freeaddrinfo(get(NULL, NULL, &hints));
	ck_assert_int_eq(acm.requests, 2);
}
END_TEST

START_TEST(ibacm_paths_become_the_route)
{
	struct rdma_addrinfo *rai;
	struct ibv_path_data *paths;
	char text[INET6_ADDRSTRLEN];

	acm_listen_unix();
	reply_path(&acm.ep[0], 0x3);
	reply_path(&acm.ep[1], 0x5);
	/* The source ibacm picked, taken when the caller named none. */
	acm.ep[2] = (struct wire_ep){ .flags = EP_SOURCE, .type = EP_IP, .info = { 10, 0, 0, 9 } };
	acm.neps = 3;
	rai = get("10.0.0.2", "7471", NULL);
	ck_assert_uint_eq(rai->ai_route_len, 2 * sizeof(struct ibv_path_data));
	paths = rai->ai_route;
	ck_assert_uint_eq(paths[0].flags, 0x3);
	ck_assert_uint_eq(paths[1].flags, 0x5);
	ck_assert_str_eq(inet_ntop(AF_INET6, &paths[0].path.dgid, text, sizeof(text)), "fe80::2");
	ck_assert_uint_eq(ntohs(paths[0].path.pkey), 0xffff);
	check_in(rai->ai_src_addr, rai->ai_src_len, "10.0.0.9", 0);
	check_in(rai->ai_dst_addr, rai->ai_dst_len, "10.0.0.2", 7471);
	ck_assert_int_eq(rai->ai_family, AF_INET);
	rdma_freeaddrinfo(rai);
}
END_TEST

START_TEST(ibacm_failure_status_is_no_route)
{
	struct rdma_addrinfo *rai;

	acm_listen_unix();
	reply_path(&acm.ep[0], 0x3);
	acm.neps = 1;
	acm.status = 9;
	rai = get("10.0.0.2", "7471", NULL);
	check_no_route(rai);
	rdma_freeaddrinfo(rai);
}
END_TEST

START_TEST(ibacm_on_a_tcp_port)
{
	struct rdma_addrinfo *rai;

	acm_listen_tcp();
	reply_path(&acm.ep[0], 0x3);
	acm.neps = 1;
	rai = get("10.0.0.2", "7471", NULL);
	ck_assert_uint_eq(rai->ai_route_len, sizeof(struct ibv_path_data));
	rdma_freeaddrinfo(rai);
	ck_assert_int_eq(acm.requests, 1);
}
END_TEST

/* Asking for AF_IB turns a found path's GIDs into the addresses. */
START_TEST(ibacm_path_gives_af_ib_addresses)
{
	struct rdma_addrinfo hints = { .ai_family = AF_IB }, *rai;
	struct sockaddr_ib *src, *dst;
	char text[INET6_ADDRSTRLEN];

	acm_listen_unix();
	reply_path(&acm.ep[0], 0x3);
	acm.neps = 1;
	rai = get("10.0.0.2", "7471", &hints);
	ck_assert_int_eq(rai->ai_family, AF_IB);
	ck_assert_uint_eq(rai->ai_src_len, sizeof(*src));
	ck_assert_uint_eq(rai->ai_dst_len, sizeof(*dst));
	src = (struct sockaddr_ib *)rai->ai_src_addr;
	dst = (struct sockaddr_ib *)rai->ai_dst_addr;
	ck_assert_int_eq(dst->sib_family, AF_IB);
	ck_assert_str_eq(inet_ntop(AF_INET6, &dst->sib_addr, text, sizeof(text)), "fe80::2");
	ck_assert_str_eq(inet_ntop(AF_INET6, &src->sib_addr, text, sizeof(text)), "fe80::1");
	ck_assert_uint_eq(ntohs(dst->sib_pkey), 0xffff);
	ck_assert_uint_eq(be64toh(dst->sib_sid), RDMA_IB_IP_PS_TCP | 7471);
	ck_assert_uint_eq(be64toh(dst->sib_sid_mask), ~0ULL);
	ck_assert_uint_eq(src->sib_sid, 0);
	rdma_freeaddrinfo(rai);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("addrinfo");
	TCase *names = tcase_create("names"), *ibacm = tcase_create("ibacm");

	tcase_add_checked_fixture(names, setup, teardown);
	tcase_add_checked_fixture(ibacm, setup, teardown);
	tcase_add_test(names, numeric_ipv4_is_the_destination);
	tcase_add_test(names, numeric_ipv6_keeps_its_scope);
	tcase_add_test(names, passive_results_are_the_source);
	tcase_add_test(names, only_passive_survives_in_the_flags);
	tcase_add_loop_test(names, qp_type_and_port_space, 0, sizeof(kinds) / sizeof(kinds[0]));
	tcase_add_loop_test(names, refused_kind_is_the_libc_code, 0,
			    sizeof(refused_kinds) / sizeof(refused_kinds[0]));
	tcase_add_test(names, resolver_errors_are_eai_codes);
	tcase_add_test(names, bad_arguments_and_no_devices);
	tcase_add_test(names, event_channel_needs_a_device);
	tcase_add_test(names, services_by_name);
	tcase_add_test(names, hints_alone_are_the_answer);
	tcase_add_test(names, hinted_source_joins_a_resolved_destination);
	tcase_add_test(ibacm, no_ibacm_is_no_route);
	tcase_add_test(ibacm, ibacm_is_asked_for_the_destination);
	tcase_add_test(ibacm, ibacm_gets_the_source_first);
	tcase_add_test(ibacm, ibacm_paths_become_the_route);
	tcase_add_test(ibacm, ibacm_failure_status_is_no_route);
	tcase_add_test(ibacm, ibacm_on_a_tcp_port);
	tcase_add_test(ibacm, ibacm_path_gives_af_ib_addresses);
	suite_add_tcase(s, names);
	suite_add_tcase(s, ibacm);
	/* The ibacm connection is made once per process: each test its own. */
	return unit_run(s, CK_FORK);
}
