// SPDX-License-Identifier: MIT
/*
 * siw0 through the verbs alone, on both libraries: every object family,
 * what iWARP and siw refuse, receive queue limits, a send posted before
 * the QP is connected, and that every object goes away again.  Traffic
 * needs rdma_cm (siw.sh).
 *
 * Named differences: upstream's siw provider returns negative errno
 * values from ibv_post_send/ibv_post_recv (the man pages promise the
 * positive errno, which ours returns), and a send posted before the QP is
 * connected returns -1 there without setting bad_wr, ENOTCONN here (with
 * nothing left queued); a receive posted to a QP that uses an SRQ crashes
 * upstream's provider and is only tried on ours (EINVAL).  Upstream's
 * provider checks no QP state: it takes receives in RESET and work after
 * a move to ERROR (which the kernel then never completes), where ours
 * refuses them (EINVAL); and it leaves a fenced READ and an inline
 * SEND_WITH_INV to the kernel, which wedges the send queue on them once
 * connected, so those are only tried on ours.
 */
#include <stdlib.h>
#include <unistd.h>

#include "vmtest.h"

static void put_mr(void *mr) { ibv_dereg_mr(mr); }
static void put_qp(void *qp) { ibv_destroy_qp(qp); }
static void put_ah(void *ah) { ibv_destroy_ah(ah); }
static void put_mw(void *mw) { ibv_dealloc_mw(mw); }
static void put_cq_ex(void *cq) { ibv_destroy_cq(ibv_cq_ex_to_cq(cq)); }
static void put_srq(void *srq) { ibv_destroy_srq(srq); }

/* A post's return value as upstream's siw provider gives it. */
static int posted(int err)
{
	return vt_upstream_provider ? -err : err;
}

static struct ibv_context *open_siw(void)
{
	const char *name = getenv("RDMAVM_SIW_DEV");
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name ? name : "siw0"))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

int main(void)
{
	struct ibv_cq_init_attr_ex cq_ex = { .cqe = 4 };
	struct ibv_srq_init_attr srq_attr = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				    .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };
	struct ibv_ah_attr ah = { .port_num = 1 };
	struct ibv_device_attr dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp, *sqp;
	struct ibv_wc wc;
	char *buf;
	int n;

	vt_init("siw-verbs");
	if (!MUST(ctx = open_siw()))
		return vt_finish();
	if (!MUST(!ibv_query_device(ctx, &dev)))
		return vt_finish();
	if (!MUST(pd = ibv_alloc_pd(ctx)))
		return vt_finish();
	if (!MUST(buf = aligned_alloc(4096, 4096)))
		return vt_finish();
	if (!MUST(mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ)))
		return vt_finish();
	CHECK(mr->lkey == mr->rkey && mr->length == 4096, "MR keys %#x/%#x", mr->lkey, mr->rkey);
	if (!MUST(cq = ibv_create_cq(ctx, 16, NULL, NULL, 0)))
		return vt_finish();
	CHECK(cq->cqe >= 16, "cqe %d", cq->cqe);
	EXPECT_RET(0, ibv_req_notify_cq(cq, 0));
	EXPECT_RET(0, ibv_req_notify_cq(cq, 1));
	CHECK(ibv_poll_cq(cq, 1, &wc) == 0, "a completion out of nowhere");

	printf("-- what iWARP and siw refuse\n");
	EXPECT_NULL(EOPNOTSUPP, ibv_create_ah(pd, &ah), put_ah);
	EXPECT_NULL(EOPNOTSUPP, ibv_alloc_mw(pd, IBV_MW_TYPE_1), put_mw);
	EXPECT_NULL(EOPNOTSUPP, ibv_create_cq_ex(ctx, &cq_ex), put_cq_ex);
	EXPECT_RET(EOPNOTSUPP, ibv_resize_cq(cq, 32));
	init.send_cq = init.recv_cq = cq;
	init.qp_type = IBV_QPT_UD;
	EXPECT_NULL(EOPNOTSUPP, ibv_create_qp(pd, &init), put_qp);
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_sge = dev.max_sge + 1;
	EXPECT_NULL(EINVAL, ibv_create_qp(pd, &init), put_qp);
	init.cap.max_send_sge = 2;
	EXPECT_NULL(EINVAL, ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE), put_mr);

	printf("-- queue pairs and shared receive queues\n");
	if (!MUST(qp = ibv_create_qp(pd, &init)))
		return vt_finish();
	CHECK(init.cap.max_send_wr >= 8 && init.cap.max_recv_wr >= 8, "caps %u/%u",
	      init.cap.max_send_wr, init.cap.max_recv_wr);
	EXPECT_RET(0, ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PORT |
						  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX));
	{
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *rbad;
		struct ibv_recv_wr many = rwr;
		struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
					   .opcode = IBV_WR_SEND }, *sbad = NULL;
		struct ibv_sge sges[8];

		/* receives may be posted before the connection exists */
		for (n = 0; n < 64 && !ibv_post_recv(qp, &rwr, &rbad); n++)
			;
		printf("   %d receives posted before the queue was full\n", n);
		CHECK(n == (int)init.cap.max_recv_wr, "%d receives fit, max_recv_wr %u", n,
		      init.cap.max_recv_wr);
		for (int i = 0; i < 8; i++)
			sges[i] = sge;
		many.sg_list = sges;
		many.num_sge = 8;
		EXPECT_RET(posted(ENOMEM), ibv_post_recv(qp, &many, &rbad));
		swr.opcode = IBV_WR_SEND_WITH_IMM;
		EXPECT_RET(posted(EINVAL), ibv_post_send(qp, &swr, &sbad));
		CHECK(sbad == &swr, "bad_wr");
		swr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		EXPECT_RET(posted(EINVAL), ibv_post_send(qp, &swr, &sbad));
		swr.opcode = IBV_WR_SEND;
		sbad = NULL;
		EXPECT_RET(vt_upstream_provider ? -1 : ENOTCONN, ibv_post_send(qp, &swr, &sbad));
		/* upstream leaves bad_wr unset here */
		CHECK(vt_upstream_provider || sbad == &swr, "bad_wr");
		CHECK(ibv_poll_cq(cq, 1, &wc) == 0, "a send completed without a connection");
	}
	EXPECT_RET(0, ibv_destroy_qp(qp));

	printf("-- posts against the QP state\n");
	/* the destroy flushed the receives posted above */
	for (n = 0; ibv_poll_cq(cq, 1, &wc) > 0; n++)
		;
	printf("   %d receives flushed by the destroy\n", n);
	if (!MUST(qp = ibv_create_qp(pd, &init)))
		return vt_finish();
	{
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 4, .sg_list = &sge, .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
					   .opcode = IBV_WR_SEND }, *sbad;
		struct ibv_qp_attr qattr, err = { .qp_state = IBV_QPS_ERR };
		struct ibv_qp_init_attr qinit;

		/* never modified: RESET */
		EXPECT_RET(vt_upstream_provider ? 0 : EINVAL, ibv_post_recv(qp, &rwr, &rbad));
		EXPECT_RET(vt_upstream_provider ? -1 : EINVAL, ibv_post_send(qp, &swr, &sbad));
		EXPECT_RET(0, ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PORT |
							  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX));
		/* what siw's query_qp says of the state, for the record: its
		 * kernel driver does not fill it in */
		if (!ibv_query_qp(qp, &qattr, IBV_QP_STATE, &qinit))
			printf("   query_qp in INIT: qp_state %d\n", qattr.qp_state);
		if (!vt_upstream_provider) {
			swr.opcode = IBV_WR_RDMA_READ;
			swr.send_flags = IBV_SEND_FENCE;
			EXPECT_RET(EINVAL, ibv_post_send(qp, &swr, &sbad));
			swr.opcode = IBV_WR_SEND_WITH_INV;
			swr.send_flags = IBV_SEND_INLINE;
			EXPECT_RET(EINVAL, ibv_post_send(qp, &swr, &sbad));
			swr.opcode = IBV_WR_SEND;
			swr.send_flags = 0;
		} else {
			vt_skip("fenced READ and inline SEND_WITH_INV: they wedge upstream's send queue");
		}
		EXPECT_RET(0, ibv_post_recv(qp, &rwr, &rbad));
		/* the kernel flushes the receive queue at this move, and
		 * never looks at it again */
		EXPECT_RET(0, ibv_modify_qp(qp, &err, IBV_QP_STATE));
		for (n = 0; vt_poll_one(cq, &wc, 1000) == 1; n++)
			CHECK(wc.wr_id == 4 && wc.status == IBV_WC_WR_FLUSH_ERR,
			      "completion %d: wr_id %llu status %d", n,
			      (unsigned long long)wc.wr_id, wc.status);
		/* upstream took the receive posted in RESET too */
		CHECK(n == (vt_upstream_provider ? 2 : 1), "%d receives flushed", n);
		EXPECT_RET(vt_upstream_provider ? 0 : EINVAL, ibv_post_recv(qp, &rwr, &rbad));
		EXPECT_RET(vt_upstream_provider ? 0 : EINVAL, ibv_post_send(qp, &swr, &sbad));
		CHECK(vt_poll_one(cq, &wc, 500) == 0, "a completion for work posted in ERROR");
	}
	EXPECT_RET(0, ibv_destroy_qp(qp));

	printf("-- SRQs siw cannot make\n");
	{
		struct ibv_srq_init_attr_ex ex = {
			.attr = { .max_wr = 8, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ,
			.pd = pd,
			.cq = cq,
		};

		EXPECT_NULL(EOPNOTSUPP, ibv_create_srq_ex(ctx, &ex), put_srq);
		ex.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_TM;
		ex.srq_type = IBV_SRQT_TM;
		ex.tm_cap.max_num_tags = 4;
		ex.tm_cap.max_ops = 4;
		EXPECT_NULL(EOPNOTSUPP, ibv_create_srq_ex(ctx, &ex), put_srq);
	}

	if (!MUST(srq = ibv_create_srq(pd, &srq_attr)))
		return vt_finish();
	init.srq = srq;
	if (!MUST(sqp = ibv_create_qp(pd, &init)))
		return vt_finish();
	{
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1 }, *bad;

		/* upstream's siw provider crashes here (it writes to the
		 * receive queue the QP does not have) */
		if (!vt_upstream_provider)
			EXPECT_RET(EINVAL, ibv_post_recv(sqp, &rwr, &bad));
		else
			vt_skip("ibv_post_recv on an SRQ QP: it crashes upstream's provider");
		EXPECT_RET(0, ibv_post_srq_recv(srq, &rwr, &bad));
	}
	EXPECT_RET(0, ibv_destroy_qp(sqp));
	EXPECT_RET(0, ibv_destroy_srq(srq));
	EXPECT_RET(0, ibv_destroy_cq(cq));
	EXPECT_RET(0, ibv_dereg_mr(mr));
	EXPECT_RET(0, ibv_dealloc_pd(pd));
	EXPECT_RET(0, ibv_close_device(ctx));
	free(buf);
	return vt_finish();
}
