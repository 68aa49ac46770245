/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: the kernel writes struct siw_cqe elements into the
 * mapped array and hands each over by setting SIW_WQE_VALID; we read it
 * and clear the flags to give it back.  Arming for an event is a store
 * into the struct siw_cq_ctrl behind the array, which the kernel clears
 * when it raises the event.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "siw.h"

struct ibv_cq *siw_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct siw_uresp_create_cq resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	struct siw_cq *cq = calloc(1, sizeof(*cq));
	void *queue;
	int ret;

	if (!cq)
		return NULL;
	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;
	ret = verbs_cmd_create_cq(ctx, cqe, channel, comp_vector, 0, &cq->vcq, &udata);
	if (ret)
		goto err_lock;
	cq->map_size = (size_t)resp.num_cqe * sizeof(struct siw_cqe) + sizeof(struct siw_cq_ctrl);
	ret = resp.num_cqe ? siw_map(ctx->cmd_fd, resp.cq_key, cq->map_size, &queue) : EPROTO;
	if (ret)
		goto err_destroy;
	cq->queue = queue;
	cq->num_cqe = resp.num_cqe;
	cq->ctrl = (struct siw_cq_ctrl *)(cq->queue + cq->num_cqe);
	return &cq->vcq.cq;

err_destroy:
	verbs_cmd_destroy_cq(&cq->vcq.cq);
err_lock:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

int siw_destroy_cq(struct ibv_cq *ibcq)
{
	struct siw_cq *cq = to_scq(ibcq);
	int ret = verbs_cmd_destroy_cq(ibcq);

	if (ret)
		return ret;
	munmap(cq->queue, cq->map_size);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Polling                                                             */

static enum ibv_wc_status wc_status(uint16_t status)
{
	static const enum ibv_wc_status map[SIW_NUM_WC_STATUS] = {
		[SIW_WC_SUCCESS] = IBV_WC_SUCCESS,
		[SIW_WC_LOC_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
		[SIW_WC_LOC_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
		[SIW_WC_LOC_QP_OP_ERR] = IBV_WC_LOC_QP_OP_ERR,
		[SIW_WC_WR_FLUSH_ERR] = IBV_WC_WR_FLUSH_ERR,
		[SIW_WC_BAD_RESP_ERR] = IBV_WC_BAD_RESP_ERR,
		[SIW_WC_LOC_ACCESS_ERR] = IBV_WC_LOC_ACCESS_ERR,
		[SIW_WC_REM_ACCESS_ERR] = IBV_WC_REM_ACCESS_ERR,
		[SIW_WC_REM_INV_REQ_ERR] = IBV_WC_REM_INV_REQ_ERR,
		[SIW_WC_GENERAL_ERR] = IBV_WC_GENERAL_ERR,
	};

	return status < SIW_NUM_WC_STATUS ? map[status] : IBV_WC_GENERAL_ERR;
}

static enum ibv_wc_opcode wc_opcode(uint8_t op)
{
	switch (op) {
	case SIW_OP_WRITE:
		return IBV_WC_RDMA_WRITE;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		return IBV_WC_RDMA_READ;
	case SIW_OP_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case SIW_OP_COMP_AND_SWAP:
		return IBV_WC_COMP_SWAP;
	case SIW_OP_RECEIVE:
		return IBV_WC_RECV;
	case SIW_OP_INVAL_STAG:
		return IBV_WC_LOCAL_INV;
	default:
		return IBV_WC_SEND;
	}
}

static void read_cqe(const struct siw_cqe *cqe, uint8_t flags, struct ibv_wc *wc)
{
	*wc = (struct ibv_wc){
		.wr_id = cqe->id,
		.status = wc_status(cqe->status),
		.opcode = wc_opcode(cqe->opcode),
		.byte_len = cqe->bytes,
		.qp_num = (uint32_t)cqe->qp_id,
	};
	if (flags & SIW_WQE_REM_INVAL) {
		wc->wc_flags = IBV_WC_WITH_INV;
		wc->invalidated_rkey = cqe->inval_stag;
	}
}

int siw_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct siw_cq *cq = to_scq(ibcq);
	int n;

	pthread_spin_lock(&cq->lock);
	for (n = 0; n < num_entries; n++) {
		struct siw_cqe *cqe = &cq->queue[cq->next];
		uint8_t flags = __atomic_load_n(&cqe->flags, __ATOMIC_ACQUIRE);

		if (!(flags & SIW_WQE_VALID))
			break;
		read_cqe(cqe, flags, &wc[n]);
		__atomic_store_n(&cqe->flags, 0, __ATOMIC_RELEASE);
		cq->next = cq->next + 1 == cq->num_cqe ? 0 : cq->next + 1;
	}
	pthread_spin_unlock(&cq->lock);
	return n;
}

/* As the kernel arms a CQ itself: "next completion" includes solicited. */
int siw_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct siw_cq *cq = to_scq(ibcq);
	uint32_t arm = solicited_only ? SIW_NOTIFY_SOLICITED :
					SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;

	__atomic_store_n(&cq->ctrl->flags, arm, __ATOMIC_SEQ_CST);
	return 0;
}
