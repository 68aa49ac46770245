/* SPDX-License-Identifier: MIT */
/*
 * Addresses and routes: binding, resolution, and the queries that keep
 * id->route, id->verbs and id->port_num in step with what the kernel
 * knows.
 */
#include "internal.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

/* How much of addr a command carries; 0 for what no command takes. */
static void copy_sockaddr(struct sockaddr_storage *dst,
			  const struct sockaddr_storage *src)
{
	memcpy(dst, src, sizeof(*dst));
}

int cma_query_addr(struct cma_id *id)
{
	struct rdma_cm_id *cm = &id->id;
	struct ucma_addr addr;
	struct sockaddr_ib src_gid, dst_gid;
	int ret;

	ret = ucma_query_addr(cm->channel->fd, id->handle, &addr);
	if (ret)
		return ret;
	copy_sockaddr(&cm->route.addr.src_storage, &addr.src);
	copy_sockaddr(&cm->route.addr.dst_storage, &addr.dst);
	if (!addr.node_guid)
		return 0;	/* bound to an address no device owns yet */
	if (!id->dev) {
		ret = cma_attach_device(id, addr.node_guid);
		if (ret)
			return ret;
		cm->port_num = addr.port_num;
		cm->route.addr.addr.ibaddr.pkey = addr.pkey;
	}
	/* iWARP addresses are IP addresses: no GIDs to learn (upstream
	 * skips the query there too). */
	if (cm->verbs->device->transport_type == IBV_TRANSPORT_IWARP)
		return 0;
	ret = ucma_query_gid(cm->channel->fd, id->handle, &src_gid, &dst_gid);
	if (ret)
		return ret;
	memcpy(&cm->route.addr.addr.ibaddr.sgid, &src_gid.sib_addr,
	       sizeof(cm->route.addr.addr.ibaddr.sgid));
	memcpy(&cm->route.addr.addr.ibaddr.dgid, &dst_gid.sib_addr,
	       sizeof(cm->route.addr.addr.ibaddr.dgid));
	return 0;
}

int cma_query_route(struct cma_id *id)
{
	struct ibv_sa_path_rec *paths;
	int num_paths, ret;

	ret = ucma_query_path(id->id.channel->fd, id->handle, &paths, &num_paths);
	if (ret)
		return ret;
	free(id->id.route.path_rec);
	id->id.route.path_rec = paths;
	id->id.route.num_paths = num_paths;
	return 0;
}

static int bind_addr(struct cma_id *id, const struct sockaddr *addr)
{
	int ret;

	if (!ucma_addr_size(addr))
		return EINVAL;
	ret = ucma_bind(id->id.channel->fd, id->handle, addr);
	if (ret)
		return ret;
	return cma_query_addr(id);
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = bind_addr(cma_id_of(id), addr);
	return ret ? cma_fail(ret) : 0;
}

static int resolve_addr(struct cma_id *id, const struct sockaddr *src,
			const struct sockaddr *dst, int timeout_ms)
{
	size_t dst_size = ucma_addr_size(dst);
	int ret;

	if (!dst_size || (src && !ucma_addr_size(src)))
		return EINVAL;
	ret = ucma_resolve_addr(id->id.channel->fd, id->handle, src, dst,
				timeout_ms);
	if (ret)
		return ret;
	/* The peer's address is known before the kernel reports anything:
	 * callers read it while resolution is still under way. */
	memcpy(&id->id.route.addr.dst_storage, dst, dst_size);
	return id->sync ? cma_sync_wait(id, RDMA_CM_EVENT_ADDR_RESOLVED) : 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = resolve_addr(cma_id_of(id), src_addr, dst_addr, timeout_ms);
	return ret ? cma_fail(ret) : 0;
}

static int resolve_route(struct cma_id *id, int timeout_ms)
{
	int ret;

	ret = ucma_resolve_route(id->id.channel->fd, id->handle, timeout_ms);
	if (ret)
		return ret;
	return id->sync ? cma_sync_wait(id, RDMA_CM_EVENT_ROUTE_RESOLVED) : 0;
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	ret = resolve_route(cma_id_of(id), timeout_ms);
	return ret ? cma_fail(ret) : 0;
}

static __be16 sockaddr_port(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	case AF_IB:
		/* The port is the low 16 bits of the service ID. */
		return htobe16((uint16_t)be64toh(
			((const struct sockaddr_ib *)addr)->sib_sid));
	default:
		return 0;
	}
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return id ? sockaddr_port(&id->route.addr.src_addr) : 0;
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id ? sockaddr_port(&id->route.addr.dst_addr) : 0;
}
