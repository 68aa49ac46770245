/* SPDX-License-Identifier: MIT */
/*
 * Kernel commands for work queues (receive queues of RSS QPs) and their
 * indirection tables.  Only NICs with RSS have them (mlx5, mlx4, mana):
 * rxe and siw do not, so nothing here runs in the test guests.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static void init_wq(struct ibv_wq *wq, uint32_t handle, uint32_t wqn)
{
	wq->handle = handle;
	wq->wq_num = wqn;
}

static int create_wq_ioctl(struct ibv_context *ctx, struct ibv_wq_init_attr *attr,
			   uint32_t flags, struct ibv_wq *wq, const struct verbs_udata *udata)
{
	uint32_t max_wr, max_sge, wqn;
	struct ib_uverbs_attr *handle;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE);
	handle = vioctl_new(&c, UVERBS_ATTR_CREATE_WQ_HANDLE);
	vioctl_idr(&c, UVERBS_ATTR_CREATE_WQ_PD_HANDLE, attr->pd->handle);
	vioctl_idr(&c, UVERBS_ATTR_CREATE_WQ_CQ_HANDLE, attr->cq->handle);
	vioctl_in_u64(&c, UVERBS_ATTR_CREATE_WQ_USER_HANDLE, (uintptr_t)wq);
	vioctl_const(&c, UVERBS_ATTR_CREATE_WQ_TYPE, attr->wq_type);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_WQ_MAX_WR, attr->max_wr);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_WQ_MAX_SGE, attr->max_sge);
	if (flags)
		vioctl_in_u32(&c, UVERBS_ATTR_CREATE_WQ_FLAGS, flags);
	vioctl_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, &max_wr, sizeof(max_wr));
	vioctl_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, &max_sge, sizeof(max_sge));
	vioctl_out(&c, UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, &wqn, sizeof(wqn));
	vioctl_udata(&c, udata);
	ret = vioctl_exec(ctx, &c);
	if (ret)
		return ret;
	attr->max_wr = max_wr;
	attr->max_sge = max_sge;
	init_wq(wq, vioctl_result(handle), wqn);
	return 0;
}

static int create_wq_write(struct ibv_context *ctx, struct ibv_wq_init_attr *attr,
			   uint32_t flags, struct ibv_wq *wq, const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_create_wq req = {
		.wq_type = attr->wq_type,
		.user_handle = (uintptr_t)wq,
		.pd_handle = attr->pd->handle,
		.cq_handle = attr->cq->handle,
		.max_wr = attr->max_wr,
		.max_sge = attr->max_sge,
		.create_flags = flags,
	};
	struct ib_uverbs_ex_create_wq_resp resp;
	int ret;

	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_WQ,
			 &req, sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	attr->max_wr = resp.max_wr;
	attr->max_sge = resp.max_sge;
	init_wq(wq, resp.wq_handle, resp.wqn);
	return 0;
}

int verbs_cmd_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr,
			struct ibv_wq *wq, const struct verbs_udata *udata)
{
	uint32_t flags = (attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) ? attr->create_flags : 0;
	int ret;

	/* Set before the command, as upstream's helper does: a provider may
	 * look at them while the WQ is being made. */
	wq->context = ctx;
	wq->cq = attr->cq;
	wq->pd = attr->pd;
	wq->wq_type = attr->wq_type;
	if (vcmd_use_ioctl(ctx, VCMD_CREATE_WQ)) {
		ret = create_wq_ioctl(ctx, attr, flags, wq, udata);
		if (!vcmd_fall_back(ctx, VCMD_CREATE_WQ, &ret))
			return ret;
	}
	return create_wq_write(ctx, attr, flags, wq, udata);
}

int verbs_cmd_modify_wq(struct ibv_wq *wq, const struct ibv_wq_attr *attr,
			const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_modify_wq req = {
		.attr_mask = attr->attr_mask,
		.wq_handle = wq->handle,
		.wq_state = attr->wq_state,
		.curr_wq_state = attr->curr_wq_state,
		.flags = attr->flags,
		.flags_mask = attr->flags_mask,
	};
	int ret;

	ret = vcmd_write(wq->context, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_WQ,
			 &req, sizeof(req), NULL, 0, udata);
	if (!ret && (attr->attr_mask & IBV_WQ_ATTR_STATE))
		wq->state = attr->wq_state;
	return ret;
}

int verbs_cmd_destroy_wq(struct ibv_wq *wq)
{
	const struct vcmd_event_count events = {
		&wq->mutex, &wq->cond, &wq->events_completed
	};

	return vcmd_destroy_tracked(wq->context, VCMD_DESTROY_WQ, UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY,
				    wq->handle, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_WQ, &events);
}

int verbs_cmd_create_rwq_ind_table(struct ibv_context *ctx,
				   const struct ibv_rwq_ind_table_init_attr *attr,
				   struct ibv_rwq_ind_table *table,
				   const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_create_rwq_ind_table *req;
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp;
	size_t entries, len;
	int ret;

	/* The kernel's own limit; larger sizes would only be refused later. */
	if (attr->log_ind_tbl_size > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE)
		return EINVAL;
	entries = (size_t)1 << attr->log_ind_tbl_size;
	/* Extended requests are counted in 8-byte words. */
	len = (sizeof(*req) + entries * sizeof(req->wq_handles[0]) + 7) & ~(size_t)7;
	req = calloc(1, len);
	if (!req)
		return ENOMEM;
	req->log_ind_tbl_size = attr->log_ind_tbl_size;
	for (size_t i = 0; i < entries; i++)
		req->wq_handles[i] = attr->ind_tbl[i]->handle;
	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
			 req, len, &resp, sizeof(resp), udata);
	free(req);
	if (ret)
		return ret;
	/* A kernel answering less than this has not told the handle. */
	if (resp.response_length < sizeof(resp))
		return EINVAL;
	table->context = ctx;
	table->ind_tbl_handle = resp.ind_tbl_handle;
	table->ind_tbl_num = resp.ind_tbl_num;
	return 0;
}

int verbs_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	return vcmd_destroy(table->context, VCMD_DESTROY_RWQ_IND_TBL, UVERBS_OBJECT_RWQ_IND_TBL,
			    UVERBS_METHOD_RWQ_IND_TBL_DESTROY, table->ind_tbl_handle,
			    IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL);
}
