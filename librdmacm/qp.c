/* SPDX-License-Identifier: MIT */
/*
 * QPs and SRQs the library creates for an id, with the completion queues
 * it makes when the caller brings none, and the QP state changes it
 * drives with the attributes the kernel's connection manager chose.
 */
#include "internal.h"

#include <string.h>

/* Moves qp to state with the kernel's attributes for the id; rd_atomic
 * replaces the kernel's read/atomic depth for RTR (responder resources)
 * or RTS (initiator depth) unless it is RDMA_MAX_RESP_RES/_INIT_DEPTH. */
static int modify_qp_as_cm(struct cma_id *id, struct ibv_qp *qp,
			   enum ibv_qp_state state, uint8_t rd_atomic)
{
	struct ibv_qp_attr attr;
	int mask, ret;

	ret = ucma_init_qp_attr(id->id.channel->fd, id->handle, state, &attr, &mask);
	if (ret)
		return ret;
	if (state == IBV_QPS_RTR && rd_atomic != RDMA_MAX_RESP_RES)
		attr.max_dest_rd_atomic = rd_atomic;
	if (state == IBV_QPS_RTS && rd_atomic != RDMA_MAX_INIT_DEPTH)
		attr.max_rd_atomic = rd_atomic;
	return ibv_modify_qp(qp, &attr, mask);
}

int cma_modify_qp(struct cma_id *id, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	if (!id->id.qp)
		return 0;
	switch (state) {
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
	case IBV_QPS_RTS:
		return modify_qp_as_cm(id, id->id.qp, state, RDMA_MAX_RESP_RES);
	default:
		return ibv_modify_qp(id->id.qp, &attr, IBV_QP_STATE);
	}
}

int cma_qp_connect(struct cma_id *id, uint8_t responder_resources,
		   uint8_t initiator_depth)
{
	struct ibv_qp *qp = id->id.qp;
	int ret;

	if (!qp)
		return 0;
	/* INIT again: the QP got its INIT attributes when it was created,
	 * the connection may have settled others since (port, P_Key). */
	ret = modify_qp_as_cm(id, qp, IBV_QPS_INIT, RDMA_MAX_RESP_RES);
	if (!ret)
		ret = modify_qp_as_cm(id, qp, IBV_QPS_RTR, responder_resources);
	if (!ret)
		ret = modify_qp_as_cm(id, qp, IBV_QPS_RTS, initiator_depth);
	return ret;
}

/* A UD QP needs no peer: it goes straight to RTS. */
static int ready_ud_qp(struct cma_id *id, struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTR };
	int ret;

	ret = modify_qp_as_cm(id, qp, IBV_QPS_INIT, RDMA_MAX_RESP_RES);
	if (ret)
		return ret;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	if (ret)
		return ret;
	attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 0 };
	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static int destroy_cq(struct ibv_cq **cq)
{
	int ret = *cq ? ibv_destroy_cq(*cq) : 0;

	if (!ret)
		*cq = NULL;
	return ret;
}

static int destroy_channel(struct ibv_comp_channel **channel)
{
	int ret = *channel ? ibv_destroy_comp_channel(*channel) : 0;

	if (!ret)
		*channel = NULL;
	return ret;
}

/* The library's CQs are those it put in the id; they go with the last
 * of the QP and SRQ that use them.  One the kernel would not destroy
 * stays in the id (with its channel): rdma_destroy_qp and
 * rdma_destroy_srq cannot report the failure, rdma_destroy_id tries
 * again and can. */
int cma_destroy_cqs(struct rdma_cm_id *id)
{
	int ret, err;

	if (id->send_cq == id->recv_cq)
		id->send_cq = NULL;
	if (id->send_cq_channel == id->recv_cq_channel)
		id->send_cq_channel = NULL;
	ret = destroy_cq(&id->send_cq);
	err = destroy_cq(&id->recv_cq);
	ret = ret ? ret : err;
	err = destroy_channel(&id->send_cq_channel);
	ret = ret ? ret : err;
	err = destroy_channel(&id->recv_cq_channel);
	return ret ? ret : err;
}

static int create_cq(struct rdma_cm_id *id, int size,
		     struct ibv_comp_channel **channel, struct ibv_cq **cq)
{
	*channel = ibv_create_comp_channel(id->verbs);
	if (!*channel)
		return errno;
	*cq = ibv_create_cq(id->verbs, size, id, *channel, 0);
	return *cq ? 0 : errno;
}

/* CQs of these sizes, with their completion channels, where size > 0. */
static int create_cqs(struct rdma_cm_id *id, uint32_t send_size,
		      uint32_t recv_size)
{
	int ret = 0;

	if (recv_size)
		ret = create_cq(id, recv_size, &id->recv_cq_channel, &id->recv_cq);
	if (!ret && send_size)
		ret = create_cq(id, send_size, &id->send_cq_channel, &id->send_cq);
	return ret;
}

/* What a QP or SRQ gets when its attributes name no PD or XRC domain
 * (the comp_mask bit unset, or NULL): the id's PD, the device's domain.
 * A PD of another device is refused. */
static int default_pd(const struct rdma_cm_id *cm, uint32_t *comp_mask, uint32_t pd_bit,
		      struct ibv_pd **pd)
{
	if (!(*comp_mask & pd_bit) || !*pd) {
		*comp_mask |= pd_bit;
		*pd = cm->pd;
	}
	return *pd && (*pd)->context == cm->verbs ? 0 : EINVAL;
}

static int default_xrcd(struct cma_id *id, uint32_t *comp_mask, uint32_t xrcd_bit,
			struct ibv_xrcd **xrcd)
{
	if ((*comp_mask & xrcd_bit) && *xrcd)
		return 0;
	*comp_mask |= xrcd_bit;
	return cma_device_xrcd(id->dev, xrcd);
}

/* A CQ of the caller's may not replace one the library already gave the
 * id. */
static bool cqs_conflict(const struct rdma_cm_id *id,
			 const struct ibv_qp_init_attr_ex *attr)
{
	return (id->recv_cq && attr->recv_cq && id->recv_cq != attr->recv_cq) ||
	       (id->send_cq && attr->send_cq && id->send_cq != attr->send_cq);
}

static int fill_qp_attr(struct cma_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct rdma_cm_id *cm = &id->id;
	int ret;

	ret = default_pd(cm, &attr->comp_mask, IBV_QP_INIT_ATTR_PD, &attr->pd);
	if (ret)
		return ret;
	if (cqs_conflict(cm, attr))
		return EINVAL;
	if (cm->qp_type != IBV_QPT_XRC_RECV)
		return 0;
	return default_xrcd(id, &attr->comp_mask, IBV_QP_INIT_ATTR_XRCD, &attr->xrcd);
}

static int create_qp(struct cma_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct rdma_cm_id *cm = &id->id;
	struct ibv_qp *qp;
	int ret;

	if (cm->qp || !id->dev)
		return EINVAL;
	ret = fill_qp_attr(id, attr);
	if (ret)
		return ret;
	ret = create_cqs(cm, attr->send_cq || cm->send_cq ? 0 : attr->cap.max_send_wr,
			 attr->recv_cq || cm->recv_cq ? 0 : attr->cap.max_recv_wr);
	if (ret)
		goto err_cqs;
	if (!attr->send_cq)
		attr->send_cq = cm->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = cm->recv_cq;
	if (!attr->srq)
		attr->srq = cm->srq;

	qp = ibv_create_qp_ex(cm->verbs, attr);
	if (!qp) {
		ret = errno;
		goto err_cqs;
	}
	if (cm->qp_type == IBV_QPT_UD)
		ret = ready_ud_qp(id, qp);
	else
		ret = modify_qp_as_cm(id, qp, IBV_QPS_INIT, RDMA_MAX_RESP_RES);
	if (ret)
		goto err_qp;
	cm->pd = qp->pd;
	cm->qp = qp;
	return 0;

err_qp:
	ibv_destroy_qp(qp);
err_cqs:
	if (!cm->srq)
		cma_destroy_cqs(cm);
	return ret;
}

int rdma_create_qp_ex(struct rdma_cm_id *id,
		      struct ibv_qp_init_attr_ex *qp_init_attr)
{
	int ret;

	if (!id || !qp_init_attr)
		return cma_fail(EINVAL);
	ret = create_qp(cma_id_of(id), qp_init_attr);
	return ret ? cma_fail(ret) : 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex attr = {};
	int ret;

	if (!id || !qp_init_attr)
		return cma_fail(EINVAL);
	/* ibv_qp_init_attr is the start of ibv_qp_init_attr_ex (its tail
	 * padding may cover the first field after it: fill that after). */
	memcpy(&attr, qp_init_attr, sizeof(*qp_init_attr));
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = pd;
	ret = create_qp(cma_id_of(id), &attr);
	/* The caps the QP really got go back to the caller. */
	memcpy(qp_init_attr, &attr, sizeof(*qp_init_attr));
	return ret ? cma_fail(ret) : 0;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id || !id->qp)
		return;
	if (ibv_destroy_qp(id->qp))
		return;		/* still in use: keep what it needs */
	id->qp = NULL;
	if (!id->srq)
		cma_destroy_cqs(id);
}

static int fill_srq_attr(struct cma_id *id, struct ibv_srq_init_attr_ex *attr,
			 bool *own_cq)
{
	struct rdma_cm_id *cm = &id->id;
	int ret;

	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		return EINVAL;
	ret = default_pd(cm, &attr->comp_mask, IBV_SRQ_INIT_ATTR_PD, &attr->pd);
	if (ret || attr->srq_type != IBV_SRQT_XRC)
		return ret;
	ret = default_xrcd(id, &attr->comp_mask, IBV_SRQ_INIT_ATTR_XRCD, &attr->xrcd);
	if (ret)
		return ret;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq) {
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
		if (!cm->recv_cq) {
			ret = create_cqs(cm, 0, attr->attr.max_wr);
			*own_cq = true;
			if (ret)
				return ret;
		}
		attr->cq = cm->recv_cq;
	}
	return 0;
}

static int create_srq(struct cma_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct rdma_cm_id *cm = &id->id;
	bool own_cq = false;
	struct ibv_srq *srq;
	int ret;

	if (cm->srq || !id->dev)
		return EINVAL;
	ret = fill_srq_attr(id, attr, &own_cq);
	if (ret)
		goto err;
	srq = ibv_create_srq_ex(cm->verbs, attr);
	if (!srq) {
		ret = errno;
		goto err;
	}
	if (!cm->pd)
		cm->pd = attr->pd;
	cm->srq = srq;
	return 0;

err:
	if (own_cq)
		cma_destroy_cqs(cm);
	return ret;
}

int rdma_create_srq_ex(struct rdma_cm_id *id,
		       struct ibv_srq_init_attr_ex *attr)
{
	int ret;

	if (!id || !attr)
		return cma_fail(EINVAL);
	ret = create_srq(cma_id_of(id), attr);
	return ret ? cma_fail(ret) : 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex attr_ex = {};
	int ret;

	if (!id || !attr)
		return cma_fail(EINVAL);
	/* ibv_srq_init_attr is the start of ibv_srq_init_attr_ex, whose
	 * comp_mask its tail padding covers: fill that after. */
	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	attr_ex.srq_type = id->qp_type == IBV_QPT_XRC_RECV ? IBV_SRQT_XRC :
							     IBV_SRQT_BASIC;
	attr_ex.pd = pd;
	ret = create_srq(cma_id_of(id), &attr_ex);
	memcpy(attr, &attr_ex, sizeof(*attr));
	return ret ? cma_fail(ret) : 0;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id || !id->srq)
		return;
	if (ibv_destroy_srq(id->srq))
		return;		/* a QP still uses it */
	id->srq = NULL;
	if (!id->qp)
		cma_destroy_cqs(id);
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct cma_id *cid;
	int ret;

	if (!id || !qp_attr || !qp_attr_mask)
		return cma_fail(EINVAL);
	cid = cma_id_of(id);
	ret = ucma_init_qp_attr(cid->id.channel->fd, cid->handle, qp_attr->qp_state,
				qp_attr, qp_attr_mask);
	return ret ? cma_fail(ret) : 0;
}
