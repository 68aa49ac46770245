/* SPDX-License-Identifier: MIT */
/* ibv_cmd_* helpers on AHs and multicast groups (FACTS section H). */
#include "commands.h"

/* The request is the core's own: only the response has driver bytes. */
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(NULL, 0, 0, resp, sizeof(*resp), resp_size);

	return verbs_plugin_result(verbs_cmd_create_ah(pd, ah, attr, &udata));
}

int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	return verbs_plugin_result(verbs_cmd_destroy_ah(ah));
}

int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return verbs_plugin_result(verbs_cmd_attach_mcast(qp, gid, lid));
}

/* Leaving a group is a destroy: done on a dead device (FACTS 43). */
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return verbs_plugin_result(vcmd_destroy_result(verbs_cmd_detach_mcast(qp, gid, lid)));
}
