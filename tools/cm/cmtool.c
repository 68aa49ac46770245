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
