// SPDX-License-Identifier: MIT
/*
 * IBVERBS_1.0 shared receive queues (compat-1.0 FACTS 23-24; posting
 * to them is in qp.c, with the other work requests).
 */
#include <stdlib.h>

#include "compat_1_0.h"

struct ibv_srq_1_0 *ibv_create_srq_1_0(struct ibv_pd_1_0 *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_1_0 *srq = calloc(1, sizeof(*srq));

	if (!srq)
		return NULL;
	srq->real_srq = ibv_create_srq(pd->real_pd, attr);
	if (!srq->real_srq) {
		free(srq);
		return NULL;
	}
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	/* events name the wrapper (FACTS 6) */
	srq->real_srq->srq_context = srq;
	return srq;
}
COMPAT_1_0(ibv_create_srq_1_0, ibv_create_srq);

int ibv_modify_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr, int attr_mask)
{
	return ibv_modify_srq(srq->real_srq, attr, attr_mask);
}
COMPAT_1_0(ibv_modify_srq_1_0, ibv_modify_srq);

int ibv_query_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr)
{
	return ibv_query_srq(srq->real_srq, attr);
}
COMPAT_1_0(ibv_query_srq_1_0, ibv_query_srq);

int ibv_destroy_srq_1_0(struct ibv_srq_1_0 *srq)
{
	int ret = ibv_destroy_srq(srq->real_srq);

	if (!ret)
		free(srq);
	return ret;
}
COMPAT_1_0(ibv_destroy_srq_1_0, ibv_destroy_srq);
