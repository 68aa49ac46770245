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
/* Built with -fvisibility=hidden: what the public headers declare gets
 * default visibility, and the version script generated from ABI.symvers
 * decides what is really exported.  Include this file first. */
#pragma GCC visibility push(default)
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#pragma GCC visibility pop

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
	struct ibv_pd *pd;		/* every attached id's default PD */
	int pd_refs;
	int refs;			/* ids attached */
	uint8_t max_initiator_depth;
	uint8_t max_responder_resources;
	struct ibv_xrcd *xrcd;		/* for XRC ids that bring none */
	/* A DEVICE_REMOVAL event named it, or a rescan no longer found it:
	 * its context is closed when the last id leaves, so that the kernel
	 * can finish the removal, and no new id lands on it. */
	bool removed;
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
	/* rdma_create_ep() on a passive id: the QP rdma_get_request() gives
	 * each new connection (with id.pd). */
	bool has_request_qp;
	struct ibv_qp_init_attr request_qp_attr;
};

static inline struct cma_id *cma_id_of(struct rdma_cm_id *id)
{
	return container_of(id, struct cma_id, id);
}

/* The kernel's uid of an id, which its events carry back: its address. */
static inline uint64_t cma_id_uid(const struct cma_id *id)
{
	return (uintptr_t)id;
}

static inline struct cma_id *cma_id_by_uid(uint64_t uid)
{
	return (struct cma_id *)(uintptr_t)uid;
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
	bool attached;			/* the owner's QP, to mgid/mlid */
};

/* An event handed to the user: rdma_ack_cm_event() frees it. */
struct cma_event {
	struct rdma_cm_event event;
	/* The id the kernel counted the event for: the listener, for a
	 * CONNECT_REQUEST (whose new id is event.id). */
	struct cma_id *id;
	struct cma_multicast *mc;
	struct ucma_event kernel;	/* private data lives here */
};

static inline struct cma_event *cma_event_of(struct rdma_cm_event *event)
{
	return container_of(event, struct cma_event, event);
}

/*
 * Who calls whom across files.  Owners: device.c, id.c, event.c, mcast.c
 * (cm-core); addr.c, conn.c, qp.c (cm-conn).
 */

/* device.c: attach id to the device with this node GUID (rescanning for
 * devices added since), opening its context on first use: sets
 * id->dev, id->id.verbs and id->id.pd (the device's default PD, which
 * lives while ids are attached). */
int cma_attach_device(struct cma_id *id, uint64_t guid);
/* The id leaves its device (if any): the last id of a removed device
 * closes its context. */
void cma_detach_device(struct cma_id *id);
void cma_device_removed(struct cma_device *dev);
/* 0 once libibverbs has listed an RDMA device (scanning until it has:
 * upstream's channels need one, and it does not look again either). */
int cma_need_device(void);
/* The device's XRC domain, for XRC ids that bring none: opened on first
 * need, it lives as long as the device's context. */
int cma_device_xrcd(struct cma_device *dev, struct ibv_xrcd **xrcd);

/* id.c: a new id on channel (a private one when NULL: a synchronous id). */
int cma_id_create(struct rdma_event_channel *channel, void *context,
		  enum rdma_port_space ps, enum ibv_qp_type qp_type,
		  struct cma_id **out);
/* The id the kernel made for a connection request on listen, with its
 * handle: on listen's channel, or a private one if listen is synchronous. */
int cma_id_from_request(struct cma_id *listen, uint32_t handle, struct cma_id **out);
/* Frees what cma_id_create made, after the kernel's id is gone. */
void cma_id_free(struct cma_id *id);
/* For a synchronous id: waits for its next event, which must be expected
 * (else the event's status, or ECONNREFUSED/ETIMEDOUT/... as upstream
 * maps it); the event stays in id->id.event until the next call acks it. */
int cma_sync_wait(struct cma_id *id, enum rdma_cm_event_type expected);

/* addr.c: refresh id->id.route.addr, id->id.port_num and the device
 * binding from the kernel (after bind, address resolution, or on a new
 * connection's id); and the path records after route resolution. */
int cma_query_addr(struct cma_id *id);
int cma_query_route(struct cma_id *id);

/* conn.c: what the library does on a connection event before the user
 * sees it (QP transitions, RTU, ECE, conn param defaults).  It may change
 * the event (e.g. a CONNECT_RESPONSE becomes ESTABLISHED, a failed QP
 * transition becomes CONNECT_ERROR).  On a CONNECT_REQUEST, event.id is
 * the new id.  Returns 0, or ECANCELED for an event the user must not
 * see (the REJECTED or DISCONNECTED that follows a CONNECT_ERROR the
 * library reported): the caller acks it and reads the next. */
int cma_conn_event(struct cma_event *evt);

/* qp.c: move the id's QP (if any) to a state with the kernel's
 * attributes for it; ERR on disconnect. */
int cma_modify_qp(struct cma_id *id, enum ibv_qp_state state);
/* INIT, RTR, RTS for a connection; RDMA_MAX_RESP_RES/_INIT_DEPTH keep the
 * kernel's read/atomic depths, other values replace them. */
int cma_qp_connect(struct cma_id *id, uint8_t responder_resources,
		   uint8_t initiator_depth);
/* Destroys the CQs and channels the library made for the id; what the
 * kernel would not destroy stays in the id, the first error returned. */
int cma_destroy_cqs(struct rdma_cm_id *id);

/* mcast.c: the multicast events' processing (UD address handle data,
 * the QP's attachment); an error turns a join into MULTICAST_ERROR. */
int cma_mcast_event(struct cma_event *evt);
/* The id's joins, after the kernel forgot them with the id. */
void cma_mcast_free_all(struct cma_id *id);

/* addrinfo.c: where the ibacm service listens (the unit tests move it). */
struct cma_acm_paths {
	const char *port_file;		/* its TCP port on loopback, if it has one */
	const char *socket;		/* else this unix socket */
};
extern struct cma_acm_paths cma_acm_paths;

#endif
