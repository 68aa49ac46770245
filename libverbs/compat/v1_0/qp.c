// SPDX-License-Identifier: MIT
/*
 * IBVERBS_1.0 queue pairs and work requests (compat-1.0 FACTS 25-27, 29,
 * 33-34).
 *
 * Work request chains are converted in batches on the stack: posting a
 * chain in parts has the same outcome as posting it whole (a provider
 * stops at the first request it refuses, the ones before are posted), and
 * the data path needs no allocation.
 */
#include <stdlib.h>
#include <string.h>

#include "compat_1_0.h"

static struct ibv_cq *real_cq(struct ibv_cq_1_0 *cq)
{
	return cq ? cq->real_cq : NULL;
}

static struct ibv_srq *real_srq(struct ibv_srq_1_0 *srq)
{
	return srq ? srq->real_srq : NULL;
}

struct ibv_qp_1_0 *ibv_create_qp_1_0(struct ibv_pd_1_0 *pd, struct ibv_qp_init_attr_1_0 *attr)
{
	struct ibv_qp_1_0 *qp = calloc(1, sizeof(*qp));
	struct ibv_qp_init_attr real = {
		.qp_context = attr->qp_context,
		.send_cq = real_cq(attr->send_cq),
		.recv_cq = real_cq(attr->recv_cq),
		.srq = real_srq(attr->srq),
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
	};

	if (!qp)
		return NULL;
	qp->real_qp = ibv_create_qp(pd->real_pd, &real);
	if (!qp->real_qp) {
		free(qp);
		return NULL;
	}
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_type = attr->qp_type;
	qp->qp_num = qp->real_qp->qp_num;
	attr->cap = real.cap;
	/* events name the wrapper (FACTS 6) */
	qp->real_qp->qp_context = qp;
	return qp;
}
COMPAT_1_0(ibv_create_qp_1_0, ibv_create_qp);

/* The wrappers of the real objects, found through their user context. */
static struct ibv_cq_1_0 *cq_wrapper(struct ibv_cq *cq)
{
	return cq ? cq->cq_context : NULL;
}

/*
 * Upstream's 1.0 twin reads the SRQ's context even when the QP has no SRQ,
 * and crashes there (FACTS 26); here the 1.0 init_attr's srq is NULL then,
 * as man/ibv_compat_1_0.7.md says.
 */
static struct ibv_srq_1_0 *srq_wrapper(struct ibv_srq *srq)
{
	return srq ? srq->srq_context : NULL;
}

int ibv_query_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask,
		     struct ibv_qp_init_attr_1_0 *init_attr)
{
	struct ibv_qp_init_attr real;
	int ret = ibv_query_qp(qp->real_qp, attr, attr_mask, &real);

	if (ret)
		return ret;
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = cq_wrapper(real.send_cq);
	init_attr->recv_cq = cq_wrapper(real.recv_cq);
	init_attr->srq = srq_wrapper(real.srq);
	init_attr->qp_type = real.qp_type;
	init_attr->cap = real.cap;
	init_attr->sq_sig_all = real.sq_sig_all;
	return 0;
}
COMPAT_1_0(ibv_query_qp_1_0, ibv_query_qp);

int ibv_modify_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	return ibv_modify_qp(qp->real_qp, attr, attr_mask);
}
COMPAT_1_0(ibv_modify_qp_1_0, ibv_modify_qp);

int ibv_destroy_qp_1_0(struct ibv_qp_1_0 *qp)
{
	int ret = ibv_destroy_qp(qp->real_qp);

	if (!ret)
		free(qp);
	return ret;
}
COMPAT_1_0(ibv_destroy_qp_1_0, ibv_destroy_qp);

int ibv_attach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid)
{
	return ibv_attach_mcast(qp->real_qp, gid, lid);
}
COMPAT_1_0(ibv_attach_mcast_1_0, ibv_attach_mcast);

int ibv_detach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid)
{
	return ibv_detach_mcast(qp->real_qp, gid, lid);
}
COMPAT_1_0(ibv_detach_mcast_1_0, ibv_detach_mcast);

/* ------------------------------------------------------------------ */
/* Work requests                                                       */

/* Up to COMPAT_1_0_WR_BATCH requests from wr into out, chained in order;
 * UD requests get their AH wrapper's real AH.  The request after them. */
static struct ibv_send_wr_1_0 *send_batch(struct ibv_send_wr_1_0 *wr, enum ibv_qp_type qp_type,
					  struct ibv_send_wr *out)
{
	int n;

	for (n = 0; wr && n < COMPAT_1_0_WR_BATCH; n++, wr = wr->next) {
		/* 1.0 had no xrc, bind_mw or tso: zero there means unused */
		out[n] = (struct ibv_send_wr){
			.wr_id = wr->wr_id,
			.next = n + 1 < COMPAT_1_0_WR_BATCH && wr->next ? &out[n + 1] : NULL,
			.sg_list = wr->sg_list,
			.num_sge = wr->num_sge,
			.opcode = wr->opcode,
			.send_flags = (unsigned int)wr->send_flags,
			.imm_data = wr->imm_data,
		};
		memcpy(&out[n].wr, &wr->wr, sizeof(out[n].wr));
		if (qp_type == IBV_QPT_UD)
			out[n].wr.ud.ah = wr->wr.ud.ah ? wr->wr.ud.ah->real_ah : NULL;
	}
	return wr;
}

/* The 1.0 request at bad's place in the batch converted from first; the
 * first one if the provider named none of the batch. */
static struct ibv_send_wr_1_0 *send_bad(struct ibv_send_wr_1_0 *first,
					const struct ibv_send_wr *batch,
					const struct ibv_send_wr *bad)
{
	struct ibv_send_wr_1_0 *wr = first;

	for (const struct ibv_send_wr *w = batch; w && wr; w = w->next, wr = wr->next)
		if (w == bad)
			return wr;
	return first;
}

int compat_1_0_post_send(struct ibv_qp_1_0 *qp, struct ibv_send_wr_1_0 *wr,
			 struct ibv_send_wr_1_0 **bad_wr)
{
	struct ibv_qp *real = qp->real_qp;
	struct ibv_send_wr batch[COMPAT_1_0_WR_BATCH], *bad;

	while (wr) {
		struct ibv_send_wr_1_0 *rest = send_batch(wr, qp->qp_type, batch);
		int ret;

		bad = NULL;
		ret = qp->context->real_context->ops.post_send(real, batch, &bad);
		if (ret) {
			*bad_wr = send_bad(wr, batch, bad);
			return ret;
		}
		wr = rest;
	}
	return 0;
}

/* Up to a batch of 1.0 receive requests from wr into out, chained in
 * order; the request after them. */
static struct ibv_recv_wr_1_0 *recv_batch(struct ibv_recv_wr_1_0 *wr, struct ibv_recv_wr *out)
{
	int n;

	for (n = 0; wr && n < COMPAT_1_0_WR_BATCH; n++, wr = wr->next)
		out[n] = (struct ibv_recv_wr){
			.wr_id = wr->wr_id,
			.next = n + 1 < COMPAT_1_0_WR_BATCH && wr->next ? &out[n + 1] : NULL,
			.sg_list = wr->sg_list,
			.num_sge = wr->num_sge,
		};
	return wr;
}

/* As send_bad, for receive requests. */
static struct ibv_recv_wr_1_0 *recv_bad(struct ibv_recv_wr_1_0 *first,
					const struct ibv_recv_wr *batch,
					const struct ibv_recv_wr *bad)
{
	struct ibv_recv_wr_1_0 *wr = first;

	for (const struct ibv_recv_wr *w = batch; w && wr; w = w->next, wr = wr->next)
		if (w == bad)
			return wr;
	return first;
}

/* A QP's receive queue (srq NULL) and an SRQ take the same 1.0 requests. */
static int post_recv_chain(struct ibv_context *real_context, struct ibv_qp *qp,
			   struct ibv_srq *srq, struct ibv_recv_wr_1_0 *wr,
			   struct ibv_recv_wr_1_0 **bad_wr)
{
	struct ibv_recv_wr batch[COMPAT_1_0_WR_BATCH], *bad;

	while (wr) {
		struct ibv_recv_wr_1_0 *rest = recv_batch(wr, batch);
		int ret;

		bad = NULL;
		ret = srq ? real_context->ops.post_srq_recv(srq, batch, &bad)
			  : real_context->ops.post_recv(qp, batch, &bad);
		if (ret) {
			*bad_wr = recv_bad(wr, batch, bad);
			return ret;
		}
		wr = rest;
	}
	return 0;
}

int compat_1_0_post_recv(struct ibv_qp_1_0 *qp, struct ibv_recv_wr_1_0 *wr,
			 struct ibv_recv_wr_1_0 **bad_wr)
{
	return post_recv_chain(qp->context->real_context, qp->real_qp, NULL, wr, bad_wr);
}

int compat_1_0_post_srq_recv(struct ibv_srq_1_0 *srq, struct ibv_recv_wr_1_0 *wr,
			     struct ibv_recv_wr_1_0 **bad_wr)
{
	return post_recv_chain(srq->context->real_context, NULL, srq->real_srq, wr, bad_wr);
}
