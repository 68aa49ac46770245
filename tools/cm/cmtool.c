// SPDX-License-Identifier: MIT
#include "cmtool.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmtool_getaddr(const char *host, const char *port, int passive,
		   struct sockaddr_storage *out)
{
	struct addrinfo hints = { .ai_flags = passive ? AI_PASSIVE : 0 };
	struct addrinfo *res;
	int err;

	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		fprintf(stderr, "getaddrinfo %s: %s\n", host ? host : "(any)", gai_strerror(err));
		return -1;
	}
	if (res->ai_addrlen > sizeof(*out)) {
		freeaddrinfo(res);
		fprintf(stderr, "getaddrinfo %s: address too long\n", host);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

int cmtool_expect(struct rdma_event_channel *channel,
		  enum rdma_cm_event_type want, struct rdma_cm_event **event)
{
	struct rdma_cm_event *got;

	if (rdma_get_cm_event(channel, &got)) {
		perror("rdma_get_cm_event");
		return -1;
	}
	if (got->event != want) {
		fprintf(stderr, "unexpected event: %s (error %d), waiting for %s\n",
			rdma_event_str(got->event), got->status, rdma_event_str(want));
		rdma_ack_cm_event(got);
		return -1;
	}
	if (event)
		*event = got;
	else
		rdma_ack_cm_event(got);
	return 0;
}

int cmtool_resolve(struct rdma_cm_id *id, struct sockaddr *src,
		   struct sockaddr *dst, int timeout_ms)
{
	if (rdma_resolve_addr(id, src, dst, timeout_ms)) {
		perror("rdma_resolve_addr");
		return -1;
	}
	if (cmtool_expect(id->channel, RDMA_CM_EVENT_ADDR_RESOLVED, NULL))
		return -1;
	if (rdma_resolve_route(id, timeout_ms)) {
		perror("rdma_resolve_route");
		return -1;
	}
	return cmtool_expect(id->channel, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
}

int cmtool_next_wc(struct ibv_cq *cq, struct ibv_comp_channel *comp, struct ibv_wc *wc)
{
	struct ibv_cq *event_cq;
	void *context;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			break;
		if (ibv_req_notify_cq(cq, 0)) {
			perror("ibv_req_notify_cq");
			return -1;
		}
		/* a completion that came before the request raises no event */
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			break;
		if (ibv_get_cq_event(comp, &event_cq, &context)) {
			perror("ibv_get_cq_event");
			return -1;
		}
		ibv_ack_cq_events(event_cq, 1);
	}
	if (n < 0) {
		fprintf(stderr, "ibv_poll_cq failed\n");
		return -1;
	}
	return 0;
}

int cmtool_number(const char *text, int min, int *out)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 0);
	if (errno || end == text || *end || value < min || value > 1 << 24)
		return -1;
	*out = (int)value;
	return 0;
}

int cmtool_common_option(int opt, const char *arg, struct cm_options *options)
{
	switch (opt) {
	case 's': options->server = arg; return 0;
	case 'b': options->bind_addr = arg; return 0;
	case 'f':
		/* getaddrinfo tells names and both IP families apart by itself */
		if (strcmp(arg, "name") && strcmp(arg, "ip") && strcmp(arg, "ipv6")) {
			fprintf(stderr, "Warning: unknown address format (%s)\n", arg);
			return -1;
		}
		return 0;
	case 'c': return cmtool_number(arg, 1, &options->connections);
	case 'C': return cmtool_number(arg, 0, &options->count);
	case 'S': return cmtool_number(arg, 1, &options->size);
	case 't': return cmtool_number(arg, 0, &options->tos);
	default: return -1;
	}
}

int cmtool_ud_node_setup(struct cmtool_ud_node *n, const char *program, int count,
			 int size, bool post_recvs)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = count + 1, .max_recv_wr = count + 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	size_t bytes;
	int i;

	n->slot = sizeof(struct ibv_grh) + (size_t)size;
	bytes = n->slot * (count + 1);
	n->pd = ibv_alloc_pd(n->id->verbs);
	n->comp = n->pd ? ibv_create_comp_channel(n->id->verbs) : NULL;
	n->cq = n->comp ? ibv_create_cq(n->id->verbs, 2 * count + 2, NULL, n->comp, 0) : NULL;
	n->buf = calloc(1, bytes);
	n->mr = n->cq && n->buf ? ibv_reg_mr(n->pd, n->buf, bytes, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!n->mr) {
		fprintf(stderr, "%s: failed to set up the node: %s\n", program, strerror(errno));
		return -1;
	}
	attr.send_cq = attr.recv_cq = n->cq;
	if (rdma_create_qp(n->id, n->pd, &attr)) {
		fprintf(stderr, "%s: unable to create QP: %s\n", program, strerror(errno));
		return -1;
	}
	for (i = 0; post_recvs && i < count; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)n->buf + n->slot * i,
				       .length = (uint32_t)n->slot, .lkey = n->mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(n->id->qp, &wr, &bad)) {
			fprintf(stderr, "%s: failed to post receives: %s\n", program, strerror(errno));
			return -1;
		}
	}
	return 0;
}

void cmtool_ud_node_destroy(struct cmtool_ud_node *n)
{
	if (n->ah)
		ibv_destroy_ah(n->ah);
	if (n->id->qp)
		rdma_destroy_qp(n->id);
	if (n->mr)
		ibv_dereg_mr(n->mr);
	if (n->cq)
		ibv_destroy_cq(n->cq);
	if (n->comp)
		ibv_destroy_comp_channel(n->comp);
	if (n->pd)
		ibv_dealloc_pd(n->pd);
	free(n->buf);
	rdma_destroy_id(n->id);
}
