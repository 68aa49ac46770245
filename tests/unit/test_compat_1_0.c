/* SPDX-License-Identifier: MIT */
/*
 * The IBVERBS_1.0 shims' conversions (libverbs/compat/v1_0).
 *
 * The shims only ever call the public 1.1 verbs and the real context's
 * public ops table.  The verbs they call are wrapped at link time
 * (meson.build) by fakes that hand out real objects made here and record
 * what they were given; the data path reaches the ops of a fake context.
 * Every wrapper is freed on success only: ASan and valgrind see the rest.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_1_0.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* The real objects and the wrapped verbs                              */

static struct ibv_device real_devs[2];
static struct ibv_device *real_list[3];
static struct ibv_device **freed_list;
static struct ibv_context real_ctx;
static struct ibv_pd real_pd;
static struct ibv_mr real_mr;
static struct ibv_cq real_cq;
static struct ibv_srq real_srq;
static struct ibv_qp real_qp;
static struct ibv_ah real_ah;
static int destroy_ret;			/* what the wrapped destroys return */
static bool fail_create;		/* the wrapped creates fail */
static struct ibv_qp_init_attr create_qp_got;
static struct ibv_async_event next_event, acked;

struct ibv_device **__wrap_ibv_get_device_list(int *num);
void __wrap_ibv_free_device_list(struct ibv_device **list);
struct ibv_context *__wrap_ibv_open_device(struct ibv_device *dev);
int __wrap_ibv_close_device(struct ibv_context *ctx);
struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx);
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access);
int __wrap_ibv_dereg_mr(struct ibv_mr *mr);
struct ibv_cq *__wrap_ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int vector);
int __wrap_ibv_destroy_cq(struct ibv_cq *cq);
int __wrap_ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			    void **cq_context);
struct ibv_srq *__wrap_ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
int __wrap_ibv_destroy_srq(struct ibv_srq *srq);
struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int __wrap_ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init);
int __wrap_ibv_destroy_qp(struct ibv_qp *qp);
struct ibv_ah *__wrap_ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int __wrap_ibv_destroy_ah(struct ibv_ah *ah);
int __wrap_ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event);
void __wrap_ibv_ack_async_event(struct ibv_async_event *event);

struct ibv_device **__wrap_ibv_get_device_list(int *num)
{
	if (fail_create) {
		errno = ENOSYS;
		return NULL;
	}
	*num = 2;
	return real_list;
}

void __wrap_ibv_free_device_list(struct ibv_device **list)
{
	freed_list = list;
}

static void *made(void *obj)
{
	if (fail_create) {
		errno = EINVAL;
		return NULL;
	}
	return obj;
}

struct ibv_context *__wrap_ibv_open_device(struct ibv_device *dev)
{
	ck_assert_ptr_eq(dev, &real_devs[1]);
	return made(&real_ctx);
}

int __wrap_ibv_close_device(struct ibv_context *ctx)
{
	ck_assert_ptr_eq(ctx, &real_ctx);
	return destroy_ret;
}

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx)
{
	ck_assert_ptr_eq(ctx, &real_ctx);
	return made(&real_pd);
}

int __wrap_ibv_dealloc_pd(struct ibv_pd *pd)
{
	ck_assert_ptr_eq(pd, &real_pd);
	return destroy_ret;
}

struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	ck_assert_ptr_eq(pd, &real_pd);
	ck_assert_ptr_eq(addr, (void *)0x1000);
	ck_assert_uint_eq(len, 4096);
	ck_assert_int_eq(access, IBV_ACCESS_LOCAL_WRITE);
	return made(&real_mr);
}

int __wrap_ibv_dereg_mr(struct ibv_mr *mr)
{
	ck_assert_ptr_eq(mr, &real_mr);
	return destroy_ret;
}

struct ibv_cq *__wrap_ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int vector)
{
	ck_assert_ptr_eq(ctx, &real_ctx);
	ck_assert_int_eq(cqe, 10);
	ck_assert_ptr_eq(channel, (void *)0x77);
	ck_assert_int_eq(vector, 3);
	real_cq.context = ctx;
	real_cq.cq_context = cq_context;
	real_cq.cqe = 15;		/* more than asked */
	return made(&real_cq);
}

int __wrap_ibv_destroy_cq(struct ibv_cq *cq)
{
	ck_assert_ptr_eq(cq, &real_cq);
	return destroy_ret;
}

int __wrap_ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			    void **cq_context)
{
	ck_assert_ptr_eq(channel, (void *)0x77);
	*cq = &real_cq;
	*cq_context = real_cq.cq_context;
	return 0;
}

struct ibv_srq *__wrap_ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	ck_assert_ptr_eq(pd, &real_pd);
	real_srq.context = &real_ctx;
	real_srq.srq_context = attr->srq_context;
	return made(&real_srq);
}

int __wrap_ibv_destroy_srq(struct ibv_srq *srq)
{
	ck_assert_ptr_eq(srq, &real_srq);
	return destroy_ret;
}

struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	ck_assert_ptr_eq(pd, &real_pd);
	create_qp_got = *attr;
	attr->cap.max_send_wr = 31;	/* what the provider grants */
	attr->cap.max_inline_data = 64;
	real_qp = (struct ibv_qp){
		.context = &real_ctx, .qp_context = attr->qp_context, .pd = pd,
		.send_cq = attr->send_cq, .recv_cq = attr->recv_cq, .srq = attr->srq,
		.qp_num = 0x1234, .qp_type = attr->qp_type,
	};
	return made(&real_qp);
}

int __wrap_ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init)
{
	ck_assert_ptr_eq(qp, &real_qp);
	ck_assert_int_eq(mask, IBV_QP_STATE);
	attr->qp_state = IBV_QPS_RTS;
	*init = (struct ibv_qp_init_attr){
		.qp_context = qp->qp_context, .send_cq = qp->send_cq, .recv_cq = qp->recv_cq,
		.srq = qp->srq, .cap = { .max_send_wr = 31 }, .qp_type = qp->qp_type,
		.sq_sig_all = 1,
	};
	return 0;
}

int __wrap_ibv_destroy_qp(struct ibv_qp *qp)
{
	ck_assert_ptr_eq(qp, &real_qp);
	return destroy_ret;
}

struct ibv_ah *__wrap_ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	ck_assert_ptr_eq(pd, &real_pd);
	ck_assert_uint_eq(attr->dlid, 5);
	return made(&real_ah);
}

int __wrap_ibv_destroy_ah(struct ibv_ah *ah)
{
	ck_assert_ptr_eq(ah, &real_ah);
	return destroy_ret;
}

int __wrap_ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	ck_assert_ptr_eq(ctx, &real_ctx);
	*event = next_event;
	return 0;
}

void __wrap_ibv_ack_async_event(struct ibv_async_event *event)
{
	acked = *event;
}

/* ------------------------------------------------------------------ */
/* The real context's data path                                        */

enum { MAX_SEEN = 40 };
static struct ibv_send_wr seen_send[MAX_SEEN];
static struct ibv_recv_wr seen_recv[MAX_SEEN];
static int nseen, posts, fail_at = -1;	/* fail_at: index in the whole chain */
static void *post_target;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	post_target = qp;
	posts++;
	for (; wr; wr = wr->next) {
		ck_assert_int_lt(nseen, MAX_SEEN);
		if (nseen == fail_at) {
			*bad = wr;
			return ENOMEM;
		}
		seen_send[nseen++] = *wr;
	}
	return 0;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	post_target = qp;
	posts++;
	for (; wr; wr = wr->next) {
		ck_assert_int_lt(nseen, MAX_SEEN);
		if (nseen == fail_at) {
			*bad = wr;
			return EINVAL;
		}
		seen_recv[nseen++] = *wr;
	}
	return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	return fake_post_recv((struct ibv_qp *)(void *)srq, wr, bad);
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	ck_assert_ptr_eq(cq, &real_cq);
	wc[0].wr_id = 99;
	return n > 0;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	ck_assert_ptr_eq(cq, &real_cq);
	return solicited ? 7 : 0;
}

static void setup(void)
{
	for (int i = 0; i < 2; i++) {
		real_list[i] = &real_devs[i];
		snprintf(real_devs[i].name, sizeof(real_devs[i].name), "fake%d", i);
	}
	memset(&real_ctx, 0, sizeof(real_ctx));
	real_ctx.ops.post_send = fake_post_send;
	real_ctx.ops.post_recv = fake_post_recv;
	real_ctx.ops.post_srq_recv = fake_post_srq_recv;
	real_ctx.ops.poll_cq = fake_poll_cq;
	real_ctx.ops.req_notify_cq = fake_req_notify_cq;
	real_mr = (struct ibv_mr){ .context = &real_ctx, .pd = &real_pd, .lkey = 0x11, .rkey = 0x22 };
	destroy_ret = 0;
	fail_create = false;
	nseen = posts = 0;
	fail_at = -1;
}

/* ------------------------------------------------------------------ */
/* Helpers: a 1.0 context and its objects, as a 1.0 program makes them */

static struct ibv_device_1_0 **list;

static struct ibv_context_1_0 *open_1_0(void)
{
	struct ibv_context_1_0 *ctx;

	list = ibv_get_device_list_1_0(NULL);
	ck_assert_ptr_nonnull(list);
	ctx = ibv_open_device_1_0(list[1]);
	ck_assert_ptr_nonnull(ctx);
	return ctx;
}

static void close_1_0(struct ibv_context_1_0 *ctx)
{
	ck_assert_int_eq(ibv_close_device_1_0(ctx), 0);
	ibv_free_device_list_1_0(list);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

START_TEST(device_list_hides_the_real_one)
{
	int n = -1;
	struct ibv_device_1_0 **l = ibv_get_device_list_1_0(&n);

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_eq(l[-1], (void *)real_list);
	ck_assert_ptr_eq(l[0]->real_device, &real_devs[0]);
	ck_assert_ptr_eq(l[1]->real_device, &real_devs[1]);
	ck_assert_ptr_null(l[0]->obsolete_sysfs_dev);
	ck_assert_ptr_null(l[2]);
	ck_assert_str_eq(ibv_get_device_name_1_0(l[1]), "fake1");
	freed_list = NULL;
	ibv_free_device_list_1_0(l);
	ck_assert_ptr_eq(freed_list, real_list);

	fail_create = true;
	errno = 0;
	ck_assert_ptr_null(ibv_get_device_list_1_0(&n));
	ck_assert_int_eq(errno, ENOSYS);
}
END_TEST

START_TEST(context_fills_the_five_data_path_slots)
{
	struct ibv_context_1_0 *ctx = open_1_0();
	struct ibv_context_ops_1_0 none = { 0 }, ops = ctx->ops;

	ck_assert_ptr_eq(ctx->device, list[1]);
	ck_assert_ptr_eq(ctx->real_context, &real_ctx);
	ck_assert_ptr_nonnull(ops.poll_cq);
	ck_assert_ptr_nonnull(ops.req_notify_cq);
	ck_assert_ptr_nonnull(ops.post_srq_recv);
	ck_assert_ptr_nonnull(ops.post_send);
	ck_assert_ptr_nonnull(ops.post_recv);
	ops.poll_cq = NULL;
	ops.req_notify_cq = NULL;
	ops.post_srq_recv = NULL;
	ops.post_send = NULL;
	ops.post_recv = NULL;
	ck_assert(!memcmp(&ops, &none, sizeof(ops)));

	fail_create = true;
	ck_assert_ptr_null(ibv_open_device_1_0(list[1]));
	ck_assert_int_eq(errno, EINVAL);
	fail_create = false;

	/* a failing close keeps the wrapper: it is closed again below */
	destroy_ret = EBUSY;
	ck_assert_int_eq(ibv_close_device_1_0(ctx), EBUSY);
	destroy_ret = 0;
	close_1_0(ctx);
}
END_TEST

START_TEST(pd_and_mr_copy_their_keys)
{
	struct ibv_context_1_0 *ctx = open_1_0();
	struct ibv_pd_1_0 *pd = ibv_alloc_pd_1_0(ctx);
	struct ibv_mr_1_0 *mr;

	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_eq(pd->context, ctx);
	ck_assert_ptr_eq(pd->real_pd, &real_pd);
	mr = ibv_reg_mr_1_0(pd, (void *)0x1000, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_ptr_eq(mr->context, ctx);
	ck_assert_ptr_eq(mr->pd, pd);
	ck_assert_uint_eq(mr->lkey, 0x11);
	ck_assert_uint_eq(mr->rkey, 0x22);
	ck_assert_ptr_eq(mr->real_mr, &real_mr);
	destroy_ret = EBUSY;
	ck_assert_int_eq(ibv_dereg_mr_1_0(mr), EBUSY);
	ck_assert_int_eq(ibv_dealloc_pd_1_0(pd), EBUSY);
	destroy_ret = 0;
	ck_assert_int_eq(ibv_dereg_mr_1_0(mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd_1_0(pd), 0);
	close_1_0(ctx);
}
END_TEST

START_TEST(cq_events_name_the_wrapper)
{
	struct ibv_context_1_0 *ctx = open_1_0();
	struct ibv_cq_1_0 *cq, *got_cq;
	void *got_ctx;
	struct ibv_wc wc;

	cq = ibv_create_cq_1_0(ctx, 10, (void *)0xc0ffee, (void *)0x77, 3);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_eq(cq->context, ctx);
	ck_assert_ptr_eq(cq->cq_context, (void *)0xc0ffee);
	ck_assert_int_eq(cq->cqe, 10);		/* asked, not granted */
	ck_assert_ptr_eq(cq->real_cq, &real_cq);
	ck_assert_ptr_eq(real_cq.cq_context, cq);

	ck_assert_int_eq(ibv_get_cq_event_1_0((void *)0x77, &got_cq, &got_ctx), 0);
	ck_assert_ptr_eq(got_cq, cq);
	ck_assert_ptr_eq(got_ctx, (void *)0xc0ffee);

	/* what an old inline call reaches */
	ck_assert_int_eq(cq->context->ops.poll_cq(cq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 99);
	ck_assert_int_eq(cq->context->ops.req_notify_cq(cq, 1), 7);

	destroy_ret = EBUSY;
	ck_assert_int_eq(ibv_destroy_cq_1_0(cq), EBUSY);
	destroy_ret = 0;
	ck_assert_int_eq(ibv_destroy_cq_1_0(cq), 0);
	close_1_0(ctx);
}
END_TEST

/* A 1.0 context with a PD and a CQ: what the QP tests stand on. */
struct rig {
	struct ibv_context_1_0 *ctx;
	struct ibv_pd_1_0 *pd;
	struct ibv_cq_1_0 *cq;
};

static struct rig rig_open(void)
{
	struct rig r = { .ctx = open_1_0() };

	r.pd = ibv_alloc_pd_1_0(r.ctx);
	ck_assert_ptr_nonnull(r.pd);
	r.cq = ibv_create_cq_1_0(r.ctx, 10, NULL, (void *)0x77, 3);
	ck_assert_ptr_nonnull(r.cq);
	return r;
}

static void rig_close(const struct rig *r)
{
	ck_assert_int_eq(ibv_destroy_cq_1_0(r->cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd_1_0(r->pd), 0);
	close_1_0(r->ctx);
}

START_TEST(qp_converts_its_init_attr_both_ways)
{
	struct rig r = rig_open();
	struct ibv_srq_init_attr srq_attr = { .srq_context = (void *)0x5e };
	struct ibv_srq_1_0 *srq = ibv_create_srq_1_0(r.pd, &srq_attr);
	struct ibv_qp_init_attr_1_0 attr = {
		.qp_context = (void *)0xabc, .send_cq = r.cq, .recv_cq = r.cq,
		.srq = _i ? srq : NULL,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1 },
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
	};
	struct ibv_qp_init_attr_1_0 init;
	struct ibv_qp_attr qattr;
	struct ibv_qp_1_0 *qp;

	ck_assert_ptr_nonnull(srq);
	ck_assert_ptr_eq(srq->srq_context, (void *)0x5e);
	ck_assert_ptr_eq(real_srq.srq_context, srq);
	qp = ibv_create_qp_1_0(r.pd, &attr);
	ck_assert_ptr_nonnull(qp);
	ck_assert_ptr_eq(create_qp_got.send_cq, &real_cq);
	ck_assert_ptr_eq(create_qp_got.recv_cq, &real_cq);
	ck_assert_ptr_eq(create_qp_got.srq, _i ? &real_srq : NULL);
	ck_assert_ptr_eq(create_qp_got.qp_context, (void *)0xabc);
	ck_assert_int_eq(create_qp_got.qp_type, IBV_QPT_RC);
	ck_assert_int_eq(create_qp_got.sq_sig_all, 1);
	ck_assert_uint_eq(attr.cap.max_send_wr, 31);	/* the grant comes back */
	ck_assert_uint_eq(attr.cap.max_inline_data, 64);
	ck_assert_ptr_eq(qp->context, r.ctx);
	ck_assert_ptr_eq(qp->pd, r.pd);
	ck_assert_ptr_eq(qp->send_cq, r.cq);
	ck_assert_ptr_eq(qp->srq, attr.srq);
	ck_assert_ptr_eq(qp->qp_context, (void *)0xabc);
	ck_assert_uint_eq(qp->qp_num, 0x1234);
	ck_assert_int_eq(qp->qp_type, IBV_QPT_RC);
	ck_assert_ptr_eq(real_qp.qp_context, qp);

	/* without an SRQ, upstream's twin crashes here; ours says NULL */
	memset(&init, 0xa5, sizeof(init));
	ck_assert_int_eq(ibv_query_qp_1_0(qp, &qattr, IBV_QP_STATE, &init), 0);
	ck_assert_int_eq(qattr.qp_state, IBV_QPS_RTS);
	ck_assert_ptr_eq(init.qp_context, (void *)0xabc);
	ck_assert_ptr_eq(init.send_cq, r.cq);
	ck_assert_ptr_eq(init.recv_cq, r.cq);
	ck_assert_ptr_eq(init.srq, attr.srq);
	ck_assert_uint_eq(init.cap.max_send_wr, 31);
	ck_assert_int_eq(init.qp_type, IBV_QPT_RC);
	ck_assert_int_eq(init.sq_sig_all, 1);

	ck_assert_int_eq(ibv_destroy_qp_1_0(qp), 0);
	ck_assert_int_eq(ibv_destroy_srq_1_0(srq), 0);
	rig_close(&r);
}
END_TEST

START_TEST(async_events_map_to_wrappers_and_back)
{
	static const struct {
		enum ibv_event_type type;
		int kind;		/* 0 port, 1 cq, 2 qp, 3 srq */
	} events[] = {
		{ IBV_EVENT_CQ_ERR, 1 }, { IBV_EVENT_QP_FATAL, 2 }, { IBV_EVENT_QP_REQ_ERR, 2 },
		{ IBV_EVENT_QP_ACCESS_ERR, 2 }, { IBV_EVENT_COMM_EST, 2 },
		{ IBV_EVENT_SQ_DRAINED, 2 }, { IBV_EVENT_PATH_MIG, 2 },
		{ IBV_EVENT_PATH_MIG_ERR, 2 }, { IBV_EVENT_QP_LAST_WQE_REACHED, 2 },
		{ IBV_EVENT_SRQ_ERR, 3 }, { IBV_EVENT_SRQ_LIMIT_REACHED, 3 },
		{ IBV_EVENT_PORT_ACTIVE, 0 }, { IBV_EVENT_LID_CHANGE, 0 },
	};
	struct rig r = rig_open();
	struct ibv_srq_init_attr srq_attr = { 0 };
	struct ibv_srq_1_0 *srq = ibv_create_srq_1_0(r.pd, &srq_attr);
	struct ibv_qp_init_attr_1_0 attr = { .send_cq = r.cq, .recv_cq = r.cq, .qp_type = IBV_QPT_RC };
	struct ibv_qp_1_0 *qp = ibv_create_qp_1_0(r.pd, &attr);

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		void *reals[] = { (void *)(uintptr_t)1, &real_cq, &real_qp, &real_srq };
		void *wrappers[] = { (void *)(uintptr_t)1, r.cq, qp, srq };
		struct ibv_async_event ev;

		next_event.event_type = events[i].type;
		next_event.element.cq = reals[events[i].kind];
		ck_assert_int_eq(ibv_get_async_event_1_0(r.ctx, &ev), 0);
		ck_assert_int_eq(ev.event_type, events[i].type);
		ck_assert_ptr_eq(ev.element.cq, wrappers[events[i].kind]);
		memset(&acked, 0, sizeof(acked));
		ibv_ack_async_event_1_0(&ev);
		ck_assert_int_eq(acked.event_type, events[i].type);
		ck_assert_ptr_eq(acked.element.cq, reals[events[i].kind]);
	}
	ck_assert_int_eq(ibv_destroy_qp_1_0(qp), 0);
	ck_assert_int_eq(ibv_destroy_srq_1_0(srq), 0);
	rig_close(&r);
}
END_TEST

enum { CHAIN = COMPAT_1_0_WR_BATCH + 4 };	/* more than one batch */

static struct ibv_qp_1_0 *make_qp(const struct rig *r, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr_1_0 attr = { .send_cq = r->cq, .recv_cq = r->cq, .qp_type = type };
	struct ibv_qp_1_0 *qp = ibv_create_qp_1_0(r->pd, &attr);

	ck_assert_ptr_nonnull(qp);
	return qp;
}

START_TEST(send_requests_keep_order_and_fields)
{
	struct rig r = rig_open();
	struct ibv_qp_1_0 *qp = make_qp(&r, IBV_QPT_RC);
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 0x11 };
	struct ibv_send_wr_1_0 wrs[CHAIN], *bad = NULL;

	for (int i = 0; i < CHAIN; i++)
		wrs[i] = (struct ibv_send_wr_1_0){
			.next = i + 1 < CHAIN ? &wrs[i + 1] : NULL, .wr_id = 100 + i,
			.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(i),
			.wr.rdma = { .remote_addr = 0x2000 + i, .rkey = 0x33 },
		};
	ck_assert_int_eq(qp->context->ops.post_send(qp, wrs, &bad), 0);
	ck_assert_ptr_eq(post_target, &real_qp);
	ck_assert_int_eq(posts, 2);	/* one batch in full, then the rest */
	ck_assert_int_eq(nseen, CHAIN);
	for (int i = 0; i < CHAIN; i++) {
		ck_assert_uint_eq(seen_send[i].wr_id, 100 + i);
		ck_assert_ptr_eq(seen_send[i].sg_list, &sge);
		ck_assert_int_eq(seen_send[i].num_sge, 1);
		ck_assert_int_eq(seen_send[i].opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
		ck_assert_uint_eq(seen_send[i].send_flags, IBV_SEND_SIGNALED);
		ck_assert_uint_eq(seen_send[i].imm_data, htobe32(i));
		ck_assert_uint_eq(seen_send[i].wr.rdma.remote_addr, 0x2000 + i);
		ck_assert_uint_eq(seen_send[i].wr.rdma.rkey, 0x33);
		ck_assert_uint_eq(seen_send[i].qp_type.xrc.remote_srqn, 0);
	}

	/* a refusal in the second batch names the 1.0 request */
	nseen = posts = 0;
	fail_at = COMPAT_1_0_WR_BATCH + 1;
	ck_assert_int_eq(qp->context->ops.post_send(qp, wrs, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wrs[COMPAT_1_0_WR_BATCH + 1]);
	fail_at = 3;
	nseen = 0;
	ck_assert_int_eq(qp->context->ops.post_send(qp, wrs, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wrs[3]);

	ck_assert_int_eq(ibv_destroy_qp_1_0(qp), 0);
	rig_close(&r);
}
END_TEST

START_TEST(ud_sends_carry_the_real_ah)
{
	struct rig r = rig_open();
	struct ibv_qp_1_0 *qp = make_qp(&r, IBV_QPT_UD);
	struct ibv_ah_attr ah_attr = { .dlid = 5, .port_num = 1 };
	struct ibv_ah_1_0 *ah = ibv_create_ah_1_0(r.pd, &ah_attr);
	struct ibv_send_wr_1_0 wr = {
		.wr_id = 1, .opcode = IBV_WR_SEND,
		.wr.ud = { .ah = ah, .remote_qpn = 0x99, .remote_qkey = 0x11111111 },
	}, *bad;

	ck_assert_ptr_nonnull(ah);
	ck_assert_ptr_eq(ah->context, r.ctx);
	ck_assert_ptr_eq(ah->pd, r.pd);
	ck_assert_ptr_eq(ah->real_ah, &real_ah);
	ck_assert_int_eq(qp->context->ops.post_send(qp, &wr, &bad), 0);
	ck_assert_int_eq(nseen, 1);
	ck_assert_ptr_eq(seen_send[0].wr.ud.ah, &real_ah);
	ck_assert_uint_eq(seen_send[0].wr.ud.remote_qpn, 0x99);
	ck_assert_uint_eq(seen_send[0].wr.ud.remote_qkey, 0x11111111);
	ck_assert_ptr_null(seen_send[0].next);

	ck_assert_int_eq(ibv_destroy_ah_1_0(ah), 0);
	ck_assert_int_eq(ibv_destroy_qp_1_0(qp), 0);
	rig_close(&r);
}
END_TEST

START_TEST(receive_requests_reach_qp_and_srq)
{
	struct rig r = rig_open();
	struct ibv_qp_1_0 *qp = make_qp(&r, IBV_QPT_RC);
	struct ibv_srq_init_attr srq_attr = { 0 };
	struct ibv_srq_1_0 *srq = ibv_create_srq_1_0(r.pd, &srq_attr);
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 0x11 };
	struct ibv_recv_wr_1_0 wrs[CHAIN], *bad = NULL;

	for (int i = 0; i < CHAIN; i++)
		wrs[i] = (struct ibv_recv_wr_1_0){
			.next = i + 1 < CHAIN ? &wrs[i + 1] : NULL, .wr_id = 200 + i,
			.sg_list = &sge, .num_sge = 1,
		};
	ck_assert_int_eq(qp->context->ops.post_recv(qp, wrs, &bad), 0);
	ck_assert_ptr_eq(post_target, &real_qp);
	ck_assert_int_eq(nseen, CHAIN);
	for (int i = 0; i < CHAIN; i++) {
		ck_assert_uint_eq(seen_recv[i].wr_id, 200 + i);
		ck_assert_ptr_eq(seen_recv[i].sg_list, &sge);
		ck_assert_int_eq(seen_recv[i].num_sge, 1);
	}
	nseen = 0;
	ck_assert_int_eq(srq->context->ops.post_srq_recv(srq, wrs, &bad), 0);
	ck_assert_ptr_eq(post_target, &real_srq);
	ck_assert_int_eq(nseen, CHAIN);

	nseen = 0;
	fail_at = 16;
	ck_assert_int_eq(qp->context->ops.post_recv(qp, wrs, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wrs[16]);
	nseen = 0;
	fail_at = 0;
	ck_assert_int_eq(srq->context->ops.post_srq_recv(srq, wrs, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wrs[0]);

	ck_assert_int_eq(ibv_destroy_srq_1_0(srq), 0);
	ck_assert_int_eq(ibv_destroy_qp_1_0(qp), 0);
	rig_close(&r);
}
END_TEST

START_TEST(failed_creates_leave_nothing)
{
	struct rig r = rig_open();
	struct ibv_qp_init_attr_1_0 qp_attr = { .send_cq = r.cq, .recv_cq = r.cq, .qp_type = IBV_QPT_RC };
	struct ibv_srq_init_attr srq_attr = { 0 };
	struct ibv_ah_attr ah_attr = { .dlid = 5 };

	fail_create = true;
	ck_assert_ptr_null(ibv_alloc_pd_1_0(r.ctx));
	ck_assert_ptr_null(ibv_reg_mr_1_0(r.pd, (void *)0x1000, 4096, IBV_ACCESS_LOCAL_WRITE));
	ck_assert_ptr_null(ibv_create_cq_1_0(r.ctx, 10, NULL, (void *)0x77, 3));
	ck_assert_ptr_null(ibv_create_srq_1_0(r.pd, &srq_attr));
	ck_assert_ptr_null(ibv_create_qp_1_0(r.pd, &qp_attr));
	ck_assert_ptr_null(ibv_create_ah_1_0(r.pd, &ah_attr));
	ck_assert_int_eq(errno, EINVAL);
	fail_create = false;

	rig_close(&r);
}
END_TEST

START_TEST(register_driver_is_accepted_and_ignored)
{
	ibv_register_driver_1_1("usnic", NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compat_1_0");
	TCase *tc = tcase_create("shims");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, device_list_hides_the_real_one);
	tcase_add_test(tc, context_fills_the_five_data_path_slots);
	tcase_add_test(tc, pd_and_mr_copy_their_keys);
	tcase_add_test(tc, cq_events_name_the_wrapper);
	tcase_add_loop_test(tc, qp_converts_its_init_attr_both_ways, 0, 2);
	tcase_add_test(tc, async_events_map_to_wrappers_and_back);
	tcase_add_test(tc, send_requests_keep_order_and_fields);
	tcase_add_test(tc, ud_sends_carry_the_real_ah);
	tcase_add_test(tc, receive_requests_reach_qp_and_srq);
	tcase_add_test(tc, failed_creates_leave_nothing);
	tcase_add_test(tc, register_driver_is_accepted_and_ignored);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
