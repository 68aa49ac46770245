/* SPDX-License-Identifier: MIT */
/* Kernel commands for queue pairs (posting work requests: cmd_post.c). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* ------------------------------------------------------------------ */
/* Create                                                              */

static void init_qp(struct ibv_qp *qp, struct ibv_context *ctx,
		    const struct ibv_qp_init_attr_ex *attr, uint32_t handle,
		    uint32_t qpn)
{
	qp->context = ctx;
	qp->qp_context = attr->qp_context;
	qp->pd = attr->pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->handle = handle;
	qp->qp_num = qpn;
	qp->state = IBV_QPS_RESET;
	qp->qp_type = attr->qp_type;
	qp->events_completed = 0;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
}

static void cap_from_kern(struct ibv_qp_cap *cap, uint32_t send_wr, uint32_t recv_wr,
			  uint32_t send_sge, uint32_t recv_sge, uint32_t inline_data)
{
	cap->max_send_wr = send_wr;
	cap->max_recv_wr = recv_wr;
	cap->max_send_sge = send_sge;
	cap->max_recv_sge = recv_sge;
	cap->max_inline_data = inline_data;
}

/* XRC QPs name their domain where others name a PD; XRC receive QPs have
 * no queues of their own, XRC send QPs no receive side. */
static bool xrc_recv(const struct ibv_qp_init_attr_ex *attr)
{
	return attr->qp_type == IBV_QPT_XRC_RECV;
}

static bool no_recv_side(const struct ibv_qp_init_attr_ex *attr)
{
	return attr->qp_type == IBV_QPT_XRC_SEND || xrc_recv(attr);
}

static uint32_t xrcd_handle(const struct ibv_qp_init_attr_ex *attr)
{
	return container_of(attr->xrcd, struct verbs_xrcd, xrcd)->handle;
}

static int create_qp_ioctl(struct ibv_context *ctx, struct ibv_qp *qp,
			   struct ibv_qp_init_attr_ex *attr, uint32_t flags,
			   const struct verbs_udata *udata)
{
	struct ib_uverbs_qp_cap cap = {
		.max_send_wr = attr->cap.max_send_wr,
		.max_recv_wr = attr->cap.max_recv_wr,
		.max_send_sge = attr->cap.max_send_sge,
		.max_recv_sge = attr->cap.max_recv_sge,
		.max_inline_data = attr->cap.max_inline_data,
	}, resp_cap;
	struct ib_uverbs_attr *handle;
	uint32_t qpn;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE);
	handle = vioctl_new(&c, UVERBS_ATTR_CREATE_QP_HANDLE);
	if (attr->xrcd)
		vioctl_idr(&c, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, xrcd_handle(attr));
	else if (attr->pd)
		vioctl_idr(&c, UVERBS_ATTR_CREATE_QP_PD_HANDLE, attr->pd->handle);
	if (attr->send_cq)
		vioctl_idr(&c, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, attr->send_cq->handle);
	if (attr->recv_cq)
		vioctl_idr(&c, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, attr->recv_cq->handle);
	if (attr->srq)
		vioctl_idr(&c, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, attr->srq->handle);
	if (attr->rwq_ind_tbl)
		vioctl_idr(&c, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE, attr->rwq_ind_tbl->ind_tbl_handle);
	vioctl_in_u64(&c, UVERBS_ATTR_CREATE_QP_USER_HANDLE, (uintptr_t)qp);
	vioctl_in(&c, UVERBS_ATTR_CREATE_QP_CAP, &cap, sizeof(cap));
	vioctl_const(&c, UVERBS_ATTR_CREATE_QP_TYPE, attr->qp_type);
	/* sq_sig_all is a creation flag here; the source QPN flag is implied
	 * by the attribute that carries it. */
	flags &= ~IBV_QP_CREATE_SOURCE_QPN;
	if (attr->sq_sig_all)
		flags |= IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	if (flags)
		vioctl_in_u32(&c, UVERBS_ATTR_CREATE_QP_FLAGS, flags);
	if (attr->create_flags & IBV_QP_CREATE_SOURCE_QPN)
		vioctl_in_u32(&c, UVERBS_ATTR_CREATE_QP_SOURCE_QPN, attr->source_qpn);
	vioctl_out(&c, UVERBS_ATTR_CREATE_QP_RESP_CAP, &resp_cap, sizeof(resp_cap));
	vioctl_out(&c, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &qpn, sizeof(qpn));
	vioctl_udata(&c, udata);
	ret = vioctl_exec(ctx, &c);
	if (ret)
		return ret;
	cap_from_kern(&attr->cap, resp_cap.max_send_wr, resp_cap.max_recv_wr,
		      resp_cap.max_send_sge, resp_cap.max_recv_sge, resp_cap.max_inline_data);
	init_qp(qp, ctx, attr, vioctl_result(handle), qpn);
	return 0;
}

static int create_qp_write(struct ibv_context *ctx, struct ibv_qp *qp,
			   struct ibv_qp_init_attr_ex *attr, uint32_t flags,
			   const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_create_qp req = {
		.user_handle = (uintptr_t)qp,
		.pd_handle = attr->xrcd ? xrcd_handle(attr) : attr->pd ? attr->pd->handle : 0,
		.send_cq_handle = attr->send_cq ? attr->send_cq->handle : 0,
		.recv_cq_handle = attr->recv_cq ? attr->recv_cq->handle : 0,
		.srq_handle = attr->srq ? attr->srq->handle : 0,
		.max_send_wr = attr->cap.max_send_wr,
		.max_recv_wr = attr->cap.max_recv_wr,
		.max_send_sge = attr->cap.max_send_sge,
		.max_recv_sge = attr->cap.max_recv_sge,
		.max_inline_data = attr->cap.max_inline_data,
		.sq_sig_all = !!attr->sq_sig_all,
		.qp_type = attr->qp_type,
		.is_srq = !!attr->srq,
		.create_flags = flags,
		.source_qpn = (flags & IBV_QP_CREATE_SOURCE_QPN) ? attr->source_qpn : 0,
	};
	struct ib_uverbs_ex_create_qp_resp resp;
	int ret;

	if (attr->rwq_ind_tbl) {
		req.comp_mask = IB_UVERBS_CREATE_QP_MASK_IND_TABLE;
		req.rwq_ind_tbl_handle = attr->rwq_ind_tbl->ind_tbl_handle;
	}
	if (flags || attr->rwq_ind_tbl) {
		ret = vcmd_write(ctx, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_QP, &req, sizeof(req),
				 &resp, sizeof(resp), udata);
	} else {
		/* The legacy request is the extended one's head, after the
		 * response pointer. */
		struct ib_uverbs_create_qp legacy;

		legacy.response = 0;
		memcpy(&legacy.user_handle, &req, sizeof(legacy) - sizeof(legacy.response));
		ret = vcmd_write(ctx, IB_USER_VERBS_CMD_CREATE_QP, &legacy, sizeof(legacy),
				 &resp.base, sizeof(resp.base), udata);
	}
	if (ret)
		return ret;
	cap_from_kern(&attr->cap, resp.base.max_send_wr, resp.base.max_recv_wr,
		      resp.base.max_send_sge, resp.base.max_recv_sge,
		      resp.base.max_inline_data);
	init_qp(qp, ctx, attr, resp.base.qp_handle, resp.base.qpn);
	return 0;
}

static int create_qp(struct ibv_context *ctx, struct ibv_qp *qp,
		     struct ibv_qp_init_attr_ex *attr, uint32_t flags,
		     const struct verbs_udata *udata)
{
	int ret;

	if (vcmd_use_ioctl(ctx, VCMD_CREATE_QP)) {
		ret = create_qp_ioctl(ctx, qp, attr, flags, udata);
		if (!vcmd_fall_back(ctx, VCMD_CREATE_QP, &ret))
			return ret;
	}
	return create_qp_write(ctx, qp, attr, flags, udata);
}

int vcmd_create_qp(struct ibv_context *ctx, struct ibv_qp *qp,
		   struct ibv_qp_init_attr_ex *attr, const struct verbs_udata *udata)
{
	uint32_t flags = (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) ? attr->create_flags : 0;
	/* Fields comp_mask leaves out are the caller's, whatever they hold:
	 * the command is built from a copy without them. */
	struct ibv_qp_init_attr_ex asked = *attr;
	int ret;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE))
		asked.rwq_ind_tbl = NULL;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD))
		asked.pd = NULL;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !xrc_recv(attr))
		asked.xrcd = NULL;
	if (no_recv_side(attr)) {
		asked.recv_cq = NULL;
		asked.srq = NULL;
	}
	if (xrc_recv(attr))
		asked.send_cq = NULL;
	ret = create_qp(ctx, qp, &asked, flags, udata);
	if (!ret)
		attr->cap = asked.cap;
	return ret;
}

int verbs_cmd_create_qp(struct ibv_context *ctx, struct verbs_qp *qp,
			struct ibv_qp_init_attr_ex *attr,
			const struct verbs_udata *udata)
{
	/* XRC domains are not supported by this library's own providers. */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_XRCD)
		return EOPNOTSUPP;
	return vcmd_create_qp(ctx, &qp->qp, attr, udata);
}

/*
 * XRC target QPs live in their XRC domain, not in the process that made
 * them: another process sharing the domain opens one by number.  Only
 * plugins for NICs with XRC (mlx5, mlx4, hns) ask; rxe and siw have no
 * XRC domains.
 */
int verbs_cmd_open_qp(struct ibv_context *ctx, struct ibv_qp *qp, uint32_t xrcd_handle,
		      const struct ibv_qp_open_attr *attr, const struct verbs_udata *udata)
{
	struct ib_uverbs_open_qp req = {
		.user_handle = (uintptr_t)qp,
		.pd_handle = xrcd_handle,	/* the kernel's name for the domain here */
		.qpn = attr->qp_num,
		.qp_type = attr->qp_type,
	};
	struct ib_uverbs_create_qp_resp resp;
	int ret;

	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_OPEN_QP, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	qp->context = ctx;
	qp->qp_context = attr->qp_context;
	qp->pd = NULL;
	qp->send_cq = NULL;
	qp->recv_cq = NULL;
	qp->srq = NULL;
	qp->handle = resp.qp_handle;
	qp->qp_num = resp.qpn;
	qp->qp_type = attr->qp_type;
	qp->state = IBV_QPS_UNKNOWN;
	qp->events_completed = 0;
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Modify, query, destroy                                              */

static void dest_to_kern(struct ib_uverbs_qp_dest *d, const struct ibv_ah_attr *a)
{
	memcpy(d->dgid, a->grh.dgid.raw, sizeof(d->dgid));
	d->flow_label = a->grh.flow_label;
	d->dlid = a->dlid;
	d->sgid_index = a->grh.sgid_index;
	d->hop_limit = a->grh.hop_limit;
	d->traffic_class = a->grh.traffic_class;
	d->sl = a->sl;
	d->src_path_bits = a->src_path_bits;
	d->static_rate = a->static_rate;
	d->is_global = a->is_global;
	d->port_num = a->port_num;
}

static void dest_from_kern(struct ibv_ah_attr *a, const struct ib_uverbs_qp_dest *d)
{
	memcpy(a->grh.dgid.raw, d->dgid, sizeof(d->dgid));
	a->grh.flow_label = d->flow_label;
	a->dlid = d->dlid;
	a->grh.sgid_index = d->sgid_index;
	a->grh.hop_limit = d->hop_limit;
	a->grh.traffic_class = d->traffic_class;
	a->sl = d->sl;
	a->src_path_bits = d->src_path_bits;
	a->static_rate = d->static_rate;
	a->is_global = d->is_global;
	a->port_num = d->port_num;
}

/* The extended request for the fields mask names (the legacy one is its
 * base). */
static void modify_qp_req(struct ib_uverbs_ex_modify_qp *req, const struct ibv_qp *qp,
			  const struct ibv_qp_attr *attr, int mask)
{
	*req = (struct ib_uverbs_ex_modify_qp){
		.base = {
			.qp_handle = qp->handle,
			.attr_mask = mask,
			.qkey = attr->qkey,
			.rq_psn = attr->rq_psn,
			.sq_psn = attr->sq_psn,
			.dest_qp_num = attr->dest_qp_num,
			.qp_access_flags = attr->qp_access_flags,
			.pkey_index = attr->pkey_index,
			.alt_pkey_index = attr->alt_pkey_index,
			.qp_state = attr->qp_state,
			.cur_qp_state = attr->cur_qp_state,
			.path_mtu = attr->path_mtu,
			.path_mig_state = attr->path_mig_state,
			.en_sqd_async_notify = attr->en_sqd_async_notify,
			.max_rd_atomic = attr->max_rd_atomic,
			.max_dest_rd_atomic = attr->max_dest_rd_atomic,
			.min_rnr_timer = attr->min_rnr_timer,
			.port_num = attr->port_num,
			.timeout = attr->timeout,
			.retry_cnt = attr->retry_cnt,
			.rnr_retry = attr->rnr_retry,
			.alt_port_num = attr->alt_port_num,
			.alt_timeout = attr->alt_timeout,
		},
	};
	if (mask & IBV_QP_AV)
		dest_to_kern(&req->base.dest, &attr->ah_attr);
	if (mask & IBV_QP_ALT_PATH)
		dest_to_kern(&req->base.alt_dest, &attr->alt_ah_attr);
	if (mask & IBV_QP_RATE_LIMIT)
		req->rate_limit = attr->rate_limit;
}

int verbs_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_modify_qp req;
	struct ib_uverbs_ex_modify_qp_resp resp;

	/* Only the rate limit needs the extended command. */
	if (mask & IBV_QP_RATE_LIMIT)
		return verbs_cmd_modify_qp_ex(qp, attr, mask, &resp, udata);
	modify_qp_req(&req, qp, attr, mask);
	return vcmd_write(qp->context, IB_USER_VERBS_CMD_MODIFY_QP, &req.base,
			  sizeof(req.base), NULL, 0, udata);
}

int verbs_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			   struct ib_uverbs_ex_modify_qp_resp *resp,
			   const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_modify_qp req;

	modify_qp_req(&req, qp, attr, mask);
	return vcmd_write(qp->context, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_QP,
			  &req, sizeof(req), resp, sizeof(*resp), udata);
}

int verbs_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		       struct ibv_qp_init_attr *init_attr)
{
	struct ib_uverbs_query_qp req = { .qp_handle = qp->handle, .attr_mask = mask };
	struct ib_uverbs_query_qp_resp r;
	int ret;

	ret = vcmd_write(qp->context, IB_USER_VERBS_CMD_QUERY_QP, &req, sizeof(req),
			 &r, sizeof(r), NULL);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->qkey = r.qkey;
	attr->rq_psn = r.rq_psn;
	attr->sq_psn = r.sq_psn;
	attr->dest_qp_num = r.dest_qp_num;
	attr->qp_access_flags = r.qp_access_flags;
	attr->pkey_index = r.pkey_index;
	attr->alt_pkey_index = r.alt_pkey_index;
	attr->qp_state = r.qp_state;
	attr->cur_qp_state = r.cur_qp_state;
	attr->path_mtu = r.path_mtu;
	attr->path_mig_state = r.path_mig_state;
	attr->sq_draining = r.sq_draining;
	attr->max_rd_atomic = r.max_rd_atomic;
	attr->max_dest_rd_atomic = r.max_dest_rd_atomic;
	attr->min_rnr_timer = r.min_rnr_timer;
	attr->port_num = r.port_num;
	attr->timeout = r.timeout;
	attr->retry_cnt = r.retry_cnt;
	attr->rnr_retry = r.rnr_retry;
	attr->alt_port_num = r.alt_port_num;
	attr->alt_timeout = r.alt_timeout;
	cap_from_kern(&attr->cap, r.max_send_wr, r.max_recv_wr, r.max_send_sge,
		      r.max_recv_sge, r.max_inline_data);
	dest_from_kern(&attr->ah_attr, &r.dest);
	dest_from_kern(&attr->alt_ah_attr, &r.alt_dest);

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->qp_type = qp->qp_type;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_all = r.sq_sig_all;
	return 0;
}

int verbs_cmd_destroy_qp(struct ibv_qp *qp)
{
	const struct vcmd_event_count events = {
		&qp->mutex, &qp->cond, &qp->events_completed
	};

	return vcmd_destroy_tracked(qp->context, VCMD_DESTROY_QP, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY,
				    qp->handle, IB_USER_VERBS_CMD_DESTROY_QP, &events);
}
