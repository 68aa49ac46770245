// SPDX-License-Identifier: MIT
/*
 * ibv_srq_pingpong: -q RC QPs whose receives all come from one shared
 * receive queue; each QP plays the one-QP ping-pong, -n exchanges in all.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pingpong.h"

/*
 * Upstream's programs always exchange this many addresses each way, the
 * ones past -q all zero; -q may not exceed it.
 */
#define SRQ_WIRE_QPS 256

struct srq_qp {
	struct ibv_qp *qp;
	unsigned int pending;
};

struct srq_pingpong {
	const struct pp_options *opts;
	unsigned int num_qp;
	struct ibv_context *context;
	struct ibv_comp_channel *channel;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct srq_qp qps[SRQ_WIRE_QPS];
	/*
	 * Counted over all QPs: -n bounds the exchanges of the whole run,
	 * whatever upstream's usage text says ("per QP"); its programs stop
	 * there, so ours must too.
	 */
	unsigned int sent;
	unsigned int received;
	unsigned char *buf;
	unsigned int page_size;
	struct ibv_port_attr port_attr;
	struct pp_dest local[SRQ_WIRE_QPS];
};

static const struct option longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "size", required_argument, NULL, 's' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "num-qp", required_argument, NULL, 'q' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "iters", required_argument, NULL, 'n' },
	{ "sl", required_argument, NULL, 'l' },
	{ "events", no_argument, NULL, 'e' },
	{ "gid-idx", required_argument, NULL, 'g' },
	{ "odp", no_argument, NULL, 'o' },
	{ "chk", no_argument, NULL, 'c' },
	{ 0 },
};

static void usage(const char *argv0)
{
	printf("Usage:\n");
	printf("  %s            start a server and wait for connection\n", argv0);
	printf("  %s <host>     connect to server at <host>\n\n", argv0);
	printf("Options:\n"
	       "  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
	       "  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n"
	       "  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n"
	       "  -s, --size=<size>      size of message to exchange (default 4096)\n"
	       "  -m, --mtu=<size>       path MTU (default 1024)\n"
	       "  -q, --num-qp=<num>     number of QPs to use (default 16)\n"
	       "  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n"
	       "  -n, --iters=<iters>    number of exchanges per QP(default 1000)\n"
	       "  -l, --sl=<sl>          service level value\n"
	       "  -e, --events           sleep on CQ events (default poll)\n"
	       "  -g, --gid-idx=<gid index> local port gid index\n"
	       "  -o, --odp\t\t    use on demand paging\n"
	       "  -c, --chk              validate received buffer\n");
}

/* ODP needs the device's say-so (see ibv_rc_pingpong's extras). */
static bool odp_supported(struct ibv_context *context)
{
	struct ibv_device_attr_ex attr = {0};
	uint32_t needed = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV;

	if (ibv_query_device_ex(context, NULL, &attr) ||
	    !(attr.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
	    (attr.odp_caps.per_transport_caps.rc_odp_caps & needed) != needed) {
		fprintf(stderr, "The device isn't ODP capable or does not support RC send, receive and srq with ODP\n");
		return false;
	}
	fprintf(stderr, "%s: ODP is not implemented\n", program_invocation_short_name);
	return false;
}

static bool set_up(struct srq_pingpong *s)
{
	const struct pp_options *o = s->opts;
	struct ibv_srq_init_attr srq_attr = {
		.attr = { .max_wr = o->rx_depth, .max_sge = 1 },
	};

	s->context = pp_open_device(o->ib_devname);
	if (!s->context)
		return false;
	s->page_size = sysconf(_SC_PAGESIZE);
	s->buf = aligned_alloc(s->page_size, (o->size + s->page_size - 1) /
			       s->page_size * s->page_size);
	if (!s->buf) {
		fprintf(stderr, "Couldn't allocate work buf.\n");
		return false;
	}
	pp_fill_buffer(s->buf, o->size, s->page_size, o->validate);
	if (o->use_events) {
		s->channel = ibv_create_comp_channel(s->context);
		if (!s->channel) {
			fprintf(stderr, "Couldn't create completion channel\n");
			return false;
		}
	}
	s->pd = ibv_alloc_pd(s->context);
	if (!s->pd) {
		fprintf(stderr, "Couldn't allocate PD\n");
		return false;
	}
	s->mr = ibv_reg_mr(s->pd, s->buf, o->size, IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr) {
		fprintf(stderr, "Couldn't register MR\n");
		return false;
	}
	s->cq = ibv_create_cq(s->context, o->rx_depth + s->num_qp, NULL, s->channel, 0);
	if (!s->cq) {
		fprintf(stderr, "Couldn't create CQ\n");
		return false;
	}
	s->srq = ibv_create_srq(s->pd, &srq_attr);
	if (!s->srq) {
		fprintf(stderr, "Couldn't create SRQ\n");
		return false;
	}
	for (unsigned int i = 0; i < s->num_qp; i++) {
		struct ibv_qp_init_attr init = {
			.send_cq = s->cq,
			.recv_cq = s->cq,
			.srq = s->srq,
			.cap = { .max_send_wr = 1, .max_send_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};
		struct ibv_qp_attr attr = {
			.qp_state = IBV_QPS_INIT,
			.port_num = o->ib_port,
		};

		s->qps[i].qp = ibv_create_qp(s->pd, &init);
		if (!s->qps[i].qp) {
			fprintf(stderr, "Couldn't create QP[%u]\n", i);
			return false;
		}
		if (ibv_modify_qp(s->qps[i].qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
			fprintf(stderr, "Failed to modify QP[%u] to INIT\n", i);
			return false;
		}
	}
	return true;
}

static void tear_down(struct srq_pingpong *s)
{
	for (unsigned int i = 0; i < s->num_qp; i++)
		if (s->qps[i].qp && ibv_destroy_qp(s->qps[i].qp))
			fprintf(stderr, "Couldn't destroy QP[%u]\n", i);
	if (s->srq && ibv_destroy_srq(s->srq))
		fprintf(stderr, "Couldn't destroy SRQ\n");
	if (s->cq && ibv_destroy_cq(s->cq))
		fprintf(stderr, "Couldn't destroy CQ\n");
	if (s->mr && ibv_dereg_mr(s->mr))
		fprintf(stderr, "Couldn't deregister MR\n");
	if (s->pd && ibv_dealloc_pd(s->pd))
		fprintf(stderr, "Couldn't deallocate PD\n");
	if (s->channel && ibv_destroy_comp_channel(s->channel))
		fprintf(stderr, "Couldn't destroy completion channel\n");
	if (s->context && ibv_close_device(s->context))
		fprintf(stderr, "Couldn't release context\n");
	free(s->buf);
}

static bool connect_qps(void *arg, const struct pp_dest *remote)
{
	struct srq_pingpong *s = arg;
	const struct pp_options *o = s->opts;

	for (unsigned int i = 0; i < s->num_qp; i++) {
		struct ibv_qp_attr attr = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = o->mtu,
			.dest_qp_num = remote[i].qpn,
			.rq_psn = remote[i].psn,
			.max_dest_rd_atomic = 1,
			.min_rnr_timer = 12,
		};

		pp_remote_ah(&attr.ah_attr, &remote[i], o->sl, o->ib_port, o->gidx);
		if (ibv_modify_qp(s->qps[i].qp, &attr, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
			fprintf(stderr, "Failed to modify QP[%u] to RTR\n", i);
			return false;
		}
		attr = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTS,
			.timeout = 14,
			.retry_cnt = 7,
			.rnr_retry = 7,
			.sq_psn = s->local[i].psn,
			.max_rd_atomic = 1,
		};
		if (ibv_modify_qp(s->qps[i].qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC)) {
			fprintf(stderr, "Failed to modify QP[%u] to RTS\n", i);
			return false;
		}
	}
	return true;
}

static unsigned int post_receives(struct srq_pingpong *s, unsigned int count)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf,
		.length = s->opts->size,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = PP_RECV_WRID,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	unsigned int posted;

	for (posted = 0; posted < count; posted++)
		if (ibv_post_srq_recv(s->srq, &wr, &bad))
			break;
	return posted;
}

static bool post_send(struct srq_pingpong *s, struct srq_qp *q)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf,
		.length = s->opts->size,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PP_SEND_WRID,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (s->opts->validate)
		pp_fill_buffer(s->buf, s->opts->size, s->page_size, true);
	if (ibv_post_send(q->qp, &wr, &bad)) {
		fprintf(stderr, "Couldn't post send\n");
		return false;
	}
	q->pending = PP_RECV_WRID | PP_SEND_WRID;
	return true;
}

static struct srq_qp *qp_of(struct srq_pingpong *s, uint32_t qp_num)
{
	for (unsigned int i = 0; i < s->num_qp; i++)
		if (s->qps[i].qp->qp_num == qp_num)
			return &s->qps[i];
	return NULL;
}

/* One completion: which QP it belongs to decides what that QP does next. */
static bool complete(struct srq_pingpong *s, const struct ibv_wc *wc,
		     unsigned int *receives_posted)
{
	const struct pp_options *o = s->opts;
	struct srq_qp *q = qp_of(s, wc->qp_num);

	if (wc->status != IBV_WC_SUCCESS) {
		pp_print_bad_wc(wc);
		return false;
	}
	if (!q || (wc->wr_id != PP_SEND_WRID && wc->wr_id != PP_RECV_WRID)) {
		fprintf(stderr, "Completion for unknown wr_id %d on QP 0x%06x\n",
			(int)wc->wr_id, wc->qp_num);
		return false;
	}
	if (wc->wr_id == PP_SEND_WRID) {
		s->sent++;
	} else {
		s->received++;
		if (--*receives_posted <= s->num_qp) {
			*receives_posted += post_receives(s, o->rx_depth - *receives_posted);
			if (*receives_posted < o->rx_depth) {
				fprintf(stderr, "Couldn't post receive (%u)\n", *receives_posted);
				return false;
			}
		}
	}
	q->pending &= ~wc->wr_id;
	return q->pending || s->sent >= o->iters || post_send(s, q);
}

static bool ping_pong(struct srq_pingpong *s, unsigned int receives_posted)
{
	const struct pp_options *o = s->opts;
	unsigned int unacked = 0;
	struct timeval start;
	bool ok = true;

	for (unsigned int i = 0; i < s->num_qp; i++) {
		s->qps[i].pending = PP_RECV_WRID;
		if (o->servername && !post_send(s, &s->qps[i]))
			return false;
	}
	gettimeofday(&start, NULL);
	while (ok && (s->received < o->iters || s->sent < o->iters)) {
		struct ibv_wc wc[2 * SRQ_WIRE_QPS];
		int n;

		if (o->use_events && !pp_wait_cq_event(s->channel, s->cq, &unacked)) {
			ok = false;
			break;
		}
		do {
			n = ibv_poll_cq(s->cq, 2 * s->num_qp, wc);
		} while (!o->use_events && n == 0);
		if (n < 0) {
			fprintf(stderr, "poll CQ failed %d\n", n);
			ok = false;
		}
		for (int i = 0; ok && i < n; i++)
			ok = complete(s, &wc[i], &receives_posted);
	}
	if (ok) {
		pp_print_result(&start, 2ULL * o->size * o->iters, o->iters);
		if (o->validate)
			pp_check_buffer(s->buf, o->size, s->page_size);
	}
	if (unacked)
		ibv_ack_cq_events(s->cq, unacked);
	return ok;
}

static bool run(struct srq_pingpong *s, bool odp)
{
	const struct pp_options *o = s->opts;
	struct pp_dest remote[SRQ_WIRE_QPS];
	unsigned int posted;
	int sock;
	bool ok;

	if (!set_up(s) || (odp && !odp_supported(s->context)))
		return false;
	posted = post_receives(s, o->rx_depth);
	if (posted < o->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%u)\n", posted);
		return false;
	}
	if (o->use_events && ibv_req_notify_cq(s->cq, 0)) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return false;
	}
	if (!pp_local_address(s->context, o->ib_port, o->gidx, &s->port_attr, &s->local[0]))
		return false;
	for (unsigned int i = 0; i < s->num_qp; i++) {
		s->local[i].lid = s->local[0].lid;
		s->local[i].gid = s->local[0].gid;
		s->local[i].qpn = s->qps[i].qp->qp_num;
		s->local[i].psn = pp_random_psn();
		pp_print_dest("local address: ", &s->local[i], ',');
	}
	/* the unused addresses go out as zeros, as upstream's do */
	memset(&s->local[s->num_qp], 0, (SRQ_WIRE_QPS - s->num_qp) * sizeof(s->local[0]));
	if (o->servername)
		sock = pp_exchange_client(o, s->local, remote, SRQ_WIRE_QPS);
	else
		sock = pp_exchange_server(o, s->local, remote, SRQ_WIRE_QPS, connect_qps, s);
	if (sock < 0)
		return false;
	for (unsigned int i = 0; i < s->num_qp; i++)
		pp_print_dest("remote address:", &remote[i], ',');
	ok = !o->servername || connect_qps(s, remote);
	ok = ok && ping_pong(s, posted);
	close(sock);
	return ok;
}

int main(int argc, char *argv[])
{
	struct pp_options opts = {
		.tcp_port = 18515,
		.ib_port = 1,
		.size = 4096,
		.mtu = IBV_MTU_1024,
		.rx_depth = 500,
		.iters = 1000,
		.gidx = -1,
	};
	static struct srq_pingpong s;
	bool odp = false, ok;
	int letter;

	s.opts = &opts;
	s.num_qp = 16;
	while ((letter = getopt_long(argc, argv, "p:d:i:s:m:q:r:n:l:eg:oc",
				     longopts, NULL)) != -1) {
		if (letter == 'q') {
			s.num_qp = strtoul(optarg, NULL, 0);
		} else if (letter == 'o') {
			odp = true;
		} else if (!pp_common_option(&opts, letter, optarg)) {
			usage(argv[0]);
			return 1;
		}
	}
	if (!pp_take_servername(&opts, argc, argv)) {
		usage(argv[0]);
		return 1;
	}
	if (s.num_qp > SRQ_WIRE_QPS) {
		/* upstream's words, though it takes 256 */
		fprintf(stderr, "num_qp %u must be less than %d\n", s.num_qp, SRQ_WIRE_QPS - 1);
		return 1;
	}
	if (s.num_qp > opts.rx_depth) {
		fprintf(stderr, "rx_depth %u is too small for %u QPs -- must have at least one receive per QP.\n",
			opts.rx_depth, s.num_qp);
		return 1;
	}
	ok = run(&s, odp);
	tear_down(&s);
	return ok ? 0 : 1;
}
