/* SPDX-License-Identifier: MIT */
/*
 * Multicast joins: one entry per group on the id, whose address is the
 * kernel's uid for the join's events.  A join's event brings the group's
 * GID and LID, where the id's QP (if any) is attached unless it joined
 * to send only.
 */
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "internal.h"

static bool attaches_qp(const struct cma_multicast *mc)
{
	return mc->owner->id.qp && mc->join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
}

static void unlink_mc(struct cma_id *id, struct cma_multicast *mc)
{
	struct cma_multicast **p;

	pthread_mutex_lock(&id->lock);
	for (p = &id->mc_list; *p != mc; p = &(*p)->next)
		;
	*p = mc->next;
	pthread_mutex_unlock(&id->lock);
}

static void free_mc(struct cma_multicast *mc)
{
	pthread_cond_destroy(&mc->cond);
	free(mc);
}

static int join(struct cma_id *id, const struct sockaddr *addr, uint32_t flags, void *context)
{
	socklen_t len = ucma_addr_size(addr);
	struct cma_multicast *mc;
	int ret;

	if (!len || (flags != RDMA_MC_JOIN_FLAG_FULLMEMBER &&
		     flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER))
		return EINVAL;
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return ENOMEM;
	mc->owner = id;
	mc->context = context;
	mc->join_flags = flags;
	memcpy(&mc->addr, addr, len);
	pthread_cond_init(&mc->cond, NULL);
	/* Listed first: the join's event may be read before the kernel's
	 * answer to the join is. */
	pthread_mutex_lock(&id->lock);
	mc->next = id->mc_list;
	id->mc_list = mc;
	pthread_mutex_unlock(&id->lock);
	ret = ucma_join_mcast(id->id.channel->fd, id->handle, (uintptr_t)mc, addr, flags,
			      &mc->handle);
	if (ret) {
		unlink_mc(id, mc);
		free_mc(mc);
		return ret;
	}
	return id->sync ? cma_sync_wait(id, RDMA_CM_EVENT_MULTICAST_JOIN) : 0;
}

int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *attr,
			   void *context)
{
	uint32_t needed = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	int ret;

	if (!id || !attr || (attr->comp_mask & needed) != needed)
		return cma_fail(EINVAL);
	ret = join(cma_id_of(id), attr->addr, attr->join_flags, context);
	return ret ? cma_fail(ret) : 0;
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = join(cma_id_of(id), addr, RDMA_MC_JOIN_FLAG_FULLMEMBER, context);
	return ret ? cma_fail(ret) : 0;
}

static struct cma_multicast *find_mc(struct cma_id *id, const struct sockaddr *addr)
{
	socklen_t len = ucma_addr_size(addr);
	struct cma_multicast *mc;

	pthread_mutex_lock(&id->lock);
	for (mc = id->mc_list; mc; mc = mc->next)
		if (len && !memcmp(&mc->addr, addr, len))
			break;
	pthread_mutex_unlock(&id->lock);
	return mc;
}

static int leave(struct cma_id *id, const struct sockaddr *addr)
{
	struct cma_multicast *mc;
	uint32_t reported;
	int ret;

	mc = addr ? find_mc(id, addr) : NULL;
	if (!mc)
		return EADDRNOTAVAIL;
	unlink_mc(id, mc);
	if (attaches_qp(mc))
		ibv_detach_mcast(id->id.qp, &mc->mgid, mc->mlid);
	ret = ucma_leave_mcast(id->id.channel->fd, mc->handle, &reported);
	if (!ret) {
		pthread_mutex_lock(&id->lock);
		while (mc->events_completed < reported)
			pthread_cond_wait(&mc->cond, &id->lock);
		pthread_mutex_unlock(&id->lock);
	}
	free_mc(mc);
	return ret;
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = leave(cma_id_of(id), addr);
	return ret ? cma_fail(ret) : 0;
}

int cma_mcast_event(struct cma_event *evt)
{
	struct cma_multicast *mc = evt->mc;
	struct rdma_ud_param *ud = &evt->event.param.ud;

	/* The user's context of the join, where upstream puts it. */
	ud->private_data = mc->context;
	if (evt->event.event != RDMA_CM_EVENT_MULTICAST_JOIN)
		return 0;
	mc->mgid = ud->ah_attr.grh.dgid;
	mc->mlid = ud->ah_attr.dlid;
	if (!attaches_qp(mc))
		return 0;
	return ibv_attach_mcast(mc->owner->id.qp, &mc->mgid, mc->mlid);
}

void cma_mcast_free_all(struct cma_id *id)
{
	struct cma_multicast *mc;

	while ((mc = id->mc_list)) {
		id->mc_list = mc->next;
		free_mc(mc);
	}
}
