/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers for opening a shared XRC target QP and for the
 * extended modify_qp (FACTS section H).  XRC is for NICs only (mlx5,
 * mlx4, hns): rxe and siw have no XRC domains, so the test guests cannot
 * open a QP; the rate limit of modify_qp_ex needs packet pacing, which
 * neither has either.
 */
#include <string.h>

#include "commands.h"

enum {
	OPEN_QP_REQUIRED = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE,
};

/*
 * Marks the plugin's verbs_qp as belonging to xrcd.  Plugins pass the size
 * of their own struct verbs_qp as vqp_sz (Debian's mlx5, mlx4 and hns pass
 * 368 at v44 and 376 at v56 on x86_64, seen in their code), so it tells
 * where comp_mask and xrcd are: in struct verbs_qp_v45 or struct verbs_qp
 * (and, as upstream, nothing when vqp_sz does not reach xrcd).  Unlike the plugin's file name (verbs_plugin_release(), which the
 * create helpers must use), it also tells for plugins named only
 * lib<name>-rdmav34.so, such as hns.
 */
static void set_qp_xrcd(struct verbs_qp *vqp, int vqp_sz, struct verbs_xrcd *xrcd)
{
	const uint32_t comp_mask = VERBS_QP_XRCD;
	size_t comp_mask_at, xrcd_at;

	if (vqp_sz == (int)sizeof(struct verbs_qp_v45)) {
		comp_mask_at = offsetof(struct verbs_qp_v45, comp_mask);
		xrcd_at = offsetof(struct verbs_qp_v45, xrcd);
	} else if (vqp_sz >= (int)sizeof(struct verbs_qp)) {
		comp_mask_at = offsetof(struct verbs_qp, comp_mask);
		xrcd_at = offsetof(struct verbs_qp, xrcd);
	} else {
		return;
	}
	memcpy((char *)vqp + comp_mask_at, &comp_mask, sizeof(comp_mask));
	memcpy((char *)vqp + xrcd_at, &xrcd, sizeof(xrcd));
}

int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp, int vqp_sz,
		    struct ibv_qp_open_attr *attr, struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	struct verbs_xrcd *xrcd;
	int ret;

	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED)
		return verbs_plugin_result(EOPNOTSUPP);
	if ((attr->comp_mask & OPEN_QP_REQUIRED) != OPEN_QP_REQUIRED || !attr->xrcd)
		return verbs_plugin_result(EINVAL);
	xrcd = container_of(attr->xrcd, struct verbs_xrcd, xrcd);
	ret = verbs_cmd_open_qp(context, &qp->qp, xrcd->handle, attr, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	if (resp_size >= sizeof(*resp)) {
		resp->qp_handle = qp->qp.handle;
		resp->qpn = qp->qp.qp_num;
	}
	set_qp_xrcd(qp, vqp_sz, xrcd);
	return 0;
}

int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			 struct ibv_modify_qp_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	struct ib_uverbs_ex_modify_qp_resp core;
	int ret;

	if (attr_mask & ~(IBV_QP_RATE_LIMIT | (IBV_QP_RATE_LIMIT - 1)))
		return verbs_plugin_result(EOPNOTSUPP);
	/* A provider built before the rate limit has no room for it. */
	if ((attr_mask & IBV_QP_RATE_LIMIT) &&
	    cmd_size < offsetof(struct ibv_modify_qp_ex, core_payload.rate_limit) +
		       sizeof(cmd->core_payload.rate_limit))
		return verbs_plugin_result(EINVAL);
	ret = verbs_cmd_modify_qp_ex(qp, attr, attr_mask, &core, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	if (resp_size >= sizeof(*resp))
		*resp = core;
	return 0;
}
