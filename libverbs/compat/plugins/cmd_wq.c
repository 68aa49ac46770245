/* SPDX-License-Identifier: MIT */
/*
 * ibv_cmd_* helpers on work queues and their RSS indirection tables
 * (FACTS section H).  Only plugins of NICs with RSS (mlx5, mlx4, mana)
 * call them: rxe and siw have no WQs, so the test guests cannot make one.
 */
#include "commands.h"

int ibv_cmd_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr,
		      struct ibv_wq *wq, struct ibv_create_wq *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);
	int ret;

	if (wq_init_attr->comp_mask >= IBV_WQ_INIT_ATTR_RESERVED)
		return verbs_plugin_result(EINVAL);
	ret = verbs_cmd_create_wq(context, wq_init_attr, wq, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	if (resp_size >= sizeof(*resp)) {
		resp->wq_handle = wq->handle;
		resp->wqn = wq->wq_num;
		resp->max_wr = wq_init_attr->max_wr;
		resp->max_sge = wq_init_attr->max_sge;
	}
	return 0;
}

int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, struct ibv_modify_wq *cmd,
		      size_t cmd_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size, NULL, 0, 0);

	if (attr->attr_mask >= IBV_WQ_ATTR_RESERVED || attr->flags_mask >= IBV_WQ_FLAGS_RESERVED)
		return verbs_plugin_result(EINVAL);
	return verbs_plugin_result(verbs_cmd_modify_wq(wq, attr, &udata));
}

/* Returns once the WQ's reported async events are acknowledged (FACTS 43). */
int ibv_cmd_destroy_wq(struct ibv_wq *wq)
{
	return verbs_plugin_result(verbs_cmd_destroy_wq(wq));
}

int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
				 struct ibv_rwq_ind_table_init_attr *init_attr,
				 struct ibv_rwq_ind_table *rwq_ind_table,
				 struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
				 size_t resp_size)
{
	/* No request buffer: the provider adds only response bytes. */
	struct verbs_udata udata = verbs_plugin_udata(NULL, 0, 0, resp, sizeof(*resp), resp_size);
	int ret;

	ret = verbs_cmd_create_rwq_ind_table(context, init_attr, rwq_ind_table, &udata);
	if (ret)
		return verbs_plugin_result(ret);
	if (resp_size >= sizeof(*resp)) {
		resp->ind_tbl_handle = rwq_ind_table->ind_tbl_handle;
		resp->ind_tbl_num = rwq_ind_table->ind_tbl_num;
	}
	return 0;
}

int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)
{
	return verbs_plugin_result(verbs_cmd_destroy_rwq_ind_table(rwq_ind_table));
}
