/* SPDX-License-Identifier: MIT */
/*
 * Connections: listen, connect, accept, reject, disconnect, and what the
 * library does on the user's behalf when a connection event arrives.
 *
 * On InfiniBand and RoCE the library drives an id's QP: the passive side
 * readies it in rdma_accept(), the active side when the connect response
 * arrives, after which it tells the kernel to send the RTU.  On iWARP the
 * kernel's connection manager moves the QP itself, and the active side
 * sees ESTABLISHED without a connect response.
 */
#include <stdint.h>

#include "internal.h"

/* The retry counts are 3-bit fields: without a caller's choice, retry as
 * long as the protocol allows. */
enum { CMA_DEFAULT_RETRY_COUNT = 7 };

/* The reason the kernel turns into its consumer-defined reject reason. */
enum { CMA_REJECT_CONSUMER = 0 };
/* IBTA's "vendor option not supported": ECE refused. */
enum { CMA_REJECT_ECE = 35 };

static bool is_ud(const struct cma_id *id)
{
	return id->id.qp_type == IBV_QPT_UD;
}

static bool is_iwarp(const struct cma_id *id)
{
	return id->id.verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

static int listen_id(struct cma_id *id, int backlog)
{
	int ret;

	ret = ucma_listen(id->id.channel->fd, id->handle, backlog);
	if (ret)
		return ret;
	/* Listening on a wildcard address binds a port. */
	return cma_query_addr(id);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = listen_id(cma_id_of(id), backlog);
	return ret ? cma_fail(ret) : 0;
}

/* Connected ids check the read/atomic depths against the device; the
 * RDMA_MAX_* values ask for the device's own limits. */
static int check_conn_param(const struct cma_id *id,
			    const struct rdma_conn_param *param)
{
	if (!id->dev)
		return EINVAL;
	if (id->id.ps != RDMA_PS_TCP)
		return 0;
	if (!param)
		return id->id.qp ? 0 : EINVAL;	/* nothing names a QP */
	if (param->responder_resources != RDMA_MAX_RESP_RES &&
	    param->responder_resources > id->dev->max_responder_resources)
		return EINVAL;
	if (param->initiator_depth != RDMA_MAX_INIT_DEPTH &&
	    param->initiator_depth > id->dev->max_initiator_depth)
		return EINVAL;
	return 0;
}

/* What goes to the kernel: the caller's parameters, the id's negotiated
 * depths, and the QP's number when the library manages the QP. */
static void kernel_conn_param(const struct cma_id *id,
			      const struct rdma_conn_param *param,
			      struct rdma_conn_param *out)
{
	if (param) {
		*out = *param;
	} else {
		*out = (struct rdma_conn_param){
			.retry_count = CMA_DEFAULT_RETRY_COUNT,
			.rnr_retry_count = CMA_DEFAULT_RETRY_COUNT,
		};
	}
	if (!out->private_data)
		out->private_data_len = 0;
	out->responder_resources = id->responder_resources;
	out->initiator_depth = id->initiator_depth;
	if (id->id.qp) {
		out->qp_num = id->id.qp->qp_num;
		out->srq = id->id.qp->srq != NULL;
	}
}

/* The ECE offered to the peer: a managed QP's own (when its provider has
 * any), else what the user set. */
/* The ECE offered to the peer.  With a QP it is the provider's, or none
 * when the provider has no ECE (upstream sends none then too); what
 * rdma_set_local_ece() set stands in only for a QP the library does not
 * know. */
static void local_ece(const struct cma_id *id, struct ibv_ece *ece)
{
	if (!id->id.qp)
		*ece = id->local_ece;
	else if (ibv_query_ece(id->id.qp, ece))
		*ece = (struct ibv_ece){ 0 };
}

static enum rdma_cm_event_type connect_completion(const struct cma_id *id)
{
	/* Without a QP on IB, the user completes with rdma_establish(). */
	if (id->id.qp || is_ud(id) || is_iwarp(id))
		return RDMA_CM_EVENT_ESTABLISHED;
	return RDMA_CM_EVENT_CONNECT_RESPONSE;
}

static uint8_t min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* The read/atomic depths the connection uses: the caller's, or these
 * where it leaves the choice to the library (no param, RDMA_MAX_*). */
static void set_depths(struct cma_id *id, const struct rdma_conn_param *param,
		       uint8_t initiator_depth, uint8_t responder_resources)
{
	id->initiator_depth = param && param->initiator_depth != RDMA_MAX_INIT_DEPTH ?
			      param->initiator_depth : initiator_depth;
	id->responder_resources = param && param->responder_resources != RDMA_MAX_RESP_RES ?
				  param->responder_resources : responder_resources;
}

static int connect_id(struct cma_id *id, const struct rdma_conn_param *param)
{
	struct rdma_conn_param kparam;
	struct ibv_ece ece;
	int ret;

	ret = check_conn_param(id, param);
	if (ret)
		return ret;
	set_depths(id, param, id->dev->max_initiator_depth,
		   id->dev->max_responder_resources);
	kernel_conn_param(id, param, &kparam);
	local_ece(id, &ece);
	ret = ucma_connect(id->id.channel->fd, id->handle, &kparam, &ece);
	if (ret)
		return ret;
	return id->sync ? cma_sync_wait(id, connect_completion(id)) : 0;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = connect_id(cma_id_of(id), conn_param);
	return ret ? cma_fail(ret) : 0;
}

static int accept_id(struct cma_id *id, const struct rdma_conn_param *param)
{
	struct rdma_conn_param kparam;
	struct ibv_ece ece;
	int ret;

	ret = check_conn_param(id, param);
	if (ret)
		return ret;
	if (!id->id.qp && !param)
		return EINVAL;		/* no QP number to give the peer */
	/* Left to the library: the request's depths as far as the device
	 * goes. */
	set_depths(id, param,
		   min_u8(id->initiator_depth, id->dev->max_initiator_depth),
		   min_u8(id->responder_resources, id->dev->max_responder_resources));
	if (!is_ud(id)) {
		ret = cma_qp_connect(id, id->responder_resources,
				     id->initiator_depth);
		if (ret)
			return ret;
	}
	kernel_conn_param(id, param, &kparam);
	local_ece(id, &ece);
	ret = ucma_accept(id->id.channel->fd, id->handle, cma_id_uid(id), &kparam, &ece);
	if (ret) {
		cma_modify_qp(id, IBV_QPS_ERR);
		return ret;
	}
	if (is_ud(id) || !id->sync)
		return 0;
	return cma_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = accept_id(cma_id_of(id), conn_param);
	return ret ? cma_fail(ret) : 0;
}

static int reject(struct rdma_cm_id *id, const void *private_data,
		  uint8_t private_data_len, uint8_t reason)
{
	struct cma_id *cid;
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	cid = cma_id_of(id);
	ret = ucma_reject(cid->id.channel->fd, cid->handle, private_data,
			  private_data ? private_data_len : 0, reason);
	return ret ? cma_fail(ret) : 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	return reject(id, private_data, private_data_len, CMA_REJECT_CONSUMER);
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		    uint8_t private_data_len)
{
	return reject(id, private_data, private_data_len, CMA_REJECT_ECE);
}

static int disconnect_id(struct cma_id *id)
{
	int ret;

	if (!id->id.verbs)
		return EINVAL;		/* never connected */
	/* IB flushes the QP's work at once; an iWARP QP drains its send
	 * queue while the kernel closes the stream. */
	ret = cma_modify_qp(id, is_iwarp(id) ? IBV_QPS_SQD : IBV_QPS_ERR);
	if (ret)
		return ret;
	ret = ucma_disconnect(id->id.channel->fd, id->handle);
	if (ret)
		return ret;
	return id->sync ? cma_sync_wait(id, RDMA_CM_EVENT_DISCONNECTED) : 0;
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = disconnect_id(cma_id_of(id));
	return ret ? cma_fail(ret) : 0;
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct cma_id *cid;
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	cid = cma_id_of(id);
	ret = ucma_notify(cid->id.channel->fd, cid->handle, event);
	return ret ? cma_fail(ret) : 0;
}

/* The active side's half after a connect response: ready the QP, then
 * an accept without parameters makes the kernel send the RTU. */
static int complete_connect(struct cma_id *id)
{
	int ret;

	ret = cma_qp_connect(id, RDMA_MAX_RESP_RES, RDMA_MAX_INIT_DEPTH);
	if (!ret)
		ret = ucma_accept(id->id.channel->fd, id->handle, cma_id_uid(id),
				  NULL, NULL);
	if (ret)
		cma_modify_qp(id, IBV_QPS_ERR);
	return ret;
}

int rdma_establish(struct rdma_cm_id *id)
{
	int ret;

	if (!id || id->qp)
		return cma_fail(EINVAL);	/* a managed QP completes itself */
	ret = complete_connect(cma_id_of(id));
	return ret ? cma_fail(ret) : 0;
}

/* A request on a listener made by rdma_create_ep() gets the QP the
 * endpoint asked for; a request that cannot have one is refused. */
static int give_request_qp(struct cma_id *listen, struct rdma_cm_event *event)
{
	struct ibv_qp_init_attr attr = listen->request_qp_attr;
	struct rdma_cm_id *id = event->id;
	int ret;

	if (!listen->has_request_qp || !rdma_create_qp(id, listen->id.pd, &attr))
		return 0;
	ret = errno;
	rdma_reject(id, NULL, 0);
	rdma_ack_cm_event(event);
	rdma_destroy_id(id);
	return ret;
}

static int get_request(struct cma_id *listen, struct rdma_cm_id **out)
{
	struct rdma_cm_event *event;
	int ret;

	if (!listen->sync)
		return EINVAL;		/* requests arrive on the user's channel */
	ret = cma_sync_wait(listen, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (ret)
		return ret;
	/* The event now belongs to the new id: its accept, reject or
	 * destruction acks it. */
	event = listen->id.event;
	listen->id.event = NULL;
	ret = give_request_qp(listen, event);
	if (ret)
		return ret;
	event->id->event = event;
	*out = event->id;
	return 0;
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	int ret;

	if (!listen || !id)
		return cma_fail(EINVAL);
	ret = get_request(cma_id_of(listen), id);
	return ret ? cma_fail(ret) : 0;
}

int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct cma_id *cid;

	/* Only for QPs the user manages: a managed QP speaks for itself. */
	if (!id || id->qp || !ece || !ece->vendor_id || ece->comp_mask)
		return cma_fail(EINVAL);
	cid = cma_id_of(id);
	cid->local_ece = (struct ibv_ece){
		.vendor_id = ece->vendor_id,
		.options = ece->options,
	};
	return 0;
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct cma_id *cid;

	if (!id || id->qp || !ece)
		return cma_fail(EINVAL);
	cid = cma_id_of(id);
	*ece = (struct ibv_ece){
		.vendor_id = cid->remote_ece.vendor_id,
		.options = cid->remote_ece.options,
	};
	return 0;
}

int cma_conn_event(struct cma_event *evt)
{
	struct rdma_cm_event *event = &evt->event;
	struct cma_id *id = cma_id_of(event->id);
	int ret;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		id->remote_ece = evt->kernel.ece;
		if (!is_ud(id)) {
			/* What rdma_accept() offers unless told otherwise. */
			id->initiator_depth = event->param.conn.initiator_depth;
			id->responder_resources =
				event->param.conn.responder_resources;
		}
		return 0;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		id->remote_ece = evt->kernel.ece;
		if (!id->id.qp)
			return 0;	/* the user calls rdma_establish() */
		ret = complete_connect(id);
		if (ret) {
			event->event = RDMA_CM_EVENT_CONNECT_ERROR;
			event->status = -ret;
			id->connect_error = true;
		} else {
			event->event = RDMA_CM_EVENT_ESTABLISHED;
		}
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		/* After a connect error the user already knows. */
		if (id->connect_error)
			return ECANCELED;
		cma_modify_qp(id, IBV_QPS_ERR);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		return id->connect_error ? ECANCELED : 0;
	default:
		return 0;
	}
}
