/* SPDX-License-Identifier: MIT */
/*
 * The kernel command layer against a fake kernel: the exact bytes of
 * ioctl attribute buffers and write() commands, and every choice between
 * the two transports.  Then the core verbs over that kernel and fake
 * providers: completion-channel references, errno conventions, imported
 * PDs, and the fork protection of memory regions.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "fork.h"
#include "fake_uverbs.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* Allocations                                                         */

/* The program is linked with --wrap=malloc,--wrap=calloc (meson.build):
 * allocations are counted, except the fake kernel's (check's assertions
 * allocate). */
static unsigned long allocations;
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);

void *__wrap_malloc(size_t size)
{
	allocations += !fake_in_kernel;
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	allocations += !fake_in_kernel;
	return __real_calloc(n, size);
}

/* ------------------------------------------------------------------ */
/* Kernels                                                             */

/* A kernel that creates CQs over ioctl: handle 7, cqe rounded to 31. */
static int cq_kernel_ioctl(struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->object_id != UVERBS_OBJECT_CQ)
		return EPROTONOSUPPORT;
	for (unsigned int i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];

		if (a->attr_id == UVERBS_ATTR_CREATE_CQ_HANDLE)
			a->data = 7;
		if (a->attr_id == UVERBS_ATTR_CREATE_CQ_RESP_CQE)
			*(uint32_t *)ptr(a) = 31;
		if (a->attr_id == UVERBS_ATTR_UHW_OUT)
			memset(ptr(a), 0xab, a->len);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Encoding                                                            */

START_TEST(write_alloc_pd_bytes)
{
	struct ibv_context *ctx = new_ctx("write");
	uint64_t drv_in = 0x0123456789abcdefULL;
	uint32_t drv_out[2] = {};
	struct verbs_udata udata = { &drv_in, sizeof(drv_in), drv_out, sizeof(drv_out) };
	struct ibv_pd pd;
	uint64_t response;

	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, &udata), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].kind, WRITE);
	/* header, response pointer, driver data: 4 + 4 + 8 + 8 bytes */
	ck_assert_uint_eq(calls[0].len, 24);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_ALLOC_PD);
	ck_assert_uint_eq(calls[0].cmd.in_words, 6);
	ck_assert_uint_eq(calls[0].cmd.out_words, 3);	/* pd_handle + 8 driver bytes */
	memcpy(&response, calls[0].raw + 8, 8);
	ck_assert_uint_ne(response, 0);
	ck_assert_int_eq(memcmp(calls[0].raw + 16, &drv_in, 8), 0);
	ck_assert_uint_eq(pd.handle, 0x11111111);
	ck_assert_ptr_eq(pd.context, ctx);
	ck_assert_uint_eq(drv_out[0], 0x11111111);	/* core response was 4 bytes */
	ck_assert_uint_eq(drv_out[1], 0x11111111);
	free_ctx(ctx);
}
END_TEST

START_TEST(write_extended_create_cq_bytes)
{
	struct ibv_context *ctx = new_ctx("write");
	uint8_t drv_out[12];
	struct verbs_udata udata = { .out = drv_out, .out_len = sizeof(drv_out) };
	struct ib_uverbs_ex_create_cq *req;
	struct ib_uverbs_ex_cmd_hdr *ex;
	struct verbs_cq cq;

	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 10, NULL, 1, IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
					     &cq, &udata), 0);
	ck_assert_int_eq(calls[0].kind, WRITE);
	ck_assert_uint_eq(calls[0].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_CQ);
	ck_assert_uint_eq(calls[0].cmd.in_words, sizeof(*req) / 8);
	ck_assert_uint_eq(calls[0].cmd.out_words, sizeof(struct ib_uverbs_ex_create_cq_resp) / 8);
	ex = (void *)(calls[0].raw + sizeof(struct ib_uverbs_cmd_hdr));
	ck_assert_uint_ne(ex->response, 0);
	ck_assert_uint_eq(ex->provider_in_words, 0);
	ck_assert_uint_eq(ex->provider_out_words, 2);	/* 12 bytes, padded */
	ck_assert_uint_eq(ex->cmd_hdr_reserved, 0);
	req = (void *)(ex + 1);
	ck_assert_uint_eq(req->user_handle, (uintptr_t)&cq);
	ck_assert_uint_eq(req->cqe, 10);
	ck_assert_uint_eq(req->comp_vector, 1);
	ck_assert_int_eq(req->comp_channel, -1);
	ck_assert_uint_eq(req->flags, IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN);
	ck_assert_uint_eq(calls[0].len, 8 + 16 + sizeof(*req));
	ck_assert_uint_eq(cq.cq.handle, 0x11111111);
	ck_assert_uint_eq(drv_out[11], 0x22);
	free_ctx(ctx);
}
END_TEST

START_TEST(tunnelled_alloc_pd_bytes)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	uint64_t drv_in[2] = { 1, 2 };
	struct verbs_udata udata = { drv_in, sizeof(drv_in), NULL, 0 };
	struct ibv_pd pd;

	kernel_ioctl = NULL;	/* no kernel: only the encoding counts */
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, &udata), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 4);
	expect_attr(&calls[0], 0, UVERBS_ATTR_CORE_IN, 8, 0);	/* response slot, inline */
	ck_assert_uint_eq(attr(&calls[0], 1)->attr_id, UVERBS_ATTR_CORE_OUT);
	ck_assert_uint_eq(attr(&calls[0], 1)->len, sizeof(struct ib_uverbs_alloc_pd_resp));
	ck_assert_ptr_nonnull(ptr(attr(&calls[0], 1)));
	expect_attr(&calls[0], 2, UVERBS_ATTR_WRITE_CMD, 8, IB_USER_VERBS_CMD_ALLOC_PD);
	/* 16 bytes do not fit inline: a pointer to the caller's data */
	expect_attr(&calls[0], 3, UVERBS_ATTR_UHW_IN, 16, (uintptr_t)drv_in);
	free_ctx(ctx);
}
END_TEST

START_TEST(ioctl_create_cq_bytes)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_comp_channel channel = { .context = ctx, .fd = 9 };
	uint32_t drv_in = 0x5a5a5a5a;
	uint8_t drv_out[16];
	struct verbs_udata udata = { &drv_in, sizeof(drv_in), drv_out, sizeof(drv_out) };
	struct verbs_cq cq = {};

	kernel_ioctl = cq_kernel_ioctl;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 20, &channel, 1, 0, &cq, &udata), 0);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 8);
	expect_attr(&calls[0], 0, UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0);
	expect_attr(&calls[0], 1, UVERBS_ATTR_CREATE_CQ_CQE, 4, inline_u32(20));
	expect_attr(&calls[0], 2, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8, (uintptr_t)&cq);
	expect_attr(&calls[0], 3, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, 0, 9);
	expect_attr(&calls[0], 4, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4, inline_u32(1));
	ck_assert_uint_eq(attr(&calls[0], 5)->attr_id, UVERBS_ATTR_CREATE_CQ_RESP_CQE);
	ck_assert_uint_eq(attr(&calls[0], 5)->len, 4);
	expect_attr(&calls[0], 6, UVERBS_ATTR_UHW_IN, 4, inline_u32(drv_in));
	expect_attr(&calls[0], 7, UVERBS_ATTR_UHW_OUT, 16, (uintptr_t)drv_out);
	/* What the kernel wrote back reached the CQ. */
	ck_assert_uint_eq(cq.cq.handle, 7);
	ck_assert_int_eq(cq.cq.cqe, 31);
	ck_assert_ptr_eq(cq.cq.context, ctx);
	/* The channel is the core's to count (verbs_init_cq). */
	ck_assert_ptr_null(cq.cq.channel);
	ck_assert_uint_eq(drv_out[15], 0xab);
	free_ctx(ctx);
}
END_TEST

START_TEST(ioctl_query_port_bytes)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_port_attr pa;

	ck_assert_int_eq(verbs_cmd_query_port(ctx, 3, &pa), EOPNOTSUPP);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2);
	/* A "const" attribute is always 8 bytes, even for a u8. */
	expect_attr(&calls[0], 0, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 8, 3);
	ck_assert_uint_eq(attr(&calls[0], 1)->len, sizeof(struct ib_uverbs_query_port_resp_ex));
	free_ctx(ctx);
}
END_TEST

/* A record from sysfs carries no driver id (a build without RDMA netlink,
 * or a kernel without it); the kernel refuses an ioctl whose header does
 * not name its driver, so the claiming provider's id goes there. */
START_TEST(sysfs_record_sends_the_providers_driver_id)
{
	static const struct verbs_provider rxe_like = { .name = "rxe-like", .driver_id = RDMA_DRIVER_RXE };
	struct ibv_context *ctx;
	struct ibv_port_attr pa;

	dev.sysfs->driver_id = RDMA_DRIVER_UNKNOWN;
	dev.sysfs->provider_data = (void *)&rxe_like;
	ctx = new_ctx("ioctl");
	dev.sysfs->driver_id = RDMA_DRIVER_RXE;
	dev.sysfs->provider_data = NULL;
	ck_assert_int_eq(verbs_cmd_query_port(ctx, 3, &pa), EOPNOTSUPP);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2);
	free_ctx(ctx);
}
END_TEST

/* Two send requests, three SGEs, then the kernel's verdict on the second. */
static int reject_second_wr(void *buf, size_t len)
{
	struct fake_cmd c = fake_cmd_parse(buf, len);

	((struct ib_uverbs_post_send_resp *)c.resp)->bad_wr = 2;
	return EINVAL;
}

START_TEST(write_post_send_bytes)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_qp qp = { .context = ctx, .handle = 5, .qp_type = IBV_QPT_RC };
	struct ibv_sge sge[3] = { { 0x1000, 16, 0xa }, { 0x2000, 32, 0xb }, { 0x3000, 64, 0xc } };
	struct ibv_send_wr second = { .wr_id = 2, .sg_list = &sge[1], .num_sge = 2,
				      .opcode = IBV_WR_RDMA_WRITE,
				      .wr.rdma = { .remote_addr = 0x9000, .rkey = 0x77 } };
	struct ibv_send_wr first = { .wr_id = 1, .next = &second, .sg_list = sge, .num_sge = 1,
				     .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad = NULL;
	struct ib_uverbs_post_send *req;
	struct ib_uverbs_sge *ks;

	kernel_write = reject_second_wr;
	ck_assert_int_eq(verbs_cmd_post_send(&qp, &first, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &second);
	req = (void *)(calls[0].raw + sizeof(struct ib_uverbs_cmd_hdr));
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_POST_SEND);
	ck_assert_uint_eq(calls[0].len, sizeof(struct ib_uverbs_cmd_hdr) + sizeof(*req) +
			  2 * sizeof(struct ib_uverbs_send_wr) + 3 * sizeof(*ks));
	ck_assert_uint_eq(calls[0].cmd.in_words * 4, calls[0].len);
	ck_assert_uint_eq(calls[0].cmd.out_words, 1);
	ck_assert_uint_eq(req->qp_handle, 5);
	ck_assert_uint_eq(req->wr_count, 2);
	ck_assert_uint_eq(req->sge_count, 3);
	ck_assert_uint_eq(req->wqe_size, sizeof(struct ib_uverbs_send_wr));
	ck_assert_uint_eq(req->send_wr[0].wr_id, 1);
	ck_assert_uint_eq(req->send_wr[0].opcode, IBV_WR_SEND);
	ck_assert_uint_eq(req->send_wr[0].send_flags, IBV_SEND_SIGNALED);
	ck_assert_uint_eq(req->send_wr[1].num_sge, 2);
	ck_assert_uint_eq(req->send_wr[1].wr.rdma.remote_addr, 0x9000);
	ck_assert_uint_eq(req->send_wr[1].wr.rdma.rkey, 0x77);
	ks = (void *)&req->send_wr[2];
	ck_assert_uint_eq(ks[2].addr, 0x3000);
	ck_assert_uint_eq(ks[2].length, 64);
	ck_assert_uint_eq(ks[2].lkey, 0xc);
	free_ctx(ctx);
}
END_TEST

START_TEST(doorbell_posts_nothing)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_qp qp = { .context = ctx, .handle = 5 };

	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_post_send(&qp, NULL, NULL), 0);
	ck_assert_uint_eq(calls[0].len, sizeof(struct ib_uverbs_cmd_hdr) +
			  sizeof(struct ib_uverbs_post_send));
	ck_assert_uint_eq(((struct ib_uverbs_post_send *)(calls[0].raw + 8))->wr_count, 0);
	free_ctx(ctx);
}
END_TEST

/* Fields comp_mask does not name are the caller's, unread and unchanged;
 * the capacities the kernel granted are the documented output. */
START_TEST(create_qp_leaves_the_callers_attr_alone)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_cq cq = { .context = ctx, .handle = 4 };
	struct ibv_rwq_ind_table *stale = (void *)(uintptr_t)0x1000;
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = &cq, .recv_cq = &cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = &pd, .rwq_ind_tbl = stale,
	};
	struct ib_uverbs_create_qp *req;
	struct verbs_qp qp;

	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_create_qp(ctx, &qp, &attr, NULL), 0);
	ck_assert_ptr_eq(attr.rwq_ind_tbl, stale);
	ck_assert_ptr_eq(attr.pd, &pd);
	ck_assert_uint_eq(attr.cap.max_send_wr, 0x11111111);
	ck_assert_ptr_eq(qp.qp.pd, &pd);
	/* No table was asked for: the legacy command, with the PD. */
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_CREATE_QP);
	req = (void *)(calls[0].raw + sizeof(struct ib_uverbs_cmd_hdr));
	ck_assert_uint_eq(req->pd_handle, 3);

	attr.comp_mask = 0;
	ck_assert_int_eq(verbs_cmd_create_qp(ctx, &qp, &attr, NULL), 0);
	ck_assert_ptr_eq(attr.pd, &pd);
	ck_assert_ptr_null(qp.qp.pd);
	req = (void *)(calls[1].raw + sizeof(struct ib_uverbs_cmd_hdr));
	ck_assert_uint_eq(req->pd_handle, 0);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The datapath: work requests and the doorbell                        */

/* The tunnel of a post_send or post_recv: checks the framing, and rejects
 * the second work request of a list (bad_wr 2, EINVAL). */
static int datapath_tunnel(struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_post_send *req;
	struct ib_uverbs_post_send_resp *resp;

	ck_assert_uint_eq(hdr->object_id, UVERBS_OBJECT_DEVICE);
	ck_assert_uint_eq(hdr->method_id, UVERBS_METHOD_INVOKE_WRITE);
	ck_assert_uint_eq(hdr->num_attrs, 3);
	ck_assert_uint_eq(hdr->attrs[0].attr_id, UVERBS_ATTR_CORE_IN);
	ck_assert_uint_eq(hdr->attrs[1].attr_id, UVERBS_ATTR_CORE_OUT);
	ck_assert_uint_eq(hdr->attrs[1].len, sizeof(*resp));
	ck_assert_uint_eq(hdr->attrs[2].attr_id, UVERBS_ATTR_WRITE_CMD);
	/* post_send and post_recv requests begin alike */
	req = ptr(&hdr->attrs[0]);
	resp = ptr(&hdr->attrs[1]);
	ck_assert_uint_eq(req->qp_handle, 5);
	if (req->wr_count < 2)
		return 0;
	resp->bad_wr = 2;
	return EINVAL;
}

/* As upstream's providers ring it: one write() of a fixed command. */
START_TEST(doorbell_is_one_write)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_qp qp = { .context = ctx, .handle = 5 };
	const struct ib_uverbs_post_send *req = (const void *)(calls[0].raw + 8);

	kernel_ioctl = datapath_tunnel;
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_post_send(&qp, NULL, NULL), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].kind, WRITE);
	ck_assert_uint_eq(calls[0].len, sizeof(struct ib_uverbs_cmd_hdr) + sizeof(*req));
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_POST_SEND);
	ck_assert_uint_eq(calls[0].cmd.in_words * 4, calls[0].len);
	ck_assert_uint_eq(calls[0].cmd.out_words, 1);
	ck_assert_uint_ne(req->response, 0);
	ck_assert_uint_eq(req->qp_handle, 5);
	ck_assert_uint_eq(req->wr_count, 0);
	ck_assert_uint_eq(req->sge_count, 0);
	ck_assert_uint_eq(req->wqe_size, sizeof(struct ib_uverbs_send_wr));
	free_ctx(ctx);
}
END_TEST

START_TEST(forced_ioctl_doorbell_is_tunnelled)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_qp qp = { .context = ctx, .handle = 5 };

	kernel_ioctl = datapath_tunnel;
	ck_assert_int_eq(verbs_cmd_post_send(&qp, NULL, NULL), 0);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 3);
	ck_assert_uint_eq(attr(&calls[0], 0)->len, sizeof(struct ib_uverbs_post_send));
	expect_attr(&calls[0], 2, UVERBS_ATTR_WRITE_CMD, 8, IB_USER_VERBS_CMD_POST_SEND);
	free_ctx(ctx);
}
END_TEST

/* The kernel refuses write() to a process with other credentials than
 * the opener's (a forked child): in auto mode the tunnel still works. */
static int write_not_for_you(void *buf, size_t len)
{
	(void)buf;
	(void)len;
	return EACCES;
}

START_TEST(doorbell_write_refused_takes_tunnel)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_qp qp = { .context = ctx, .handle = 5 };

	kernel_ioctl = datapath_tunnel;
	kernel_write = write_not_for_you;
	ck_assert_int_eq(verbs_cmd_post_send(&qp, NULL, NULL), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(calls[0].kind, WRITE);
	expect_hdr(&calls[1], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 3);
	free_ctx(ctx);
	/* Forced write() mode has nothing else to try. */
	ctx = new_ctx("write");
	qp.context = ctx;
	ck_assert_int_eq(verbs_cmd_post_send(&qp, NULL, NULL), EACCES);
	free_ctx(ctx);
}
END_TEST

/* The doorbell is the one command of each rxe/siw ibv_post_send(): no
 * allocation there, nor for lists of common size, whichever transport. */
START_TEST(datapath_allocates_nothing)
{
	const char *modes[] = { "auto", "write", "ioctl" };
	struct ibv_sge sge = { 0x1000, 16, 0xa };
	struct ibv_send_wr send2 = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr send1 = { .wr_id = 1, .next = &send2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr recv2 = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr recv1 = { .wr_id = 1, .next = &recv2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *bad_send;
	struct ibv_recv_wr *bad_recv;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct ibv_context *ctx = new_ctx(modes[i]);
		struct ibv_qp qp = { .context = ctx, .handle = 5, .qp_type = IBV_QPT_RC };
		unsigned long before = allocations;
		int doorbell;

		kernel_ioctl = datapath_tunnel;
		kernel_write = answering_write;
		/* no assertion in between: check's allocate */
		doorbell = verbs_cmd_post_send(&qp, NULL, NULL);
		verbs_cmd_post_send(&qp, &send1, &bad_send);
		verbs_cmd_post_recv(&qp, &recv1, &bad_recv);
		ck_assert_uint_eq(allocations, before);
		ck_assert_int_eq(doorbell, 0);
		free_ctx(ctx);
	}
}
END_TEST

START_TEST(tunnelled_post_recv_names_bad_wr)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_qp qp = { .context = ctx, .handle = 5 };
	struct ibv_sge sge[3] = { { 0x1000, 16, 0xa }, { 0x2000, 32, 0xb }, { 0x3000, 64, 0xc } };
	struct ibv_recv_wr second = { .wr_id = 2, .sg_list = &sge[1], .num_sge = 2 };
	struct ibv_recv_wr first = { .wr_id = 1, .next = &second, .sg_list = sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	kernel_ioctl = datapath_tunnel;
	ck_assert_int_eq(verbs_cmd_post_recv(&qp, &first, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &second);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_uint_eq(attr(&calls[0], 0)->len, sizeof(struct ib_uverbs_post_recv) +
			  2 * sizeof(struct ib_uverbs_recv_wr) + 3 * sizeof(struct ib_uverbs_sge));
	expect_attr(&calls[0], 2, UVERBS_ATTR_WRITE_CMD, 8, IB_USER_VERBS_CMD_POST_RECV);
	free_ctx(ctx);
}
END_TEST

/* Lists too long for the stack buffer still go out whole. */
START_TEST(long_send_list)
{
	enum { N = 40 };
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_qp qp = { .context = ctx, .handle = 5, .qp_type = IBV_QPT_RC };
	struct ibv_sge sge = { 0x1000, 16, 0xa };
	struct ibv_send_wr wr[N], *bad = NULL;
	const struct ib_uverbs_post_send *req;

	for (int i = 0; i < N; i++)
		wr[i] = (struct ibv_send_wr){ .wr_id = i, .next = i + 1 < N ? &wr[i + 1] : NULL,
					      .sg_list = &sge, .num_sge = 1 };
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_post_send(&qp, wr, &bad), 0);
	req = (const void *)(calls[0].raw + sizeof(struct ib_uverbs_cmd_hdr));
	ck_assert_uint_eq(calls[0].len, sizeof(struct ib_uverbs_cmd_hdr) + sizeof(*req) +
			  N * (sizeof(struct ib_uverbs_send_wr) + sizeof(struct ib_uverbs_sge)));
	ck_assert_uint_eq(req->wr_count, N);
	ck_assert_uint_eq(req->send_wr[N - 1].wr_id, N - 1);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Fallback decisions                                                  */

START_TEST(enotty_means_write_for_everything)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct verbs_cq cq;
	struct ibv_pd pd;

	kernel_ioctl = NULL;		/* ENOTTY: no ioctl interface */
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(calls[0].kind, IOCTL);
	ck_assert_int_eq(calls[1].kind, WRITE);
	ck_assert_uint_eq(calls[1].cmd.command, IB_USER_VERBS_CMD_CREATE_CQ);
	/* Learnt: neither methods nor the tunnel are tried again. */
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), 0);
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), 0);
	ck_assert_int_eq(ncalls, 4);
	ck_assert_int_eq(calls[2].kind, WRITE);
	ck_assert_int_eq(calls[3].kind, WRITE);
	free_ctx(ctx);
}
END_TEST

/* This kernel tunnels write commands but lacks the CQ methods. */
static int tunnel_only_ioctl(struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->object_id == UVERBS_OBJECT_DEVICE && hdr->method_id == UVERBS_METHOD_INVOKE_WRITE) {
		for (unsigned int i = 0; i < hdr->num_attrs; i++)
			if (hdr->attrs[i].attr_id == UVERBS_ATTR_CORE_OUT)
				memset(ptr(&hdr->attrs[i]), 0x33, hdr->attrs[i].len);
		return 0;
	}
	return EPROTONOSUPPORT;
}

START_TEST(eprotonosupport_means_write_for_that_method)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct verbs_cq cq;
	struct ibv_pd pd;

	kernel_ioctl = tunnel_only_ioctl;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), 0);
	/* CQ_CREATE refused, CREATE_CQ tunnelled instead. */
	ck_assert_int_eq(ncalls, 2);
	ck_assert_uint_eq(calls[0].hdr.object_id, UVERBS_OBJECT_CQ);
	expect_hdr(&calls[1], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 3);
	expect_attr(&calls[1], 2, UVERBS_ATTR_WRITE_CMD, 8, IB_USER_VERBS_CMD_CREATE_CQ);
	ck_assert_uint_eq(cq.cq.handle, 0x33333333);
	/* Next time straight to the tunnel; other commands unaffected. */
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), 0);
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), 0);
	ck_assert_int_eq(ncalls, 4);
	ck_assert_uint_eq(calls[2].hdr.method_id, UVERBS_METHOD_INVOKE_WRITE);
	ck_assert_uint_eq(calls[3].hdr.method_id, UVERBS_METHOD_INVOKE_WRITE);
	free_ctx(ctx);
}
END_TEST

/* Inside a method the kernel knows, EOPNOTSUPP is the handler's answer
 * (a driver refusing an argument): write() would get the same, so it is
 * returned as is and the method stays in use. */
static int cq_create_refused(struct ib_uverbs_ioctl_hdr *hdr)
{
	ck_assert_uint_eq(hdr->object_id, UVERBS_OBJECT_CQ);
	return EOPNOTSUPP;
}

START_TEST(method_eopnotsupp_is_the_answer)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct verbs_cq cq;

	kernel_ioctl = cq_create_refused;
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
					     &cq, NULL), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 1);
	kernel_ioctl = cq_kernel_ioctl;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), 0);
	ck_assert_int_eq(ncalls, 2);
	expect_hdr(&calls[1], UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 5);
	free_ctx(ctx);
}
END_TEST

/* The tunnel looks commands up in the table write() uses: its EOPNOTSUPP
 * (an unknown command, or the handler's own refusal) is write()'s too. */
static int tunnel_refuses_pd(struct ib_uverbs_ioctl_hdr *hdr)
{
	for (unsigned int i = 0; i < hdr->num_attrs; i++)
		if (hdr->attrs[i].attr_id == UVERBS_ATTR_WRITE_CMD &&
		    hdr->attrs[i].data == IB_USER_VERBS_CMD_ALLOC_PD)
			return EOPNOTSUPP;
	return 0;
}

START_TEST(tunnelled_eopnotsupp_is_the_answer)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_pd pd;

	kernel_ioctl = tunnel_refuses_pd;
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), EOPNOTSUPP);
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(calls[0].kind, IOCTL);
	ck_assert_int_eq(calls[1].kind, IOCTL);
	free_ctx(ctx);
}
END_TEST

START_TEST(forced_write_never_ioctls)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_gid_entry e;
	struct verbs_cq cq;
	struct ibv_pd pd;

	kernel_ioctl = cq_kernel_ioctl;
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), 0);
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), 0);
	/* ioctl-only methods report "not in this mode": sysfs answers. */
	ck_assert_int_eq(vcmd_query_gid_entry(ctx, 1, 0, &e), EOPNOTSUPP);
	ck_assert_int_eq(verbs_cmd_query_context(ctx), EOPNOTSUPP);
	for (int i = 0; i < ncalls; i++)
		ck_assert_int_eq(calls[i].kind, WRITE);
	free_ctx(ctx);
}
END_TEST

START_TEST(forced_ioctl_never_writes)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct verbs_cq cq;
	struct ibv_pd pd;

	kernel_ioctl = NULL;		/* an old kernel: ENOTTY */
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), EOPNOTSUPP);
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(calls[0].kind, IOCTL);
	ck_assert_int_eq(calls[1].kind, IOCTL);
	free_ctx(ctx);
}
END_TEST

/* A kernel from before the ioctl interface, opening a context. */
static int get_context_write(void *buf, size_t len)
{
	struct fake_cmd c = fake_cmd_parse(buf, len);

	ck_assert_uint_eq(c.number, IB_USER_VERBS_CMD_GET_CONTEXT);
	fake_get_context(&c);
	((struct ib_uverbs_get_context_resp *)c.resp)->num_comp_vectors = 3;
	return 0;
}

START_TEST(write_only_kernel_get_context)
{
	struct ibv_context *ctx = new_ctx("auto");

	kernel_write = get_context_write;
	ck_assert_int_eq(verbs_cmd_get_context(ctx, NULL), 0);
	/* ENOTTY on the first ioctl rules out the tunnel too. */
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(calls[0].kind, IOCTL);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, 2);
	ck_assert_int_eq(calls[1].kind, WRITE);
	ck_assert_int_ge(ctx->async_fd, 0);
	ck_assert_int_eq(ctx->num_comp_vectors, 3);
	free_ctx(ctx);
}
END_TEST

/* A modern kernel: GET_CONTEXT, then an async event fd of its own (which
 * verbs_open_device() asks for). */
static int modern_get_context(struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->method_id == UVERBS_METHOD_GET_CONTEXT) {
		*(uint32_t *)ptr(&hdr->attrs[0]) = 2;
		*(uint64_t *)ptr(&hdr->attrs[1]) = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
		return 0;
	}
	ck_assert_uint_eq(hdr->object_id, UVERBS_OBJECT_ASYNC_EVENT);
	ck_assert_uint_eq(hdr->method_id, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	hdr->attrs[0].data = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return 0;
}

START_TEST(ioctl_get_context_then_async_fd)
{
	struct ibv_context *ctx = new_ctx("auto");

	kernel_ioctl = modern_get_context;
	ck_assert_int_eq(verbs_cmd_get_context(ctx, NULL), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(ctx->async_fd, -1);
	ck_assert_int_eq(vcmd_alloc_async_fd(ctx), 0);
	ck_assert_int_eq(ncalls, 2);
	expect_hdr(&calls[1], UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC, 1);
	expect_attr(&calls[1], 0, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0, 0);
	ck_assert_int_ge(ctx->async_fd, 0);
	ck_assert_int_eq(ctx->num_comp_vectors, 2);
	ck_assert_uint_eq(dev.core_support, IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS);
	free_ctx(ctx);
}
END_TEST

/* A kernel that makes contexts over ioctl but has no async event object
 * to give them an event fd. */
static int context_without_async_events(struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->object_id == UVERBS_OBJECT_DEVICE && hdr->method_id == UVERBS_METHOD_GET_CONTEXT) {
		*(uint32_t *)ptr(&hdr->attrs[0]) = 2;
		*(uint64_t *)ptr(&hdr->attrs[1]) = 0;
		return 0;
	}
	return EPROTONOSUPPORT;
}

START_TEST(get_context_is_sent_once)
{
	struct ibv_context *ctx = new_ctx("auto");

	kernel_ioctl = context_without_async_events;
	kernel_write = get_context_write;
	/* The kernel context exists after the first call: a second
	 * GET_CONTEXT (by write()) would be refused on this fd, so the
	 * missing event fd fails the open (verbs_open_device). */
	ck_assert_int_eq(verbs_cmd_get_context(ctx, NULL), 0);
	ck_assert_int_eq(vcmd_alloc_async_fd(ctx), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 2);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, 2);
	expect_hdr(&calls[1], UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC, 1);
	ck_assert_int_eq(ctx->async_fd, -1);
	free_ctx(ctx);
}
END_TEST

START_TEST(ioctl_only_method_falls_back_once)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_gid_entry e;
	size_t n;

	kernel_ioctl = tunnel_only_ioctl;	/* no GID methods */
	ck_assert_int_eq(vcmd_query_gid_entry(ctx, 1, 0, &e), EOPNOTSUPP);
	ck_assert_int_eq(vcmd_query_gid_table(ctx, &e, 1, &n), EOPNOTSUPP);
	ck_assert_int_eq(vcmd_query_gid_entry(ctx, 1, 0, &e), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY, 4);
	expect_attr(&calls[0], 0, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, 8, 1);
	expect_attr(&calls[0], 1, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, 8, 0);
	expect_attr(&calls[0], 2, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 4, 0);
	free_ctx(ctx);
}
END_TEST

START_TEST(driver_errors_are_not_refusals)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct verbs_cq cq;

	kernel_ioctl = NULL;
	kernel_write = NULL;	/* write() says EINVAL */
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), EINVAL);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Destroy semantics                                                   */

static int destroy_reports_two_events(struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_destroy_cq_resp *resp = ptr(&hdr->attrs[1]);

	ck_assert_uint_eq(hdr->method_id, UVERBS_METHOD_CQ_DESTROY);
	resp->comp_events_reported = 2;
	resp->async_events_reported = 1;
	return 0;
}

static void *ack_later(void *arg)
{
	struct ibv_cq *cq = arg;
	struct ibv_async_event event = { .element.cq = cq, .event_type = IBV_EVENT_CQ_ERR };

	usleep(50000);
	ibv_ack_cq_events(cq, 2);
	ibv_ack_async_event(&event);
	return NULL;
}

START_TEST(destroy_cq_waits_for_acks)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct verbs_cq cq;
	pthread_t t;

	kernel_ioctl = cq_kernel_ioctl;
	ck_assert_int_eq(verbs_cmd_create_cq(ctx, 4, NULL, 0, 0, &cq, NULL), 0);
	verbs_init_cq(&cq.cq, ctx, NULL, NULL);
	kernel_ioctl = destroy_reports_two_events;
	ck_assert_int_eq(pthread_create(&t, NULL, ack_later, &cq.cq), 0);
	ck_assert_int_eq(verbs_cmd_destroy_cq(&cq.cq), 0);
	ck_assert_uint_eq(cq.cq.comp_events_completed, 2);
	ck_assert_uint_eq(cq.cq.async_events_completed, 1);
	pthread_join(t, NULL);
	free_ctx(ctx);
}
END_TEST

static int device_gone(struct ib_uverbs_ioctl_hdr *hdr)
{
	(void)hdr;
	return EIO;
}

START_TEST(disassociated_destroy)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };

	kernel_ioctl = device_gone;
	ck_assert_int_eq(verbs_cmd_dealloc_pd(&pd), EIO);
	setenv("RDMAV_ALLOW_DISASSOC_DESTROY", "1", 1);
	ck_assert_int_eq(verbs_cmd_dealloc_pd(&pd), 0);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Core verbs over a fake provider                                     */

static struct verbs_context *provider_ctx(const struct verbs_ops *ops)
{
	struct ibv_context *ctx = new_ctx("write");

	verbs_install_ops(verbs_get_ctx(ctx), ops);
	return verbs_get_ctx(ctx);
}

/* A write() kernel making completion channels out of /dev/null. */
static int comp_channel_write(void *buf, size_t len)
{
	struct fake_cmd c = fake_cmd_parse(buf, len);
	struct ib_uverbs_create_comp_channel_resp *resp = c.resp;

	ck_assert_uint_eq(c.number, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL);
	resp->fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return 0;
}

/* The provider's create_cq waits, once inside, until the test lets it
 * finish; then it succeeds or fails as the test says. */
static sem_t in_create_cq, create_cq_may_finish;
static int create_cq_errno;

static struct ibv_cq *paused_create_cq(struct ibv_context *ctx, int cqe,
				       struct ibv_comp_channel *channel, int comp_vector)
{
	struct verbs_cq *cq;

	(void)cqe, (void)comp_vector;
	sem_post(&in_create_cq);
	sem_wait(&create_cq_may_finish);
	if (create_cq_errno) {
		errno = create_cq_errno;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	cq->cq.context = ctx;
	cq->cq.channel = channel;
	return &cq->cq;
}

static struct ibv_cq_ex *failing_create_cq_ex(struct ibv_context *ctx,
					      struct ibv_cq_init_attr_ex *attr)
{
	(void)ctx, (void)attr;
	errno = ENOMEM;
	return NULL;
}

static int free_cq(struct ibv_cq *cq)
{
	free(container_of(cq, struct verbs_cq, cq));
	return 0;
}

static const struct verbs_ops paused_cq_ops = {
	.create_cq = paused_create_cq,
	.create_cq_ex = failing_create_cq_ex,
	.destroy_cq = free_cq,
};

static void *create_cq_on(void *channel)
{
	struct ibv_comp_channel *ch = channel;

	return ibv_create_cq(ch->context, 4, NULL, ch, 0);
}

static void cq_setup(void)
{
	setup();
	kernel_write = comp_channel_write;
	sem_init(&in_create_cq, 0, 0);
	sem_init(&create_cq_may_finish, 0, 0);
	create_cq_errno = 0;
}

START_TEST(channel_is_busy_while_a_cq_is_made_on_it)
{
	struct verbs_context *vctx = provider_ctx(&paused_cq_ops);
	struct ibv_comp_channel *ch = ibv_create_comp_channel(&vctx->context);
	struct ibv_cq *cq;
	pthread_t t;

	ck_assert_ptr_nonnull(ch);
	ck_assert_int_eq(pthread_create(&t, NULL, create_cq_on, ch), 0);
	sem_wait(&in_create_cq);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	sem_post(&create_cq_may_finish);
	ck_assert_int_eq(pthread_join(t, (void **)&cq), 0);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_eq(cq->channel, ch);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), EBUSY);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	free_ctx(&vctx->context);
}
END_TEST

START_TEST(failed_cq_leaves_the_channel_free)
{
	struct verbs_context *vctx = provider_ctx(&paused_cq_ops);
	struct ibv_comp_channel *ch = ibv_create_comp_channel(&vctx->context);
	struct ibv_cq_init_attr_ex attr = { .cqe = 4, .channel = ch };

	ck_assert_ptr_nonnull(ch);
	create_cq_errno = ENOMEM;
	sem_post(&create_cq_may_finish);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(&vctx->context, 4, NULL, ch, 0));
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(&vctx->context, &attr));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	free_ctx(&vctx->context);
}
END_TEST

/* Extended verbs and their errno conventions */

static struct ibv_qp *calloc_qp(struct ibv_context *ctx)
{
	struct verbs_qp *qp = calloc(1, sizeof(*qp));

	qp->qp.context = ctx;
	return &qp->qp;
}

static struct ibv_qp *plain_create_qp_ex(struct ibv_context *ctx,
					 struct ibv_qp_init_attr_ex *attr)
{
	(void)attr;
	return calloc_qp(ctx);
}

static struct ibv_qp *plain_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	(void)attr;
	return calloc_qp(pd->context);
}

static int accept_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return 0;
}

START_TEST(every_qp_of_create_qp_ex_has_qp_ex)
{
	static const struct verbs_ops ops = { .create_qp_ex = plain_create_qp_ex,
					      .create_qp = plain_create_qp };
	struct verbs_context *vctx = provider_ctx(&ops);
	struct ibv_pd pd = { .context = &vctx->context };
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC, .pd = &pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
	};
	struct ibv_qp *qp;

	/* No send_ops_flags asked: the wr_* entries may be NULL, but the
	 * QP is an extended one all the same. */
	qp = ibv_create_qp_ex(&vctx->context, &attr);
	ck_assert_ptr_nonnull(qp);
	ck_assert_ptr_eq(ibv_qp_to_qp_ex(qp), &container_of(qp, struct verbs_qp, qp)->qp_ex);
	free(container_of(qp, struct verbs_qp, qp));
	/* A PD-only request is an ibv_create_qp() call (verbs.h), and that
	 * makes a plain QP, as upstream's does. */
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	qp = ibv_create_qp_ex(&vctx->context, &attr);
	ck_assert_ptr_nonnull(qp);
	ck_assert_ptr_null(ibv_qp_to_qp_ex(qp));
	free(container_of(qp, struct verbs_qp, qp));
	free_ctx(&vctx->context);
}
END_TEST

/* ibv_set_ece(3): the errno value returned, and errno set as well. */
START_TEST(set_ece_errors)
{
	static const struct verbs_ops none, with_ece = { .set_ece = accept_ece };
	struct verbs_context *vctx = provider_ctx(&none);
	struct verbs_qp qp = { .qp.context = &vctx->context };
	struct ibv_ece ece = { 0 };

	errno = 0;
	ck_assert_int_eq(ibv_set_ece(&qp.qp, &ece), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ece.vendor_id = 0x15b3;
	errno = 0;
	ck_assert_int_eq(ibv_set_ece(&qp.qp, &ece), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	free_ctx(&vctx->context);

	vctx = provider_ctx(&with_ece);
	qp.qp.context = &vctx->context;
	ck_assert_int_eq(ibv_set_ece(&qp.qp, &ece), 0);
	ece.comp_mask = 1;
	errno = 0;
	ck_assert_int_eq(ibv_set_ece(&qp.qp, &ece), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	/* No vendor: nothing to negotiate, whatever else is asked. */
	ece.vendor_id = 0;
	errno = 0;
	ck_assert_int_eq(ibv_set_ece(&qp.qp, &ece), EOPNOTSUPP);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	free_ctx(&vctx->context);
}
END_TEST

/* Unknown extension bits are unsupported, as upstream says. */
START_TEST(create_cq_ex_unknown_comp_mask)
{
	struct verbs_context *vctx = provider_ctx(&paused_cq_ops);
	struct ibv_cq_init_attr_ex attr = { .cqe = 4, .comp_mask = 1u << 31 };

	errno = 0;
	ck_assert_ptr_null(ibv_create_cq_ex(&vctx->context, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	free_ctx(&vctx->context);
}
END_TEST

/* A P_Key table the device cannot read past its first entry: the error
 * of that read is the error of the search. */
START_TEST(get_pkey_index_keeps_the_real_errno)
{
	struct ibv_context *ctx = new_ctx("write");

	ck_assert(unit_tree_make("/tmp/openverbs-pkeys-XXXXXX"));
	unit_put("ports/1/pkeys/0", "0xffff\n");
	unit_put("ports/1/pkeys/1", "not a key\n");
	snprintf(dev.device.ibdev_path, sizeof(dev.device.ibdev_path), "%s", unit_root);

	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0xffff)), 0);
	errno = 0;
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x8001)), -1);
	ck_assert_int_eq(errno, EINVAL);
	unit_put("ports/1/pkeys/1", "0x8001\n");
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x8001)), 1);
	/* Past the end of the table: no such P_Key. */
	errno = 0;
	ck_assert_int_eq(ibv_get_pkey_index(ctx, 1, htobe16(0x1234)), -1);
	ck_assert_int_eq(errno, ENOENT);

	ck_assert(unit_tree_remove());
	dev.device.ibdev_path[0] = '\0';
	free_ctx(ctx);
}
END_TEST

/* QP_CREATE as Linux checks a call before any handler runs: attributes
 * in the order given, a PD handle looked up (5 is a PD, 6 a CQ, nothing
 * else exists), an unknown mandatory attribute refused, then missing
 * mandatory ones.  A call that would reach the handler fails the test. */
static int qp_create_checks(struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->object_id != UVERBS_OBJECT_QP || hdr->method_id != UVERBS_METHOD_QP_CREATE)
		return EPROTONOSUPPORT;
	for (unsigned int i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];

		ck_assert_uint_ne(a->attr_id, UVERBS_ATTR_CREATE_QP_HANDLE);
		if (a->attr_id == UVERBS_ATTR_CREATE_QP_PD_HANDLE) {
			if (a->data != 5)
				return a->data == 6 ? EINVAL : ENOENT;
		} else if (a->attr_id > UVERBS_ATTR_CREATE_QP_RESP_QP_NUM &&
			   (a->flags & UVERBS_ATTR_F_MANDATORY)) {
			return EPROTONOSUPPORT;
		}
	}
	return EINVAL;
}

START_TEST(import_pd_asks_the_kernel)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_pd *pd;

	kernel_ioctl = qp_create_checks;
	pd = ibv_import_pd(ctx, 5);
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_eq(pd->handle, 5);
	ck_assert_ptr_eq(pd->context, ctx);
	ibv_unimport_pd(pd);
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(ctx, 7));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(ibv_import_pd(ctx, 6));
	ck_assert_int_eq(errno, EINVAL);
	for (int i = 0; i < ncalls; i++)
		ck_assert_int_eq(calls[i].kind, IOCTL);
	free_ctx(ctx);
}
END_TEST

/* A kernel that cannot say (no QP_CREATE method, no ioctl, or the forced
 * write mode): no number is taken on trust. */
START_TEST(import_pd_needs_a_kernel_that_can_check)
{
	static const char *const modes[] = { "auto", "write" };
	static int (*const kernels[])(struct ib_uverbs_ioctl_hdr *) = { tunnel_only_ioctl, NULL };

	for (int m = 0; m < 2; m++) {
		for (int k = 0; k < 2; k++) {
			struct ibv_context *ctx = new_ctx(modes[m]);

			kernel_ioctl = kernels[k];
			errno = 0;
			ck_assert_ptr_null(ibv_import_pd(ctx, 5));
			ck_assert_int_eq(errno, EOPNOTSUPP);
			free_ctx(ctx);
		}
	}
	for (int i = 0; i < ncalls; i++)
		ck_assert_int_eq(calls[i].kind, IOCTL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Fork protection of memory regions                                   */

static long page;

static bool kernel_needs_dontfork(void)
{
	return false;
}

/* Two pages and an unmapped one after them.  madvise() splits mappings,
 * so smaps tells each page's advice. */
static char *two_pages(void)
{
	char *p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(munmap(p + 2 * page, page), 0);
	return p;
}

static void mr_setup(void)
{
	setup();
	kernel_write = answering_write;
	page = sysconf(_SC_PAGESIZE);
	verbs_fork_kernel_copies_on_fork = kernel_needs_dontfork;
	ck_assert_int_eq(ibv_fork_init(), 0);
}

static int refusing_rereg(void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr *hdr = buf;

	return hdr->command == IB_USER_VERBS_CMD_REREG_MR ? EINVAL : answering_write(buf, len);
}

/* Turning on-demand paging off makes the MR pin its pages: they must be
 * counted, or its dereg takes another MR's protection with it. */
START_TEST(rereg_to_pinned_counts_the_pages)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	char *p = two_pages();
	struct ibv_mr *pinned, *odp;

	pinned = ibv_reg_mr(&pd, p, page, IBV_ACCESS_LOCAL_WRITE);
	odp = ibv_reg_mr(&pd, p, page, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	ck_assert(pinned && odp);
	ck_assert_int_eq(ibv_rereg_mr(odp, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE), 0);
	ck_assert_int_eq(ibv_dereg_mr(odp), 0);
	ck_assert(unit_dontfork(p));
	ck_assert_int_eq(ibv_dereg_mr(pinned), 0);
	ck_assert(!unit_dontfork(p));
	free_ctx(ctx);
}
END_TEST

/* Turning it on releases them: on-demand MRs pin nothing. */
START_TEST(rereg_to_on_demand_releases_the_pages)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	char *p = two_pages();
	struct ibv_mr *mr = ibv_reg_mr(&pd, p, page, IBV_ACCESS_LOCAL_WRITE);

	ck_assert_ptr_nonnull(mr);
	ck_assert(unit_dontfork(p));
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, &pd, NULL, 0, 0), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert(!unit_dontfork(p));
	free_ctx(ctx);
}
END_TEST

START_TEST(rereg_moves_the_protection)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	char *p = two_pages();
	struct ibv_mr *mr = ibv_reg_mr(&pd, p, page, IBV_ACCESS_LOCAL_WRITE);

	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, p + page, page,
				      0), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert(unit_dontfork(p + page));
	/* A range that cannot be protected: nothing changes. */
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, p + 2 * page,
				      page, 0), IBV_REREG_MR_ERR_DONT_FORK_NEW);
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_ptr_eq(mr->addr, p + page);
	/* Moved and made on-demand at once: nothing stays protected. */
	ck_assert_int_eq(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
				      IBV_REREG_MR_CHANGE_ACCESS, NULL, p, page,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND), 0);
	ck_assert(!unit_dontfork(p));
	ck_assert(!unit_dontfork(p + page));
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	free_ctx(ctx);
}
END_TEST

/* The kernel refuses: the counts are as they were before the call. */
START_TEST(refused_rereg_keeps_the_counts)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	char *p = two_pages();
	struct ibv_mr *odp = ibv_reg_mr(&pd, p, page, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	struct ibv_mr *pinned = ibv_reg_mr(&pd, p + page, page, IBV_ACCESS_LOCAL_WRITE);

	ck_assert(odp && pinned);
	kernel_write = refusing_rereg;
	errno = 0;
	ck_assert_int_eq(ibv_rereg_mr(odp, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE), IBV_REREG_MR_ERR_CMD);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert(!unit_dontfork(p));
	ck_assert_int_eq(ibv_rereg_mr(pinned, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, p, page, 0),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert(!unit_dontfork(p));
	ck_assert(unit_dontfork(p + page));
	ck_assert_int_eq(ibv_rereg_mr(pinned, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND),
			 IBV_REREG_MR_ERR_CMD);
	ck_assert(unit_dontfork(p + page));
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_dereg_mr(odp), 0);
	ck_assert_int_eq(ibv_dereg_mr(pinned), 0);
	ck_assert(!unit_dontfork(p + page));
	free_ctx(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cmd");
	TCase *enc = tcase_create("encoding"), *fb = tcase_create("fallback");
	TCase *destroy = tcase_create("destroy"), *cq = tcase_create("completion channels");
	TCase *conv = tcase_create("conventions"), *mr = tcase_create("memory regions");
	TCase *datapath = tcase_create("datapath");

	tcase_add_checked_fixture(enc, setup, NULL);
	tcase_add_checked_fixture(fb, setup, NULL);
	tcase_add_checked_fixture(destroy, setup, NULL);
	tcase_add_checked_fixture(cq, cq_setup, NULL);
	tcase_add_checked_fixture(conv, setup, NULL);
	tcase_add_checked_fixture(mr, mr_setup, NULL);
	tcase_add_checked_fixture(datapath, setup, NULL);
	tcase_add_test(enc, write_alloc_pd_bytes);
	tcase_add_test(enc, write_extended_create_cq_bytes);
	tcase_add_test(enc, tunnelled_alloc_pd_bytes);
	tcase_add_test(enc, ioctl_create_cq_bytes);
	tcase_add_test(enc, ioctl_query_port_bytes);
	tcase_add_test(enc, sysfs_record_sends_the_providers_driver_id);
	tcase_add_test(enc, write_post_send_bytes);
	tcase_add_test(enc, doorbell_posts_nothing);
	tcase_add_test(enc, create_qp_leaves_the_callers_attr_alone);
	tcase_add_test(datapath, doorbell_is_one_write);
	tcase_add_test(datapath, forced_ioctl_doorbell_is_tunnelled);
	tcase_add_test(datapath, doorbell_write_refused_takes_tunnel);
	tcase_add_test(datapath, datapath_allocates_nothing);
	tcase_add_test(datapath, tunnelled_post_recv_names_bad_wr);
	tcase_add_test(datapath, long_send_list);
	tcase_add_test(fb, enotty_means_write_for_everything);
	tcase_add_test(fb, eprotonosupport_means_write_for_that_method);
	tcase_add_test(fb, method_eopnotsupp_is_the_answer);
	tcase_add_test(fb, tunnelled_eopnotsupp_is_the_answer);
	tcase_add_test(fb, forced_write_never_ioctls);
	tcase_add_test(fb, forced_ioctl_never_writes);
	tcase_add_test(fb, write_only_kernel_get_context);
	tcase_add_test(fb, ioctl_get_context_then_async_fd);
	tcase_add_test(fb, get_context_is_sent_once);
	tcase_add_test(fb, ioctl_only_method_falls_back_once);
	tcase_add_test(fb, driver_errors_are_not_refusals);
	tcase_add_test(destroy, destroy_cq_waits_for_acks);
	tcase_add_test(destroy, disassociated_destroy);
	suite_add_tcase(s, enc);
	suite_add_tcase(s, fb);
	tcase_add_test(cq, channel_is_busy_while_a_cq_is_made_on_it);
	tcase_add_test(cq, failed_cq_leaves_the_channel_free);
	suite_add_tcase(s, destroy);
	tcase_add_test(conv, every_qp_of_create_qp_ex_has_qp_ex);
	tcase_add_test(conv, set_ece_errors);
	tcase_add_test(conv, create_cq_ex_unknown_comp_mask);
	tcase_add_test(conv, get_pkey_index_keeps_the_real_errno);
	tcase_add_test(conv, import_pd_asks_the_kernel);
	tcase_add_test(conv, import_pd_needs_a_kernel_that_can_check);
	suite_add_tcase(s, cq);
	tcase_add_test(mr, rereg_to_pinned_counts_the_pages);
	tcase_add_test(mr, rereg_to_on_demand_releases_the_pages);
	tcase_add_test(mr, rereg_moves_the_protection);
	tcase_add_test(mr, refused_rereg_keeps_the_counts);
	suite_add_tcase(s, conv);
	suite_add_tcase(s, mr);
	suite_add_tcase(s, datapath);
	return unit_run(s, CK_FORK_GETENV);
}
