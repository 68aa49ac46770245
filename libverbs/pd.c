/* SPDX-License-Identifier: MIT */
/* Protection domains. */
#include <errno.h>
#include <stdlib.h>

#include "cmd.h"

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

/* Possible only where PDs are the core's plain ones: the handle is all
 * there is to a PD, once the kernel confirmed it names one. */
struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	struct ibv_pd *pd;
	int ret;

	if (verbs_priv(context)->plugin)
		return verbs_plugin_import_pd(context, pd_handle);
	if (verbs_ops(context)->alloc_pd) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ret = verbs_cmd_check_pd(context, pd_handle);
	if (ret) {
		errno = ret;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->context = context;
	pd->handle = pd_handle;
	return pd;
}

void ibv_unimport_pd(struct ibv_pd *pd)
{
	if (verbs_priv(pd->context)->plugin)
		verbs_plugin_unimport_pd(pd);
	else
		free(pd);
}
