/* SPDX-License-Identifier: MIT */
/*
 * rxe's completion ring: the input is the kernel's CREATE_CQ answer (the
 * ring's geometry, struct mminfo) and the ring itself (indices, slot
 * size, completions), which rxe_create_cq maps and rxe_poll_cq reads.
 */
#include <rdma/rdma_user_rxe.h>

#include "fuzz_cq.h"

static int rxe_kernel_cmd(const struct fake_cmd *c)
{
	struct ib_uverbs_create_cq_resp *r = c->resp;
	struct rxe_create_cq_resp *d = (void *)(r + 1);
	size_t ring_size;
	uint64_t offset;

	if (c->number != IB_USER_VERBS_CMD_CREATE_CQ)
		return 0;
	r->cq_handle = fake_kernel_handle();
	r->cqe = fuzz_u32(&cq_input);
	d->mi.size = fuzz_u32(&cq_input);
	offset = cq_ring_from_input(&ring_size);
	d->mi.offset = cq_key_for(offset, ring_size, d->mi.size);
	return 0;
}

static const struct fake_driver rxe_kernel = {
	.provider = "rxe",
	.mem_size = CQ_KMEM,
	.cmd = rxe_kernel_cmd,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct verbs_sysfs_dev sysfs = {
		.ibdev_name = "rxe0", .driver_id = RDMA_DRIVER_RXE, .abi_ver = 2,
	};

	return cq_fuzz_one(&rxe_kernel, &sysfs, data, size);
}
