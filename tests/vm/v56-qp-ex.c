/* SPDX-License-Identifier: MIT */
/*
 * One core for the providers of two releases (V56-ADDITIONS 3-4): a v56
 * plugin's struct ibv_qp_ex is 8 bytes longer than v44's, its last
 * pointer (wr_flush, from rdma-core 45) sitting where a v44 core keeps
 * verbs_qp.comp_mask.  Debian 13's rxe fills its send-op pointers, then
 * asks the core to create the QP; a v44 core then writes comp_mask over
 * that pointer.  Run with Debian 13's rxe plugin (plugin mode v56):
 *   - on our core, the word after our struct ibv_qp_ex must still point
 *     into the plugin (the core never writes comp_mask for plugin QPs),
 *     and ibv_qp_to_qp_ex must still answer;
 *   - on upstream's v44 core (VM_REFERENCE_PLUGINS=v56) either pointer
 *     or extended interface must be lost (seen: ibv_qp_to_qp_ex gives
 *     NULL): what upstream's core cannot do, shown.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "vmtest.h"

/* rdma-core 45's IBV_QP_EX_WITH_FLUSH, which our (v44) verbs.h lacks: the
 * v56 plugin sets its wr_flush only when asked */
#define V56_QP_EX_WITH_FLUSH (1ull << 11)

int main(void)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | V56_QP_EX_WITH_FLUSH,
	};
	struct ibv_context *ctx;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	void *after;
	Dl_info info;
	bool into_plugin;

	vt_init("v56-qp-ex");
	if (!MUST(ctx = vt_open_rxe()))
		return vt_finish();
	if (!MUST(attr.pd = ibv_alloc_pd(ctx)))
		return vt_finish();
	if (!MUST(attr.send_cq = attr.recv_cq = ibv_create_cq(ctx, 4, NULL, NULL, 0)))
		return vt_finish();
	if (!MUST(qp = ibv_create_qp_ex(ctx, &attr)))
		return vt_finish();
	qpx = ibv_qp_to_qp_ex(qp);
	/* the QP is the head of the plugin's struct ibv_qp_ex, whichever the
	 * core says; the v56 plugin's wr_flush follows v44's struct */
	memcpy(&after, (char *)qp + sizeof(struct ibv_qp_ex), sizeof(after));
	into_plugin = after && dladdr(after, &info) && info.dli_fname &&
		      strstr(info.dli_fname, "librxe-rdmav34.so");
	printf("ibv_qp_to_qp_ex: %p; the word after struct ibv_qp_ex (v56: wr_flush): %p (%s)\n",
	       (void *)qpx, after, into_plugin ? info.dli_fname : "not into the rxe plugin");
	if (vt_upstream) {
		CHECK(!qpx || !into_plugin,
		      "upstream's v44 core gave the v56 QP its extended interface, wr_flush intact");
	} else {
		CHECK(qpx && qpx->wr_send, "ibv_qp_to_qp_ex: %p", (void *)qpx);
		CHECK(into_plugin, "our core overwrote the v56 plugin's wr_flush");
	}
	CHECK(!ibv_destroy_qp(qp), "destroy QP");
	ibv_destroy_cq(attr.send_cq);
	ibv_dealloc_pd(attr.pd);
	ibv_close_device(ctx);
	return vt_finish();
}
