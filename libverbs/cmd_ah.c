/* SPDX-License-Identifier: MIT */
/* Kernel commands for address handles and multicast attachment. */
#include <errno.h>
#include <string.h>

#include "cmd.h"

int verbs_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
			struct ibv_ah_attr *attr, const struct verbs_udata *udata)
{
	struct ib_uverbs_create_ah req = {
		.user_handle = (uintptr_t)ah,
		.pd_handle = pd->handle,
		.attr = {
			.grh = {
				.flow_label = attr->grh.flow_label,
				.sgid_index = attr->grh.sgid_index,
				.hop_limit = attr->grh.hop_limit,
				.traffic_class = attr->grh.traffic_class,
			},
			.dlid = attr->dlid,
			.sl = attr->sl,
			.src_path_bits = attr->src_path_bits,
			.static_rate = attr->static_rate,
			.is_global = attr->is_global,
			.port_num = attr->port_num,
		},
	};
	struct ib_uverbs_create_ah_resp resp;
	int ret;

	memcpy(req.attr.grh.dgid, attr->grh.dgid.raw, sizeof(req.attr.grh.dgid));
	ret = vcmd_write(pd->context, IB_USER_VERBS_CMD_CREATE_AH, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = resp.ah_handle;
	return 0;
}

int verbs_cmd_destroy_ah(struct ibv_ah *ah)
{
	return vcmd_destroy(ah->context, VCMD_DESTROY_AH, UVERBS_OBJECT_AH,
			    UVERBS_METHOD_AH_DESTROY, ah->handle,
			    IB_USER_VERBS_CMD_DESTROY_AH);
}

static int mcast(struct ibv_qp *qp, uint32_t cmd, const union ibv_gid *gid,
		 uint16_t lid)
{
	struct ib_uverbs_attach_mcast req = { .qp_handle = qp->handle, .mlid = lid };

	memcpy(req.gid, gid->raw, sizeof(req.gid));
	return vcmd_write(qp->context, cmd, &req, sizeof(req), NULL, 0, NULL);
}

int verbs_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return mcast(qp, IB_USER_VERBS_CMD_ATTACH_MCAST, gid, lid);
}

/* The detach request has the attach request's layout. */
int verbs_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return mcast(qp, IB_USER_VERBS_CMD_DETACH_MCAST, gid, lid);
}
