/* SPDX-License-Identifier: MIT */
/*
 * Device memory.  None of the built-in providers has any (rxe has no
 * on-device memory; ibv_alloc_dm fails with EOPNOTSUPP there, as upstream),
 * so there is never a DM to import, nor one to unimport.
 */
#include <errno.h>

#include "internal.h"

struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context, (void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}
