/* SPDX-License-Identifier: MIT */
/* ibv_cmd_* helpers on PDs, MRs and MWs (FACTS section H). */
#include <stdint.h>

#include "commands.h"

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	return verbs_plugin_result(verbs_cmd_alloc_pd(context, pd, &udata));
}

int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return verbs_plugin_result(verbs_cmd_dealloc_pd(pd));
}

/* Also sets pd, addr and length, as the core's ibv_reg_mr does after. */
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access,
		   struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	/* The whole address space (implicit ODP) starts at 0; SIZE_MAX is
	 * the kernel's UINT64_MAX on LP64. */
	if ((access & IBV_ACCESS_ON_DEMAND) && length == SIZE_MAX && addr)
		return verbs_plugin_result(EINVAL);
	return verbs_plugin_result(verbs_cmd_reg_mr(pd, addr, length, hca_va, access, vmr,
						    &udata));
}

int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length,
		     uint64_t hca_va, int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_sz,
						      resp, sizeof(*resp), resp_sz);
	int ret;

	ret = vcmd_rereg_mr(vmr, flags, pd, addr, length, hca_va, access, &udata);
	if (!ret && (flags & IBV_REREG_MR_CHANGE_PD))
		vmr->ibv_mr.context = pd->context;
	return verbs_plugin_result(ret);
}

int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	return verbs_plugin_result(verbs_cmd_dereg_mr(vmr));
}

int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle)
{
	return verbs_plugin_result(verbs_cmd_query_mr(pd, mr_handle, vmr));
}

int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
			  int fd, int access, struct verbs_mr *vmr)
{
	return verbs_plugin_result(verbs_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd,
							   access, vmr));
}

int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw,
		     struct ibv_alloc_mw *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size)
{
	struct verbs_udata udata = verbs_plugin_udata(cmd, sizeof(*cmd), cmd_size,
						      resp, sizeof(*resp), resp_size);

	return verbs_plugin_result(verbs_cmd_alloc_mw(pd, type, mw, &udata));
}

int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return verbs_plugin_result(verbs_cmd_dealloc_mw(mw));
}
