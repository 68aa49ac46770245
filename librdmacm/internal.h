/* SPDX-License-Identifier: MIT */
/*
 * What librdmacm's files share.  Conventions: internal functions return 0
 * or a positive errno; a public function turns that into its documented
 * form (-1 with errno, or NULL with errno) with cma_fail()/cma_fail_null()
 * and nowhere else.  Public objects are embedded in private ones and found
 * again with container_of.
 */
#ifndef OPENVERBS_RDMACM_INTERNAL_H
#define OPENVERBS_RDMACM_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "ucma.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline int cma_fail(int err)
{
	errno = err;
	return -1;
}

static inline void *cma_fail_null(int err)
{
	errno = err;
	return NULL;
}

/* A verbs device as rdma_cm ids share it: the context is opened when the
 * first id lands on the device and kept for the process's life, as
 * upstream does (rdma_get_devices() hands the same contexts out). */
struct cma_device {
	struct ibv_device *dev;
	uint64_t guid;			/* network order */
	struct ibv_context *verbs;	/* NULL until first used */
	struct ibv_pd *pd;		/* the default PD of ids that bring none */
	int pd_refs;
	uint8_t max_initiator_depth;
	uint8_t max_responder_resources;
	bool removed;			/* a DEVICE_REMOVAL event named it */
};

struct cma_multicast;

/* An rdma_cm_id and what the library keeps beside it. */
struct cma_id {
	struct rdma_cm_id id;
	uint32_t handle;		/* the kernel's */
	struct cma_device *dev;		/* NULL until bound to a device */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t events_completed;	/* acked: destroy waits for all */
	bool sync;			/* no user channel: calls wait for their event */
	bool connect_error;
	uint8_t initiator_depth;
	uint8_t responder_resources;
	struct ibv_ece local_ece;
	struct ibv_ece remote_ece;
	struct cma_multicast *mc_list;
	struct cma_id *listen;		/* the listener a request came on */
};

static inline struct cma_id *cma_id_of(struct rdma_cm_id *id)
{
	return container_of(id, struct cma_id, id);
}

struct cma_multicast {
	struct cma_multicast *next;
	struct cma_id *owner;
	void *context;
	uint32_t handle;		/* the kernel's */
	uint32_t join_flags;
	uint32_t events_completed;
	pthread_cond_t cond;
	struct sockaddr_storage addr;
	union ibv_gid mgid;
	uint16_t mlid;
};

/* An event handed to the user: rdma_ack_cm_event() frees it. */
struct cma_event {
	struct rdma_cm_event event;
	struct cma_id *id;
	struct cma_multicast *mc;
	struct ucma_event kernel;	/* private data lives here */
};

static inline struct cma_event *cma_event_of(struct rdma_cm_event *event)
{
	return container_of(event, struct cma_event, event);
}

#endif
