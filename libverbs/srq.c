/* SPDX-License-Identifier: MIT */
/* Shared receive queues. */
#include <errno.h>
#include <string.h>

#include "internal.h"

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	const struct verbs_ops *ops = verbs_ops(pd->context);
	struct ibv_srq_init_attr_ex ex;
	struct ibv_srq *srq;

	if (ops->create_srq)
		return ops->create_srq(pd, srq_init_attr);
	if (!ops->create_srq_ex) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, srq_init_attr, sizeof(*srq_init_attr));
	ex.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	ex.pd = pd;
	srq = ops->create_srq_ex(pd->context, &ex);
	if (srq)
		srq_init_attr->attr = ex.attr;
	return srq;
}

struct ibv_srq *verbs_create_srq_ex(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr)
{
	const struct verbs_ops *ops = verbs_ops(ctx);

	if (attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_RESERVED - 1)) {
		errno = EINVAL;
		return NULL;
	}
	if (!ops->create_srq_ex) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return ops->create_srq_ex(ctx, attr);
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	const struct verbs_ops *ops = verbs_ops(srq->context);

	return ops->modify_srq ? ops->modify_srq(srq, srq_attr, srq_attr_mask)
			       : verbs_cmd_modify_srq(srq, srq_attr, srq_attr_mask, NULL);
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	const struct verbs_ops *ops = verbs_ops(srq->context);

	return ops->query_srq ? ops->query_srq(srq, srq_attr)
			      : verbs_cmd_query_srq(srq, srq_attr);
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	const struct verbs_ops *ops = verbs_ops(srq->context);

	return ops->destroy_srq ? ops->destroy_srq(srq) : EOPNOTSUPP;
}
