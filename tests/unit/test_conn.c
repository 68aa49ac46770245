/* SPDX-License-Identifier: MIT */
/*
 * librdmacm's connection calls on an id the test builds by hand, with
 * the kernel behind ucma_sys: what rdma_connect/accept/reject/establish
 * send (conn param defaults, depth limits, QP number, ECE, reject
 * reasons), what the library keeps from connection events, the checks
 * that refuse bad arguments before the kernel sees them, and the
 * attributes rdma_create_srq hands to libibverbs.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel_cm.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* The fake kernel and a hand-made id                                  */

struct call {
	struct rdma_ucm_cmd_hdr hdr;
	uint8_t body[1024];
};

static struct call calls[4];
static int ncalls;

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	struct call *c = &calls[ncalls++];

	ck_assert_int_lt(ncalls, 4);
	ck_assert_int_eq(fd, 42);
	ck_assert_uint_le(len, sizeof(*c));
	memcpy(c, buf, len);
	return (ssize_t)len;
}

#define REQ(i, type) ((type *)calls[i].body)

static struct rdma_event_channel channel = { .fd = 42 };
static struct cma_device device = {
	.max_initiator_depth = 4,
	.max_responder_resources = 8,
};
static struct ibv_context verbs;
static struct ibv_pd pd = { .context = &verbs };
static struct cma_id *id;

static void setup(void)
{
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
	ucma_sys.write = fake_write;
	id = calloc(1, sizeof(*id));
	ck_assert_ptr_nonnull(id);
	id->handle = 7;
	id->dev = &device;
	id->id.channel = &channel;
	id->id.verbs = &verbs;
	id->id.pd = &pd;
	id->id.ps = RDMA_PS_TCP;
	id->id.qp_type = IBV_QPT_RC;
}

static void teardown(void)
{
	free(id);
}

/* A QP the library would have created: only its number and SRQ count. */
static struct ibv_srq some_srq;
static struct ibv_qp managed_qp = { .qp_num = 0x77, .srq = &some_srq };

/* The provider has no ECE: the id's own is sent. */
int __wrap_ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece);
int __wrap_ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */
/* Connect                                                             */

START_TEST(connect_without_qp_or_param_is_refused)
{
	errno = 0;
	ck_assert_int_eq(rdma_connect(&id->id, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 0);
	ck_assert_int_eq(rdma_connect(NULL, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(connect_before_resolution_is_refused)
{
	struct rdma_conn_param param = { .qp_num = 1 };

	id->dev = NULL;
	ck_assert_int_eq(rdma_connect(&id->id, &param), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 0);
}
END_TEST

START_TEST(connect_sends_the_param_with_device_depths)
{
	static const char data[] = "abc";
	struct ibv_ece ece = { .vendor_id = 0x15b3, .options = 0x42 };
	struct rdma_conn_param param = {
		.private_data = data,
		.private_data_len = 3,
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.flow_control = 1,
		.retry_count = 5,
		.rnr_retry_count = 6,
		.srq = 1,
		.qp_num = 0x123,
	};
	struct rdma_ucm_connect *req;

	ck_assert_int_eq(rdma_set_local_ece(&id->id, &ece), 0);
	ck_assert_int_eq(rdma_connect(&id->id, &param), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_CONNECT);
	req = REQ(0, struct rdma_ucm_connect);
	ck_assert_uint_eq(req->id, 7);
	ck_assert_uint_eq(req->conn_param.valid, 1);
	ck_assert_uint_eq(req->conn_param.qp_num, 0x123);
	ck_assert_uint_eq(req->conn_param.srq, 1);
	ck_assert_uint_eq(req->conn_param.initiator_depth, 4);
	ck_assert_uint_eq(req->conn_param.responder_resources, 8);
	ck_assert_uint_eq(req->conn_param.flow_control, 1);
	ck_assert_uint_eq(req->conn_param.retry_count, 5);
	ck_assert_uint_eq(req->conn_param.rnr_retry_count, 6);
	ck_assert_uint_eq(req->conn_param.private_data_len, 3);
	ck_assert_mem_eq(req->conn_param.private_data, "abc", 3);
	ck_assert_uint_eq(req->ece.vendor_id, 0x15b3);
	ck_assert_uint_eq(req->ece.attr_mod, 0x42);
}
END_TEST

START_TEST(connect_depths_beyond_the_device_are_refused)
{
	struct rdma_conn_param param = { .initiator_depth = 5, .qp_num = 1 };

	ck_assert_int_eq(rdma_connect(&id->id, &param), -1);
	ck_assert_int_eq(errno, EINVAL);
	param = (struct rdma_conn_param){ .responder_resources = 9, .qp_num = 1 };
	ck_assert_int_eq(rdma_connect(&id->id, &param), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 0);
	/* Within the limits they go as given. */
	param = (struct rdma_conn_param){ .initiator_depth = 2, .responder_resources = 3 };
	ck_assert_int_eq(rdma_connect(&id->id, &param), 0);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_connect)->conn_param.initiator_depth, 2);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_connect)->conn_param.responder_resources, 3);
}
END_TEST

START_TEST(connect_on_udp_has_no_depth_limits)
{
	struct rdma_conn_param param = { .initiator_depth = 200, .qp_num = 1 };

	id->id.ps = RDMA_PS_UDP;
	id->id.qp_type = IBV_QPT_UD;
	ck_assert_int_eq(rdma_connect(&id->id, &param), 0);
	ck_assert_int_eq(ncalls, 1);
}
END_TEST

START_TEST(connect_names_the_managed_qp_with_full_retries)
{
	struct rdma_ucm_connect *req;

	id->id.qp = &managed_qp;
	ck_assert_int_eq(rdma_connect(&id->id, NULL), 0);
	req = REQ(0, struct rdma_ucm_connect);
	ck_assert_uint_eq(req->conn_param.qp_num, 0x77);
	ck_assert_uint_eq(req->conn_param.srq, 1);
	ck_assert_uint_eq(req->conn_param.retry_count, 7);
	ck_assert_uint_eq(req->conn_param.rnr_retry_count, 7);
	ck_assert_uint_eq(req->conn_param.private_data_len, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The passive side                                                    */

/* A connection request as event.c hands it on: for the new id. */
static void deliver_request(uint8_t initiator_depth, uint8_t responder_resources)
{
	struct cma_event evt = { .id = id };

	evt.event.id = &id->id;
	evt.event.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	evt.event.param.conn.initiator_depth = initiator_depth;
	evt.event.param.conn.responder_resources = responder_resources;
	evt.kernel.ece = (struct ibv_ece){ .vendor_id = 5, .options = 6 };
	ck_assert_int_eq(cma_conn_event(&evt), 0);
}

START_TEST(accept_offers_the_request_within_the_device)
{
	struct rdma_conn_param param = {
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.qp_num = 9,
	};
	struct rdma_ucm_accept *req;
	struct ibv_ece ece;

	deliver_request(16, 2);
	ck_assert_int_eq(rdma_get_remote_ece(&id->id, &ece), 0);
	ck_assert_uint_eq(ece.vendor_id, 5);
	ck_assert_uint_eq(ece.options, 6);
	ck_assert_int_eq(rdma_accept(&id->id, &param), 0);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_ACCEPT);
	req = REQ(0, struct rdma_ucm_accept);
	ck_assert_uint_eq(req->id, 7);
	ck_assert_uint_eq(req->uid, (uintptr_t)id);
	ck_assert_uint_eq(req->conn_param.valid, 1);
	ck_assert_uint_eq(req->conn_param.qp_num, 9);
	ck_assert_uint_eq(req->conn_param.initiator_depth, 4);	/* min(16, device 4) */
	ck_assert_uint_eq(req->conn_param.responder_resources, 2);	/* min(2, device 8) */
}
END_TEST

START_TEST(accept_without_qp_or_param_is_refused)
{
	deliver_request(1, 1);
	id->id.ps = RDMA_PS_UDP;
	id->id.qp_type = IBV_QPT_UD;
	ck_assert_int_eq(rdma_accept(&id->id, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 0);
}
END_TEST

START_TEST(reject_reasons)
{
	ck_assert_int_eq(rdma_reject(&id->id, "no", 2), 0);
	ck_assert_int_eq(rdma_reject_ece(&id->id, NULL, 5), 0);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_REJECT);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_reject)->reason, 0);	/* the kernel's consumer-defined */
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_reject)->private_data_len, 2);
	ck_assert_mem_eq(REQ(0, struct rdma_ucm_reject)->private_data, "no", 2);
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_reject)->reason, 35);
	ck_assert_uint_eq(REQ(1, struct rdma_ucm_reject)->private_data_len, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The active side's completion                                        */

START_TEST(establish_sends_an_accept_without_param)
{
	ck_assert_int_eq(rdma_establish(&id->id), 0);
	ck_assert_uint_eq(calls[0].hdr.cmd, RDMA_USER_CM_CMD_ACCEPT);
	ck_assert_uint_eq(REQ(0, struct rdma_ucm_accept)->conn_param.valid, 0);
	id->id.qp = &managed_qp;
	ck_assert_int_eq(rdma_establish(&id->id), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 1);
}
END_TEST

START_TEST(connect_response_without_qp_is_the_users)
{
	struct cma_event evt = { .id = id };

	evt.event.id = &id->id;
	evt.event.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
	evt.kernel.ece = (struct ibv_ece){ .vendor_id = 3, .options = 4 };
	ck_assert_int_eq(cma_conn_event(&evt), 0);
	ck_assert_int_eq(evt.event.event, RDMA_CM_EVENT_CONNECT_RESPONSE);
	ck_assert_uint_eq(id->remote_ece.vendor_id, 3);
	ck_assert_int_eq(ncalls, 0);
}
END_TEST

START_TEST(events_after_a_connect_error_are_dropped)
{
	struct cma_event evt = { .id = id };

	evt.event.id = &id->id;
	evt.event.event = RDMA_CM_EVENT_DISCONNECTED;
	ck_assert_int_eq(cma_conn_event(&evt), 0);
	id->connect_error = true;
	ck_assert_int_eq(cma_conn_event(&evt), ECANCELED);
	evt.event.event = RDMA_CM_EVENT_REJECTED;
	ck_assert_int_eq(cma_conn_event(&evt), ECANCELED);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Arguments                                                           */

START_TEST(ece_setters_check_their_arguments)
{
	struct ibv_ece ece = { .vendor_id = 1 };

	ck_assert_int_eq(rdma_set_local_ece(&id->id, &(struct ibv_ece){ .vendor_id = 0 }), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rdma_set_local_ece(&id->id, &(struct ibv_ece){ .vendor_id = 1, .comp_mask = 1 }), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rdma_set_local_ece(&id->id, NULL), -1);
	ck_assert_int_eq(rdma_get_remote_ece(NULL, &ece), -1);
	id->id.qp = &managed_qp;	/* a managed QP speaks for itself */
	ck_assert_int_eq(rdma_set_local_ece(&id->id, &ece), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rdma_get_remote_ece(&id->id, &ece), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(bind_refuses_unknown_families_before_the_kernel)
{
	struct sockaddr_un_like {
		sa_family_t family;
		char path[20];
	} un = { .family = AF_UNIX };

	ck_assert_int_eq(rdma_bind_addr(&id->id, (struct sockaddr *)&un), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rdma_bind_addr(&id->id, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(rdma_resolve_addr(&id->id, NULL, NULL, 100), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 0);
}
END_TEST

START_TEST(ports_of_each_family)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)&id->id.route.addr.src_storage;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&id->id.route.addr.dst_storage;

	sib->sib_family = AF_IB;
	sib->sib_sid = htobe64(RDMA_IB_IP_PS_TCP | 0x1234);
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(7471);
	ck_assert_uint_eq(ntohs(rdma_get_src_port(&id->id)), 0x1234);
	ck_assert_uint_eq(ntohs(rdma_get_dst_port(&id->id)), 7471);
	ck_assert_uint_eq(rdma_get_src_port(NULL), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* SRQs                                                                */

static struct ibv_srq created_srq;
static struct ibv_pd *srq_pd;
static struct ibv_srq_init_attr srq_attr;

/* Where ibv_create_srq_ex() goes for a plain SRQ on a PD. */
struct ibv_srq *__wrap_ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
struct ibv_srq *__wrap_ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	srq_pd = pd;
	srq_attr = *attr;
	return &created_srq;
}

START_TEST(create_srq_uses_the_ids_pd)
{
	struct ibv_srq_init_attr attr = { .attr = { .max_wr = 4, .max_sge = 1 } };

	/* The caller's tail padding must not wipe the extended fields. */
	memset((char *)&attr + offsetof(struct ibv_srq_init_attr, attr) + sizeof(attr.attr), 0xff,
	       sizeof(attr) - offsetof(struct ibv_srq_init_attr, attr) - sizeof(attr.attr));
	ck_assert_int_eq(rdma_create_srq(&id->id, NULL, &attr), 0);
	ck_assert_ptr_eq(id->id.srq, &created_srq);
	ck_assert_ptr_eq(srq_pd, &pd);
	ck_assert_uint_eq(srq_attr.attr.max_wr, 4);
	id->id.srq = NULL;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("conn");
	TCase *active = tcase_create("active");
	TCase *passive = tcase_create("passive");
	TCase *args = tcase_create("arguments");
	TCase *all[] = { active, passive, args };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, teardown);
		suite_add_tcase(s, all[i]);
	}
	tcase_add_test(active, connect_without_qp_or_param_is_refused);
	tcase_add_test(active, connect_before_resolution_is_refused);
	tcase_add_test(active, connect_sends_the_param_with_device_depths);
	tcase_add_test(active, connect_depths_beyond_the_device_are_refused);
	tcase_add_test(active, connect_on_udp_has_no_depth_limits);
	tcase_add_test(active, connect_names_the_managed_qp_with_full_retries);
	tcase_add_test(active, establish_sends_an_accept_without_param);
	tcase_add_test(active, connect_response_without_qp_is_the_users);
	tcase_add_test(active, events_after_a_connect_error_are_dropped);
	tcase_add_test(passive, accept_offers_the_request_within_the_device);
	tcase_add_test(passive, accept_without_qp_or_param_is_refused);
	tcase_add_test(passive, reject_reasons);
	tcase_add_test(args, ece_setters_check_their_arguments);
	tcase_add_test(args, bind_refuses_unknown_families_before_the_kernel);
	tcase_add_test(args, ports_of_each_family);
	tcase_add_test(args, create_srq_uses_the_ids_pd);
	return unit_run(s, CK_FORK_GETENV);
}
