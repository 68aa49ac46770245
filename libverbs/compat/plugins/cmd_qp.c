/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers on QPs (FACTS section H).
 *
 * struct verbs_qp grew by 8 bytes in rdma-core 45 (V56-ADDITIONS 3), so
 * its comp_mask and xrcd are not where a v44 core thinks in a v56 plugin's
 * QP: they are written only for XRC QPs, at the offsets of the plugin's
 * release, and which QPs are extended ones (SEND_OPS_FLAGS) is kept in the
 * core-side set of plugins.h for ibv_qp_to_qp_ex.
 */
#include <string.h>

#include "commands.h"
#include "plugins.h"

/* A plugin built against rdma-core 45 or later has ibv_qp_ex.wr_flush. */
enum { VERBS_QP_EX_GREW_IN = 45 };

static unsigned int plugin_release(struct ibv_context *ctx)
{
	/* Contexts of our own providers (unit tests) are v44-shaped. */
	return verbs_priv(ctx)->plugin ? verbs_plugin_release(ctx) : 44;
}

/* vqp->comp_mask = VERBS_QP_XRCD and vqp->xrcd = xrcd, where the plugin's
 * release has them. */
static void set_qp_xrcd(struct ibv_context *ctx, struct verbs_qp *vqp, struct ibv_xrcd *xrcd)
{
	struct verbs_xrcd *vxrcd = container_of(xrcd, struct verbs_xrcd, xrcd);
	uint32_t comp_mask = VERBS_QP_XRCD;
	bool v45 = plugin_release(ctx) >= VERBS_QP_EX_GREW_IN;
	size_t comp_mask_at = v45 ? offsetof(struct verbs_qp_v45, comp_mask)
				  : offsetof(struct verbs_qp, comp_mask);
	size_t xrcd_at = v45 ? offsetof(struct verbs_qp_v45, xrcd) : offsetof(struct verbs_qp, xrcd);

	memcpy((char *)vqp + comp_mask_at, &comp_mask, sizeof(comp_mask));
	memcpy((char *)vqp + xrcd_at, &vxrcd, sizeof(vxrcd));
}

static bool xrc_qp(enum ibv_qp_type type)
{
	return type == IBV_QPT_XRC_SEND || type == IBV_QPT_XRC_RECV;
}

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
		      struct ibv_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	int ret;

	qp->context = pd->context;
	ret = vcmd_create_qp(pd->context, qp, &attr_ex, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	attr->cap = attr_ex.cap;
	return 0;
}

/* What both extended forms share once their own checks passed. */
static int create_qp_ex(struct ibv_context *ctx, struct verbs_qp *vqp,
			struct ibv_qp_init_attr_ex *attr_ex, const struct verbs_udata *udata)
{
	bool has_xrcd = attr_ex->comp_mask & IBV_QP_INIT_ATTR_XRCD;
	int ret;

	/* An XRC receive QP belongs to its domain, every other to a PD. */
	if (attr_ex->qp_type == IBV_QPT_XRC_RECV ? !has_xrcd
						  : !(attr_ex->comp_mask & IBV_QP_INIT_ATTR_PD))
		return EINVAL;
	vqp->qp.context = ctx;
	ret = vcmd_create_qp(ctx, &vqp->qp, attr_ex, udata);
	if (ret)
		return ret;
	if (has_xrcd && xrc_qp(attr_ex->qp_type))
		set_qp_xrcd(ctx, vqp, attr_ex->xrcd);
	if (attr_ex->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ret = verbs_plugin_qp_ex_record(&vqp->qp);
		if (ret)
			verbs_cmd_destroy_qp(&vqp->qp);
	}
	return ret;
}

int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp *cmd,
			 size_t cmd_size, struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	if (attr_ex->comp_mask & ~(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
				   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return verbs_plugin_result(EINVAL);
	return verbs_plugin_result(create_qp_ex(context, qp, attr_ex, &udata));
}

enum {
	EX2_COMP_MASK = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
			IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_MAX_TSO_HEADER |
			IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH |
			IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	EX2_CREATE_FLAGS = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS |
			   IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |
			   IBV_QP_CREATE_PCI_WRITE_END_PADDING,
};

static bool ex2_attr_valid(const struct ibv_qp_init_attr_ex *attr_ex)
{
	if (attr_ex->comp_mask & ~EX2_COMP_MASK)
		return false;
	if ((attr_ex->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (attr_ex->create_flags & ~EX2_CREATE_FLAGS))
		return false;
	/* A QP receiving through an indirection table has no receive side. */
	if ((attr_ex->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) &&
	    (attr_ex->cap.max_recv_wr || attr_ex->cap.max_recv_sge || attr_ex->recv_cq ||
	     attr_ex->srq))
		return false;
	return true;
}

int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp_ex *cmd,
			  size_t cmd_size, struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	if (!ex2_attr_valid(attr_ex))
		return verbs_plugin_result(EINVAL);
	return verbs_plugin_result(create_qp_ex(context, qp, attr_ex, &udata));
}

/* Attributes from IBV_QP_RATE_LIMIT on need the extended commands. */
static bool legacy_qp_mask(int attr_mask)
{
	return !(attr_mask & ~(IBV_QP_RATE_LIMIT - 1));
}

int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		     struct ibv_qp_init_attr *init_attr, struct ibv_query_qp *cmd,
		     size_t cmd_size)
{
	(void)cmd;
	(void)cmd_size;
	if (!legacy_qp_mask(attr_mask))
		return verbs_plugin_result(EOPNOTSUPP);
	return verbs_plugin_result(verbs_cmd_query_qp(qp, attr, attr_mask, init_attr));
}

int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		      struct ibv_modify_qp *cmd, size_t cmd_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);

	if (!legacy_qp_mask(attr_mask))
		return verbs_plugin_result(EOPNOTSUPP);
	return verbs_plugin_result(verbs_cmd_modify_qp(qp, attr, attr_mask, &udata));
}

int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	int ret = verbs_cmd_destroy_qp(qp);

	if (!ret)
		verbs_plugin_qp_ex_forget(qp);
	return verbs_plugin_result(ret);
}

int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	return verbs_plugin_result(verbs_cmd_post_send(ibqp, wr, bad_wr));
}

int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return verbs_plugin_result(verbs_cmd_post_recv(ibqp, wr, bad_wr));
}
