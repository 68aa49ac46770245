// SPDX-License-Identifier: MIT
/*
 * IBVERBS_1.0 completion queues and their events (compat-1.0 FACTS 20-22,
 * 31-32).
 */
#include <stdlib.h>

#include "compat_1_0.h"

struct ibv_cq_1_0 *ibv_create_cq_1_0(struct ibv_context_1_0 *context, int cqe, void *cq_context,
				     struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq_1_0 *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return NULL;
	cq->real_cq = ibv_create_cq(context->real_context, cqe, cq_context, channel, comp_vector);
	if (!cq->real_cq) {
		free(cq);
		return NULL;
	}
	cq->context = context;
	cq->cq_context = cq_context;
	/* what was asked, as upstream: a 1.0 program never saw the grant */
	cq->cqe = cqe;
	/* events name the wrapper (FACTS 6) */
	cq->real_cq->cq_context = cq;
	return cq;
}
COMPAT_1_0(ibv_create_cq_1_0, ibv_create_cq);

int ibv_resize_cq_1_0(struct ibv_cq_1_0 *cq, int cqe)
{
	return ibv_resize_cq(cq->real_cq, cqe);
}
COMPAT_1_0(ibv_resize_cq_1_0, ibv_resize_cq);

int ibv_destroy_cq_1_0(struct ibv_cq_1_0 *cq)
{
	int ret = ibv_destroy_cq(cq->real_cq);

	if (!ret)
		free(cq);
	return ret;
}
COMPAT_1_0(ibv_destroy_cq_1_0, ibv_destroy_cq);

int ibv_get_cq_event_1_0(struct ibv_comp_channel *channel, struct ibv_cq_1_0 **cq,
			 void **cq_context)
{
	struct ibv_cq *real_cq;
	void *wrapper;
	int ret = ibv_get_cq_event(channel, &real_cq, &wrapper);

	if (ret)
		return ret;
	*cq = wrapper;
	*cq_context = (*cq)->cq_context;
	return 0;
}
COMPAT_1_0(ibv_get_cq_event_1_0, ibv_get_cq_event);

void ibv_ack_cq_events_1_0(struct ibv_cq_1_0 *cq, unsigned int nevents)
{
	ibv_ack_cq_events(cq->real_cq, nevents);
}
COMPAT_1_0(ibv_ack_cq_events_1_0, ibv_ack_cq_events);

/* ibv_wc has not changed since 1.0 (FACTS 31). */
int compat_1_0_poll_cq(struct ibv_cq_1_0 *cq, int num_entries, struct ibv_wc *wc)
{
	return cq->context->real_context->ops.poll_cq(cq->real_cq, num_entries, wc);
}

int compat_1_0_req_notify_cq(struct ibv_cq_1_0 *cq, int solicited_only)
{
	return cq->context->real_context->ops.req_notify_cq(cq->real_cq, solicited_only);
}
