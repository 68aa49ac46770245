// SPDX-License-Identifier: MIT
/* mckey: joins CONNECTIONS ids to a multicast group through rdma_cm; the
 * sender (-s) then sends COUNT datagrams of SIZE bytes to the group (QPN
 * 0xffffff, the qkey the join reported), the receivers wait for them, the
 * 40-byte GRH in front of each.  Upstream's binary is a peer either way. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cmtool.h"

#define MULTICAST_QPN 0xffffff

struct options {
	const char *mcast, *bind_addr;
	int sender, send_only;
	enum rdma_port_space port_space;
	int connections, count, size;
};

struct node {
	struct cmtool_ud_node ud;
	uint32_t remote_qkey;
	int joined;
};

static void usage(const char *program)
{
	printf("usage: %s\n"
	       "\t-m multicast_address\n"
	       "\t[-M unmapped_multicast_address]\n"
	       "\t replaces -m and requires -b\n"
	       "\t[-s(ender)]\n"
	       "\t[-b bind_address]\n"
	       "\t[-c connections]\n"
	       "\t[-C message_count]\n"
	       "\t[-S message_size]\n"
	       "\t[-p port_space - 0x111 for UDP (default), 0x2 for IPOIB]\n"
	       "\t[-o join as a send-only full-member]\n"
	       "\t[-l join without multicast loopback]\n", program);
}

static int join(const struct options *opt, struct node *n, struct sockaddr *group)
{
	struct rdma_cm_join_mc_attr_ex attr = {
		.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
		.join_flags = opt->send_only ? RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER
					     : RDMA_MC_JOIN_FLAG_FULLMEMBER,
		.addr = group,
	};
	struct rdma_cm_event *event;
	struct ibv_ah_attr ah_attr;
	char dgid[INET6_ADDRSTRLEN];

	printf("mckey: joining\n");
	if (rdma_join_multicast_ex(n->ud.id, &attr, n)) {
		perror("mckey: failure joining");
		return -1;
	}
	if (cmtool_expect(n->ud.id->channel, RDMA_CM_EVENT_MULTICAST_JOIN, &event))
		return -1;
	ah_attr = event->param.ud.ah_attr;
	n->remote_qkey = event->param.ud.qkey;
	rdma_ack_cm_event(event);
	inet_ntop(AF_INET6, ah_attr.grh.dgid.raw, dgid, sizeof(dgid));
	printf("mckey: joined dgid: %s mlid 0x%x sl %d\n", dgid, ah_attr.dlid, ah_attr.sl);
	n->joined = 1;
	n->ud.ah = ibv_create_ah(n->ud.pd, &ah_attr);
	if (!n->ud.ah) {
		perror("mckey: failure creating address handle");
		return -1;
	}
	return 0;
}

static int post_sends(const struct options *opt, struct node *n)
{
	int i;

	for (i = 0; i < opt->count; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)n->ud.buf + n->ud.slot * opt->count,
				       .length = opt->size, .lkey = n->ud.mr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = n->ud.ah, .remote_qpn = MULTICAST_QPN, .remote_qkey = n->remote_qkey },
		}, *bad;

		if (ibv_post_send(n->ud.id->qp, &wr, &bad)) {
			fprintf(stderr, "mckey: failed to post sends: %d\n", errno);
			return -1;
		}
	}
	return 0;
}

static int complete(const struct options *opt, struct node *n)
{
	struct ibv_wc wc;
	int got = 0;

	while (got < opt->count) {
		if (cmtool_next_wc(n->ud.cq, n->ud.comp, &wc))
			return -1;
		if (wc.status) {
			fprintf(stderr, "mckey: completion error %s\n", ibv_wc_status_str(wc.status));
			return -1;
		}
		got++;
	}
	return 0;
}

static int run(const struct options *opt, struct rdma_event_channel *channel, struct node *nodes)
{
	struct sockaddr_storage group, src;
	int i;

	printf("mckey: starting %s\n", opt->sender ? "client" : "server");
	if (cmtool_getaddr(opt->mcast, NULL, 0, &group) ||
	    (opt->bind_addr && cmtool_getaddr(opt->bind_addr, NULL, 1, &src)))
		return -1;
	for (i = 0; i < opt->connections; i++) {
		if (rdma_create_id(channel, &nodes[i].ud.id, &nodes[i], opt->port_space)) {
			perror("mckey: failure creating id");
			return -1;
		}
		if (rdma_resolve_addr(nodes[i].ud.id, opt->bind_addr ? (struct sockaddr *)&src : NULL,
				      (struct sockaddr *)&group, 2000) ||
		    cmtool_expect(channel, RDMA_CM_EVENT_ADDR_RESOLVED, NULL)) {
			perror("mckey: failure resolving the group");
			return -1;
		}
		/* the sender receives nothing */
		if (cmtool_ud_node_setup(&nodes[i].ud, "mckey", opt->count, opt->size, !opt->sender) ||
		    join(opt, &nodes[i], (struct sockaddr *)&group))
			return -1;
	}
	if (!opt->count)
		return 0;
	if (opt->sender) {
		/* the receivers need a moment to join after us */
		sleep(3);
		printf("initiating data transfers\n");
		for (i = 0; i < opt->connections; i++)
			if (post_sends(opt, &nodes[i]) || complete(opt, &nodes[i]))
				return -1;
	} else {
		printf("receiving data transfers\n");
		for (i = 0; i < opt->connections; i++)
			if (complete(opt, &nodes[i]))
				return -1;
	}
	printf("data transfers complete\n");
	return 0;
}

static void teardown(const struct options *opt, struct node *nodes)
{
	struct sockaddr_storage group;
	struct node *n;
	int i;

	for (i = 0; i < opt->connections; i++) {
		n = &nodes[i];
		if (!n->ud.id)
			continue;
		if (n->joined && !cmtool_getaddr(opt->mcast, NULL, 0, &group))
			rdma_leave_multicast(n->ud.id, (struct sockaddr *)&group);
		cmtool_ud_node_destroy(&n->ud);
	}
}

int main(int argc, char **argv)
{
	struct options opt = { .port_space = RDMA_PS_UDP, .connections = 1, .count = 10, .size = 100 };
	struct rdma_event_channel *channel;
	struct node *nodes;
	int ch, ret, bad = 0, space;

	while ((ch = getopt(argc, argv, "m:M:sb:c:C:S:p:ol")) != -1) {
		switch (ch) {
		case 'm': opt.mcast = optarg; break;
		case 'M':
		case 'l':
			/* an unmapped MGID needs AF_IB addresses, and rdma_cm has
			 * no loopback switch we could reach: refused, not faked */
			fprintf(stderr, "mckey: -%c is not supported by this mckey\n", ch);
			return 1;
		case 's': opt.sender = 1; break;
		case 'b': opt.bind_addr = optarg; break;
		case 'c': bad |= cmtool_number(optarg, 1, &opt.connections); break;
		case 'C': bad |= cmtool_number(optarg, 0, &opt.count); break;
		case 'S': bad |= cmtool_number(optarg, 1, &opt.size); break;
		case 'p':
			bad |= cmtool_number(optarg, 0, &space);
			opt.port_space = space;
			break;
		case 'o': opt.send_only = 1; break;
		default: bad = 1; break;
		}
	}
	if (bad || optind != argc || !opt.mcast) {
		usage(argv[0]);
		return 1;
	}
	nodes = calloc(opt.connections, sizeof(*nodes));
	channel = rdma_create_event_channel();
	if (!nodes || !channel) {
		perror("mckey: failed to create event channel");
		return 1;
	}
	ret = run(&opt, channel, nodes);
	printf("test complete\n");
	teardown(&opt, nodes);
	free(nodes);
	rdma_destroy_event_channel(channel);
	printf("return status %d\n", ret);
	return ret ? 1 : 0;
}
