/* SPDX-License-Identifier: MIT */
/* Kernel commands for protection domains, memory regions and windows. */
#include <errno.h>
#include <string.h>

#include "cmd.h"

int verbs_cmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		       const struct verbs_udata *udata)
{
	struct ib_uverbs_alloc_pd req = {};
	struct ib_uverbs_alloc_pd_resp resp;
	int ret;

	ret = vcmd_write(ctx, IB_USER_VERBS_CMD_ALLOC_PD, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	pd->context = ctx;
	pd->handle = resp.pd_handle;
	return 0;
}

int verbs_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return vcmd_destroy(pd->context, VCMD_DESTROY_PD, UVERBS_OBJECT_PD,
			    UVERBS_METHOD_PD_DESTROY, pd->handle,
			    IB_USER_VERBS_CMD_DEALLOC_PD);
}

/*
 * The kernel has no query on PDs, but QP_CREATE checks a call's attributes
 * in the order given before its handler runs: a PD handle followed by an
 * attribute no kernel defines fails at the PD when the handle is bad
 * (ENOENT: nothing has it; EINVAL: another kind of object has it) and at
 * the unknown attribute (EPROTONOSUPPORT) when it names a PD.  The new
 * QP's handle attribute, which the handler needs, is never sent, so the
 * handler cannot run and nothing is made.  That the method exists is
 * asked first the same way: without attributes it fails for the missing
 * mandatory ones (EINVAL), where an unknown method is EPROTONOSUPPORT.
 */
int verbs_cmd_check_pd(struct ibv_context *ctx, uint32_t pd_handle)
{
	/* The last id of the core's namespace, which numbers each method's
	 * attributes from 0; drivers' ids start right after it. */
	const uint16_t no_such_attr = UVERBS_UDATA_DRIVER_DATA_FLAG - 1;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE);
	ret = vcmd_ioctl_only(ctx, VCMD_CREATE_QP, &c);
	if (ret != EINVAL)
		return ret;
	vioctl_idr(&c, UVERBS_ATTR_CREATE_QP_PD_HANDLE, pd_handle);
	vioctl_in_u32(&c, no_such_attr, 0);
	ret = vioctl_exec(ctx, &c);
	return ret == EPROTONOSUPPORT ? 0 : ret;
}

void vcmd_init_mr(struct verbs_mr *mr, struct ibv_pd *pd, void *addr, size_t length,
		  struct vcmd_mr_keys keys, enum verbs_mr_kind kind)
{
	mr->ibv_mr.context = pd->context;
	mr->ibv_mr.pd = pd;
	mr->ibv_mr.addr = addr;
	mr->ibv_mr.length = length;
	mr->ibv_mr.handle = keys.handle;
	mr->ibv_mr.lkey = keys.lkey;
	mr->ibv_mr.rkey = keys.rkey;
	mr->kind = kind;
}

int verbs_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		     uint64_t iova, int access, struct verbs_mr *mr,
		     const struct verbs_udata *udata)
{
	struct ib_uverbs_reg_mr req = {
		.start = (uintptr_t)addr,
		.length = length,
		.hca_va = iova,
		.pd_handle = pd->handle,
		.access_flags = access,
	};
	struct ib_uverbs_reg_mr_resp resp;
	int ret;

	ret = vcmd_write(pd->context, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	vcmd_init_mr(mr, pd, addr, length,
		     (struct vcmd_mr_keys){ resp.mr_handle, resp.lkey, resp.rkey }, VERBS_MR_USER);
	mr->access = access;
	return 0;
}

int vcmd_rereg_mr(struct verbs_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		  size_t length, uint64_t iova, int access, const struct verbs_udata *udata)
{
	struct ib_uverbs_rereg_mr req = {
		.mr_handle = mr->ibv_mr.handle,
		.flags = flags,
		.start = (uintptr_t)addr,
		.length = length,
		.hca_va = iova,
		.pd_handle = (flags & IBV_REREG_MR_CHANGE_PD) ? pd->handle : 0,
		.access_flags = access,
	};
	struct ib_uverbs_rereg_mr_resp resp;
	int ret;

	ret = vcmd_write(mr->ibv_mr.context, IB_USER_VERBS_CMD_REREG_MR, &req,
			 sizeof(req), &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	mr->ibv_mr.lkey = resp.lkey;
	mr->ibv_mr.rkey = resp.rkey;
	return 0;
}

int verbs_cmd_rereg_mr(struct verbs_mr *mr, int flags, struct ibv_pd *pd,
		       void *addr, size_t length, int access,
		       const struct verbs_udata *udata)
{
	int ret = vcmd_rereg_mr(mr, flags, pd, addr, length, (uintptr_t)addr, access, udata);

	if (ret)
		return ret;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->ibv_mr.pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->ibv_mr.addr = addr;
		mr->ibv_mr.length = length;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		mr->access = access;
	return 0;
}

int verbs_cmd_dereg_mr(struct verbs_mr *mr)
{
	return vcmd_destroy(mr->ibv_mr.context, VCMD_DESTROY_MR, UVERBS_OBJECT_MR,
			    UVERBS_METHOD_MR_DESTROY, mr->ibv_mr.handle,
			    IB_USER_VERBS_CMD_DEREG_MR);
}

int verbs_cmd_query_mr(struct ibv_pd *pd, uint32_t handle, struct verbs_mr *mr)
{
	uint32_t lkey, rkey;
	uint64_t length;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
	vioctl_idr(&c, UVERBS_ATTR_QUERY_MR_HANDLE, handle);
	vioctl_out(&c, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &lkey, sizeof(lkey));
	vioctl_out(&c, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &rkey, sizeof(rkey));
	vioctl_out(&c, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &length, sizeof(length));
	ret = vcmd_ioctl_only(pd->context, VCMD_QUERY_MR, &c);
	if (ret)
		return ret;
	vcmd_init_mr(mr, pd, NULL, length, (struct vcmd_mr_keys){ handle, lkey, rkey },
		     VERBS_MR_IMPORTED);
	return 0;
}

int verbs_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			    uint64_t iova, int fd, int access, struct verbs_mr *mr)
{
	struct ib_uverbs_attr *handle;
	uint32_t lkey, rkey;
	struct vioctl c;
	int ret;

	vioctl_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
	handle = vioctl_new(&c, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);
	vioctl_idr(&c, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd->handle);
	vioctl_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, offset);
	vioctl_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, length);
	vioctl_in_u64(&c, UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova);
	/* A raw fd: an s32 input, not an object fd attribute. */
	vioctl_in_u32(&c, UVERBS_ATTR_REG_DMABUF_MR_FD, (uint32_t)fd);
	vioctl_in_u32(&c, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, access);
	vioctl_out(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &lkey, sizeof(lkey));
	vioctl_out(&c, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &rkey, sizeof(rkey));
	ret = vcmd_ioctl_only(pd->context, VCMD_REG_DMABUF_MR, &c);
	if (ret)
		return ret;
	vcmd_init_mr(mr, pd, (void *)(uintptr_t)offset, length,
		     (struct vcmd_mr_keys){ vioctl_result(handle), lkey, rkey }, VERBS_MR_DMABUF);
	mr->access = access;
	return 0;
}

int verbs_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		       struct ibv_mw *mw, const struct verbs_udata *udata)
{
	struct ib_uverbs_alloc_mw req = { .pd_handle = pd->handle, .mw_type = type };
	struct ib_uverbs_alloc_mw_resp resp;
	int ret;

	ret = vcmd_write(pd->context, IB_USER_VERBS_CMD_ALLOC_MW, &req, sizeof(req),
			 &resp, sizeof(resp), udata);
	if (ret)
		return ret;
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = resp.rkey;
	mw->handle = resp.mw_handle;
	mw->type = type;
	return 0;
}

int verbs_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return vcmd_destroy(mw->context, VCMD_DESTROY_MW, UVERBS_OBJECT_MW,
			    UVERBS_METHOD_MW_DESTROY, mw->handle,
			    IB_USER_VERBS_CMD_DEALLOC_MW);
}
