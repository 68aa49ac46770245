/* SPDX-License-Identifier: MIT */
/*
 * The send queue: work requests become struct rxe_send_wqe entries in the
 * mapped ring, then the kernel is kicked with a post_send command that
 * carries no work request (the driver then runs its requester on the
 * ring).  Two ways in: ibv_post_send() lists, and the ibv_wr_*() calls of
 * ibv_qp_ex, which build a batch that wr_complete publishes at once.
 *
 * A WQE starts zeroed: that is the kernel's "posted" state with no
 * progress recorded; the kernel derives everything else from the opcode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe.h"

#define OP(op) (1u << (op))

/* The opcodes the kernel driver executes on each transport. */
static uint32_t send_opcodes(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return OP(IBV_WR_RDMA_WRITE) | OP(IBV_WR_RDMA_WRITE_WITH_IMM) |
		       OP(IBV_WR_SEND) | OP(IBV_WR_SEND_WITH_IMM) |
		       OP(IBV_WR_SEND_WITH_INV) | OP(IBV_WR_RDMA_READ) |
		       OP(IBV_WR_ATOMIC_CMP_AND_SWP) | OP(IBV_WR_ATOMIC_FETCH_AND_ADD) |
		       OP(IBV_WR_LOCAL_INV) | OP(IBV_WR_BIND_MW);
	case IBV_QPT_UC:
		return OP(IBV_WR_RDMA_WRITE) | OP(IBV_WR_RDMA_WRITE_WITH_IMM) |
		       OP(IBV_WR_SEND) | OP(IBV_WR_SEND_WITH_IMM) | OP(IBV_WR_BIND_MW);
	case IBV_QPT_UD:
		return OP(IBV_WR_SEND) | OP(IBV_WR_SEND_WITH_IMM);
	default:
		return 0;
	}
}

uint64_t rxe_send_ops_supported(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		       IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW;
	case IBV_QPT_UC:
		return IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		       IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		       IBV_QP_EX_WITH_BIND_MW;
	case IBV_QPT_UD:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	default:
		return 0;
	}
}

static bool op_allowed(const struct rxe_qp *qp, unsigned int op)
{
	return op < 32 && (send_opcodes(qp->vqp.qp.qp_type) & OP(op));
}

/* Opcodes whose payload may be given inline. */
static bool op_inline(unsigned int op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* Local operations move no data. */
static bool op_local(unsigned int op)
{
	return op == IBV_WR_LOCAL_INV || op == IBV_WR_BIND_MW;
}

/* The kernel refuses to start the requester before RTS (and would run
 * anything left in the ring once there), so check first. */
static bool can_send(const struct rxe_qp *qp)
{
	int state = __atomic_load_n(&qp->state, __ATOMIC_RELAXED);

	return state == IBV_QPS_RTS || state == IBV_QPS_SQD ||
	       state == IBV_QPS_SQE || state == IBV_QPS_ERR;
}

static int ring_doorbell(struct rxe_qp *qp)
{
	return verbs_cmd_post_send(&qp->vqp.qp, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* Filling a WQE                                                       */

static void wqe_init(struct rxe_send_wqe *wqe, uint64_t wr_id, unsigned int op,
		     unsigned int flags)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr_id;
	wqe->wr.opcode = op;
	wqe->wr.send_flags = op_inline(op) ? flags : flags & ~IBV_SEND_INLINE;
}

static void wqe_rdma(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr)
{
	wqe->wr.wr.rdma.remote_addr = remote_addr;
	wqe->wr.wr.rdma.rkey = rkey;
	wqe->iova = remote_addr;
}

/* Atomics work on naturally aligned 64-bit words. */
static int wqe_atomic(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr,
		      uint64_t compare_add, uint64_t swap)
{
	if (remote_addr & 7)
		return EINVAL;
	wqe->wr.wr.atomic.remote_addr = remote_addr;
	wqe->wr.wr.atomic.compare_add = compare_add;
	wqe->wr.wr.atomic.swap = swap;
	wqe->wr.wr.atomic.rkey = rkey;
	wqe->iova = remote_addr;
	return 0;
}

static int wqe_bind(struct rxe_send_wqe *wqe, const struct ibv_mw *mw, uint32_t rkey,
		    const struct ibv_mw_bind_info *info)
{
	if (!mw)
		return EINVAL;
	wqe->wr.wr.mw.addr = info->addr;
	wqe->wr.wr.mw.length = info->length;
	wqe->wr.wr.mw.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.wr.mw.mw_rkey = mw->rkey;
	wqe->wr.wr.mw.rkey = rkey;
	wqe->wr.wr.mw.access = info->mw_access_flags;
	return 0;
}

/* The kernel made the address vector when the AH was created. */
static int wqe_ud(struct rxe_send_wqe *wqe, struct ibv_ah *ah, uint32_t remote_qpn,
		  uint32_t remote_qkey)
{
	if (!ah)
		return EINVAL;
	wqe->wr.wr.ud.remote_qpn = remote_qpn;
	wqe->wr.wr.ud.remote_qkey = remote_qkey;
	wqe->wr.wr.ud.ah_num = to_rah(ah)->ah_num;
	return 0;
}

static void wqe_set_length(struct rxe_send_wqe *wqe, uint32_t length)
{
	wqe->dma.length = length;
	wqe->dma.resid = length;
}

static int wqe_sges(const struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		    const struct ibv_sge *sg, size_t num_sge)
{
	uint64_t length = 0;

	if (num_sge > qp->sq.max_sge)
		return EINVAL;
	for (size_t i = 0; i < num_sge; i++) {
		wqe->dma.sge[i].addr = sg[i].addr;
		wqe->dma.sge[i].length = sg[i].length;
		wqe->dma.sge[i].lkey = sg[i].lkey;
		length += sg[i].length;
	}
	if (length > UINT32_MAX)
		return EINVAL;
	wqe->dma.num_sge = num_sge;
	wqe_set_length(wqe, length);
	return 0;
}

/* Appends to the inline payload; the kernel reads it from dma.inline_data
 * as long as IBV_SEND_INLINE is set. */
static int wqe_inline(const struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		      const void *addr, size_t length)
{
	size_t used = wqe->dma.length;

	if (length > qp->sq.max_inline - used)
		return EINVAL;
	memcpy(wqe->dma.inline_data + used, addr, length);
	wqe_set_length(wqe, used + length);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ibv_post_send                                                       */

static int fill_wqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe, struct ibv_send_wr *wr)
{
	int ret = 0;

	if (!op_allowed(qp, wr->opcode) || wr->num_sge < 0)
		return EINVAL;
	wqe_init(wqe, wr->wr_id, wr->opcode, wr->send_flags);
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->wr.ex.imm_data = wr->imm_data;
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		wqe_rdma(wqe, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ret = wqe_atomic(wqe, wr->wr.atomic.rkey, wr->wr.atomic.remote_addr,
				 wr->wr.atomic.compare_add, wr->wr.atomic.swap);
		break;
	case IBV_WR_SEND_WITH_IMM:
		wqe->wr.ex.imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->wr.ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	case IBV_WR_BIND_MW:
		ret = wqe_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey, &wr->bind_mw.bind_info);
		break;
	default:
		break;
	}
	if (!ret && qp->vqp.qp.qp_type == IBV_QPT_UD)
		ret = wqe_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey);
	if (ret || op_local(wr->opcode))
		return ret;
	if (wqe->wr.send_flags & IBV_SEND_INLINE) {
		for (int i = 0; i < wr->num_sge && !ret; i++)
			ret = wqe_inline(qp, wqe, (void *)(uintptr_t)wr->sg_list[i].addr,
					 wr->sg_list[i].length);
		return ret;
	}
	ret = wqe_sges(qp, wqe, wr->sg_list, wr->num_sge);
	if (!ret && (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		     wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) && wqe->dma.length < 8)
		ret = EINVAL;
	return ret;
}

/*
 * What was filled before an error is posted, as ibv_post_send(3) says.
 * Once published, requests are the kernel's (it may run them before the
 * doorbell, or without it), so a refused doorbell cannot make them fail:
 * it is reported with bad_wr NULL, or not at all when a refused request
 * already names where posting stopped.
 */
int rxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	uint32_t start, prod;
	int ret = 0, kick;

	if (!can_send(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq.lock);
	start = prod = rxe_ring_producer(&qp->sq.ring);
	for (; wr; wr = wr->next) {
		if (rxe_ring_full(&qp->sq.ring, prod)) {
			ret = ENOMEM;
			break;
		}
		ret = fill_wqe(qp, rxe_ring_slot(&qp->sq.ring, prod), wr);
		if (ret)
			break;
		/* The next bind of this MW must name the key it now has. */
		if (wr->opcode == IBV_WR_BIND_MW)
			wr->bind_mw.mw->rkey = wr->bind_mw.rkey;
		prod = rxe_ring_next(&qp->sq.ring, prod);
	}
	if (prod != start)
		rxe_ring_publish(&qp->sq.ring, prod);
	pthread_spin_unlock(&qp->sq.lock);
	if (ret)
		*bad_wr = wr;
	if (prod != start) {
		kick = ring_doorbell(qp);
		if (kick && !ret) {
			*bad_wr = NULL;
			ret = kick;
		}
	}
	return ret;
}

/* Type 1 windows are bound through the send queue like type 2 ones, with
 * the next key.  A refused doorbell is returned, but the bind stays queued
 * and the window keeps its new key. */
int rxe_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr = {
		.wr_id = bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = bind->bind_info,
		},
	}, *bad_wr;

	return rxe_post_send(qp, &wr, &bad_wr);
}

/* ------------------------------------------------------------------ */
/* ibv_wr_*: the SQ lock is held from wr_start to wr_complete/wr_abort,
 * and the first error is kept and returned by wr_complete, which then
 * posts nothing. */

static inline struct rxe_qp *qpx_to_rqp(struct ibv_qp_ex *qpx)
{
	return (struct rxe_qp *)qpx;
}

static void wr_fail(struct rxe_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_wqe = NULL;
}

static struct rxe_send_wqe *wr_new(struct ibv_qp_ex *qpx, unsigned int op)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);
	struct rxe_send_wqe *wqe;

	if (qp->wr_err)
		return NULL;
	if (!op_allowed(qp, op)) {
		wr_fail(qp, EINVAL);
		return NULL;
	}
	if (rxe_ring_full(&qp->sq.ring, qp->wr_prod)) {
		wr_fail(qp, ENOMEM);
		return NULL;
	}
	wqe = rxe_ring_slot(&qp->sq.ring, qp->wr_prod);
	/* Inline data is asked for with ibv_wr_set_inline_data*(). */
	wqe_init(wqe, qpx->wr_id, op, qpx->wr_flags & ~IBV_SEND_INLINE);
	if (qp->wr_mw)
		qp->wr_mw[qp->wr_prod] = NULL;
	qp->wr_prod = rxe_ring_next(&qp->sq.ring, qp->wr_prod);
	qp->wr_wqe = wqe;
	return wqe;
}

static void rxe_wr_send(struct ibv_qp_ex *qpx)
{
	wr_new(qpx, IBV_WR_SEND);
}

static void rxe_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = wr_new(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->wr.ex.imm_data = imm_data;
}

static void rxe_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = wr_new(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

static void rxe_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = wr_new(qpx, IBV_WR_RDMA_WRITE);

	if (wqe)
		wqe_rdma(wqe, rkey, remote_addr);
}

static void rxe_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = wr_new(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (wqe) {
		wqe_rdma(wqe, rkey, remote_addr);
		wqe->wr.ex.imm_data = imm_data;
	}
}

static void rxe_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = wr_new(qpx, IBV_WR_RDMA_READ);

	if (wqe)
		wqe_rdma(wqe, rkey, remote_addr);
}

static void wr_atomic(struct ibv_qp_ex *qpx, unsigned int op, uint32_t rkey,
		      uint64_t remote_addr, uint64_t compare_add, uint64_t swap)
{
	struct rxe_send_wqe *wqe = wr_new(qpx, op);
	int ret;

	if (!wqe)
		return;
	ret = wqe_atomic(wqe, rkey, remote_addr, compare_add, swap);
	if (ret)
		wr_fail(qpx_to_rqp(qpx), ret);
}

static void rxe_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare, uint64_t swap)
{
	wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare, swap);
}

static void rxe_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

static void rxe_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = wr_new(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

static void rxe_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
			   const struct ibv_mw_bind_info *info)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);
	struct rxe_send_wqe *wqe = wr_new(qpx, IBV_WR_BIND_MW);
	int ret;

	if (!wqe)
		return;
	ret = wqe_bind(wqe, mw, rkey, info);
	if (ret)
		wr_fail(qp, ret);
	else
		qp->wr_mw[(qp->wr_prod - 1) & qp->sq.ring.mask] = mw;
}

static void rxe_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);
	int ret;

	if (!qp->wr_wqe)
		return;
	ret = qp->vqp.qp.qp_type == IBV_QPT_UD ?
	      wqe_ud(qp->wr_wqe, ah, remote_qpn, remote_qkey) : EINVAL;
	if (ret)
		wr_fail(qp, ret);
}

/* The WQE being built, if it may carry a payload. */
static struct rxe_send_wqe *wr_payload(struct rxe_qp *qp)
{
	if (qp->wr_wqe && op_local(qp->wr_wqe->wr.opcode)) {
		wr_fail(qp, EINVAL);
		return NULL;
	}
	return qp->wr_wqe;
}

static void rxe_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
			   uint32_t length)
{
	const struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	struct rxe_qp *qp = qpx_to_rqp(qpx);
	struct rxe_send_wqe *wqe = wr_payload(qp);
	int ret;

	if (!wqe)
		return;
	ret = wqe_sges(qp, wqe, &sge, 1);
	if (ret)
		wr_fail(qp, ret);
}

static void rxe_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);
	struct rxe_send_wqe *wqe = wr_payload(qp);
	int ret;

	if (!wqe)
		return;
	ret = wqe_sges(qp, wqe, sg_list, num_sge);
	if (ret)
		wr_fail(qp, ret);
}

static void rxe_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);
	struct rxe_send_wqe *wqe = wr_payload(qp);
	int ret = 0;

	if (!wqe)
		return;
	if (!op_inline(wqe->wr.opcode)) {
		wr_fail(qp, EINVAL);
		return;
	}
	wqe->wr.send_flags |= IBV_SEND_INLINE;
	wqe->dma.num_sge = 0;
	wqe_set_length(wqe, 0);
	for (size_t i = 0; i < num_buf && !ret; i++)
		ret = wqe_inline(qp, wqe, buf_list[i].addr, buf_list[i].length);
	if (ret)
		wr_fail(qp, ret);
}

static void rxe_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	const struct ibv_data_buf buf = { .addr = addr, .length = length };

	rxe_wr_set_inline_data_list(qpx, 1, &buf);
}

static void rxe_wr_start(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_begin = qp->wr_prod = rxe_ring_producer(&qp->sq.ring);
	qp->wr_wqe = NULL;
	qp->wr_err = 0;
}

/* Last checks over the batch, then the side effects of its binds. */
static int wr_commit(struct rxe_qp *qp)
{
	struct rxe_ring *ring = &qp->sq.ring;
	struct rxe_send_wqe *wqe;

	if (!can_send(qp))
		return EINVAL;
	for (uint32_t i = qp->wr_begin; i != qp->wr_prod; i = rxe_ring_next(ring, i)) {
		wqe = rxe_ring_slot(ring, i);
		/* A UD send without ibv_wr_set_ud_addr() has nowhere to go. */
		if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wqe->wr.wr.ud.ah_num)
			return EINVAL;
	}
	for (uint32_t i = qp->wr_begin; qp->wr_mw && i != qp->wr_prod;
	     i = rxe_ring_next(ring, i)) {
		wqe = rxe_ring_slot(ring, i);
		if (qp->wr_mw[i])
			qp->wr_mw[i]->rkey = wqe->wr.wr.mw.rkey;
	}
	rxe_ring_publish(ring, qp->wr_prod);
	return 0;
}

static int rxe_wr_complete(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);
	bool posted = false;
	int ret = qp->wr_err;

	if (!ret && qp->wr_prod != qp->wr_begin) {
		ret = wr_commit(qp);
		posted = !ret;
	}
	qp->wr_wqe = NULL;
	pthread_spin_unlock(&qp->sq.lock);
	return posted ? ring_doorbell(qp) : ret;
}

static void rxe_wr_abort(struct ibv_qp_ex *qpx)
{
	struct rxe_qp *qp = qpx_to_rqp(qpx);

	qp->wr_wqe = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

int rxe_qp_init_wr_ops(struct rxe_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (send_ops_flags & IBV_QP_EX_WITH_BIND_MW) {
		qp->wr_mw = calloc((size_t)qp->sq.ring.mask + 1, sizeof(*qp->wr_mw));
		if (!qp->wr_mw)
			return ENOMEM;
	}
	qpx->wr_send = rxe_wr_send;
	qpx->wr_send_imm = rxe_wr_send_imm;
	qpx->wr_send_inv = rxe_wr_send_inv;
	qpx->wr_rdma_write = rxe_wr_rdma_write;
	qpx->wr_rdma_write_imm = rxe_wr_rdma_write_imm;
	qpx->wr_rdma_read = rxe_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = rxe_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = rxe_wr_atomic_fetch_add;
	qpx->wr_local_inv = rxe_wr_local_inv;
	qpx->wr_bind_mw = qp->wr_mw ? rxe_wr_bind_mw : NULL;
	qpx->wr_set_ud_addr = rxe_wr_set_ud_addr;
	qpx->wr_set_sge = rxe_wr_set_sge;
	qpx->wr_set_sge_list = rxe_wr_set_sge_list;
	qpx->wr_set_inline_data = rxe_wr_set_inline_data;
	qpx->wr_set_inline_data_list = rxe_wr_set_inline_data_list;
	qpx->wr_start = rxe_wr_start;
	qpx->wr_complete = rxe_wr_complete;
	qpx->wr_abort = rxe_wr_abort;
	qp->vqp.comp_mask |= VERBS_QP_EX;
	return 0;
}
