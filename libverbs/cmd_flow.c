/* SPDX-License-Identifier: MIT */
/*
 * Kernel commands for flow steering rules and ESP flow actions.  Only
 * Ethernet NICs with a steering engine have them (mlx5, mlx4): rxe and
 * siw answer EOPNOTSUPP, so the test guests cannot make one.
 */
#include <errno.h>
#include <string.h>

#include "cmd.h"

int verbs_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow,
			  struct ib_uverbs_create_flow *req, size_t req_len,
			  const struct verbs_udata *udata)
{
	struct ib_uverbs_create_flow_resp resp;
	int ret;

	req->comp_mask = 0;
	req->qp_handle = qp->handle;
	ret = vcmd_write(qp->context, IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_FLOW,
			 req, req_len, &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	flow->context = qp->context;
	flow->handle = resp.flow_handle;
	return 0;
}

int verbs_cmd_destroy_flow(struct ibv_flow *flow)
{
	return vcmd_destroy(flow->context, VCMD_DESTROY_FLOW, UVERBS_OBJECT_FLOW,
			    UVERBS_METHOD_FLOW_DESTROY, flow->handle,
			    IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_DESTROY_FLOW);
}

/* An enum attribute: which of the attribute's forms (elem_id) and its
 * data, inline when short like any input. */
static void in_enum(struct vioctl *c, uint16_t id, uint8_t elem, const void *data, size_t len)
{
	vioctl_in(c, id, data, len);
	c->attrs[c->num_attrs - 1].attr_data.enum_data.elem_id = elem;
}

/* The attributes create and modify share; esp_attr is the caller's. */
static void esp_attrs(struct vioctl *c, const struct ibv_flow_action_esp_attr *attr)
{
	if (attr->esp_attr)
		vioctl_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, attr->esp_attr,
			  sizeof(*attr->esp_attr));
	if (attr->comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN)
		vioctl_in_u32(c, UVERBS_ATTR_FLOW_ACTION_ESP_ESN, attr->esn);
	if (attr->keymat_ptr)
		in_enum(c, UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT, attr->keymat_proto,
			attr->keymat_ptr, attr->keymat_len);
	if (attr->replay_ptr)
		in_enum(c, UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY, attr->replay_proto,
			attr->replay_ptr, attr->replay_len);
	if (attr->esp_encap)
		vioctl_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP, attr->esp_encap,
			  sizeof(*attr->esp_encap));
}

int verbs_cmd_create_flow_action_esp(struct ibv_context *ctx,
				     const struct ibv_flow_action_esp_attr *attr,
				     uint32_t *handle, const struct vioctl_chain *link)
{
	struct ib_uverbs_attr *new_handle;
	struct vioctl c;
	int ret;

	/* The kernel requires the ESP parameters to create one. */
	if (!attr->esp_attr)
		return EINVAL;
	vioctl_init(&c, UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE);
	new_handle = vioctl_new(&c, UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
	esp_attrs(&c, attr);
	vioctl_link(&c, link);
	ret = vcmd_ioctl_only(ctx, VCMD_FLOW_ACTION, &c);
	if (!ret)
		*handle = vioctl_result(new_handle);
	return ret;
}

int verbs_cmd_modify_flow_action_esp(struct ibv_context *ctx, uint32_t handle,
				     const struct ibv_flow_action_esp_attr *attr,
				     const struct vioctl_chain *link)
{
	struct vioctl c;

	vioctl_init(&c, UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY);
	vioctl_idr(&c, UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE, handle);
	esp_attrs(&c, attr);
	vioctl_link(&c, link);
	return vcmd_ioctl_only(ctx, VCMD_FLOW_ACTION, &c);
}

int verbs_cmd_destroy_flow_action(struct ibv_context *ctx, uint32_t handle)
{
	struct vioctl c;

	vioctl_init(&c, UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY);
	vioctl_idr(&c, UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, handle);
	return vcmd_destroy_result(vcmd_ioctl_only(ctx, VCMD_FLOW_ACTION, &c));
}
