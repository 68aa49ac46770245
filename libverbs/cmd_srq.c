/* SPDX-License-Identifier: MIT */
/* Kernel commands for shared receive queues. */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "cmd.h"

static void init_srq(struct ibv_srq *srq, struct ibv_context *ctx,
		     const struct ibv_srq_init_attr_ex *attr, uint32_t handle)
{
	srq->context = ctx;
	srq->srq_context = attr->srq_context;
	srq->pd = attr->pd;
	srq->handle = handle;
	srq->events_completed = 0;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
}

static int create_srq_ioctl(struct ibv_context *ctx, struct ibv_srq *srq,
			    struct ibv_srq_init_attr_ex *attr,
			    const struct verbs_udata *udata)
{
	struct ib_uverbs_attr *handle;
	uint32_t max_wr, max_sge;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE);
	handle = vioctl_new(&c, UVERBS_ATTR_CREATE_SRQ_HANDLE);
	vioctl_idr(&c, UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, attr->pd->handle);
	vioctl_const(&c, UVERBS_ATTR_CREATE_SRQ_TYPE, IB_UVERBS_SRQT_BASIC);
	vioctl_in_u64(&c, UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, (uintptr_t)srq);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_SRQ_MAX_WR, attr->attr.max_wr);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_SRQ_MAX_SGE, attr->attr.max_sge);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_SRQ_LIMIT, attr->attr.srq_limit);
	vioctl_out(&c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, &max_wr, sizeof(max_wr));
	vioctl_out(&c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, &max_sge, sizeof(max_sge));
	vioctl_udata(&c, udata);
	ret = vioctl_exec(ctx, &c);
	if (ret)
		return ret;
	attr->attr.max_wr = max_wr;
	attr->attr.max_sge = max_sge;
	init_srq(srq, ctx, attr, vioctl_result(handle));
	return 0;
}

int vcmd_create_srq(struct ibv_context *ctx, struct ibv_srq *srq,
		    struct ibv_srq_init_attr_ex *attr, const struct verbs_udata *udata)
{
	struct ib_uverbs_create_srq req;
	struct ib_uverbs_create_srq_resp resp;
	int ret;

	/* XRC and tag-matching SRQs need XRC domains and TM support, which
	 * this library does not have yet. */
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC))
		return EOPNOTSUPP;
	if (vcmd_use_ioctl(ctx, VCMD_CREATE_SRQ)) {
		ret = create_srq_ioctl(ctx, srq, attr, udata);
		if (!vcmd_fall_back(ctx, VCMD_CREATE_SRQ, &ret))
			return ret;
	}
	req = (struct ib_uverbs_create_srq){
		.user_handle = (uintptr_t)srq,
		.pd_handle = attr->pd->handle,
		.max_wr = attr->attr.max_wr,
		.max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
	};
	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_CREATE_SRQ, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	attr->attr.max_wr = resp.max_wr;
	attr->attr.max_sge = resp.max_sge;
	init_srq(srq, ctx, attr, resp.srq_handle);
	return 0;
}

int verbs_cmd_create_srq(struct ibv_context *ctx, struct verbs_srq *srq,
			 struct ibv_srq_init_attr_ex *attr,
			 const struct verbs_udata *udata)
{
	int ret = vcmd_create_srq(ctx, &srq->srq, attr, udata);

	if (!ret)
		srq->srq_type = IBV_SRQT_BASIC;
	return ret;
}

int verbs_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			 int mask, const struct verbs_udata *udata)
{
	struct ib_uverbs_modify_srq req = {
		.srq_handle = srq->handle,
		.attr_mask = mask,
		.max_wr = attr->max_wr,
		.srq_limit = attr->srq_limit,
	};

	return vcmd_write(srq->context, IB_USER_VERBS_CMD_MODIFY_SRQ, &req,
			  sizeof(req), NULL, 0, udata);
}

int verbs_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ib_uverbs_query_srq req = { .srq_handle = srq->handle };
	struct ib_uverbs_query_srq_resp resp;
	int ret;

	ret = vcmd_write(srq->context, IB_USER_VERBS_CMD_QUERY_SRQ, &req,
			 sizeof(req), &resp, sizeof(resp), NULL);
	if (ret)
		return ret;
	attr->max_wr = resp.max_wr;
	attr->max_sge = resp.max_sge;
	attr->srq_limit = resp.srq_limit;
	return 0;
}

int verbs_cmd_destroy_srq(struct ibv_srq *srq)
{
	struct ib_uverbs_destroy_srq req = { .srq_handle = srq->handle };
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ibv_context *ctx = srq->context;
	int ret;

	if (vcmd_use_ioctl(ctx, VCMD_DESTROY_SRQ)) {
		struct vioctl c;

		vioctl_init(&c, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY);
		vioctl_idr(&c, UVERBS_ATTR_DESTROY_SRQ_HANDLE, srq->handle);
		vioctl_out(&c, UVERBS_ATTR_DESTROY_SRQ_RESP, &resp, sizeof(resp));
		ret = vioctl_exec(ctx, &c);
		if (!vcmd_fall_back(ctx, VCMD_DESTROY_SRQ, &ret))
			goto done;
	}
	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_DESTROY_SRQ, &req, sizeof(req),
			 &resp, sizeof(resp), NULL);
done:
	if (ret)
		return vcmd_destroy_result(ret);
	/* Unacknowledged async events still point at the SRQ. */
	pthread_mutex_lock(&srq->mutex);
	while (srq->events_completed != resp.events_reported)
		pthread_cond_wait(&srq->cond, &srq->mutex);
	pthread_mutex_unlock(&srq->mutex);
	return 0;
}
