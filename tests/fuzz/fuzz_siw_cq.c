/* SPDX-License-Identifier: MIT */
/*
 * siw's completion array: the input is the kernel's CREATE_CQ answer
 * (number of entries; the key to map them is the fake kernel's) and the
 * array itself, whose entries siw_poll_cq reads while they are valid.
 */
#include <rdma/siw-abi.h>

#include "fuzz_cq.h"

static int siw_kernel_cmd(const struct fake_cmd *c)
{
	struct ib_uverbs_create_cq_resp *r = c->resp;
	struct siw_uresp_create_cq *d = (void *)(r + 1);
	size_t ring_size;
	uint64_t offset;

	if (c->number != IB_USER_VERBS_CMD_CREATE_CQ)
		return 0;
	r->cq_handle = fake_kernel_handle();
	r->cqe = fuzz_u32(&cq_input);
	d->num_cqe = fuzz_u32(&cq_input);
	offset = cq_ring_from_input(&ring_size);
	d->cq_key = cq_key_for(offset, ring_size, (uint64_t)d->num_cqe * sizeof(struct siw_cqe) +
				   sizeof(struct siw_cq_ctrl));
	return 0;
}

static const struct fake_driver siw_kernel = {
	.provider = "siw",
	.mem_size = CQ_KMEM,
	.cmd = siw_kernel_cmd,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct verbs_sysfs_dev sysfs = {
		.ibdev_name = "siw0", .driver_id = RDMA_DRIVER_SIW, .abi_ver = 1,
	};

	return cq_fuzz_one(&siw_kernel, &sysfs, data, size);
}
