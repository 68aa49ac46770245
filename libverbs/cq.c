/* SPDX-License-Identifier: MIT */
/*
 * Completion channels and completion queues.  Events name their CQ by the
 * pointer given to the kernel at creation; ibv_destroy_cq() waits until
 * every event it reported has been acknowledged (verbs_cmd_destroy_cq).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *channel = calloc(1, sizeof(*channel));
	int ret;

	if (!channel)
		return NULL;
	ret = vcmd_create_comp_channel(context, &channel->fd);
	if (ret) {
		free(channel);
		errno = ret;
		return NULL;
	}
	channel->context = context;
	return channel;
}

/* A channel's references are its CQs, counted under the context's lock
 * from before the provider creates a CQ on it: a concurrent destroy sees
 * the CQ being made and refuses. */
int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *ctx = channel->context;
	int busy;

	pthread_mutex_lock(&ctx->mutex);
	busy = channel->refcnt;
	pthread_mutex_unlock(&ctx->mutex);
	if (busy)
		return EBUSY;
	close(channel->fd);
	free(channel);
	return 0;
}

static void channel_ref(struct ibv_comp_channel *channel, int delta)
{
	if (!channel)
		return;
	pthread_mutex_lock(&channel->context->mutex);
	channel->refcnt += delta;
	pthread_mutex_unlock(&channel->context->mutex);
}

void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *ctx,
		   struct ibv_comp_channel *channel, void *cq_context)
{
	cq->context = ctx;
	cq->channel = channel;
	channel_ref(channel, 1);
	cq->cq_context = cq_context;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	const struct verbs_ops *ops = verbs_ops(context);
	struct ibv_cq *cq;

	if (!ops->create_cq) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* While the CQ is made; then verbs_init_cq() counts it. */
	channel_ref(channel, 1);
	cq = ops->create_cq(context, cqe, channel, comp_vector);
	if (cq)
		verbs_init_cq(cq, context, channel, cq_context);
	channel_ref(channel, -1);
	return cq;
}

struct ibv_cq_ex *verbs_create_cq_ex(struct ibv_context *ctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	const struct verbs_ops *ops = verbs_ops(ctx);
	struct ibv_cq_ex *cq;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!ops->create_cq_ex) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	channel_ref(attr->channel, 1);
	cq = ops->create_cq_ex(ctx, attr);
	if (cq)
		verbs_init_cq(ibv_cq_ex_to_cq(cq), ctx, attr->channel, attr->cq_context);
	channel_ref(attr->channel, -1);
	return cq;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	const struct verbs_ops *ops = verbs_ops(cq->context);

	return ops->resize_cq ? ops->resize_cq(cq, cqe) : EOPNOTSUPP;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	const struct verbs_ops *ops = verbs_ops(cq->context);
	struct ibv_comp_channel *channel = cq->channel;
	int ret;

	if (!ops->destroy_cq)
		return EOPNOTSUPP;
	ret = ops->destroy_cq(cq);
	if (!ret)
		channel_ref(channel, -1);
	return ret;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	struct ib_uverbs_comp_event_desc desc;
	const struct verbs_ops *ops;
	ssize_t n;

	do
		n = read(channel->fd, &desc, sizeof(desc));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(desc)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	vcmd_mark_defined(&desc, sizeof(desc));
	*cq = (struct ibv_cq *)(uintptr_t)desc.cq_handle;
	*cq_context = (*cq)->cq_context;
	ops = verbs_ops((*cq)->context);
	if (ops->cq_event)
		ops->cq_event(*cq);
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}
