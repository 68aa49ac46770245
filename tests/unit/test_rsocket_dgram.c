/* SPDX-License-Identifier: MIT */
/*
 * The bytes a datagram rsocket's peer sees (layouts.txt sections 6 and
 * 7): the UDP resolution header of a DATA datagram and a CTRL reply, the
 * header in front of every UD message, for IPv4 and IPv6; and the keys
 * of the destination table (only family, port, address and scope count).
 */
#include <arpa/inet.h>
#include <string.h>

#include "rsocket/dgram.h"
#include "unit.h"

/* A QP as ds_create_qp() leaves it, without a device. */
struct fake_qp {
	struct ds_qp qp;
	struct rdma_cm_id id;
	struct ibv_qp ibqp;
};

static void fake_qp_init(struct fake_qp *f, const struct sockaddr *src)
{
	memset(f, 0, sizeof(*f));
	ck_assert_int_eq(ds_addr_key(src, src->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
					     sizeof(struct sockaddr_in6), &f->qp.src), 0);
	ds_header_fill(&f->qp.hdr, &f->qp.src);
	f->ibqp.qp_num = 0x123456;
	f->id.qp = &f->ibqp;
	f->qp.cm_id = &f->id;
}

START_TEST(ipv4_headers)
{
	static const uint8_t udp_data[16] = {
		0x55, 0x55, 0x55, 0x55, 4, 0, 16, 0,
		0x00, 0x12, 0x34, 0x56, 192, 0, 2, 1,
	};
	static const uint8_t ud[8] = { 4, 8, 0x1c, 0x06, 192, 0, 2, 1 };
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(7174) };
	struct ds_udp_header udp;
	struct fake_qp f;

	inet_pton(AF_INET, "192.0.2.1", &sin.sin_addr);
	fake_qp_init(&f, (struct sockaddr *)&sin);
	ck_assert_uint_eq(ds_udp_header_len(&f.qp), 16);
	ds_udp_header_fill(&f.qp, DS_UDP_OP_DATA, &udp);
	ck_assert_mem_eq(&udp, udp_data, sizeof(udp_data));
	ds_udp_header_fill(&f.qp, DS_UDP_OP_CTRL, &udp);
	ck_assert_uint_eq(((uint8_t *)&udp)[5], 7);
	ck_assert_mem_eq(&f.qp.hdr, ud, sizeof(ud));
}
END_TEST

START_TEST(ipv6_headers)
{
	static const uint8_t udp_data[28] = {
		0x55, 0x55, 0x55, 0x55, 6, 0, 28, 0,
		0x00, 0x12, 0x34, 0x56, 0x20, 0x01, 0x0d, 0xb8,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05,
	};
	static const uint8_t ud[24] = {
		6, 24, 0x1c, 0x06, 0x00, 0x0a, 0xbc, 0xde,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05,
	};
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6, .sin6_port = htons(7174),
		.sin6_flowinfo = htonl(0x000abcde),
	};
	struct ds_udp_header udp;
	struct fake_qp f;

	inet_pton(AF_INET6, "2001:db8::5", &sin6.sin6_addr);
	fake_qp_init(&f, (struct sockaddr *)&sin6);
	/* the table keys drop the flow label: the header takes it from
	 * the QP's bound address, which has none */
	ck_assert_uint_eq(f.qp.src.sin6.sin6_flowinfo, 0);
	f.qp.src.sin6.sin6_flowinfo = sin6.sin6_flowinfo;
	ds_header_fill(&f.qp.hdr, &f.qp.src);
	ck_assert_uint_eq(ds_udp_header_len(&f.qp), 28);
	ds_udp_header_fill(&f.qp, DS_UDP_OP_DATA, &udp);
	ck_assert_mem_eq(&udp, udp_data, sizeof(udp_data));
	ck_assert_mem_eq(&f.qp.hdr, ud, sizeof(ud));
}
END_TEST

START_TEST(destination_keys)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(1) }, b = a;
	struct sockaddr_storage unix_addr = { .ss_family = AF_UNIX };
	union ds_addr ka, kb;

	a.sin_addr.s_addr = b.sin_addr.s_addr = htonl(0xc0000201);
	memset(b.sin_zero, 0xee, sizeof(b.sin_zero));
	ck_assert_int_eq(ds_addr_key((struct sockaddr *)&a, sizeof(a), &ka), 0);
	ck_assert_int_eq(ds_addr_key((struct sockaddr *)&b, sizeof(b), &kb), 0);
	ck_assert_mem_eq(&ka, &kb, sizeof(ka));
	ck_assert_int_eq(ds_addr_len(&ka), sizeof(struct sockaddr_in));
	ck_assert_int_eq(ds_addr_key((struct sockaddr *)&a, sizeof(a) - 1, &ka), EINVAL);
	ck_assert_int_eq(ds_addr_key(NULL, sizeof(a), &ka), EINVAL);
	ck_assert_int_eq(ds_addr_key((struct sockaddr *)&unix_addr, sizeof(unix_addr), &ka),
			 EAFNOSUPPORT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rsocket_dgram");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ipv4_headers);
	tcase_add_test(tc, ipv6_headers);
	tcase_add_test(tc, destination_keys);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
