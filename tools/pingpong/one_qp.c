// SPDX-License-Identifier: MIT
#include "one_qp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct one_qp {
	const struct one_qp_program *program;
	struct pp_options *opts;
	struct one_qp_extras extras;
	struct ibv_context *context;
	struct ibv_comp_channel *channel;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_ah *ah;	/* UD: the peer's address, with its QPN */
	uint32_t remote_qpn;
	/* UD: each receive starts with the 40-byte GRH; messages follow it */
	unsigned int grh_room;
	unsigned char *buf;
	unsigned int page_size;
	struct ibv_port_attr port_attr;
	struct pp_dest local;
};

static void print_usage(const struct one_qp_program *program, const char *argv0)
{
	printf("Usage:\n");
	printf("  %s            start a server and wait for connection\n", argv0);
	printf("  %s <host>     connect to server at <host>\n\n", argv0);
	printf("Options:\n%s", program->usage);
}

static bool extra_option(struct one_qp_extras *extras, int letter)
{
	switch (letter) {
	case 'o': extras->odp = true; return true;
	case 'O': extras->implicit_odp = extras->odp = true; return true;
	case 'P': extras->prefetch = true; return true;
	case 't': extras->timestamps = true; return true;
	case 'j': extras->device_memory = true; return true;
	case 'N': extras->new_send = true; return true;
	default: return false;
	}
}

/*
 * ODP, completion timestamps and device memory need the device's say-so;
 * without it the run stops before any QP exists, with upstream's words.
 * This implementation does not drive a device that has them: none here
 * does, so that path could not be tested (see the man page).
 */
static bool extras_supported(struct one_qp *c)
{
	struct ibv_device_attr_ex attr = {0};
	const struct one_qp_extras *x = &c->extras;
	uint32_t rc_send_recv = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;

	if (!x->odp && !x->prefetch && !x->timestamps && !x->device_memory)
		return true;
	if (ibv_query_device_ex(c->context, NULL, &attr)) {
		fprintf(stderr, "Couldn't query device for its features\n");
		return false;
	}
	if (x->odp && (!(attr.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
		       (attr.odp_caps.per_transport_caps.rc_odp_caps & rc_send_recv) != rc_send_recv)) {
		fprintf(stderr, "The device isn't ODP capable or does not support RC send and receive with ODP\n");
		return false;
	}
	if (x->implicit_odp && !(attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT)) {
		fprintf(stderr, "The device doesn't support implicit ODP\n");
		return false;
	}
	if (x->timestamps && !attr.completion_timestamp_mask) {
		fprintf(stderr, "The device isn't completion timestamp capable\n");
		return false;
	}
	if (x->device_memory && !attr.max_dm_size) {
		fprintf(stderr, "Device doesn't support dm allocation\n");
		return false;
	}
	fprintf(stderr, "%s: ODP, completion timestamps and device memory are not implemented\n",
		program_invocation_short_name);
	return false;
}

static bool create_qp(struct one_qp *c)
{
	struct ibv_qp_init_attr_ex init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = c->opts->rx_depth,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = c->program->qp_type,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = c->pd,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = c->opts->ib_port,
		.qkey = PP_UD_QKEY,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (c->extras.new_send) {
		init.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		init.send_ops_flags = IBV_QP_EX_WITH_SEND;
	}
	c->qp = ibv_create_qp_ex(c->context, &init);
	if (!c->qp) {
		fprintf(stderr, "Couldn't create QP\n");
		return false;
	}
	if (c->extras.new_send)
		c->qpx = ibv_qp_to_qp_ex(c->qp);
	mask |= c->program->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	if (ibv_modify_qp(c->qp, &attr, mask)) {
		fprintf(stderr, "Failed to modify QP to INIT\n");
		return false;
	}
	return true;
}

static bool set_up(struct one_qp *c)
{
	struct pp_options *o = c->opts;

	c->context = pp_open_device(o->ib_devname);
	if (!c->context || !extras_supported(c))
		return false;
	if (c->program->qp_type == IBV_QPT_UD) {
		c->grh_room = 40;
		if (!pp_local_address(c->context, o->ib_port, -1, &c->port_attr, &c->local))
			return false;
		/* the default size shrinks to the port's MTU, as upstream's
		 * does; a size asked for is refused */
		if (o->size > 128U << c->port_attr.active_mtu) {
			if (o->size_given) {
				fprintf(stderr, "Requested size larger than port MTU (%d)\n",
					128 << c->port_attr.active_mtu);
				return false;
			}
			o->size = 128U << c->port_attr.active_mtu;
		}
	}
	c->page_size = sysconf(_SC_PAGESIZE);
	c->buf = aligned_alloc(c->page_size, (o->size + c->grh_room + c->page_size - 1) /
			       c->page_size * c->page_size);
	if (!c->buf) {
		fprintf(stderr, "Couldn't allocate work buf.\n");
		return false;
	}
	/* the sender's pattern before the first receive overwrites it */
	memset(c->buf, 0x7b, c->grh_room);
	pp_fill_buffer(c->buf + c->grh_room, o->size, c->page_size, o->validate);
	if (o->use_events) {
		c->channel = ibv_create_comp_channel(c->context);
		if (!c->channel) {
			fprintf(stderr, "Couldn't create completion channel\n");
			return false;
		}
	}
	c->pd = ibv_alloc_pd(c->context);
	if (!c->pd) {
		fprintf(stderr, "Couldn't allocate PD\n");
		return false;
	}
	c->mr = ibv_reg_mr(c->pd, c->buf, o->size + c->grh_room, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr) {
		fprintf(stderr, "Couldn't register MR\n");
		return false;
	}
	c->cq = ibv_create_cq(c->context, o->rx_depth + 1, NULL, c->channel, 0);
	if (!c->cq) {
		fprintf(stderr, "Couldn't create CQ\n");
		return false;
	}
	return create_qp(c);
}

static void tear_down(struct one_qp *c)
{
	if (c->ah && ibv_destroy_ah(c->ah))
		fprintf(stderr, "Couldn't destroy AH\n");
	if (c->qp && ibv_destroy_qp(c->qp))
		fprintf(stderr, "Couldn't destroy QP\n");
	if (c->cq && ibv_destroy_cq(c->cq))
		fprintf(stderr, "Couldn't destroy CQ\n");
	if (c->mr && ibv_dereg_mr(c->mr))
		fprintf(stderr, "Couldn't deregister MR\n");
	if (c->pd && ibv_dealloc_pd(c->pd))
		fprintf(stderr, "Couldn't deallocate PD\n");
	if (c->channel && ibv_destroy_comp_channel(c->channel))
		fprintf(stderr, "Couldn't destroy completion channel\n");
	if (c->context && ibv_close_device(c->context))
		fprintf(stderr, "Couldn't release context\n");
	free(c->buf);
}

static bool connect_ud(struct one_qp *c, const struct pp_dest *remote)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_RTR };
	struct ibv_ah_attr ah;

	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE)) {
		fprintf(stderr, "Failed to modify QP to RTR\n");
		return false;
	}
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = c->local.psn;
	if (ibv_modify_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		fprintf(stderr, "Failed to modify QP to RTS\n");
		return false;
	}
	pp_remote_ah(&ah, remote, c->opts->sl, c->opts->ib_port, c->opts->gidx);
	c->ah = ibv_create_ah(c->pd, &ah);
	if (!c->ah) {
		fprintf(stderr, "Failed to create AH\n");
		return false;
	}
	c->remote_qpn = remote->qpn;
	return true;
}

static bool connect_qp(void *arg, const struct pp_dest *remote)
{
	struct one_qp *c = arg;
	const struct pp_options *o = c->opts;
	bool reliable = c->program->qp_type == IBV_QPT_RC;
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = o->mtu,
		.dest_qp_num = remote->qpn,
		.rq_psn = remote->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (c->program->qp_type == IBV_QPT_UD)
		return connect_ud(c, remote);
	pp_remote_ah(&attr.ah_attr, remote, o->sl, o->ib_port, o->gidx);
	if (reliable)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (ibv_modify_qp(c->qp, &attr, mask)) {
		fprintf(stderr, "Failed to modify QP to RTR\n");
		return false;
	}
	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = c->local.psn,
		.max_rd_atomic = 1,
	};
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (reliable)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	if (ibv_modify_qp(c->qp, &attr, mask)) {
		fprintf(stderr, "Failed to modify QP to RTS\n");
		return false;
	}
	return true;
}

static unsigned int post_receives(struct one_qp *c, unsigned int count)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf,
		.length = c->opts->size + c->grh_room,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = PP_RECV_WRID,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	unsigned int posted;

	for (posted = 0; posted < count; posted++)
		if (ibv_post_recv(c->qp, &wr, &bad))
			break;
	return posted;
}

static bool post_send(struct one_qp *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + c->grh_room),
		.length = c->opts->size,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PP_SEND_WRID,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = {
			.ah = c->ah,
			.remote_qpn = c->remote_qpn,
			.remote_qkey = PP_UD_QKEY,
		},
	};
	struct ibv_send_wr *bad;

	if (c->opts->validate)
		pp_fill_buffer(c->buf + c->grh_room, c->opts->size, c->page_size, true);
	if (!c->qpx)
		return !ibv_post_send(c->qp, &wr, &bad);
	ibv_wr_start(c->qpx);
	c->qpx->wr_id = PP_SEND_WRID;
	c->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(c->qpx);
	ibv_wr_set_sge(c->qpx, sge.lkey, sge.addr, sge.length);
	return !ibv_wr_complete(c->qpx);
}

/*
 * Each side sends once it has both received the peer's last message and
 * seen its own previous send complete; the client opens with a send.
 */
static bool ping_pong(struct one_qp *c, unsigned int posted)
{
	const struct pp_options *o = c->opts;
	unsigned int receives_posted = posted, sent = 0, received = 0, unacked = 0;
	unsigned int pending = PP_RECV_WRID;
	struct timeval start;
	bool ok = true;

	if (o->servername) {
		if (!post_send(c)) {
			fprintf(stderr, "Couldn't post send\n");
			return false;
		}
		pending |= PP_SEND_WRID;
	}
	gettimeofday(&start, NULL);
	while (ok && (received < o->iters || sent < o->iters)) {
		struct ibv_wc wc[2];
		int n;

		if (o->use_events && !pp_wait_cq_event(c->channel, c->cq, &unacked)) {
			ok = false;
			break;
		}
		do {
			n = ibv_poll_cq(c->cq, 2, wc);
		} while (!o->use_events && n == 0);
		if (n < 0) {
			fprintf(stderr, "poll CQ failed %d\n", n);
			ok = false;
		}
		for (int i = 0; ok && i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				pp_print_bad_wc(&wc[i]);
				ok = false;
				break;
			}
			if (wc[i].wr_id == PP_SEND_WRID) {
				sent++;
			} else if (wc[i].wr_id == PP_RECV_WRID) {
				if (--receives_posted <= 1) {
					receives_posted += post_receives(c, o->rx_depth - receives_posted);
					if (receives_posted < o->rx_depth) {
						fprintf(stderr, "Couldn't post receive (%u)\n", receives_posted);
						ok = false;
						break;
					}
				}
				received++;
			} else {
				fprintf(stderr, "Completion for unknown wr_id %d\n", (int)wc[i].wr_id);
				ok = false;
				break;
			}
			pending &= ~wc[i].wr_id;
			if (sent < o->iters && !pending) {
				if (!post_send(c)) {
					fprintf(stderr, "Couldn't post send\n");
					ok = false;
					break;
				}
				pending = PP_RECV_WRID | PP_SEND_WRID;
			}
		}
	}
	if (ok) {
		pp_print_result(&start, 2ULL * o->size * o->iters, o->iters);
		if (o->validate)
			pp_check_buffer(c->buf + c->grh_room, o->size, c->page_size);
	}
	if (unacked)
		ibv_ack_cq_events(c->cq, unacked);
	return ok;
}

static bool run(struct one_qp *c)
{
	const struct pp_options *o = c->opts;
	struct pp_dest remote;
	unsigned int posted;
	int sock;
	bool ok;

	if (!set_up(c))
		return false;
	posted = post_receives(c, o->rx_depth);
	if (posted < o->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%u)\n", posted);
		return false;
	}
	if (o->use_events && ibv_req_notify_cq(c->cq, 0)) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return false;
	}
	if (!pp_local_address(c->context, o->ib_port, o->gidx, &c->port_attr, &c->local))
		return false;
	c->local.qpn = c->qp->qp_num;
	c->local.psn = pp_random_psn();
	/* upstream's UD program ends its local PSN with a colon */
	pp_print_dest("local address: ", &c->local,
		      c->program->qp_type == IBV_QPT_UD ? ':' : ',');
	if (o->servername) {
		sock = pp_exchange_client(o, &c->local, &remote, 1);
	} else {
		sock = pp_exchange_server(o, &c->local, &remote, 1, connect_qp, c);
	}
	if (sock < 0)
		return false;
	pp_print_dest("remote address:", &remote, ',');
	ok = !o->servername || connect_qp(c, &remote);
	ok = ok && ping_pong(c, posted);
	close(sock);
	return ok;
}

int one_qp_main(const struct one_qp_program *program, int argc, char *argv[])
{
	struct pp_options opts = {
		.tcp_port = 18515,
		.ib_port = 1,
		.size = program->default_size,
		.mtu = IBV_MTU_1024,
		.rx_depth = 500,
		.iters = 1000,
		.gidx = -1,
	};
	struct one_qp c = { .program = program, .opts = &opts };
	int letter;
	bool ok;

	while ((letter = getopt_long(argc, argv, program->optstring,
				     program->longopts, NULL)) != -1) {
		if (!pp_common_option(&opts, letter, optarg) &&
		    !extra_option(&c.extras, letter)) {
			print_usage(program, argv[0]);
			return 1;
		}
	}
	if (!pp_take_servername(&opts, argc, argv)) {
		print_usage(program, argv[0]);
		return 1;
	}
	ok = run(&c);
	tear_down(&c);
	return ok ? 0 : 1;
}
