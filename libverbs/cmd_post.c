/* SPDX-License-Identifier: MIT */
/* Work requests through the kernel, and the doorbell of the providers whose
 * queues live in user space: the datapath, so a file of its own that keeps
 * the build's optimisation level when the rest is compiled for size. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* Requests of up to this size are built on the stack: a few work requests
 * with a few SGEs each, the common case, allocate nothing. */
enum { WR_STACK_BYTES = 1024 };

/* The kernel numbers the failing request from 1; 0 means it failed
 * before looking at any, which blames the first. */
static struct ibv_send_wr *nth_send_wr(struct ibv_send_wr *first, uint32_t n)
{
	struct ibv_send_wr *w = first;

	for (uint32_t i = 1; w && i < n; i++)
		w = w->next;
	return w;
}

static struct ibv_recv_wr *nth_recv_wr(struct ibv_recv_wr *first, uint32_t n)
{
	struct ibv_recv_wr *w = first;

	for (uint32_t i = 1; w && i < n; i++)
		w = w->next;
	return w;
}

/* A zeroed command buffer (vcmd_write_datapath's: write() header, then
 * the request): stack when it fits, heap otherwise (NULL if that fails).
 * Release with put_wr_buf(). */
static void *get_wr_buf(uint64_t *stack, size_t len)
{
	if (len > WR_STACK_BYTES)
		return calloc(1, len);
	memset(stack, 0, len);
	return stack;
}

static void put_wr_buf(void *buf, uint64_t *stack)
{
	if (buf != stack)
		free(buf);
}

/* The doorbell of providers whose send queue lives in user space: a
 * post_send of no work request makes the kernel run the queue.  A fixed
 * command, so nothing to count, allocate or copy. */
static int ring_send_doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send req;
	} cmd = {
		.req = {
			.qp_handle = qp->handle,
			.wqe_size = sizeof(struct ib_uverbs_send_wr),
		},
	};
	struct ib_uverbs_post_send_resp resp;

	return vcmd_write_datapath(qp->context, IB_USER_VERBS_CMD_POST_SEND, &cmd,
				   sizeof(cmd.req), &resp, sizeof(resp));
}

static void send_wr_to_kern(struct ib_uverbs_send_wr *kw, const struct ibv_send_wr *w,
			    enum ibv_qp_type qp_type)
{
	kw->wr_id = w->wr_id;
	kw->num_sge = w->num_sge;
	kw->opcode = w->opcode;
	kw->send_flags = w->send_flags;
	kw->ex.imm_data = w->imm_data;
	if (qp_type == IBV_QPT_UD) {
		kw->wr.ud.ah = w->wr.ud.ah->handle;
		kw->wr.ud.remote_qpn = w->wr.ud.remote_qpn;
		kw->wr.ud.remote_qkey = w->wr.ud.remote_qkey;
	} else if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		   w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		kw->wr.atomic.remote_addr = w->wr.atomic.remote_addr;
		kw->wr.atomic.compare_add = w->wr.atomic.compare_add;
		kw->wr.atomic.swap = w->wr.atomic.swap;
		kw->wr.atomic.rkey = w->wr.atomic.rkey;
	} else {
		kw->wr.rdma.remote_addr = w->wr.rdma.remote_addr;
		kw->wr.rdma.rkey = w->wr.rdma.rkey;
	}
}

static struct ib_uverbs_sge *sges_to_kern(struct ib_uverbs_sge *ks, const struct ibv_sge *sg,
					  int num_sge)
{
	for (int i = 0; i < num_sge; i++, ks++) {
		ks->addr = sg[i].addr;
		ks->length = sg[i].length;
		ks->lkey = sg[i].lkey;
	}
	return ks;
}

/* Not inlined: the doorbell needs none of its stack frame. */
static __attribute__((noinline)) int post_send_list(struct ibv_qp *qp, struct ibv_send_wr *wr,
						    struct ibv_send_wr **bad_wr)
{
	uint64_t stack[WR_STACK_BYTES / sizeof(uint64_t)];
	struct ib_uverbs_post_send *req;
	struct ib_uverbs_post_send_resp resp = {};
	struct ib_uverbs_send_wr *kw;
	struct ib_uverbs_sge *ks;
	uint32_t nwr = 0, nsge = 0;
	size_t len;
	void *buf;
	int ret;

	for (struct ibv_send_wr *w = wr; w; w = w->next) {
		nwr++;
		nsge += w->num_sge;
	}
	len = sizeof(*req) + nwr * sizeof(*kw) + nsge * sizeof(*ks);
	buf = get_wr_buf(stack, sizeof(struct ib_uverbs_cmd_hdr) + len);
	if (!buf) {
		if (bad_wr)
			*bad_wr = wr;
		return ENOMEM;
	}
	req = (void *)((struct ib_uverbs_cmd_hdr *)buf + 1);
	req->qp_handle = qp->handle;
	req->wr_count = nwr;
	req->sge_count = nsge;
	req->wqe_size = sizeof(*kw);
	kw = req->send_wr;
	ks = (struct ib_uverbs_sge *)(kw + nwr);
	for (struct ibv_send_wr *w = wr; w; w = w->next, kw++) {
		send_wr_to_kern(kw, w, qp->qp_type);
		ks = sges_to_kern(ks, w->sg_list, w->num_sge);
	}
	ret = vcmd_write_datapath(qp->context, IB_USER_VERBS_CMD_POST_SEND, buf, len,
				  &resp, sizeof(resp));
	if (ret && bad_wr)
		*bad_wr = nth_send_wr(wr, resp.bad_wr);
	put_wr_buf(buf, stack);
	return ret;
}

int verbs_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr)
{
	return wr ? post_send_list(qp, wr, bad_wr) : ring_send_doorbell(qp);
}

/* Receive lists have the same shape for QPs and SRQs. */
static int post_recv_list(struct ibv_context *ctx, uint32_t cmd, uint32_t handle,
			  struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	uint64_t stack[WR_STACK_BYTES / sizeof(uint64_t)];
	struct ib_uverbs_post_recv *req;
	struct ib_uverbs_post_recv_resp resp = {};
	struct ib_uverbs_recv_wr *kw;
	struct ib_uverbs_sge *ks;
	uint32_t nwr = 0, nsge = 0;
	size_t len;
	void *buf;
	int ret;

	for (struct ibv_recv_wr *w = wr; w; w = w->next) {
		nwr++;
		nsge += w->num_sge;
	}
	len = sizeof(*req) + nwr * sizeof(*kw) + nsge * sizeof(*ks);
	buf = get_wr_buf(stack, sizeof(struct ib_uverbs_cmd_hdr) + len);
	if (!buf) {
		if (bad_wr)
			*bad_wr = wr;
		return ENOMEM;
	}
	req = (void *)((struct ib_uverbs_cmd_hdr *)buf + 1);
	req->qp_handle = handle;
	req->wr_count = nwr;
	req->sge_count = nsge;
	req->wqe_size = sizeof(*kw);
	kw = req->recv_wr;
	ks = (struct ib_uverbs_sge *)(kw + nwr);
	for (struct ibv_recv_wr *w = wr; w; w = w->next, kw++) {
		kw->wr_id = w->wr_id;
		kw->num_sge = w->num_sge;
		ks = sges_to_kern(ks, w->sg_list, w->num_sge);
	}
	ret = vcmd_write_datapath(ctx, cmd, buf, len, &resp, sizeof(resp));
	if (ret && bad_wr)
		*bad_wr = nth_recv_wr(wr, resp.bad_wr);
	put_wr_buf(buf, stack);
	return ret;
}

int verbs_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	return post_recv_list(qp->context, IB_USER_VERBS_CMD_POST_RECV, qp->handle,
			      wr, bad_wr);
}

int verbs_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	return post_recv_list(srq->context, IB_USER_VERBS_CMD_POST_SRQ_RECV,
			      srq->handle, wr, bad_wr);
}
