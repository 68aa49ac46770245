/* SPDX-License-Identifier: MIT */
/*
 * rdma_create_ep()/rdma_destroy_ep(): a synchronous id made ready from an
 * rdma_getaddrinfo() result, with the public calls a program would make
 * itself.  An active id is resolved (route included) and gets its QP now;
 * a passive one is bound, and keeps the QP attributes for the ids
 * rdma_get_request() hands out.
 */
#include "internal.h"

/* How long address and route resolution may each take. */
enum { EP_RESOLVE_TIMEOUT_MS = 2000 };

/* The public calls below set errno; this file passes it on as a value. */
static int last_error(void)
{
	return errno ? errno : EIO;
}

static int ep_passive(struct cma_id *cid, const struct rdma_addrinfo *res,
		      struct ibv_pd *pd, const struct ibv_qp_init_attr *qp_init_attr)
{
	if (rdma_bind_addr(&cid->id, res->ai_src_addr))
		return last_error();
	if (!qp_init_attr)
		return 0;
	cid->has_request_qp = true;
	cid->request_qp_attr = *qp_init_attr;
	cid->request_qp_attr.qp_type = res->ai_qp_type;
	cid->id.pd = pd;
	return 0;
}

static int ep_active(struct cma_id *cid, const struct rdma_addrinfo *res,
		     struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *id = &cid->id;
	struct sockaddr *src = res->ai_src_len ? res->ai_src_addr : NULL;

	if (rdma_resolve_addr(id, src, res->ai_dst_addr, EP_RESOLVE_TIMEOUT_MS))
		return last_error();
	/* Path records rdma_getaddrinfo() found spare the route query. */
	if (res->ai_route_len ?
	    rdma_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, res->ai_route,
			    res->ai_route_len) :
	    rdma_resolve_route(id, EP_RESOLVE_TIMEOUT_MS))
		return last_error();
	if (!qp_init_attr)
		return 0;
	qp_init_attr->qp_type = res->ai_qp_type;
	if (rdma_create_qp(id, pd, qp_init_attr))
		return last_error();
	return 0;
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
		   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct cma_id *cid;
	int ret;

	if (!id || !res)
		return cma_fail(EINVAL);
	ret = cma_id_create(NULL, NULL, res->ai_port_space, res->ai_qp_type, &cid);
	if (ret)
		return cma_fail(ret);
	errno = 0;
	ret = res->ai_flags & RAI_PASSIVE ? ep_passive(cid, res, pd, qp_init_attr) :
					    ep_active(cid, res, pd, qp_init_attr);
	if (ret) {
		rdma_destroy_ep(&cid->id);
		return cma_fail(ret);
	}
	*id = &cid->id;
	return 0;
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}
