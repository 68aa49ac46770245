// SPDX-License-Identifier: MIT
/* ucmatose: CONNECTIONS RC connections over rdma_cm; the server sends
 * COUNT messages of SIZE bytes on each, the client receives them and
 * sends as many back, then the server disconnects.  No private data, the
 * message content unused: upstream's binary is a peer in either role. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cmtool.h"

enum { WR_SEND, WR_RECV };

struct options {
	struct cm_options common;
	const char *port;
	enum rdma_port_space port_space;
	int migrate;
	int ack_timeout;        /* -1: not set */
};

struct test {
	const struct options *opt;
	struct rdma_event_channel *channel;
	struct rdma_cm_id **ids;
	int ids_made, established, disconnected;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_comp_channel *comp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;              /* one SIZE slot per receive, sends share the first */
};

static void usage(const char *program)
{
	printf("usage: %s\n"
	       "\t[-s server_address]\n"
	       "\t[-b bind_address]\n"
	       "\t[-f address_format]\n"
	       "\t    name, ip, ipv6, or gid\n"
	       "\t[-P port_space]\n"
	       "\t    tcp or ib\n"
	       "\t[-c connections]\n"
	       "\t[-C message_count]\n"
	       "\t[-S message_size]\n"
	       "\t[-t type_of_service]\n"
	       "\t[-p port_number]\n"
	       "\t[-m(igrate)]\n"
	       "\t[-a ack_timeout]\n", program);
}

/* The PD, CQ and buffers, once the first id knows its device: every
 * connection goes to the same address, so one set serves them all. */
static int setup_device(struct test *t, struct ibv_context *verbs)
{
	const struct options *opt = t->opt;
	size_t bytes = (size_t)opt->common.size * opt->common.count * opt->common.connections;

	if (t->verbs)
		return 0;
	t->verbs = verbs;
	t->pd = ibv_alloc_pd(verbs);
	t->comp = t->pd ? ibv_create_comp_channel(verbs) : NULL;
	t->cq = t->comp ? ibv_create_cq(verbs, 2 * opt->common.count * opt->common.connections + 2,
					NULL, t->comp, 0) : NULL;
	t->buf = calloc(1, bytes ? bytes : 1);
	t->mr = t->cq && t->buf ? ibv_reg_mr(t->pd, t->buf, bytes ? bytes : 1, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!t->mr) {
		perror("cmatose: failed to set up the device resources");
		return -1;
	}
	return 0;
}

static int setup_connection(struct test *t, struct rdma_cm_id *id, int index)
{
	const struct options *opt = t->opt;
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = opt->common.count, .max_recv_wr = opt->common.count,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	int i;

	if (setup_device(t, id->verbs))
		return -1;
	attr.send_cq = attr.recv_cq = t->cq;
	if (attr.cap.max_send_wr < 1)
		attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
	if (rdma_create_qp(id, t->pd, &attr)) {
		perror("cmatose: unable to create QP");
		return -1;
	}
	for (i = 0; i < opt->common.count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)t->buf + (size_t)opt->common.size * (index * opt->common.count + i),
			.length = opt->common.size, .lkey = t->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = WR_RECV, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(id->qp, &wr, &bad)) {
			perror("cmatose: failed to post receives");
			return -1;
		}
	}
	return 0;
}

static int set_options(const struct options *opt, struct rdma_cm_id *id)
{
	uint8_t tos = (uint8_t)opt->common.tos, timeout = (uint8_t)opt->ack_timeout;

	if (opt->common.tos >= 0 &&
	    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos))) {
		perror("cmatose: set TOS option failed");
		return -1;
	}
	if (opt->ack_timeout >= 0 &&
	    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof(timeout))) {
		perror("cmatose: set ack timeout option failed");
		return -1;
	}
	return 0;
}

static struct rdma_conn_param conn_param(void)
{
	return (struct rdma_conn_param){ .responder_resources = 1, .initiator_depth = 1,
					 .retry_count = 7, .rnr_retry_count = 7 };
}

/* Handles one event of the connection phase or of the teardown. */
static int handle_event(struct test *t, struct rdma_cm_event *event)
{
	struct rdma_conn_param param = conn_param();
	struct rdma_cm_id *id = event->id;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (t->ids_made == t->opt->common.connections) {
			rdma_reject(id, NULL, 0);
			return 0;
		}
		t->ids[t->ids_made] = id;
		if (set_options(t->opt, id) || setup_connection(t, id, t->ids_made++))
			return -1;
		if (rdma_accept(id, &param)) {
			perror("cmatose: failure accepting");
			return -1;
		}
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		t->established++;
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		rdma_disconnect(id);
		t->disconnected++;
		return 0;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		fprintf(stderr, "cmatose: event: %s, error: %d\n", rdma_event_str(event->event),
			event->status);
		return -1;
	}
}

static int pump_events(struct test *t, const int *counter, int until)
{
	struct rdma_cm_event *event;
	int ret;

	while (*counter < until) {
		if (rdma_get_cm_event(t->channel, &event)) {
			perror("rdma_get_cm_event");
			return -1;
		}
		ret = handle_event(t, event);
		rdma_ack_cm_event(event);
		if (ret)
			return ret;
	}
	return 0;
}

static int post_sends(struct test *t)
{
	int i, c;

	for (c = 0; c < t->opt->common.connections; c++) {
		for (i = 0; i < t->opt->common.count; i++) {
			struct ibv_sge sge = { .addr = (uintptr_t)t->buf, .length = t->opt->common.size,
					       .lkey = t->mr->lkey };
			struct ibv_send_wr wr = { .wr_id = WR_SEND, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = IBV_SEND_SIGNALED }, *bad;

			if (ibv_post_send(t->ids[c]->qp, &wr, &bad)) {
				fprintf(stderr, "cmatose: failed to post sends: %d\n", errno);
				return -1;
			}
		}
	}
	return 0;
}

/* Waits for every connection's COUNT completions of KIND. */
static int complete(struct test *t, int kind)
{
	int want = t->opt->common.count * t->opt->common.connections, got;
	struct ibv_wc wc;

	for (got = 0; got < want; got++) {
		if (cmtool_next_wc(t->cq, t->comp, &wc))
			return -1;
		if (wc.status) {
			fprintf(stderr, "cmatose: completion error %s\n", ibv_wc_status_str(wc.status));
			return -1;
		}
		if ((int)wc.wr_id != kind) {
			fprintf(stderr, "cmatose: unexpected completion\n");
			return -1;
		}
	}
	return 0;
}

static int migrate(struct test *t)
{
	struct rdma_event_channel *channel = rdma_create_event_channel();
	int i;

	if (!channel) {
		perror("cmatose: failed to create event channel");
		return -1;
	}
	printf("migrating to new event channel\n");
	for (i = 0; i < t->ids_made; i++) {
		if (rdma_migrate_id(t->ids[i], channel)) {
			perror("cmatose: failure migrating to channel");
			return -1;
		}
	}
	rdma_destroy_event_channel(t->channel);
	t->channel = channel;
	return 0;
}

static int run_server(struct test *t)
{
	const struct options *opt = t->opt;
	struct sockaddr_storage addr;
	struct rdma_cm_id *listen_id;
	int ret = -1, i;

	printf("cmatose: starting server\n");
	if (cmtool_getaddr(opt->common.bind_addr, opt->port, 1, &addr))
		return -1;
	if (rdma_create_id(t->channel, &listen_id, t, opt->port_space)) {
		perror("cmatose: listen request failed");
		return -1;
	}
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&addr) || rdma_listen(listen_id, 0)) {
		perror("cmatose: bind address / listen failed");
		goto out;
	}
	if (pump_events(t, &t->established, opt->common.connections))
		goto out;
	if (opt->common.count) {
		printf("initiating data transfers\n");
		if (post_sends(t))
			goto out;
		printf("completing sends\n");
		if (complete(t, WR_SEND))
			goto out;
		printf("receiving data transfers\n");
		if (complete(t, WR_RECV))
			goto out;
		printf("data transfers complete\n");
	}
	if (opt->migrate && migrate(t))
		goto out;
	printf("cmatose: disconnecting\n");
	for (i = 0; i < t->ids_made; i++)
		rdma_disconnect(t->ids[i]);
	if (pump_events(t, &t->disconnected, opt->common.connections))
		goto out;
	printf("disconnected\n");
	ret = 0;
out:
	rdma_destroy_id(listen_id);
	return ret;
}

static int run_client(struct test *t)
{
	const struct options *opt = t->opt;
	struct sockaddr_storage dst, src;
	struct rdma_conn_param param = conn_param();
	int i;

	printf("cmatose: starting client\n");
	if (cmtool_getaddr(opt->common.server, opt->port, 0, &dst) ||
	    (opt->common.bind_addr && cmtool_getaddr(opt->common.bind_addr, NULL, 0, &src)))
		return -1;
	printf("cmatose: connecting\n");
	for (i = 0; i < opt->common.connections; i++) {
		if (rdma_create_id(t->channel, &t->ids[i], t, opt->port_space)) {
			perror("cmatose: failure creating id");
			return -1;
		}
		t->ids_made++;
		if (set_options(opt, t->ids[i]) ||
		    cmtool_resolve(t->ids[i], opt->common.bind_addr ? (struct sockaddr *)&src : NULL,
				   (struct sockaddr *)&dst, 2000) ||
		    setup_connection(t, t->ids[i], i))
			return -1;
		if (rdma_connect(t->ids[i], &param)) {
			perror("cmatose: failure connecting");
			return -1;
		}
		if (pump_events(t, &t->established, i + 1))
			return -1;
	}
	if (opt->common.count) {
		printf("receiving data transfers\n");
		if (complete(t, WR_RECV))
			return -1;
		printf("sending replies\n");
		if (post_sends(t) || complete(t, WR_SEND))
			return -1;
		printf("data transfers complete\n");
	}
	if (opt->migrate && migrate(t))
		return -1;
	return pump_events(t, &t->disconnected, opt->common.connections);
}

static void teardown(struct test *t)
{
	int i;

	for (i = 0; i < t->ids_made; i++) {
		if (t->ids[i]->qp)
			rdma_destroy_qp(t->ids[i]);
		rdma_destroy_id(t->ids[i]);
	}
	if (t->mr)
		ibv_dereg_mr(t->mr);
	if (t->cq)
		ibv_destroy_cq(t->cq);
	if (t->comp)
		ibv_destroy_comp_channel(t->comp);
	if (t->pd)
		ibv_dealloc_pd(t->pd);
	free(t->buf);
	free(t->ids);
}

int main(int argc, char **argv)
{
	struct options opt = { .common = { .connections = 1, .count = 10, .size = 100, .tos = -1 },
			       .port = "7471", .port_space = RDMA_PS_TCP, .ack_timeout = -1 };
	struct test t = { .opt = &opt };
	int ch, ret, bad = 0;

	while ((ch = getopt(argc, argv, "s:b:f:P:c:C:S:t:p:a:m")) != -1) {
		switch (ch) {
		case 'P':
			if (!strcasecmp(optarg, "ib"))
				opt.port_space = RDMA_PS_IB;
			else if (strcasecmp(optarg, "tcp"))
				fprintf(stderr, "Warning: unknown port space format\n");
			break;
		case 'p': opt.port = optarg; break;
		case 'a': bad |= cmtool_number(optarg, 0, &opt.ack_timeout); break;
		case 'm': opt.migrate = 1; break;
		default: bad |= cmtool_common_option(ch, optarg, &opt.common); break;
		}
	}
	if (bad || optind != argc) {
		usage(argv[0]);
		return 1;
	}
	t.ids = calloc(opt.common.connections, sizeof(*t.ids));
	t.channel = rdma_create_event_channel();
	if (!t.ids || !t.channel) {
		perror("cmatose: failed to create event channel");
		return 1;
	}
	ret = opt.common.server ? run_client(&t) : run_server(&t);
	printf("test complete\n");
	teardown(&t);
	rdma_destroy_event_channel(t.channel);
	printf("return status %d\n", ret);
	return ret ? 1 : 0;
}
