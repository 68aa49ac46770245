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

static const char *mode;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("FAIL [%s] %s:%d: %s (errno %d: %s)\n", mode,	\
		       __FILE__, __LINE__, #cond, errno, strerror(errno)); \
		exit(1);						\
	}								\
} while (0)

static struct ibv_device *find_device(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

static int gid_index(void)
{
	const char *s = getenv("RDMAVM_RXE_GID");

	return s ? atoi(s) : 1;
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

	CHECK(ibv_query_device_ex(ctx, NULL, &dev) == 0);
	CHECK(dev.orig_attr.phys_port_cnt == 1 && dev.orig_attr.max_qp > 0);
	CHECK(dev.phys_port_cnt_ex == 1);
	CHECK(ibv_query_port(ctx, 1, &port) == 0);
	CHECK(port.state == IBV_PORT_ACTIVE && port.link_layer == IBV_LINK_LAYER_ETHERNET);
	CHECK(ibv_query_port(ctx, 2, &port) == EINVAL);
	CHECK(ibv_query_gid(ctx, 1, gid_index(), &gid) == 0);
	inet_ntop(AF_INET6, gid.raw, addr, sizeof(addr));
	CHECK(!strcmp(addr, "::ffff:192.0.2.1"));
	CHECK(ibv_query_gid_ex(ctx, 1, gid_index(), &entry, 0) == 0);
	CHECK(!memcmp(&entry.gid, &gid, sizeof(gid)) && entry.gid_type == IBV_GID_TYPE_ROCE_V2);
	CHECK(entry.ndev_ifindex > 0);
	CHECK(ibv_query_gid_ex(ctx, 1, 100, &entry, 0) == ENODATA);
	n = ibv_query_gid_table(ctx, table, 8, 0);
	CHECK(n == 2);
	CHECK(table[1].gid_index == (uint32_t)gid_index() && table[1].port_num == 1);
	CHECK(ibv_query_pkey(ctx, 1, 0, &pkey) == 0 && pkey == htons(0xffff));
	CHECK(ibv_get_pkey_index(ctx, 1, pkey) == 0);
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
		CHECK(n >= 0);
		if (n)
			return;
		CHECK(ibv_get_cq_event(channel, &ev_cq, &ev_ctx) == 0);
		CHECK(ev_cq == cq && ev_ctx == (void *)cq);
		ibv_ack_cq_events(cq, 1);
		CHECK(ibv_req_notify_cq(cq, 0) == 0);
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

	CHECK(qp);
	CHECK(attr.cap.max_send_wr >= 4);
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS) == 0);
	CHECK(qp->state == IBV_QPS_INIT);
	return qp;
}

static void connect_rc(struct ibv_qp *qp, uint32_t remote_qpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = remote_qpn,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *gid, .sgid_index = gid_index(), .hop_limit = 1 } },
	};

	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER) == 0);
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == 0);
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

	CHECK(pd && channel);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr && mr->addr == buf && mr->length == sizeof(buf) && mr->pd == pd);
	cq = ibv_create_cq(ctx, 16, NULL, channel, 0);
	CHECK(cq && cq->cqe >= 16 && cq->channel == channel);
	cq->cq_context = cq;
	CHECK(ibv_destroy_comp_channel(channel) == EBUSY);
	CHECK(ibv_req_notify_cq(cq, 0) == 0);
	srq = ibv_create_srq(pd, &srq_attr);
	CHECK(srq && srq_attr.attr.max_wr >= 4);
	CHECK(ibv_query_srq(srq, &srq_now) == 0 && srq_now.max_wr >= 4);

	a = rc_qp(pd, cq, NULL);
	b = rc_qp(pd, cq, srq);
	CHECK(ibv_query_qp(b, &qa, IBV_QP_STATE | IBV_QP_PORT, &qia) == 0);
	CHECK(qa.qp_state == IBV_QPS_INIT && qa.port_num == 1 && qia.srq == srq);
	CHECK(ibv_query_gid(ctx, 1, gid_index(), &gid) == 0);
	connect_rc(a, b->qp_num, &gid);
	connect_rc(b, a->qp_num, &gid);

	sge = (struct ibv_sge){ (uintptr_t)buf[1], 64, mr->lkey };
	CHECK(ibv_post_srq_recv(srq, &rwr, &bad_rwr) == 0);
	strcpy(buf[0], "hello from a");
	sge = (struct ibv_sge){ (uintptr_t)buf[0], 64, mr->lkey };
	CHECK(ibv_post_send(a, &swr, &bad_swr) == 0);
	for (int done = 0; done != 3;) {
		wait_completion(channel, cq, &wc);
		CHECK(wc.status == IBV_WC_SUCCESS);
		done |= wc.wr_id == 1 ? 1 : 2;
		if (wc.wr_id == 2)
			CHECK(wc.byte_len == 64 && wc.qp_num == b->qp_num);
	}
	CHECK(!strcmp(buf[1], "hello from a"));

	/* destroy_cq below returns only because every event was acked. */
	CHECK(ibv_destroy_qp(a) == 0);
	CHECK(ibv_destroy_qp(b) == 0);
	CHECK(ibv_destroy_srq(srq) == 0);
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_destroy_comp_channel(channel) == 0);
	CHECK(ibv_dereg_mr(mr) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
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
				       .grh = { .sgid_index = gid_index(), .hop_limit = 1 } };
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

	CHECK(pd && cq);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	qp = ibv_create_qp(pd, &attr);
	CHECK(mr && qp);
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0);
	qa.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE) == 0);
	qa.qp_state = IBV_QPS_RTS;
	CHECK(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0);
	CHECK(ibv_query_gid(ctx, 1, gid_index(), &own) == 0);
	ah_attr.grh.dgid = own;
	ah = ibv_create_ah(pd, &ah_attr);
	CHECK(ah && ah->pd == pd);

	sge = (struct ibv_sge){ (uintptr_t)buf[1], 40 + 16, mr->lkey };
	CHECK(ibv_post_recv(qp, &rwr, &bad_rwr) == 0);
	sge = (struct ibv_sge){ (uintptr_t)buf[0], 16, mr->lkey };
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qp->qp_num;
	swr.wr.ud.remote_qkey = 0x1111;
	CHECK(ibv_post_send(qp, &swr, &bad_swr) == 0);
	while (got != 3) {
		int n = ibv_poll_cq(cq, 1, &wc);

		CHECK(n >= 0);
		if (!n)
			continue;
		CHECK(wc.status == IBV_WC_SUCCESS);
		got |= wc.wr_id == 1 ? 1 : 2;
		if (wc.wr_id == 2)
			break;
	}
	CHECK(wc.wc_flags & IBV_WC_GRH);
	memset(&ah_attr, 0xee, sizeof(ah_attr));
	CHECK(ibv_init_ah_from_wc(ctx, 1, &wc, (struct ibv_grh *)buf[1], &ah_attr) == 0);
	CHECK(ah_attr.is_global && ah_attr.port_num == 1);
	/* The sender was us: its IPv4-mapped address, our RoCE v2 GID. */
	CHECK(ah_attr.grh.sgid_index == gid_index());
	CHECK(!memcmp(&ah_attr.grh.dgid, &own, sizeof(own)));
	reply = ibv_create_ah_from_wc(pd, &wc, (struct ibv_grh *)buf[1], 1);
	CHECK(reply);
	CHECK(ibv_destroy_ah(reply) == 0);
	CHECK(ibv_destroy_ah(ah) == 0);
	CHECK(ibv_destroy_qp(qp) == 0);
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_dereg_mr(mr) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
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
		CHECK(poll(&pfd, 1, 10000) == 1);
		CHECK(ibv_get_async_event(ctx, &event) == 0);
		ibv_ack_async_event(&event);
	} while (event.event_type != type);
	CHECK(event.element.port_num == 1);
}

static void port_events(struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	const char *netdev = getenv("RDMAVM_RXE_NETDEV");
	char cmd[128];

	CHECK(ctx && netdev);
	snprintf(cmd, sizeof(cmd), "ip link set %s down", netdev);
	CHECK(system(cmd) == 0);
	next_event(ctx, IBV_EVENT_PORT_ERR);
	snprintf(cmd, sizeof(cmd), "ip link set %s up", netdev);
	CHECK(system(cmd) == 0);
	next_event(ctx, IBV_EVENT_PORT_ACTIVE);
	CHECK(ibv_close_device(ctx) == 0);
	printf("ok [%s] async events: PORT_ERR, PORT_ACTIVE\n", mode);
}

/* A removed device leaves new lists; pointers from old ones stay valid. */
static void removal(struct ibv_device *dev)
{
	struct ibv_device **list;

	CHECK(system("rdma link delete rxe0") == 0);
	list = ibv_get_device_list(NULL);
	CHECK(list && !find_device(list, "rxe0"));
	CHECK(!strcmp(ibv_get_device_name(dev), "rxe0"));
	errno = 0;
	CHECK(ibv_open_device(dev) == NULL && errno);
	ibv_free_device_list(list);
	printf("ok [%s] removed rxe0: unlisted, old handle still readable\n", mode);
}

int main(void)
{
	static const char *const modes[] = { "auto", "write", "ioctl" };
	struct ibv_device **list;
	struct ibv_device *rxe;
	int n;

	mode = "list";
	list = ibv_get_device_list(&n);
	CHECK(list && n >= 1);
	rxe = find_device(list, "rxe0");
	CHECK(rxe);
	CHECK(ibv_get_device_index(rxe) >= 0 && ibv_get_device_guid(rxe) != 0);
	CHECK(rxe->transport_type == IBV_TRANSPORT_IB && rxe->node_type == IBV_NODE_CA);
	printf("ok %d device(s) listed\n", n);

	for (unsigned int i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct ibv_context *ctx;

		mode = modes[i];
		setenv("OPENVERBS_CMD_MODE", mode, 1);
		ctx = ibv_open_device(rxe);
		CHECK(ctx && ctx->async_fd >= 0 && ctx->num_comp_vectors > 0);
		queries(ctx);
		objects_and_traffic(ctx);
		ud_reply_address(ctx);
		CHECK(ibv_close_device(ctx) == 0);
	}
	mode = "auto";
	setenv("OPENVERBS_CMD_MODE", mode, 1);
	port_events(rxe);
	removal(rxe);
	ibv_free_device_list(list);
	return 0;
}
