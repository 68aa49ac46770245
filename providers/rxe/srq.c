/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues: a receive ring like a QP's, which the kernel can
 * also grow (ibv_modify_srq with IBV_SRQ_MAX_WR) into a new ring.
 */
#include <errno.h>
#include <stdlib.h>

#include "rxe.h"

struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct rxe_create_srq_resp resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	struct rxe_srq *srq;
	int ret;

	/* Basic SRQs only: no XRC, no tag matching. */
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE)) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = rxe_mover_init(&srq->mover);
	if (ret)
		goto err_free;
	ret = verbs_cmd_create_srq(ctx, &srq->vsrq, attr, &udata);
	if (ret)
		goto err_mover;
	ret = rxe_wq_init(&srq->rq, ctx->cmd_fd, &resp.mi, sizeof(struct rxe_recv_wqe),
			  attr->attr.max_sge, 0);
	if (ret)
		goto err_destroy;
	srq->vsrq.srq_num = resp.srq_num;
	return &srq->vsrq.srq;

err_destroy:
	verbs_cmd_destroy_srq(&srq->vsrq.srq);
err_mover:
	rxe_mover_destroy(&srq->mover);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/*
 * The kernel always wants our request here, and writes the new ring's
 * mmap information to the address it names (not to the response).  It
 * copies the posted receives into the new ring (see "Moving a ring" in
 * rxe.h); a limit alone leaves the ring where it is.
 */
int rxe_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct mminfo mi = {};
	struct rxe_modify_srq_cmd cmd = { .mmap_info_addr = (uintptr_t)&mi };
	struct verbs_udata udata = { .in = &cmd, .in_len = sizeof(cmd) };
	int ret, map_ret;

	if (!(mask & IBV_SRQ_MAX_WR))
		return verbs_cmd_modify_srq(ibsrq, attr, mask, &udata);
	rxe_move_begin(&srq->mover, &srq->rq.lock);
	ret = verbs_cmd_modify_srq(ibsrq, attr, mask, &udata);
	map_ret = rxe_move_end(&srq->mover, &srq->rq.lock, &srq->rq.ring,
			       ibsrq->context->cmd_fd, ret ? NULL : &mi,
			       rxe_wqe_size(sizeof(struct rxe_recv_wqe), srq->rq.max_sge, 0));
	return ret ? ret : map_ret;
}

int rxe_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	int ret;

	ret = verbs_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	rxe_wq_cleanup(&srq->rq);
	rxe_mover_destroy(&srq->mover);
	free(srq);
	return 0;
}

int rxe_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	int ret;

	ret = rxe_ring_end_lock(&srq->rq.lock, &srq->mover);
	if (ret) {
		*bad_wr = wr;
		return ret;
	}
	ret = rxe_wq_post_recv_locked(&srq->rq, wr, bad_wr);
	pthread_spin_unlock(&srq->rq.lock);
	return ret;
}
