/* SPDX-License-Identifier: MIT */
/*
 * Device memory.  None of the built-in providers has any (rxe has no
 * on-device memory; ibv_alloc_dm fails with EOPNOTSUPP there, as upstream),
 * so only provider plugins (mlx5) import and unimport DMs.
 */
#include <errno.h>

#include "internal.h"

struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	if (verbs_priv(context)->plugin)
		return verbs_plugin_import_dm(context, dm_handle);
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_dm(struct ibv_dm *dm)
{
	if (verbs_priv(dm->context)->plugin)
		verbs_plugin_unimport_dm(dm);
}
