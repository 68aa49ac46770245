/* SPDX-License-Identifier: MIT */
/*
 * Kernel commands for device memory and counter objects, and MR advice:
 * methods that exist only over ioctl.  Device memory and counters belong
 * to NICs (mlx5); neither rxe nor siw has them, so the test guests cannot
 * make one.  ADVISE_MR is for on-demand-paging MRs, which rxe and siw do
 * not advise either (the kernel answers EOPNOTSUPP).
 */
#include <errno.h>
#include <stdint.h>

#include "cmd.h"

int verbs_cmd_advise_mr(struct ibv_pd *pd, uint32_t advice, uint32_t flags,
			const struct ibv_sge *sg_list, uint32_t num_sge)
{
	struct vioctl c;

	/* ibv_sge is struct ib_uverbs_sge; the length field is 16 bits. */
	if ((size_t)num_sge * sizeof(*sg_list) > UINT16_MAX)
		return EINVAL;
	vioctl_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR);
	vioctl_idr(&c, UVERBS_ATTR_ADVISE_MR_PD_HANDLE, pd->handle);
	vioctl_const(&c, UVERBS_ATTR_ADVISE_MR_ADVICE, advice);
	vioctl_in_u32(&c, UVERBS_ATTR_ADVISE_MR_FLAGS, flags);
	vioctl_in(&c, UVERBS_ATTR_ADVISE_MR_SGE_LIST, sg_list, num_sge * sizeof(*sg_list));
	return vcmd_ioctl_only(pd->context, VCMD_ADVISE_MR, &c);
}

/* Runs a creation with the provider's attributes appended; the new
 * object's handle lands in *handle. */
static int create_linked(struct ibv_context *ctx, enum vcmd_method method, struct vioctl *c,
			 const struct vioctl_chain *link, struct ib_uverbs_attr *new_handle,
			 uint32_t *handle)
{
	int ret;

	vioctl_link(c, link);
	ret = vcmd_ioctl_only(ctx, method, c);
	if (!ret)
		*handle = vioctl_result(new_handle);
	return ret;
}

int verbs_cmd_alloc_dm(struct ibv_context *ctx, uint64_t length, uint32_t log_align,
		       uint32_t *handle, const struct vioctl_chain *link)
{
	struct ib_uverbs_attr *new_handle;
	struct vioctl c;

	vioctl_init(&c, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
	new_handle = vioctl_new(&c, UVERBS_ATTR_ALLOC_DM_HANDLE);
	vioctl_in_u64(&c, UVERBS_ATTR_ALLOC_DM_LENGTH, length);
	vioctl_in_u32(&c, UVERBS_ATTR_ALLOC_DM_ALIGNMENT, log_align);
	return create_linked(ctx, VCMD_DM, &c, link, new_handle, handle);
}

int verbs_cmd_free_dm(struct ibv_context *ctx, uint32_t handle)
{
	struct vioctl c;

	vioctl_init(&c, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE);
	vioctl_idr(&c, UVERBS_ATTR_FREE_DM_HANDLE, handle);
	return vcmd_destroy_result(vcmd_ioctl_only(ctx, VCMD_DM, &c));
}

int verbs_cmd_reg_dm_mr(struct ibv_pd *pd, uint32_t dm_handle, uint64_t offset,
			size_t length, unsigned int access, struct verbs_mr *mr,
			const struct vioctl_chain *link)
{
	struct ib_uverbs_attr *handle;
	uint32_t lkey, rkey;
	struct vioctl c;
	int ret;

	if (!(access & IBV_ACCESS_ZERO_BASED))
		return EINVAL;
	vioctl_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG);
	handle = vioctl_new(&c, UVERBS_ATTR_REG_DM_MR_HANDLE);
	vioctl_in_u64(&c, UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
	vioctl_in_u64(&c, UVERBS_ATTR_REG_DM_MR_LENGTH, length);
	vioctl_idr(&c, UVERBS_ATTR_REG_DM_MR_PD_HANDLE, pd->handle);
	vioctl_in_u32(&c, UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
	vioctl_idr(&c, UVERBS_ATTR_REG_DM_MR_DM_HANDLE, dm_handle);
	vioctl_out(&c, UVERBS_ATTR_REG_DM_MR_RESP_LKEY, &lkey, sizeof(lkey));
	vioctl_out(&c, UVERBS_ATTR_REG_DM_MR_RESP_RKEY, &rkey, sizeof(rkey));
	vioctl_link(&c, link);
	ret = vcmd_ioctl_only(pd->context, VCMD_DM, &c);
	if (ret)
		return ret;
	vcmd_init_mr(mr, pd, NULL, length,
		     (struct vcmd_mr_keys){ vioctl_result(handle), lkey, rkey }, VERBS_MR_USER);
	return 0;
}

int verbs_cmd_create_counters(struct ibv_context *ctx, uint32_t *handle,
			      const struct vioctl_chain *link)
{
	struct ib_uverbs_attr *new_handle;
	struct vioctl c;

	vioctl_init(&c, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE);
	new_handle = vioctl_new(&c, UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
	return create_linked(ctx, VCMD_COUNTERS, &c, link, new_handle, handle);
}

int verbs_cmd_destroy_counters(struct ibv_context *ctx, uint32_t handle)
{
	struct vioctl c;

	vioctl_init(&c, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY);
	vioctl_idr(&c, UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, handle);
	return vcmd_destroy_result(vcmd_ioctl_only(ctx, VCMD_COUNTERS, &c));
}

int verbs_cmd_read_counters(struct ibv_context *ctx, uint32_t handle, uint64_t *values,
			    uint32_t count, uint32_t flags, const struct vioctl_chain *link)
{
	struct vioctl c;

	if ((size_t)count * sizeof(*values) > UINT16_MAX)
		return EINVAL;
	vioctl_init(&c, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ);
	vioctl_idr(&c, UVERBS_ATTR_READ_COUNTERS_HANDLE, handle);
	vioctl_out(&c, UVERBS_ATTR_READ_COUNTERS_BUFF, values, count * sizeof(*values));
	vioctl_in_u32(&c, UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
	vioctl_link(&c, link);
	return vcmd_ioctl_only(ctx, VCMD_COUNTERS, &c);
}
