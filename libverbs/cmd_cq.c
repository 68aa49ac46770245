/* SPDX-License-Identifier: MIT */
/* Kernel commands for completion channels and completion queues. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int vcmd_create_comp_channel(struct ibv_context *ctx, int *fd)
{
	struct ib_uverbs_create_comp_channel req = {};
	struct ib_uverbs_create_comp_channel_resp resp;
	int ret;

	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			 sizeof(req), &resp, sizeof(resp), NULL);
	if (!ret)
		*fd = resp.fd;
	return ret;
}

/* The rest is the core's, after the provider returns (verbs_init_cq). */
static void init_cq(struct ibv_cq *cq, struct ibv_context *ctx, uint32_t handle, int cqe)
{
	cq->context = ctx;
	cq->handle = handle;
	cq->cqe = cqe;
}

static int create_cq_ioctl(struct ibv_context *ctx, int cqe,
			   struct ibv_comp_channel *channel, int comp_vector,
			   uint32_t flags, struct ibv_cq *cq,
			   const struct verbs_udata *udata, const struct vioctl_chain *link)
{
	struct ib_uverbs_attr *handle;
	uint32_t resp_cqe;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	handle = vioctl_new(&c, UVERBS_ATTR_CREATE_CQ_HANDLE);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_CQ_CQE, cqe);
	vioctl_in_u64(&c, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, (uintptr_t)cq);
	if (channel)
		vioctl_fd(&c, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, channel->fd);
	vioctl_in_u32(&c, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, comp_vector);
	if (flags)
		vioctl_in_u32(&c, UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
	vioctl_out(&c, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &resp_cqe, sizeof(resp_cqe));
	vioctl_udata(&c, udata);
	vioctl_link(&c, link);
	ret = vioctl_exec(ctx, &c);
	if (!ret)
		init_cq(cq, ctx, vioctl_result(handle), resp_cqe);
	return ret;
}

static int create_cq_write(struct ibv_context *ctx, int cqe,
			   struct ibv_comp_channel *channel, int comp_vector,
			   uint32_t flags, struct ibv_cq *cq,
			   const struct verbs_udata *udata)
{
	int ret;

	if (flags) {
		struct ib_uverbs_ex_create_cq req = {
			.user_handle = (uintptr_t)cq,
			.cqe = cqe,
			.comp_vector = comp_vector,
			.comp_channel = channel ? channel->fd : -1,
			.flags = flags,
		};
		struct ib_uverbs_ex_create_cq_resp resp;

		ret = vcmd_write(ctx, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_CQ, &req, sizeof(req),
				 &resp, sizeof(resp), udata);
		if (!ret)
			init_cq(cq, ctx, resp.base.cq_handle, resp.base.cqe);
	} else {
		struct ib_uverbs_create_cq req = {
			.user_handle = (uintptr_t)cq,
			.cqe = cqe,
			.comp_vector = comp_vector,
			.comp_channel = channel ? channel->fd : -1,
		};
		struct ib_uverbs_create_cq_resp resp;

		ret = vcmd_write(ctx, IB_USER_VERBS_CMD_CREATE_CQ, &req, sizeof(req),
				 &resp, sizeof(resp), udata);
		if (!ret)
			init_cq(cq, ctx, resp.cq_handle, resp.cqe);
	}
	return ret;
}

int vcmd_create_cq(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *channel,
		   int comp_vector, uint32_t flags, struct ibv_cq *cq,
		   const struct verbs_udata *udata, const struct vcmd_cq_ex *ex)
{
	const struct vioctl_chain *link = ex ? ex->link : NULL;
	int ret;

	if (vcmd_use_ioctl(ctx, VCMD_CREATE_CQ)) {
		ret = create_cq_ioctl(ctx, cqe, channel, comp_vector, flags, cq, udata, link);
		if (!vcmd_fall_back(ctx, VCMD_CREATE_CQ, &ret))
			return ret;
	}
	if (ex && ex->ioctl_only)
		return EOPNOTSUPP;
	/* Flags the provider can do without leave the legacy command. */
	if (ex && !(flags & ~ex->write_optional))
		flags = 0;
	return create_cq_write(ctx, cqe, channel, comp_vector, flags, cq, udata);
}

int verbs_cmd_create_cq(struct ibv_context *ctx, int cqe,
			struct ibv_comp_channel *channel, int comp_vector,
			uint32_t flags, struct verbs_cq *cq,
			const struct verbs_udata *udata)
{
	return vcmd_create_cq(ctx, cqe, channel, comp_vector, flags, &cq->cq, udata, NULL);
}

int verbs_cmd_modify_cq(struct ibv_cq *cq, const struct ibv_modify_cq_attr *attr,
			const struct verbs_udata *udata)
{
	struct ib_uverbs_ex_modify_cq req = {
		.cq_handle = cq->handle,
		.attr_mask = attr->attr_mask,
		.attr = {
			.cq_count = attr->moderate.cq_count,
			.cq_period = attr->moderate.cq_period,
		},
	};

	return vcmd_write(cq->context, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_MODIFY_CQ,
			  &req, sizeof(req), NULL, 0, udata);
}

int verbs_cmd_resize_cq(struct ibv_cq *cq, int cqe, const struct verbs_udata *udata)
{
	struct ib_uverbs_resize_cq req = { .cq_handle = cq->handle, .cqe = cqe };
	struct ib_uverbs_resize_cq_resp resp;
	int ret;

	ret = vcmd_write(cq->context, IB_USER_VERBS_CMD_RESIZE_CQ, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (!ret)
		cq->cqe = resp.cqe;
	return ret;
}

int verbs_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct ib_uverbs_req_notify_cq req = {
		.cq_handle = cq->handle,
		.solicited_only = !!solicited_only,
	};

	return vcmd_write(cq->context, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &req,
			  sizeof(req), NULL, 0, NULL);
}

static void wc_from_kern(struct ibv_wc *wc, const struct ib_uverbs_wc *k)
{
	wc->wr_id = k->wr_id;
	wc->status = k->status;
	wc->opcode = k->opcode;
	wc->vendor_err = k->vendor_err;
	wc->byte_len = k->byte_len;
	wc->imm_data = k->ex.imm_data;
	wc->qp_num = k->qp_num;
	wc->src_qp = k->src_qp;
	wc->wc_flags = k->wc_flags;
	wc->pkey_index = k->pkey_index;
	wc->slid = k->slid;
	wc->sl = k->sl;
	wc->dlid_path_bits = k->dlid_path_bits;
}

/* Completions polled this many at a time need no allocation. */
enum { POLL_STACK_WCS = 16 };

int verbs_cmd_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc, int *polled)
{
	struct ib_uverbs_poll_cq req = { .cq_handle = cq->handle };
	uint64_t stack[(sizeof(struct ib_uverbs_poll_cq_resp) +
			POLL_STACK_WCS * sizeof(struct ib_uverbs_wc)) / 8];
	struct ib_uverbs_poll_cq_resp *resp = (void *)stack;
	size_t resp_len;
	int ret;

	if (num_entries < 0)
		return EINVAL;
	req.ne = num_entries;
	resp_len = sizeof(*resp) + (size_t)num_entries * sizeof(struct ib_uverbs_wc);
	if (num_entries > POLL_STACK_WCS && !(resp = malloc(resp_len)))
		return ENOMEM;
	ret = vcmd_write(cq->context, IB_USER_VERBS_CMD_POLL_CQ, &req, sizeof(req),
			 resp, resp_len, NULL);
	if (!ret) {
		/* The kernel never reports more than it was asked for. */
		*polled = resp->count < (uint32_t)num_entries ? (int)resp->count : num_entries;
		for (int i = 0; i < *polled; i++)
			wc_from_kern(&wc[i], &resp->wc[i]);
	}
	if (resp != (void *)stack)
		free(resp);
	return ret;
}

/* Events the kernel delivered may still be unacknowledged: the memory
 * must outlive them, so wait (ibv_destroy_cq(3)). */
static void wait_cq_events(struct ibv_cq *cq, uint32_t comp, uint32_t async)
{
	pthread_mutex_lock(&cq->mutex);
	while (cq->comp_events_completed != comp || cq->async_events_completed != async)
		pthread_cond_wait(&cq->cond, &cq->mutex);
	pthread_mutex_unlock(&cq->mutex);
}

int verbs_cmd_destroy_cq(struct ibv_cq *cq)
{
	struct ib_uverbs_destroy_cq req = { .cq_handle = cq->handle };
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ibv_context *ctx = cq->context;
	int ret;

	if (vcmd_use_ioctl(ctx, VCMD_DESTROY_CQ)) {
		struct vioctl c;

		vioctl_init(&c, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
		vioctl_idr(&c, UVERBS_ATTR_DESTROY_CQ_HANDLE, cq->handle);
		vioctl_out(&c, UVERBS_ATTR_DESTROY_CQ_RESP, &resp, sizeof(resp));
		ret = vioctl_exec(ctx, &c);
		if (!vcmd_fall_back(ctx, VCMD_DESTROY_CQ, &ret))
			goto done;
	}
	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_DESTROY_CQ, &req, sizeof(req),
			 &resp, sizeof(resp), NULL);
done:
	if (ret)
		return vcmd_destroy_result(ret);
	wait_cq_events(cq, resp.comp_events_reported, resp.async_events_reported);
	return 0;
}
