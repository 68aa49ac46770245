// SPDX-License-Identifier: MIT
/* udaddy: CONNECTIONS UD "connections" (rdma_cm's SIDR exchange in the UDP
 * port space): the client sends COUNT datagrams of SIZE bytes, its QPN as
 * immediate data, to the QP and qkey its ESTABLISHED event names; the
 * server answers each connection with as many, addressed from the first
 * datagram it received there (ibv_create_ah_from_wc, that QPN).  Receives
 * have room for the 40-byte GRH the receiving QP gets first.  Upstream's
 * binary is a peer in either role. */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cmtool.h"

struct options {
	struct cm_options common;
	enum rdma_port_space port_space;
};

struct node {
	struct cmtool_ud_node ud;
	uint32_t remote_qpn, remote_qkey;
	int recvs_done, sends_done;
};

struct test {
	const struct options *opt;
	struct rdma_event_channel *channel;
	struct node *nodes;
	int nodes_made, ready;
};

static void usage(const char *program)
{
	printf("usage: %s\n"
	       "\t[-s server_address]\n"
	       "\t[-b bind_address]\n"
	       "\t[-f address_format]\n"
	       "\t    name, ip, ipv6, or gid\n"
	       "\t[-P port_space]\n"
	       "\t    udp or ipoib\n"
	       "\t[-c connections]\n"
	       "\t[-C message_count]\n"
	       "\t[-S message_size]\n"
	       "\t[-t type_of_service]\n"
	       "\t[-p port_space - 0x111 for UDP (default), 0x2 for IPOIB]\n", program);
}

static int setup_node(struct test *t, struct node *n)
{
	return cmtool_ud_node_setup(&n->ud, "udaddy", t->opt->common.count,
				    t->opt->common.size, true);
}

static int post_sends(struct test *t, struct node *n)
{
	int i;

	for (i = 0; i < t->opt->common.count; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)n->ud.buf + n->ud.slot * t->opt->common.count,
				       .length = t->opt->common.size, .lkey = n->ud.mr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(n->ud.id->qp->qp_num),
			.wr.ud = { .ah = n->ud.ah, .remote_qpn = n->remote_qpn, .remote_qkey = n->remote_qkey },
		}, *bad;

		if (ibv_post_send(n->ud.id->qp, &wr, &bad)) {
			fprintf(stderr, "udaddy: failed to post sends: %d\n", errno);
			return -1;
		}
	}
	return 0;
}

/* Until node N has COUNT completions of receives (RECV) or of sends; the
 * server learns its reply address from the first datagram received: the
 * sender's QPN is its immediate data (upstream's client sends it there),
 * or the source QPN when there is none. */
static int complete(struct test *t, struct node *n, int recv)
{
	int *done = recv ? &n->recvs_done : &n->sends_done;
	struct ibv_wc wc;

	while (*done < t->opt->common.count) {
		if (cmtool_next_wc(n->ud.cq, n->ud.comp, &wc))
			return -1;
		if (wc.status) {
			fprintf(stderr, "udaddy: completion error %s\n", ibv_wc_status_str(wc.status));
			return -1;
		}
		if (wc.opcode != IBV_WC_RECV) {
			n->sends_done++;
			continue;
		}
		if (!n->ud.ah) {
			n->ud.ah = ibv_create_ah_from_wc(n->ud.pd, &wc, (struct ibv_grh *)n->ud.buf, n->ud.id->port_num);
			if (!n->ud.ah) {
				perror("udaddy: failure creating address handle");
				return -1;
			}
			n->remote_qpn = wc.wc_flags & IBV_WC_WITH_IMM ? be32toh(wc.imm_data) : wc.src_qp;
			n->remote_qkey = RDMA_UDP_QKEY;
		}
		n->recvs_done++;
	}
	return 0;
}

static int handle_event(struct test *t, struct rdma_cm_event *event)
{
	struct rdma_conn_param param = { 0 };
	struct node *n;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (t->nodes_made == t->opt->common.connections) {
			rdma_reject(event->id, NULL, 0);
			return 0;
		}
		n = &t->nodes[t->nodes_made++];
		n->ud.id = event->id;
		if (setup_node(t, n))
			return -1;
		param.qp_num = n->ud.id->qp->qp_num;
		if (rdma_accept(n->ud.id, &param)) {
			perror("udaddy: failure accepting");
			return -1;
		}
		t->ready++;
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		n = event->id->context;
		n->remote_qpn = event->param.ud.qp_num;
		n->remote_qkey = event->param.ud.qkey;
		n->ud.ah = ibv_create_ah(n->ud.pd, &event->param.ud.ah_attr);
		if (!n->ud.ah) {
			perror("udaddy: failure creating address handle");
			return -1;
		}
		t->ready++;
		return 0;
	default:
		fprintf(stderr, "udaddy: event: %s, error: %d\n", rdma_event_str(event->event),
			event->status);
		return -1;
	}
}

static int pump_events(struct test *t, int until)
{
	struct rdma_cm_event *event;
	int ret;

	while (t->ready < until) {
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

static int run_server(struct test *t, const char *port)
{
	const struct options *opt = t->opt;
	struct sockaddr_storage addr;
	struct rdma_cm_id *listen_id;
	int ret = -1, i;

	printf("udaddy: starting server\n");
	if (cmtool_getaddr(opt->common.bind_addr, port, 1, &addr))
		return -1;
	if (rdma_create_id(t->channel, &listen_id, t, opt->port_space)) {
		perror("udaddy: listen request failed");
		return -1;
	}
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&addr) || rdma_listen(listen_id, 0)) {
		perror("udaddy: bind address / listen failed");
		goto out;
	}
	if (pump_events(t, opt->common.connections))
		goto out;
	if (opt->common.count) {
		printf("receiving data transfers\n");
		for (i = 0; i < t->nodes_made; i++)
			if (complete(t, &t->nodes[i], 1))
				goto out;
		printf("sending replies\n");
		for (i = 0; i < t->nodes_made; i++)
			if (post_sends(t, &t->nodes[i]) || complete(t, &t->nodes[i], 0))
				goto out;
		printf("data transfers complete\n");
	}
	ret = 0;
out:
	rdma_destroy_id(listen_id);
	return ret;
}

static int run_client(struct test *t, const char *port)
{
	const struct options *opt = t->opt;
	struct sockaddr_storage dst, src;
	struct rdma_conn_param param = { 0 };
	uint8_t tos = (uint8_t)opt->common.tos;
	struct node *n;
	int i;

	printf("udaddy: starting client\n");
	if (cmtool_getaddr(opt->common.server, port, 0, &dst) ||
	    (opt->common.bind_addr && cmtool_getaddr(opt->common.bind_addr, NULL, 0, &src)))
		return -1;
	printf("udaddy: connecting\n");
	for (i = 0; i < opt->common.connections; i++) {
		n = &t->nodes[i];
		if (rdma_create_id(t->channel, &n->ud.id, n, opt->port_space)) {
			perror("udaddy: failure creating id");
			return -1;
		}
		t->nodes_made++;
		if (opt->common.tos >= 0 &&
		    rdma_set_option(n->ud.id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos))) {
			perror("udaddy: set TOS option failed");
			return -1;
		}
		if (cmtool_resolve(n->ud.id, opt->common.bind_addr ? (struct sockaddr *)&src : NULL,
				   (struct sockaddr *)&dst, 2000) ||
		    setup_node(t, n))
			return -1;
		if (rdma_connect(n->ud.id, &param)) {
			perror("udaddy: failure connecting");
			return -1;
		}
		/* the next id's resolution events come on the same channel:
		 * this one's ESTABLISHED must not arrive among them */
		if (pump_events(t, i + 1))
			return -1;
	}
	if (opt->common.count) {
		printf("initiating data transfers\n");
		for (i = 0; i < t->nodes_made; i++)
			if (post_sends(t, &t->nodes[i]) || complete(t, &t->nodes[i], 0))
				return -1;
		printf("receiving data transfers\n");
		for (i = 0; i < t->nodes_made; i++)
			if (complete(t, &t->nodes[i], 1))
				return -1;
		printf("data transfers complete\n");
	}
	return 0;
}

static void teardown(struct test *t)
{
	int i;

	for (i = 0; i < t->nodes_made; i++)
		cmtool_ud_node_destroy(&t->nodes[i].ud);
	free(t->nodes);
}

int main(int argc, char **argv)
{
	struct options opt = { .common = { .connections = 1, .count = 10, .size = 100, .tos = -1 },
			       .port_space = RDMA_PS_UDP };
	struct test t = { .opt = &opt };
	const char *port = "7174";
	int ch, ret, bad = 0, space;

	while ((ch = getopt(argc, argv, "s:b:f:P:c:C:S:t:p:")) != -1) {
		switch (ch) {
		case 'P':
			if (!strcasecmp(optarg, "ipoib"))
				opt.port_space = RDMA_PS_IPOIB;
			else if (strcasecmp(optarg, "udp"))
				fprintf(stderr, "Warning: unknown port space format\n");
			break;
		case 'p':
			bad |= cmtool_number(optarg, 0, &space);
			opt.port_space = space;
			break;
		default: bad |= cmtool_common_option(ch, optarg, &opt.common); break;
		}
	}
	if (bad || optind != argc) {
		usage(argv[0]);
		return 1;
	}
	t.nodes = calloc(opt.common.connections, sizeof(*t.nodes));
	t.channel = rdma_create_event_channel();
	if (!t.nodes || !t.channel) {
		perror("udaddy: failed to create event channel");
		return 1;
	}
	ret = opt.common.server ? run_client(&t, port) : run_server(&t, port);
	printf("test complete\n");
	teardown(&t);
	rdma_destroy_event_channel(t.channel);
	printf("return status %d\n", ret);
	return ret ? 1 : 0;
}
