/* SPDX-License-Identifier: MIT */
/* Queue pairs. */
#include <errno.h>
#include <string.h>

#include "internal.h"

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	const struct verbs_ops *ops = verbs_ops(pd->context);
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	if (ops->create_qp)
		return ops->create_qp(pd, qp_init_attr);
	if (!ops->create_qp_ex) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, qp_init_attr, sizeof(*qp_init_attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = ops->create_qp_ex(pd->context, &ex);
	if (qp)
		qp_init_attr->cap = ex.cap;
	return qp;
}

/* Every QP made here is an extended one (ibv_qp_to_qp_ex), even when no
 * send_ops_flags asked for the wr_* calls. */
struct ibv_qp *verbs_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	const struct verbs_ops *ops = verbs_ops(ctx);
	struct ibv_qp *qp;

	if (ops->create_qp_ex)
		qp = ops->create_qp_ex(ctx, attr);
	else if (attr->comp_mask == IBV_QP_INIT_ATTR_PD && ops->create_qp)
		qp = ops->create_qp(attr->pd, (struct ibv_qp_init_attr *)attr);
	else {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (qp)
		container_of(qp, struct verbs_qp, qp)->comp_mask |= VERBS_QP_EX;
	return qp;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);
	int ret;

	ret = ops->modify_qp ? ops->modify_qp(qp, attr, attr_mask)
			     : verbs_cmd_modify_qp(qp, attr, attr_mask, NULL);
	if (!ret && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);
	int ret;

	ret = ops->query_qp ? ops->query_qp(qp, attr, attr_mask, init_attr)
			    : verbs_cmd_query_qp(qp, attr, attr_mask, init_attr);
	if (!ret && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);

	return ops->destroy_qp ? ops->destroy_qp(qp) : EOPNOTSUPP;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct verbs_qp *vqp = container_of(qp, struct verbs_qp, qp);

	/* Plugins of different releases keep comp_mask at different
	 * offsets: the adapter remembers their extended QPs instead. */
	if (verbs_priv(qp->context)->plugin)
		return verbs_plugin_qp_ex_recorded(qp) ? &vqp->qp_ex : NULL;
	return vqp->comp_mask & VERBS_QP_EX ? &vqp->qp_ex : NULL;
}

int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);

	if (flags || !ops->query_qp_data_in_order)
		return 0;
	return ops->query_qp_data_in_order(qp, op);
}

int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);

	return ops->query_ece ? ops->query_ece(qp, ece) : EOPNOTSUPP;
}

/* The errno value is returned and errno set too, as upstream's does at
 * least for a missing vendor. */
int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	const struct verbs_ops *ops = verbs_ops(qp->context);
	int ret;

	if (!ece->vendor_id || !ops->set_ece)
		ret = EOPNOTSUPP;
	else if (ece->comp_mask)
		ret = EINVAL;
	else
		ret = ops->set_ece(qp, ece);
	if (ret)
		errno = ret;
	return ret;
}
