/* SPDX-License-Identifier: MIT */
/*
 * The ibv_cmd_* helpers for objects only NICs have (XRC domains and QPs,
 * WQs and indirection tables, flows and ESP actions, counters, device
 * memory, CQ moderation, XRC/tag-matching SRQs) and for extended CQs,
 * against the recording fake kernel: the bytes each sends over write()
 * and ioctl, the fallback between the two, their effects on the plugin's
 * objects and their argument checks (FACTS section H).  rxe and siw have
 * none of these objects, so the real-kernel tests cannot reach them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat/plugins/commands.h"
#include "fake_uverbs.h"
#include "provider_buf.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* The ioctl kernel                                                    */

/* What the kernel answers in an attribute: a new object's handle, or
 * every element of an output. */
struct answer {
	uint16_t object, method, attr_id;
	uint32_t value;
};

static const struct answer answers[] = {
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_CREATE_WQ_HANDLE, 0x21 },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, 64 },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, 2 },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, 0x99 },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY, UVERBS_ATTR_DESTROY_WQ_RESP, 1 },
	{ UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE,
	  UVERBS_ATTR_CREATE_COUNTERS_HANDLE, 0x31 },
	{ UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ, UVERBS_ATTR_READ_COUNTERS_BUFF, 5 },
	{ UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, UVERBS_ATTR_ALLOC_DM_HANDLE, 0x41 },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, UVERBS_ATTR_REG_DM_MR_HANDLE, 0x42 },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, UVERBS_ATTR_REG_DM_MR_RESP_LKEY, 0x43 },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, UVERBS_ATTR_REG_DM_MR_RESP_RKEY, 0x44 },
	{ UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE,
	  UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE, 0x51 },
	{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, UVERBS_ATTR_CREATE_CQ_HANDLE, 7 },
	{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, UVERBS_ATTR_CREATE_CQ_RESP_CQE, 31 },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_HANDLE, 0x61 },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, 16 },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, 1 },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, 0x62 },
};

static void answer(struct ib_uverbs_attr *a, uint32_t value)
{
	if (!a->len) {
		a->data = value;
		return;
	}
	/* Outputs of 8-byte elements (counter values) or of one u32. */
	if (a->len % 8 == 0) {
		for (unsigned int i = 0; i < a->len / 8; i++)
			((uint64_t *)ptr(a))[i] = value;
	} else {
		*(uint32_t *)ptr(a) = value;
	}
}

static int answering_ioctl(struct ib_uverbs_ioctl_hdr *hdr)
{
	for (unsigned int i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];

		if (a->attr_id == UVERBS_ATTR_UHW_OUT)
			memset(ptr(a), 0xab, a->len);
		if (a->attr_id == DRIVER_ATTR)
			a->data = 0x77;
		for (size_t j = 0; j < sizeof(answers) / sizeof(answers[0]); j++)
			if (answers[j].object == hdr->object_id && answers[j].method == hdr->method_id &&
			    answers[j].attr_id == a->attr_id)
				answer(a, answers[j].value);
	}
	return 0;
}

/* A kernel without any of these methods: the helpers use write(). */
static int no_such_method(struct ib_uverbs_ioctl_hdr *hdr)
{
	(void)hdr;
	return EPROTONOSUPPORT;
}

/* The request after the write() headers (8 bytes, 24 for extended). */
static void *write_req(const struct call *c)
{
	bool ex = c->cmd.command & IB_USER_VERBS_CMD_FLAG_EXTENDED;

	return (void *)(c->raw + sizeof(struct ib_uverbs_cmd_hdr) +
			(ex ? sizeof(struct ib_uverbs_ex_cmd_hdr) : 0));
}

static const struct ib_uverbs_ex_cmd_hdr *ex_hdr(const struct call *c)
{
	return (const void *)(c->raw + sizeof(struct ib_uverbs_cmd_hdr));
}

/* One mandatory DRIVER_ATTR, which a write() could not carry. */
static void link_init(struct provider_buf *l, uint16_t object, uint16_t method)
{
	buf_init(l, object, method);
	buf_add(l, DRIVER_ATTR, 0, 0);
}

/* ------------------------------------------------------------------ */
/* XRC domains and QPs                                                 */

START_TEST(open_xrcd_bytes_and_effects)
{
	struct ibv_context *ctx = new_ctx("write");
	struct {
		struct ibv_open_xrcd core;
		uint64_t drv;
	} cmd = { .drv = 0x0102030405060708ULL };
	struct {
		struct ib_uverbs_open_xrcd_resp core;
		uint32_t drv;
	} resp = {};
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = 5, .oflags = O_CREAT,
	};
	struct verbs_xrcd xrcd = {};
	struct ib_uverbs_open_xrcd *req;

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_open_xrcd(ctx, &xrcd, sizeof(xrcd), &attr, &cmd.core,
					   sizeof(cmd), &resp.core, sizeof(resp)), 0);
	ck_assert_int_eq(calls[0].kind, WRITE);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_OPEN_XRCD);
	ck_assert_uint_eq(calls[0].len, sizeof(cmd));
	ck_assert_uint_eq(calls[0].cmd.in_words, sizeof(cmd) / 4);
	ck_assert_uint_eq(calls[0].cmd.out_words, sizeof(resp) / 4);
	req = write_req(&calls[0]);
	ck_assert_uint_ne(req->response, 0);
	ck_assert_int_eq(req->fd, 5);
	ck_assert_uint_eq(req->oflags, O_CREAT);
	/* The driver's bytes right after the 24-byte wrapper. */
	ck_assert_int_eq(memcmp(calls[0].raw + sizeof(cmd.core), &cmd.drv, 8), 0);
	ck_assert_ptr_eq(xrcd.xrcd.context, ctx);
	ck_assert_uint_eq(xrcd.comp_mask, VERBS_XRCD_HANDLE);
	ck_assert_uint_eq(xrcd.handle, 0x11111111);
	ck_assert_uint_eq(resp.drv, 0x11111111);

	/* An older plugin's domain ends before the handle: left alone. */
	xrcd = (struct verbs_xrcd){ .handle = 0x5a5a };
	ck_assert_int_eq(ibv_cmd_open_xrcd(ctx, &xrcd, offsetof(struct verbs_xrcd, handle), &attr,
					   &cmd.core, sizeof(cmd), &resp.core, sizeof(resp)), 0);
	ck_assert_uint_eq(xrcd.comp_mask, 0);
	ck_assert_uint_eq(xrcd.handle, 0x5a5a);
	free_ctx(ctx);
}
END_TEST

START_TEST(open_xrcd_checks)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_xrcd_init_attr attr = { .comp_mask = IBV_XRCD_INIT_ATTR_FD, .fd = 5 };
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd xrcd;

	errno = 0;
	ck_assert_int_eq(ibv_cmd_open_xrcd(ctx, &xrcd, sizeof(xrcd), &attr, &cmd, sizeof(cmd),
					   &resp, sizeof(resp)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	attr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS | IBV_XRCD_INIT_ATTR_RESERVED;
	ck_assert_int_eq(ibv_cmd_open_xrcd(ctx, &xrcd, sizeof(xrcd), &attr, &cmd, sizeof(cmd),
					   &resp, sizeof(resp)), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 0);
	free_ctx(ctx);
}
END_TEST

/* Linux 6.1 has the XRCD destroy method; without it, CLOSE_XRCD. */
START_TEST(close_xrcd_falls_back_to_write)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct verbs_xrcd xrcd = { .xrcd.context = ctx, .comp_mask = VERBS_XRCD_HANDLE,
				   .handle = 0x33 };
	uint32_t handle;

	kernel_ioctl = no_such_method;
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_close_xrcd(&xrcd), 0);
	/* The method, the tunnel of the legacy command, then write(). */
	ck_assert_int_eq(ncalls, 3);
	expect_hdr(&calls[0], UVERBS_OBJECT_XRCD, UVERBS_METHOD_XRCD_DESTROY, 1);
	expect_attr(&calls[0], 0, UVERBS_ATTR_DESTROY_XRCD_HANDLE, 0, 0x33);
	ck_assert_uint_eq(calls[1].hdr.method_id, UVERBS_METHOD_INVOKE_WRITE);
	ck_assert_int_eq(calls[2].kind, WRITE);
	ck_assert_uint_eq(calls[2].cmd.command, IB_USER_VERBS_CMD_CLOSE_XRCD);
	memcpy(&handle, write_req(&calls[2]), sizeof(handle));
	ck_assert_uint_eq(handle, 0x33);
	free_ctx(ctx);
}
END_TEST

START_TEST(open_qp_bytes_and_effects)
{
	struct ibv_context *ctx = new_ctx("write");
	struct verbs_xrcd xrcd = { .xrcd.context = ctx, .comp_mask = VERBS_XRCD_HANDLE,
				   .handle = 0x12 };
	struct ibv_qp_open_attr attr = {
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE |
			     IBV_QP_OPEN_ATTR_CONTEXT,
		.qp_num = 0x345, .xrcd = &xrcd.xrcd, .qp_context = &attr,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct ib_uverbs_open_qp *req;
	struct verbs_qp qp;

	memset(&qp, 0x5a, sizeof(qp));
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_open_qp(ctx, &qp, sizeof(qp), &attr, &cmd, sizeof(cmd), &resp,
					 sizeof(resp)), 0);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_OPEN_QP);
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->user_handle, (uintptr_t)&qp);
	ck_assert_uint_eq(req->pd_handle, 0x12);	/* the domain's handle */
	ck_assert_uint_eq(req->qpn, 0x345);
	ck_assert_uint_eq(req->qp_type, IBV_QPT_XRC_RECV);
	ck_assert_uint_eq(qp.qp.handle, 0x11111111);
	ck_assert_uint_eq(qp.qp.qp_num, 0x11111111);
	ck_assert_ptr_eq(qp.qp.context, ctx);
	ck_assert_ptr_eq(qp.qp.qp_context, &attr);
	ck_assert_ptr_null(qp.qp.pd);
	ck_assert_ptr_null(qp.qp.send_cq);
	ck_assert_ptr_null(qp.qp.recv_cq);
	ck_assert_ptr_null(qp.qp.srq);
	ck_assert_int_eq(qp.qp.qp_type, IBV_QPT_XRC_RECV);
	ck_assert_int_eq(qp.qp.state, IBV_QPS_UNKNOWN);
	ck_assert_uint_eq(qp.qp.events_completed, 0);
	ck_assert_uint_eq(qp.comp_mask, VERBS_QP_XRCD);
	ck_assert_ptr_eq(qp.xrcd, &xrcd);
	free_ctx(ctx);
}
END_TEST

/* A v45+ plugin's verbs_qp is longer, its XRC fields further, where a v44
 * one has them its ibv_qp_ex.wr_flush (V56-ADDITIONS 3; 8 bytes on x86_64,
 * commands.h): the size it passes says where. */
START_TEST(open_qp_xrc_fields_of_the_plugins_release)
{
	struct ibv_context *ctx = new_ctx("write");
	struct verbs_xrcd xrcd = { .xrcd.context = ctx, .handle = 0x12 };
	struct ibv_qp_open_attr attr = {
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 1, .xrcd = &xrcd.xrcd, .qp_type = IBV_QPT_XRC_RECV,
	};
	union {
		struct verbs_qp v44;
		struct verbs_qp_v45 v45;
	} qp;
	uint8_t flush[sizeof(qp.v45.qp_ex_v45.wr_flush)];
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;

	memset(&qp, 0, sizeof(qp));
	memset(flush, 0x5a, sizeof(flush));
	memcpy(&qp.v45.qp_ex_v45.wr_flush, flush, sizeof(flush));
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_open_qp(ctx, &qp.v44, sizeof(struct verbs_qp_v45), &attr, &cmd,
					 sizeof(cmd), &resp, sizeof(resp)), 0);
	ck_assert_mem_eq(&qp.v45.qp_ex_v45.wr_flush, flush, sizeof(flush));
	ck_assert_uint_eq(qp.v45.comp_mask, VERBS_QP_XRCD);
	ck_assert_ptr_eq(qp.v45.xrcd, &xrcd);

	/* Too short to hold xrcd: nothing written past the QP. */
	memset(&qp, 0, sizeof(qp));
	ck_assert_int_eq(ibv_cmd_open_qp(ctx, &qp.v44, offsetof(struct verbs_qp, xrcd), &attr,
					 &cmd, sizeof(cmd), &resp, sizeof(resp)), 0);
	ck_assert_uint_eq(qp.v44.comp_mask, 0);
	ck_assert_ptr_null(qp.v44.xrcd);
	free_ctx(ctx);
}
END_TEST

START_TEST(open_qp_checks)
{
	struct ibv_context *ctx = new_ctx("write");
	struct verbs_xrcd xrcd = { .xrcd.context = ctx, .handle = 0x12 };
	struct ibv_qp_open_attr attr = {
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM,
		.xrcd = &xrcd.xrcd, .qp_type = IBV_QPT_XRC_RECV,
	};
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct verbs_qp qp;

	ck_assert_int_eq(ibv_cmd_open_qp(ctx, &qp, sizeof(qp), &attr, &cmd, sizeof(cmd), &resp,
					 sizeof(resp)), EINVAL);
	attr.comp_mask |= IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_RESERVED;
	ck_assert_int_eq(ibv_cmd_open_qp(ctx, &qp, sizeof(qp), &attr, &cmd, sizeof(cmd), &resp,
					 sizeof(resp)), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 0);
	free_ctx(ctx);
}
END_TEST

START_TEST(modify_qp_ex_rate_limit)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_qp qp = { .context = ctx, .handle = 5 };
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTS, .rate_limit = 1000 };
	struct {
		struct ibv_modify_qp_ex core;
		uint64_t drv;
	} cmd = { .drv = 0x99 };
	struct ib_uverbs_ex_modify_qp_resp resp;
	struct ib_uverbs_ex_modify_qp *req;

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_modify_qp_ex(&qp, &attr, IBV_QP_STATE | IBV_QP_RATE_LIMIT,
					      &cmd.core, sizeof(cmd), &resp, sizeof(resp)), 0);
	ck_assert_uint_eq(calls[0].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_QP);
	ck_assert_uint_eq(calls[0].cmd.in_words, sizeof(*req) / 8);
	ck_assert_uint_eq(ex_hdr(&calls[0])->provider_in_words, 1);
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->base.qp_handle, 5);
	ck_assert_uint_eq(req->base.attr_mask, IBV_QP_STATE | IBV_QP_RATE_LIMIT);
	ck_assert_uint_eq(req->base.qp_state, IBV_QPS_RTS);
	ck_assert_uint_eq(req->rate_limit, 1000);
	ck_assert_uint_eq(req->reserved, 0);
	ck_assert_uint_eq(resp.response_length, 0x11111111);

	/* A command too short for the rate limit; a mask bit beyond it. */
	ck_assert_int_eq(ibv_cmd_modify_qp_ex(&qp, &attr, IBV_QP_RATE_LIMIT, &cmd.core,
					      offsetof(struct ibv_modify_qp_ex,
						       core_payload.rate_limit),
					      &resp, sizeof(resp)), EINVAL);
	ck_assert_int_eq(ibv_cmd_modify_qp_ex(&qp, &attr, IBV_QP_RATE_LIMIT << 1, &cmd.core,
					      sizeof(cmd), &resp, sizeof(resp)), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 1);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* WQs and indirection tables                                          */

START_TEST(create_wq_ioctl_bytes_and_effects)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_cq cq = { .context = ctx, .handle = 4 };
	struct ibv_wq_init_attr attr = { .wq_type = IBV_WQT_RQ, .max_wr = 10, .max_sge = 1,
					 .pd = &pd, .cq = &cq };
	struct {
		struct ibv_create_wq core;
		uint64_t drv;
	} cmd = { .drv = 0xcafe };
	struct {
		struct ib_uverbs_ex_create_wq_resp core;
		uint64_t drv;
	} resp = {};
	struct ibv_wq wq = {};

	kernel_ioctl = answering_ioctl;
	ck_assert_int_eq(ibv_cmd_create_wq(ctx, &attr, &wq, &cmd.core, sizeof(cmd), &resp.core,
					   sizeof(resp)), 0);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, 12);
	expect_attr(&calls[0], 0, UVERBS_ATTR_CREATE_WQ_HANDLE, 0, 0);
	expect_attr(&calls[0], 1, UVERBS_ATTR_CREATE_WQ_PD_HANDLE, 0, 3);
	expect_attr(&calls[0], 2, UVERBS_ATTR_CREATE_WQ_CQ_HANDLE, 0, 4);
	expect_attr(&calls[0], 3, UVERBS_ATTR_CREATE_WQ_USER_HANDLE, 8, (uintptr_t)&wq);
	expect_attr(&calls[0], 4, UVERBS_ATTR_CREATE_WQ_TYPE, 8, IBV_WQT_RQ);
	expect_attr(&calls[0], 5, UVERBS_ATTR_CREATE_WQ_MAX_WR, 4, inline_u32(10));
	expect_attr(&calls[0], 6, UVERBS_ATTR_CREATE_WQ_MAX_SGE, 4, inline_u32(1));
	/* The 8 driver bytes after the 64-byte wrapper, inline. */
	expect_attr(&calls[0], 10, UVERBS_ATTR_UHW_IN, 8, 0xcafe);
	expect_attr(&calls[0], 11, UVERBS_ATTR_UHW_OUT, 8, (uintptr_t)&resp.drv);
	ck_assert_ptr_eq(wq.context, ctx);
	ck_assert_ptr_eq(wq.pd, &pd);
	ck_assert_ptr_eq(wq.cq, &cq);
	ck_assert_int_eq(wq.wq_type, IBV_WQT_RQ);
	ck_assert_uint_eq(wq.handle, 0x21);
	ck_assert_uint_eq(wq.wq_num, 0x99);
	ck_assert_uint_eq(attr.max_wr, 64);
	ck_assert_uint_eq(attr.max_sge, 2);
	ck_assert_uint_eq(resp.core.wq_handle, 0x21);
	ck_assert_uint_eq(resp.drv, 0xabababababababab);
	free_ctx(ctx);
}
END_TEST

START_TEST(create_wq_falls_back_to_ex_write)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_cq cq = { .context = ctx, .handle = 4 };
	struct ibv_wq_init_attr attr = { .wq_type = IBV_WQT_RQ, .max_wr = 10, .max_sge = 1,
					 .pd = &pd, .cq = &cq, .comp_mask = IBV_WQ_INIT_ATTR_FLAGS,
					 .create_flags = IBV_WQ_FLAGS_SCATTER_FCS };
	struct {
		struct ibv_create_wq core;
		uint64_t drv;
	} cmd = { .drv = 7 };
	struct ib_uverbs_ex_create_wq_resp resp;
	struct ib_uverbs_ex_create_wq *req;
	struct ibv_wq wq = {};

	kernel_ioctl = no_such_method;
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_wq(ctx, &attr, &wq, &cmd.core, sizeof(cmd), &resp,
					   sizeof(resp)), 0);
	ck_assert_int_eq(ncalls, 3);
	ck_assert_int_eq(calls[2].kind, WRITE);
	ck_assert_uint_eq(calls[2].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_WQ);
	ck_assert_uint_eq(calls[2].len, sizeof(cmd));
	ck_assert_uint_eq(calls[2].cmd.in_words, sizeof(*req) / 8);
	ck_assert_uint_eq(calls[2].cmd.out_words, sizeof(resp) / 8);
	ck_assert_uint_eq(ex_hdr(&calls[2])->provider_in_words, 1);
	ck_assert_uint_eq(ex_hdr(&calls[2])->provider_out_words, 0);
	req = write_req(&calls[2]);
	ck_assert_uint_eq(req->user_handle, (uintptr_t)&wq);
	ck_assert_uint_eq(req->pd_handle, 3);
	ck_assert_uint_eq(req->cq_handle, 4);
	ck_assert_uint_eq(req->max_wr, 10);
	ck_assert_uint_eq(req->create_flags, IBV_WQ_FLAGS_SCATTER_FCS);
	ck_assert_uint_eq(wq.handle, 0x11111111);
	ck_assert_uint_eq(attr.max_wr, 0x11111111);

	attr.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
	ck_assert_int_eq(ibv_cmd_create_wq(ctx, &attr, &wq, &cmd.core, sizeof(cmd), &resp,
					   sizeof(resp)), EINVAL);
	ck_assert_int_eq(ncalls, 3);
	free_ctx(ctx);
}
END_TEST

START_TEST(modify_wq_bytes_and_state)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_wq wq = { .context = ctx, .handle = 6, .state = IBV_WQS_RESET };
	struct ibv_wq_attr attr = { .attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_FLAGS,
				    .wq_state = IBV_WQS_RDY, .flags = 1, .flags_mask = 1 };
	struct ibv_modify_wq cmd;
	struct ib_uverbs_ex_modify_wq *req;

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_modify_wq(&wq, &attr, &cmd, sizeof(cmd)), 0);
	ck_assert_uint_eq(calls[0].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_WQ);
	ck_assert_uint_eq(calls[0].cmd.out_words, 0);
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->wq_handle, 6);
	ck_assert_uint_eq(req->attr_mask, IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_FLAGS);
	ck_assert_uint_eq(req->wq_state, IBV_WQS_RDY);
	ck_assert_uint_eq(req->flags, 1);
	ck_assert_uint_eq(req->flags_mask, 1);
	ck_assert_int_eq(wq.state, IBV_WQS_RDY);

	attr.attr_mask = IBV_WQ_ATTR_RESERVED;
	ck_assert_int_eq(ibv_cmd_modify_wq(&wq, &attr, &cmd, sizeof(cmd)), EINVAL);
	attr.attr_mask = IBV_WQ_ATTR_FLAGS;
	attr.flags_mask = IBV_WQ_FLAGS_RESERVED;
	ck_assert_int_eq(ibv_cmd_modify_wq(&wq, &attr, &cmd, sizeof(cmd)), EINVAL);
	ck_assert_int_eq(ncalls, 1);
	free_ctx(ctx);
}
END_TEST

static void *ack_wq_event_later(void *arg)
{
	struct ibv_async_event event = { .element.wq = arg, .event_type = IBV_EVENT_WQ_FATAL };

	usleep(50000);
	ibv_ack_async_event(&event);
	return NULL;
}

/* The kernel reported one event: destroy returns once it is acknowledged
 * (FACTS 43). */
START_TEST(destroy_wq_waits_for_its_event)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_wq wq = { .context = ctx, .handle = 6 };
	pthread_t t;

	pthread_mutex_init(&wq.mutex, NULL);
	pthread_cond_init(&wq.cond, NULL);
	kernel_ioctl = answering_ioctl;
	ck_assert_int_eq(pthread_create(&t, NULL, ack_wq_event_later, &wq), 0);
	ck_assert_int_eq(ibv_cmd_destroy_wq(&wq), 0);
	ck_assert_uint_eq(wq.events_completed, 1);
	pthread_join(t, NULL);
	expect_hdr(&calls[0], UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY, 2);
	expect_attr(&calls[0], 0, UVERBS_ATTR_DESTROY_WQ_HANDLE, 0, 6);
	free_ctx(ctx);
}
END_TEST

START_TEST(rwq_ind_table_bytes_and_effects)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_wq wq0 = { .handle = 0x10 }, wq1 = { .handle = 0x11 };
	struct ibv_wq *tbl[] = { &wq0, &wq1 };
	struct ibv_rwq_ind_table_init_attr attr = { .log_ind_tbl_size = 1, .ind_tbl = tbl };
	struct {
		struct ib_uverbs_ex_create_rwq_ind_table_resp core;
		uint64_t drv;
	} resp = {};
	struct ib_uverbs_ex_create_rwq_ind_table *req;
	struct ibv_rwq_ind_table table = {};

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_rwq_ind_table(ctx, &attr, &table, &resp.core,
						      sizeof(resp)), 0);
	ck_assert_uint_eq(calls[0].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL);
	/* Two 4-byte handles after the 8-byte head: 16 bytes, 2 words. */
	ck_assert_uint_eq(calls[0].cmd.in_words, 2);
	ck_assert_uint_eq(ex_hdr(&calls[0])->provider_in_words, 0);
	ck_assert_uint_eq(ex_hdr(&calls[0])->provider_out_words, 1);
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->log_ind_tbl_size, 1);
	ck_assert_uint_eq(req->wq_handles[0], 0x10);
	ck_assert_uint_eq(req->wq_handles[1], 0x11);
	ck_assert_ptr_eq(table.context, ctx);
	ck_assert_uint_eq(table.ind_tbl_handle, 0x11111111);
	ck_assert_uint_eq(table.ind_tbl_num, 0x11111111);
	ck_assert_uint_eq(resp.drv, 0x2222222222222222);

	/* One handle: padded to 8-byte words too. */
	attr.log_ind_tbl_size = 0;
	ck_assert_int_eq(ibv_cmd_create_rwq_ind_table(ctx, &attr, &table, &resp.core,
						      sizeof(resp.core)), 0);
	ck_assert_uint_eq(calls[1].cmd.in_words, 2);
	free_ctx(ctx);
}
END_TEST

/* An extended response the kernel said is shorter than the core's. */
static int short_response_write(void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr *hdr = buf;
	const struct ib_uverbs_ex_cmd_hdr *ex = (void *)(hdr + 1);

	(void)len;
	memset((void *)(uintptr_t)ex->response, 0, hdr->out_words * 8);
	return 0;
}

START_TEST(rwq_ind_table_short_response)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_wq wq0 = { .handle = 0x10 };
	struct ibv_wq *tbl[] = { &wq0 };
	struct ibv_rwq_ind_table_init_attr attr = { .ind_tbl = tbl };
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp;
	struct ibv_rwq_ind_table table = {};

	kernel_write = short_response_write;
	ck_assert_int_eq(ibv_cmd_create_rwq_ind_table(ctx, &attr, &table, &resp, sizeof(resp)),
			 EINVAL);
	ck_assert_ptr_null(table.context);
	free_ctx(ctx);
}
END_TEST

START_TEST(destroy_rwq_ind_table_ex_write)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_rwq_ind_table table = { .context = ctx, .ind_tbl_handle = 0x77 };
	struct ib_uverbs_ex_destroy_rwq_ind_table *req;

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_destroy_rwq_ind_table(&table), 0);
	ck_assert_uint_eq(calls[0].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL);
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->comp_mask, 0);
	ck_assert_uint_eq(req->ind_tbl_handle, 0x77);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Flows and ESP flow actions                                          */

START_TEST(create_flow_converts_specs)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_qp qp = { .context = ctx, .handle = 9 };
	struct verbs_flow_action action = { .action.context = ctx, .handle = 0x55,
					    .type = IBV_FLOW_ACTION_ESP };
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_ipv4 ipv4;
		struct ibv_flow_spec_action_handle act;
	} __attribute__((packed, aligned(8))) rule = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(rule), .priority = 2,
			  .num_of_specs = 3, .port = 1 },
		.eth = { .type = IBV_FLOW_SPEC_ETH | IBV_FLOW_SPEC_INNER, .size = sizeof(rule.eth),
			 .val.dst_mac = { 1, 2, 3, 4, 5, 6 }, .mask.dst_mac = { 0xff, 0xff } },
		.ipv4 = { .type = IBV_FLOW_SPEC_IPV4, .size = sizeof(rule.ipv4),
			  .val = { .src_ip = 0x0a000001, .dst_ip = 0x0a000002 },
			  .mask = { .dst_ip = 0xffffffff } },
		.act = { .type = IBV_FLOW_SPEC_ACTION_HANDLE, .size = sizeof(rule.act),
			 .action = &action.action },
	};
	uint64_t ucmd = 0xfeedfacecafebeefULL;
	const struct ib_uverbs_flow_spec_eth *eth;
	const struct ib_uverbs_flow_spec_hdr *v4;
	const struct ib_uverbs_flow_spec_action_handle *act;
	struct ib_uverbs_create_flow *req;
	struct ibv_flow flow = {};
	uint32_t filter[2];

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_flow(&qp, &flow, (void *)&rule, &ucmd, sizeof(ucmd)), 0);
	ck_assert_uint_eq(calls[0].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_FLOW);
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->comp_mask, 0);
	ck_assert_uint_eq(req->qp_handle, 9);
	ck_assert_uint_eq(req->flow_attr.type, IBV_FLOW_ATTR_NORMAL);
	ck_assert_uint_eq(req->flow_attr.priority, 2);
	ck_assert_uint_eq(req->flow_attr.num_of_specs, 3);
	ck_assert_uint_eq(req->flow_attr.port, 1);
	/* 16-byte attr, then eth 40, the short IPv4 24, the handle 16. */
	ck_assert_uint_eq(req->flow_attr.size, 16 + 40 + 24 + 16);
	ck_assert_uint_eq(calls[0].cmd.in_words, (8 + 16 + 40 + 24 + 16) / 8);
	eth = (const void *)req->flow_attr.flow_specs;
	ck_assert_uint_eq(eth->type, IBV_FLOW_SPEC_ETH | IBV_FLOW_SPEC_INNER);
	ck_assert_uint_eq(eth->size, sizeof(*eth));
	ck_assert_uint_eq(eth->val.dst_mac[5], 6);
	ck_assert_uint_eq(eth->mask.dst_mac[1], 0xff);
	ck_assert_uint_eq(eth->mask.dst_mac[2], 0);
	v4 = (const void *)(eth + 1);
	ck_assert_uint_eq(v4->type, IBV_FLOW_SPEC_IPV4);
	ck_assert_uint_eq(v4->size, 24);
	memcpy(filter, v4 + 1, sizeof(filter));
	ck_assert_uint_eq(filter[0], 0x0a000001);
	ck_assert_uint_eq(filter[1], 0x0a000002);
	memcpy(filter, (const char *)(v4 + 1) + 8, sizeof(filter));
	ck_assert_uint_eq(filter[0], 0);
	ck_assert_uint_eq(filter[1], 0xffffffff);
	act = (const void *)((const char *)v4 + 24);
	ck_assert_uint_eq(act->type, IBV_FLOW_SPEC_ACTION_HANDLE);
	ck_assert_uint_eq(act->size, sizeof(*act));
	ck_assert_uint_eq(act->handle, 0x55);
	/* The provider's bytes follow the specs. */
	ck_assert_uint_eq(ex_hdr(&calls[0])->provider_in_words, 1);
	ck_assert_int_eq(memcmp(act + 1, &ucmd, sizeof(ucmd)), 0);
	ck_assert_ptr_eq(flow.context, ctx);
	ck_assert_uint_eq(flow.handle, 0x11111111);
	free_ctx(ctx);
}
END_TEST

/* The application's padding after hop_limit is not the kernel's reserved
 * byte, which it wants zero in the mask. */
START_TEST(create_flow_ipv6_without_padding)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_qp qp = { .context = ctx, .handle = 9 };
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_ipv6 ipv6;
	} __attribute__((packed, aligned(8))) rule = {
		.attr = { .size = sizeof(rule), .num_of_specs = 1 },
		.ipv6 = { .type = IBV_FLOW_SPEC_IPV6, .size = sizeof(rule.ipv6),
			  .val.hop_limit = 64, .mask.hop_limit = 0xff },
	};
	const struct ib_uverbs_flow_spec_ipv6 *v6;
	struct ib_uverbs_create_flow *req;
	struct ibv_flow flow = {};

	memset((char *)&rule.ipv6.val + offsetof(struct ibv_flow_ipv6_filter, hop_limit) + 1, 0xee,
	       sizeof(rule.ipv6.val) - offsetof(struct ibv_flow_ipv6_filter, hop_limit) - 1);
	memset((char *)&rule.ipv6.mask + offsetof(struct ibv_flow_ipv6_filter, hop_limit) + 1, 0xee,
	       sizeof(rule.ipv6.mask) - offsetof(struct ibv_flow_ipv6_filter, hop_limit) - 1);
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_flow(&qp, &flow, (void *)&rule, NULL, 0), 0);
	req = write_req(&calls[0]);
	v6 = (const void *)req->flow_attr.flow_specs;
	ck_assert_uint_eq(v6->size, sizeof(*v6));
	ck_assert_uint_eq(v6->val.hop_limit, 64);
	ck_assert_uint_eq(v6->mask.hop_limit, 0xff);
	ck_assert_uint_eq(v6->val.reserved, 0);
	ck_assert_uint_eq(v6->mask.reserved, 0);
	free_ctx(ctx);
}
END_TEST

START_TEST(create_flow_checks_specs)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_qp qp = { .context = ctx, .handle = 9 };
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_tcp_udp spec;
	} __attribute__((packed, aligned(8))) rule = {
		.attr = { .size = sizeof(rule), .num_of_specs = 1 },
		.spec = { .type = 0x77, .size = sizeof(rule.spec) },
	};
	struct ibv_flow flow = {};

	errno = 0;
	ck_assert_int_eq(ibv_cmd_create_flow(&qp, &flow, (void *)&rule, NULL, 0), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	/* A known type whose size is shorter than its struct. */
	rule.spec.type = IBV_FLOW_SPEC_TCP;
	rule.spec.size = 8;
	ck_assert_int_eq(ibv_cmd_create_flow(&qp, &flow, (void *)&rule, NULL, 0), EINVAL);
	ck_assert_int_eq(ncalls, 0);
	free_ctx(ctx);
}
END_TEST

START_TEST(destroy_flow_ioctl_then_ex_write)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_flow flow = { .context = ctx, .handle = 0x66 };
	struct ib_uverbs_destroy_flow *req;

	kernel_ioctl = no_such_method;
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_destroy_flow(&flow), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_FLOW, UVERBS_METHOD_FLOW_DESTROY, 1);
	expect_attr(&calls[0], 0, UVERBS_ATTR_DESTROY_FLOW_HANDLE, 0, 0x66);
	ck_assert_uint_eq(calls[2].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_FLOW);
	req = write_req(&calls[2]);
	ck_assert_uint_eq(req->comp_mask, 0);
	ck_assert_uint_eq(req->flow_handle, 0x66);
	free_ctx(ctx);
}
END_TEST

START_TEST(flow_action_esp_lifecycle)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_flow_action_esp esp = { .spi = 0x1234 };
	struct ibv_flow_action_esp_attr esp_attr = { .esp_attr = &esp,
						 .comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN,
						 .esn = 9 };
	struct verbs_flow_action action = {};
	struct provider_buf drv;

	kernel_ioctl = answering_ioctl;
	link_init(&drv, UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE);
	ck_assert_int_eq(ibv_cmd_create_flow_action_esp(ctx, &esp_attr, &action, &drv.head), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, 4);
	expect_attr(&calls[0], 0, UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE, 0, 0);
	expect_attr(&calls[0], 1, UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, sizeof(esp), (uintptr_t)&esp);
	expect_attr(&calls[0], 2, UVERBS_ATTR_FLOW_ACTION_ESP_ESN, 4, inline_u32(9));
	ck_assert_uint_eq(attr(&calls[0], 3)->attr_id, DRIVER_ATTR);
	ck_assert_uint_eq(drv.slots[0].data, 0x77);	/* written back */
	ck_assert_ptr_eq(action.action.context, ctx);
	ck_assert_int_eq(action.type, IBV_FLOW_ACTION_ESP);
	ck_assert_uint_eq(action.handle, 0x51);

	esp_attr.esp_attr = NULL;
	ck_assert_int_eq(ibv_cmd_modify_flow_action_esp(&action, &esp_attr, NULL), 0);
	expect_hdr(&calls[1], UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY, 2);
	expect_attr(&calls[1], 0, UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE, 0, 0x51);

	ck_assert_int_eq(ibv_cmd_destroy_flow_action(&action), 0);
	expect_hdr(&calls[2], UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY, 1);
	expect_attr(&calls[2], 0, UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, 0, 0x51);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Counters, device memory, MR advice: ioctl only (FACTS 42)           */

START_TEST(counters_lifecycle)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_counters_init_attr init = {};
	struct verbs_counters counters = {};
	struct provider_buf drv;
	uint64_t values[3] = {};

	kernel_ioctl = answering_ioctl;
	link_init(&drv, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE);
	ck_assert_int_eq(ibv_cmd_create_counters(ctx, &init, &counters, &drv.head), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE, 2);
	expect_attr(&calls[0], 0, UVERBS_ATTR_CREATE_COUNTERS_HANDLE, 0, 0);
	ck_assert_uint_eq(attr(&calls[0], 1)->attr_id, DRIVER_ATTR);
	ck_assert_ptr_eq(counters.counters.context, ctx);
	ck_assert_uint_eq(counters.handle, 0x31);

	ck_assert_int_eq(ibv_cmd_read_counters(&counters, values, 3, 1, NULL), 0);
	expect_hdr(&calls[1], UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ, 3);
	expect_attr(&calls[1], 0, UVERBS_ATTR_READ_COUNTERS_HANDLE, 0, 0x31);
	ck_assert_uint_eq(attr(&calls[1], 1)->attr_id, UVERBS_ATTR_READ_COUNTERS_BUFF);
	ck_assert_uint_eq(attr(&calls[1], 1)->len, sizeof(values));
	expect_attr(&calls[1], 2, UVERBS_ATTR_READ_COUNTERS_FLAGS, 4, inline_u32(1));
	ck_assert_uint_eq(values[2], 5);

	ck_assert_int_eq(ibv_cmd_destroy_counters(&counters), 0);
	expect_hdr(&calls[2], UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY, 1);
	expect_attr(&calls[2], 0, UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, 0, 0x31);

	init.comp_mask = 1;
	errno = 0;
	ck_assert_int_eq(ibv_cmd_create_counters(ctx, &init, &counters, NULL), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 3);
	free_ctx(ctx);
}
END_TEST

START_TEST(dm_lifecycle)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_alloc_dm_attr dm_attr = { .length = 4096, .log_align_req = 6 };
	struct verbs_dm dm = {};
	struct verbs_mr mr;

	kernel_ioctl = answering_ioctl;
	ck_assert_int_eq(ibv_cmd_alloc_dm(ctx, &dm_attr, &dm, NULL), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 3);
	expect_attr(&calls[0], 1, UVERBS_ATTR_ALLOC_DM_LENGTH, 8, 4096);
	expect_attr(&calls[0], 2, UVERBS_ATTR_ALLOC_DM_ALIGNMENT, 4, inline_u32(6));
	ck_assert_ptr_eq(dm.dm.context, ctx);
	ck_assert_uint_eq(dm.dm.comp_mask, IBV_DM_MASK_HANDLE);
	ck_assert_uint_eq(dm.dm.handle, 0x41);
	ck_assert_uint_eq(dm.handle, 0x41);

	memset(&mr, 0x5a, sizeof(mr));
	ck_assert_int_eq(ibv_cmd_reg_dm_mr(&pd, &dm, 64, 128, IBV_ACCESS_ZERO_BASED, &mr, NULL), 0);
	expect_hdr(&calls[1], UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8);
	expect_attr(&calls[1], 1, UVERBS_ATTR_REG_DM_MR_OFFSET, 8, 64);
	expect_attr(&calls[1], 2, UVERBS_ATTR_REG_DM_MR_LENGTH, 8, 128);
	expect_attr(&calls[1], 3, UVERBS_ATTR_REG_DM_MR_PD_HANDLE, 0, 3);
	expect_attr(&calls[1], 5, UVERBS_ATTR_REG_DM_MR_DM_HANDLE, 0, 0x41);
	ck_assert_uint_eq(mr.ibv_mr.handle, 0x42);
	ck_assert_uint_eq(mr.ibv_mr.lkey, 0x43);
	ck_assert_uint_eq(mr.ibv_mr.rkey, 0x44);
	ck_assert_uint_eq(mr.ibv_mr.length, 128);
	ck_assert_ptr_null(mr.ibv_mr.addr);
	ck_assert_ptr_eq(mr.ibv_mr.pd, &pd);
	ck_assert_ptr_eq(mr.ibv_mr.context, ctx);
	ck_assert_int_eq(mr.kind, VERBS_MR_USER);	/* upstream's IBV_MR_TYPE_MR */

	/* DM has no address: the MR must be zero-based. */
	ck_assert_int_eq(ibv_cmd_reg_dm_mr(&pd, &dm, 0, 128, IBV_ACCESS_LOCAL_WRITE, &mr, NULL),
			 EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 2);

	ck_assert_int_eq(ibv_cmd_free_dm(&dm), 0);
	expect_hdr(&calls[2], UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1);
	expect_attr(&calls[2], 0, UVERBS_ATTR_FREE_DM_HANDLE, 0, 0x41);
	free_ctx(ctx);
}
END_TEST

/* No write() form: a kernel without the method (or forced write()
 * mode) gives EOPNOTSUPP, and nothing is written. */
START_TEST(ioctl_only_without_the_method)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_alloc_dm_attr dm_attr = { .length = 4096 };
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_sge sge = { .addr = 0x1000, .length = 64, .lkey = 5 };
	struct verbs_dm dm = {};

	kernel_ioctl = no_such_method;
	ck_assert_int_eq(ibv_cmd_alloc_dm(ctx, &dm_attr, &dm, NULL), EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_advise_mr(&pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1),
			 EOPNOTSUPP);
	for (int i = 0; i < ncalls; i++)
		ck_assert_int_eq(calls[i].kind, IOCTL);
	free_ctx(ctx);
}
END_TEST

START_TEST(advise_mr_bytes)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_sge sge[2] = { { 0x1000, 64, 5 }, { 0x2000, 32, 6 } };

	kernel_ioctl = answering_ioctl;
	ck_assert_int_eq(ibv_cmd_advise_mr(&pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					   IB_UVERBS_ADVISE_MR_FLAG_FLUSH, sge, 2), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, 4);
	expect_attr(&calls[0], 0, UVERBS_ATTR_ADVISE_MR_PD_HANDLE, 0, 3);
	expect_attr(&calls[0], 1, UVERBS_ATTR_ADVISE_MR_ADVICE, 8,
		    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE);
	expect_attr(&calls[0], 2, UVERBS_ATTR_ADVISE_MR_FLAGS, 4,
		    inline_u32(IB_UVERBS_ADVISE_MR_FLAG_FLUSH));
	expect_attr(&calls[0], 3, UVERBS_ATTR_ADVISE_MR_SGE_LIST, sizeof(sge), (uintptr_t)sge);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Extended CQs and moderation                                         */

START_TEST(create_cq_ex_flags_and_fallback)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_cq_init_attr_ex attr = { .cqe = 10, .comp_vector = 1,
					    .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	struct {
		struct ibv_create_cq_ex core;
		uint64_t drv;
	} cmd = { .drv = 3 };
	struct ib_uverbs_ex_create_cq_resp resp;
	struct ib_uverbs_ex_create_cq *req;
	struct verbs_cq cq = {};

	kernel_write = answering_write;
	/* A timestamp the provider can do without: the legacy command. */
	ck_assert_int_eq(ibv_cmd_create_cq_ex(ctx, &attr, &cq, &cmd.core, sizeof(cmd), &resp,
					      sizeof(resp), CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX), 0);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_CREATE_CQ);
	ck_assert_ptr_eq(cq.cq.context, ctx);
	ck_assert_uint_eq(cq.cq.handle, 0x11111111);
	ck_assert_uint_eq(resp.base.cq_handle, 0x11111111);

	/* A timestamp it needs: the extended one, flag set. */
	ck_assert_int_eq(ibv_cmd_create_cq_ex(ctx, &attr, &cq, &cmd.core, sizeof(cmd), &resp,
					      sizeof(resp), 0), 0);
	ck_assert_uint_eq(calls[1].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_CQ);
	ck_assert_uint_eq(ex_hdr(&calls[1])->provider_in_words, 1);
	req = write_req(&calls[1]);
	ck_assert_uint_eq(req->user_handle, (uintptr_t)&cq);
	ck_assert_uint_eq(req->cqe, 10);
	ck_assert_uint_eq(req->comp_vector, 1);
	ck_assert_int_eq(req->comp_channel, -1);
	ck_assert_uint_eq(req->flags, IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION);

	/* IGNORE_OVERRUN always needs it, the ignorable timestamp along. */
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	ck_assert_int_eq(ibv_cmd_create_cq_ex(ctx, &attr, &cq, &cmd.core, sizeof(cmd), &resp,
					      sizeof(resp), CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX), 0);
	req = write_req(&calls[2]);
	ck_assert_uint_eq(req->flags, IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION |
			  IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN);

	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS << 2;
	errno = 0;
	ck_assert_int_eq(ibv_cmd_create_cq_ex(ctx, &attr, &cq, &cmd.core, sizeof(cmd), &resp,
					      sizeof(resp), 0), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 3);
	free_ctx(ctx);
}
END_TEST

START_TEST(create_cq_ex2_links_the_driver_buffer)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 10,
					    .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	struct ibv_create_cq_ex cmd;
	struct ib_uverbs_ex_create_cq_resp resp;
	struct provider_buf drv;
	struct verbs_cq cq = {};

	kernel_ioctl = answering_ioctl;
	link_init(&drv, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	ck_assert_int_eq(ibv_cmd_create_cq_ex2(ctx, &cq_attr, &cq, &cmd, sizeof(cmd), &resp,
					       sizeof(resp), 0, &drv.head), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 7);
	expect_attr(&calls[0], 4, UVERBS_ATTR_CREATE_CQ_FLAGS, 4,
		    inline_u32(IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION));
	ck_assert_uint_eq(attr(&calls[0], 6)->attr_id, DRIVER_ATTR);
	ck_assert_uint_eq(drv.slots[0].data, 0x77);
	ck_assert_uint_eq(cq.cq.handle, 7);
	ck_assert_int_eq(cq.cq.cqe, 31);

	/* Without the method, a write() could not carry DRIVER_ATTR. */
	kernel_ioctl = no_such_method;
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_cq_ex2(ctx, &cq_attr, &cq, &cmd, sizeof(cmd), &resp,
					       sizeof(resp), 0, &drv.head), EOPNOTSUPP);
	for (int i = 0; i < ncalls; i++)
		ck_assert_int_eq(calls[i].kind, IOCTL);
	/* A NULL buffer is create_cq_ex itself: write() is fine. */
	ck_assert_int_eq(ibv_cmd_create_cq_ex2(ctx, &cq_attr, &cq, &cmd, sizeof(cmd), &resp,
					       sizeof(resp), 0, NULL), 0);
	ck_assert_int_eq(calls[ncalls - 1].kind, WRITE);
	free_ctx(ctx);
}
END_TEST

START_TEST(modify_cq_bytes_and_checks)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_cq cq = { .context = ctx, .handle = 8 };
	struct ibv_modify_cq_attr attr = { .attr_mask = IBV_CQ_ATTR_MODERATE,
					   .moderate = { .cq_count = 16, .cq_period = 100 } };
	struct ibv_modify_cq cmd;
	struct ib_uverbs_ex_modify_cq *req;

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_modify_cq(&cq, &attr, &cmd, sizeof(cmd)), 0);
	ck_assert_uint_eq(calls[0].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_CQ);
	ck_assert_uint_eq(calls[0].len, sizeof(cmd));
	ck_assert_uint_eq(calls[0].cmd.out_words, 0);
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->cq_handle, 8);
	ck_assert_uint_eq(req->attr_mask, IBV_CQ_ATTR_MODERATE);
	ck_assert_uint_eq(req->attr.cq_count, 16);
	ck_assert_uint_eq(req->attr.cq_period, 100);
	ck_assert_uint_eq(req->reserved, 0);

	attr.attr_mask = IBV_CQ_ATTR_RESERVED;
	ck_assert_int_eq(ibv_cmd_modify_cq(&cq, &attr, &cmd, sizeof(cmd)), EINVAL);
	ck_assert_int_eq(ncalls, 1);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* SRQs of every type                                                  */

START_TEST(create_xrc_srq_write_bytes_and_effects)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_cq cq = { .context = ctx, .handle = 4 };
	struct verbs_xrcd xrcd = { .xrcd.context = ctx, .handle = 0x12 };
	struct ibv_srq_init_attr_ex attr = {
		.attr = { .max_wr = 8, .max_sge = 2, .srq_limit = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = &pd, .xrcd = &xrcd.xrcd, .cq = &cq,
	};
	struct {
		struct ibv_create_xsrq core;
		uint64_t drv;
	} cmd = { .drv = 4 };
	struct ib_uverbs_create_srq_resp resp;
	struct ib_uverbs_create_xsrq *req;
	struct verbs_srq srq = {};

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_srq_ex(ctx, &srq, &attr, &cmd.core, sizeof(cmd), &resp,
					       sizeof(resp)), 0);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_CREATE_XSRQ);
	ck_assert_uint_eq(calls[0].len, sizeof(cmd));
	req = write_req(&calls[0]);
	ck_assert_uint_eq(req->user_handle, (uintptr_t)&srq);
	ck_assert_uint_eq(req->srq_type, IB_UVERBS_SRQT_XRC);
	ck_assert_uint_eq(req->pd_handle, 3);
	ck_assert_uint_eq(req->max_wr, 8);
	ck_assert_uint_eq(req->max_sge, 2);
	ck_assert_uint_eq(req->srq_limit, 1);
	ck_assert_uint_eq(req->xrcd_handle, 0x12);
	ck_assert_uint_eq(req->cq_handle, 4);
	ck_assert_int_eq(memcmp(calls[0].raw + sizeof(cmd.core), &cmd.drv, 8), 0);
	ck_assert_ptr_eq(srq.srq.context, ctx);
	ck_assert_uint_eq(srq.srq.handle, 0x11111111);
	ck_assert_int_eq(srq.srq_type, IBV_SRQT_XRC);
	ck_assert_ptr_eq(srq.xrcd, &xrcd);
	ck_assert_ptr_eq(srq.cq, &cq);
	ck_assert_uint_eq(srq.srq_num, 0x11111111);
	ck_assert_uint_eq(attr.attr.max_wr, 0x11111111);
	free_ctx(ctx);
}
END_TEST

START_TEST(create_tm_srq_ioctl_bytes)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_cq cq = { .context = ctx, .handle = 4 };
	struct ibv_srq_init_attr_ex attr = {
		.attr = { .max_wr = 8, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ |
			     IBV_SRQ_INIT_ATTR_TM,
		.srq_type = IBV_SRQT_TM, .pd = &pd, .cq = &cq, .tm_cap = { .max_num_tags = 64 },
	};
	struct ibv_create_xsrq cmd;
	struct ib_uverbs_create_srq_resp resp;
	struct verbs_srq srq = {};

	kernel_ioctl = answering_ioctl;
	ck_assert_int_eq(ibv_cmd_create_srq_ex(ctx, &srq, &attr, &cmd, sizeof(cmd), &resp,
					       sizeof(resp)), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, 11);
	expect_attr(&calls[0], 2, UVERBS_ATTR_CREATE_SRQ_TYPE, 8, IB_UVERBS_SRQT_TM);
	expect_attr(&calls[0], 7, UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, 0, 4);
	expect_attr(&calls[0], 8, UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, 4, inline_u32(64));
	ck_assert_uint_eq(srq.srq.handle, 0x61);
	ck_assert_int_eq(srq.srq_type, IBV_SRQT_TM);
	ck_assert_ptr_eq(srq.cq, &cq);
	ck_assert_ptr_null(srq.xrcd);
	ck_assert_uint_eq(attr.attr.max_wr, 16);
	free_ctx(ctx);
}
END_TEST

START_TEST(create_srq_ex_checks)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_cq cq = { .context = ctx, .handle = 4 };
	struct verbs_xrcd xrcd = { .xrcd.context = ctx, .handle = 0x12 };
	struct ibv_srq_init_attr_ex attr = {
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD,
		.srq_type = IBV_SRQT_XRC, .pd = &pd, .xrcd = &xrcd.xrcd, .cq = &cq,
	};
	struct ib_uverbs_create_srq_resp resp;
	struct ibv_create_xsrq cmd;
	struct verbs_srq srq;

	/* XRC without its CQ. */
	ck_assert_int_eq(ibv_cmd_create_srq_ex(ctx, &srq, &attr, &cmd, sizeof(cmd), &resp,
					       sizeof(resp)), EINVAL);
	/* Tag matching without tags. */
	attr.srq_type = IBV_SRQT_TM;
	attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ |
			 IBV_SRQ_INIT_ATTR_TM;
	ck_assert_int_eq(ibv_cmd_create_srq_ex(ctx, &srq, &attr, &cmd, sizeof(cmd), &resp,
					       sizeof(resp)), EINVAL);
	/* No PD. */
	attr.srq_type = IBV_SRQT_BASIC;
	attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	ck_assert_int_eq(ibv_cmd_create_srq_ex(ctx, &srq, &attr, &cmd, sizeof(cmd), &resp,
					       sizeof(resp)), EINVAL);
	attr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_RESERVED;
	errno = 0;
	ck_assert_int_eq(ibv_cmd_create_srq_ex(ctx, &srq, &attr, &cmd, sizeof(cmd), &resp,
					       sizeof(resp)), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 0);
	free_ctx(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plugin_cmd_ex");
	TCase *xrc = tcase_create("xrc"), *wq = tcase_create("wq"), *flow = tcase_create("flow");
	TCase *ioctl_only = tcase_create("ioctl only"), *cq = tcase_create("cq ex");
	TCase *srq = tcase_create("srq ex");

	TCase *all[] = { xrc, wq, flow, ioctl_only, cq, srq };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		tcase_add_checked_fixture(all[i], setup, NULL);
	tcase_add_test(xrc, open_xrcd_bytes_and_effects);
	tcase_add_test(xrc, open_xrcd_checks);
	tcase_add_test(xrc, close_xrcd_falls_back_to_write);
	tcase_add_test(xrc, open_qp_bytes_and_effects);
	tcase_add_test(xrc, open_qp_xrc_fields_of_the_plugins_release);
	tcase_add_test(xrc, open_qp_checks);
	tcase_add_test(xrc, modify_qp_ex_rate_limit);
	tcase_add_test(wq, create_wq_ioctl_bytes_and_effects);
	tcase_add_test(wq, create_wq_falls_back_to_ex_write);
	tcase_add_test(wq, modify_wq_bytes_and_state);
	tcase_add_test(wq, destroy_wq_waits_for_its_event);
	tcase_add_test(wq, rwq_ind_table_bytes_and_effects);
	tcase_add_test(wq, rwq_ind_table_short_response);
	tcase_add_test(wq, destroy_rwq_ind_table_ex_write);
	tcase_add_test(flow, create_flow_converts_specs);
	tcase_add_test(flow, create_flow_ipv6_without_padding);
	tcase_add_test(flow, create_flow_checks_specs);
	tcase_add_test(flow, destroy_flow_ioctl_then_ex_write);
	tcase_add_test(flow, flow_action_esp_lifecycle);
	tcase_add_test(ioctl_only, counters_lifecycle);
	tcase_add_test(ioctl_only, dm_lifecycle);
	tcase_add_test(ioctl_only, ioctl_only_without_the_method);
	tcase_add_test(ioctl_only, advise_mr_bytes);
	tcase_add_test(cq, create_cq_ex_flags_and_fallback);
	tcase_add_test(cq, create_cq_ex2_links_the_driver_buffer);
	tcase_add_test(cq, modify_cq_bytes_and_checks);
	tcase_add_test(srq, create_xrc_srq_write_bytes_and_effects);
	tcase_add_test(srq, create_tm_srq_ioctl_bytes);
	tcase_add_test(srq, create_srq_ex_checks);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		suite_add_tcase(s, all[i]);
	return unit_run(s, CK_FORK_GETENV);
}
