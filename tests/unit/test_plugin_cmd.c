/* SPDX-License-Identifier: MIT */
/*
 * The ibv_cmd_* helpers and execute_ioctl of upstream's provider plugins
 * (compat/plugins) against the recording fake kernel: where the provider's
 * driver bytes go, how its command buffers are merged into ours and
 * written back, and the calling conventions of FACTS 36-47.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compat/plugins/commands.h"
#include "compat/plugins/plugins.h"
#include "fake_uverbs.h"
#include "provider_buf.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* Kernels                                                             */

/* Answers what these tests send over ioctl: CQ and QP creation, QP
 * destruction, query_context (4 vectors), query_port, and a provider's
 * DRIVER_ATTR (0x77 written in place, its pointer output filled). */
static uint32_t key(uint16_t object, uint16_t method, uint16_t attr_id)
{
	return (uint32_t)object << 24 | (uint32_t)method << 16 | attr_id;
}

static int ioctl_kernel(struct ib_uverbs_ioctl_hdr *hdr)
{
	for (unsigned int i = 0; i < hdr->num_attrs; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];
		uint32_t k = key(hdr->object_id, hdr->method_id, a->attr_id);

		if (k == key(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, UVERBS_ATTR_CREATE_CQ_HANDLE))
			a->data = 7;
		else if (k == key(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
				  UVERBS_ATTR_CREATE_CQ_RESP_CQE))
			*(uint32_t *)ptr(a) = 31;
		else if (k == key(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
				  UVERBS_ATTR_CREATE_QP_HANDLE))
			a->data = 9;
		else if (k == key(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
				  UVERBS_ATTR_CREATE_QP_RESP_QP_NUM))
			*(uint32_t *)ptr(a) = 0x123;
		else if (k == key(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
				  UVERBS_ATTR_CREATE_QP_RESP_CAP))
			*(struct ib_uverbs_qp_cap *)ptr(a) = (struct ib_uverbs_qp_cap){ .max_send_wr = 64 };
		else if (k == key(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY,
				  UVERBS_ATTR_DESTROY_QP_RESP))
			memset(ptr(a), 0, a->len);
		else if (k == key(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
				  UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS))
			*(uint32_t *)ptr(a) = 4;
		else if (k == key(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
				  UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT))
			*(uint64_t *)ptr(a) = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
		else if (k == key(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT,
				  UVERBS_ATTR_QUERY_PORT_RESP))
			*(struct ib_uverbs_query_port_resp_ex *)ptr(a) =
				(struct ib_uverbs_query_port_resp_ex){ .legacy_resp.lid = 5 };
		else if (a->attr_id == DRIVER_ATTR)
			a->data = 0x77;
		else if (a->attr_id == UVERBS_ATTR_UHW_OUT) {
			memset(ptr(a), 0xab, a->len);
			a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
		}
	}
	return 0;
}

/* POLL_CQ: one completion, whatever was asked. */
static int poll_one_write(void *buf, size_t len)
{
	struct fake_cmd c = fake_cmd_parse(buf, len);
	struct ib_uverbs_poll_cq_resp *resp = c.resp;

	if (c.number != IB_USER_VERBS_CMD_POLL_CQ)
		return EINVAL;
	memset(resp, 0, c.resp_len);
	resp->count = 1;
	resp->wc[0].wr_id = 0xfeed;
	resp->wc[0].status = IBV_WC_REM_ACCESS_ERR;
	resp->wc[0].opcode = IBV_WC_RECV;
	resp->wc[0].byte_len = 1234;
	resp->wc[0].ex.imm_data = 0xabcd;
	resp->wc[0].qp_num = 0x42;
	resp->wc[0].wc_flags = IBV_WC_WITH_IMM;
	resp->wc[0].sl = 3;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Driver data placement (FACTS 37)                                    */

START_TEST(write_alloc_pd_driver_bytes)
{
	struct ibv_context *ctx = new_ctx("write");
	struct {
		struct ibv_alloc_pd core;
		uint64_t drv;
	} cmd = { .drv = 0x0123456789abcdefULL };
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		uint32_t drv[2];
	} resp = {};
	struct ibv_pd pd = {};
	uint64_t response;

	static_assert(sizeof(cmd) == 24 && sizeof(resp) == 12, "no padding");
	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_alloc_pd(ctx, &pd, &cmd.core, sizeof(cmd), &resp.core,
					  sizeof(resp)), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].kind, WRITE);
	ck_assert_uint_eq(calls[0].len, 24);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_ALLOC_PD);
	ck_assert_uint_eq(calls[0].cmd.in_words, 6);
	ck_assert_uint_eq(calls[0].cmd.out_words, 3);
	memcpy(&response, calls[0].raw + 8, 8);
	ck_assert_uint_ne(response, 0);
	/* The driver's request right after the 16-byte wrapper. */
	ck_assert_int_eq(memcmp(calls[0].raw + 16, &cmd.drv, 8), 0);
	ck_assert_uint_eq(pd.handle, 0x11111111);
	ck_assert_ptr_eq(pd.context, ctx);
	/* The driver's response right after the 4-byte core response. */
	ck_assert_uint_eq(resp.drv[0], 0x11111111);
	ck_assert_uint_eq(resp.drv[1], 0x11111111);
	free_ctx(ctx);
}
END_TEST

START_TEST(ioctl_create_cq_driver_bytes)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct {
		struct ibv_create_cq core;
		uint64_t drv[2];
	} cmd = { .drv = { 1, 2 } };
	struct {
		struct ib_uverbs_create_cq_resp core;
		uint64_t drv;
	} resp = {};
	struct ibv_comp_channel *sentinel = (void *)(uintptr_t)0x5a5a;
	struct ibv_cq cq = { .channel = sentinel };

	kernel_ioctl = ioctl_kernel;
	ck_assert_int_eq(ibv_cmd_create_cq(ctx, 30, NULL, 1, &cq, &cmd.core, sizeof(cmd),
					   &resp.core, sizeof(resp)), 0);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 7);
	/* UHW_IN: the 16 bytes after the 40-byte wrapper, by pointer. */
	expect_attr(&calls[0], 5, UVERBS_ATTR_UHW_IN, 16, (uintptr_t)cmd.drv);
	/* UHW_OUT: the 8 bytes after the 8-byte core response. */
	expect_attr(&calls[0], 6, UVERBS_ATTR_UHW_OUT, 8, (uintptr_t)&resp.drv);
	ck_assert_uint_eq(resp.drv, 0xabababababababab);
	ck_assert_uint_eq(cq.handle, 7);
	ck_assert_int_eq(cq.cqe, 31);
	ck_assert_ptr_eq(cq.context, ctx);
	/* The channel is verbs_init_cq's to set (FACTS 30). */
	ck_assert_ptr_eq(cq.channel, sentinel);
	free_ctx(ctx);
}
END_TEST

START_TEST(create_ah_driver_response)
{
	struct ibv_context *ctx = new_ctx("write");
	struct {
		struct ib_uverbs_create_ah_resp core;
		uint32_t drv;
	} resp = {};
	struct ibv_pd pd = { .context = ctx, .handle = 3 };
	struct ibv_ah_attr attr = { .dlid = 0x10, .port_num = 1 };
	struct ibv_ah ah = {};

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_ah(&pd, &ah, &attr, &resp.core, sizeof(resp)), 0);
	ck_assert_int_eq(calls[0].kind, WRITE);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_CREATE_AH);
	/* Header and the core request only; 4 + 4 response bytes. */
	ck_assert_uint_eq(calls[0].len, sizeof(struct ibv_create_ah));
	ck_assert_uint_eq(calls[0].cmd.out_words, 2);
	ck_assert_uint_eq(resp.drv, 0x11111111);
	ck_assert_ptr_eq(ah.context, ctx);
	ck_assert_uint_eq(ah.handle, 0x11111111);
	free_ctx(ctx);
}
END_TEST

/* The tunnel (INVOKE_WRITE), keeping a copy of the request it carried. */
static uint8_t tunnelled_req[256];

static int tunnel_kernel(struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->method_id != UVERBS_METHOD_INVOKE_WRITE)
		return EPROTONOSUPPORT;
	for (unsigned int i = 0; i < hdr->num_attrs; i++)
		if (hdr->attrs[i].attr_id == UVERBS_ATTR_CORE_IN &&
		    hdr->attrs[i].len <= sizeof(tunnelled_req))
			memcpy(tunnelled_req, ptr(&hdr->attrs[i]), hdr->attrs[i].len);
	return 0;
}

START_TEST(tunnelled_modify_qp_driver_bytes)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct {
		struct ibv_modify_qp core;
		uint64_t drv;
	} cmd = { .drv = 0x0102030405060708ULL };
	struct ibv_qp qp = { .context = ctx, .handle = 12 };
	struct ibv_qp_attr qp_attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ib_uverbs_modify_qp req;

	kernel_ioctl = tunnel_kernel;
	ck_assert_int_eq(ibv_cmd_modify_qp(&qp, &qp_attr, IBV_QP_STATE | IBV_QP_PORT, &cmd.core,
					   sizeof(cmd)), 0);
	ck_assert_int_eq(ncalls, 1);
	/* The legacy command through the ioctl tunnel (FACTS 40): the core
	 * request after its header, the command, the driver's 8 bytes inline. */
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 3);
	ck_assert_uint_eq(attr(&calls[0], 0)->attr_id, UVERBS_ATTR_CORE_IN);
	ck_assert_uint_eq(attr(&calls[0], 0)->len, sizeof(struct ib_uverbs_modify_qp));
	memcpy(&req, tunnelled_req, sizeof(req));
	ck_assert_uint_eq(req.qp_handle, 12);
	ck_assert_uint_eq(req.attr_mask, IBV_QP_STATE | IBV_QP_PORT);
	ck_assert_uint_eq(req.qp_state, IBV_QPS_INIT);
	ck_assert_uint_eq(req.port_num, 1);
	expect_attr(&calls[0], 1, UVERBS_ATTR_WRITE_CMD, 8, IB_USER_VERBS_CMD_MODIFY_QP);
	expect_attr(&calls[0], 2, UVERBS_ATTR_UHW_IN, 8, cmd.drv);
	free_ctx(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Command buffers (FACTS 44-47)                                       */

START_TEST(execute_ioctl_inlines_short_uhw_in)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	uint32_t drv_in = 0xcafe;
	uint64_t expected = inline_u32(drv_in);
	struct provider_buf b;

	kernel_ioctl = ioctl_kernel;
	buf_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	buf_add(&b, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 8, 1);
	buf_uhw_in(&b, &drv_in, sizeof(drv_in));
	ck_assert_int_eq(execute_ioctl(ctx, &b.head), 0);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2);
	expect_attr(&calls[0], 0, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 8, 1);
	/* The kernel wants inputs of 8 bytes or less inline... */
	expect_attr(&calls[0], 1, UVERBS_ATTR_UHW_IN, 4, expected);
	/* ...and the provider's slot keeps its pointer. */
	ck_assert_ptr_eq(ptr(&b.slots[1]), &drv_in);
	free_ctx(ctx);
}
END_TEST

START_TEST(execute_ioctl_long_uhw_in_by_pointer)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	uint64_t drv_in[2] = { 1, 2 };
	struct provider_buf b;

	kernel_ioctl = ioctl_kernel;
	buf_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	buf_uhw_in(&b, drv_in, sizeof(drv_in));
	ck_assert_int_eq(execute_ioctl(ctx, &b.head), 0);
	expect_attr(&calls[0], 0, UVERBS_ATTR_UHW_IN, 16, (uintptr_t)drv_in);
	free_ctx(ctx);
}
END_TEST

START_TEST(execute_ioctl_merges_chain_and_copies_back)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct provider_buf head, link;
	uint64_t out = 0;

	kernel_ioctl = ioctl_kernel;
	buf_init(&head, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	buf_add(&head, DRIVER_ATTR, 0, 0);
	buf_init(&link, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	buf_add(&link, UVERBS_ATTR_UHW_OUT, sizeof(out), (uintptr_t)&out);
	buf_add(&link, DRIVER_ATTR, 0, 5)->flags = 0;	/* optional */
	head.head.next = &link.head;
	ck_assert_uint_eq(__ioctl_final_num_attrs(2, &head.head), 5);
	ck_assert_int_eq(execute_ioctl(ctx, &head.head), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 3);
	/* In chain order, flags as the provider set them. */
	expect_attr(&calls[0], 0, DRIVER_ATTR, 0, 0);
	expect_attr(&calls[0], 1, UVERBS_ATTR_UHW_OUT, 8, (uintptr_t)&out);
	ck_assert_uint_eq(attr(&calls[0], 2)->attr_id, DRIVER_ATTR);
	ck_assert_uint_eq(attr(&calls[0], 2)->flags, 0);
	ck_assert_uint_eq(attr(&calls[0], 2)->data, 5);
	/* What the kernel wrote is back in each buffer's own slots. */
	ck_assert_uint_eq(head.slots[0].data, 0x77);
	ck_assert_uint_eq(link.slots[0].flags, UVERBS_ATTR_F_MANDATORY | UVERBS_ATTR_F_VALID_OUTPUT);
	ck_assert_uint_eq(link.slots[1].data, 0x77);
	ck_assert_uint_eq(out, 0xabababababababab);
	free_ctx(ctx);
}
END_TEST

START_TEST(buffer_error_is_einval)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct provider_buf b, link;

	kernel_ioctl = ioctl_kernel;
	buf_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	b.head.buffer_error = 1;
	errno = 0;
	ck_assert_int_eq(execute_ioctl(ctx, &b.head), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	/* A linked buffer that overflowed fails the helper the same way. */
	buf_init(&link, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	link.head.buffer_error = 1;
	errno = 0;
	ck_assert_int_eq(ibv_cmd_query_context(ctx, &link.head), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 0);
	free_ctx(ctx);
}
END_TEST

START_TEST(query_context_links_driver_attrs)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct provider_buf drv;
	uint64_t out = 0;

	kernel_ioctl = ioctl_kernel;
	buf_init(&drv, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);
	buf_add(&drv, UVERBS_ATTR_UHW_OUT, sizeof(out), (uintptr_t)&out);
	buf_add(&drv, DRIVER_ATTR, 0, 0);
	ck_assert_int_eq(ibv_cmd_query_context(ctx, &drv.head), 0);
	ck_assert_int_eq(ncalls, 1);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, 4);
	ck_assert_uint_eq(attr(&calls[0], 0)->attr_id, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS);
	ck_assert_uint_eq(attr(&calls[0], 1)->attr_id, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT);
	expect_attr(&calls[0], 2, UVERBS_ATTR_UHW_OUT, 8, (uintptr_t)&out);
	expect_attr(&calls[0], 3, DRIVER_ATTR, 0, 0);
	ck_assert_int_eq(ctx->num_comp_vectors, 4);
	ck_assert_uint_eq(dev.core_support, IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS);
	ck_assert_uint_eq(drv.slots[1].data, 0x77);
	ck_assert_uint_eq(out, 0xabababababababab);
	/* No async fd here: the core adds it (FACTS 21d). */
	ck_assert_int_eq(ctx->async_fd, -1);
	free_ctx(ctx);
}
END_TEST

START_TEST(long_and_overlong_chains)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	enum { MANY = 40, TOO_MANY = (UINT16_MAX - 24) / 16 + 1 };
	struct ibv_command_buffer *big = calloc(1, sizeof(*big) + TOO_MANY * sizeof(struct ib_uverbs_attr));
	struct provider_buf links[VERBS_PLUGIN_MAX_LINKS + 1];

	kernel_ioctl = ioctl_kernel;
	big->uhw_in_idx = big->uhw_out_idx = IBV_CMD_NO_UHW;
	big->hdr.object_id = UVERBS_OBJECT_DEVICE;
	big->hdr.method_id = UVERBS_METHOD_QUERY_PORT;
	for (unsigned int i = 0; i < TOO_MANY; i++)
		big->hdr.attrs[i] = (struct ib_uverbs_attr){ .attr_id = DRIVER_ATTR };
	/* More than the command layer keeps on its stack. */
	big->next_attr = big->hdr.attrs + MANY;
	ck_assert_int_eq(execute_ioctl(ctx, big), 0);
	expect_hdr(&calls[0], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, MANY);
	ck_assert_uint_eq(big->hdr.attrs[MANY - 1].data, 0x77);
	/* More than a 16-bit header length can say. */
	big->next_attr = big->hdr.attrs + TOO_MANY;
	ck_assert_int_eq(execute_ioctl(ctx, big), EINVAL);
	/* A chain longer than any provider builds. */
	for (unsigned int i = 0; i <= VERBS_PLUGIN_MAX_LINKS; i++) {
		buf_init(&links[i], UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
		if (i)
			links[i - 1].head.next = &links[i].head;
	}
	ck_assert_int_eq(execute_ioctl(ctx, &links[0].head), EINVAL);
	ck_assert_int_eq(ncalls, 1);
	free(big);
	free_ctx(ctx);
}
END_TEST

START_TEST(ioctl_refused_is_the_errno)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct provider_buf b;

	/* kernel_ioctl NULL: this "kernel" has no ioctl at all (ENOTTY). */
	buf_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	errno = 0;
	ck_assert_int_eq(execute_ioctl(ctx, &b.head), ENOTTY);
	ck_assert_int_eq(errno, ENOTTY);
	free_ctx(ctx);
}
END_TEST

START_TEST(write_fallback_checks_of_links)
{
	struct provider_buf b;
	uint32_t drv_in = 1;
	uint64_t drv_out;
	struct verbs_udata udata;

	buf_init(&b, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	buf_uhw_in(&b, &drv_in, sizeof(drv_in));
	b.head.uhw_out_idx = 1;
	buf_add(&b, UVERBS_ATTR_UHW_OUT, sizeof(drv_out), (uintptr_t)&drv_out);
	ck_assert(verbs_plugin_link_writable(&b.head));
	udata = verbs_plugin_link_udata(&b.head);
	ck_assert_ptr_eq(udata.in, &drv_in);
	ck_assert_uint_eq(udata.in_len, 4);
	ck_assert_ptr_eq(udata.out, &drv_out);
	ck_assert_uint_eq(udata.out_len, 8);
	/* An optional driver attribute can be left out of a write()... */
	buf_add(&b, DRIVER_ATTR, 0, 0)->flags = 0;
	ck_assert(verbs_plugin_link_writable(&b.head));
	/* ...a mandatory one cannot, nor an ioctl-only buffer. */
	b.slots[2].flags = UVERBS_ATTR_F_MANDATORY;
	ck_assert(!verbs_plugin_link_writable(&b.head));
	b.slots[2].flags = 0;
	b.head.fallback_ioctl_only = 1;
	ck_assert(!verbs_plugin_link_writable(&b.head));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Helpers' conventions and effects (FACTS 36, section H)              */

START_TEST(poll_cq_converts_and_counts)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_cq cq = { .context = ctx, .handle = 6 };
	struct ibv_wc wc[2];

	kernel_write = poll_one_write;
	ck_assert_int_eq(ibv_cmd_poll_cq(&cq, 2, wc), 1);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_POLL_CQ);
	ck_assert_uint_eq(calls[0].cmd.in_words, (8 + sizeof(struct ib_uverbs_poll_cq)) / 4);
	/* 8 bytes of count and padding, then 48 per completion. */
	ck_assert_uint_eq(calls[0].cmd.out_words, (8 + 2 * 48) / 4);
	ck_assert_uint_eq(wc[0].wr_id, 0xfeed);
	ck_assert_int_eq(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc[0].byte_len, 1234);
	ck_assert_uint_eq(wc[0].imm_data, 0xabcd);
	ck_assert_uint_eq(wc[0].qp_num, 0x42);
	ck_assert_uint_eq(wc[0].wc_flags, IBV_WC_WITH_IMM);
	ck_assert_uint_eq(wc[0].sl, 3);
	kernel_write = NULL;		/* EINVAL */
	errno = 0;
	ck_assert_int_eq(ibv_cmd_poll_cq(&cq, 2, wc), -1);
	ck_assert_int_eq(errno, EINVAL);
	free_ctx(ctx);
}
END_TEST

START_TEST(query_port_writes_the_v44_struct_only)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	union {
		struct ibv_port_attr attr;
		uint8_t bytes[56];
	} port;
	struct ibv_query_port cmd;

	memset(&port, 0xee, sizeof(port));
	kernel_ioctl = ioctl_kernel;
	ck_assert_int_eq(ibv_cmd_query_port(ctx, 1, &port.attr, &cmd, sizeof(cmd)), 0);
	ck_assert_uint_eq(port.attr.lid, 5);
	for (size_t i = 52; i < sizeof(port.bytes); i++)
		ck_assert_uint_eq(port.bytes[i], 0xee);
	free_ctx(ctx);
}
END_TEST

START_TEST(query_device_any_basic_and_extended)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_device_attr_ex attr;
	struct {
		struct ib_uverbs_ex_query_device_resp core;
		uint64_t drv;
	} resp = {};
	size_t resp_size = sizeof(resp);
	struct ibv_query_device_ex_input input = { .comp_mask = 1 };

	kernel_write = answering_write;
	/* ibv_query_device's size: the basic query only. */
	ck_assert_int_eq(ibv_cmd_query_device_any(ctx, NULL, &attr, sizeof(attr.orig_attr),
						  NULL, NULL), 0);
	ck_assert_int_eq(ncalls, 1);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_QUERY_DEVICE);
	ck_assert_uint_eq(attr.orig_attr.max_qp, 0x11111111);
	/* Bigger: the extended one, the driver's response after the core's. */
	ck_assert_int_eq(ibv_cmd_query_device_any(ctx, NULL, &attr, sizeof(attr), &resp.core,
						  &resp_size), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_uint_eq(calls[1].cmd.command,
			  IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_QUERY_DEVICE);
	ck_assert_uint_eq(resp.drv, 0x2222222222222222);
	ck_assert_uint_eq(resp_size, 0x11111111);
	errno = 0;
	ck_assert_int_eq(ibv_cmd_query_device_any(ctx, &input, &attr, sizeof(attr), NULL, NULL),
			 EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ibv_cmd_query_device_any(ctx, NULL, &attr, sizeof(attr.orig_attr) - 8,
						  NULL, NULL), EINVAL);
	ck_assert_int_eq(ncalls, 2);
	free_ctx(ctx);
}
END_TEST

/* The QP of a v56 plugin: its verbs_qp is 8 bytes longer, so nothing at
 * either release's comp_mask/xrcd may be written for a non-XRC QP. */
struct v56_qp {
	struct verbs_qp vqp;
	uint64_t tail;
};

START_TEST(create_qp_ex_keeps_off_comp_mask)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_cq cq = { .context = ctx, .handle = 2 };
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = &cq,
		.recv_cq = &cq,
		.cap = { .max_send_wr = 10 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = &pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_create_qp cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct v56_qp qp;
	char past_qp_ex[sizeof(qp) - sizeof(struct ibv_qp_ex)];

	memset(&qp, 0x5a, sizeof(qp));
	memcpy(past_qp_ex, (char *)&qp + sizeof(struct ibv_qp_ex), sizeof(past_qp_ex));
	kernel_ioctl = ioctl_kernel;
	ck_assert_int_eq(ibv_cmd_create_qp_ex(ctx, &qp.vqp, &attr, &cmd, sizeof(cmd), &resp,
					      sizeof(resp)), 0);
	ck_assert_uint_eq(qp.vqp.qp.handle, 9);
	ck_assert_uint_eq(qp.vqp.qp.qp_num, 0x123);
	ck_assert_int_eq(qp.vqp.qp.state, IBV_QPS_RESET);
	ck_assert_ptr_eq(qp.vqp.qp.context, ctx);
	ck_assert_uint_eq(attr.cap.max_send_wr, 64);
	ck_assert_int_eq(memcmp((char *)&qp + sizeof(struct ibv_qp_ex), past_qp_ex,
				sizeof(past_qp_ex)), 0);
	/* ibv_qp_to_qp_ex answers from the core's own record. */
	ck_assert(verbs_plugin_qp_ex_recorded(&qp.vqp.qp));
	ck_assert_int_eq(ibv_cmd_destroy_qp(&qp.vqp.qp), 0);
	ck_assert(!verbs_plugin_qp_ex_recorded(&qp.vqp.qp));
	free_ctx(ctx);
}
END_TEST

START_TEST(create_qp_ex_checks)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	struct ibv_cq cq = { .context = ctx, .handle = 2 };
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = &cq,
		.recv_cq = &cq,
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = &pd,
	};
	struct ibv_create_qp_ex cmd_ex;
	struct ib_uverbs_ex_create_qp_resp resp_ex;
	struct ibv_create_qp cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct verbs_qp qp;

	kernel_ioctl = ioctl_kernel;
	errno = 0;
	/* Creation flags need the ex2 form. */
	ck_assert_int_eq(ibv_cmd_create_qp_ex(ctx, &qp, &attr, &cmd, sizeof(cmd), &resp,
					      sizeof(resp)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	attr.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	ck_assert_int_eq(ibv_cmd_create_qp_ex2(ctx, &qp, &attr, &cmd_ex, sizeof(cmd_ex), &resp_ex,
					       sizeof(resp_ex)), 0);
	attr.create_flags = IBV_QP_CREATE_SOURCE_QPN << 4;
	ck_assert_int_eq(ibv_cmd_create_qp_ex2(ctx, &qp, &attr, &cmd_ex, sizeof(cmd_ex), &resp_ex,
					       sizeof(resp_ex)), EINVAL);
	/* Receiving through an indirection table: no receive side. */
	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE;
	ck_assert_int_eq(ibv_cmd_create_qp_ex2(ctx, &qp, &attr, &cmd_ex, sizeof(cmd_ex), &resp_ex,
					       sizeof(resp_ex)), EINVAL);
	/* No PD. */
	attr.comp_mask = 0;
	ck_assert_int_eq(ibv_cmd_create_qp_ex(ctx, &qp, &attr, &cmd, sizeof(cmd), &resp,
					      sizeof(resp)), EINVAL);
	ck_assert_int_eq(ncalls, 1);
	free_ctx(ctx);
}
END_TEST

/* An XRC receive QP in xrcd (handle 0x44), over ioctl. */
static void create_xrc_qp(struct ibv_context *ctx, struct verbs_xrcd *xrcd, struct verbs_qp *qp)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = &xrcd->xrcd,
	};
	struct ibv_create_qp cmd;
	struct ib_uverbs_create_qp_resp resp;

	*xrcd = (struct verbs_xrcd){ .xrcd = { .context = ctx }, .handle = 0x44 };
	kernel_ioctl = ioctl_kernel;
	ck_assert_int_eq(ibv_cmd_create_qp_ex(ctx, qp, &attr, &cmd, sizeof(cmd), &resp,
					      sizeof(resp)), 0);
}

START_TEST(xrc_qp_gets_its_domain)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct verbs_xrcd xrcd;
	struct verbs_qp qp;

	memset(&qp, 0, sizeof(qp));
	create_xrc_qp(ctx, &xrcd, &qp);
	expect_attr(&calls[0], 1, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, 0, 0x44);
	/* This context is no plugin's: the v44 offsets. */
	ck_assert_uint_eq(qp.comp_mask, VERBS_QP_XRCD);
	ck_assert_ptr_eq(qp.xrcd, &xrcd);
	free_ctx(ctx);
}
END_TEST

/* The program is linked with --wrap=verbs_plugin_release (meson.build):
 * the release a plugin context's file name would tell. */
static unsigned int plugin_release = 44;

unsigned int __wrap_verbs_plugin_release(struct ibv_context *ctx)
{
	(void)ctx;
	return plugin_release;
}

/* A v56 plugin's verbs_qp: comp_mask and xrcd one function pointer (its
 * ibv_qp_ex.wr_flush) further on. */
struct v56_verbs_qp {
	uint8_t qp_ex[sizeof(struct ibv_qp_ex) + sizeof(void (*)(void))];
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

START_TEST(xrc_qp_of_a_v56_plugin)
{
	struct ibv_context *ctx = new_ctx("ioctl");
	struct verbs_xrcd xrcd;
	struct v56_verbs_qp qp;

	memset(&qp, 0, sizeof(qp));
	/* Never looked into: the release comes from the wrapper. */
	verbs_priv(ctx)->plugin = (struct verbs_plugin_context *)&plugin_release;
	plugin_release = 56;
	create_xrc_qp(ctx, &xrcd, (struct verbs_qp *)&qp);
	ck_assert_uint_eq(qp.comp_mask, VERBS_QP_XRCD);
	ck_assert_ptr_eq(qp.xrcd, &xrcd);
	/* What a v44 core would take for them: the end of v56's wr_flush. */
	for (size_t i = sizeof(struct ibv_qp_ex); i < sizeof(qp.qp_ex); i++)
		ck_assert_uint_eq(qp.qp_ex[i], 0);
	verbs_priv(ctx)->plugin = NULL;
	plugin_release = 44;
	free_ctx(ctx);
}
END_TEST

START_TEST(rate_limit_is_not_legacy)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_qp qp = { .context = ctx };
	struct ibv_qp_attr attr = {};
	struct ibv_qp_init_attr init;
	struct ibv_modify_qp cmd;
	struct ibv_query_qp qcmd;

	ck_assert_int_eq(ibv_cmd_modify_qp(&qp, &attr, IBV_QP_STATE | IBV_QP_RATE_LIMIT, &cmd,
					   sizeof(cmd)), EOPNOTSUPP);
	ck_assert_int_eq(ibv_cmd_query_qp(&qp, &attr, IBV_QP_RATE_LIMIT, &init, &qcmd,
					  sizeof(qcmd)), EOPNOTSUPP);
	ck_assert_int_eq(ncalls, 0);
	free_ctx(ctx);
}
END_TEST

START_TEST(implicit_odp_needs_null_addr)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	struct ibv_reg_mr cmd;
	struct ib_uverbs_reg_mr_resp resp;
	struct verbs_mr mr;

	errno = 0;
	ck_assert_int_eq(ibv_cmd_reg_mr(&pd, &pd, SIZE_MAX, 0, IBV_ACCESS_ON_DEMAND, &mr, &cmd,
					sizeof(cmd), &resp, sizeof(resp)), EINVAL);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ncalls, 0);
	free_ctx(ctx);
}
END_TEST

START_TEST(srq_of_a_bare_ibv_srq)
{
	struct ibv_context *ctx = new_ctx("write");
	struct ibv_pd pd = { .context = ctx, .handle = 1 };
	struct ibv_srq_init_attr attr = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct {
		struct ibv_srq srq;
		uint64_t provider_field;
	} srq = { .provider_field = 0x5a5a };
	struct ibv_create_srq cmd;
	struct ib_uverbs_create_srq_resp resp;

	kernel_write = answering_write;
	ck_assert_int_eq(ibv_cmd_create_srq(&pd, &srq.srq, &attr, &cmd, sizeof(cmd), &resp,
					    sizeof(resp)), 0);
	ck_assert_uint_eq(calls[0].cmd.command, IB_USER_VERBS_CMD_CREATE_SRQ);
	ck_assert_uint_eq(srq.srq.handle, 0x11111111);
	ck_assert_ptr_eq(srq.srq.context, ctx);
	ck_assert_uint_eq(attr.attr.max_wr, 0x11111111);
	/* siw's SRQ is a bare ibv_srq: nothing past it is the core's. */
	ck_assert_uint_eq(srq.provider_field, 0x5a5a);
	free_ctx(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plugin_cmd");
	TCase *place = tcase_create("driver data"), *buf = tcase_create("command buffers");
	TCase *conv = tcase_create("conventions");

	tcase_add_checked_fixture(place, setup, NULL);
	tcase_add_checked_fixture(buf, setup, NULL);
	tcase_add_checked_fixture(conv, setup, NULL);
	tcase_add_test(place, write_alloc_pd_driver_bytes);
	tcase_add_test(place, ioctl_create_cq_driver_bytes);
	tcase_add_test(place, create_ah_driver_response);
	tcase_add_test(place, tunnelled_modify_qp_driver_bytes);
	tcase_add_test(buf, execute_ioctl_inlines_short_uhw_in);
	tcase_add_test(buf, execute_ioctl_long_uhw_in_by_pointer);
	tcase_add_test(buf, execute_ioctl_merges_chain_and_copies_back);
	tcase_add_test(buf, buffer_error_is_einval);
	tcase_add_test(buf, query_context_links_driver_attrs);
	tcase_add_test(buf, long_and_overlong_chains);
	tcase_add_test(buf, ioctl_refused_is_the_errno);
	tcase_add_test(buf, write_fallback_checks_of_links);
	tcase_add_test(conv, poll_cq_converts_and_counts);
	tcase_add_test(conv, query_port_writes_the_v44_struct_only);
	tcase_add_test(conv, query_device_any_basic_and_extended);
	tcase_add_test(conv, create_qp_ex_keeps_off_comp_mask);
	tcase_add_test(conv, create_qp_ex_checks);
	tcase_add_test(conv, xrc_qp_gets_its_domain);
	tcase_add_test(conv, xrc_qp_of_a_v56_plugin);
	tcase_add_test(conv, rate_limit_is_not_legacy);
	tcase_add_test(conv, implicit_odp_needs_null_addr);
	tcase_add_test(conv, srq_of_a_bare_ibv_srq);
	suite_add_tcase(s, place);
	suite_add_tcase(s, buf);
	suite_add_tcase(s, conv);
	return unit_run(s, CK_FORK_GETENV);
}
