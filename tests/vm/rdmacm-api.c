// SPDX-License-Identifier: MIT
/*
 * librdmacm's public API against the real kernel, server and client in
 * one process (each side on its own event channel, so each sees its
 * events in order), on rxe0 and, where iWARP allows, siw0.  Run on
 * upstream's librdmacm first, then ours (on-both.sh): the expectations
 * are upstream's behaviour on this kernel.
 *  - connect/accept: the QPs the library moved are RTS, point at each
 *    other, and carry sends both ways; ERR after a disconnect
 *  - reject with private data and its reason (rxe, siw), rdma_reject_ece
 *  - synchronous ids (no channel): every call returns with its result
 *  - rdma_migrate_id: later events arrive on the new channel only
 *  - resolve timeouts to an unreachable address, connect to no listener
 *  - ECE: the client's reaches the server, rdma_reject_ece's reason
 *  - rdma_set_option: TOS, REUSEADDR, AFONLY, ACK timeout, bad ones
 *  - multicast join/leave on rxe (UD)
 *  - 1000 ids at once, each bound to its own port, nothing left after
 *  - bad arguments: NULL ids and events, wrong states, oversized private
 *    data; calls that crash upstream's library run in a child and must
 *    not crash ours
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cmtest.h"

enum { EVENT_MS = 10000, MSG = 64 };

static const char *const rxe = "RDMAVM_RXE_IP", *const siw = "RDMAVM_SIW_IP";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A server and a client on one device, each with its own channel. */
struct pair {
	struct rdma_event_channel *sch, *cch;
	struct rdma_cm_id *listen, *client, *server;
};

static void pair_close(struct pair *p)
{
	if (p->server)
		rdma_destroy_id(p->server);
	if (p->client)
		rdma_destroy_id(p->client);
	if (p->listen)
		rdma_destroy_id(p->listen);
	if (p->cch)
		rdma_destroy_event_channel(p->cch);
	if (p->sch)
		rdma_destroy_event_channel(p->sch);
	memset(p, 0, sizeof(*p));
}

static bool resolved(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = vt_cm_event(ch, want, EVENT_MS);

	if (ev)
		rdma_ack_cm_event(ev);
	return ev != NULL;
}

/* Listener on env's address:port, client resolved up to its route. */
static bool pair_open(struct pair *p, const char *env, uint16_t port)
{
	struct sockaddr_in sin = vt_cm_addr(env, port);

	memset(p, 0, sizeof(*p));
	return MUST(p->sch = rdma_create_event_channel()) &&
	       MUST(p->cch = rdma_create_event_channel()) &&
	       MUST(!rdma_create_id(p->sch, &p->listen, p, RDMA_PS_TCP)) &&
	       MUST(!rdma_bind_addr(p->listen, (struct sockaddr *)&sin)) &&
	       MUST(!rdma_listen(p->listen, 4)) &&
	       MUST(!rdma_create_id(p->cch, &p->client, p, RDMA_PS_TCP)) &&
	       MUST(!rdma_resolve_addr(p->client, NULL, (struct sockaddr *)&sin, 2000)) &&
	       MUST(resolved(p->cch, RDMA_CM_EVENT_ADDR_RESOLVED)) &&
	       MUST(!rdma_resolve_route(p->client, 2000)) &&
	       MUST(resolved(p->cch, RDMA_CM_EVENT_ROUTE_RESOLVED));
}

/* The server's CONNECT_REQUEST event (p->server is its new id). */
static struct rdma_cm_event *pair_request(struct pair *p)
{
	struct rdma_cm_event *ev = vt_cm_event(p->sch, RDMA_CM_EVENT_CONNECT_REQUEST, EVENT_MS);

	if (ev)
		p->server = ev->id;
	return ev;
}

static bool starts_with(const void *data, uint8_t len, const char *want)
{
	return data && len >= strlen(want) && !memcmp(data, want, strlen(want));
}

/* ------------------------------------------------------------------ */
/* connect/accept with QPs the library creates and moves */

static struct ibv_qp_init_attr rc_attr(void)
{
	return (struct ibv_qp_init_attr){
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

static int post_recv(struct rdma_cm_id *id, struct ibv_mr *mr)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, MSG, mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(mr->addr, 0, MSG);
	return ibv_post_recv(id->qp, &wr, &bad);
}

/* A send into the receive already posted at to. */
static bool send_one(struct rdma_cm_id *from, struct ibv_mr *from_mr,
		     struct rdma_cm_id *to, struct ibv_mr *to_mr, char tag)
{
	struct ibv_sge ssge = { (uintptr_t)from_mr->addr, MSG, from_mr->lkey };
	struct ibv_send_wr swr = { .sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_wc wc;

	memset(from_mr->addr, tag, MSG);
	if (ibv_post_send(from->qp, &swr, &sbad))
		return false;
	if (vt_poll_one(from->send_cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS) {
		printf("   send completion: %s\n", ibv_wc_status_str(wc.status));
		return false;
	}
	if (vt_poll_one(to->recv_cq, &wc, 5000) != 1 || wc.status != IBV_WC_SUCCESS) {
		printf("   no receive completion\n");
		return false;
	}
	return ((char *)to_mr->addr)[0] == tag && ((char *)to_mr->addr)[MSG - 1] == tag;
}

static void connect_accept(const char *env, uint16_t port)
{
	struct rdma_conn_param cparam = { .responder_resources = 1, .initiator_depth = 1,
					  .retry_count = 7, .rnr_retry_count = 7,
					  .private_data = "hello", .private_data_len = 6 };
	struct rdma_conn_param sparam = { .responder_resources = 1, .initiator_depth = 1 };
	struct ibv_qp_init_attr init = rc_attr(), got_init;
	struct ibv_qp_attr cattr, sattr;
	static char cbuf[MSG], sbuf[MSG];
	struct ibv_mr *cmr = NULL, *smr = NULL;
	/* siw reports its own QP states, not those the library moved to */
	bool on_rxe = !strcmp(env, rxe);
	struct rdma_cm_event *ev;
	struct pair p;

	printf("-- connect and accept on %s\n", env);
	if (!pair_open(&p, env, port) || !MUST(!rdma_create_qp(p.client, NULL, &init)))
		goto out;
	CHECK(p.client->pd && p.client->send_cq && p.client->recv_cq,
	      "rdma_create_qp without PD/CQs fills id->pd, send_cq, recv_cq");
	if (on_rxe)
		CHECK(!ibv_query_qp(p.client->qp, &cattr, IBV_QP_STATE, &got_init) &&
		      cattr.qp_state == IBV_QPS_INIT, "a new QP is INIT (state %d)", cattr.qp_state);
	/* receives posted before the connection, as rping and ucmatose do */
	if (!MUST(cmr = ibv_reg_mr(p.client->pd, cbuf, MSG, IBV_ACCESS_LOCAL_WRITE)) ||
	    !MUST(!post_recv(p.client, cmr)))
		goto out;
	if (!MUST(!rdma_connect(p.client, &cparam)) || !MUST(ev = pair_request(&p)))
		goto out;
	CHECK(starts_with(ev->param.conn.private_data, ev->param.conn.private_data_len, "hello"),
	      "the request carries the client's private data");
	CHECK(ev->listen_id == p.listen, "the request's listen_id is the listener");
	rdma_ack_cm_event(ev);
	init = rc_attr();
	if (!MUST(!rdma_create_qp(p.server, NULL, &init)) ||
	    !MUST(smr = ibv_reg_mr(p.server->pd, sbuf, MSG, IBV_ACCESS_LOCAL_WRITE)) ||
	    !MUST(!post_recv(p.server, smr)) || !MUST(!rdma_accept(p.server, &sparam)))
		goto out;
	if (!MUST(ev = vt_cm_event(p.cch, RDMA_CM_EVENT_ESTABLISHED, EVENT_MS)))
		goto out;
	rdma_ack_cm_event(ev);
	if (!MUST(ev = vt_cm_event(p.sch, RDMA_CM_EVENT_ESTABLISHED, EVENT_MS)))
		goto out;
	rdma_ack_cm_event(ev);

	if (MUST(!ibv_query_qp(p.client->qp, &cattr, IBV_QP_STATE | IBV_QP_DEST_QPN |
			       IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC, &got_init)) &&
	    MUST(!ibv_query_qp(p.server->qp, &sattr, IBV_QP_STATE | IBV_QP_DEST_QPN |
				IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC, &got_init))) {
		if (on_rxe) {
			CHECK(cattr.qp_state == IBV_QPS_RTS && sattr.qp_state == IBV_QPS_RTS,
			      "both QPs RTS after ESTABLISHED (client %d, server %d)",
			      cattr.qp_state, sattr.qp_state);
			/* iWARP QPs have no destination QPN of their own */
			CHECK(cattr.dest_qp_num == p.server->qp->qp_num,
			      "the client QP's destination is the server's QP (%u, want %u)",
			      cattr.dest_qp_num, p.server->qp->qp_num);
			CHECK(sattr.dest_qp_num == p.client->qp->qp_num,
			      "the server QP's destination is the client's QP (%u, want %u)",
			      sattr.dest_qp_num, p.client->qp->qp_num);
		}
		printf("   client rd_atomic %u/%u, server %u/%u\n", cattr.max_rd_atomic,
		       cattr.max_dest_rd_atomic, sattr.max_rd_atomic, sattr.max_dest_rd_atomic);
	}
	CHECK(send_one(p.server, smr, p.client, cmr, 's'),
	      "a send from server to client arrives in the receive posted before connecting");
	CHECK(send_one(p.client, cmr, p.server, smr, 'c'),
	      "a send from client to server arrives in the receive posted before accepting");

	/* the passive side answers the disconnect request with its own */
	CHECK(!rdma_disconnect(p.client), "rdma_disconnect: %s", strerror(errno));
	if ((ev = vt_cm_event(p.sch, RDMA_CM_EVENT_DISCONNECTED, EVENT_MS)))
		rdma_ack_cm_event(ev);
	CHECK(!rdma_disconnect(p.server), "the server's rdma_disconnect: %s", strerror(errno));
	if ((ev = vt_cm_event(p.cch, RDMA_CM_EVENT_DISCONNECTED, EVENT_MS)))
		rdma_ack_cm_event(ev);
	if (on_rxe)
		CHECK(!ibv_query_qp(p.client->qp, &cattr, IBV_QP_STATE, &got_init) &&
		      cattr.qp_state == IBV_QPS_ERR,
		      "the disconnected client QP is ERR (state %d)", cattr.qp_state);
out:
	if (cmr)
		ibv_dereg_mr(cmr);
	if (smr)
		ibv_dereg_mr(smr);
	if (p.client && p.client->qp)
		rdma_destroy_qp(p.client);
	if (p.server && p.server->qp)
		rdma_destroy_qp(p.server);
	pair_close(&p);
}

/* ------------------------------------------------------------------ */
/* reject, with private data and reason */

static void reject(const char *env, uint16_t port, bool ece, int want_status)
{
	struct rdma_conn_param cparam = { .private_data = "knock", .private_data_len = 6,
					  .responder_resources = 1, .initiator_depth = 1 };
	struct ibv_qp_init_attr init = rc_attr();
	struct rdma_cm_event *ev;
	struct pair p;

	printf("-- %s on %s\n", ece ? "rdma_reject_ece" : "rdma_reject", env);
	if (!pair_open(&p, env, port) || !MUST(!rdma_create_qp(p.client, NULL, &init)) ||
	    !MUST(!rdma_connect(p.client, &cparam)) || !MUST(ev = pair_request(&p)))
		goto out;
	rdma_ack_cm_event(ev);
	if (ece)
		CHECK(!rdma_reject_ece(p.server, "go away", 8), "rdma_reject_ece: %s", strerror(errno));
	else
		CHECK(!rdma_reject(p.server, "go away", 8), "rdma_reject: %s", strerror(errno));
	if (!(ev = vt_cm_event(p.cch, RDMA_CM_EVENT_REJECTED, EVENT_MS)))
		goto out;
	CHECK(ev->status == want_status, "the reason is %d (want %d)", ev->status, want_status);
	CHECK(starts_with(ev->param.conn.private_data, ev->param.conn.private_data_len, "go away"),
	      "the client gets the private data of the reject (%u bytes)",
	      ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
out:
	if (p.client && p.client->qp)
		rdma_destroy_qp(p.client);
	pair_close(&p);
}

/* ------------------------------------------------------------------ */
/* synchronous ids */

struct sync_server {
	struct rdma_cm_id *listen, *conn;
	int accepted;
};

static void *sync_accept(void *arg)
{
	struct sync_server *s = arg;
	struct ibv_qp_init_attr init = rc_attr();

	if (rdma_get_request(s->listen, &s->conn) || rdma_create_qp(s->conn, NULL, &init))
		return NULL;
	s->accepted = !rdma_accept(s->conn, NULL);
	return NULL;
}

static void synchronous(uint16_t port)
{
	struct sockaddr_in sin = vt_cm_addr(rxe, port);
	struct sockaddr_in nobody = vt_cm_addr(rxe, port);
	struct ibv_qp_init_attr init = rc_attr();
	struct sync_server s = { 0 };
	struct rdma_cm_id *id = NULL, *lost = NULL;
	pthread_t thread;
	bool started = false;

	printf("-- synchronous ids\n");
	if (!MUST(!rdma_create_id(NULL, &s.listen, NULL, RDMA_PS_TCP)) ||
	    !MUST(!rdma_bind_addr(s.listen, (struct sockaddr *)&sin)) ||
	    !MUST(!rdma_listen(s.listen, 1)))
		goto out;
	CHECK(s.listen->channel != NULL, "a synchronous id has a channel of its own");
	started = !pthread_create(&thread, NULL, sync_accept, &s);
	if (!MUST(!rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)))
		goto out;
	CHECK(!rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 2000) && id->verbs,
	      "rdma_resolve_addr returns resolved (verbs %p)", (void *)id->verbs);
	CHECK(!rdma_resolve_route(id, 2000), "rdma_resolve_route returns resolved: %s",
	      strerror(errno));
	if (!MUST(!rdma_create_qp(id, NULL, &init)))
		goto out;
	CHECK(!rdma_connect(id, NULL), "rdma_connect returns connected: %s", strerror(errno));
	if (started)
		pthread_join(thread, NULL);
	started = false;
	CHECK(s.accepted, "rdma_get_request and rdma_accept on the listener's side");

	/* an address without a route: the error comes back as errno */
	nobody.sin_addr.s_addr = inet_addr("203.0.113.8");
	if (MUST(!rdma_create_id(NULL, &lost, NULL, RDMA_PS_TCP)))
		EXPECT_ERRNO(ENETUNREACH, rdma_resolve_addr(lost, NULL, (struct sockaddr *)&nobody, 500));
out:
	if (started)
		pthread_cancel(thread), pthread_join(thread, NULL);
	if (lost)
		rdma_destroy_id(lost);
	if (id) {
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
	}
	if (s.conn) {
		if (s.conn->qp)
			rdma_destroy_qp(s.conn);
		rdma_destroy_id(s.conn);
	}
	if (s.listen)
		rdma_destroy_id(s.listen);
}

/* ------------------------------------------------------------------ */
/* rdma_migrate_id */

static void migrate(uint16_t port)
{
	struct sockaddr_in sin = vt_cm_addr(rxe, port);
	struct rdma_event_channel *a = NULL, *b = NULL;
	struct rdma_cm_id *id = NULL;

	printf("-- rdma_migrate_id\n");
	if (!MUST(a = rdma_create_event_channel()) || !MUST(b = rdma_create_event_channel()) ||
	    !MUST(!rdma_create_id(a, &id, NULL, RDMA_PS_TCP)) ||
	    !MUST(!rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 2000)) ||
	    !MUST(resolved(a, RDMA_CM_EVENT_ADDR_RESOLVED)))
		goto out;
	CHECK(!rdma_migrate_id(id, b), "rdma_migrate_id: %s", strerror(errno));
	CHECK(id->channel == b, "the id's channel is the new one");
	if (MUST(!rdma_resolve_route(id, 2000)))
		resolved(b, RDMA_CM_EVENT_ROUTE_RESOLVED);
	CHECK(!vt_cm_pending(a, 200), "nothing more on the old channel");
out:
	if (id)
		rdma_destroy_id(id);
	if (b)
		rdma_destroy_event_channel(b);
	if (a)
		rdma_destroy_event_channel(a);
}

/* ------------------------------------------------------------------ */
/* timeouts and unreachable peers */

static void unreachable(const char *env, const char *netdev, uint16_t port, int want_reject)
{
	struct sockaddr_in sin = vt_cm_addr(env, port);
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct ibv_qp_init_attr init = rc_attr();
	struct rdma_cm_event *ev;
	struct pair p;
	double t0;

	printf("-- unreachable peers on %s\n", env);
	if (!MUST(ch = rdma_create_event_channel()))
		return;
	/* on the device's subnet, but nobody answers the ARP request: the
	 * guest's netdevs are dummies that resolve nothing unless asked to */
	sin.sin_addr.s_addr = htonl(ntohl(sin.sin_addr.s_addr) + 99);
	if (MUST(!vt_sh("ip link set %s arp on", netdev)) &&
	    MUST(!rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))) {
		t0 = now();
		if (MUST(!rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 500)) &&
		    (ev = vt_cm_event(ch, RDMA_CM_EVENT_ADDR_ERROR, EVENT_MS))) {
			CHECK(ev->status == -ETIMEDOUT, "status %d (want -ETIMEDOUT)", ev->status);
			rdma_ack_cm_event(ev);
			CHECK(now() - t0 < 5, "the error comes after the timeout, not much later (%.2f s)",
			      now() - t0);
		}
		rdma_destroy_id(id);
	}
	vt_sh("ip link set %s arp off", netdev);
	/* no route at all */
	sin.sin_addr.s_addr = inet_addr("203.0.113.7");
	if (MUST(!rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))) {
		errno = 0;
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 500) == 0) {
			if ((ev = vt_cm_event(ch, RDMA_CM_EVENT_ADDR_ERROR, EVENT_MS))) {
				printf("   no route: ADDR_ERROR status %d\n", ev->status);
				CHECK(ev->status == -ENETUNREACH, "status %d (want -ENETUNREACH)",
				      ev->status);
				rdma_ack_cm_event(ev);
			}
		} else {
			CHECK(errno == ENETUNREACH, "no route: rdma_resolve_addr fails with %s",
			      vt_errname(errno));
		}
		rdma_destroy_id(id);
	}
	rdma_destroy_event_channel(ch);

	/* a port nobody listens on: the listener of pair_open is closed */
	if (!pair_open(&p, env, port))
		goto out;
	rdma_destroy_id(p.listen);
	p.listen = NULL;
	if (!MUST(!rdma_create_qp(p.client, NULL, &init)))
		goto out;
	if (!want_reject) {
		/* iWARP: the kernel's TCP connect is refused at once */
		EXPECT_ERRNO(ECONNREFUSED, rdma_connect(p.client, NULL));
	} else if (MUST(!rdma_connect(p.client, NULL)) &&
		   (ev = vt_cm_event(p.cch, RDMA_CM_EVENT_REJECTED, EVENT_MS))) {
		CHECK(ev->status == want_reject, "no listener: reason %d (want %d)",
		      ev->status, want_reject);
		rdma_ack_cm_event(ev);
	}
out:
	if (p.client && p.client->qp)
		rdma_destroy_qp(p.client);
	pair_close(&p);
}

/* ------------------------------------------------------------------ */
/* ECE */

static void ece(uint16_t port)
{
	struct ibv_ece mine = { .vendor_id = 0x15b3, .options = 0x1 }, got = { 0 };
	struct rdma_conn_param cparam = { .responder_resources = 1, .initiator_depth = 1 };
	struct ibv_qp_init_attr init = rc_attr();
	struct rdma_cm_event *ev;
	struct pair p;

	printf("-- ECE\n");
	if (!pair_open(&p, rxe, port))
		goto out;
	EXPECT_ERRNO(EINVAL, rdma_set_local_ece(p.client, NULL));
	EXPECT_ERRNO(EINVAL, rdma_set_local_ece(NULL, &mine));
	EXPECT_ERRNO(EINVAL, rdma_get_remote_ece(p.client, NULL));
	/* before the QP: with one, the library asks the QP for its ECE */
	CHECK(!rdma_set_local_ece(p.client, &mine), "rdma_set_local_ece: %s", strerror(errno));
	if (!MUST(!rdma_create_qp(p.client, NULL, &init)))
		goto out;
	EXPECT_ERRNO(EINVAL, rdma_set_local_ece(p.client, &mine));
	if (!MUST(!rdma_connect(p.client, &cparam)) || !MUST(ev = pair_request(&p)))
		goto out;
	CHECK(!rdma_get_remote_ece(p.server, &got), "rdma_get_remote_ece: %s", strerror(errno));
	/* upstream's library sends what the QP reports, and rxe's provider
	 * has no ECE (ibv_query_ece: EOPNOTSUPP): the request carries none */
	CHECK(got.vendor_id == 0 && got.options == 0,
	      "the server sees no ECE (vendor_id 0x%x options 0x%x)", got.vendor_id, got.options);
	rdma_ack_cm_event(ev);
	CHECK(!rdma_reject_ece(p.server, NULL, 0), "rdma_reject_ece: %s", strerror(errno));
	if ((ev = vt_cm_event(p.cch, RDMA_CM_EVENT_REJECTED, EVENT_MS))) {
		CHECK(ev->status == 35, "reason %d: vendor option not supported (35)", ev->status);
		rdma_ack_cm_event(ev);
	}
out:
	if (p.client && p.client->qp)
		rdma_destroy_qp(p.client);
	pair_close(&p);
}

/* ------------------------------------------------------------------ */
/* rdma_set_option */

static void options(uint16_t port)
{
	struct sockaddr_in sin = vt_cm_addr(rxe, port);
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct rdma_cm_id *a = NULL, *b = NULL, *c = NULL;
	uint8_t tos = 32, timeout = 14;
	int one = 1;

	printf("-- rdma_set_option\n");
	if (!MUST(!rdma_create_id(NULL, &a, NULL, RDMA_PS_TCP)) ||
	    !MUST(!rdma_create_id(NULL, &b, NULL, RDMA_PS_TCP)) ||
	    !MUST(!rdma_create_id(NULL, &c, NULL, RDMA_PS_TCP)))
		goto out;
	EXPECT_ERRNO(0, rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)));
	EXPECT_ERRNO(EINVAL, rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &one, sizeof(one)));
	EXPECT_ERRNO(0, rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
					&timeout, sizeof(timeout)));
	EXPECT_ERRNO(ENOSYS, rdma_set_option(a, RDMA_OPTION_ID, 99, &one, sizeof(one)));
	EXPECT_ERRNO(ENOSYS, rdma_set_option(a, 99, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)));
	EXPECT_ERRNO(EINVAL, rdma_set_option(a, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &one, 1));
	/* two ids on one address and port: only with REUSEADDR on both */
	EXPECT_ERRNO(0, rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)));
	EXPECT_ERRNO(0, rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)));
	EXPECT_ERRNO(0, rdma_bind_addr(a, (struct sockaddr *)&sin));
	EXPECT_ERRNO(0, rdma_bind_addr(b, (struct sockaddr *)&sin));
	EXPECT_ERRNO(EADDRINUSE, rdma_bind_addr(c, (struct sockaddr *)&sin));
	/* setting it again once bound is no change */
	EXPECT_ERRNO(0, rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)));
	/* AFONLY before binding to the IPv6 wildcard */
	rdma_destroy_id(c);
	c = NULL;
	if (MUST(!rdma_create_id(NULL, &c, NULL, RDMA_PS_TCP))) {
		EXPECT_ERRNO(0, rdma_set_option(c, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one)));
		EXPECT_ERRNO(0, rdma_bind_addr(c, (struct sockaddr *)&any6));
		EXPECT_ERRNO(0, rdma_set_option(c, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one)));
	}
out:
	if (c)
		rdma_destroy_id(c);
	if (b)
		rdma_destroy_id(b);
	if (a)
		rdma_destroy_id(a);
}

/* ------------------------------------------------------------------ */
/* multicast on rxe */

static void multicast(void)
{
	struct sockaddr_in sin = vt_cm_addr(rxe, 0);
	struct sockaddr_in group = { .sin_family = AF_INET, .sin_addr.s_addr = inet_addr("239.1.2.3") };
	struct sockaddr_in other = { .sin_family = AF_INET, .sin_addr.s_addr = inet_addr("239.1.2.4") };
	struct rdma_cm_join_mc_attr_ex sendonly = {
		.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
		.join_flags = RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER,
		.addr = (struct sockaddr *)&other,
	};
	struct ibv_qp_init_attr init = rc_attr();
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *ev;

	printf("-- multicast on rxe\n");
	init.qp_type = IBV_QPT_UD;
	if (!MUST(ch = rdma_create_event_channel()) ||
	    !MUST(!rdma_create_id(ch, &id, NULL, RDMA_PS_UDP)) ||
	    !MUST(!rdma_bind_addr(id, (struct sockaddr *)&sin)) ||
	    !MUST(!rdma_create_qp(id, NULL, &init)))
		goto out;
	if (MUST(!rdma_join_multicast(id, (struct sockaddr *)&group, &group)) &&
	    (ev = vt_cm_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, EVENT_MS))) {
		CHECK(ev->param.ud.qp_num == 0xffffff, "the group's QPN (0x%x)", ev->param.ud.qp_num);
		CHECK(ev->param.ud.qkey != 0, "a Q_Key (0x%x)", ev->param.ud.qkey);
		CHECK(ev->param.ud.ah_attr.is_global, "a global address handle");
		CHECK(ev->param.ud.private_data == &group, "the context given to the join");
		rdma_ack_cm_event(ev);
	}
	/* a second join of the same group is one more membership */
	if (MUST(!rdma_join_multicast(id, (struct sockaddr *)&group, NULL)) &&
	    (ev = vt_cm_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, EVENT_MS)))
		rdma_ack_cm_event(ev);
	if (MUST(!rdma_join_multicast_ex(id, &sendonly, NULL)) &&
	    (ev = vt_cm_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, EVENT_MS)))
		rdma_ack_cm_event(ev);
	EXPECT_ERRNO(0, rdma_leave_multicast(id, (struct sockaddr *)&other));
	EXPECT_ERRNO(0, rdma_leave_multicast(id, (struct sockaddr *)&group));
	EXPECT_ERRNO(0, rdma_leave_multicast(id, (struct sockaddr *)&group));
	EXPECT_ERRNO(EADDRNOTAVAIL, rdma_leave_multicast(id, (struct sockaddr *)&group));
	EXPECT_ERRNO(EADDRNOTAVAIL, rdma_leave_multicast(id, (struct sockaddr *)&other));
	sendonly.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	EXPECT_ERRNO(EINVAL, rdma_join_multicast_ex(id, &sendonly, NULL));
out:
	if (id) {
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
	}
	if (ch)
		rdma_destroy_event_channel(ch);
}

/* ------------------------------------------------------------------ */
/* many ids */

enum { MANY = 1000 };

static int by_port(const void *a, const void *b)
{
	return *(const uint16_t *)a - *(const uint16_t *)b;
}

static void many_ids(void)
{
	static struct rdma_cm_id *ids[MANY];
	static uint16_t ports[MANY];
	struct sockaddr_in sin = vt_cm_addr(rxe, 0);
	struct rdma_event_channel *ch;
	int fds = vt_count_fds(), made = 0, bound = 0, distinct = 0;
	char res[256];

	printf("-- %d ids at once\n", MANY);
	if (!MUST(ch = rdma_create_event_channel()))
		return;
	for (; made < MANY; made++)
		if (rdma_create_id(ch, &ids[made], NULL, RDMA_PS_TCP))
			break;
	CHECK(made == MANY, "%d ids made: %s", made, strerror(errno));
	for (int i = 0; i < made; i++)
		if (!rdma_bind_addr(ids[i], (struct sockaddr *)&sin))
			ports[bound++] = ntohs(rdma_get_src_port(ids[i]));
	CHECK(bound == made, "%d of %d bound to port 0", bound, made);
	qsort(ports, bound, sizeof(ports[0]), by_port);
	for (int i = 0; i < bound; i++)
		distinct += !i || ports[i] != ports[i - 1];
	CHECK(distinct == bound && ports[0] != 0, "each its own port (%d distinct)", distinct);
	if (vt_rdma_res(getenv("RDMAVM_RXE_DEV"), res, sizeof(res)))
		printf("   rdma res: %s\n", res);
	for (int i = 0; i < made; i++)
		rdma_destroy_id(ids[i]);
	rdma_destroy_event_channel(ch);
	CHECK(vt_count_fds() == fds, "no fd left (%d, was %d)", vt_count_fds(), fds);
}

/* ------------------------------------------------------------------ */
/* bad arguments */

static int null_create_id(void *arg)
{
	(void)arg;
	errno = 0;
	return rdma_create_id(NULL, NULL, NULL, RDMA_PS_TCP) ? errno : 0;
}

static int null_destroy_id(void *arg)
{
	(void)arg;
	errno = 0;
	return rdma_destroy_id(NULL) ? errno : 0;
}

static int null_get_event(void *arg)
{
	struct rdma_cm_event *ev;

	(void)arg;
	errno = 0;
	return rdma_get_cm_event(NULL, &ev) ? errno : 0;
}

static int null_ack(void *arg)
{
	(void)arg;
	errno = 0;
	return rdma_ack_cm_event(NULL) ? errno : 0;
}

static int null_connect(void *arg)
{
	(void)arg;
	errno = 0;
	return rdma_connect(NULL, NULL) ? errno : 0;
}

static int null_qp(void *arg)
{
	struct ibv_qp_init_attr init = rc_attr();

	(void)arg;
	errno = 0;
	return rdma_create_qp(NULL, NULL, &init) ? errno : 0;
}

/* A new id of the child's own: the kernel refuses rdma_cm commands
 * from another process than the one that opened the channel (EACCES). */
static struct rdma_cm_id *fresh_id(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;

	return ch && !rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ? id : NULL;
}

static int early_route(void *arg)
{
	struct rdma_cm_id *id = fresh_id();

	(void)arg;
	errno = 0;
	return rdma_resolve_route(id, 1000) ? errno : 0;
}

static int early_connect(void *arg)
{
	struct rdma_cm_id *id = fresh_id();

	(void)arg;
	errno = 0;
	return rdma_connect(id, NULL) ? errno : 0;
}

static int early_accept(void *arg)
{
	struct rdma_cm_id *id = fresh_id();

	(void)arg;
	errno = 0;
	return rdma_accept(id, NULL) ? errno : 0;
}

static int early_disconnect(void *arg)
{
	struct rdma_cm_id *id = fresh_id();

	(void)arg;
	errno = 0;
	return rdma_disconnect(id) ? errno : 0;
}

static int early_qp(void *arg)
{
	struct ibv_qp_init_attr init = rc_attr();
	struct rdma_cm_id *id = fresh_id();

	(void)arg;
	errno = 0;
	return rdma_create_qp(id, NULL, &init) ? errno : 0;
}

static int null_bind(void *arg)
{
	struct rdma_cm_id *id = fresh_id();

	(void)arg;
	errno = 0;
	return rdma_bind_addr(id, NULL) ? errno : 0;
}

/* A call with a NULL id or event, or in a wrong state, in a child:
 * errno want from ours; upstream's library may crash instead (its man
 * pages promise nothing there), which is only reported. */
static void null_case(const char *what, int (*fn)(void *), int want)
{
	int got = vt_in_child(fn, NULL);

	if (got > 128 && vt_cm_upstream) {
		vt_skip("%s: upstream's librdmacm crashes (signal %d)", what, got - 128);
		return;
	}
	if (got > 128)
		vt_fail("%s crashes (signal %d)", what, got - 128);
	else
		vt_expect_errno(want, got, what, __LINE__);
}

static void bad_arguments(uint16_t port)
{
	struct sockaddr_in sin = vt_cm_addr(rxe, port), alien = vt_cm_addr(rxe, port);
	char big[257] = "x";
	struct rdma_conn_param oversized = { .private_data = big, .private_data_len = 57 };
	struct ibv_qp_init_attr init = rc_attr();
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL, *udp = NULL;
	struct rdma_cm_event *ev;
	struct pair p;
	int flags;

	printf("-- bad arguments\n");
	null_case("rdma_create_id(ch, NULL)", null_create_id, EINVAL);
	null_case("rdma_destroy_id(NULL)", null_destroy_id, EINVAL);
	null_case("rdma_get_cm_event(NULL, &event)", null_get_event, EINVAL);
	null_case("rdma_ack_cm_event(NULL)", null_ack, EINVAL);
	null_case("rdma_connect(NULL, NULL)", null_connect, EINVAL);
	null_case("rdma_create_qp(NULL, ...)", null_qp, EINVAL);

	if (!MUST(ch = rdma_create_event_channel()))
		return;
	EXPECT_ERRNO(EINVAL, rdma_get_cm_event(ch, NULL));
	flags = fcntl(ch->fd, F_GETFL);
	if (MUST(flags >= 0 && !fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK)))
		EXPECT_ERRNO(EAGAIN, rdma_get_cm_event(ch, &ev));
	EXPECT_ERRNO(EINVAL, rdma_create_id(ch, &id, NULL, 0x999));
	if (!MUST(!rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)))
		goto out;
	/* calls in the wrong state, each in a child: some crash upstream's */
	null_case("rdma_resolve_route before an address", early_route, EINVAL);
	null_case("rdma_connect before a route", early_connect, EINVAL);
	null_case("rdma_accept without a request", early_accept, EINVAL);
	null_case("rdma_disconnect unconnected", early_disconnect, EINVAL);
	null_case("rdma_create_qp without a device", early_qp, EINVAL);
	null_case("rdma_bind_addr(id, NULL)", null_bind, EINVAL);
	alien.sin_addr.s_addr = inet_addr("10.11.12.13");
	EXPECT_ERRNO(EADDRNOTAVAIL, rdma_bind_addr(id, (struct sockaddr *)&alien));
	EXPECT_ERRNO(0, rdma_bind_addr(id, (struct sockaddr *)&sin));
	EXPECT_ERRNO(EINVAL, rdma_bind_addr(id, (struct sockaddr *)&sin));
	rdma_destroy_id(id);
	id = NULL;

	/* private data beyond what the port space carries: RC over IB/RoCE
	 * 56 bytes in a request (after the CM's header), 196 in a reply */
	if (pair_open(&p, rxe, port + 1)) {
		if (MUST(!rdma_create_qp(p.client, NULL, &init))) {
			EXPECT_ERRNO(EINVAL, rdma_connect(p.client, &oversized));
			oversized.private_data_len = 56;
			EXPECT_ERRNO(0, rdma_connect(p.client, &oversized));
			if ((ev = pair_request(&p))) {
				CHECK(ev->param.conn.private_data_len == 56,
				      "the server gets 56 bytes (%u)", ev->param.conn.private_data_len);
				rdma_ack_cm_event(ev);
				oversized.private_data_len = 197;
				EXPECT_ERRNO(EINVAL, rdma_accept(p.server, &oversized));
			}
			rdma_destroy_qp(p.client);
		}
		pair_close(&p);
	}
	/* UD: 180 bytes in a SIDR request */
	if (MUST(!rdma_create_id(ch, &udp, NULL, RDMA_PS_UDP)) &&
	    MUST(!rdma_resolve_addr(udp, NULL, (struct sockaddr *)&sin, 2000)) &&
	    resolved(ch, RDMA_CM_EVENT_ADDR_RESOLVED) && MUST(!rdma_resolve_route(udp, 2000)) &&
	    resolved(ch, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		oversized.private_data_len = 181;
		EXPECT_ERRNO(EINVAL, rdma_connect(udp, &oversized));
	}
	if (udp)
		rdma_destroy_id(udp);
	CHECK(!strcmp(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED"),
	      "rdma_event_str names an event");
	printf("   rdma_event_str(99): %s\n", rdma_event_str(99));
	CHECK(!strcmp(rdma_event_str(99), "UNKNOWN EVENT"), "rdma_event_str(99)");
out:
	rdma_destroy_event_channel(ch);
}

static void devices(void)
{
	struct ibv_context **list;
	int n = -1, rxe_found = 0, siw_found = 0;

	printf("-- rdma_get_devices\n");
	if (!MUST(list = rdma_get_devices(&n)))
		return;
	for (int i = 0; list[i]; i++) {
		rxe_found |= !strcmp(ibv_get_device_name(list[i]->device), getenv("RDMAVM_RXE_DEV"));
		siw_found |= !strcmp(ibv_get_device_name(list[i]->device), getenv("RDMAVM_SIW_DEV"));
	}
	CHECK(n == 2 && list[2] == NULL && rxe_found && siw_found,
	      "rxe0 and siw0, opened, NULL-terminated (%d)", n);
	rdma_free_devices(list);
}

int main(void)
{
	vt_cm_init("rdmacm-api");
	devices();
	connect_accept(rxe, 7470);
	connect_accept(siw, 7471);
	reject(rxe, 7472, false, 28);
	reject(rxe, 7473, true, 35);
	reject(siw, 7474, false, -ECONNRESET);
	synchronous(7475);
	migrate(7476);
	unreachable(rxe, getenv("RDMAVM_RXE_NETDEV"), 7477, 8);	/* invalid service ID */
	unreachable(siw, getenv("RDMAVM_SIW_NETDEV"), 7478, 0);
	ece(7479);
	options(7480);
	multicast();
	many_ids();
	bad_arguments(7481);
	return vt_finish();
}
