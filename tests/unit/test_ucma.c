/* SPDX-License-Identifier: MIT */
/*
 * librdmacm's kernel commands against a fake rdma_cm device behind
 * ucma_sys: the bytes each command writes, the answers it decodes, the
 * fallback from the newer address commands to the older ones, and how
 * events are decoded in both parameter forms.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "kernel_cm.h"
#include "ucma.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* The fake device                                                     */

struct call {
	int fd;
	size_t len;
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t body[1024];
};

static struct call calls[32];
static int ncalls;
/* Per test: what the kernel does with a command (0 or an errno); it
 * answers through the response pointer in body. */
static int (*kernel)(uint32_t cmd, void *body);
/* Set: write() reports this many bytes instead of all. */
static ssize_t short_write;

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	struct call *c = &calls[ncalls++];
	int err;

	ck_assert_int_le(ncalls, 32);
	ck_assert_uint_ge(len, sizeof(c->hdr));
	ck_assert_uint_le(len, sizeof(c->hdr) + sizeof(c->body));
	c->fd = fd;
	c->len = len;
	memcpy(&c->hdr, buf, sizeof(c->hdr));
	memcpy(c->body, (const uint8_t *)buf + sizeof(c->hdr), len - sizeof(c->hdr));
	/* What the kernel checks first: the header says how long the request is. */
	ck_assert_uint_eq(c->hdr.in + sizeof(c->hdr), len);
	err = kernel ? kernel(c->hdr.cmd, (uint8_t *)buf + sizeof(c->hdr)) : 0;
	if (err) {
		errno = err;
		return -1;
	}
	return short_write ? short_write : (ssize_t)len;
}

static void setup(void)
{
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
	kernel = NULL;
	short_write = 0;
	ucma_sys.write = fake_write;
}

/* The request of call i as the kernel's structure. */
#define REQ(i, type) ((type *)calls[i].body)

/* Where most requests start: the response pointer. */
static void *response_of(const void *body)
{
	uint64_t response;

	memcpy(&response, body, sizeof(response));
	return (void *)(uintptr_t)response;
}

static struct sockaddr_in ip4(const char *addr, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, addr, &sin.sin_addr);
	return sin;
}

/* A kernel from before Linux 3.11: no QUERY, BIND, RESOLVE_ADDR, JOIN_MCAST. */
static int old_kernel(uint32_t cmd, void *body)
{
	if (cmd >= RDMA_USER_CM_CMD_QUERY)
		return EINVAL;
	if (cmd == RDMA_USER_CM_CMD_QUERY_ROUTE) {
		struct rdma_ucm_query_route_resp *r = response_of(body);

		r->node_guid = htobe64(0x1122334455667788);
		r->port_num = 1;
		r->num_paths = 1;
		r->ib_route[0].pkey = htobe16(0xffff);
		r->ib_route[0].dlid = htobe16(7);
		r->ib_route[0].mtu = IBV_MTU_1024;
		r->src_addr.sin6_family = AF_INET6;
		r->dst_addr.sin6_family = AF_INET6;
	}
	if (cmd == RDMA_USER_CM_CMD_JOIN_IP_MCAST)
		((struct rdma_ucm_create_id_resp *)response_of(body))->id = 9;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ids                                                                 */

static int answer_create_id(uint32_t cmd, void *body)
{
	struct rdma_ucm_create_id *req = body;

	ck_assert_uint_eq(cmd, RDMA_USER_CM_CMD_CREATE_ID);
	((struct rdma_ucm_create_id_resp *)(uintptr_t)req->response)->id = 77;
	return 0;
}

START_TEST(create_id_encoding)
{
	uint32_t handle = 0;

	kernel = answer_create_id;
	ck_assert_int_eq(ucma_create_id(5, 0xabcdef, RDMA_PS_IB, IBV_QPT_UC, &handle), 0);
	ck_assert_uint_eq(handle, 77);
	ck_assert_int_eq(calls[0].fd, 5);
	ck_assert_uint_eq(calls[0].hdr.in, sizeof(struct rdma_ucm_create_id));
	ck_assert_uint_eq(calls[0].hdr.out, sizeof(struct rdma_ucm_create_id_resp));
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_create_id)->uid, 0xabcdef);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_create_id)->ps, 0x13f);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_create_id)->qp_type, IBV_QPT_UC);
}
END_TEST

static int answer_destroy(uint32_t cmd, void *body)
{
	(void)cmd;
	((struct rdma_ucm_destroy_id_resp *)response_of(body))->events_reported = 3;
	return 0;
}

START_TEST(destroy_and_leave_report_events)
{
	uint32_t reported = 0;

	kernel = answer_destroy;
	ck_assert_int_eq(ucma_destroy_id(4, 12, &reported), 0);
	ck_assert_uint_eq(reported, 3);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_DESTROY_ID);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_destroy_id)->id, 12);
	reported = 0;
	ck_assert_int_eq(ucma_leave_mcast(4, 13, &reported), 0);
	ck_assert_uint_eq(reported, 3);
	ck_assert_uint_eq(calls[1].hdr.cmd, RDMA_USER_CM_CMD_LEAVE_MCAST);
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_destroy_id)->id, 13);
}
END_TEST

static int fail_with_enoent(uint32_t cmd, void *body)
{
	(void)cmd;
	(void)body;
	return ENOENT;
}

START_TEST(errors_come_back_positive)
{
	uint32_t reported = 99;

	kernel = fail_with_enoent;
	ck_assert_int_eq(ucma_destroy_id(4, 12, &reported), ENOENT);
	ck_assert_uint_eq(reported, 99);
	ck_assert_int_eq(ucma_disconnect(4, 1), ENOENT);
	kernel = NULL;
	short_write = 4;
	ck_assert_int_eq(ucma_listen(4, 1, 10), EIO);
}
END_TEST

START_TEST(migrate_is_written_to_the_new_channel)
{
	uint32_t reported = 0;

	kernel = answer_destroy;
	ck_assert_int_eq(ucma_migrate_id(8, 21, 6, &reported), 0);
	ck_assert_int_eq(calls[0].fd, 8);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_MIGRATE_ID);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_migrate_id)->id, 21);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_migrate_id)->fd, 6);
	ck_assert_uint_eq(reported, 3);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Addresses                                                           */

START_TEST(bind_sizes_the_address)
{
	struct sockaddr_in sin = ip4("192.0.2.1", 7471);
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_ib sib = { .sib_family = AF_IB };
	struct sockaddr unknown = { .sa_family = AF_UNIX };

	ck_assert_int_eq(ucma_bind(3, 1, (struct sockaddr *)&sin), 0);
	ck_assert_int_eq(ucma_bind(3, 1, (struct sockaddr *)&sin6), 0);
	ck_assert_int_eq(ucma_bind(3, 1, (struct sockaddr *)&sib), 0);
	ck_assert_int_eq(ncalls, 3);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_BIND);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_bind)->addr_size, sizeof(sin));
	ck_assert_mem_eq(&REQ(0, struct rdma_ucm_bind)->addr, &sin, sizeof(sin));
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_bind)->addr_size, sizeof(sin6));
	ck_assert_uint_eq(REQ(2, struct rdma_ucm_bind)->addr_size, sizeof(sib));
	/* Nothing the kernel would take reaches it. */
	ck_assert_int_eq(ucma_bind(3, 1, &unknown), EINVAL);
	ck_assert_int_eq(ncalls, 3);
}
END_TEST

START_TEST(old_kernel_binds_and_resolves_ip)
{
	struct sockaddr_in src = ip4("192.0.2.1", 0), dst = ip4("192.0.2.2", 7471);

	kernel = old_kernel;
	ck_assert_int_eq(ucma_bind(3, 1, (struct sockaddr *)&src), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_BIND);
	ck_assert_uint_eq(calls[1].hdr.cmd, RDMA_USER_CM_CMD_BIND_IP);
	ck_assert_mem_eq(&REQ(1, struct rdma_ucm_bind_ip)->addr, &src, sizeof(src));
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_bind_ip)->id, 1);
	/* Known from then on: the old command only. */
	ck_assert_int_eq(ucma_resolve_addr(3, 1, NULL, (struct sockaddr *)&dst, 2000), 0);
	ck_assert_int_eq(ncalls, 3);
	ck_assert_uint_eq(calls[2].hdr.cmd, RDMA_USER_CM_CMD_RESOLVE_IP);
	ck_assert_uint_eq(REQ(2, struct rdma_ucm_resolve_ip)->src_addr.sin6_family, 0);
	ck_assert_mem_eq(&REQ(2, struct rdma_ucm_resolve_ip)->dst_addr, &dst, sizeof(dst));
	ck_assert_uint_eq(REQ(2, struct rdma_ucm_resolve_ip)->timeout_ms, 2000);
}
END_TEST

START_TEST(old_kernel_has_no_af_ib)
{
	struct sockaddr_ib sib = { .sib_family = AF_IB };

	kernel = old_kernel;
	ck_assert_int_eq(ucma_bind(3, 1, (struct sockaddr *)&sib), EINVAL);
	ck_assert_int_eq(ncalls, 1);
}
END_TEST

static int refuse_bad_address(uint32_t cmd, void *body)
{
	(void)body;
	return cmd == RDMA_USER_CM_CMD_BIND || cmd == RDMA_USER_CM_CMD_BIND_IP ? EINVAL : 0;
}

START_TEST(refusal_of_both_forms_is_not_an_old_kernel)
{
	struct sockaddr_in sin = ip4("192.0.2.1", 0);

	kernel = refuse_bad_address;
	ck_assert_int_eq(ucma_bind(3, 1, (struct sockaddr *)&sin), EINVAL);
	ck_assert_int_eq(ucma_resolve_addr(3, 1, NULL, (struct sockaddr *)&sin, 10), 0);
	ck_assert_uint_eq(calls[ncalls - 1].hdr.cmd, RDMA_USER_CM_CMD_RESOLVE_ADDR);
}
END_TEST

START_TEST(resolve_addr_encoding)
{
	struct sockaddr_in src = ip4("192.0.2.1", 0);
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	struct sockaddr bad = { .sa_family = AF_UNIX };

	ck_assert_int_eq(ucma_resolve_addr(3, 2, (struct sockaddr *)&src, (struct sockaddr *)&dst, 500), 0);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_RESOLVE_ADDR);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_resolve_addr)->id, 2);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_resolve_addr)->timeout_ms, 500);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_resolve_addr)->src_size, sizeof(src));
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_resolve_addr)->dst_size, sizeof(dst));
	ck_assert_mem_eq(&REQ(0, struct rdma_ucm_resolve_addr)->dst_addr, &dst, sizeof(dst));
	ck_assert_int_eq(ucma_resolve_addr(3, 2, NULL, (struct sockaddr *)&dst, 500), 0);
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_resolve_addr)->src_size, 0);
	ck_assert_int_eq(ucma_resolve_addr(3, 2, &bad, (struct sockaddr *)&dst, 500), EINVAL);
	ck_assert_int_eq(ucma_resolve_addr(3, 2, NULL, &bad, 500), EINVAL);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(ucma_resolve_route(3, 2, 700), 0);
	ck_assert_uint_eq(calls[2].hdr.cmd, RDMA_USER_CM_CMD_RESOLVE_ROUTE);
	ck_assert_uint_eq(REQ(2, struct rdma_ucm_resolve_route)->timeout_ms, 700);
}
END_TEST

static int answer_query(uint32_t cmd, void *body)
{
	struct rdma_ucm_query *q = body;

	ck_assert_uint_eq(cmd, RDMA_USER_CM_CMD_QUERY);
	if (q->option == RDMA_USER_CM_QUERY_ADDR) {
		struct rdma_ucm_query_addr_resp *r = response_of(body);
		struct sockaddr_in src = ip4("192.0.2.1", 5), dst = ip4("192.0.2.2", 6);

		r->node_guid = htobe64(0xfeedface);
		r->port_num = 1;
		r->pkey = htobe16(0xffff);
		r->src_size = sizeof(src);
		r->dst_size = sizeof(dst);
		memcpy(&r->src_addr, &src, sizeof(src));
		memcpy(&r->dst_addr, &dst, sizeof(dst));
	} else if (q->option == RDMA_USER_CM_QUERY_PATH) {
		struct rdma_ucm_query_path_resp *r = response_of(body);
		uint8_t *rec = (uint8_t *)r->path_data[0].path_rec;

		r->num_paths = 1;
		r->path_data[0].flags = 1;
		memset(rec + 8, 0xdd, 16);		/* DGID */
		memset(rec + 24, 0x55, 16);		/* SGID */
		rec[40] = 0x12; rec[41] = 0x34;		/* DLID */
		rec[42] = 0x00; rec[43] = 0x05;		/* SLID */
		/* RawTraffic 1, FlowLabel 0xabcde, HopLimit 64 */
		rec[44] = 0x80 | 0x0a; rec[45] = 0xbc; rec[46] = 0xde; rec[47] = 64;
		rec[48] = 0x20;				/* TClass */
		rec[49] = 0x80 | 1;			/* Reversible, NumbPath 1 */
		rec[50] = 0xff; rec[51] = 0xff;		/* P_Key */
		rec[53] = 0x03;				/* SL 3 */
		rec[54] = (2 << 6) | IBV_MTU_4096;
		rec[55] = (2 << 6) | 3;
		rec[56] = (2 << 6) | 18;
		rec[57] = 1;
	} else {
		struct rdma_ucm_query_addr_resp *r = response_of(body);
		struct sockaddr_ib *src = (struct sockaddr_ib *)&r->src_addr;

		src->sib_family = AF_IB;
		src->sib_pkey = htobe16(0xffff);
		memset(&src->sib_addr, 0x77, sizeof(src->sib_addr));
	}
	return 0;
}

START_TEST(query_addr_decoding)
{
	struct ucma_addr addr;
	struct sockaddr_in want = ip4("192.0.2.2", 6);

	kernel = answer_query;
	memset(&addr, 0xee, sizeof(addr));
	ck_assert_int_eq(ucma_query_addr(3, 4, &addr), 0);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_query)->option, RDMA_USER_CM_QUERY_ADDR);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_query)->id, 4);
	ck_assert_uint_eq(calls[0].hdr.out, sizeof(struct rdma_ucm_query_addr_resp));
	ck_assert_uint_eq(addr.node_guid, htobe64(0xfeedface));
	ck_assert_uint_eq(addr.port_num, 1);
	ck_assert_uint_eq(addr.pkey, htobe16(0xffff));
	ck_assert_uint_eq(addr.src.ss_family, AF_INET);
	ck_assert_mem_eq(&addr.dst, &want, sizeof(want));
	/* Past the address the kernel sized: zeroes, not what was there. */
	ck_assert_uint_eq(((uint8_t *)&addr.dst)[sizeof(want)], 0);
}
END_TEST

START_TEST(query_gid_decoding)
{
	struct sockaddr_ib src, dst;
	union ibv_gid gid;

	kernel = answer_query;
	ck_assert_int_eq(ucma_query_gid(3, 4, &src, &dst), 0);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_query)->option, RDMA_USER_CM_QUERY_GID);
	ck_assert_uint_eq(src.sib_family, AF_IB);
	memset(&gid, 0x77, sizeof(gid));
	ck_assert_mem_eq(&src.sib_addr, &gid, sizeof(gid));
}
END_TEST

START_TEST(query_path_decodes_the_wire_record)
{
	struct ibv_sa_path_rec *paths = NULL, *p;
	union ibv_gid dgid;
	int n = 0;

	kernel = answer_query;
	ck_assert_int_eq(ucma_query_path(3, 4, &paths, &n), 0);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_query)->option, RDMA_USER_CM_QUERY_PATH);
	ck_assert_int_eq(n, 1);
	p = &paths[0];
	memset(&dgid, 0xdd, sizeof(dgid));
	ck_assert_mem_eq(&p->dgid, &dgid, sizeof(dgid));
	ck_assert_uint_eq(p->sgid.raw[0], 0x55);
	ck_assert_uint_eq(p->dlid, htobe16(0x1234));
	ck_assert_uint_eq(p->slid, htobe16(5));
	ck_assert_int_eq(p->raw_traffic, 1);
	ck_assert_uint_eq(p->flow_label, htobe32(0xabcde));
	ck_assert_uint_eq(p->hop_limit, 64);
	ck_assert_uint_eq(p->traffic_class, 0x20);
	ck_assert_int_eq(p->reversible, 1);
	ck_assert_uint_eq(p->numb_path, 1);
	ck_assert_uint_eq(p->pkey, htobe16(0xffff));
	ck_assert_uint_eq(p->sl, 3);
	ck_assert_uint_eq(p->mtu_selector, 2);
	ck_assert_uint_eq(p->mtu, IBV_MTU_4096);
	ck_assert_uint_eq(p->rate, 3);
	ck_assert_uint_eq(p->packet_life_time_selector, 2);
	ck_assert_uint_eq(p->packet_life_time, 18);
	ck_assert_uint_eq(p->preference, 1);
	free(paths);
}
END_TEST

START_TEST(old_kernel_queries_the_route)
{
	struct ibv_sa_path_rec *paths = NULL;
	struct ucma_addr addr;
	int n = 0;

	kernel = old_kernel;
	ck_assert_int_eq(ucma_query_addr(3, 4, &addr), 0);
	ck_assert_uint_eq(calls[1].hdr.cmd, RDMA_USER_CM_CMD_QUERY_ROUTE);
	ck_assert_uint_eq(addr.node_guid, htobe64(0x1122334455667788));
	ck_assert_uint_eq(addr.pkey, htobe16(0xffff));
	ck_assert_uint_eq(addr.src.ss_family, AF_INET6);
	ck_assert_int_eq(ucma_query_path(3, 4, &paths, &n), 0);
	ck_assert_int_eq(ncalls, 3);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(paths[0].dlid, htobe16(7));
	ck_assert_uint_eq(paths[0].mtu, IBV_MTU_1024);
	free(paths);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Connections                                                         */

START_TEST(connect_encoding)
{
	static const char data[] = "hello";
	struct rdma_conn_param param = {
		.private_data = data, .private_data_len = sizeof(data),
		.responder_resources = 2, .initiator_depth = 3, .flow_control = 1,
		.retry_count = 5, .rnr_retry_count = 7, .srq = 1, .qp_num = 0x123456,
	};
	struct ibv_ece ece = { .vendor_id = 0x15b3, .options = 0xabc };
	struct rdma_ucm_connect *c;

	ck_assert_int_eq(ucma_connect(3, 6, &param, &ece), 0);
	c = REQ(0, struct rdma_ucm_connect);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_CONNECT);
	ck_assert_uint_eq(calls[0].hdr.in, sizeof(*c));
	ck_assert_uint_eq(c->id, 6);
	ck_assert_uint_eq(c->conn_param.valid, 1);
	ck_assert_uint_eq(c->conn_param.qp_num, 0x123456);
	ck_assert_uint_eq(c->conn_param.private_data_len, sizeof(data));
	ck_assert_str_eq((char *)c->conn_param.private_data, "hello");
	ck_assert_uint_eq(c->conn_param.responder_resources, 2);
	ck_assert_uint_eq(c->conn_param.initiator_depth, 3);
	ck_assert_uint_eq(c->conn_param.flow_control, 1);
	ck_assert_uint_eq(c->conn_param.retry_count, 5);
	ck_assert_uint_eq(c->conn_param.rnr_retry_count, 7);
	ck_assert_uint_eq(c->conn_param.srq, 1);
	ck_assert_uint_eq(c->ece.vendor_id, 0x15b3);
	ck_assert_uint_eq(c->ece.attr_mod, 0xabc);
}
END_TEST

START_TEST(accept_without_param_is_not_valid)
{
	struct rdma_conn_param param = { .responder_resources = 1 };

	ck_assert_int_eq(ucma_accept(3, 6, 0x5555, NULL, NULL), 0);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_ACCEPT);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_accept)->uid, 0x5555);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_accept)->id, 6);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_accept)->conn_param.valid, 0);
	ck_assert_int_eq(ucma_accept(3, 6, 0x5555, &param, NULL), 0);
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_accept)->conn_param.valid, 1);
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_accept)->conn_param.responder_resources, 1);
}
END_TEST

START_TEST(reject_listen_disconnect_notify)
{
	struct rdma_ucm_reject *r;

	ck_assert_int_eq(ucma_reject(3, 6, "no", 3, 35), 0);
	r = REQ(0, struct rdma_ucm_reject);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_REJECT);
	ck_assert_uint_eq(r->id, 6);
	ck_assert_uint_eq(r->reason, 35);
	ck_assert_uint_eq(r->private_data_len, 3);
	ck_assert_str_eq((char *)r->private_data, "no");
	ck_assert_int_eq(ucma_listen(3, 6, 128), 0);
	ck_assert_uint_eq(calls[1].hdr.cmd, RDMA_USER_CM_CMD_LISTEN);
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_listen)->backlog, 128);
	ck_assert_int_eq(ucma_disconnect(3, 6), 0);
	ck_assert_uint_eq(calls[2].hdr.cmd, RDMA_USER_CM_CMD_DISCONNECT);
	ck_assert_uint_eq(REQ(2, struct rdma_ucm_disconnect)->id, 6);
	ck_assert_int_eq(ucma_notify(3, 6, IBV_EVENT_COMM_EST), 0);
	ck_assert_uint_eq(calls[3].hdr.cmd, RDMA_USER_CM_CMD_NOTIFY);
	ck_assert_uint_eq(REQ(3, struct rdma_ucm_notify)->event, IBV_EVENT_COMM_EST);
}
END_TEST

static int answer_init_qp_attr(uint32_t cmd, void *body)
{
	struct ib_uverbs_qp_attr *r = response_of(body);

	ck_assert_uint_eq(cmd, RDMA_USER_CM_CMD_INIT_QP_ATTR);
	ck_assert_uint_eq(((struct rdma_ucm_init_qp_attr *)body)->qp_state, IBV_QPS_RTR);
	r->qp_attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_DEST_QPN;
	r->qp_state = IBV_QPS_RTR;
	r->path_mtu = IBV_MTU_1024;
	r->dest_qp_num = 0x42;
	r->rq_psn = 0x777;
	r->ah_attr.dlid = 3;
	r->ah_attr.is_global = 1;
	r->ah_attr.grh.hop_limit = 9;
	r->ah_attr.grh.dgid[15] = 1;
	r->ah_attr.port_num = 1;
	r->max_dest_rd_atomic = 4;
	r->min_rnr_timer = 12;
	r->alt_timeout = 14;
	return 0;
}

START_TEST(init_qp_attr_decoding)
{
	struct ibv_qp_attr attr;
	int mask = 0;

	kernel = answer_init_qp_attr;
	memset(&attr, 0xee, sizeof(attr));
	ck_assert_int_eq(ucma_init_qp_attr(3, 6, IBV_QPS_RTR, &attr, &mask), 0);
	ck_assert_uint_eq(calls[0].hdr.out, sizeof(struct ib_uverbs_qp_attr));
	ck_assert_int_eq(mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_DEST_QPN);
	ck_assert_int_eq(attr.qp_state, IBV_QPS_RTR);
	ck_assert_int_eq(attr.path_mtu, IBV_MTU_1024);
	ck_assert_uint_eq(attr.dest_qp_num, 0x42);
	ck_assert_uint_eq(attr.rq_psn, 0x777);
	ck_assert_uint_eq(attr.ah_attr.dlid, 3);
	ck_assert_uint_eq(attr.ah_attr.is_global, 1);
	ck_assert_uint_eq(attr.ah_attr.grh.hop_limit, 9);
	ck_assert_uint_eq(attr.ah_attr.grh.dgid.raw[15], 1);
	ck_assert_uint_eq(attr.ah_attr.port_num, 1);
	ck_assert_uint_eq(attr.max_dest_rd_atomic, 4);
	ck_assert_uint_eq(attr.min_rnr_timer, 12);
	ck_assert_uint_eq(attr.alt_timeout, 14);
	ck_assert_uint_eq(attr.cap.max_send_wr, 0);
}
END_TEST

START_TEST(set_option_passes_the_buffer)
{
	uint8_t tos = 32;
	struct rdma_ucm_set_option *o;

	ck_assert_int_eq(ucma_set_option(3, 6, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1), 0);
	o = REQ(0, struct rdma_ucm_set_option);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_SET_OPTION);
	ck_assert_ptr_eq((void *)(uintptr_t)o->optval, &tos);
	ck_assert_uint_eq(o->level, 0);
	ck_assert_uint_eq(o->optname, 0);
	ck_assert_uint_eq(o->optlen, 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Multicast                                                           */

static int answer_join(uint32_t cmd, void *body)
{
	ck_assert_uint_eq(cmd, RDMA_USER_CM_CMD_JOIN_MCAST);
	((struct rdma_ucm_create_id_resp *)response_of(body))->id = 31;
	return 0;
}

START_TEST(join_encoding)
{
	struct sockaddr_in group = ip4("239.1.1.1", 0);
	uint32_t mc = 0;
	struct rdma_ucm_join_mcast *j;

	kernel = answer_join;
	ck_assert_int_eq(ucma_join_mcast(3, 6, 0xc0ffee, (struct sockaddr *)&group,
					 RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER, &mc), 0);
	ck_assert_uint_eq(mc, 31);
	j = REQ(0, struct rdma_ucm_join_mcast);
	ck_assert_uint_eq(j->uid, 0xc0ffee);
	ck_assert_uint_eq(j->id, 6);
	ck_assert_uint_eq(j->addr_size, sizeof(group));
	ck_assert_uint_eq(j->join_flags, RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER);
	ck_assert_mem_eq(&j->addr, &group, sizeof(group));
}
END_TEST

START_TEST(old_kernel_joins_full_members_only)
{
	struct sockaddr_in group = ip4("239.1.1.1", 0);
	uint32_t mc = 0;

	kernel = old_kernel;
	ck_assert_int_eq(ucma_join_mcast(3, 6, 1, (struct sockaddr *)&group,
					 RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER, &mc), EINVAL);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(ucma_join_mcast(3, 6, 1, (struct sockaddr *)&group,
					 RDMA_MC_JOIN_FLAG_FULLMEMBER, &mc), 0);
	ck_assert_uint_eq(calls[2].hdr.cmd, RDMA_USER_CM_CMD_JOIN_IP_MCAST);
	ck_assert_uint_eq(REQ(2, struct rdma_ucm_join_ip_mcast)->uid, 1);
	ck_assert_uint_eq(mc, 9);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Events                                                              */

static struct rdma_ucm_event_resp next_event;

static int answer_event(uint32_t cmd, void *body)
{
	ck_assert_uint_eq(cmd, RDMA_USER_CM_CMD_GET_EVENT);
	memcpy(response_of(body), &next_event, sizeof(next_event));
	return 0;
}

static uint64_t ud_uid;
static int is_ud_calls;

static bool is_ud(uint64_t uid)
{
	is_ud_calls++;
	return uid == ud_uid;
}

START_TEST(conn_event_decoding)
{
	struct ucma_event e;

	kernel = answer_event;
	memset(&next_event, 0, sizeof(next_event));
	next_event.uid = 0x1234;
	next_event.id = 17;
	next_event.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	next_event.param.conn.private_data_len = 4;
	memcpy(next_event.param.conn.private_data, "abc", 4);
	next_event.param.conn.responder_resources = 1;
	next_event.param.conn.initiator_depth = 2;
	next_event.param.conn.qp_num = 0x99;
	next_event.param.conn.srq = 1;
	next_event.ece.vendor_id = 0x15b3;
	next_event.ece.attr_mod = 5;
	ud_uid = 0;
	ck_assert_int_eq(ucma_get_event(3, &e, is_ud), 0);
	ck_assert_uint_eq(calls[0].hdr.out, sizeof(struct rdma_ucm_event_resp));
	ck_assert_uint_eq(e.uid, 0x1234);
	ck_assert_uint_eq(e.handle, 17);
	ck_assert_int_eq(e.type, RDMA_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(e.param.conn.private_data, e.private_data);
	ck_assert_uint_eq(e.param.conn.private_data_len, 4);
	ck_assert_str_eq((char *)e.private_data, "abc");
	ck_assert_uint_eq(e.param.conn.responder_resources, 1);
	ck_assert_uint_eq(e.param.conn.initiator_depth, 2);
	ck_assert_uint_eq(e.param.conn.qp_num, 0x99);
	ck_assert_uint_eq(e.param.conn.srq, 1);
	ck_assert_uint_eq(e.ece.vendor_id, 0x15b3);
	ck_assert_uint_eq(e.ece.options, 5);
}
END_TEST

START_TEST(ud_event_decoding)
{
	struct ucma_event e;

	kernel = answer_event;
	memset(&next_event, 0, sizeof(next_event));
	next_event.uid = 0x4321;
	next_event.event = RDMA_CM_EVENT_ESTABLISHED;
	next_event.status = (uint32_t)-ETIMEDOUT;
	next_event.param.ud.qp_num = 0x55;
	next_event.param.ud.qkey = RDMA_UDP_QKEY;
	next_event.param.ud.ah_attr.dlid = 0xc001;
	next_event.param.ud.ah_attr.is_global = 1;
	next_event.param.ud.ah_attr.grh.sgid_index = 2;
	next_event.param.ud.ah_attr.grh.dgid[0] = 0xff;
	next_event.param.ud.private_data_len = 2;
	memcpy(next_event.param.ud.private_data, "u", 2);
	ud_uid = 0x4321;
	ck_assert_int_eq(ucma_get_event(3, &e, is_ud), 0);
	ck_assert_int_eq(e.status, -ETIMEDOUT);
	ck_assert_uint_eq(e.param.ud.qp_num, 0x55);
	ck_assert_uint_eq(e.param.ud.qkey, RDMA_UDP_QKEY);
	ck_assert_uint_eq(e.param.ud.ah_attr.dlid, 0xc001);
	ck_assert_uint_eq(e.param.ud.ah_attr.is_global, 1);
	ck_assert_uint_eq(e.param.ud.ah_attr.grh.sgid_index, 2);
	ck_assert_uint_eq(e.param.ud.ah_attr.grh.dgid.raw[0], 0xff);
	ck_assert_ptr_eq(e.param.ud.private_data, e.private_data);
	ck_assert_str_eq((char *)e.private_data, "u");
}
END_TEST

START_TEST(multicast_events_are_ud_without_asking)
{
	struct ucma_event e;

	kernel = answer_event;
	memset(&next_event, 0, sizeof(next_event));
	next_event.uid = 0x7777;
	next_event.event = RDMA_CM_EVENT_MULTICAST_JOIN;
	next_event.param.ud.ah_attr.dlid = 0xc002;
	ud_uid = 0;
	is_ud_calls = 0;
	ck_assert_int_eq(ucma_get_event(3, &e, is_ud), 0);
	ck_assert_int_eq(is_ud_calls, 0);
	ck_assert_uint_eq(e.param.ud.ah_attr.dlid, 0xc002);
}
END_TEST

static int no_event(uint32_t cmd, void *body)
{
	(void)cmd;
	(void)body;
	return EAGAIN;
}

START_TEST(empty_non_blocking_channel)
{
	struct ucma_event e;

	kernel = no_event;
	ck_assert_int_eq(ucma_get_event(3, &e, is_ud), EAGAIN);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The library over the fake device: ids and events                   */

/* A kernel that knows ids and hands out queued events. */
static struct rdma_ucm_event_resp queued[4];
static int nqueued;
static uint32_t handles, destroy_reported;
static int query_error;
static uint64_t join_uid;

static void queue_event(uint64_t uid, uint32_t handle, enum rdma_cm_event_type type)
{
	queued[nqueued++] = (struct rdma_ucm_event_resp){ .uid = uid, .id = handle, .event = type };
}

static int lib_kernel(uint32_t cmd, void *body)
{
	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		((struct rdma_ucm_create_id_resp *)(uintptr_t)
			((struct rdma_ucm_create_id *)body)->response)->id = ++handles;
		return 0;
	case RDMA_USER_CM_CMD_DESTROY_ID:
	case RDMA_USER_CM_CMD_LEAVE_MCAST:
	case RDMA_USER_CM_CMD_MIGRATE_ID:
		((struct rdma_ucm_destroy_id_resp *)response_of(body))->events_reported =
			destroy_reported;
		return 0;
	case RDMA_USER_CM_CMD_GET_EVENT:
		if (!nqueued)
			return EAGAIN;
		memcpy(response_of(body), &queued[0], sizeof(queued[0]));
		memmove(queued, queued + 1, --nqueued * sizeof(queued[0]));
		return 0;
	case RDMA_USER_CM_CMD_QUERY:
		return query_error;
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		join_uid = ((struct rdma_ucm_join_mcast *)body)->uid;
		((struct rdma_ucm_create_id_resp *)response_of(body))->id = 40;
		return 0;
	default:
		return 0;
	}
}

static struct rdma_event_channel channel = { .fd = 3 };

static void lib_setup(void)
{
	setup();
	kernel = lib_kernel;
	nqueued = 0;
	handles = destroy_reported = 0;
	query_error = 0;
}

static int count_calls(uint32_t cmd)
{
	int n = 0;

	for (int i = 0; i < ncalls; i++)
		n += calls[i].hdr.cmd == cmd;
	return n;
}

START_TEST(events_name_their_id)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int context;

	ck_assert_int_eq(rdma_create_id(&channel, &id, &context, RDMA_PS_TCP), 0);
	ck_assert_ptr_eq(id->context, &context);
	ck_assert_int_eq(id->qp_type, IBV_QPT_RC);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_create_id)->uid, (uintptr_t)id);
	queue_event((uintptr_t)id, 1, RDMA_CM_EVENT_DISCONNECTED);
	ck_assert_int_eq(rdma_get_cm_event(&channel, &ev), 0);
	ck_assert_ptr_eq(ev->id, id);
	ck_assert_ptr_null(ev->listen_id);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_DISCONNECTED);
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	destroy_reported = 1;
	ck_assert_int_eq(rdma_destroy_id(id), 0);
}
END_TEST

START_TEST(empty_channel_says_eagain)
{
	struct rdma_cm_event *ev = NULL;

	errno = 0;
	ck_assert_int_eq(rdma_get_cm_event(&channel, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_ptr_null(ev);
	errno = 0;
	ck_assert_int_eq(rdma_get_cm_event(NULL, &ev), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rdma_ack_cm_event(NULL), -1);
	ck_assert_int_eq(rdma_destroy_id(NULL), -1);
	ck_assert_int_eq(rdma_migrate_id(NULL, &channel), -1);
}
END_TEST

static struct rdma_cm_event *held_event;
static volatile bool acked;

static void *ack_later(void *arg)
{
	(void)arg;
	usleep(200 * 1000);
	acked = true;
	rdma_ack_cm_event(held_event);
	return NULL;
}

START_TEST(destroy_waits_for_the_ack)
{
	struct rdma_cm_id *id;
	pthread_t thread;

	ck_assert_int_eq(rdma_create_id(&channel, &id, NULL, RDMA_PS_UDP), 0);
	ck_assert_int_eq(id->qp_type, IBV_QPT_UD);
	queue_event((uintptr_t)id, 1, RDMA_CM_EVENT_ADDR_CHANGE);
	ck_assert_int_eq(rdma_get_cm_event(&channel, &held_event), 0);
	acked = false;
	ck_assert_int_eq(pthread_create(&thread, NULL, ack_later, NULL), 0);
	destroy_reported = 1;
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	ck_assert(acked);
	pthread_join(thread, NULL);
}
END_TEST

START_TEST(migrate_waits_for_the_ack)
{
	struct rdma_event_channel other = { .fd = 4 };
	struct rdma_cm_id *id;
	pthread_t thread;

	ck_assert_int_eq(rdma_create_id(&channel, &id, NULL, RDMA_PS_TCP), 0);
	queue_event((uintptr_t)id, 1, RDMA_CM_EVENT_ADDR_CHANGE);
	ck_assert_int_eq(rdma_get_cm_event(&channel, &held_event), 0);
	acked = false;
	ck_assert_int_eq(pthread_create(&thread, NULL, ack_later, NULL), 0);
	destroy_reported = 1;
	ck_assert_int_eq(rdma_migrate_id(id, &other), 0);
	ck_assert(acked);
	ck_assert_ptr_eq(id->channel, &other);
	ck_assert_int_eq(calls[ncalls - 1].fd, 4);
	ck_assert_uint_eq(REQ(ncalls - 1, struct rdma_ucm_migrate_id)->fd, 3);
	pthread_join(thread, NULL);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	ck_assert_int_eq(calls[ncalls - 1].fd, 4);
}
END_TEST

START_TEST(failed_address_query_is_an_address_error)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	ck_assert_int_eq(rdma_create_id(&channel, &id, NULL, RDMA_PS_TCP), 0);
	queue_event((uintptr_t)id, 1, RDMA_CM_EVENT_ADDR_RESOLVED);
	query_error = ENODEV;
	ck_assert_int_eq(rdma_get_cm_event(&channel, &ev), 0);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_ADDR_ERROR);
	ck_assert_int_eq(ev->status, -ENODEV);
	rdma_ack_cm_event(ev);
	destroy_reported = 1;
	ck_assert_int_eq(rdma_destroy_id(id), 0);
}
END_TEST

START_TEST(request_that_cannot_be_set_up_is_skipped)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listen;

	ck_assert_int_eq(rdma_create_id(&channel, &listen, NULL, RDMA_PS_TCP), 0);
	queue_event((uintptr_t)listen, 55, RDMA_CM_EVENT_CONNECT_REQUEST);
	queue_event((uintptr_t)listen, 1, RDMA_CM_EVENT_ADDR_CHANGE);
	query_error = EIO;
	ck_assert_int_eq(rdma_get_cm_event(&channel, &ev), 0);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_ADDR_CHANGE);
	/* The kernel's new id is gone, and nobody heard of it. */
	ck_assert_int_eq(count_calls(RDMA_USER_CM_CMD_DESTROY_ID), 1);
	for (int i = 0; i < ncalls; i++)
		if (calls[i].hdr.cmd == RDMA_USER_CM_CMD_DESTROY_ID)
			ck_assert_uint_eq(REQ(i, struct rdma_ucm_destroy_id)->id, 55);
	rdma_ack_cm_event(ev);
	/* Both events count as acked. */
	destroy_reported = 2;
	ck_assert_int_eq(rdma_destroy_id(listen), 0);
}
END_TEST

START_TEST(request_brings_a_new_id)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listen, *conn;
	int context;

	ck_assert_int_eq(rdma_create_id(&channel, &listen, &context, RDMA_PS_TCP), 0);
	queue_event((uintptr_t)listen, 55, RDMA_CM_EVENT_CONNECT_REQUEST);
	queued[0].param.conn.private_data_len = 3;
	memcpy(queued[0].param.conn.private_data, "hi", 3);
	ck_assert_int_eq(rdma_get_cm_event(&channel, &ev), 0);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(ev->listen_id, listen);
	conn = ev->id;
	ck_assert_ptr_ne(conn, listen);
	ck_assert_ptr_eq(conn->context, &context);
	ck_assert_ptr_eq(conn->channel, &channel);
	ck_assert_int_eq(conn->ps, RDMA_PS_TCP);
	ck_assert_str_eq(ev->param.conn.private_data, "hi");
	/* The new id's commands name the kernel's handle. */
	destroy_reported = 0;
	ck_assert_int_eq(rdma_destroy_id(conn), 0);
	ck_assert_uint_eq(REQ(ncalls - 1, struct rdma_ucm_destroy_id)->id, 55);
	rdma_ack_cm_event(ev);
	destroy_reported = 1;
	ck_assert_int_eq(rdma_destroy_id(listen), 0);
}
END_TEST

START_TEST(multicast_events_carry_the_join_context)
{
	struct sockaddr_in group = ip4("239.1.1.1", 0);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int context;

	ck_assert_int_eq(rdma_create_id(&channel, &id, NULL, RDMA_PS_UDP), 0);
	ck_assert_int_eq(rdma_join_multicast(id, (struct sockaddr *)&group, &context), 0);
	queue_event(join_uid, 40, RDMA_CM_EVENT_MULTICAST_JOIN);
	queued[0].param.ud.ah_attr.dlid = 0xc003;
	ck_assert_int_eq(rdma_get_cm_event(&channel, &ev), 0);
	ck_assert_ptr_eq(ev->id, id);
	ck_assert_int_eq(ev->event, RDMA_CM_EVENT_MULTICAST_JOIN);
	ck_assert_int_eq(ev->status, 0);
	ck_assert_ptr_eq(ev->param.ud.private_data, &context);
	ck_assert_uint_eq(ev->param.ud.ah_attr.dlid, 0xc003);
	rdma_ack_cm_event(ev);
	destroy_reported = 1;
	ck_assert_int_eq(rdma_leave_multicast(id, (struct sockaddr *)&group), 0);
	ck_assert_uint_eq(REQ(ncalls - 1, struct rdma_ucm_destroy_id)->id, 40);
	errno = 0;
	ck_assert_int_eq(rdma_leave_multicast(id, (struct sockaddr *)&group), -1);
	ck_assert_int_eq(errno, EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_destroy_id(id), 0);
}
END_TEST

START_TEST(join_arguments)
{
	struct sockaddr_in group = ip4("239.1.1.1", 0);
	struct rdma_cm_join_mc_attr_ex attr = {
		.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS,
		.join_flags = RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER,
		.addr = (struct sockaddr *)&group,
	};
	struct rdma_cm_id *id;

	ck_assert_int_eq(rdma_create_id(&channel, &id, NULL, RDMA_PS_UDP), 0);
	errno = 0;
	ck_assert_int_eq(rdma_join_multicast_ex(id, &attr, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	attr.comp_mask |= RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	attr.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	ck_assert_int_eq(rdma_join_multicast_ex(id, &attr, NULL), -1);
	ck_assert_int_eq(rdma_join_multicast(id, NULL, NULL), -1);
	ck_assert_int_eq(count_calls(RDMA_USER_CM_CMD_JOIN_MCAST), 0);
	attr.join_flags = RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
	ck_assert_int_eq(rdma_join_multicast_ex(id, &attr, NULL), 0);
	ck_assert_uint_eq(REQ(ncalls - 1, struct rdma_ucm_join_mcast)->join_flags,
			  RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER);
	/* The kernel forgets joins with their id. */
	ck_assert_int_eq(rdma_destroy_id(id), 0);
	ck_assert_int_eq(count_calls(RDMA_USER_CM_CMD_LEAVE_MCAST), 0);
}
END_TEST

START_TEST(event_names)
{
	ck_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_ADDR_RESOLVED), "RDMA_CM_EVENT_ADDR_RESOLVED");
	ck_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_TIMEWAIT_EXIT), "RDMA_CM_EVENT_TIMEWAIT_EXIT");
	ck_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_TIMEWAIT_EXIT + 1), "UNKNOWN EVENT");
	ck_assert_str_eq(rdma_event_str(-1), "UNKNOWN EVENT");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ucma");
	TCase *ids = tcase_create("ids");
	TCase *addr = tcase_create("addresses");
	TCase *conn = tcase_create("connections");
	TCase *mc = tcase_create("multicast");
	TCase *ev = tcase_create("events");
	TCase *lib = tcase_create("library");
	TCase *all[] = { ids, addr, conn, mc, ev };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, NULL);
		suite_add_tcase(s, all[i]);
	}
	tcase_add_checked_fixture(lib, lib_setup, NULL);
	suite_add_tcase(s, lib);
	tcase_add_test(lib, events_name_their_id);
	tcase_add_test(lib, empty_channel_says_eagain);
	tcase_add_test(lib, destroy_waits_for_the_ack);
	tcase_add_test(lib, migrate_waits_for_the_ack);
	tcase_add_test(lib, failed_address_query_is_an_address_error);
	tcase_add_test(lib, request_that_cannot_be_set_up_is_skipped);
	tcase_add_test(lib, request_brings_a_new_id);
	tcase_add_test(lib, multicast_events_carry_the_join_context);
	tcase_add_test(lib, join_arguments);
	tcase_add_test(lib, event_names);
	tcase_add_test(ids, create_id_encoding);
	tcase_add_test(ids, destroy_and_leave_report_events);
	tcase_add_test(ids, errors_come_back_positive);
	tcase_add_test(ids, migrate_is_written_to_the_new_channel);
	tcase_add_test(addr, bind_sizes_the_address);
	tcase_add_test(addr, old_kernel_binds_and_resolves_ip);
	tcase_add_test(addr, old_kernel_has_no_af_ib);
	tcase_add_test(addr, refusal_of_both_forms_is_not_an_old_kernel);
	tcase_add_test(addr, resolve_addr_encoding);
	tcase_add_test(addr, query_addr_decoding);
	tcase_add_test(addr, query_gid_decoding);
	tcase_add_test(addr, query_path_decodes_the_wire_record);
	tcase_add_test(addr, old_kernel_queries_the_route);
	tcase_add_test(conn, connect_encoding);
	tcase_add_test(conn, accept_without_param_is_not_valid);
	tcase_add_test(conn, reject_listen_disconnect_notify);
	tcase_add_test(conn, init_qp_attr_decoding);
	tcase_add_test(conn, set_option_passes_the_buffer);
	tcase_add_test(mc, join_encoding);
	tcase_add_test(mc, old_kernel_joins_full_members_only);
	tcase_add_test(ev, conn_event_decoding);
	tcase_add_test(ev, ud_event_decoding);
	tcase_add_test(ev, multicast_events_are_ud_without_asking);
	tcase_add_test(ev, empty_non_blocking_channel);
	/* old_kernel is remembered: every test in a process of its own. */
	return unit_run(s, CK_FORK);
}
