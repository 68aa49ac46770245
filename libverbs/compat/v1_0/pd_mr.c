// SPDX-License-Identifier: MIT
/*
 * IBVERBS_1.0 protection domains and memory regions (compat-1.0 FACTS 16-19).
 */
#include <stdlib.h>

#include "compat_1_0.h"

struct ibv_pd_1_0 *ibv_alloc_pd_1_0(struct ibv_context_1_0 *context)
{
	struct ibv_pd_1_0 *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	pd->real_pd = ibv_alloc_pd(context->real_context);
	if (!pd->real_pd) {
		free(pd);
		return NULL;
	}
	pd->context = context;
	return pd;
}
COMPAT_1_0(ibv_alloc_pd_1_0, ibv_alloc_pd);

int ibv_dealloc_pd_1_0(struct ibv_pd_1_0 *pd)
{
	int ret = ibv_dealloc_pd(pd->real_pd);

	if (!ret)
		free(pd);
	return ret;
}
COMPAT_1_0(ibv_dealloc_pd_1_0, ibv_dealloc_pd);

struct ibv_mr_1_0 *ibv_reg_mr_1_0(struct ibv_pd_1_0 *pd, void *addr, size_t length, int access)
{
	struct ibv_mr_1_0 *mr = calloc(1, sizeof(*mr));

	if (!mr)
		return NULL;
	/* the exported function itself, not the header's inline that may
	 * pick ibv_reg_mr_iova2 */
	mr->real_mr = (ibv_reg_mr)(pd->real_pd, addr, length, access);
	if (!mr->real_mr) {
		free(mr);
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->lkey = mr->real_mr->lkey;
	mr->rkey = mr->real_mr->rkey;
	return mr;
}
COMPAT_1_0(ibv_reg_mr_1_0, ibv_reg_mr);

int ibv_dereg_mr_1_0(struct ibv_mr_1_0 *mr)
{
	int ret = ibv_dereg_mr(mr->real_mr);

	if (!ret)
		free(mr);
	return ret;
}
COMPAT_1_0(ibv_dereg_mr_1_0, ibv_dereg_mr);
