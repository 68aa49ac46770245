/* SPDX-License-Identifier: MIT */
/* Protection domains. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	const struct verbs_ops *ops = verbs_ops(context);
	struct ibv_pd *pd;
	int ret;

	if (ops->alloc_pd)
		return ops->alloc_pd(context);
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ret = verbs_cmd_alloc_pd(context, pd, NULL);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	const struct verbs_ops *ops = verbs_ops(pd->context);
	int ret;

	if (ops->dealloc_pd)
		return ops->dealloc_pd(pd);
	ret = verbs_cmd_dealloc_pd(pd);
	if (!ret)
		free(pd);
	return ret;
}
