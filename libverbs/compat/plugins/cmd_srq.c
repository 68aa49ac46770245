/* SPDX-License-Identifier: MIT */
/* ibv_cmd_* helpers on basic SRQs (FACTS section H).  Plugins' SRQs may be
 * bare struct ibv_srq (siw's): nothing past it is written. */
#include <pthread.h>

#include "commands.h"

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	struct ibv_srq_init_attr_ex attr_ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = pd,
	};
	int ret;

	srq->context = pd->context;
	pthread_mutex_init(&srq->mutex, NULL);
	pthread_cond_init(&srq->cond, NULL);
	ret = vcmd_create_srq(pd->context, srq, &attr_ex, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	attr->attr.max_wr = attr_ex.attr.max_wr;
	attr->attr.max_sge = attr_ex.attr.max_sge;
	return 0;
}

int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask,
		       struct ibv_modify_srq *cmd, size_t cmd_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);

	return verbs_plugin_result(verbs_cmd_modify_srq(srq, srq_attr, srq_attr_mask, &udata));
}

/* QUERY_SRQ carries no driver data. */
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size)
{
	(void)cmd;
	(void)cmd_size;
	return verbs_plugin_result(verbs_cmd_query_srq(srq, srq_attr));
}

int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	return verbs_plugin_result(verbs_cmd_destroy_srq(srq));
}

int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	return verbs_plugin_result(verbs_cmd_post_srq_recv(srq, wr, bad_wr));
}
