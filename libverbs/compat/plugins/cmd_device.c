/* SPDX-License-Identifier: MIT */
/* ibv_cmd_* helpers on contexts, devices and ports (FACTS 28-29, section H). */
#include <string.h>

#include "commands.h"

/* A v44 plugin's port attribute is 52 bytes, and so is the most that
 * verbs_cmd_query_port() writes; v49 grew the struct to 56 (V56-ADDITIONS 3). */
static_assert(sizeof(struct ibv_port_attr) == 52, "the v44 ibv_port_attr");

/* Over ioctl the context gets no async fd here: the core adds one after
 * the plugin's alloc_context (FACTS 21d, 28). */
int ibv_cmd_get_context(struct verbs_context *context_ex, struct ibv_get_context *cmd,
			size_t cmd_size, struct ib_uverbs_get_context_resp *resp,
			size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	return verbs_plugin_result(verbs_cmd_get_context(&context_ex->context, &udata));
}

int ibv_cmd_query_context(struct ibv_context *context, struct ibv_command_buffer *driver)
{
	struct verbs_plugin_links links;
	const struct vioctl_chain *chain;
	int ret;

	ret = verbs_plugin_link(&links, driver, &chain);
	if (!ret)
		ret = vcmd_query_context(context, chain);
	return verbs_plugin_result(ret);
}

/*
 * attr_size tells the caller's struct ibv_device_attr_ex: only a caller
 * wanting more than the basic attributes asks the extended query.  Fields
 * are copied as far as attr_size reaches; those the kernel's
 * response_length does not cover stay zero.
 */
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp, size_t *resp_size)
{
	struct ib_uverbs_ex_query_device_resp kern;
	struct ibv_device_attr_ex full = {};
	struct verbs_udata udata = {};
	int ret;

	if ((input && input->comp_mask) || attr_size < sizeof(attr->orig_attr))
		return verbs_plugin_result(EINVAL);
	if (resp && resp_size)
		udata = verbs_plugin_udata(NULL, 0, 0, resp, sizeof(*resp), *resp_size);
	memset(attr, 0, attr_size);
	ret = vcmd_query_device(context, attr_size > sizeof(attr->orig_attr), &kern, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	vcmd_device_attr_from_kern(&full, &kern);
	memcpy(attr, &full, attr_size < sizeof(full) ? attr_size : sizeof(full));
	if (resp && resp_size) {
		memcpy(resp, &kern, *resp_size < sizeof(kern) ? *resp_size : sizeof(kern));
		*resp_size = kern.response_length;
	}
	return 0;
}

/* QUERY_PORT carries no driver data: cmd is upstream's scratch space. */
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr, struct ibv_query_port *cmd,
		       size_t cmd_size)
{
	(void)cmd;
	(void)cmd_size;
	return verbs_plugin_result(verbs_cmd_query_port(context, port_num, port_attr));
}
