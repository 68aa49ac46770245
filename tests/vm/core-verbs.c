/* SPDX-License-Identifier: MIT */
/*
 * The libibverbs core on the real kernel, through the public API only, in
 * each command mode (OPENVERBS_CMD_MODE is read when a device is opened):
 * device queries, every object family, a loopback RC send with completion
 * events, the address of a UD reply (RoCE v2 over IPv4), port events, and
 * finally the removal of rxe0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "vmtest.h"

static const char *mode;

static struct ibv_device *find_device(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

static void queries(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex dev;
	struct ibv_port_attr port;
	struct ibv_gid_entry table[8], entry;
	union ibv_gid gid;
	char addr[INET6_ADDRSTRLEN];
	__be16 pkey;
	ssize_t n;

	if (!MUST(ibv_query_device_ex(ctx, NULL, &dev) == 0))
		exit(vt_finish());
	if (!MUST(dev.orig_attr.phys_port_cnt == 1 && dev.orig_attr.max_qp > 0))
		exit(vt_finish());
	if (!MUST(dev.phys_port_cnt_ex == 1))
		exit(vt_finish());
	if (!MUST(ibv_query_port(ctx, 1, &port) == 0))
		exit(vt_finish());
	if (!MUST(port.state == IBV_PORT_ACTIVE && port.link_layer == IBV_LINK_LAYER_ETHERNET))
		exit(vt_finish());
	if (!MUST(ibv_query_port(ctx, 2, &port) == EINVAL))
		exit(vt_finish());
	if (!MUST(ibv_query_gid(ctx, 1, vt_gid_index(), &gid) == 0))
		exit(vt_finish());
	inet_ntop(AF_INET6, gid.raw, addr, sizeof(addr));
	if (!MUST(!strcmp(addr, "::ffff:192.0.2.1")))
		exit(vt_finish());
	if (!MUST(ibv_query_gid_ex(ctx, 1, vt_gid_index(), &entry, 0) == 0))
		exit(vt_finish());
	if (!MUST(!memcmp(&entry.gid, &gid, sizeof(gid)) && entry.gid_type == IBV_GID_TYPE_ROCE_V2))
		exit(vt_finish());
	if (!MUST(entry.ndev_ifindex > 0))
		exit(vt_finish());
	if (!MUST(ibv_query_gid_ex(ctx, 1, 100, &entry, 0) == ENODATA))
		exit(vt_finish());
	n = ibv_query_gid_table(ctx, table, 8, 0);
	if (!MUST(n == 2))
		exit(vt_finish());
	if (!MUST(table[1].gid_index == (uint32_t)vt_gid_index() && table[1].port_num == 1))
		exit(vt_finish());
	if (!MUST(ibv_query_pkey(ctx, 1, 0, &pkey) == 0 && pkey == htons(0xffff)))
		exit(vt_finish());
	if (!MUST(ibv_get_pkey_index(ctx, 1, pkey) == 0))
		exit(vt_finish());
	printf("ok [%s] queries: %s, max_qp %d, GID %s\n", mode,
	       ibv_get_device_name(ctx->device), dev.orig_attr.max_qp, addr);
}

/* Waits for one completion through the channel, as event-driven programs do. */
static void wait_completion(struct ibv_comp_channel *channel, struct ibv_cq *cq,
			    struct ibv_wc *wc)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (!MUST(n >= 0))
			exit(vt_finish());
		if (n)
			return;
		if (!MUST(ibv_get_cq_event(channel, &ev_cq, &ev_ctx) == 0))
			exit(vt_finish());
		if (!MUST(ev_cq == cq && ev_ctx == (void *)cq))
			exit(vt_finish());
		ibv_ack_cq_events(cq, 1);
		if (!MUST(ibv_req_notify_cq(cq, 0) == 0))
			exit(vt_finish());
	}
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = srq ? 0 : 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_qp *qp = ibv_create_qp(pd, &attr);

	if (!MUST(qp))
		exit(vt_finish());
	if (!MUST(attr.cap.max_send_wr >= 4))
		exit(vt_finish());
	if (!MUST(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				IBV_QP_ACCESS_FLAGS) == 0))
		exit(vt_finish());
	if (!MUST(qp->state == IBV_QPS_INIT))
		exit(vt_finish());
	return qp;
}

static void connect_rc(struct ibv_qp *qp, uint32_t remote_qpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = remote_qpn,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *gid, .sgid_index = vt_gid_index(), .hop_limit = 1 } },
	};

	if (!MUST(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER) == 0))
		exit(vt_finish());
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	if (!MUST(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == 0))
		exit(vt_finish());
}

/* Two RC QPs on one port, one receiving through an SRQ: a send from a to
 * b lands in b's SRQ buffer, reported through the completion channel. */
static void objects_and_traffic(struct ibv_context *ctx)
{
	static char buf[2][4096];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_comp_channel *channel = ibv_create_comp_channel(ctx);
	struct ibv_srq_init_attr srq_attr = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq_attr srq_now;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_qp *a, *b;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	union ibv_gid gid;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *bad_rwr;
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad_swr;

	if (!MUST(pd && channel))
		exit(vt_finish());
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!MUST(mr && mr->addr == buf && mr->length == sizeof(buf) && mr->pd == pd))
		exit(vt_finish());
	cq = ibv_create_cq(ctx, 16, NULL, channel, 0);
	if (!MUST(cq && cq->cqe >= 16 && cq->channel == channel))
		exit(vt_finish());
	cq->cq_context = cq;
	if (!MUST(ibv_destroy_comp_channel(channel) == EBUSY))
		exit(vt_finish());
	if (!MUST(ibv_req_notify_cq(cq, 0) == 0))
		exit(vt_finish());
	srq = ibv_create_srq(pd, &srq_attr);
	if (!MUST(srq && srq_attr.attr.max_wr >= 4))
		exit(vt_finish());
	if (!MUST(ibv_query_srq(srq, &srq_now) == 0 && srq_now.max_wr >= 4))
		exit(vt_finish());

	a = rc_qp(pd, cq, NULL);
	b = rc_qp(pd, cq, srq);
	if (!MUST(ibv_query_qp(b, &qa, IBV_QP_STATE | IBV_QP_PORT, &qia) == 0))
		exit(vt_finish());
	if (!MUST(qa.qp_state == IBV_QPS_INIT && qa.port_num == 1 && qia.srq == srq))
		exit(vt_finish());
	if (!MUST(ibv_query_gid(ctx, 1, vt_gid_index(), &gid) == 0))
		exit(vt_finish());
	connect_rc(a, b->qp_num, &gid);
	connect_rc(b, a->qp_num, &gid);

	sge = (struct ibv_sge){ (uintptr_t)buf[1], 64, mr->lkey };
	if (!MUST(ibv_post_srq_recv(srq, &rwr, &bad_rwr) == 0))
		exit(vt_finish());
	strcpy(buf[0], "hello from a");
	sge = (struct ibv_sge){ (uintptr_t)buf[0], 64, mr->lkey };
	if (!MUST(ibv_post_send(a, &swr, &bad_swr) == 0))
		exit(vt_finish());
	for (int done = 0; done != 3;) {
		wait_completion(channel, cq, &wc);
		if (!MUST(wc.status == IBV_WC_SUCCESS))
			exit(vt_finish());
		done |= wc.wr_id == 1 ? 1 : 2;
		if (wc.wr_id == 2)
			if (!MUST(wc.byte_len == 64 && wc.qp_num == b->qp_num))
				exit(vt_finish());
	}
	if (!MUST(!strcmp(buf[1], "hello from a")))
		exit(vt_finish());

	/* destroy_cq below returns only because every event was acked. */
	if (!MUST(ibv_destroy_qp(a) == 0))
		exit(vt_finish());
	if (!MUST(ibv_destroy_qp(b) == 0))
		exit(vt_finish());
	if (!MUST(ibv_destroy_srq(srq) == 0))
		exit(vt_finish());
	if (!MUST(ibv_destroy_cq(cq) == 0))
		exit(vt_finish());
	if (!MUST(ibv_destroy_comp_channel(channel) == 0))
		exit(vt_finish());
	if (!MUST(ibv_dereg_mr(mr) == 0))
		exit(vt_finish());
	if (!MUST(ibv_dealloc_pd(pd) == 0))
		exit(vt_finish());
	printf("ok [%s] PD, MR, channel, CQ, SRQ, 2 RC QPs, a send with events\n", mode);
}

/* A UD message to ourselves, and the address handle to answer it. */
static void ud_reply_address(struct ibv_context *ctx)
{
	static char buf[2][4096];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x1111 };
	struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1,
				       .grh = { .sgid_index = vt_gid_index(), .hop_limit = 1 } };
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_ah *ah, *reply;
	union ibv_gid own;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *bad_rwr;
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad_swr;
	int got = 0;

	if (!MUST(pd && cq))
		exit(vt_finish());
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	qp = ibv_create_qp(pd, &attr);
	if (!MUST(mr && qp))
		exit(vt_finish());
	if (!MUST(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0))
		exit(vt_finish());
	qa.qp_state = IBV_QPS_RTR;
	if (!MUST(ibv_modify_qp(qp, &qa, IBV_QP_STATE) == 0))
		exit(vt_finish());
	qa.qp_state = IBV_QPS_RTS;
	if (!MUST(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0))
		exit(vt_finish());
	if (!MUST(ibv_query_gid(ctx, 1, vt_gid_index(), &own) == 0))
		exit(vt_finish());
	ah_attr.grh.dgid = own;
	ah = ibv_create_ah(pd, &ah_attr);
	if (!MUST(ah && ah->pd == pd))
		exit(vt_finish());

	sge = (struct ibv_sge){ (uintptr_t)buf[1], 40 + 16, mr->lkey };
	if (!MUST(ibv_post_recv(qp, &rwr, &bad_rwr) == 0))
		exit(vt_finish());
	sge = (struct ibv_sge){ (uintptr_t)buf[0], 16, mr->lkey };
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qp->qp_num;
	swr.wr.ud.remote_qkey = 0x1111;
	if (!MUST(ibv_post_send(qp, &swr, &bad_swr) == 0))
		exit(vt_finish());
	while (got != 3) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (!MUST(n >= 0))
			exit(vt_finish());
		if (!n)
			continue;
		if (!MUST(wc.status == IBV_WC_SUCCESS))
			exit(vt_finish());
		got |= wc.wr_id == 1 ? 1 : 2;
		if (wc.wr_id == 2)
			break;
	}
	if (!MUST(wc.wc_flags & IBV_WC_GRH))
		exit(vt_finish());
	memset(&ah_attr, 0xee, sizeof(ah_attr));
	if (!MUST(ibv_init_ah_from_wc(ctx, 1, &wc, (struct ibv_grh *)buf[1], &ah_attr) == 0))
		exit(vt_finish());
	if (!MUST(ah_attr.is_global && ah_attr.port_num == 1))
		exit(vt_finish());
	/* The sender was us: its IPv4-mapped address, our RoCE v2 GID. */
	if (!MUST(ah_attr.grh.sgid_index == vt_gid_index()))
		exit(vt_finish());
	if (!MUST(!memcmp(&ah_attr.grh.dgid, &own, sizeof(own))))
		exit(vt_finish());
	reply = ibv_create_ah_from_wc(pd, &wc, (struct ibv_grh *)buf[1], 1);
	if (!MUST(reply))
		exit(vt_finish());
	if (!MUST(ibv_destroy_ah(reply) == 0))
		exit(vt_finish());
	if (!MUST(ibv_destroy_ah(ah) == 0))
		exit(vt_finish());
	if (!MUST(ibv_destroy_qp(qp) == 0))
		exit(vt_finish());
	if (!MUST(ibv_destroy_cq(cq) == 0))
		exit(vt_finish());
	if (!MUST(ibv_dereg_mr(mr) == 0))
		exit(vt_finish());
	if (!MUST(ibv_dealloc_pd(pd) == 0))
		exit(vt_finish());
	printf("ok [%s] UD loopback, reply AH from the work completion\n", mode);
}

/*
 * Port events: the netdev under rxe0 goes down and up.  (Device removal
 * under an open context, DEVICE_FATAL, cannot be shown here: rxe and siw
 * cannot disassociate, so removing them waits for every context to close.)
 */
static void next_event(struct ibv_context *ctx, enum ibv_event_type type)
{
	struct ibv_async_event event;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	do {
		if (!MUST(poll(&pfd, 1, 10000) == 1))
			exit(vt_finish());
		if (!MUST(ibv_get_async_event(ctx, &event) == 0))
			exit(vt_finish());
		ibv_ack_async_event(&event);
	} while (event.event_type != type);
	if (!MUST(event.element.port_num == 1))
		exit(vt_finish());
}

static void port_events(struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	const char *netdev = getenv("RDMAVM_RXE_NETDEV");
	char cmd[128];

	if (!MUST(ctx && netdev))
		exit(vt_finish());
	snprintf(cmd, sizeof(cmd), "ip link set %s down", netdev);
	if (!MUST(system(cmd) == 0))
		exit(vt_finish());
	next_event(ctx, IBV_EVENT_PORT_ERR);
	snprintf(cmd, sizeof(cmd), "ip link set %s up", netdev);
	if (!MUST(system(cmd) == 0))
		exit(vt_finish());
	next_event(ctx, IBV_EVENT_PORT_ACTIVE);
	if (!MUST(ibv_close_device(ctx) == 0))
		exit(vt_finish());
	printf("ok [%s] async events: PORT_ERR, PORT_ACTIVE\n", mode);
}

/* A removed device leaves new lists; pointers from old ones stay valid. */
static void removal(struct ibv_device *dev)
{
	struct ibv_device **list;

	if (!MUST(system("rdma link delete rxe0") == 0))
		exit(vt_finish());
	list = ibv_get_device_list(NULL);
	if (!MUST(list && !find_device(list, "rxe0")))
		exit(vt_finish());
	if (!MUST(!strcmp(ibv_get_device_name(dev), "rxe0")))
		exit(vt_finish());
	errno = 0;
	if (!MUST(ibv_open_device(dev) == NULL && errno))
		exit(vt_finish());
	ibv_free_device_list(list);
	printf("ok [%s] removed rxe0: unlisted, old handle still readable\n", mode);
}

int main(void)
{
	static const char *const modes[] = { "auto", "write", "ioctl" };
	struct ibv_device **list;
	struct ibv_device *rxe;
	int n;

	vt_init("core-verbs");
	mode = "list";
	list = ibv_get_device_list(&n);
	if (!MUST(list && n >= 1))
		return vt_finish();
	rxe = find_device(list, "rxe0");
	if (!MUST(rxe))
		return vt_finish();
	if (!MUST(ibv_get_device_index(rxe) >= 0 && ibv_get_device_guid(rxe) != 0))
		return vt_finish();
	if (!MUST(rxe->transport_type == IBV_TRANSPORT_IB && rxe->node_type == IBV_NODE_CA))
		return vt_finish();
	printf("ok %d device(s) listed\n", n);

	for (unsigned int i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct ibv_context *ctx;

		mode = modes[i];
		setenv("OPENVERBS_CMD_MODE", mode, 1);
		printf("== command mode %s\n", mode);
		ctx = ibv_open_device(rxe);
		if (!MUST(ctx && ctx->async_fd >= 0 && ctx->num_comp_vectors > 0))
			return vt_finish();
		queries(ctx);
		objects_and_traffic(ctx);
		ud_reply_address(ctx);
		if (!MUST(ibv_close_device(ctx) == 0))
			return vt_finish();
	}
	mode = "auto";
	setenv("OPENVERBS_CMD_MODE", mode, 1);
	port_events(rxe);
	removal(rxe);
	ibv_free_device_list(list);
	return vt_finish();
}
