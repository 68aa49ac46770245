/* SPDX-License-Identifier: MIT */
/*
 * Kernel commands for XRC domains.  The kernel has no ioctl to open one
 * (Linux 6.1 defines only XRCD_DESTROY), so opening is a write command
 * and closing prefers the method.  No built-in provider (rxe, siw) has
 * XRC: only plugins for real NICs (mlx5, mlx4, hns, qedr) reach this.
 */
#include <errno.h>

#include "cmd.h"

int verbs_cmd_open_xrcd(struct ibv_context *ctx, struct ibv_xrcd *xrcd, int fd, int oflags,
			uint32_t *handle, const struct verbs_udata *udata)
{
	struct ib_uverbs_open_xrcd req = { .fd = fd, .oflags = oflags };
	struct ib_uverbs_open_xrcd_resp resp;
	int ret;

	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_OPEN_XRCD, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	xrcd->context = ctx;
	*handle = resp.xrcd_handle;
	return 0;
}

int verbs_cmd_close_xrcd(struct ibv_context *ctx, uint32_t handle)
{
	return vcmd_destroy(ctx, VCMD_DESTROY_XRCD, UVERBS_OBJECT_XRCD,
			    UVERBS_METHOD_XRCD_DESTROY, handle, IB_USER_VERBS_CMD_CLOSE_XRCD);
}
