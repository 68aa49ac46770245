// SPDX-License-Identifier: MIT
/*
 * Completion and asynchronous events from the real kernel (rxe0):
 *  - a completion event names its CQ and cq_context; destroying the CQ
 *    waits until the event has been acknowledged (another thread acks);
 *  - non-blocking channel and async fds give EAGAIN when empty; all
 *    the context's fds are close-on-exec;
 *  - async events rxe raises: CQ_ERR (a CQ overflows), SQ_DRAINED (RTS
 *    to SQD), SRQ_LIMIT_REACHED (an armed SRQ runs low), PORT_ERR and
 *    PORT_ACTIVE (`ip link set rxenet down/up`), each naming its object;
 *    destroying a CQ, QP or SRQ waits until its events are acknowledged.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "vmtest.h"

enum { BUF = 4096, WAIT_MS = 5000 };

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static char *buf;
static struct ibv_mr *mr;

/* ------------------------------------------------------------------ */
/* Destroys that must wait for acknowledgements                        */

struct destroy_job {
	int (*destroy)(void *obj);
	void *obj;
	int ret;
	atomic_bool done;
};

static void *run_destroy(void *arg)
{
	struct destroy_job *job = arg;

	job->ret = job->destroy(job->obj);
	atomic_store(&job->done, true);
	return NULL;
}

static int destroy_cq(void *cq) { return ibv_destroy_cq(cq); }
static int destroy_qp(void *qp) { return ibv_destroy_qp(qp); }
static int destroy_srq(void *srq) { return ibv_destroy_srq(srq); }

/* Starts the destroy in a thread, checks that it is still blocked after
 * 300 ms, runs ack(ack_arg), and wants the destroy to finish, with 0. */
static void destroy_after_ack(const char *what, int (*destroy)(void *), void *obj,
			      void (*ack)(void *), void *ack_arg)
{
	struct destroy_job job = { .destroy = destroy, .obj = obj };
	pthread_t thread;

	if (pthread_create(&thread, NULL, run_destroy, &job)) {
		vt_fail("pthread_create");
		return;
	}
	usleep(300 * 1000);
	CHECK(!atomic_load(&job.done), "%s returned %d before its event was acknowledged",
	      what, job.ret);
	ack(ack_arg);
	for (int i = 0; i < WAIT_MS / 10 && !atomic_load(&job.done); i++)
		usleep(10 * 1000);
	if (!atomic_load(&job.done)) {
		vt_fail("%s still blocked %d ms after the acknowledgement", what, WAIT_MS);
		_exit(vt_finish());
	}
	pthread_join(thread, NULL);
	printf("ok %s waited for the acknowledgement, then returned %d\n", what, job.ret);
	CHECK(job.ret == 0, "%s returned %d", what, job.ret);
}

static void ack_cq_event(void *cq) { ibv_ack_cq_events(cq, 1); }
static void ack_async(void *event) { ibv_ack_async_event(event); }

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Reads async events until one of type arrives (acknowledging others):
 * true with it in *event, unacknowledged. */
static bool wait_async(enum ibv_event_type type, struct ibv_async_event *event)
{
	while (readable(ctx->async_fd, WAIT_MS)) {
		if (ibv_get_async_event(ctx, event)) {
			vt_fail("ibv_get_async_event: %s", strerror(errno));
			return false;
		}
		printf("   async event %s\n", ibv_event_type_str(event->event_type));
		if (event->event_type == type)
			return true;
		ibv_ack_async_event(event);
	}
	vt_fail("no %s within %d ms", ibv_event_type_str(type), WAIT_MS);
	return false;
}

static bool cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags >= 0 && (flags & FD_CLOEXEC);
}

static int post_write(struct ibv_qp *qp, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)buf + BUF / 2, .rkey = mr->rkey },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* ------------------------------------------------------------------ */

static void completion_events(void)
{
	static int marker;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ev_cq = NULL;
	struct ibv_qp *a, *b;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 32, .lkey = mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_wc wc;
	void *ev_ctx = NULL;
	int flags, n = 0;

	printf("-- completion events\n");
	ch = ibv_create_comp_channel(ctx);
	if (!ch) {
		vt_fail("ibv_create_comp_channel: %s", strerror(errno));
		return;
	}
	CHECK(cloexec(ch->fd), "the completion channel fd lacks FD_CLOEXEC");
	cq = ibv_create_cq(ctx, 16, &marker, ch, 0);
	a = cq ? vt_create_rc_qp(pd, cq) : NULL;
	b = a ? vt_create_rc_qp(pd, cq) : NULL;
	if (!b || vt_connect_rc(a, b)) {
		vt_fail("CQ and connected QPs: %s", strerror(errno));
		return;
	}

	/* nothing there yet: a non-blocking read says so */
	flags = fcntl(ch->fd, F_GETFL);
	fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK);
	EXPECT_ERRNO(EAGAIN, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	fcntl(ch->fd, F_SETFL, flags);

	EXPECT_RET(0, ibv_req_notify_cq(cq, 0));
	EXPECT_RET(0, ibv_post_recv(b, &rwr, &rbad));
	EXPECT_RET(0, ibv_post_send(a, &swr, &sbad));
	CHECK(readable(ch->fd, WAIT_MS), "no completion event within %d ms", WAIT_MS);
	EXPECT_ERRNO(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	CHECK(ev_cq == cq, "the event names CQ %p, not %p", (void *)ev_cq, (void *)cq);
	CHECK(ev_ctx == &marker, "the event carries cq_context %p, not %p", ev_ctx,
	      (void *)&marker);
	for (int tries = 0; n < 2 && tries < 500; tries++) {
		int got = vt_poll_one(cq, &wc, 10);

		if (got < 0)
			break;
		if (got) {
			n++;
			CHECK(wc.status == IBV_WC_SUCCESS, "wr_id %llu: %s",
			      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
		}
	}
	CHECK(n == 2, "%d completions, want the send's and the receive's", n);

	EXPECT_RET(0, ibv_destroy_qp(a));
	EXPECT_RET(0, ibv_destroy_qp(b));
	/* one event read, none acknowledged: the CQ must wait */
	destroy_after_ack("ibv_destroy_cq", destroy_cq, cq, ack_cq_event, cq);
	EXPECT_RET(0, ibv_destroy_comp_channel(ch));
}

static void cq_overflow(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_async_event event;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_wc wc;
	int posted = 0, events = 1;

	printf("-- IBV_EVENT_CQ_ERR: a CQ overflows\n");
	if (cq && rcq) {
		a = vt_create_rc_qp(pd, cq);
		b = vt_create_rc_qp(pd, rcq);
	}
	if (!b || vt_connect_rc(a, b)) {
		vt_fail("CQs and connected QPs: %s", strerror(errno));
		return;
	}
	printf("   CQ of %d entries, %d RDMA writes\n", cq->cqe, cq->cqe + 3);
	for (int i = 0; i < cq->cqe + 3; i++)
		posted += !post_write(a, i);
	CHECK(posted == cq->cqe + 3, "posted only %d writes", posted);
	if (!wait_async(IBV_EVENT_CQ_ERR, &event))
		return;
	CHECK(event.element.cq == cq, "CQ_ERR names CQ %p, not %p", (void *)event.element.cq,
	      (void *)cq);
	/* each lost completion may raise one; all need acknowledging */
	while (readable(ctx->async_fd, 300)) {
		struct ibv_async_event more;

		if (ibv_get_async_event(ctx, &more))
			break;
		CHECK(more.event_type == IBV_EVENT_CQ_ERR, "then %s",
		      ibv_event_type_str(more.event_type));
		ibv_ack_async_event(&more);
		events++;
	}
	printf("   %d CQ_ERR event(s)\n", events);
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		;
	EXPECT_RET(0, ibv_destroy_qp(a));
	EXPECT_RET(0, ibv_destroy_qp(b));
	EXPECT_RET(0, ibv_destroy_cq(rcq));
	destroy_after_ack("ibv_destroy_cq after CQ_ERR", destroy_cq, cq, ack_async, &event);
}

static void sq_drained(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1 };
	struct ibv_async_event event;
	struct ibv_qp *a = NULL, *b = NULL;

	printf("-- IBV_EVENT_SQ_DRAINED: RTS to SQD\n");
	if (cq) {
		a = vt_create_rc_qp(pd, cq);
		b = vt_create_rc_qp(pd, cq);
	}
	if (!b || vt_connect_rc(a, b)) {
		vt_fail("CQ and connected QPs: %s", strerror(errno));
		return;
	}
	EXPECT_RET(0, ibv_modify_qp(a, &attr, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY));
	if (!wait_async(IBV_EVENT_SQ_DRAINED, &event))
		return;
	CHECK(event.element.qp == a, "SQ_DRAINED names QP %p, not %p",
	      (void *)event.element.qp, (void *)a);
	EXPECT_RET(0, ibv_destroy_qp(b));
	destroy_after_ack("ibv_destroy_qp after SQ_DRAINED", destroy_qp, a, ack_async, &event);
	EXPECT_RET(0, ibv_destroy_cq(cq));
}

static void srq_limit(void)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr limit = { .srq_limit = 6 };
	struct ibv_cq *cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 32, .lkey = mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_async_event event;
	struct ibv_srq *srq;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_wc wc;

	printf("-- IBV_EVENT_SRQ_LIMIT_REACHED: 8 receives, limit 6, 3 sends\n");
	srq = ibv_create_srq(pd, &init);
	if (srq && cq) {
		a = vt_create_rc_qp(pd, cq);
		b = ibv_create_qp(pd, &(struct ibv_qp_init_attr){ .send_cq = cq, .recv_cq = cq,
				  .srq = srq, .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
				  .cap = { .max_send_wr = 4, .max_send_sge = 1 } });
	}
	if (!b || vt_connect_rc(a, b)) {
		vt_fail("SRQ, CQ and connected QPs: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < 8; i++)
		if (ibv_post_srq_recv(srq, &rwr, &rbad))
			vt_fail("ibv_post_srq_recv: %s", strerror(errno));
	EXPECT_RET(0, ibv_modify_srq(srq, &limit, IBV_SRQ_LIMIT));
	for (int i = 0; i < 3; i++)
		if (ibv_post_send(a, &swr, &sbad))
			vt_fail("ibv_post_send: %s", strerror(errno));
	if (!wait_async(IBV_EVENT_SRQ_LIMIT_REACHED, &event))
		return;
	CHECK(event.element.srq == srq, "SRQ_LIMIT_REACHED names SRQ %p, not %p",
	      (void *)event.element.srq, (void *)srq);
	while (vt_poll_one(cq, &wc, 200) > 0)
		;
	EXPECT_RET(0, ibv_destroy_qp(a));
	EXPECT_RET(0, ibv_destroy_qp(b));
	destroy_after_ack("ibv_destroy_srq after SRQ_LIMIT_REACHED", destroy_srq, srq,
			  ack_async, &event);
	EXPECT_RET(0, ibv_destroy_cq(cq));
}

static void port_events(void)
{
	const char *netdev = getenv("RDMAVM_RXE_NETDEV");
	struct ibv_async_event event;
	struct ibv_port_attr port;

	printf("-- IBV_EVENT_PORT_ERR / PORT_ACTIVE: the netdev goes down and up\n");
	if (!netdev)
		netdev = "rxenet";
	CHECK(vt_sh("ip link set %s down", netdev) == 0, "ip link set down failed");
	if (wait_async(IBV_EVENT_PORT_ERR, &event)) {
		CHECK(event.element.port_num == 1, "PORT_ERR for port %d", event.element.port_num);
		ibv_ack_async_event(&event);
	}
	EXPECT_RET(0, ibv_query_port(ctx, 1, &port));
	CHECK(port.state == IBV_PORT_DOWN, "port state %s while the netdev is down",
	      ibv_port_state_str(port.state));
	CHECK(vt_sh("ip link set %s up", netdev) == 0, "ip link set up failed");
	if (wait_async(IBV_EVENT_PORT_ACTIVE, &event)) {
		CHECK(event.element.port_num == 1, "PORT_ACTIVE for port %d",
		      event.element.port_num);
		ibv_ack_async_event(&event);
	}
	EXPECT_RET(0, ibv_query_port(ctx, 1, &port));
	CHECK(port.state == IBV_PORT_ACTIVE, "port state %s after the netdev came back",
	      ibv_port_state_str(port.state));
}

int main(void)
{
	int flags;
	struct ibv_async_event event;

	vt_init("verbs-events");
	if (!MUST(ctx = vt_open_rxe()))
		return vt_finish();
	if (!MUST(pd = ibv_alloc_pd(ctx)))
		return vt_finish();
	if (!MUST(buf = aligned_alloc(BUF, BUF)))
		return vt_finish();
	memset(buf, 0, BUF);
	if (!MUST(mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)))
		return vt_finish();

	printf("-- the context's fds\n");
	CHECK(cloexec(ctx->cmd_fd), "cmd_fd lacks FD_CLOEXEC");
	CHECK(cloexec(ctx->async_fd), "async_fd lacks FD_CLOEXEC");
	flags = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	EXPECT_ERRNO(EAGAIN, ibv_get_async_event(ctx, &event));
	fcntl(ctx->async_fd, F_SETFL, flags);

	completion_events();
	cq_overflow();
	sq_drained();
	srq_limit();
	port_events();

	EXPECT_RET(0, ibv_dereg_mr(mr));
	EXPECT_RET(0, ibv_dealloc_pd(pd));
	EXPECT_RET(0, ibv_close_device(ctx));
	free(buf);
	return vt_finish();
}
