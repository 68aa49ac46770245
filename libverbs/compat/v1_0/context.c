// SPDX-License-Identifier: MIT
/*
 * IBVERBS_1.0 contexts, async events and queries (compat-1.0 FACTS 11-15).
 */
#include <stdlib.h>

#include "compat_1_0.h"
#include "internal.h"

struct ibv_context_1_0 *ibv_open_device_1_0(struct ibv_device_1_0 *device)
{
	struct ibv_context_1_0 *context = calloc(1, sizeof(*context));

	if (!context)
		return NULL;
	context->real_context = ibv_open_device(device->real_device);
	if (!context->real_context) {
		free(context);
		return NULL;
	}
	context->device = device;
	/* What old inline data-path calls reach; the other slots were never
	 * called by the 1.0 headers' inlines (FACTS 7). */
	context->ops.poll_cq = compat_1_0_poll_cq;
	context->ops.req_notify_cq = compat_1_0_req_notify_cq;
	context->ops.post_srq_recv = compat_1_0_post_srq_recv;
	context->ops.post_send = compat_1_0_post_send;
	context->ops.post_recv = compat_1_0_post_recv;
	return context;
}
COMPAT_1_0(ibv_open_device_1_0, ibv_open_device);

int ibv_close_device_1_0(struct ibv_context_1_0 *context)
{
	int ret = ibv_close_device(context->real_context);

	if (!ret)
		free(context);
	return ret;
}
COMPAT_1_0(ibv_close_device_1_0, ibv_close_device);

/* The affiliated events' element: the real objects' user context points at
 * their 1.0 wrapper (FACTS 6), which is what a 1.0 program knows.  A 1.0
 * program has no WQs, so their events pass as they are. */
int ibv_get_async_event_1_0(struct ibv_context_1_0 *context, struct ibv_async_event *event)
{
	int ret = ibv_get_async_event(context->real_context, event);

	if (ret)
		return ret;
	switch (verbs_event_element(event->event_type)) {
	case VERBS_ELEMENT_CQ:
		event->element.cq = event->element.cq->cq_context;
		break;
	case VERBS_ELEMENT_QP:
		event->element.qp = event->element.qp->qp_context;
		break;
	case VERBS_ELEMENT_SRQ:
		event->element.srq = event->element.srq->srq_context;
		break;
	case VERBS_ELEMENT_WQ:
	case VERBS_ELEMENT_PORT:
		break;
	}
	return 0;
}
COMPAT_1_0(ibv_get_async_event_1_0, ibv_get_async_event);

void ibv_ack_async_event_1_0(struct ibv_async_event *event)
{
	struct ibv_async_event real = *event;

	switch (verbs_event_element(event->event_type)) {
	case VERBS_ELEMENT_CQ:
		real.element.cq = ((struct ibv_cq_1_0 *)(void *)event->element.cq)->real_cq;
		break;
	case VERBS_ELEMENT_QP:
		real.element.qp = ((struct ibv_qp_1_0 *)(void *)event->element.qp)->real_qp;
		break;
	case VERBS_ELEMENT_SRQ:
		real.element.srq = ((struct ibv_srq_1_0 *)(void *)event->element.srq)->real_srq;
		break;
	case VERBS_ELEMENT_WQ:
	case VERBS_ELEMENT_PORT:
		break;
	}
	ibv_ack_async_event(&real);
}
COMPAT_1_0(ibv_ack_async_event_1_0, ibv_ack_async_event);

int ibv_query_device_1_0(struct ibv_context_1_0 *context, struct ibv_device_attr *attr)
{
	return ibv_query_device(context->real_context, attr);
}
COMPAT_1_0(ibv_query_device_1_0, ibv_query_device);

/* The caller's buffer is taken as a whole current ibv_port_attr (FACTS 15),
 * as upstream does: the public inline's size-aware query. */
int ibv_query_port_1_0(struct ibv_context_1_0 *context, uint8_t port_num,
		       struct ibv_port_attr *attr)
{
	return ibv_query_port(context->real_context, port_num, attr);
}
COMPAT_1_0(ibv_query_port_1_0, ibv_query_port);

int ibv_query_gid_1_0(struct ibv_context_1_0 *context, uint8_t port_num, int index,
		      union ibv_gid *gid)
{
	return ibv_query_gid(context->real_context, port_num, index, gid);
}
COMPAT_1_0(ibv_query_gid_1_0, ibv_query_gid);

int ibv_query_pkey_1_0(struct ibv_context_1_0 *context, uint8_t port_num, int index,
		       __be16 *pkey)
{
	return ibv_query_pkey(context->real_context, port_num, index, pkey);
}
COMPAT_1_0(ibv_query_pkey_1_0, ibv_query_pkey);
