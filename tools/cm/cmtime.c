// SPDX-License-Identifier: MIT
/* cmtime: times each step of setting up and tearing down CONNECTIONS RC
 * connections over rdma_cm.  The asynchronous steps (resolving, connecting,
 * disconnecting) are started on every connection at once, as a loaded
 * server sees them; the table gives each step's wall time over all
 * connections, its slowest and fastest connection and the mean.  The
 * server (no -s) accepts until it is killed. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cmtool.h"

enum step { CREATE_ID, RESOLVE_ADDR, RESOLVE_ROUTE, CREATE_QP, CONNECT, DISCONNECT, DESTROY, STEPS };

static const char *const step_names[STEPS] = {
	"create id", "resolve addr", "resolve route", "create qp", "connect", "disconnect", "destroy",
};

struct conn {
	struct rdma_cm_id *id;
	double start[STEPS], end[STEPS];   /* µs */
	int retries_left;
};

struct options {
	const char *server, *bind_addr, *port;
	int connections, retries, timeout_ms;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void usage(const char *program)
{
	printf("usage: %s\n"
	       "\t[-s server_address]\n"
	       "\t[-b bind_address]\n"
	       "\t[-c connections]\n"
	       "\t[-p port_number]\n"
	       "\t[-r retries]\n"
	       "\t[-t timeout_ms]\n", program);
}

static struct ibv_qp_init_attr qp_attr(void)
{
	return (struct ibv_qp_init_attr){
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
}

static void print_table(const struct conn *conns, int n)
{
	int s, i;

	printf("step              total ms     max ms     min us  us / conn\n");
	for (s = 0; s < STEPS; s++) {
		double first = conns[0].start[s], last = conns[0].end[s], max = 0, min = 0, d;

		for (i = 0; i < n; i++) {
			d = conns[i].end[s] - conns[i].start[s];
			if (conns[i].start[s] < first)
				first = conns[i].start[s];
			if (conns[i].end[s] > last)
				last = conns[i].end[s];
			if (d > max)
				max = d;
			if (i == 0 || d < min)
				min = d;
		}
		printf("%-13s: %11.2f%11.2f%11.2f%11.2f\n", step_names[s], (last - first) / 1000,
		       max / 1000, min, (last - first) / n);
	}
}

/* Collects COUNT events of type WANT, each ending step S of its connection;
 * an address or route error is retried while the connection has retries. */
static int collect(struct rdma_event_channel *channel, enum rdma_cm_event_type want, enum step s,
		   int count, const struct options *opt)
{
	struct rdma_cm_event *event;
	struct conn *c;
	int retry;

	while (count > 0) {
		if (rdma_get_cm_event(channel, &event)) {
			perror("rdma_get_cm_event");
			return -1;
		}
		c = event->id->context;
		retry = (event->event == RDMA_CM_EVENT_ADDR_ERROR && want == RDMA_CM_EVENT_ADDR_RESOLVED) ||
			(event->event == RDMA_CM_EVENT_ROUTE_ERROR && want == RDMA_CM_EVENT_ROUTE_RESOLVED);
		if (event->event == want) {
			c->end[s] = now_us();
			count--;
		} else if (retry && c->retries_left-- > 0) {
			rdma_ack_cm_event(event);
			if (s == RESOLVE_ADDR ? rdma_resolve_addr(c->id, NULL, rdma_get_peer_addr(c->id),
								  opt->timeout_ms)
					      : rdma_resolve_route(c->id, opt->timeout_ms)) {
				perror("cmtime: retrying");
				return -1;
			}
			continue;
		} else if (event->event != RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			fprintf(stderr, "cmtime: unexpected event %s (status %d) waiting for %s\n",
				rdma_event_str(event->event), event->status, rdma_event_str(want));
			rdma_ack_cm_event(event);
			return -1;
		}
		rdma_ack_cm_event(event);
	}
	return 0;
}

static int run_client(const struct options *opt, struct rdma_event_channel *channel)
{
	struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
	struct sockaddr_storage dst, src;
	struct ibv_qp_init_attr attr;
	struct conn *conns;
	int n = opt->connections, i, ret = -1;

	if (cmtool_getaddr(opt->server, opt->port, 0, &dst) ||
	    (opt->bind_addr && cmtool_getaddr(opt->bind_addr, NULL, 0, &src)))
		return -1;
	conns = calloc(n, sizeof(*conns));
	if (!conns) {
		perror("cmtime");
		return -1;
	}
	printf("creating id\n");
	for (i = 0; i < n; i++) {
		conns[i].retries_left = opt->retries;
		conns[i].start[CREATE_ID] = now_us();
		if (rdma_create_id(channel, &conns[i].id, &conns[i], RDMA_PS_TCP)) {
			perror("rdma_create_id");
			n = i;
			goto out;
		}
		conns[i].end[CREATE_ID] = now_us();
	}
	printf("resolving address\n");
	for (i = 0; i < n; i++) {
		conns[i].start[RESOLVE_ADDR] = now_us();
		if (rdma_resolve_addr(conns[i].id, opt->bind_addr ? (struct sockaddr *)&src : NULL,
				      (struct sockaddr *)&dst, opt->timeout_ms)) {
			perror("rdma_resolve_addr");
			goto out;
		}
	}
	if (collect(channel, RDMA_CM_EVENT_ADDR_RESOLVED, RESOLVE_ADDR, n, opt))
		goto out;
	printf("resolving route\n");
	for (i = 0; i < n; i++) {
		conns[i].retries_left = opt->retries;
		conns[i].start[RESOLVE_ROUTE] = now_us();
		if (rdma_resolve_route(conns[i].id, opt->timeout_ms)) {
			perror("rdma_resolve_route");
			goto out;
		}
	}
	if (collect(channel, RDMA_CM_EVENT_ROUTE_RESOLVED, RESOLVE_ROUTE, n, opt))
		goto out;
	printf("creating qp\n");
	for (i = 0; i < n; i++) {
		attr = qp_attr();
		conns[i].start[CREATE_QP] = now_us();
		if (rdma_create_qp(conns[i].id, NULL, &attr)) {
			perror("rdma_create_qp");
			goto out;
		}
		conns[i].end[CREATE_QP] = now_us();
	}
	printf("connecting\n");
	for (i = 0; i < n; i++) {
		conns[i].start[CONNECT] = now_us();
		if (rdma_connect(conns[i].id, &param)) {
			perror("rdma_connect");
			goto out;
		}
	}
	if (collect(channel, RDMA_CM_EVENT_ESTABLISHED, CONNECT, n, opt))
		goto out;
	printf("disconnecting\n");
	for (i = 0; i < n; i++) {
		conns[i].start[DISCONNECT] = now_us();
		if (rdma_disconnect(conns[i].id)) {
			perror("rdma_disconnect");
			goto out;
		}
	}
	if (collect(channel, RDMA_CM_EVENT_DISCONNECTED, DISCONNECT, n, opt))
		goto out;
	ret = 0;
out:
	if (!ret)
		printf("destroying id\n");
	for (i = 0; i < n; i++) {
		conns[i].start[DESTROY] = now_us();
		if (conns[i].id->qp)
			rdma_destroy_qp(conns[i].id);
		rdma_destroy_id(conns[i].id);
		conns[i].end[DESTROY] = now_us();
	}
	if (!ret)
		print_table(conns, n);
	free(conns);
	return ret;
}

/* Accepts, and answers disconnects, until killed. */
static int run_server(const struct options *opt, struct rdma_event_channel *channel)
{
	struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
	struct sockaddr_storage addr;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *event;
	struct rdma_cm_id *listen_id, *id;
	enum rdma_cm_event_type type;

	if (cmtool_getaddr(opt->bind_addr, opt->port, 1, &addr))
		return -1;
	if (rdma_create_id(channel, &listen_id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return -1;
	}
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&addr) || rdma_listen(listen_id, 1024)) {
		perror("cmtime: bind/listen");
		rdma_destroy_id(listen_id);
		return -1;
	}
	for (;;) {
		if (rdma_get_cm_event(channel, &event)) {
			perror("rdma_get_cm_event");
			return -1;
		}
		id = event->id;
		type = event->event;
		rdma_ack_cm_event(event);
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			attr = qp_attr();
			if (rdma_create_qp(id, NULL, &attr) || rdma_accept(id, &param)) {
				perror("cmtime: accept");
				rdma_reject(id, NULL, 0);
			}
		} else if (type == RDMA_CM_EVENT_DISCONNECTED) {
			rdma_disconnect(id);
			if (id->qp)
				rdma_destroy_qp(id);
			rdma_destroy_id(id);
		}
	}
}

static int number(const char *text, int min, int *out)
{
	if (cmtool_number(text, min, out) == 0)
		return 0;
	fprintf(stderr, "cmtime: invalid number %s\n", text);
	return -1;
}

int main(int argc, char **argv)
{
	struct options opt = { .port = "7471", .connections = 100, .retries = 2, .timeout_ms = 2000 };
	struct rdma_event_channel *channel;
	int ch, ret, bad = 0;

	while ((ch = getopt(argc, argv, "s:b:c:p:r:t:")) != -1) {
		switch (ch) {
		case 's': opt.server = optarg; break;
		case 'b': opt.bind_addr = optarg; break;
		case 'c': bad |= number(optarg, 1, &opt.connections); break;
		case 'p': opt.port = optarg; break;
		case 'r': bad |= number(optarg, 0, &opt.retries); break;
		case 't': bad |= number(optarg, 1, &opt.timeout_ms); break;
		default: bad = 1; break;
		}
	}
	if (bad || optind != argc) {
		usage(argv[0]);
		return 1;
	}
	channel = rdma_create_event_channel();
	if (!channel) {
		perror("rdma_create_event_channel");
		return 1;
	}
	ret = opt.server ? run_client(&opt, channel) : run_server(&opt, channel);
	rdma_destroy_event_channel(channel);
	return ret ? 1 : 0;
}
