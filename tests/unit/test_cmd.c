/* SPDX-License-Identifier: MIT */
/*
 * The kernel command layer against a fake kernel: the exact bytes of
 * ioctl attribute buffers and write() commands, and every choice between
 * the two transports.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* ------------------------------------------------------------------ */
/* The fake kernel                                                     */

enum { IOCTL = 1, WRITE };

struct call {
	int kind;
	size_t len;
	union {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_cmd_hdr cmd;
		uint8_t raw[2048];
	};
};

static struct call calls[16];
static int ncalls;

/* Per test: what the kernel does with each call (0 or an errno). */
static int (*kernel_ioctl)(struct ib_uverbs_ioctl_hdr *hdr);
static int (*kernel_write)(void *buf, size_t len);

/* The program is linked with --wrap=malloc,--wrap=calloc (meson.build):
 * allocations are counted, except the fake kernel's (check's assertions
 * allocate). */
static unsigned long allocations;
static bool in_kernel;
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);

void *__wrap_malloc(size_t size)
{
	allocations += !in_kernel;
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	allocations += !in_kernel;
	return __real_calloc(n, size);
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	struct ib_uverbs_ioctl_hdr *hdr = arg;
	struct call *c = &calls[ncalls++];
	int err;

	in_kernel = true;
	ck_assert_int_eq(fd, 42);
	ck_assert_uint_eq(request, RDMA_VERBS_IOCTL);
	c->kind = IOCTL;
	c->len = hdr->length;
	memcpy(c->raw, hdr, hdr->length);
	err = kernel_ioctl ? kernel_ioctl(hdr) : ENOTTY;
	in_kernel = false;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	struct call *c = &calls[ncalls++];
	int err;

	in_kernel = true;
	ck_assert_int_eq(fd, 42);
	c->kind = WRITE;
	c->len = len;
	memcpy(c->raw, buf, len);
	err = kernel_write ? kernel_write((void *)buf, len) : EINVAL;
	in_kernel = false;
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}

static struct verbs_device dev = { .driver_id = RDMA_DRIVER_RXE };

static struct ibv_context *new_ctx(const char *mode)
{
	struct verbs_context *vctx = calloc(1, sizeof(*vctx));

	setenv("OPENVERBS_CMD_MODE", mode, 1);
	ck_assert_int_eq(verbs_init_context(vctx, &dev, 42), 0);
	return &vctx->context;
}

static void free_ctx(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	verbs_uninit_context(vctx);
	free(vctx);
}

static void setup(void)
{
	verbs_sys.ioctl = fake_ioctl;
	verbs_sys.write = fake_write;
	kernel_ioctl = NULL;
	kernel_write = NULL;
	ncalls = 0;
	memset(calls, 0, sizeof(calls));
	unsetenv("RDMAV_ALLOW_DISASSOC_DESTROY");
}

static const struct ib_uverbs_attr *attr(const struct call *c, unsigned int i)
{
	ck_assert_uint_lt(i, c->hdr.num_attrs);
	return &c->hdr.attrs[i];
}

/* An attribute as the kernel must see it: id, length, flags, data. */
static void expect_attr(const struct call *c, unsigned int i, uint16_t id,
			uint16_t len, uint64_t data)
{
	const struct ib_uverbs_attr *a = attr(c, i);

	ck_assert_uint_eq(a->attr_id, id);
	ck_assert_uint_eq(a->len, len);
	ck_assert_uint_eq(a->flags, UVERBS_ATTR_F_MANDATORY);
	ck_assert_uint_eq(a->attr_data.reserved, 0);
	ck_assert_uint_eq(a->data, data);
}

static void expect_hdr(const struct call *c, uint16_t object, uint16_t method,
		       uint16_t num_attrs)
{
	ck_assert_int_eq(c->kind, IOCTL);
	ck_assert_uint_eq(c->hdr.length, sizeof(c->hdr) + num_attrs * sizeof(struct ib_uverbs_attr));
	ck_assert_uint_eq(c->hdr.object_id, object);
	ck_assert_uint_eq(c->hdr.method_id, method);
	ck_assert_uint_eq(c->hdr.num_attrs, num_attrs);
	ck_assert_uint_eq(c->hdr.reserved1, 0);
	ck_assert_uint_eq(c->hdr.driver_id, RDMA_DRIVER_RXE);
	ck_assert_uint_eq(c->hdr.reserved2, 0);
}

static uint64_t inline_u32(uint32_t v)
{
	uint64_t d = 0;

	memcpy(&d, &v, sizeof(v));
	return d;
}

static void *ptr(const struct ib_uverbs_attr *a)
{
	return (void *)(uintptr_t)a->data;
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

/* A write() kernel answering every command with a response of 0x11s and
 * the driver's with 0x22s. */
static int answering_write(void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr *hdr = buf;

	if (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		struct ib_uverbs_ex_cmd_hdr *ex = (void *)(hdr + 1);
		char *out = (char *)(uintptr_t)ex->response;

		memset(out, 0x11, hdr->out_words * 8);
		memset(out + hdr->out_words * 8, 0x22, ex->provider_out_words * 8);
	} else if (hdr->out_words) {
		uint64_t response;

		memcpy(&response, hdr + 1, sizeof(response));
		memset((void *)(uintptr_t)response, 0x11, hdr->out_words * 4);
	}
	(void)len;
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
	struct verbs_cq cq;

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
	ck_assert_ptr_eq(cq.cq.channel, &channel);
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

/* Two send requests, three SGEs, then the kernel's verdict on the second. */
static int reject_second_wr(void *buf, size_t len)
{
	struct ib_uverbs_post_send *req = (void *)((char *)buf + sizeof(struct ib_uverbs_cmd_hdr));
	struct ib_uverbs_post_send_resp *resp = (void *)(uintptr_t)req->response;

	(void)len;
	resp->bad_wr = 2;
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

/* The tunnel refuses one command (EOPNOTSUPP): write() for it alone. */
static int tunnel_refuses_pd(struct ib_uverbs_ioctl_hdr *hdr)
{
	for (unsigned int i = 0; i < hdr->num_attrs; i++)
		if (hdr->attrs[i].attr_id == UVERBS_ATTR_WRITE_CMD &&
		    hdr->attrs[i].data == IB_USER_VERBS_CMD_ALLOC_PD)
			return EOPNOTSUPP;
	return 0;
}

START_TEST(tunnel_refusal_is_per_command)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_pd pd = { .context = ctx, .handle = 3 };

	kernel_ioctl = tunnel_refuses_pd;
	kernel_write = answering_write;
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), 0);
	ck_assert_int_eq(ncalls, 2);
	ck_assert_int_eq(calls[1].kind, WRITE);
	ck_assert_int_eq(verbs_cmd_alloc_pd(ctx, &pd, NULL), 0);
	ck_assert_int_eq(calls[2].kind, WRITE);
	/* PD_DESTROY is an ioctl method of its own and still used. */
	ck_assert_int_eq(verbs_cmd_dealloc_pd(&pd), 0);
	expect_hdr(&calls[3], UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 1);
	ck_assert_uint_eq(attr(&calls[3], 0)->data, pd.handle);
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
	/* ioctl-only methods report "ask sysfs" rather than fail. */
	ck_assert_int_eq(vcmd_query_gid_entry(ctx, 1, 0, &e), -1);
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
	struct ib_uverbs_cmd_hdr *hdr = buf;
	struct ib_uverbs_get_context_resp *resp;
	uint64_t response;

	(void)len;
	ck_assert_uint_eq(hdr->command, IB_USER_VERBS_CMD_GET_CONTEXT);
	memcpy(&response, hdr + 1, sizeof(response));
	resp = (void *)(uintptr_t)response;
	resp->async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	resp->num_comp_vectors = 3;
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

/* A modern kernel: GET_CONTEXT, then an async event fd of its own. */
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

START_TEST(ioctl_get_context_allocates_async_fd)
{
	struct ibv_context *ctx = new_ctx("auto");

	kernel_ioctl = modern_get_context;
	ck_assert_int_eq(verbs_cmd_get_context(ctx, NULL), 0);
	ck_assert_int_eq(ncalls, 2);
	expect_hdr(&calls[1], UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC, 1);
	expect_attr(&calls[1], 0, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0, 0);
	ck_assert_int_ge(ctx->async_fd, 0);
	ck_assert_int_eq(ctx->num_comp_vectors, 2);
	ck_assert_uint_eq(verbs_priv(ctx)->core_support, IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS);
	free_ctx(ctx);
}
END_TEST

START_TEST(ioctl_only_method_falls_back_once)
{
	struct ibv_context *ctx = new_ctx("auto");
	struct ibv_gid_entry e;
	size_t n;

	kernel_ioctl = tunnel_only_ioctl;	/* no GID methods */
	ck_assert_int_eq(vcmd_query_gid_entry(ctx, 1, 0, &e), -1);
	ck_assert_int_eq(vcmd_query_gid_table(ctx, &e, 1, &n), -1);
	ck_assert_int_eq(vcmd_query_gid_entry(ctx, 1, 0, &e), -1);
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

int main(void)
{
	Suite *s = suite_create("cmd");
	TCase *enc = tcase_create("encoding"), *fb = tcase_create("fallback");
	TCase *destroy = tcase_create("destroy"), *datapath = tcase_create("datapath");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(enc, setup, NULL);
	tcase_add_checked_fixture(fb, setup, NULL);
	tcase_add_checked_fixture(destroy, setup, NULL);
	tcase_add_checked_fixture(datapath, setup, NULL);
	tcase_add_test(enc, write_alloc_pd_bytes);
	tcase_add_test(enc, write_extended_create_cq_bytes);
	tcase_add_test(enc, tunnelled_alloc_pd_bytes);
	tcase_add_test(enc, ioctl_create_cq_bytes);
	tcase_add_test(enc, ioctl_query_port_bytes);
	tcase_add_test(enc, write_post_send_bytes);
	tcase_add_test(enc, doorbell_posts_nothing);
	tcase_add_test(datapath, doorbell_is_one_write);
	tcase_add_test(datapath, forced_ioctl_doorbell_is_tunnelled);
	tcase_add_test(datapath, doorbell_write_refused_takes_tunnel);
	tcase_add_test(datapath, datapath_allocates_nothing);
	tcase_add_test(datapath, tunnelled_post_recv_names_bad_wr);
	tcase_add_test(datapath, long_send_list);
	tcase_add_test(fb, enotty_means_write_for_everything);
	tcase_add_test(fb, eprotonosupport_means_write_for_that_method);
	tcase_add_test(fb, tunnel_refusal_is_per_command);
	tcase_add_test(fb, forced_write_never_ioctls);
	tcase_add_test(fb, forced_ioctl_never_writes);
	tcase_add_test(fb, write_only_kernel_get_context);
	tcase_add_test(fb, ioctl_get_context_allocates_async_fd);
	tcase_add_test(fb, ioctl_only_method_falls_back_once);
	tcase_add_test(fb, driver_errors_are_not_refusals);
	tcase_add_test(destroy, destroy_cq_waits_for_acks);
	tcase_add_test(destroy, disassociated_destroy);
	suite_add_tcase(s, enc);
	suite_add_tcase(s, fb);
	suite_add_tcase(s, destroy);
	suite_add_tcase(s, datapath);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
