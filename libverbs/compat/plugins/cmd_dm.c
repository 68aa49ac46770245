/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers on device memory and MR advice (FACTS section H),
 * ioctl methods without a write() form (FACTS 42).  Device memory is
 * mlx5's: rxe and siw have none, and they refuse advice (no on-demand
 * paging), so the test guests cannot exercise these.
 */
#include "commands.h"

int ibv_cmd_alloc_dm(struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link)
{
	const struct vioctl_chain *chain;
	struct verbs_plugin_links links;
	uint32_t handle;
	int ret;

	ret = verbs_plugin_link(&links, link, &chain);
	if (!ret)
		ret = verbs_cmd_alloc_dm(ctx, dm_attr->length, dm_attr->log_align_req, &handle,
					 chain);
	if (ret)
		return verbs_plugin_result(ret);
	dm->dm.context = ctx;
	dm->dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->dm.handle = handle;
	dm->handle = handle;
	return 0;
}

int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	return verbs_plugin_result(verbs_cmd_free_dm(dm->dm.context, dm->handle));
}

int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset, size_t length,
		      unsigned int access, struct verbs_mr *vmr, struct ibv_command_buffer *link)
{
	const struct vioctl_chain *chain;
	struct verbs_plugin_links links;
	int ret;

	ret = verbs_plugin_link(&links, link, &chain);
	if (!ret)
		ret = verbs_cmd_reg_dm_mr(pd, dm->handle, offset, length, access, vmr, chain);
	return verbs_plugin_result(ret);
}

int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ib_uverbs_advise_mr_advice advice, uint32_t flags,
		      struct ibv_sge *sg_list, uint32_t num_sge)
{
	return verbs_plugin_result(verbs_cmd_advise_mr(pd, advice, flags, sg_list, num_sge));
}
