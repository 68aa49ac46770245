// SPDX-License-Identifier: MIT
/*
 * The verbs scenario for the fault sweep (sweep.sh), on rxe0: device
 * list, open, queries, PD, MR, CQ with a completion channel, SRQ, two RC
 * QPs connected over loopback, a send/receive and an RDMA write checked
 * byte for byte, a completion event, an AH and a UD QP, then all
 * destroyed.  scenario.h says what is checked.
 */
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "scenario.h"

enum { MSG = 64 };

struct objects {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b, *ud;
	struct ibv_ah *ah;
	char *buf;
};

/* A destroy that fails (the fault) must leave the object whole: the
 * retry must succeed. */
static void destroy(struct attempt *at, const char *step, int (*fn)(void *), void *obj)
{
	int ret;

	if (!obj)
		return;
	ret = fn(obj);
	if (ret) {
		sc_ret(at, step, ret > 0 ? ret : errno);
		CHECK(!fn(obj), "retry of %s failed (%s)", step, strerror(errno));
	}
}

#define DESTROY(at, fn, obj) destroy(at, #fn, (int (*)(void *))fn, obj)

static void teardown(struct attempt *at, struct objects *o)
{
	DESTROY(at, ibv_destroy_ah, o->ah);
	DESTROY(at, ibv_destroy_qp, o->ud);
	DESTROY(at, ibv_destroy_qp, o->b);
	DESTROY(at, ibv_destroy_qp, o->a);
	DESTROY(at, ibv_destroy_srq, o->srq);
	DESTROY(at, ibv_destroy_cq, o->cq);
	DESTROY(at, ibv_destroy_comp_channel, o->channel);
	DESTROY(at, ibv_dereg_mr, o->mr);
	DESTROY(at, ibv_dealloc_pd, o->pd);
	DESTROY(at, ibv_close_device, o->ctx);
	if (o->list)
		ibv_free_device_list(o->list);
	free(o->buf);
}

static struct ibv_device *find(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

/* One completion within 5 s, successful; its opcode in *opcode. */
static bool completed(struct attempt *at, struct ibv_cq *cq, enum ibv_wc_opcode *opcode)
{
	struct ibv_wc wc;
	int got = vt_poll_one(cq, &wc, 5000);

	if (got < 0)
		return sc_ret(at, "ibv_poll_cq", -got);
	if (got == 0 || wc.status != IBV_WC_SUCCESS) {
		printf("   completion: got %d, status %s\n", got,
		       got ? ibv_wc_status_str(wc.status) : "-");
		sc_broken(at, "completion");
		return false;
	}
	*opcode = wc.opcode;
	return true;
}

static bool send_recv_write(struct attempt *at, struct objects *o)
{
	char *src = o->buf, *dst = o->buf + MSG, *target = o->buf + 2 * MSG;
	struct ibv_sge send_sge = { (uintptr_t)src, MSG, o->mr->lkey };
	struct ibv_sge recv_sge = { (uintptr_t)dst, MSG, o->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &recv_sge, .num_sge = 1 }, *bad_rwr;
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &send_sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
			   *bad_swr;
	struct ibv_send_wr wwr = swr;
	struct ibv_cq *ev_cq;
	struct pollfd pfd = { .fd = o->channel->fd, .events = POLLIN };
	void *ev_ctx;
	enum ibv_wc_opcode first, second;

	memset(o->buf, 0, 3 * MSG);
	memset(src, 0x5a, MSG);
	if (!sc_ret(at, "ibv_req_notify_cq", ibv_req_notify_cq(o->cq, 0)) ||
	    !sc_ret(at, "ibv_post_srq_recv", ibv_post_srq_recv(o->srq, &rwr, &bad_rwr)) ||
	    !sc_ret(at, "ibv_post_send", ibv_post_send(o->a, &swr, &bad_swr)))
		return false;
	/* the send's and the receive's, in either order */
	if (!completed(at, o->cq, &first) || !completed(at, o->cq, &second))
		return false;
	if (first + second != IBV_WC_SEND + IBV_WC_RECV) {
		sc_broken(at, "completion opcodes");
		return false;
	}
	if (memcmp(src, dst, MSG)) {
		sc_broken(at, "received data");
		return false;
	}
	if (poll(&pfd, 1, 5000) != 1) {
		sc_broken(at, "completion event");
		return false;
	}
	if (!sc_errno(at, "ibv_get_cq_event", ibv_get_cq_event(o->channel, &ev_cq, &ev_ctx)))
		return false;
	ibv_ack_cq_events(ev_cq, 1);

	wwr.opcode = IBV_WR_RDMA_WRITE;
	wwr.wr.rdma.remote_addr = (uintptr_t)target;
	wwr.wr.rdma.rkey = o->mr->rkey;
	if (!sc_ret(at, "ibv_post_send (write)", ibv_post_send(o->a, &wwr, &bad_swr)) ||
	    !completed(at, o->cq, &first))
		return false;
	if (first != IBV_WC_RDMA_WRITE || memcmp(src, target, MSG)) {
		sc_broken(at, "written data");
		return false;
	}
	return true;
}

static bool ud_and_ah(struct attempt *at, struct objects *o)
{
	struct ibv_ah_attr ah = { .port_num = 1, .is_global = 1,
				  .grh = { .sgid_index = vt_gid_index(), .hop_limit = 1 } };
	struct ibv_qp_init_attr init = { .send_cq = o->cq, .recv_cq = o->cq, .srq = o->srq,
					 .qp_type = IBV_QPT_UD,
					 .cap = { .max_send_wr = 4, .max_send_sge = 1 } };

	return sc_ret(at, "ibv_query_gid", ibv_query_gid(o->ctx, 1, vt_gid_index(),
						       &ah.grh.dgid) ? errno : 0) &&
	       sc_made(at, "ibv_create_ah", o->ah = ibv_create_ah(o->pd, &ah)) &&
	       sc_made(at, "ibv_create_qp (UD)", o->ud = ibv_create_qp(o->pd, &init));
}

static void attempt(struct attempt *at)
{
	struct objects o = { 0 };
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	struct ibv_device *device;
	int n;
	long page = sysconf(_SC_PAGESIZE);

	errno = 0;
	if (!sc_made(at, "ibv_get_device_list", o.list = ibv_get_device_list(&n)))
		goto out;
	device = find(o.list, getenv("RDMAVM_RXE_DEV") ? getenv("RDMAVM_RXE_DEV") : "rxe0");
	if (!device) {
		sc_broken(at, "rxe0 in the device list");
		goto out;
	}
	if (!sc_made(at, "ibv_open_device", o.ctx = ibv_open_device(device)) ||
	    !sc_ret(at, "ibv_query_device", ibv_query_device(o.ctx, &dev)) ||
	    !sc_ret(at, "ibv_query_port", ibv_query_port(o.ctx, 1, &port)) ||
	    !sc_made(at, "ibv_alloc_pd", o.pd = ibv_alloc_pd(o.ctx)) ||
	    !sc_ret(at, "posix_memalign", posix_memalign((void **)&o.buf, (size_t)page,
							 (size_t)page)) ||
	    !sc_made(at, "ibv_reg_mr", o.mr = ibv_reg_mr(o.pd, o.buf, (size_t)page,
						    IBV_ACCESS_LOCAL_WRITE |
						    IBV_ACCESS_REMOTE_WRITE)) ||
	    !sc_made(at, "ibv_create_comp_channel", o.channel = ibv_create_comp_channel(o.ctx)) ||
	    !sc_made(at, "ibv_create_cq", o.cq = ibv_create_cq(o.ctx, 16, NULL, o.channel, 0)) ||
	    !sc_made(at, "ibv_create_srq", o.srq = ibv_create_srq(o.pd, &(struct ibv_srq_init_attr){
						.attr = { .max_wr = 16, .max_sge = 1 } })) ||
	    !sc_made(at, "ibv_create_qp (a)", o.a = vt_create_rc_qp(o.pd, o.cq)) ||
	    !sc_made(at, "ibv_create_qp (b)", o.b = ibv_create_qp(o.pd, &(struct ibv_qp_init_attr){
						.send_cq = o.cq, .recv_cq = o.cq, .srq = o.srq,
						.qp_type = IBV_QPT_RC,
						.cap = { .max_send_wr = 16, .max_send_sge = 1 } })) ||
	    !sc_ret(at, "ibv_modify_qp (connect)", vt_connect_rc(o.a, o.b)) ||
	    !send_recv_write(at, &o))
		goto out;
	ud_and_ah(at, &o);
out:
	teardown(at, &o);
}

int main(void)
{
	const char *dev = getenv("RDMAVM_RXE_DEV");

	return sc_run("fault scenario: verbs", dev ? dev : "rxe0", attempt);
}
