/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers on counters objects (FACTS section H), ioctl methods
 * without a write() form (FACTS 42).  Counters are mlx5's: rxe and siw
 * have none, so the test guests cannot make one.
 */
#include "commands.h"

int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters, struct ibv_command_buffer *link)
{
	const struct vioctl_chain *chain;
	struct verbs_plugin_links links;
	uint32_t handle;
	int ret;

	if (init_attr->comp_mask)
		return verbs_plugin_result(EOPNOTSUPP);
	ret = verbs_plugin_link(&links, link, &chain);
	if (!ret)
		ret = verbs_cmd_create_counters(context, &handle, chain);
	if (ret)
		return verbs_plugin_result(ret);
	vcounters->counters.context = context;
	vcounters->handle = handle;
	return 0;
}

int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	return verbs_plugin_result(verbs_cmd_destroy_counters(vcounters->counters.context,
							      vcounters->handle));
}

int ibv_cmd_read_counters(struct verbs_counters *vcounters, uint64_t *counters_value,
			  uint32_t ncounters, uint32_t flags, struct ibv_command_buffer *link)
{
	const struct vioctl_chain *chain;
	struct verbs_plugin_links links;
	int ret;

	ret = verbs_plugin_link(&links, link, &chain);
	if (!ret)
		ret = verbs_cmd_read_counters(vcounters->counters.context, vcounters->handle,
					      counters_value, ncounters, flags, chain);
	return verbs_plugin_result(ret);
}
