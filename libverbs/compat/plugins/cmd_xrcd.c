/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers on XRC domains (FACTS section H).  Only plugins of
 * NICs with XRC (mlx5, mlx4, hns, qedr) call them: rxe and siw have no
 * XRC, so the test guests cannot open a domain.
 */
#include "commands.h"

enum {
	XRCD_KNOWN_MASK = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
};

/* How much of struct verbs_xrcd the plugin's object has: older plugins'
 * domains may end before the handle (vxrcd_size). */
static bool xrcd_has(int vxrcd_size, size_t field_end)
{
	return vxrcd_size >= 0 && (size_t)vxrcd_size >= field_end;
}

int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd, int vxrcd_size,
		      struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd,
		      size_t cmd_size, struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	uint32_t handle;
	int ret;

	if (attr->comp_mask & ~XRCD_KNOWN_MASK)
		return verbs_plugin_result(EOPNOTSUPP);
	if ((attr->comp_mask & XRCD_KNOWN_MASK) != XRCD_KNOWN_MASK)
		return verbs_plugin_result(EINVAL);
	ret = verbs_cmd_open_xrcd(context, &xrcd->xrcd, attr->fd, attr->oflags, &handle, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	if (resp_size >= sizeof(*resp))
		resp->xrcd_handle = handle;
	if (!xrcd_has(vxrcd_size, offsetof(struct verbs_xrcd, comp_mask) + sizeof(xrcd->comp_mask)))
		return 0;
	xrcd->comp_mask = 0;
	if (xrcd_has(vxrcd_size, offsetof(struct verbs_xrcd, handle) + sizeof(xrcd->handle))) {
		xrcd->comp_mask = VERBS_XRCD_HANDLE;
		xrcd->handle = handle;
	}
	return 0;
}

int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	return verbs_plugin_result(verbs_cmd_close_xrcd(xrcd->xrcd.context, xrcd->handle));
}
