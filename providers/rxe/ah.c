/* SPDX-License-Identifier: MIT */
/*
 * Address handles.  The kernel resolves the destination (GID type, IP
 * addresses, MAC) into an address vector of its own when the AH is made,
 * and returns its number; UD send WQEs name it by that number.
 *
 * Older kernels, which return no such number, read the address vector
 * from each WQE instead, which needs the destination MAC, and user
 * space has no portable way to resolve it.  AHs fail with EOPNOTSUPP there
 * rather than send to a wrong address.
 */
#include <errno.h>
#include <stdlib.h>

#include "rxe.h"

struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rxe_create_ah_resp resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	struct rxe_ah *ah = calloc(1, sizeof(*ah));
	int ret;

	if (!ah)
		return NULL;
	ret = verbs_cmd_create_ah(pd, &ah->ibah, attr, &udata);
	if (ret)
		goto err_free;
	if (!resp.ah_num) {
		verbs_cmd_destroy_ah(&ah->ibah);
		ret = EOPNOTSUPP;
		goto err_free;
	}
	ah->ah_num = resp.ah_num;
	return &ah->ibah;

err_free:
	free(ah);
	errno = ret;
	return NULL;
}

int rxe_destroy_ah(struct ibv_ah *ibah)
{
	int ret = verbs_cmd_destroy_ah(ibah);

	if (!ret)
		free(to_rah(ibah));
	return ret;
}
