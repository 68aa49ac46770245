// SPDX-License-Identifier: MIT
/*
 * rxe0 lost under traffic: a thread keeps RC sends and RDMA writes going
 * on two verbs QPs and sends on a connected rdma_cm pair while rxe0's
 * netdev goes down, then the rxe link is deleted.  Run on upstream's
 * libraries first, then ours (on-both.sh): upstream's events are the
 * oracle.
 *  - netdev down: IBV_EVENT_PORT_ERR on the verbs context; the data path
 *    ends in error completions (no route: the requester fails the work
 *    request and the QP goes to error, the rest is flushed), not a hang;
 *  - netdev up again (IBV_EVENT_PORT_ACTIVE), then rdma link delete with
 *    the ids still connected: RDMA_CM_EVENT_DEVICE_REMOVAL for each of the
 *    three rdma_cm ids (listener, accepted, connecting side); rxe cannot
 *    disassociate (hot-unplug.c), so the removal waits for every context.
 *    The netdev comes back first: destroying an established id sends a
 *    DREQ through the kernel's CM, whose MAD must complete before the
 *    destroy returns, and with the link deleted while the netdev was
 *    down (netdev up only after the removal had begun) upstream's run
 *    once blocked in the last rdma_destroy_id for over a minute;
 *  - teardown after that works, and once the process is gone the removal
 *    finishes (upstream's librdmacm keeps the device's context until the
 *    process ends: the scenario runs in a child);
 *  - after `rdma link add` the new rxe0 moves data.
 * Every wait is bounded (EVENT_MS, POLL_MS, the children's deadlines).
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmtest.h"

enum { BUF = 4096, MSG = 64, EVENT_MS = 10000, POLL_MS = 3000 };

/* One RC pair the traffic thread drives: sends from a to b and RDMA
 * writes from a into the second half of buf, each signaled. */
struct lane {
	const char *name;
	struct ibv_qp *a, *b;
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_mr *mr;
	bool writes;		/* rdma_cm's pair: sends only (no rkey exchange) */
	/* read by the main thread while the traffic thread counts */
	atomic_int completed, errors;	/* good completions, error completions */
	int posted, reaped;		/* work requests, completions of any status */
	atomic_bool stuck;		/* a completion did not come within POLL_MS */
};

static atomic_bool stopping;

static bool post(struct lane *l)
{
	char *buf = l->mr->addr;
	struct ibv_sge rsge = { .addr = (uintptr_t)buf + BUF / 4, .length = MSG, .lkey = l->mr->lkey };
	struct ibv_sge ssge = { .addr = (uintptr_t)buf, .length = MSG, .lkey = l->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr write = {
		.sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)buf + BUF / 2, .rkey = l->mr->rkey },
	};
	struct ibv_send_wr send = {
		.sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED, .next = l->writes ? &write : NULL,
	}, *bad_s;

	if (ibv_post_recv(l->b, &rwr, &bad_r))
		return false;
	l->posted++;
	if (!ibv_post_send(l->a, &send, &bad_s)) {
		l->posted += l->writes ? 2 : 1;
		return true;
	}
	l->posted += bad_s == &write;
	return false;
}

/* Reaps want completions of one round; false once the lane is done
 * (an error completion, or none within POLL_MS). */
static bool reap(struct lane *l, int want)
{
	struct ibv_wc wc;

	for (int i = 0; i < want; i++) {
		struct ibv_cq *cq = i == 0 ? l->recv_cq : l->send_cq;

		if (vt_poll_one(cq, &wc, POLL_MS) != 1) {
			l->stuck = true;
			return false;
		}
		l->reaped++;
		if (wc.status != IBV_WC_SUCCESS) {
			if (!atomic_fetch_add(&l->errors, 1))
				printf("   %s: first error completion: %s\n", l->name,
				       ibv_wc_status_str(wc.status));
			return false;
		}
		l->completed++;
	}
	return true;
}

/* Rounds on every lane until each has failed or stopping is set. */
static void *traffic(void *arg)
{
	struct lane **lanes = arg;
	bool live[2] = { true, true };

	while (!atomic_load(&stopping) && (live[0] || live[1])) {
		for (int i = 0; i < 2; i++) {
			struct lane *l = lanes[i];

			if (!live[i])
				continue;
			if (!post(l)) {
				printf("   %s: post failed: %s\n", l->name, strerror(errno));
				live[i] = false;
				continue;
			}
			live[i] = reap(l, l->writes ? 3 : 2);
		}
		/* traffic, not a flood: under TCG a spinning thread starves
		 * the commands that take the device away */
		usleep(1000);
	}
	return NULL;
}

/* What an application does once its device is gone: both QPs to the
 * error state, and every work request still outstanding comes back,
 * flushed (or failed before), each within POLL_MS. */
static void flush(struct lane *l)
{
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	int flushed = 0, outstanding = l->posted - l->reaped;
	struct ibv_wc wc;

	EXPECT_RET(0, ibv_modify_qp(l->a, &err, IBV_QP_STATE));
	EXPECT_RET(0, ibv_modify_qp(l->b, &err, IBV_QP_STATE));
	for (int waited = 0; l->reaped < l->posted && waited < POLL_MS; waited += 10) {
		if (ibv_poll_cq(l->send_cq, 1, &wc) != 1 && ibv_poll_cq(l->recv_cq, 1, &wc) != 1) {
			usleep(10 * 1000);
			continue;
		}
		l->reaped++;
		flushed += wc.status == IBV_WC_WR_FLUSH_ERR;
		if (wc.status == IBV_WC_SUCCESS)
			vt_fail("%s: a completion without error after the QPs' move to error", l->name);
	}
	CHECK(l->reaped == l->posted, "%s: %d of %d work requests never completed", l->name,
	      l->posted - l->reaped, l->posted);
	printf("   %s: %d outstanding, %d flushed\n", l->name, outstanding, flushed);
}

/* The next async event on ctx within ms: its type, or -1. */
static int async_event(struct ibv_context *ctx, int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&p, 1, ms) != 1 || ibv_get_async_event(ctx, &ev))
		return -1;
	type = ev.event_type;
	printf("   async event %s\n", ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
	return type;
}

static struct ibv_qp_init_attr rc_attr(void)
{
	return (struct ibv_qp_init_attr){
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

/* A connected rdma_cm pair on rxe0: listener, accepted id, client. */
struct cm_pair {
	struct rdma_event_channel *srv_ch, *cli_ch;
	struct rdma_cm_id *listen, *conn, *client;
};

static bool step(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		 struct rdma_cm_id **id)
{
	struct rdma_cm_event *ev = vt_cm_event(ch, want, EVENT_MS);

	if (ev && id)
		*id = ev->id;
	if (ev)
		rdma_ack_cm_event(ev);
	return ev != NULL;
}

static bool cm_connect(struct cm_pair *p)
{
	struct sockaddr_in sin = vt_cm_addr("RDMAVM_RXE_IP", 7494);
	struct ibv_qp_init_attr a = rc_attr(), b = rc_attr();

	return MUST(p->srv_ch = rdma_create_event_channel()) &&
	       MUST(p->cli_ch = rdma_create_event_channel()) &&
	       MUST(!rdma_create_id(p->srv_ch, &p->listen, NULL, RDMA_PS_TCP)) &&
	       MUST(!rdma_bind_addr(p->listen, (struct sockaddr *)&sin)) &&
	       MUST(!rdma_listen(p->listen, 1)) &&
	       MUST(!rdma_create_id(p->cli_ch, &p->client, NULL, RDMA_PS_TCP)) &&
	       MUST(!rdma_resolve_addr(p->client, NULL, (struct sockaddr *)&sin, 2000)) &&
	       MUST(step(p->cli_ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL)) &&
	       MUST(!rdma_resolve_route(p->client, 2000)) &&
	       MUST(step(p->cli_ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL)) &&
	       MUST(!rdma_create_qp(p->client, NULL, &a)) &&
	       MUST(!rdma_connect(p->client, &(struct rdma_conn_param){ .retry_count = 7 })) &&
	       MUST(step(p->srv_ch, RDMA_CM_EVENT_CONNECT_REQUEST, &p->conn)) &&
	       MUST(!rdma_create_qp(p->conn, p->client->pd, &b)) &&
	       MUST(!rdma_accept(p->conn, NULL)) &&
	       MUST(step(p->cli_ch, RDMA_CM_EVENT_ESTABLISHED, NULL)) &&
	       MUST(step(p->srv_ch, RDMA_CM_EVENT_ESTABLISHED, NULL));
}

/* Whether an event waits on either channel within ms. */
static bool cm_pending(struct cm_pair *p, int ms)
{
	struct pollfd fds[] = { { .fd = p->cli_ch->fd, .events = POLLIN },
				{ .fd = p->srv_ch->fd, .events = POLLIN } };

	return poll(fds, 2, ms) > 0;
}

/* What an application does with DEVICE_REMOVAL: each id, with its QP,
 * is destroyed as its event comes (the kernel may hold one id's event
 * until another is gone).  Any other event is printed: the oracle run
 * shows which come.  The number of ids removed within 2 * EVENT_MS. */
static int remove_ids(struct cm_pair *p)
{
	struct rdma_cm_id **ids[] = { &p->client, &p->conn, &p->listen };
	static const char *const id_names[] = { "connecting", "accepted", "listening" };
	int removed = 0;

	for (int waited = 0; removed < 3 && waited < 2 * EVENT_MS; waited += 100) {
		struct rdma_event_channel *ch;
		struct rdma_cm_event *ev;
		struct rdma_cm_id *id;

		if (!cm_pending(p, 100))
			continue;
		ch = vt_cm_pending(p->cli_ch, 0) ? p->cli_ch : p->srv_ch;
		if (!MUST(!rdma_get_cm_event(ch, &ev)))
			break;
		id = ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ? ev->id : NULL;
		for (int i = 0; i < 3; i++)
			if (*ids[i] == ev->id)
				printf("   rdma_cm event %s (status %d) for the %s id\n",
				       rdma_event_str(ev->event), ev->status, id_names[i]);
		rdma_ack_cm_event(ev);
		for (int i = 0; id && i < 3; i++) {
			struct timespec start;

			if (*ids[i] != id)
				continue;
			clock_gettime(CLOCK_MONOTONIC, &start);
			if (id->qp)
				rdma_destroy_qp(id);
			EXPECT_ERRNO(0, rdma_destroy_id(id));
			printf("   the %s id destroyed in %ld ms\n", id_names[i], vt_ms_since(&start));
			*ids[i] = NULL;
			removed++;
		}
	}
	return removed;
}

/* The child: objects, traffic, the loss, teardown; vt_finish()'s status. */
static int under_traffic(const char *dev, const char *netdev)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct cm_pair cm = { 0 };
	struct lane verbs = { .name = "verbs QPs", .writes = true };
	struct lane cmq = { .name = "rdma_cm QPs" };
	struct lane *lanes[] = { &verbs, &cmq };
	char *buf = aligned_alloc(BUF, BUF), *cm_buf = aligned_alloc(BUF, BUF);
	pthread_t thread;
	pid_t remover;
	int st, type;

	if (!MUST(buf && cm_buf) || !MUST(ctx = vt_open_rxe()) || !MUST(pd = ibv_alloc_pd(ctx)) ||
	    !MUST(verbs.mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE)) ||
	    !MUST(cq = ibv_create_cq(ctx, 64, NULL, NULL, 0)) ||
	    !MUST(verbs.a = vt_create_rc_qp(pd, cq)) || !MUST(verbs.b = vt_create_rc_qp(pd, cq)) ||
	    !MUST(!vt_connect_rc(verbs.a, verbs.b)) || !cm_connect(&cm) ||
	    !MUST(cmq.mr = ibv_reg_mr(cm.client->pd, cm_buf, BUF, IBV_ACCESS_LOCAL_WRITE)))
		return vt_finish();
	verbs.send_cq = verbs.recv_cq = cq;
	cmq.a = cm.client->qp;
	cmq.b = cm.conn->qp;
	cmq.send_cq = cm.client->send_cq;
	cmq.recv_cq = cm.conn->recv_cq;
	if (!MUST(!pthread_create(&thread, NULL, traffic, lanes)))
		return vt_finish();
	for (int t = 0; t < 100 && (verbs.completed < 30 || cmq.completed < 20); t++)
		usleep(100 * 1000);
	CHECK(verbs.completed >= 30 && cmq.completed >= 20 && !verbs.errors && !cmq.errors,
	      "traffic before the loss: %d and %d completions", verbs.completed, cmq.completed);

	printf("-- ip link set %s down, under traffic\n", netdev);
	CHECK(vt_sh("ip link set %s down", netdev) == 0, "ip link set down failed");
	do
		type = async_event(ctx, EVENT_MS);
	while (type >= 0 && type != IBV_EVENT_PORT_ERR);
	CHECK(type == IBV_EVENT_PORT_ERR, "no IBV_EVENT_PORT_ERR within %d ms", EVENT_MS);
	CHECK(!vt_cm_pending(cm.cli_ch, 500) && !vt_cm_pending(cm.srv_ch, 0),
	      "no rdma_cm event for a netdev going down");
	/* the thread ends once both lanes failed: each wait in it is bounded */
	for (int t = 0; t < 150 && !(verbs.errors || verbs.stuck); t++)
		usleep(100 * 1000);
	printf("   verbs: %d completed, %d error%s; rdma_cm: %d completed, %d error%s\n",
	       verbs.completed, verbs.errors, verbs.stuck ? ", then none" : "",
	       cmq.completed, cmq.errors, cmq.stuck ? ", then none" : "");
	CHECK(verbs.errors > 0, "the verbs QPs report no error completion with the netdev down");

	printf("-- ip link set %s up\n", netdev);
	CHECK(vt_sh("ip link set %s up", netdev) == 0, "ip link set up failed");
	do
		type = async_event(ctx, EVENT_MS);
	while (type >= 0 && type != IBV_EVENT_PORT_ACTIVE);
	CHECK(type == IBV_EVENT_PORT_ACTIVE, "no IBV_EVENT_PORT_ACTIVE within %d ms", EVENT_MS);

	printf("-- rdma link delete %s, with the ids connected\n", dev);
	remover = vt_start_link_delete(dev);
	if (!MUST(remover >= 0))
		return vt_finish();
	CHECK(cm_pending(&cm, EVENT_MS), "no rdma_cm event within %d ms of the removal", EVENT_MS);
	atomic_store(&stopping, true);
	CHECK(!pthread_join(thread, NULL), "the traffic thread");

	printf("-- the QPs to error: every work request completes\n");
	flush(&verbs);
	flush(&cmq);
	EXPECT_RET(0, ibv_dereg_mr(cmq.mr));

	printf("-- DEVICE_REMOVAL: each id destroyed as its event comes\n");
	CHECK(remove_ids(&cm) == 3, "not one DEVICE_REMOVAL for each of the three ids");

	printf("-- teardown\n");
	rdma_destroy_event_channel(cm.cli_ch);
	rdma_destroy_event_channel(cm.srv_ch);
	EXPECT_RET(0, ibv_destroy_qp(verbs.a));
	EXPECT_RET(0, ibv_destroy_qp(verbs.b));
	EXPECT_RET(0, ibv_destroy_cq(cq));
	EXPECT_RET(0, ibv_dereg_mr(verbs.mr));
	EXPECT_RET(0, ibv_dealloc_pd(pd));
	EXPECT_RET(0, ibv_close_device(ctx));
	free(buf);
	free(cm_buf);
	/* the parent waits for the removal; this process must end first */
	st = vt_wait_child(remover, 0);
	printf("   rdma link delete before the process ends: %s\n",
	       st < 0 ? "still waiting" : "done");
	return vt_finish();
}

/* An RDMA write between two fresh QPs on the new device. */
static bool moves_data(void)
{
	struct ibv_context *ctx = vt_open_rxe();
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_qp *a = cq ? vt_create_rc_qp(pd, cq) : NULL, *b = a ? vt_create_rc_qp(pd, cq) : NULL;
	static char buf[BUF] __attribute__((aligned(BUF)));
	struct ibv_mr *mr = b ? ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
					  IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct lane l = { .name = "new device", .a = a, .b = b, .send_cq = cq, .recv_cq = cq,
			  .mr = mr, .writes = true };
	bool ok = mr && !vt_connect_rc(a, b) && post(&l) && reap(&l, 3);

	if (mr)
		ibv_dereg_mr(mr);
	if (b)
		ibv_destroy_qp(b);
	if (a)
		ibv_destroy_qp(a);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	return ok;
}

int main(void)
{
	const char *dev = getenv("RDMAVM_RXE_DEV"), *netdev = getenv("RDMAVM_RXE_NETDEV");
	pid_t child;
	int st;

	vt_cm_init("device-loss");
	if (!MUST(dev && netdev))
		return vt_finish();
	fflush(stdout);
	child = fork();
	if (!MUST(child >= 0))
		return vt_finish();
	if (!child)
		_exit(under_traffic(dev, netdev));
	st = vt_wait_child(child, 60000);
	CHECK(st == 0, "the process under traffic: %s %d", st < 0 ? "still running" : "exit", st);
	if (st < 0)
		kill(child, SIGKILL), waitpid(child, NULL, 0);
	CHECK(vt_sh("for i in $(seq 100); do [ -e /sys/class/infiniband/%s ] || exit 0; "
		    "sleep 0.1; done; exit 1", dev) == 0,
	      "%s still there 10 s after the process ended", dev);

	printf("-- rdma link add %s\n", dev);
	CHECK(vt_sh("rdma link add %s type rxe netdev %s", dev, netdev) == 0,
	      "rdma link add failed");
	/* the RoCE GID comes asynchronously, after the netdev events */
	CHECK(vt_sh("for i in $(seq 100); do grep -qv '^0000:0000:0000:0000:0000:0000:0000:0000$' "
		    "/sys/class/infiniband/%s/ports/1/gids/%d && exit 0; sleep 0.1; done; exit 1",
		    dev, vt_gid_index()) == 0, "the new %s has no GID %d", dev, vt_gid_index());
	CHECK(moves_data(), "send and RDMA write on the new %s", dev);
	return vt_finish();
}
