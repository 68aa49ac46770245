// SPDX-License-Identifier: MIT
/* rping: an RC connection over rdma_cm, then COUNT rounds of
 *   client: SEND {addr, rkey, length} of its source buffer
 *   server: RDMA READ of it into its own buffer, SEND (go ahead)
 *   client: SEND {addr, rkey, length} of its sink buffer
 *   server: RDMA WRITE of what it read into it, SEND (go ahead)
 * after which the client's sink holds what its source did (-V checks).
 * The descriptor is 16 bytes, big endian: u64 addr, u32 rkey, u32 length;
 * the go-ahead messages are 16 bytes too (the peer checks the length),
 * their content unused.  Upstream's binary is a peer in either role. */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cmtool.h"

#define DEFAULT_PORT "7174"
#define DEFAULT_SIZE 64
#define MAX_SIZE (64 * 1024)
#define TIMEOUT_MS 2000

struct descriptor {
	uint64_t addr;
	uint32_t rkey;
	uint32_t length;
};

enum wr_kind { WR_RECV = 1, WR_SEND = 2, WR_READ = 4, WR_WRITE = 8 };

struct options {
	int server, client, verbose, validate, debug, persistent, own_qp;
	int size, count;
	const char *addr, *bind_addr, *port;
};

struct conn {
	const struct options *opt;
	struct rdma_cm_id *id;
	struct rdma_event_channel *channel;
	struct ibv_pd *pd;
	struct ibv_comp_channel *comp;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct descriptor recv_msg, send_msg;
	struct ibv_mr *recv_mr, *send_mr, *rdma_mr, *start_mr;
	char *rdma_buf, *start_buf;
	unsigned done;          /* enum wr_kind bits completed, not yet consumed */
	int disconnected;
	int flushed;            /* the QP went to error: the peer has gone */
};

static void debug(const struct conn *c, const char *format, ...)
{
	va_list args;

	if (!c->opt->debug)
		return;
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
}

static void usage(void)
{
	printf("rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
	       "rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
	       "\t-c\t\tclient side\n"
	       "\t-I\t\tSource address to bind to for client.\n"
	       "\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n"
	       "\t-v\t\tdisplay ping data to stdout\n"
	       "\t-V\t\tvalidate ping data\n"
	       "\t-d\t\tdebug printfs\n"
	       "\t-S size \tping data size\n"
	       "\t-C count\tping count times\n"
	       "\t-a addr\t\taddress\n"
	       "\t-p port\t\tport\n"
	       "\t-P\t\tpersistent server mode allowing multiple connections\n"
	       "\t-q\t\tuse self-created, self-modified QP\n");
}

static int post_recv(struct conn *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&c->recv_msg, .length = sizeof(c->recv_msg),
		.lkey = c->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WR_RECV, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(c->qp, &wr, &bad)) {
		perror("ibv_post_recv");
		return -1;
	}
	return 0;
}

static int post_send(struct conn *c, enum wr_kind kind, const struct descriptor *remote)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .wr_id = kind, .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (kind == WR_SEND) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)&c->send_msg,
			.length = sizeof(c->send_msg), .lkey = c->send_mr->lkey };
		wr.opcode = IBV_WR_SEND;
	} else {
		sge = (struct ibv_sge){ .addr = (uintptr_t)c->rdma_buf,
			.length = be32toh(remote->length), .lkey = c->rdma_mr->lkey };
		wr.opcode = kind == WR_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = be64toh(remote->addr);
		wr.wr.rdma.rkey = be32toh(remote->rkey);
	}
	if (ibv_post_send(c->qp, &wr, &bad)) {
		perror("ibv_post_send");
		return -1;
	}
	return 0;
}

/* A cm event while the data moves: only the end of the connection is
 * expected. */
static int handle_cm_event(struct conn *c)
{
	struct rdma_cm_event *event;
	enum rdma_cm_event_type type;

	if (rdma_get_cm_event(c->channel, &event)) {
		perror("rdma_get_cm_event");
		return -1;
	}
	type = event->event;
	rdma_ack_cm_event(event);
	debug(c, "cma_event type %s cma_id %p (%s)\n", rdma_event_str(type), (void *)c->id,
	      c->opt->server ? "child" : "parent");
	if (type == RDMA_CM_EVENT_DISCONNECTED) {
		printf("%s DISCONNECT EVENT...\n", c->opt->server ? "server" : "client");
		c->disconnected = 1;
		return -1;
	}
	fprintf(stderr, "unexpected event: %s\n", rdma_event_str(type));
	return -1;
}

static int handle_wc(struct conn *c, const struct ibv_wc *wc)
{
	if (wc->status) {
		c->flushed = wc->status == IBV_WC_WR_FLUSH_ERR;
		if (!c->flushed)
			fprintf(stderr, "cq completion failed status %d (%s)\n", wc->status,
				ibv_wc_status_str(wc->status));
		return -1;
	}
	if (wc->wr_id == WR_RECV) {
		if (wc->byte_len != sizeof(c->recv_msg)) {
			fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
			return -1;
		}
		debug(c, "recv completion\n");
	}
	c->done |= (unsigned)wc->wr_id;
	return 0;
}

/* Until every completion of WANT (enum wr_kind bits) has come; a received
 * descriptor is left in recv_msg, and the receive is not reposted. */
static int await(struct conn *c, unsigned want)
{
	struct pollfd fds[2] = {
		{ .fd = c->comp->fd, .events = POLLIN },
		{ .fd = c->channel->fd, .events = POLLIN },
	};
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct ibv_wc wc;
	int n;

	while ((c->done & want) != want) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0) {
			fprintf(stderr, "ibv_poll_cq failed\n");
			return -1;
		}
		if (n) {
			if (handle_wc(c, &wc))
				return -1;
			continue;
		}
		if (ibv_req_notify_cq(c->cq, 0)) {
			perror("ibv_req_notify_cq");
			return -1;
		}
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n > 0) {
			if (handle_wc(c, &wc))
				return -1;
			continue;
		}
		if (poll(fds, 2, -1) < 0 && errno != EINTR) {
			perror("poll");
			return -1;
		}
		if (fds[1].revents && handle_cm_event(c))
			return -1;
		if (fds[0].revents) {
			if (ibv_get_cq_event(c->comp, &ev_cq, &ev_ctx)) {
				perror("ibv_get_cq_event");
				return -1;
			}
			ibv_ack_cq_events(ev_cq, 1);
		}
	}
	c->done &= ~want;
	return 0;
}

static void describe(struct descriptor *msg, const void *buf, const struct ibv_mr *mr, int size)
{
	msg->addr = htobe64((uintptr_t)buf);
	msg->rkey = htobe32(mr->rkey);
	msg->length = htobe32((uint32_t)size);
}

static int setup_buffers(struct conn *c)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	int size = c->opt->size;

	c->rdma_buf = calloc(1, size);
	c->start_buf = c->opt->client ? calloc(1, size) : NULL;
	if (!c->rdma_buf || (c->opt->client && !c->start_buf)) {
		fprintf(stderr, "rping: out of memory\n");
		return -1;
	}
	c->recv_mr = ibv_reg_mr(c->pd, &c->recv_msg, sizeof(c->recv_msg), IBV_ACCESS_LOCAL_WRITE);
	c->send_mr = ibv_reg_mr(c->pd, &c->send_msg, sizeof(c->send_msg), 0);
	c->rdma_mr = ibv_reg_mr(c->pd, c->rdma_buf, size, access);
	if (!c->recv_mr || !c->send_mr || !c->rdma_mr) {
		perror("ibv_reg_mr");
		return -1;
	}
	if (c->start_buf) {
		c->start_mr = ibv_reg_mr(c->pd, c->start_buf, size, access);
		if (!c->start_mr) {
			perror("ibv_reg_mr");
			return -1;
		}
	}
	debug(c, "allocated & registered buffers...\n");
	return 0;
}

/* The QP the program makes itself (-q) is moved by rdma_init_qp_attr's
 * attributes, to STATE. */
static int move_qp(struct conn *c, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };
	int mask;

	if (rdma_init_qp_attr(c->id, &attr, &mask)) {
		perror("rdma_init_qp_attr");
		return -1;
	}
	/* before the connection, rdma_cm knows of no responder resources
	 * and grants no remote reads; the server's RDMA READ needs them */
	if (state == IBV_QPS_INIT)
		attr.qp_access_flags |= IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(c->qp, &attr, mask)) {
		perror("ibv_modify_qp");
		return -1;
	}
	return 0;
}

static int setup_qp(struct conn *c)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->comp = c->pd ? ibv_create_comp_channel(c->id->verbs) : NULL;
	c->cq = c->comp ? ibv_create_cq(c->id->verbs, 4, c, c->comp, 0) : NULL;
	if (!c->cq) {
		perror("ibv_alloc_pd/ibv_create_cq");
		return -1;
	}
	debug(c, "created pd %p\ncreated channel %p\ncreated cq %p\n", (void *)c->pd,
	      (void *)c->comp, (void *)c->cq);
	attr.send_cq = attr.recv_cq = c->cq;
	if (c->opt->own_qp) {
		c->qp = ibv_create_qp(c->pd, &attr);
		if (!c->qp || move_qp(c, IBV_QPS_INIT)) {
			perror("ibv_create_qp");
			return -1;
		}
	} else {
		if (rdma_create_qp(c->id, c->pd, &attr)) {
			perror("rdma_create_qp");
			return -1;
		}
		c->qp = c->id->qp;
	}
	debug(c, "created qp %p\n", (void *)c->qp);
	return setup_buffers(c) || post_recv(c);
}

static struct rdma_conn_param conn_param(const struct conn *c)
{
	return (struct rdma_conn_param){
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
		.qp_num = c->qp->qp_num,
	};
}

static void teardown(struct conn *c)
{
	if (c->qp && c->opt->own_qp)
		ibv_destroy_qp(c->qp);
	else if (c->qp)
		rdma_destroy_qp(c->id);
	if (c->start_mr)
		ibv_dereg_mr(c->start_mr);
	if (c->rdma_mr)
		ibv_dereg_mr(c->rdma_mr);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	free(c->start_buf);
	free(c->rdma_buf);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->comp)
		ibv_destroy_comp_channel(c->comp);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
}

/* The client has gone between two rounds: its DISCONNECTED event may come
 * after its QP's flush (iWARP's order). */
static int client_gone(struct conn *c)
{
	if (c->disconnected)
		return 0;
	if (!c->flushed || cmtool_expect(c->channel, RDMA_CM_EVENT_DISCONNECTED, NULL))
		return -1;
	c->disconnected = 1;
	printf("server DISCONNECT EVENT...\n");
	return 0;
}

/* The server's rounds, until the client disconnects: 0 then. */
static int serve_rounds(struct conn *c)
{
	struct descriptor remote;

	for (;;) {
		if (await(c, WR_RECV))
			return client_gone(c);
		remote = c->recv_msg;
		debug(c, "Received rkey %x addr %" PRIx64 " len %d from peer\n", be32toh(remote.rkey),
		      be64toh(remote.addr), be32toh(remote.length));
		if (be32toh(remote.length) > (uint32_t)c->opt->size) {
			fprintf(stderr, "rping: the client's buffer (%u bytes) exceeds ours (%d)\n",
				be32toh(remote.length), c->opt->size);
			return -1;
		}
		if (post_recv(c) || post_send(c, WR_READ, &remote) || await(c, WR_READ))
			return -1;
		debug(c, "server received read complete\n");
		if (c->opt->verbose)
			printf("server ping data: %s\n", c->rdma_buf);
		describe(&c->send_msg, c->rdma_buf, c->rdma_mr, c->opt->size);
		if (post_send(c, WR_SEND, NULL) || await(c, WR_SEND))
			return -1;
		debug(c, "server posted go ahead\n");
		if (await(c, WR_RECV))
			return -1;
		remote = c->recv_msg;
		if (be32toh(remote.length) > (uint32_t)c->opt->size) {
			fprintf(stderr, "rping: the client's buffer (%u bytes) exceeds ours (%d)\n",
				be32toh(remote.length), c->opt->size);
			return -1;
		}
		if (post_recv(c) || post_send(c, WR_WRITE, &remote) || await(c, WR_WRITE))
			return -1;
		debug(c, "server rdma write complete \n");
		if (post_send(c, WR_SEND, NULL) || await(c, WR_SEND))
			return -1;
		debug(c, "server posted go ahead\n");
	}
}

static void fill_ping(char *buf, int size, int ping)
{
	int start = 'A' + ping % 58, n, i;

	n = snprintf(buf, size, "rdma-ping-%d: ", ping);
	for (i = n; i < size - 1; i++) {
		buf[i] = (char)(start++);
		if (start > 'z')
			start = 'A';
	}
	buf[size - 1] = '\0';
}

static int client_rounds(struct conn *c)
{
	int ping;

	for (ping = 0; !c->opt->count || ping < c->opt->count; ping++) {
		fill_ping(c->start_buf, c->opt->size, ping);
		describe(&c->send_msg, c->start_buf, c->start_mr, c->opt->size);
		if (post_send(c, WR_SEND, NULL) || await(c, WR_SEND | WR_RECV) || post_recv(c))
			return -1;
		describe(&c->send_msg, c->rdma_buf, c->rdma_mr, c->opt->size);
		if (post_send(c, WR_SEND, NULL) || await(c, WR_SEND | WR_RECV) || post_recv(c))
			return -1;
		if (c->opt->validate && memcmp(c->start_buf, c->rdma_buf, c->opt->size)) {
			fprintf(stderr, "data mismatch!\n");
			return -1;
		}
		if (c->opt->verbose)
			printf("ping data: %s\n", c->rdma_buf);
	}
	return 0;
}

/* One accepted connection, on its own event channel so that the listener's
 * next requests wait in its own. */
static int serve_one(const struct options *opt, struct rdma_cm_id *id)
{
	struct conn c = { .opt = opt, .id = id };
	struct rdma_conn_param param;
	int ret = -1;

	c.channel = rdma_create_event_channel();
	if (!c.channel || rdma_migrate_id(id, c.channel)) {
		perror("rdma_migrate_id");
		goto out;
	}
	if (setup_qp(&c))
		goto out;
	if (opt->own_qp && (move_qp(&c, IBV_QPS_RTR) || move_qp(&c, IBV_QPS_RTS)))
		goto out;
	param = conn_param(&c);
	if (rdma_accept(id, &param)) {
		perror("rdma_accept");
		goto out;
	}
	if (cmtool_expect(c.channel, RDMA_CM_EVENT_ESTABLISHED, NULL))
		goto out;
	debug(&c, "accepting client connection request\n");
	ret = serve_rounds(&c);
	if (!c.disconnected)
		rdma_disconnect(id);
	debug(&c, "server disconnected...\n");
out:
	teardown(&c);
	rdma_destroy_id(id);
	if (c.channel)
		rdma_destroy_event_channel(c.channel);
	return ret;
}

static int run_server(const struct options *opt, struct rdma_event_channel *channel)
{
	struct sockaddr_storage addr;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *event;
	struct rdma_cm_id *id;
	int ret = -1;

	if (cmtool_getaddr(opt->addr, opt->port, 1, &addr))
		return -1;
	if (rdma_create_id(channel, &listen_id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return -1;
	}
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&addr) || rdma_listen(listen_id, 3)) {
		perror("rdma_bind_addr/rdma_listen");
		goto out;
	}
	do {
		if (cmtool_expect(channel, RDMA_CM_EVENT_CONNECT_REQUEST, &event))
			goto out;
		id = event->id;
		rdma_ack_cm_event(event);
		ret = serve_one(opt, id);
	} while (opt->persistent);
out:
	rdma_destroy_id(listen_id);
	return ret;
}

static int run_client(const struct options *opt, struct rdma_event_channel *channel)
{
	struct sockaddr_storage dst, src;
	struct conn c = { .opt = opt, .channel = channel };
	struct rdma_conn_param param;
	struct rdma_cm_event *event;
	int ret = -1;

	if (cmtool_getaddr(opt->addr, opt->port, 0, &dst) ||
	    (opt->bind_addr && cmtool_getaddr(opt->bind_addr, NULL, 0, &src)))
		return -1;
	if (rdma_create_id(channel, &c.id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return -1;
	}
	if (cmtool_resolve(c.id, opt->bind_addr ? (struct sockaddr *)&src : NULL,
			   (struct sockaddr *)&dst, TIMEOUT_MS) ||
	    setup_qp(&c))
		goto out;
	param = conn_param(&c);
	if (rdma_connect(c.id, &param)) {
		perror("rdma_connect");
		goto out;
	}
	if (opt->own_qp) {
		/* no QP known to rdma_cm: it reports the reply, we finish */
		if (cmtool_expect(channel, RDMA_CM_EVENT_CONNECT_RESPONSE, &event))
			goto out;
		rdma_ack_cm_event(event);
		if (move_qp(&c, IBV_QPS_RTR) || move_qp(&c, IBV_QPS_RTS))
			goto out;
		if (rdma_establish(c.id)) {
			perror("rdma_establish");
			goto out;
		}
	} else if (cmtool_expect(channel, RDMA_CM_EVENT_ESTABLISHED, NULL)) {
		goto out;
	}
	debug(&c, "rdma_connect successful\n");
	ret = client_rounds(&c);
	rdma_disconnect(c.id);
	if (!c.disconnected && !cmtool_expect(channel, RDMA_CM_EVENT_DISCONNECTED, NULL))
		printf("client DISCONNECT EVENT...\n");
out:
	teardown(&c);
	rdma_destroy_id(c.id);
	return ret;
}

int main(int argc, char **argv)
{
	struct options opt = { .size = DEFAULT_SIZE, .port = DEFAULT_PORT };
	struct rdma_event_channel *channel;
	int ch, ret;

	while ((ch = getopt(argc, argv, "a:I:Pp:C:S:t:scvVdq")) != -1) {
		switch (ch) {
		case 'a': opt.addr = optarg; break;
		case 'I': opt.bind_addr = optarg; break;
		case 'P': opt.persistent = 1; break;
		case 'p': opt.port = optarg; break;
		case 's': opt.server = 1; break;
		case 'c': opt.client = 1; break;
		case 'v': opt.verbose = 1; break;
		case 'V': opt.validate = 1; break;
		case 'd': opt.debug = 1; break;
		case 'q': opt.own_qp = 1; break;
		case 'S':
			if (cmtool_number(optarg, 1, &opt.size) || opt.size < 23 || opt.size > MAX_SIZE) {
				fprintf(stderr, "Invalid size %s (valid range is 23 to %d)\n", optarg, MAX_SIZE);
				return EINVAL;
			}
			break;
		case 'C':
			if (cmtool_number(optarg, 1, &opt.count)) {
				fprintf(stderr, "Invalid count %s\n", optarg);
				return EINVAL;
			}
			break;
		default:
			usage();
			return EINVAL;
		}
	}
	if (opt.server == opt.client || optind != argc) {
		usage();
		return EINVAL;
	}
	if (opt.client && !opt.addr) {
		fprintf(stderr, "rping: the client needs the server's address (-a)\n");
		return 255;
	}
	channel = rdma_create_event_channel();
	if (!channel) {
		perror("rdma_create_event_channel");
		return errno ? errno : 1;
	}
	ret = opt.server ? run_server(&opt, channel) : run_client(&opt, channel);
	rdma_destroy_event_channel(channel);
	return ret ? 255 : 0;
}
