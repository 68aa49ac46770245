// SPDX-License-Identifier: MIT
/*
 * A program of the libibverbs 1.0 era on rxe0: every verb it calls is
 * bound to its name@IBVERBS_1.0 twin (.symver below), its objects have
 * the 1.0 layouts (compat_1_0.h, checked against upstream's DWARF by the
 * ABI suite) and its data path goes through the 1.0 context's ops table,
 * as the 1.0 headers' inlines did.  It lists and opens the device, queries
 * it, makes a PD, an MR, CQs, an SRQ and RC QPs, connects two QPs to each
 * other, writes and sends between them, and tears everything down.
 *
 * on-both.sh runs it on upstream's libibverbs, then on ours.  The one
 * difference: upstream's ibv_query_qp@IBVERBS_1.0 crashes on a QP without
 * an SRQ (compat-1.0 FACTS 26), ours answers with srq NULL; the call runs
 * in a child so that the crash is seen, not suffered.
 */
#include <dlfcn.h>
#include <endian.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "compat_1_0.h"
#include "vmtest.h"

COMPAT_1_0(ibv_get_device_list_1_0, ibv_get_device_list);
COMPAT_1_0(ibv_free_device_list_1_0, ibv_free_device_list);
COMPAT_1_0(ibv_get_device_name_1_0, ibv_get_device_name);
COMPAT_1_0(ibv_get_device_guid_1_0, ibv_get_device_guid);
COMPAT_1_0(ibv_open_device_1_0, ibv_open_device);
COMPAT_1_0(ibv_close_device_1_0, ibv_close_device);
COMPAT_1_0(ibv_query_device_1_0, ibv_query_device);
COMPAT_1_0(ibv_query_port_1_0, ibv_query_port);
COMPAT_1_0(ibv_query_gid_1_0, ibv_query_gid);
COMPAT_1_0(ibv_query_pkey_1_0, ibv_query_pkey);
COMPAT_1_0(ibv_alloc_pd_1_0, ibv_alloc_pd);
COMPAT_1_0(ibv_dealloc_pd_1_0, ibv_dealloc_pd);
COMPAT_1_0(ibv_reg_mr_1_0, ibv_reg_mr);
COMPAT_1_0(ibv_dereg_mr_1_0, ibv_dereg_mr);
COMPAT_1_0(ibv_create_cq_1_0, ibv_create_cq);
COMPAT_1_0(ibv_destroy_cq_1_0, ibv_destroy_cq);
COMPAT_1_0(ibv_get_cq_event_1_0, ibv_get_cq_event);
COMPAT_1_0(ibv_ack_cq_events_1_0, ibv_ack_cq_events);
COMPAT_1_0(ibv_create_srq_1_0, ibv_create_srq);
COMPAT_1_0(ibv_query_srq_1_0, ibv_query_srq);
COMPAT_1_0(ibv_destroy_srq_1_0, ibv_destroy_srq);
COMPAT_1_0(ibv_create_qp_1_0, ibv_create_qp);
COMPAT_1_0(ibv_query_qp_1_0, ibv_query_qp);
COMPAT_1_0(ibv_modify_qp_1_0, ibv_modify_qp);
COMPAT_1_0(ibv_destroy_qp_1_0, ibv_destroy_qp);

/* The binding is the point of the test: each reference above must reach
 * the library's IBVERBS_1.0 definition, not its default twin, in the
 * libibverbs vt_init found. */
static void check_bindings(void)
{
	static const struct { const char *name; void *got; } bound[] = {
		{ "ibv_get_device_list", (void *)ibv_get_device_list_1_0 },
		{ "ibv_open_device", (void *)ibv_open_device_1_0 },
		{ "ibv_create_qp", (void *)ibv_create_qp_1_0 },
		{ "ibv_query_qp", (void *)ibv_query_qp_1_0 },
		{ "ibv_destroy_qp", (void *)ibv_destroy_qp_1_0 },
	};

	for (size_t i = 0; i < sizeof(bound) / sizeof(bound[0]); i++) {
		void *v1_0 = dlvsym(RTLD_DEFAULT, bound[i].name, "IBVERBS_1.0");
		void *v1_1 = dlvsym(RTLD_DEFAULT, bound[i].name, "IBVERBS_1.1");
		char path[PATH_MAX] = "";
		Dl_info info;

		if (dladdr(bound[i].got, &info) && info.dli_fname &&
		    !realpath(info.dli_fname, path))
			snprintf(path, sizeof(path), "%s", info.dli_fname);
		CHECK(v1_0 && bound[i].got == v1_0, "%s: bound to %p, %s@IBVERBS_1.0 is %p",
		      bound[i].name, bound[i].got, bound[i].name, v1_0);
		CHECK(v1_1 && v1_1 != v1_0, "%s@IBVERBS_1.1 is %p, not a distinct twin",
		      bound[i].name, v1_1);
		CHECK(!strcmp(path, vt_libibverbs), "%s@IBVERBS_1.0 comes from %s", bound[i].name,
		      path);
	}
}

static struct ibv_device_1_0 *find_rxe(struct ibv_device_1_0 **list, int n)
{
	const char *name = getenv("RDMAVM_RXE_DEV");

	if (!name)
		name = "rxe0";
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name_1_0(list[i]), name))
			return list[i];
	printf("no %s among %d devices\n", name, n);
	return NULL;
}

static void check_queries(struct ibv_context_1_0 *ctx, union ibv_gid *gid)
{
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	__be16 pkey;

	if (CHECK(!ibv_query_device_1_0(ctx, &dev_attr), "query_device: %s", strerror(errno)))
		CHECK(dev_attr.max_qp > 0 && dev_attr.phys_port_cnt == 1,
		      "max_qp %d, %u ports", dev_attr.max_qp, dev_attr.phys_port_cnt);
	if (CHECK(!ibv_query_port_1_0(ctx, 1, &port_attr), "query_port: %s", strerror(errno)))
		CHECK(port_attr.state == IBV_PORT_ACTIVE &&
		      port_attr.link_layer == IBV_LINK_LAYER_ETHERNET,
		      "port state %d, link layer %u", port_attr.state, port_attr.link_layer);
	if (CHECK(!ibv_query_pkey_1_0(ctx, 1, 0, &pkey), "query_pkey: %s", strerror(errno)))
		CHECK(pkey == 0xffff, "pkey 0 is %#x", pkey);
	CHECK(!ibv_query_gid_1_0(ctx, 1, vt_gid_index(), gid), "query_gid: %s",
	      strerror(errno));
	/* RoCE v2 IPv4: ::ffff:a.b.c.d */
	CHECK(gid->raw[10] == 0xff && gid->raw[11] == 0xff, "gid %d is not IPv4-mapped",
	      vt_gid_index());
}

static struct ibv_cq_1_0 *make_cq(struct ibv_context_1_0 *ctx, void *user,
				  struct ibv_comp_channel *channel)
{
	struct ibv_cq_1_0 *cq = ibv_create_cq_1_0(ctx, 16, user, channel, 0);

	if (cq)
		CHECK(cq->context == ctx && cq->cq_context == user && cq->cqe == 16,
		      "1.0 CQ: context %p, cq_context %p, cqe %d", (void *)cq->context,
		      cq->cq_context, cq->cqe);
	return cq;
}

static struct ibv_qp_1_0 *make_qp(struct ibv_pd_1_0 *pd, struct ibv_cq_1_0 *cq,
				  struct ibv_srq_1_0 *srq, void *user)
{
	struct ibv_qp_init_attr_1_0 init = {
		.qp_context = user,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct ibv_qp_1_0 *qp = ibv_create_qp_1_0(pd, &init);

	if (qp)
		CHECK(qp->pd == pd && qp->send_cq == cq && qp->srq == srq &&
		      qp->qp_context == user && qp->qp_num && init.cap.max_send_wr >= 16,
		      "1.0 QP: pd %p, send_cq %p, srq %p, qp_context %p, qpn %u, %u send wrs",
		      (void *)qp->pd, (void *)qp->send_cq, (void *)qp->srq, qp->qp_context,
		      qp->qp_num, init.cap.max_send_wr);
	return qp;
}

static int query_init_attr(struct ibv_qp_1_0 *qp, struct ibv_qp_init_attr_1_0 *init,
			   enum ibv_qp_state *state)
{
	struct ibv_qp_attr attr;
	int ret = ibv_query_qp_1_0(qp, &attr, IBV_QP_STATE, init);

	*state = attr.qp_state;
	return ret;
}

/* A QP on an SRQ: the 1.0 init attributes name the 1.0 CQ and SRQ. */
static void check_query_with_srq(struct ibv_qp_1_0 *qp, struct ibv_cq_1_0 *cq,
				 struct ibv_srq_1_0 *srq, void *user)
{
	struct ibv_qp_init_attr_1_0 init;
	enum ibv_qp_state state;

	if (!CHECK(!query_init_attr(qp, &init, &state), "query_qp@1.0 with an SRQ: %s",
		   strerror(errno)))
		return;
	CHECK(init.srq == srq && init.send_cq == cq && init.recv_cq == cq &&
	      init.qp_context == user && init.qp_type == IBV_QPT_RC && init.sq_sig_all == 1,
	      "init attr: srq %p, send_cq %p, recv_cq %p, qp_context %p, type %d, sig_all %d",
	      (void *)init.srq, (void *)init.send_cq, (void *)init.recv_cq, init.qp_context,
	      init.qp_type, init.sq_sig_all);
	CHECK(state == IBV_QPS_RESET, "state %d", state);
}

/*
 * A QP without an SRQ, in a child: upstream's twin reads through the NULL
 * SRQ and dies of SIGSEGV; ours returns 0 with srq NULL (exit 0), or a
 * wrong answer (exit 1).
 */
static void check_query_without_srq(struct ibv_qp_1_0 *qp, struct ibv_cq_1_0 *cq)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct ibv_qp_init_attr_1_0 init;
		enum ibv_qp_state state;

		init.srq = (void *)&init;	/* must be overwritten */
		_exit(query_init_attr(qp, &init, &state) || init.srq || init.send_cq != cq ||
		      state != IBV_QPS_RESET);
	}
	if (!MUST(pid > 0))
		return;
	status = vt_wait_child(pid, 20000);
	if (status < 0)
		kill(pid, SIGKILL);
	if (vt_upstream)
		CHECK(status == 128 + SIGSEGV,
		      "upstream's query_qp@1.0 without an SRQ: child status %d, SIGSEGV expected",
		      status);
	else
		CHECK(status == 0, "query_qp@1.0 without an SRQ: child status %d", status);
}

/* Up to 5 s of polling through the 1.0 ops table, as a 1.0 inline did. */
static int poll_1_0(struct ibv_cq_1_0 *cq, struct ibv_wc *wc)
{
	for (int ms = 0; ms < 5000; ms++) {
		int n = cq->context->ops.poll_cq(cq, 1, wc);

		if (n)
			return n;
		poll(NULL, 0, 1);
	}
	return 0;
}

static int connect_1_0(struct ibv_qp_1_0 *a, struct ibv_qp_1_0 *b, const union ibv_gid *gid)
{
	struct ibv_qp_attr attr;

	for (int step = 0; step < VT_RC_STEPS; step++) {
		int ret = ibv_modify_qp_1_0(a, &attr, vt_rc_attr(step, b->qp_num, gid, &attr));

		if (!ret)
			ret = ibv_modify_qp_1_0(b, &attr, vt_rc_attr(step, a->qp_num, gid, &attr));
		if (ret)
			return ret;
	}
	return 0;
}

enum { CHUNK = 64 };
/* The MR's buffer: what a writes and sends, where b receives them. */
struct buffers {
	char write_src[CHUNK], send_src[CHUNK], write_dst[CHUNK], recv_dst[CHUNK];
};

/*
 * a RDMA-writes one chunk into b's memory and sends another with
 * immediate data, as one chain of two 1.0 requests (next first, wr_id
 * second); b receives it and its CQ's channel reports the 1.0 CQ.
 */
static void exchange(struct ibv_qp_1_0 *a, struct ibv_qp_1_0 *b, struct ibv_mr_1_0 *mr,
		     struct buffers *buf, struct ibv_comp_channel *channel)
{
	struct ibv_context_1_0 *ctx = a->context;
	struct ibv_sge recv_sge = { (uintptr_t)buf->recv_dst, CHUNK, mr->lkey };
	struct ibv_sge write_sge = { (uintptr_t)buf->write_src, CHUNK, mr->lkey };
	struct ibv_sge send_sge = { (uintptr_t)buf->send_src, CHUNK, mr->lkey };
	struct ibv_recv_wr_1_0 recv = { .wr_id = 30, .sg_list = &recv_sge, .num_sge = 1 };
	struct ibv_send_wr_1_0 send = {
		.wr_id = 20, .sg_list = &send_sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htobe32(0x1000),
	};
	struct ibv_send_wr_1_0 write = {
		.next = &send, .wr_id = 10, .sg_list = &write_sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = (uintptr_t)buf->write_dst, .rkey = mr->rkey },
	};
	struct ibv_recv_wr_1_0 *bad_recv = NULL;
	struct ibv_send_wr_1_0 *bad_send = NULL;
	struct ibv_cq_1_0 *event_cq = NULL;
	struct pollfd pfd = { .fd = channel->fd, .events = POLLIN };
	void *event_user = NULL;
	struct ibv_wc wc;

	memset(buf->write_src, 'w', CHUNK);
	memset(buf->send_src, 's', CHUNK);
	if (!CHECK(!b->recv_cq->context->ops.req_notify_cq(b->recv_cq, 0), "req_notify_cq"))
		return;
	if (!CHECK(!ctx->ops.post_recv(b, &recv, &bad_recv), "post_recv@1.0: %s",
		   strerror(errno)))
		return;
	if (!CHECK(!ctx->ops.post_send(a, &write, &bad_send), "post_send@1.0: %s",
		   strerror(errno)))
		return;
	for (uint64_t want = 10; want <= 20; want += 10)
		if (CHECK(poll_1_0(a->send_cq, &wc) == 1, "no completion of wr %llu",
			  (unsigned long long)want))
			CHECK(wc.wr_id == want && wc.status == IBV_WC_SUCCESS,
			      "sender: wr_id %llu, status %s", (unsigned long long)wc.wr_id,
			      ibv_wc_status_str(wc.status));
	if (CHECK(poll_1_0(b->recv_cq, &wc) == 1, "no receive completion"))
		CHECK(wc.wr_id == 30 && wc.status == IBV_WC_SUCCESS && wc.byte_len == CHUNK &&
		      (wc.wc_flags & IBV_WC_WITH_IMM) && be32toh(wc.imm_data) == 0x1000,
		      "receiver: wr_id %llu, status %s, %u bytes, flags %#x, imm %#x",
		      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status), wc.byte_len,
		      wc.wc_flags, be32toh(wc.imm_data));
	CHECK(!memcmp(buf->write_dst, buf->write_src, CHUNK), "RDMA write did not land");
	CHECK(!memcmp(buf->recv_dst, buf->send_src, CHUNK), "send did not land");

	if (!CHECK(poll(&pfd, 1, 5000) == 1, "no completion event in 5 s"))
		return;
	if (CHECK(!ibv_get_cq_event_1_0(channel, &event_cq, &event_user), "get_cq_event: %s",
		  strerror(errno))) {
		CHECK(event_cq == b->recv_cq && event_user == b->recv_cq->cq_context,
		      "event names CQ %p (user %p), want %p (user %p)", (void *)event_cq,
		      event_user, (void *)b->recv_cq, b->recv_cq->cq_context);
		ibv_ack_cq_events_1_0(b->recv_cq, 1);
	}
}

/*
 * A failing request in the middle of a chain: *bad names the 1.0 request
 * at the place of the real one the provider refused (more SGEs than the
 * device has, so the first request is posted and completes).
 */
static void check_bad_request(struct ibv_qp_1_0 *a, struct ibv_mr_1_0 *mr, struct buffers *buf)
{
	enum { TOO_MANY_SGES = 64 };
	static struct ibv_sge sges[TOO_MANY_SGES];
	struct ibv_send_wr_1_0 refused = {
		.wr_id = 41, .sg_list = sges, .num_sge = TOO_MANY_SGES,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = (uintptr_t)buf->write_dst, .rkey = mr->rkey },
	};
	struct ibv_send_wr_1_0 first = refused;
	struct ibv_send_wr_1_0 *bad = NULL;
	struct ibv_wc wc;

	for (int i = 0; i < TOO_MANY_SGES; i++)
		sges[i] = (struct ibv_sge){ (uintptr_t)buf->write_src, 1, mr->lkey };
	first.next = &refused;
	first.wr_id = 40;
	first.num_sge = 1;
	CHECK(a->context->ops.post_send(a, &first, &bad) != 0, "%d SGEs were accepted",
	      TOO_MANY_SGES);
	CHECK(bad == &refused, "bad request %p, want the second (%p)", (void *)bad,
	      (void *)&refused);
	if (bad == &refused && CHECK(poll_1_0(a->send_cq, &wc) == 1, "first not completed"))
		CHECK(wc.wr_id == 40 && wc.status == IBV_WC_SUCCESS, "wr_id %llu, status %s",
		      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
}

int main(void)
{
	static struct buffers buf;
	struct ibv_device_1_0 **list, *dev;
	struct ibv_context_1_0 *ctx;
	struct ibv_comp_channel *channel;
	struct ibv_pd_1_0 *pd;
	struct ibv_mr_1_0 *mr;
	struct ibv_cq_1_0 *cq_a, *cq_b;
	struct ibv_srq_1_0 *srq;
	struct ibv_srq_init_attr srq_init = { .srq_context = &srq_init,
					      .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_srq_attr srq_attr;
	struct ibv_qp_1_0 *qp_a, *qp_b, *qp_srq;
	union ibv_gid gid;
	int tags[5], n = -1;

	vt_init("verbs-1.0");
	check_bindings();

	if (!MUST(list = ibv_get_device_list_1_0(&n)))
		return vt_finish();
	CHECK(n > 0 && !list[n], "%d devices, list[n] %p", n, (void *)list[n]);
	if (!MUST(dev = find_rxe(list, n)))
		return vt_finish();
	CHECK(ibv_get_device_guid_1_0(dev) != 0, "rxe0 has no node GUID");
	if (!MUST(ctx = ibv_open_device_1_0(dev)))
		return vt_finish();
	CHECK(ctx->device == dev, "1.0 context names device %p, want %p", (void *)ctx->device,
	      (void *)dev);
	check_queries(ctx, &gid);

	if (!MUST(pd = ibv_alloc_pd_1_0(ctx)))
		return vt_finish();
	CHECK(pd->context == ctx, "PD's context %p", (void *)pd->context);
	if (!MUST(mr = ibv_reg_mr_1_0(pd, &buf, sizeof(buf),
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)))
		return vt_finish();
	CHECK(mr->pd == pd && mr->context == ctx && mr->lkey && mr->rkey,
	      "1.0 MR: pd %p, context %p, lkey %#x, rkey %#x", (void *)mr->pd,
	      (void *)mr->context, mr->lkey, mr->rkey);
	/* a PD in use: the 1.0 PD must survive the refusal */
	EXPECT_RET(EBUSY, ibv_dealloc_pd_1_0(pd));

	/* A 1.0 context has no command fd of its own (FACTS 11): the channel
	 * comes from the real context; what is checked is the 1.0 CQ the
	 * event names. */
	if (!MUST(channel = ibv_create_comp_channel(ctx->real_context)))
		return vt_finish();
	if (!MUST(cq_a = make_cq(ctx, &tags[0], NULL)) ||
	    !MUST(cq_b = make_cq(ctx, &tags[1], channel)))
		return vt_finish();
	if (!MUST(srq = ibv_create_srq_1_0(pd, &srq_init)))
		return vt_finish();
	if (CHECK(!ibv_query_srq_1_0(srq, &srq_attr), "query_srq: %s", strerror(errno)))
		CHECK(srq_attr.max_wr >= 8, "SRQ max_wr %u", srq_attr.max_wr);
	if (!MUST(qp_a = make_qp(pd, cq_a, NULL, &tags[2])) ||
	    !MUST(qp_b = make_qp(pd, cq_b, NULL, &tags[3])) ||
	    !MUST(qp_srq = make_qp(pd, cq_a, srq, &tags[4])))
		return vt_finish();
	check_query_with_srq(qp_srq, cq_a, srq, &tags[4]);
	check_query_without_srq(qp_a, cq_a);

	if (CHECK(!connect_1_0(qp_a, qp_b, &gid), "RC connection: %s", strerror(errno))) {
		exchange(qp_a, qp_b, mr, &buf, channel);
		check_bad_request(qp_a, mr, &buf);
	}

	EXPECT_RET(0, ibv_destroy_qp_1_0(qp_srq));
	EXPECT_RET(0, ibv_destroy_qp_1_0(qp_b));
	EXPECT_RET(0, ibv_destroy_qp_1_0(qp_a));
	EXPECT_RET(0, ibv_destroy_srq_1_0(srq));
	EXPECT_RET(0, ibv_destroy_cq_1_0(cq_b));
	EXPECT_RET(0, ibv_destroy_cq_1_0(cq_a));
	EXPECT_RET(0, ibv_destroy_comp_channel(channel));
	EXPECT_RET(0, ibv_dereg_mr_1_0(mr));
	EXPECT_RET(0, ibv_dealloc_pd_1_0(pd));
	EXPECT_RET(0, ibv_close_device_1_0(ctx));
	ibv_free_device_list_1_0(list);
	return vt_finish();
}
