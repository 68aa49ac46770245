/* SPDX-License-Identifier: MIT */
/*
 * What one stream connection owns (WIRE.md A.3): a CQ with its channel,
 * the RC QP, the receive ring, the target SGL with the iomap table behind
 * it, the send copy ring, and every receive posted before connecting.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t rs_page_round(size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (len + page - 1) & ~(page - 1);
}

/* Whole pages, so that fork protection cannot strip neighbours (A.3.8). */
static void *rs_pages_alloc(size_t len)
{
	void *p = mmap(NULL, rs_page_round(len), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void rs_pages_free(void *p, size_t len)
{
	if (p)
		munmap(p, rs_page_round(len));
}

static size_t rs_rbuf_len(const struct rsocket *rs)
{
	return rs->rbuf_size + (rs->iwarp ? (size_t)rs->rq_size * RS_MSG_SIZE : 0);
}

/* Control payloads are staged after the ring when they cannot go inline. */
static size_t rs_sbuf_len(const struct rsocket *rs)
{
	return rs->sbuf_size + (rs->sq_inline < RS_MAX_CTRL_MSG ?
				RS_QP_CTRL_SIZE * RS_MAX_CTRL_MSG : 0);
}

static size_t rs_target_len(const struct rsocket *rs)
{
	return RS_SGL_SIZE * sizeof(struct rs_sge) +
	       (size_t)rs->target_iomap_size * sizeof(struct rs_iomap);
}

static uint16_t rs_clamp_depth(uint16_t want, int dev_max)
{
	int max = dev_max < RS_QP_MAX_SIZE ? dev_max : RS_QP_MAX_SIZE;

	if (want > max)
		want = (uint16_t)max;
	return want < RS_QP_MIN_SIZE ? RS_QP_MIN_SIZE : want;
}

static int rs_create_cq(struct rsocket *rs)
{
	struct ibv_context *verbs = rs->cm_id->verbs;

	rs->cq_channel = ibv_create_comp_channel(verbs);
	if (!rs->cq_channel)
		return errno;
	rs->cq = ibv_create_cq(verbs, rs->sq_size + rs->rq_size, rs, rs->cq_channel, 0);
	if (!rs->cq)
		return errno;
	rs->cq_armed = false;
	return 0;
}

static int rs_create_qp(struct rsocket *rs)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = rs->cq,
		.recv_cq = rs->cq,
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = rs->sq_size,
			.max_recv_wr = rs->rq_size,
			.max_send_sge = 2,
			.max_recv_sge = 1,
			.max_inline_data = rs->sq_inline,
		},
	};

	if (rdma_create_qp(rs->cm_id, NULL, &attr))
		return errno;
	/* The provider may grant more inline than asked: use what we got. */
	rs->sq_inline = (uint16_t)(attr.cap.max_inline_data > UINT16_MAX ?
				   UINT16_MAX : attr.cap.max_inline_data);
	if (rs->iwarp && rs->sq_inline < RS_MSG_SIZE)
		return ENOTSUP;
	return 0;
}

static struct ibv_mr *rs_reg(struct rsocket *rs, void *buf, size_t len, int access)
{
	return ibv_reg_mr(rs->cm_id->pd, buf, len, access);
}

static int rs_create_buffers(struct rsocket *rs)
{
	const int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	rs->sbuf = rs_pages_alloc(rs_sbuf_len(rs));
	rs->rbuf = rs_pages_alloc(rs_rbuf_len(rs));
	rs->target_sgl = rs_pages_alloc(rs_target_len(rs));
	rs->rmsg = calloc((size_t)rs->rq_size + 1, sizeof(*rs->rmsg));
	if (!rs->sbuf || !rs->rbuf || !rs->target_sgl || !rs->rmsg)
		return ENOMEM;

	rs->smr = rs_reg(rs, rs->sbuf, rs_sbuf_len(rs), IBV_ACCESS_LOCAL_WRITE);
	rs->rmr = rs_reg(rs, rs->rbuf, rs_rbuf_len(rs), remote);
	/* One registration: the peer finds the iomap table 32 bytes after
	 * the SGL with the same rkey (A.1.10). */
	rs->target_mr = rs_reg(rs, rs->target_sgl, rs_target_len(rs), remote);
	if (!rs->smr || !rs->rmr || !rs->target_mr)
		return errno ? errno : ENOMEM;
	return 0;
}

static void rs_init_counters(struct rsocket *rs)
{
	rs->sqe_avail = rs->sq_size - RS_QP_CTRL_SIZE;
	rs->ctrl_avail = RS_QP_CTRL_SIZE;
	rs->ctrl_stage = 0;
	rs->sbuf_head = 0;
	rs->sbuf_bytes_avail = rs->sbuf_size;
	rs->sseq_no = 0;
	rs->target_sge = 0;
	/* Entry 0 of the peer's SGL is filled from our private data. */
	rs->remote_sge = 1;
	rs->rbuf_offset = 0;
	rs->rbuf_bytes_avail = rs->rbuf_size / 2;
	rs->rbuf_free_offset = rs->rbuf_size / 2;
	rs->rseq_no = 0;
	rs->rseq_comp = rs->rq_size / 2;
	rs->rmsg_head = 0;
	rs->rmsg_tail = 0;
}

static int rs_post_all_recvs(struct rsocket *rs)
{
	for (uint32_t i = 0; i < rs->rq_size; i++) {
		int ret = rs_post_recv(rs, i);

		if (ret)
			return ret;
	}
	return 0;
}

int rs_create_resources(struct rsocket *rs)
{
	struct ibv_device_attr attr;
	int ret;

	if (!rs->cm_id || !rs->cm_id->verbs)
		return EINVAL;
	if (rs->cq)
		return 0;
	ret = ibv_query_device(rs->cm_id->verbs, &attr);
	if (ret)
		return ret;
	rs->sq_size = rs_clamp_depth(rs->sq_size, attr.max_qp_wr);
	rs->rq_size = rs_clamp_depth(rs->rq_size, attr.max_qp_wr);
	rs->iwarp = rs->cm_id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	/* v64's answer to an inline below one message; v44 failed instead. */
	if (rs->iwarp && rs->sq_inline < RS_MSG_SIZE)
		rs->sq_inline = RS_MSG_SIZE;

	ret = rs_create_cq(rs);
	if (!ret)
		ret = rs_create_qp(rs);
	if (!ret)
		ret = rs_create_buffers(rs);
	if (!ret) {
		rs_init_counters(rs);
		ret = rs_post_all_recvs(rs);
	}
	if (ret)
		rs_free_resources(rs);
	return ret;
}

void rs_free_resources(struct rsocket *rs)
{
	rs_iomap_free_all(rs);
	if (rs->cm_id && rs->cm_id->qp)
		rdma_destroy_qp(rs->cm_id);
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->target_mr)
		ibv_dereg_mr(rs->target_mr);
	rs->smr = rs->rmr = rs->target_mr = NULL;
	rs_pages_free(rs->sbuf, rs_sbuf_len(rs));
	rs_pages_free(rs->rbuf, rs_rbuf_len(rs));
	rs_pages_free(rs->target_sgl, rs_target_len(rs));
	rs->sbuf = rs->rbuf = NULL;
	rs->target_sgl = NULL;
	free(rs->rmsg);
	rs->rmsg = NULL;
	if (rs->cq)
		ibv_destroy_cq(rs->cq);
	rs->cq = NULL;
	if (rs->cq_channel)
		ibv_destroy_comp_channel(rs->cq_channel);
	rs->cq_channel = NULL;
}
