/* SPDX-License-Identifier: MIT */
/*
 * rdma_set_option(): the kernel checks levels, names and sizes; an IB
 * path set here stands for route resolution, and the kernel reports it
 * with ROUTE_RESOLVED as it would a resolved route.
 */
#include "internal.h"

int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
		    void *optval, size_t optlen)
{
	struct cma_id *cid;
	int ret;

	if (!id)
		return cma_fail(EINVAL);
	cid = cma_id_of(id);
	ret = ucma_set_option(id->channel->fd, cid->handle, level, optname,
			      optval, optlen);
	return ret ? cma_fail(ret) : 0;
}
