/* SPDX-License-Identifier: MIT */
/*
 * Events: read from the channel, completed by the library (addresses,
 * routes, new connection ids, QP transitions, multicast attachments)
 * and handed out until acked.  The kernel counts the events it reported
 * per id and per join; destroying either waits until the user acked as
 * many, so no event outlives what it names.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool uid_is_ud(uint64_t uid)
{
	return ((struct cma_id *)(uintptr_t)uid)->id.qp_type == IBV_QPT_UD;
}

static void complete_event(struct cma_event *evt)
{
	struct cma_id *id = evt->id;

	pthread_mutex_lock(&id->lock);
	id->events_completed++;
	pthread_cond_broadcast(&id->cond);
	if (evt->mc) {
		evt->mc->events_completed++;
		pthread_cond_broadcast(&evt->mc->cond);
	}
	pthread_mutex_unlock(&id->lock);
	free(evt);
}

static int setup_connection(struct cma_event *evt, struct cma_id *id)
{
	int ret;

	evt->event.listen_id = &evt->id->id;
	evt->event.id = &id->id;
	ret = cma_query_addr(id);
	if (!ret)
		ret = cma_query_route(id);
	if (!ret)
		ret = cma_conn_event(evt);
	return ret;
}

/* A request's new id, with its addresses, route and device.  One that
 * cannot be set up is destroyed before anyone saw it. */
static int new_connection(struct cma_event *evt)
{
	int fd = evt->id->id.channel->fd;
	struct cma_id *id = NULL;
	uint32_t reported;
	int ret;

	ret = cma_id_from_request(evt->id, evt->kernel.handle, &id);
	if (!ret) {
		fd = id->id.channel->fd;
		ret = setup_connection(evt, id);
	}
	if (ret) {
		ucma_destroy_id(fd, evt->kernel.handle, &reported);
		if (id)
			cma_id_free(id);
	}
	return ret;
}

/* 0: evt is ready for the user; else it is dropped. */
static int process(struct cma_event *evt)
{
	struct rdma_cm_event *e = &evt->event;
	int ret;

	switch (e->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = cma_query_addr(evt->id);
		if (ret) {
			e->event = RDMA_CM_EVENT_ADDR_ERROR;
			e->status = -ret;
		}
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = cma_query_route(evt->id);
		if (ret) {
			e->event = RDMA_CM_EVENT_ROUTE_ERROR;
			e->status = -ret;
		}
		return 0;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return new_connection(evt);
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		ret = cma_mcast_event(evt);
		if (ret) {
			e->event = RDMA_CM_EVENT_MULTICAST_ERROR;
			e->status = -ret;
		}
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (evt->id->dev)
			cma_device_removed(evt->id->dev);
		return 0;
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		return cma_conn_event(evt);
	}
}

/* One event from the kernel, with the ids it names. */
static int read_event(struct rdma_event_channel *channel, struct cma_event **out)
{
	struct cma_event *evt;
	struct ucma_event *k;
	int ret;

	evt = calloc(1, sizeof(*evt));
	if (!evt)
		return ENOMEM;
	k = &evt->kernel;
	ret = ucma_get_event(channel->fd, k, uid_is_ud);
	if (ret) {
		free(evt);
		return ret;
	}
	if (k->type == RDMA_CM_EVENT_MULTICAST_JOIN || k->type == RDMA_CM_EVENT_MULTICAST_ERROR) {
		evt->mc = (struct cma_multicast *)(uintptr_t)k->uid;
		evt->id = evt->mc->owner;
	} else {
		evt->id = (struct cma_id *)(uintptr_t)k->uid;
	}
	evt->event.id = &evt->id->id;
	evt->event.event = k->type;
	evt->event.status = k->status;
	memcpy(&evt->event.param, &k->param, sizeof(evt->event.param));
	*out = evt;
	return 0;
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct cma_event *evt;
	int ret;

	if (!channel || !event)
		return cma_fail(EINVAL);
	do {
		ret = read_event(channel, &evt);
		if (ret)
			return cma_fail(ret);
		ret = process(evt);
		if (ret)
			complete_event(evt);
	} while (ret);
	*event = &evt->event;
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (!event)
		return cma_fail(EINVAL);
	complete_event(cma_event_of(event));
	return 0;
}

static const char *const event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	if ((unsigned int)event < sizeof(event_names) / sizeof(event_names[0]))
		return event_names[event];
	return "UNKNOWN EVENT";
}
