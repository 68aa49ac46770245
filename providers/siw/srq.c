/* SPDX-License-Identifier: MIT */
/* Shared receive queues: one mapped receive queue; query is the generic
 * command. */
#include <errno.h>
#include <stdlib.h>

#include "siw.h"

/* siw makes basic SRQs on a PD: XRC domains, CQs and tag matching are
 * refused rather than dropped (upstream's siw provider, which has no
 * extended SRQ creation, refuses them the same way). */
struct ibv_srq *siw_create_srq_ex(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr)
{
	const uint32_t known = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	struct siw_uresp_create_srq resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	struct siw_srq *srq;
	int ret;

	if ((attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = siw_wq_init(&srq->rq);
	if (ret)
		goto err_free;
	ret = verbs_cmd_create_srq(ctx, &srq->vsrq, attr, &udata);
	if (ret)
		goto err_rq;
	ret = siw_wq_map(&srq->rq, ctx->cmd_fd, resp.srq_key, resp.num_rqe,
			 sizeof(struct siw_rqe));
	if (ret)
		goto err_destroy;
	return &srq->vsrq.srq;

err_destroy:
	verbs_cmd_destroy_srq(&srq->vsrq.srq);
err_rq:
	siw_wq_destroy(&srq->rq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

int siw_destroy_srq(struct ibv_srq *ibsrq)
{
	struct siw_srq *srq = to_ssrq(ibsrq);
	int ret = verbs_cmd_destroy_srq(ibsrq);

	if (ret)
		return ret;
	siw_wq_destroy(&srq->rq);
	free(srq);
	return 0;
}

/* Like modify_qp, with the queue locked: the limit is armed against the
 * queue as the caller left it, not against a batch another thread has
 * half published (the kernel checks it as it takes elements). */
int siw_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct siw_srq *srq = to_ssrq(ibsrq);
	int ret;

	pthread_mutex_lock(&srq->rq.lock);
	ret = verbs_cmd_modify_srq(ibsrq, attr, mask, NULL);
	pthread_mutex_unlock(&srq->rq.lock);
	return ret;
}

int siw_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct siw_srq *srq = to_ssrq(ibsrq);
	int ret;

	pthread_mutex_lock(&srq->rq.lock);
	ret = siw_wq_post_recv(&srq->rq, wr, bad_wr);
	pthread_mutex_unlock(&srq->rq.lock);
	return ret;
}
