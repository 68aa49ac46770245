/* SPDX-License-Identifier: MIT */
/*
 * Upstream providers' ioctl command buffers (FACTS 44-48): run them, and
 * chain them onto the commands of the ibv_cmd_* helpers.  Both go through
 * the command layer's one ioctl path (vioctl_exec), which appends the
 * chained attributes after a command's own and writes them back after the
 * call.
 */
#include <errno.h>
#include <string.h>

#include "commands.h"

static unsigned int used_attrs(const struct ibv_command_buffer *buf)
{
	return buf->next_attr - buf->hdr.attrs;
}

unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link)
{
	for (; link; link = link->next)
		num_attrs += used_attrs(link);
	return num_attrs;
}

int verbs_plugin_link(struct verbs_plugin_links *links, struct ibv_command_buffer *buf,
		      const struct vioctl_chain **chain)
{
	struct vioctl_chain *node = NULL;
	unsigned int n = 0;

	*chain = NULL;
	for (; buf; buf = buf->next, n++) {
		if (buf->buffer_error || n == VERBS_PLUGIN_MAX_LINKS)
			return EINVAL;
		node = &links->node[n];
		node->attrs = buf->hdr.attrs;
		node->num_attrs = used_attrs(buf);
		/* The kernel wants short driver inputs inline (FACTS 47). */
		node->inline_idx = buf->uhw_in_idx == IBV_CMD_NO_UHW ? -1 : buf->uhw_in_idx;
		node->next = NULL;
		if (n)
			links->node[n - 1].next = node;
	}
	if (n)
		*chain = &links->node[0];
	return 0;
}

int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)
{
	struct verbs_plugin_links links;
	const struct vioctl_chain *chain;
	struct vioctl c;
	int ret;

	ret = verbs_plugin_link(&links, cmd, &chain);
	if (!ret) {
		/* The command's own attributes are the head of the chain. */
		vioctl_init(&c, cmd->hdr.object_id, cmd->hdr.method_id);
		vioctl_link(&c, chain);
		ret = vioctl_exec(context, &c);
	}
	if (ret)
		errno = ret;
	return ret;
}

static bool driver_attr(uint16_t id)
{
	return id == UVERBS_ATTR_UHW_IN || id == UVERBS_ATTR_UHW_OUT;
}

bool verbs_plugin_link_writable(const struct ibv_command_buffer *buf)
{
	for (; buf; buf = buf->next) {
		if (buf->fallback_ioctl_only)
			return false;
		for (unsigned int i = 0; i < used_attrs(buf); i++)
			if ((buf->hdr.attrs[i].flags & UVERBS_ATTR_F_MANDATORY) &&
			    !driver_attr(buf->hdr.attrs[i].attr_id))
				return false;
	}
	return true;
}

struct verbs_udata verbs_plugin_link_udata(const struct ibv_command_buffer *buf)
{
	struct verbs_udata udata = {};

	for (; buf; buf = buf->next) {
		if (buf->uhw_in_idx != IBV_CMD_NO_UHW) {
			const struct ib_uverbs_attr *a = &buf->hdr.attrs[buf->uhw_in_idx];

			udata.in = (const void *)(uintptr_t)a->data;
			udata.in_len = a->len;
		}
		if (buf->uhw_out_idx != IBV_CMD_NO_UHW) {
			const struct ib_uverbs_attr *a = &buf->hdr.attrs[buf->uhw_out_idx];

			udata.out = (void *)(uintptr_t)a->data;
			udata.out_len = a->len;
		}
	}
	return udata;
}
