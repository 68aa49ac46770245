/* SPDX-License-Identifier: MIT */
/* The completion ring targets' shared part (fuzz_cq.h). */
#include <stdbool.h>

#include "fuzz_cq.h"

struct fuzz_input cq_input;

static void poll_dry(struct ibv_cq *cq)
{
	struct ibv_wc wc[4];

	for (int i = 0; i < CQ_MAX_POLLS && ibv_poll_cq(cq, 4, wc) > 0; i++)
		;
}

/* Reads every field the provider offers of each entry, as a program
 * asking for IBV_WC_STANDARD_FLAGS does. */
static void poll_ex_dry(struct ibv_cq_ex *cqx)
{
	struct ibv_poll_cq_attr attr = {};
	int ret = ibv_start_poll(cqx, &attr);

	if (ret)
		return;
	for (int i = 0; !ret && i < CQ_MAX_POLLS; i++) {
		ibv_wc_read_opcode(cqx);
		ibv_wc_read_vendor_err(cqx);
		ibv_wc_read_byte_len(cqx);
		ibv_wc_read_imm_data(cqx);
		ibv_wc_read_qp_num(cqx);
		ibv_wc_read_src_qp(cqx);
		ibv_wc_read_wc_flags(cqx);
		ibv_wc_read_slid(cqx);
		ibv_wc_read_sl(cqx);
		ibv_wc_read_dlid_path_bits(cqx);
		ret = ibv_next_poll(cqx);
	}
	ibv_end_poll(cqx);
}

int cq_fuzz_one(const struct fake_driver *driver, const struct verbs_sysfs_dev *sysfs,
		const uint8_t *data, size_t size)
{
	static struct ibv_context *ctx;
	struct ibv_cq_init_attr_ex attr = { .cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_cq_ex *cqx;
	struct ibv_cq *cq;
	bool extended;

	if (!ctx) {
		fake_kernel_start(driver);
		ctx = fake_kernel_open(sysfs);
	}
	cq_input = (struct fuzz_input){ data, size };
	extended = fuzz_u8(&cq_input) & 1;
	fake_kernel.next = FAKE_PAGE;
	fake_kernel.handles = 1;
	if (extended) {
		cqx = ibv_create_cq_ex(ctx, &attr);
		if (!cqx)
			return 0;
		poll_ex_dry(cqx);
		cq = ibv_cq_ex_to_cq(cqx);
	} else {
		cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		if (!cq)
			return 0;
		poll_dry(cq);
	}
	ibv_destroy_cq(cq);
	return 0;
}
