/* SPDX-License-Identifier: MIT */
/* Kernel commands for shared receive queues. */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "cmd.h"

/* The SRQ the kernel made; attr learns the capacities it granted. */
static void init_srq(struct ibv_srq *srq, struct ibv_context *ctx,
		     struct ibv_srq_init_attr_ex *attr, uint32_t handle,
		     uint32_t max_wr, uint32_t max_sge)
{
	attr->attr.max_wr = max_wr;
	attr->attr.max_sge = max_sge;
	srq->context = ctx;
	srq->srq_context = attr->srq_context;
	srq->pd = attr->pd;
	srq->handle = handle;
	srq->events_completed = 0;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
}

static enum ibv_srq_type srq_type(const struct ibv_srq_init_attr_ex *attr)
{
	return (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) ? attr->srq_type : IBV_SRQT_BASIC;
}

static struct ibv_cq *srq_cq(const struct ibv_srq_init_attr_ex *attr)
{
	return (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) ? attr->cq : NULL;
}

/* XRC SRQs belong to a domain, named by the handle the core keeps in
 * verbs_xrcd (upstream's layout, which the plugins allocate). */
static struct verbs_xrcd *srq_xrcd(const struct ibv_srq_init_attr_ex *attr)
{
	if (srq_type(attr) != IBV_SRQT_XRC || !(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) ||
	    !attr->xrcd)
		return NULL;
	return container_of(attr->xrcd, struct verbs_xrcd, xrcd);
}

static uint32_t srq_tags(const struct ibv_srq_init_attr_ex *attr)
{
	if (srq_type(attr) != IBV_SRQT_TM || !(attr->comp_mask & IBV_SRQ_INIT_ATTR_TM))
		return 0;
	return attr->tm_cap.max_num_tags;
}

static int create_srq_ioctl(struct ibv_context *ctx, struct ibv_srq *srq,
			    struct ibv_srq_init_attr_ex *attr, uint32_t *srq_num,
			    const struct verbs_udata *udata)
{
	struct verbs_xrcd *xrcd = srq_xrcd(attr);
	struct ib_uverbs_attr *handle;
	uint32_t max_wr, max_sge;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE);
	handle = vioctl_new(&c, UVERBS_ATTR_CREATE_SRQ_HANDLE);
	vioctl_idr(&c, UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, attr->pd->handle);
	vioctl_const(&c, UVERBS_ATTR_CREATE_SRQ_TYPE, srq_type(attr));
	vioctl_in_u64(&c, UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, (uintptr_t)srq);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_SRQ_MAX_WR, attr->attr.max_wr);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_SRQ_MAX_SGE, attr->attr.max_sge);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_SRQ_LIMIT, attr->attr.srq_limit);
	if (xrcd)
		vioctl_idr(&c, UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE, xrcd->handle);
	if (srq_cq(attr))
		vioctl_idr(&c, UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, srq_cq(attr)->handle);
	if (srq_type(attr) == IBV_SRQT_TM)
		vioctl_in_u32(&c, UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, srq_tags(attr));
	vioctl_out(&c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, &max_wr, sizeof(max_wr));
	vioctl_out(&c, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, &max_sge, sizeof(max_sge));
	if (xrcd)
		vioctl_out(&c, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, srq_num, sizeof(*srq_num));
	vioctl_udata(&c, udata);
	ret = vioctl_exec(ctx, &c);
	if (ret)
		return ret;
	init_srq(srq, ctx, attr, vioctl_result(handle), max_wr, max_sge);
	return 0;
}

/* XRC and tag-matching SRQs: CREATE_XSRQ, the basic request plus type,
 * domain, CQ and tag count. */
static int create_xsrq_write(struct ibv_context *ctx, struct ibv_srq *srq,
			     struct ibv_srq_init_attr_ex *attr, uint32_t *srq_num,
			     const struct verbs_udata *udata)
{
	struct verbs_xrcd *xrcd = srq_xrcd(attr);
	struct ib_uverbs_create_xsrq req = {
		.user_handle = (uintptr_t)srq,
		.srq_type = srq_type(attr),
		.pd_handle = attr->pd->handle,
		.max_wr = attr->attr.max_wr,
		.max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
		.max_num_tags = srq_tags(attr),
		.xrcd_handle = xrcd ? xrcd->handle : 0,
		.cq_handle = srq_cq(attr) ? srq_cq(attr)->handle : 0,
	};
	struct ib_uverbs_create_srq_resp resp;
	int ret;

	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_CREATE_XSRQ, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	*srq_num = resp.srqn;
	init_srq(srq, ctx, attr, resp.srq_handle, resp.max_wr, resp.max_sge);
	return 0;
}

static int create_srq(struct ibv_context *ctx, struct ibv_srq *srq,
		      struct ibv_srq_init_attr_ex *attr, uint32_t *srq_num,
		      const struct verbs_udata *udata)
{
	struct ib_uverbs_create_srq req;
	struct ib_uverbs_create_srq_resp resp;
	int ret;

	*srq_num = 0;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (vcmd_use_ioctl(ctx, VCMD_CREATE_SRQ)) {
		ret = create_srq_ioctl(ctx, srq, attr, srq_num, udata);
		if (!vcmd_fall_back(ctx, VCMD_CREATE_SRQ, &ret))
			return ret;
	}
	if (srq_type(attr) != IBV_SRQT_BASIC)
		return create_xsrq_write(ctx, srq, attr, srq_num, udata);
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
	init_srq(srq, ctx, attr, resp.srq_handle, resp.max_wr, resp.max_sge);
	return 0;
}

int vcmd_create_srq(struct ibv_context *ctx, struct ibv_srq *srq,
		    struct ibv_srq_init_attr_ex *attr, const struct verbs_udata *udata)
{
	uint32_t srq_num;

	return create_srq(ctx, srq, attr, &srq_num, udata);
}

/* XRC and tag-matching SRQs come only from plugins of NICs that have them
 * (mlx5, hns, ...): rxe and siw refuse them before asking the kernel. */
int verbs_cmd_create_srq(struct ibv_context *ctx, struct verbs_srq *vsrq,
			 struct ibv_srq_init_attr_ex *attr,
			 const struct verbs_udata *udata)
{
	uint32_t srq_num;
	int ret;

	ret = create_srq(ctx, &vsrq->srq, attr, &srq_num, udata);
	if (ret)
		return ret;
	vsrq->srq_type = srq_type(attr);
	if (srq_xrcd(attr)) {
		vsrq->xrcd = srq_xrcd(attr);
		vsrq->srq_num = srq_num;
	}
	if (srq_cq(attr))
		vsrq->cq = srq_cq(attr);
	return 0;
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
	const struct vcmd_event_count events = {
		&srq->mutex, &srq->cond, &srq->events_completed
	};

	return vcmd_destroy_tracked(srq->context, VCMD_DESTROY_SRQ, UVERBS_OBJECT_SRQ,
				    UVERBS_METHOD_SRQ_DESTROY, srq->handle,
				    IB_USER_VERBS_CMD_DESTROY_SRQ, &events);
}
