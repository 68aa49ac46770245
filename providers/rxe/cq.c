/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: the kernel produces struct ib_uverbs_wc entries into
 * the mapped ring, we consume them.  Notification requests go through the
 * generic kernel command.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rxe.h"

/* The kernel writes its own ib_wc_flags into user completions; they part
 * from enum ibv_wc_flags after the first two bits. */
enum {
	KERN_WC_GRH = 1 << 0,
	KERN_WC_WITH_IMM = 1 << 1,
	KERN_WC_WITH_INVALIDATE = 1 << 2,
	KERN_WC_IP_CSUM_OK = 1 << 3,
};

static unsigned int wc_flags(uint32_t kern)
{
	return (kern & KERN_WC_GRH ? IBV_WC_GRH : 0) |
	       (kern & KERN_WC_WITH_IMM ? IBV_WC_WITH_IMM : 0) |
	       (kern & KERN_WC_WITH_INVALIDATE ? IBV_WC_WITH_INV : 0) |
	       (kern & KERN_WC_IP_CSUM_OK ? IBV_WC_IP_CSUM_OK : 0);
}

/* ------------------------------------------------------------------ */
/* Create, resize, destroy                                             */

static struct rxe_cq *cq_create(struct ibv_context *ctx, int cqe,
				struct ibv_comp_channel *channel, int comp_vector)
{
	struct rxe_create_cq_resp resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	struct rxe_cq *cq = calloc(1, sizeof(*cq));
	int ret;

	if (!cq)
		return NULL;
	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;
	ret = rxe_mover_init(&cq->mover);
	if (ret)
		goto err_lock;
	ret = verbs_cmd_create_cq(ctx, cqe, channel, comp_vector, 0, &cq->vcq, &udata);
	if (ret)
		goto err_mover;
	ret = rxe_ring_map(&cq->ring, ctx->cmd_fd, &resp.mi, sizeof(struct ib_uverbs_wc));
	if (ret)
		goto err_destroy;
	return cq;

err_destroy:
	verbs_cmd_destroy_cq(&cq->vcq.cq);
err_mover:
	rxe_mover_destroy(&cq->mover);
err_lock:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq *rxe_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct rxe_cq *cq = cq_create(ctx, cqe, channel, comp_vector);

	return cq ? &cq->vcq.cq : NULL;
}

/* The kernel copies the entries still unread into the new ring, where
 * our consumer index starts over (see "Moving a ring" in rxe.h). */
int rxe_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	int ret, map_ret;

	rxe_move_begin(&cq->mover, &cq->lock);
	ret = verbs_cmd_resize_cq(ibcq, cqe, &udata);
	map_ret = rxe_move_end(&cq->mover, &cq->lock, &cq->ring, ibcq->context->cmd_fd,
			       ret ? NULL : &resp.mi, sizeof(struct ib_uverbs_wc));
	return ret ? ret : map_ret;
}

int rxe_destroy_cq(struct ibv_cq *ibcq)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	int ret;

	ret = verbs_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	rxe_ring_unmap(&cq->ring);
	rxe_mover_destroy(&cq->mover);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ibv_poll_cq                                                         */

/* A kernel completion has struct ibv_wc's layout field for field, and its
 * last two bytes (port_num, reserved) fall on ibv_wc's padding: one copy,
 * then the flags fixed up where they differ. */
#define SAME_FIELD(wc_field, kern_field)						\
	_Static_assert(offsetof(struct ibv_wc, wc_field) == offsetof(struct ib_uverbs_wc, kern_field) && \
		       sizeof(((struct ibv_wc *)0)->wc_field) ==			\
		       sizeof(((struct ib_uverbs_wc *)0)->kern_field), #wc_field)
SAME_FIELD(wr_id, wr_id);
SAME_FIELD(status, status);
SAME_FIELD(opcode, opcode);
SAME_FIELD(vendor_err, vendor_err);
SAME_FIELD(byte_len, byte_len);
SAME_FIELD(imm_data, ex.imm_data);
SAME_FIELD(qp_num, qp_num);
SAME_FIELD(src_qp, src_qp);
SAME_FIELD(wc_flags, wc_flags);
SAME_FIELD(pkey_index, pkey_index);
SAME_FIELD(slid, slid);
SAME_FIELD(sl, sl);
SAME_FIELD(dlid_path_bits, dlid_path_bits);
_Static_assert(sizeof(struct ibv_wc) == sizeof(struct ib_uverbs_wc), "ibv_wc size");

static void copy_wc(struct ibv_wc *wc, const struct ib_uverbs_wc *k)
{
	memcpy(wc, k, sizeof(*wc));
	/* The flags that need converting are rare. */
	if (k->wc_flags & ~(uint32_t)(KERN_WC_GRH | KERN_WC_WITH_IMM))
		wc->wc_flags = wc_flags(k->wc_flags);
}

int rxe_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	const struct ib_uverbs_wc *k;
	int n;

	if (rxe_ring_end_lock(&cq->lock, &cq->mover))
		return -EIO;
	for (n = 0; n < num_entries; n++) {
		k = rxe_ring_head(&cq->ring);
		if (!k)
			break;
		copy_wc(&wc[n], k);
		rxe_ring_pop(&cq->ring);
	}
	pthread_spin_unlock(&cq->lock);
	return n;
}

/* ------------------------------------------------------------------ */
/* Extended polling: the lock is held from start_poll to end_poll, and
 * the entry being read stays in the ring until the next one is asked
 * for. */

static inline struct rxe_cq *cqx_to_rcq(struct ibv_cq_ex *cqx)
{
	return (struct rxe_cq *)cqx;
}

static int load_current(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rcq(cqx);

	cq->cur = rxe_ring_head(&cq->ring);
	if (!cq->cur) {
		/* Programs written against upstream's providers look at
		 * errno as well as the returned ENOENT. */
		errno = ENOENT;
		return ENOENT;
	}
	cqx->wr_id = cq->cur->wr_id;
	cqx->status = cq->cur->status;
	return 0;
}

static int rxe_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct rxe_cq *cq = cqx_to_rcq(cqx);

	if (attr->comp_mask)
		return EINVAL;
	if (rxe_ring_end_lock(&cq->lock, &cq->mover))
		return EIO;
	if (load_current(cqx)) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	return 0;
}

static int rxe_next_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rcq(cqx);

	rxe_ring_pop(&cq->ring);
	return load_current(cqx);
}

static void rxe_end_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rcq(cqx);

	if (cq->cur)
		rxe_ring_pop(&cq->ring);
	cq->cur = NULL;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode rxe_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->opcode;
}

static uint32_t rxe_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->vendor_err;
}

static uint32_t rxe_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->byte_len;
}

static __be32 rxe_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->ex.imm_data;
}

static uint32_t rxe_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->qp_num;
}

static uint32_t rxe_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->src_qp;
}

static unsigned int rxe_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return wc_flags(cqx_to_rcq(cqx)->cur->wc_flags);
}

static uint32_t rxe_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->slid;
}

static uint8_t rxe_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->sl;
}

static uint8_t rxe_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_rcq(cqx)->cur->dlid_path_bits;
}

/*
 * rxe completions carry the standard fields only: no timestamps, VLAN,
 * flow tags or tag matching, and the kernel driver takes no CQ flags.
 * Two requests need nothing from it and are accepted, as upstream's rxe
 * does: the single-threaded hint (the lock stays, uncontended), and a
 * parent domain, whose allocators have nothing to allocate here since
 * the kernel makes the ring.
 */
struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cqx;
	struct rxe_cq *cq;

	if ((attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = cq_create(ctx, attr->cqe, attr->channel, attr->comp_vector);
	if (!cq)
		return NULL;
	cqx = &cq->vcq.cq_ex;
	cqx->start_poll = rxe_start_poll;
	cqx->next_poll = rxe_next_poll;
	cqx->end_poll = rxe_end_poll;
	cqx->read_opcode = rxe_read_opcode;
	cqx->read_vendor_err = rxe_read_vendor_err;
	cqx->read_byte_len = rxe_read_byte_len;
	cqx->read_imm_data = rxe_read_imm_data;
	cqx->read_qp_num = rxe_read_qp_num;
	cqx->read_src_qp = rxe_read_src_qp;
	cqx->read_wc_flags = rxe_read_wc_flags;
	cqx->read_slid = rxe_read_slid;
	cqx->read_sl = rxe_read_sl;
	cqx->read_dlid_path_bits = rxe_read_dlid_path_bits;
	return cqx;
}
