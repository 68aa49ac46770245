/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: creation maps the send queue and, without an SRQ, the
 * receive queue; modify and query are the generic commands.  Receive work
 * requests are written straight into the receive ring (the kernel polls
 * it when a message arrives, no doorbell needed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe.h"

/* ------------------------------------------------------------------ */
/* Work queues we produce into                                         */

int rxe_wq_init(struct rxe_wq *wq, int cmd_fd, const struct mminfo *mi, size_t wqe_base,
		uint32_t max_sge, uint32_t max_inline)
{
	int ret = pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);

	if (ret)
		return ret;
	ret = rxe_ring_map(&wq->ring, cmd_fd, mi, rxe_wqe_size(wqe_base, max_sge, max_inline));
	if (ret) {
		pthread_spin_destroy(&wq->lock);
		return ret;
	}
	wq->max_sge = max_sge;
	wq->max_inline = max_inline;
	return 0;
}

void rxe_wq_cleanup(struct rxe_wq *wq)
{
	if (!wq->ring.buf)
		return;
	rxe_ring_unmap(&wq->ring);
	pthread_spin_destroy(&wq->lock);
}

static int fill_recv_wqe(const struct rxe_wq *wq, struct rxe_recv_wqe *wqe,
			 const struct ibv_recv_wr *wr)
{
	uint64_t length = 0;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge)
		return EINVAL;
	for (int i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		length += wr->sg_list[i].length;
	}
	if (length > UINT32_MAX)
		return EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.cur_sge = 0;
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.sge_offset = 0;
	return 0;
}

/* What was filled before an error is posted, as ibv_post_recv(3) says. */
int rxe_wq_post_recv_locked(struct rxe_wq *wq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	uint32_t start, prod;
	int ret = 0;

	start = prod = rxe_ring_producer(&wq->ring);
	for (; wr; wr = wr->next) {
		if (rxe_ring_full(&wq->ring, prod)) {
			ret = ENOMEM;
			break;
		}
		ret = fill_recv_wqe(wq, rxe_ring_slot(&wq->ring, prod), wr);
		if (ret)
			break;
		prod = rxe_ring_next(&wq->ring, prod);
	}
	if (prod != start)
		rxe_ring_publish(&wq->ring, prod);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* Receives may wait in the queue from INIT on; a QP in RESET has no
 * queues to speak of (the specification asks for an immediate error). */
int rxe_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	int ret;

	if (ibqp->srq || __atomic_load_n(&qp->state, __ATOMIC_RELAXED) == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq.lock);
	ret = rxe_wq_post_recv_locked(&qp->rq, wr, bad_wr);
	pthread_spin_unlock(&qp->rq.lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Create, modify, destroy                                             */

/* The creation attributes rxe understands: no XRC, RSS, WQs, TSO or
 * creation flags. */
static int check_init_attr(const struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (attr->comp_mask & ~known)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)
		return EOPNOTSUPP;
	/* as the kernel answers: other verbs types are unsupported here,
	 * values that are no type at all are invalid */
	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		break;
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
	case IBV_QPT_DRIVER:
		return EOPNOTSUPP;
	default:
		return EINVAL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~rxe_send_ops_supported(attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct rxe_create_qp_resp resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	struct rxe_qp *qp;
	int ret;

	ret = check_init_attr(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = verbs_cmd_create_qp(ctx, &qp->vqp, attr, &udata);
	if (ret)
		goto err_free;
	/* attr->cap now holds what the kernel granted. */
	ret = rxe_wq_init(&qp->sq, ctx->cmd_fd, &resp.sq_mi, sizeof(struct rxe_send_wqe),
			  attr->cap.max_send_sge, attr->cap.max_inline_data);
	if (ret)
		goto err_destroy;
	if (!attr->srq) {
		ret = rxe_wq_init(&qp->rq, ctx->cmd_fd, &resp.rq_mi, sizeof(struct rxe_recv_wqe),
				  attr->cap.max_recv_sge, 0);
		if (ret)
			goto err_sq;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ret = rxe_qp_init_wr_ops(qp, attr->send_ops_flags);
		if (ret)
			goto err_rq;
	}
	qp->state = IBV_QPS_RESET;
	return &qp->vqp.qp;

err_rq:
	rxe_wq_cleanup(&qp->rq);
err_sq:
	rxe_wq_cleanup(&qp->sq);
err_destroy:
	verbs_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/* The state is remembered so that posting to a QP that cannot send yet
 * fails before anything reaches the ring. */
int rxe_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	int ret = verbs_cmd_modify_qp(ibqp, attr, mask, NULL);

	if (!ret && (mask & IBV_QP_STATE))
		__atomic_store_n(&to_rqp(ibqp)->state, attr->qp_state, __ATOMIC_RELAXED);
	return ret;
}

int rxe_destroy_qp(struct ibv_qp *ibqp)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	int ret;

	ret = verbs_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	rxe_wq_cleanup(&qp->rq);
	rxe_wq_cleanup(&qp->sq);
	free(qp->wr_mw);
	free(qp);
	return 0;
}
