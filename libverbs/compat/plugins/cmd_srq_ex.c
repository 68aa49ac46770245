/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_create_srq_ex (FACTS section H): SRQs of any type, XRC and
 * tag-matching ones included.  rxe calls it for basic SRQs on the test
 * guests; XRC and tag matching are for NICs (mlx5, hns, qedr), which the
 * guests do not have.
 */
#include "commands.h"

/* The attributes each SRQ type cannot do without. */
static int check_srq_attr(const struct ibv_srq_init_attr_ex *attr)
{
	uint32_t mask = attr->comp_mask;
	enum ibv_srq_type type = (mask & IBV_SRQ_INIT_ATTR_TYPE) ? attr->srq_type : IBV_SRQT_BASIC;

	if (mask >= IBV_SRQ_INIT_ATTR_RESERVED)
		return EOPNOTSUPP;
	if (!(mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	switch (type) {
	case IBV_SRQT_BASIC:
		return 0;
	case IBV_SRQT_XRC:
		if (!(mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
		    !(mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq)
			return EINVAL;
		return 0;
	case IBV_SRQT_TM:
		if (!(mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq || !(mask & IBV_SRQ_INIT_ATTR_TM) ||
		    !attr->tm_cap.max_num_tags)
			return EINVAL;
		return 0;
	}
	return EINVAL;
}

int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd,
			  size_t cmd_size, struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	int ret;

	ret = check_srq_attr(attr_ex);
	if (!ret)
		ret = verbs_cmd_create_srq(context, srq, attr_ex, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	if (resp_size >= sizeof(*resp)) {
		resp->srq_handle = srq->srq.handle;
		resp->max_wr = attr_ex->attr.max_wr;
		resp->max_sge = attr_ex->attr.max_sge;
		resp->srqn = srq->srq_num;
	}
	return 0;
}
