/* SPDX-License-Identifier: MIT */
/*
 * rdma_cm ids: the kernel's handle and what the library keeps beside it.
 * An id created without a channel gets a private one and is synchronous:
 * each call that starts something waits for the event that ends it.  The
 * kernel's uid of an id is its address, so events find their id.
 */
#include <stdlib.h>

#include "internal.h"

static int id_alloc(struct rdma_event_channel *channel, void *context,
		    enum rdma_port_space ps, enum ibv_qp_type qp_type,
		    struct cma_id **out)
{
	struct cma_id *id;

	id = calloc(1, sizeof(*id));
	if (!id)
		return ENOMEM;
	if (!channel) {
		channel = rdma_create_event_channel();
		if (!channel) {
			/* never 0: callers read *out whenever this returns 0
			 * (gcc -O3 warns that errno could be) */
			int err = errno ? errno : ENOMEM;

			free(id);
			return err;
		}
		id->sync = true;
	}
	id->id.channel = channel;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = qp_type;
	pthread_mutex_init(&id->lock, NULL);
	pthread_cond_init(&id->cond, NULL);
	*out = id;
	return 0;
}

void cma_id_free(struct cma_id *id)
{
	cma_detach_device(id);
	if (id->sync)
		rdma_destroy_event_channel(id->id.channel);
	free(id->id.route.path_rec);
	pthread_cond_destroy(&id->cond);
	pthread_mutex_destroy(&id->lock);
	free(id);
}

int cma_id_create(struct rdma_event_channel *channel, void *context,
		  enum rdma_port_space ps, enum ibv_qp_type qp_type,
		  struct cma_id **out)
{
	struct cma_id *id;
	int ret;

	ret = id_alloc(channel, context, ps, qp_type, &id);
	if (ret)
		return ret;
	ret = ucma_create_id(id->id.channel->fd, cma_id_uid(id), ps, qp_type, &id->handle);
	if (ret) {
		cma_id_free(id);
		return ret;
	}
	*out = id;
	return 0;
}

/* Moves id to channel (a new private one when NULL), once the kernel
 * moved it and the events it reported on the old one are acked. */
static int migrate(struct cma_id *id, struct rdma_event_channel *channel)
{
	struct rdma_event_channel *old = id->id.channel;
	bool sync = !channel;
	uint32_t reported;
	int ret;

	if (sync) {
		channel = rdma_create_event_channel();
		if (!channel)
			return errno;
	}
	ret = ucma_migrate_id(channel->fd, id->handle, old->fd, &reported);
	if (ret) {
		if (sync)
			rdma_destroy_event_channel(channel);
		return ret;
	}
	if (id->sync) {
		if (id->id.event)
			rdma_ack_cm_event(id->id.event);
		id->id.event = NULL;
	}
	pthread_mutex_lock(&id->lock);
	while (id->events_completed < reported)
		pthread_cond_wait(&id->cond, &id->lock);
	if (id->sync)
		rdma_destroy_event_channel(old);
	id->sync = sync;
	id->id.channel = channel;
	pthread_mutex_unlock(&id->lock);
	return 0;
}

int cma_id_from_request(struct cma_id *listen, uint32_t handle, struct cma_id **out)
{
	struct cma_id *id;
	int ret;

	ret = id_alloc(listen->id.channel, listen->id.context, listen->id.ps,
		       listen->id.qp_type, &id);
	if (ret)
		return ret;
	id->handle = handle;
	id->listen = listen;
	if (listen->sync) {
		/* Not sync yet: the listener's channel is not id's to close. */
		ret = migrate(id, NULL);
		if (ret) {
			cma_id_free(id);
			return ret;
		}
	}
	*out = id;
	return 0;
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		   void *context, enum rdma_port_space ps)
{
	enum ibv_qp_type qp_type = ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ?
				   IBV_QPT_UD : IBV_QPT_RC;
	struct cma_id *created;
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = cma_id_create(channel, context, ps, qp_type, &created);
	if (ret)
		return cma_fail(ret);
	*id = &created->id;
	return 0;
}

static int destroy(struct cma_id *id)
{
	uint32_t reported;
	int ret;

	/* CQs a failed rdma_destroy_qp/_srq left; nothing is gone yet if
	 * they fail again, so the caller can retry */
	if (!id->id.qp && !id->id.srq) {
		ret = cma_destroy_cqs(&id->id);
		if (ret)
			return ret;
	}
	ret = ucma_destroy_id(id->id.channel->fd, id->handle, &reported);
	if (ret)
		return ret;
	if (id->id.event)
		rdma_ack_cm_event(id->id.event);
	pthread_mutex_lock(&id->lock);
	while (id->events_completed < reported)
		pthread_cond_wait(&id->cond, &id->lock);
	pthread_mutex_unlock(&id->lock);
	cma_mcast_free_all(id);
	cma_id_free(id);
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = destroy(cma_id_of(id));
	return ret ? cma_fail(ret) : 0;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = migrate(cma_id_of(id), channel);
	return ret ? cma_fail(ret) : 0;
}

/* The errno a synchronous call returns for the event that ended it. */
static int sync_error(const struct rdma_cm_event *event, enum rdma_cm_event_type expected)
{
	if (event->event == RDMA_CM_EVENT_REJECTED)
		return ECONNREFUSED;
	if (event->status < 0)
		return -event->status;
	if (event->status > 0)
		return event->status;
	return event->event == expected ? 0 : EPROTO;
}

int cma_sync_wait(struct cma_id *id, enum rdma_cm_event_type expected)
{
	if (id->id.event) {
		rdma_ack_cm_event(id->id.event);
		id->id.event = NULL;
	}
	if (rdma_get_cm_event(id->id.channel, &id->id.event))
		return errno;
	return sync_error(id->id.event, expected);
}
