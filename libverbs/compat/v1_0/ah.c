// SPDX-License-Identifier: MIT
/*
 * IBVERBS_1.0 address handles (compat-1.0 FACTS 28).
 */
#include <stdlib.h>

#include "compat_1_0.h"

struct ibv_ah_1_0 *ibv_create_ah_1_0(struct ibv_pd_1_0 *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah_1_0 *ah = calloc(1, sizeof(*ah));

	if (!ah)
		return NULL;
	ah->real_ah = ibv_create_ah(pd->real_pd, attr);
	if (!ah->real_ah) {
		free(ah);
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	return ah;
}
COMPAT_1_0(ibv_create_ah_1_0, ibv_create_ah);

int ibv_destroy_ah_1_0(struct ibv_ah_1_0 *ah)
{
	int ret = ibv_destroy_ah(ah->real_ah);

	if (!ret)
		free(ah);
	return ret;
}
COMPAT_1_0(ibv_destroy_ah_1_0, ibv_destroy_ah);
