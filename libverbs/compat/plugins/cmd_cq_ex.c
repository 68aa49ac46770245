/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers for extended CQs and CQ moderation (FACTS section H):
 * create_cq_ex, its v56 twin create_cq_ex2 with a driver buffer
 * (V56-ADDITIONS 1), modify_cq.  rxe (v44 and v56) calls create_cq_ex on
 * the test guests; moderation is for NICs only (mlx5, mlx4, hns: rxe and
 * siw refuse it).
 */
#include "commands.h"

enum {
	CQ_INIT_KNOWN_MASK = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD,
	CQ_TIMESTAMP_WC_FLAGS = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
				IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
};

/* The kernel's CQ flags for what the attributes ask. */
static uint32_t kern_cq_flags(const struct ibv_cq_init_attr_ex *cq_attr)
{
	uint32_t flags = 0;

	if (cq_attr->wc_flags & CQ_TIMESTAMP_WC_FLAGS)
		flags |= IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	if ((cq_attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (cq_attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
		flags |= IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;
	return flags;
}

static int create_cq_ex(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
			struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
			struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
			uint32_t cmd_flags, struct ibv_command_buffer *driver)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	struct vcmd_cq_ex ex = {
		/* Any flag needs the extended write(), except a timestamp the
		 * provider said it can do without. */
		.write_optional = (cmd_flags & CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX) ?
				  IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION : 0,
		.ioctl_only = !verbs_plugin_link_writable(driver),
	};
	struct verbs_plugin_links links;
	struct ibv_cq *ibcq = &cq->cq;
	int ret;

	if (cq_attr->comp_mask & ~CQ_INIT_KNOWN_MASK)
		return EOPNOTSUPP;
	ret = verbs_plugin_link(&links, driver, &ex.link);
	if (ret)
		return ret;
	ibcq->context = context;
	ret = vcmd_create_cq(context, cq_attr->cqe, cq_attr->channel, cq_attr->comp_vector,
			     kern_cq_flags(cq_attr), ibcq, &udata, &ex);
	if (ret)
		return ret;
	if (resp_size >= sizeof(*resp)) {
		resp->base.cq_handle = ibcq->handle;
		resp->base.cqe = ibcq->cqe;
	}
	return 0;
}

int ibv_cmd_create_cq_ex(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
			 uint32_t cmd_flags)
{
	return verbs_plugin_result(create_cq_ex(context, cq_attr, cq, cmd, cmd_size, resp,
						resp_size, cmd_flags, NULL));
}

int ibv_cmd_create_cq_ex2(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
			  struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
			  uint32_t cmd_flags, struct ibv_command_buffer *driver)
{
	return verbs_plugin_result(create_cq_ex(context, cq_attr, cq, cmd, cmd_size, resp,
						resp_size, cmd_flags, driver));
}

int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd, size_t cmd_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);

	if (attr->attr_mask >= IBV_CQ_ATTR_RESERVED)
		return verbs_plugin_result(EINVAL);
	return verbs_plugin_result(verbs_cmd_modify_cq(cq, attr, &udata));
}
