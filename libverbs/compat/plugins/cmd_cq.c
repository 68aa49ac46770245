/* SPDX-License-Identifier: MIT */
/* ibv_cmd_* helpers on CQs (FACTS section H).  The channel, cq_context,
 * event counters and mutex are verbs_init_cq's (FACTS 30). */
#include "commands.h"

int ibv_cmd_create_cq(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
		      int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	cq->context = context;
	return verbs_plugin_result(vcmd_create_cq(context, cqe, channel, comp_vector, 0, cq,
						  &udata, NULL));
}

int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	return verbs_plugin_result(verbs_cmd_resize_cq(cq, cqe, &udata));
}

int ibv_cmd_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return verbs_plugin_result(verbs_cmd_req_notify_cq(ibcq, solicited_only));
}

/* A count, or -1 with errno (FACTS 36). */
int ibv_cmd_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	int polled;

	if (verbs_plugin_result(verbs_cmd_poll_cq(ibcq, ne, wc, &polled)))
		return -1;
	return polled;
}

int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	return verbs_plugin_result(verbs_cmd_destroy_cq(cq));
}
