// SPDX-License-Identifier: MIT
/*
 * The rdma_cm scenario for the fault sweep (sweep.sh), in one process:
 * event channels, a listener on the device's IP, a client id resolved to
 * it (address, route), QPs the library creates, connect and accept, a
 * send each way checked byte for byte, disconnect, all destroyed.
 *     fault-cm RDMAVM_RXE_IP|RDMAVM_SIW_IP DEVICE
 * scenario.h says what is checked.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmtest.h"
#include "scenario.h"

enum { MSG = 64, EVENT_MS = 5000 };

static const char *addr_env;

struct objects {
	struct rdma_event_channel *sch, *cch;
	struct rdma_cm_id *listen, *client, *server;
	struct ibv_mr *cmr, *smr;
	char cbuf[MSG], sbuf[MSG];
};

static bool is_error_event(enum rdma_cm_event_type type)
{
	return type == RDMA_CM_EVENT_ADDR_ERROR || type == RDMA_CM_EVENT_ROUTE_ERROR ||
	       type == RDMA_CM_EVENT_CONNECT_ERROR || type == RDMA_CM_EVENT_UNREACHABLE ||
	       type == RDMA_CM_EVENT_REJECTED;
}

/* The two channels, for peer_failed(). */
static struct rdma_event_channel *o_sch, *o_cch;

/* After an event that did not come on one side: whether the other side
 * got an error event (a request the server's library dropped is rejected
 * to the client), recorded as the documented failure. */
static bool peer_failed(struct attempt *at, struct rdma_event_channel *peer)
{
	struct rdma_cm_event *ev;
	int status;
	enum rdma_cm_event_type got;

	if (!peer || rdma_get_cm_event(peer, &ev))
		return false;
	got = ev->event;
	status = ev->status;
	rdma_ack_cm_event(ev);
	printf("   the other side got %s (status %d)\n", rdma_event_str(got), status);
	if (!is_error_event(got) || !status)
		return false;
	sc_ret(at, rdma_event_str(got), abs(status));
	return true;
}

/* The next event on ch, acked: true if it is want. */
static bool event(struct attempt *at, struct rdma_event_channel *ch,
		  enum rdma_cm_event_type want, struct rdma_cm_id **id)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	enum rdma_cm_event_type got;
	struct rdma_cm_event *ev;
	int status;
	bool ok;

	/* The channels are non-blocking: an event the library drops (a
	 * request it could not set up) leaves rdma_get_cm_event with EAGAIN,
	 * and the wait goes on. */
	for (;;) {
		if (poll(&pfd, 1, EVENT_MS) != 1) {
			printf("   no %s within %d ms\n", rdma_event_str(want), EVENT_MS);
			if (!peer_failed(at, ch == o_cch ? o_sch : o_cch))
				sc_broken(at, rdma_event_str(want));
			return false;
		}
		if (!rdma_get_cm_event(ch, &ev))
			break;
		if (errno != EAGAIN)
			return sc_errno(at, "rdma_get_cm_event", -1);
	}
	got = ev->event;
	status = ev->status;
	ok = got == want;
	if (ok && id)
		*id = ev->id;
	if (!ok)
		printf("   event %s (status %d), wanted %s\n", rdma_event_str(got), status,
		       rdma_event_str(want));
	if (!sc_errno(at, "rdma_ack_cm_event", rdma_ack_cm_event(ev)) || ok)
		return ok;
	/* rdma_cm reports a failure of its own steps (moving the QP on a
	 * connect response, say) as an error event with the errno */
	if (is_error_event(got) && status)
		sc_ret(at, rdma_event_str(got), abs(status));
	else
		sc_broken(at, rdma_event_str(want));
	return false;
}

static void destroy_id(struct attempt *at, struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (rdma_destroy_id(id)) {
		sc_errno(at, "rdma_destroy_id", -1);
		CHECK(!rdma_destroy_id(id), "retry of rdma_destroy_id failed (%s)",
		      strerror(errno));
	}
}

static void teardown(struct attempt *at, struct objects *o)
{
	if (o->smr && ibv_dereg_mr(o->smr))
		CHECK(!ibv_dereg_mr(o->smr), "retry of ibv_dereg_mr failed");
	if (o->cmr && ibv_dereg_mr(o->cmr))
		CHECK(!ibv_dereg_mr(o->cmr), "retry of ibv_dereg_mr failed");
	destroy_id(at, o->server);
	destroy_id(at, o->client);
	destroy_id(at, o->listen);
	if (o->cch)
		rdma_destroy_event_channel(o->cch);
	if (o->sch)
		rdma_destroy_event_channel(o->sch);
}

static bool post_recv(struct attempt *at, struct rdma_cm_id *id, struct ibv_mr *mr)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, MSG, mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(mr->addr, 0, MSG);
	return sc_ret(at, "ibv_post_recv", ibv_post_recv(id->qp, &wr, &bad));
}

/* A send from one id into the receive posted at the other. */
static bool send_one(struct attempt *at, struct rdma_cm_id *from, struct ibv_mr *from_mr,
		     struct rdma_cm_id *to, struct ibv_mr *to_mr, char tag)
{
	struct ibv_sge sge = { (uintptr_t)from_mr->addr, MSG, from_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	memset(from_mr->addr, tag, MSG);
	if (!sc_ret(at, "ibv_post_send", ibv_post_send(from->qp, &wr, &bad)))
		return false;
	if (vt_poll_one(from->send_cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS ||
	    vt_poll_one(to->recv_cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS ||
	    memcmp(from_mr->addr, to_mr->addr, MSG)) {
		sc_broken(at, "send and receive");
		return false;
	}
	return true;
}

static struct ibv_qp_init_attr rc_attr(void)
{
	return (struct ibv_qp_init_attr){
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

static void attempt(struct attempt *at)
{
	struct sockaddr_in sin = vt_cm_addr(addr_env, (uint16_t)(20000 + getpid() % 20000));
	struct rdma_conn_param cparam = { .responder_resources = 1, .initiator_depth = 1,
					  .retry_count = 7, .rnr_retry_count = 7 };
	struct rdma_conn_param sparam = { .responder_resources = 1, .initiator_depth = 1 };
	struct ibv_qp_init_attr cinit = rc_attr(), sinit = rc_attr();
	struct objects *o = calloc(1, sizeof(*o));

	if (!MUST(o))
		return;
	o_sch = o_cch = NULL;
	errno = 0;
	if (!sc_made(at, "rdma_create_event_channel", o->sch = rdma_create_event_channel()) ||
	    !sc_made(at, "rdma_create_event_channel", o->cch = rdma_create_event_channel()) ||
	    !MUST(!fcntl((o_sch = o->sch)->fd, F_SETFL, O_NONBLOCK)) ||
	    !MUST(!fcntl((o_cch = o->cch)->fd, F_SETFL, O_NONBLOCK)) ||
	    !sc_errno(at, "rdma_create_id", rdma_create_id(o->sch, &o->listen, NULL, RDMA_PS_TCP)) ||
	    !sc_errno(at, "rdma_bind_addr", rdma_bind_addr(o->listen, (struct sockaddr *)&sin)) ||
	    !sc_errno(at, "rdma_listen", rdma_listen(o->listen, 4)) ||
	    !sc_errno(at, "rdma_create_id", rdma_create_id(o->cch, &o->client, NULL, RDMA_PS_TCP)) ||
	    !sc_errno(at, "rdma_resolve_addr", rdma_resolve_addr(o->client, NULL,
							       (struct sockaddr *)&sin, 2000)) ||
	    !event(at, o->cch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    !sc_errno(at, "rdma_resolve_route", rdma_resolve_route(o->client, 2000)) ||
	    !event(at, o->cch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL) ||
	    !sc_errno(at, "rdma_create_qp", rdma_create_qp(o->client, NULL, &cinit)) ||
	    !sc_made(at, "ibv_reg_mr", o->cmr = ibv_reg_mr(o->client->pd, o->cbuf, MSG,
							  IBV_ACCESS_LOCAL_WRITE)) ||
	    !post_recv(at, o->client, o->cmr) ||
	    !sc_errno(at, "rdma_connect", rdma_connect(o->client, &cparam)) ||
	    !event(at, o->sch, RDMA_CM_EVENT_CONNECT_REQUEST, &o->server) ||
	    !sc_errno(at, "rdma_create_qp", rdma_create_qp(o->server, NULL, &sinit)) ||
	    !sc_made(at, "ibv_reg_mr", o->smr = ibv_reg_mr(o->server->pd, o->sbuf, MSG,
							  IBV_ACCESS_LOCAL_WRITE)) ||
	    !post_recv(at, o->server, o->smr) ||
	    !sc_errno(at, "rdma_accept", rdma_accept(o->server, &sparam)) ||
	    !event(at, o->cch, RDMA_CM_EVENT_ESTABLISHED, NULL) ||
	    !event(at, o->sch, RDMA_CM_EVENT_ESTABLISHED, NULL) ||
	    !send_one(at, o->client, o->cmr, o->server, o->smr, 'c') ||
	    !post_recv(at, o->client, o->cmr) ||
	    !send_one(at, o->server, o->smr, o->client, o->cmr, 's') ||
	    /* the client's DISCONNECTED comes with the server's reply (IB CM's
	     * DREP), which the server's rdma_disconnect sends */
	    !sc_errno(at, "rdma_disconnect", rdma_disconnect(o->client)) ||
	    !event(at, o->sch, RDMA_CM_EVENT_DISCONNECTED, NULL) ||
	    !sc_errno(at, "rdma_disconnect", rdma_disconnect(o->server)))
		goto out;
	event(at, o->cch, RDMA_CM_EVENT_DISCONNECTED, NULL);
out:
	teardown(at, o);
	free(o);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fault-cm RDMAVM_RXE_IP|RDMAVM_SIW_IP DEVICE\n");
		return 2;
	}
	addr_env = argv[1];
	return sc_run("fault scenario: rdma_cm", argv[2], attempt);
}
