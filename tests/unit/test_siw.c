/* SPDX-License-Identifier: MIT */
/*
 * The siw provider against a fake kernel driver: the commands it sends,
 * and the exact contents of the queues it shares with the kernel.
 *
 * The shared fake kernel (unit.h) answers siw's own commands the way siw
 * does: element counts and mmap keys in the driver response.
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../../providers/siw/siw.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* The fake kernel                                                     */

enum { KMEM_SIZE = 4 << 20, PAGE = FAKE_PAGE, NUM = 8 };

static size_t reg_mr_in, reg_mr_out;	/* driver data lengths seen */

/*
 * The kernel's side of the last QP's send queue, as siw runs it: it walks
 * the queue in order from its own position, taking an element when its
 * flags say VALID (copying it and clearing the flags) and stopping at the
 * first one that is not.  The doorbell (an empty post_send) answers as
 * the QP's state makes it.
 */
enum kernel_sq {
	K_IDLE,		/* not connected: refuses (ENOTCONN), walks nothing */
	K_IDLE_CLOSING,	/* a connection attempt failing meanwhile: refuses,
			 * and its teardown flushes what is VALID */
	K_RTS,		/* accepts and sends everything VALID */
	K_RTS_BUSY,	/* accepts, but a transmit in progress holds the walk */
	K_LEAVING_RTS,	/* refuses: the state lock is held for a transition,
			 * while the transmit in progress pulls one more */
};
static enum kernel_sq ksq_state;
static uint64_t ksq_key;	/* the last QP's send queue in kernel memory */
static uint32_t ksq_get;	/* the kernel's position in it */
static uint64_t ktaken[4 * NUM];	/* wr_ids the kernel took, in order */
static int nktaken;
static int kflushed;		/* of those, completed with a flush error */
static int doorbells;
static int refused_with_sqes;	/* refusals while a VALID element was there */

/* A modify command can be held in the kernel (as a state transition
 * holds the QP's state lock) until the test lets it go. */
static uint32_t hold_cmd;	/* the command to hold, or 0 */
static sem_t held, release;
static _Atomic bool in_modify;
static _Atomic int doorbells_in_modify;

static struct siw_sqe *ksqe(uint32_t i)
{
	return &((struct siw_sqe *)(fake_kernel.mem + ksq_key))[i % NUM];
}

/* Takes the element at the kernel's position if it is VALID. */
static bool kernel_take(void)
{
	struct siw_sqe *s = ksqe(ksq_get);

	if (!(__atomic_load_n(&s->flags, __ATOMIC_ACQUIRE) & SIW_WQE_VALID))
		return false;
	ck_assert_int_lt(nktaken, (int)(sizeof(ktaken) / sizeof(ktaken[0])));
	ktaken[nktaken++] = s->id;
	__atomic_store_n(&s->flags, 0, __ATOMIC_SEQ_CST);
	ksq_get++;
	return true;
}

static void kernel_walk(void)
{
	while (kernel_take())
		;
}

/* A send queue flush on the way to ERROR also completes each element
 * (on the CQ, with IBV_WC_WR_FLUSH_ERR). */
static void kernel_flush(void)
{
	int before = nktaken;

	kernel_walk();
	kflushed += nktaken - before;
}

static int kernel_doorbell(void)
{
	int before = nktaken;

	doorbells++;
	if (in_modify) {
		doorbells_in_modify++;
		return ENOTCONN;
	}
	switch (ksq_state) {
	case K_RTS:
		kernel_walk();
		return 0;
	case K_RTS_BUSY:
		return 0;
	case K_LEAVING_RTS:
		kernel_take();
		break;
	case K_IDLE_CLOSING:
		kernel_flush();
		break;
	case K_IDLE:
		break;
	}
	if (nktaken > before || ksqe(ksq_get)->flags & SIW_WQE_VALID)
		refused_with_sqes++;
	return ENOTCONN;
}

static int siw_kernel_cmd(const struct fake_cmd *c)
{
	void *req = c->req, *resp = c->resp;

	switch (c->number) {
	case IB_USER_VERBS_CMD_REG_MR: {
		struct ib_uverbs_reg_mr_resp *r = resp;

		reg_mr_in = c->req_len - sizeof(struct ib_uverbs_reg_mr);
		reg_mr_out = c->resp_len - sizeof(*r);
		r->mr_handle = fake_kernel_handle();
		r->lkey = r->rkey = 0x4200;
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		struct ib_uverbs_create_cq_resp *r = resp;
		struct siw_uresp_create_cq *d = (void *)(r + 1);

		r->cq_handle = fake_kernel_handle();
		r->cqe = NUM;
		d->num_cqe = NUM;
		d->cq_key = fake_kernel_alloc(NUM * sizeof(struct siw_cqe) + sizeof(struct siw_cq_ctrl));
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_QP: {
		struct ib_uverbs_create_qp *q = req;
		struct ib_uverbs_create_qp_resp *r = resp;
		struct siw_uresp_create_qp *d = (void *)(r + 1);

		r->qp_handle = fake_kernel_handle();
		r->qpn = 0x40 + r->qp_handle;
		r->max_send_wr = NUM;
		r->max_send_sge = SIW_MAX_SGE;
		r->max_inline_data = SIW_MAX_INLINE;
		d->num_sqe = NUM;
		d->sq_key = ksq_key = fake_kernel_alloc(NUM * sizeof(struct siw_sqe));
		ksq_get = 0;
		d->rq_key = SIW_INVAL_UOBJ_KEY;
		if (!q->is_srq) {
			r->max_recv_wr = NUM;
			r->max_recv_sge = SIW_MAX_SGE;
			d->num_rqe = NUM;
			d->rq_key = fake_kernel_alloc(NUM * sizeof(struct siw_rqe));
		}
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_SRQ: {
		struct ib_uverbs_create_srq_resp *r = resp;
		struct siw_uresp_create_srq *d = (void *)(r + 1);

		r->srq_handle = fake_kernel_handle();
		r->max_wr = NUM;
		r->max_sge = SIW_MAX_SGE;
		d->num_rqe = NUM;
		d->srq_key = fake_kernel_alloc(NUM * sizeof(struct siw_rqe));
		break;
	}
	case IB_USER_VERBS_CMD_MODIFY_QP:
	case IB_USER_VERBS_CMD_MODIFY_SRQ:
		if (c->number == hold_cmd) {
			in_modify = true;
			sem_post(&held);
			sem_wait(&release);
			in_modify = false;
		}
		break;
	case IB_USER_VERBS_CMD_POST_SEND:
		ck_assert_uint_eq(((struct ib_uverbs_post_send *)req)->wr_count, 0);
		return kernel_doorbell();
	default:
		break;
	}
	return 0;
}

static const struct fake_driver siw_kernel = {
	.provider = "siw",
	.mem_size = KMEM_SIZE,
	/* siw insists on room for its response */
	.context_resp_len = sizeof(struct siw_uresp_alloc_ctx),
	.cmd = siw_kernel_cmd,
};

/* ------------------------------------------------------------------ */
/* Fixture: a siw context, a PD, a CQ and a QP over the fake kernel     */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;

static struct ibv_qp *new_qp(struct ibv_srq *srq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = { .max_send_wr = NUM, .max_recv_wr = NUM, .max_send_sge = SIW_MAX_SGE,
			 .max_recv_sge = SIW_MAX_SGE },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *q = ibv_create_qp(pd, &attr);

	ck_assert_ptr_nonnull(q);
	return q;
}

static void set_state(struct ibv_qp *q, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	ck_assert_int_eq(ibv_modify_qp(q, &attr, IBV_QP_STATE), 0);
}

/* A QP as rdma_create_qp() hands it over: in INIT, where rdma_cm later
 * moves it to RTS inside the kernel. */
static struct ibv_qp *new_init_qp(struct ibv_srq *srq)
{
	struct ibv_qp *q = new_qp(srq);

	set_state(q, IBV_QPS_INIT);
	return q;
}

static void setup(void)
{
	struct verbs_sysfs_dev sysfs = {
		.ibdev_name = "siw0",
		.driver_id = RDMA_DRIVER_SIW,
		.abi_ver = SIW_ABI_VERSION,
	};

	fake_kernel_start(&siw_kernel);
	doorbells = 0;
	ksq_state = K_RTS_BUSY;
	nktaken = kflushed = refused_with_sqes = 0;
	hold_cmd = 0;
	doorbells_in_modify = 0;
	ck_assert_int_eq(sem_init(&held, 0, 0), 0);
	ck_assert_int_eq(sem_init(&release, 0, 0), 0);
	ctx = fake_kernel_open(&sysfs);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = ibv_create_cq(ctx, NUM, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	qp = new_init_qp(NULL);
}

static void teardown(void)
{
	sem_destroy(&held);
	sem_destroy(&release);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	fake_kernel_close(ctx);
}

static struct siw_sqe *sqe(uint32_t i)
{
	return &((struct siw_sqe *)to_sqp(qp)->sq.queue)[i];
}

static struct siw_rqe *rqe(uint32_t i)
{
	return &((struct siw_rqe *)to_sqp(qp)->rq.queue)[i];
}

/* A queue the kernel did not make has the invalid key.  (This also
 * links siw.c into the test: the provider is otherwise reached only
 * through its registration section.) */
START_TEST(map_refuses_missing_queue)
{
	void *q = NULL;

	ck_assert_int_eq(siw_map(fake_kernel.fd, SIW_INVAL_UOBJ_KEY, PAGE, &q), EPROTO);
	ck_assert_int_eq(siw_map(fake_kernel.fd, PAGE, 0, &q), EPROTO);
	ck_assert_ptr_null(q);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Sending                                                             */

START_TEST(post_send_encodes)
{
	char a[16] = "inline, part 1.", b[8] = "part 2.";
	struct ibv_sge sges[2] = { { (uintptr_t)a, sizeof(a), 7 }, { (uintptr_t)b, sizeof(b), 8 } };
	struct ibv_send_wr write = {
		.wr_id = 2, .sg_list = sges, .num_sge = 2, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_FENCE,
		.wr.rdma = { .remote_addr = 0x1000, .rkey = 0x99 },
	};
	struct ibv_send_wr inv = {
		.wr_id = 3, .sg_list = sges, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_INV,
		.invalidate_rkey = 0x77, .next = &write,
	};
	struct ibv_send_wr send = {
		.wr_id = 1, .sg_list = sges, .num_sge = 2, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED, .next = &inv,
	}, *bad = NULL;

	/* the first post asks the kernel whether the QP is connected yet */
	ck_assert_int_eq(ibv_post_send(qp, &send, &bad), 0);
	ck_assert_int_eq(doorbells, 2);

	ck_assert_uint_eq(sqe(0)->id, 1);
	ck_assert_uint_eq(sqe(0)->opcode, SIW_OP_SEND);
	ck_assert_uint_eq(sqe(0)->flags, SIW_WQE_VALID | SIW_WQE_SIGNALLED | SIW_WQE_SOLICITED);
	ck_assert_uint_eq(sqe(0)->num_sge, 2);
	ck_assert_uint_eq(sqe(0)->sge[1].laddr, (uintptr_t)b);
	ck_assert_uint_eq(sqe(0)->sge[1].length, sizeof(b));
	ck_assert_uint_eq(sqe(0)->sge[1].lkey, 8);

	ck_assert_uint_eq(sqe(1)->opcode, SIW_OP_SEND_REMOTE_INV);
	ck_assert_uint_eq(sqe(1)->rkey, 0x77);
	ck_assert_uint_eq(sqe(1)->flags, SIW_WQE_VALID);

	/* inline: one SGE giving the length, the bytes where sge[1] was */
	ck_assert_uint_eq(sqe(2)->opcode, SIW_OP_WRITE);
	ck_assert_uint_eq(sqe(2)->flags, SIW_WQE_VALID | SIW_WQE_INLINE | SIW_WQE_READ_FENCE);
	ck_assert_uint_eq(sqe(2)->raddr, 0x1000);
	ck_assert_uint_eq(sqe(2)->rkey, 0x99);
	ck_assert_uint_eq(sqe(2)->num_sge, 1);
	ck_assert_uint_eq(sqe(2)->sge[0].length, sizeof(a) + sizeof(b));
	ck_assert_mem_eq(&sqe(2)->sge[1], a, sizeof(a));
	ck_assert_mem_eq((char *)&sqe(2)->sge[1] + sizeof(a), b, sizeof(b));
}
END_TEST

START_TEST(post_send_refusals)
{
	char big[SIW_MAX_INLINE + 1];
	struct ibv_sge sge[2] = { { (uintptr_t)big, 8, 1 }, { (uintptr_t)big, 8, 1 } };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = sge, .num_sge = 1 }, *bad;
	static const enum ibv_wr_opcode refused[] = {
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_TSO,
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		wr.opcode = refused[i];
		bad = NULL;
		ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
		ck_assert_ptr_eq(bad, &wr);
	}
	/* one target SGE for reads */
	wr.opcode = IBV_WR_RDMA_READ;
	wr.num_sge = 2;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	/* more inline bytes than the element holds */
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_INLINE;
	sge[0].length = sizeof(big);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.num_sge = SIW_MAX_SGE + 1;
	wr.send_flags = 0;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_int_eq(doorbells, 0);
	ck_assert_uint_eq(sqe(0)->flags, 0);
}
END_TEST

/* The kernel refuses some elements only when it takes them: it then
 * leaves them VALID at the head of the queue and fails every later
 * doorbell, so nothing after them is ever sent.  Those are a fenced READ
 * and inline data for anything but SEND and RDMA WRITE (ignoring the
 * inline flag instead would let the caller reuse a buffer the kernel has
 * yet to read).  And a READ without a target SGE is run with the
 * element's first SGE all the same, which must not be a stale one. */
START_TEST(post_send_guards_the_kernel)
{
	char buf[8];
	struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), 1 };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_FENCE;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_INLINE;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_uint_eq(sqe(0)->flags, 0);
	ck_assert_int_eq(doorbells, 0);

	sqe(0)->sge[0] = (struct siw_sge){ .laddr = 0xdead, .length = 99, .lkey = 5 };
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = 0;
	wr.num_sge = 0;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	ck_assert_uint_eq(sqe(0)->opcode, SIW_OP_READ);
	ck_assert_uint_eq(sqe(0)->sge[0].laddr, 0);
	ck_assert_uint_eq(sqe(0)->sge[0].length, 0);
	ck_assert_uint_eq(sqe(0)->sge[0].lkey, 0);
}
END_TEST

/* A slot the kernel has not given back ends the list there; what came
 * before is posted and rung. */
START_TEST(post_send_full)
{
	struct ibv_send_wr wr[3] = {}, *bad;

	for (int i = 0; i < 3; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	sqe(1)->flags = SIW_WQE_VALID;
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[1]);
	ck_assert_int_eq(doorbells, 2);
	ck_assert_uint_eq(sqe(0)->flags, SIW_WQE_VALID);
	ck_assert_uint_eq(sqe(0)->id, 0);
}
END_TEST

/* Before rdma_cm connects the QP the kernel refuses the doorbell, and a
 * connection attempt failing meanwhile flushes whatever its teardown finds
 * VALID.  So nothing may be VALID when the kernel refuses: the post fails
 * whole, no request of it completes anyway, and the next post starts at
 * the same element. */
START_TEST(post_send_not_connected)
{
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 1, .opcode = IBV_WR_SEND, .next = &wr[1] },
		{ .wr_id = 2, .opcode = IBV_WR_SEND },
	}, *bad = NULL;

	ksq_state = K_IDLE_CLOSING;
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOTCONN);
	ck_assert_ptr_eq(bad, &wr[0]);
	ck_assert_int_eq(refused_with_sqes, 0);
	ck_assert_int_eq(kflushed, 0);
	ck_assert_uint_eq(sqe(0)->flags, 0);
	ck_assert_uint_eq(sqe(1)->flags, 0);
	ksq_state = K_RTS;
	ck_assert_int_eq(ibv_post_send(qp, &wr[1], &bad), 0);
	ck_assert_int_eq(nktaken, 1);
	ck_assert_uint_eq(ktaken[0], 2);
}
END_TEST

/* Once the kernel has accepted a doorbell the QP is connected, and a
 * transmit may walk the queue on its own: a later refusal (the state lock
 * held for a transition, say) cannot make what was written fail, since
 * part of it may be on the wire already.  It all stays handed over, the
 * refusal comes back with bad_wr NULL, and the queue positions stay in
 * step with the kernel's. */
START_TEST(post_send_refused_doorbell_hands_over)
{
	struct ibv_send_wr wr[4] = {
		{ .wr_id = 1, .opcode = IBV_WR_SEND },
		{ .wr_id = 2, .opcode = IBV_WR_SEND, .next = &wr[2] },
		{ .wr_id = 3, .opcode = IBV_WR_SEND },
		{ .wr_id = 4, .opcode = IBV_WR_SEND },
	}, *bad = NULL;

	ksq_state = K_RTS;
	ck_assert_int_eq(ibv_post_send(qp, &wr[0], &bad), 0);
	ksq_state = K_LEAVING_RTS;
	bad = &wr[0];
	ck_assert_int_eq(ibv_post_send(qp, &wr[1], &bad), ENOTCONN);
	ck_assert_ptr_null(bad);
	ck_assert_uint_eq(sqe(2)->flags, SIW_WQE_VALID);
	/* the transmit goes on, and later requests queue up behind */
	ksq_state = K_RTS;
	kernel_walk();
	ck_assert_int_eq(ibv_post_send(qp, &wr[3], &bad), 0);
	ck_assert_int_eq(nktaken, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(ktaken[i], i + 1);
}
END_TEST

/* A running transmit pulls the next VALID element when it finishes one:
 * a post whose elements follow one the kernel has not taken yet needs no
 * doorbell, one that follows a taken (or never used) element does, and
 * so does a post that filled the whole queue (the element before its
 * first is its own last). */
START_TEST(post_send_rings_only_for_an_idle_kernel)
{
	struct ibv_send_wr wr[NUM + 3] = {}, *bad = NULL;

	for (int i = 0; i < NUM + 3; i++) {
		wr[i].wr_id = i + 1;
		wr[i].opcode = IBV_WR_SEND;
	}
	ksq_state = K_RTS_BUSY;
	ck_assert_int_eq(ibv_post_send(qp, &wr[0], &bad), 0);
	ck_assert_int_eq(doorbells, 2);		/* is it connected; then ring */
	ck_assert_int_eq(ibv_post_send(qp, &wr[1], &bad), 0);
	ck_assert_int_eq(doorbells, 2);
	kernel_walk();
	ck_assert_int_eq(ibv_post_send(qp, &wr[2], &bad), 0);
	ck_assert_int_eq(doorbells, 3);
	kernel_walk();
	for (int i = 3; i < NUM + 2; i++)
		wr[i].next = &wr[i + 1];
	ck_assert_int_eq(ibv_post_send(qp, &wr[3], &bad), 0);
	ck_assert_int_eq(doorbells, 4);
	kernel_walk();
	ck_assert_int_eq(nktaken, NUM + 3);
	for (int i = 0; i < NUM + 3; i++)
		ck_assert_uint_eq(ktaken[i], i + 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Receiving                                                           */

START_TEST(post_recv_encodes)
{
	struct ibv_sge sge[2] = { { 0x1000, 64, 3 }, { 0x2000, 32, 4 } };
	struct ibv_recv_wr wr = { .wr_id = 5, .sg_list = sge, .num_sge = 2 }, *bad;
	struct ibv_srq_init_attr srq_attr = { .attr = { .max_wr = NUM, .max_sge = 1 } };
	struct ibv_srq *srq;
	struct ibv_qp *srq_qp;

	for (int i = 0; i < NUM; i++)
		ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	ck_assert_uint_eq(rqe(0)->id, 5);
	ck_assert_uint_eq(rqe(0)->num_sge, 2);
	ck_assert_uint_eq(rqe(0)->sge[1].laddr, 0x2000);
	ck_assert_uint_eq(rqe(0)->sge[1].lkey, 4);
	ck_assert_uint_eq(rqe(NUM - 1)->flags, SIW_WQE_VALID);
	/* full until the kernel clears an element */
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr);
	rqe(0)->flags = 0;
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
	ck_assert_int_eq(doorbells, 0);

	srq = ibv_create_srq(pd, &srq_attr);
	ck_assert_ptr_nonnull(srq);
	srq_qp = new_init_qp(srq);
	ck_assert_int_eq(ibv_post_recv(srq_qp, &wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
	ck_assert_uint_eq(((struct siw_rqe *)to_ssrq(srq)->rq.queue)[0].flags, SIW_WQE_VALID);
	ck_assert_int_eq(ibv_destroy_qp(srq_qp), 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Posts against the QP state                                          */

static int post_one_send(struct ibv_qp *q)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad = NULL;
	int ret = ibv_post_send(q, &wr, &bad);

	ck_assert_ptr_eq(bad, ret ? &wr : NULL);
	return ret;
}

static int post_one_recv(struct ibv_qp *q)
{
	struct ibv_recv_wr wr = { .wr_id = 2 }, *bad = NULL;
	int ret = ibv_post_recv(q, &wr, &bad);

	ck_assert_ptr_eq(bad, ret ? &wr : NULL);
	return ret;
}

/* Work requests are refused in RESET, as the verbs specification wants
 * (and upstream's rxe does).  From SQD, SQE and ERROR the kernel's siw
 * never comes back (they are its CLOSING, TERMINATE and ERROR), and it
 * flushed the queues, or dropped the connection, once, at the move: work
 * posted afterwards would never complete, so it is refused too.  INIT and
 * RTR take both kinds: rdma_cm moves a siw QP to RTS inside the kernel,
 * and the doorbell tells sends apart. */
START_TEST(posts_follow_qp_state)
{
	static const struct {
		enum ibv_qp_state state;
		int ret;
	} states[] = {
		{ IBV_QPS_INIT, 0 },
		{ IBV_QPS_RTR, 0 },
		{ IBV_QPS_RTS, 0 },
		{ IBV_QPS_RESET, EINVAL },
		{ IBV_QPS_SQD, EINVAL },
		{ IBV_QPS_SQE, EINVAL },
		{ IBV_QPS_ERR, EINVAL },
	};
	struct ibv_qp *fresh = new_qp(NULL);

	/* never modified: RESET */
	ck_assert_int_eq(post_one_recv(fresh), EINVAL);
	ck_assert_int_eq(post_one_send(fresh), EINVAL);
	ck_assert_int_eq(doorbells, 0);
	ck_assert_int_eq(ibv_destroy_qp(fresh), 0);

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		int rung = doorbells;

		set_state(qp, states[i].state);
		ck_assert_int_eq(post_one_recv(qp), states[i].ret);
		ck_assert_int_eq(post_one_send(qp), states[i].ret);
		if (states[i].ret)
			ck_assert_int_eq(doorbells, rung);
	}
	/* refused requests left the queues alone */
	ck_assert_uint_eq(sqe(3)->flags, 0);
	ck_assert_uint_eq(rqe(3)->flags, 0);
}
END_TEST

/* RESET ends what the kernel's accepted doorbells said: a QP reset after
 * its connection went, and connected again through rdma_cm, is refused
 * with nothing queued until the kernel takes sends again, as a new one. */
START_TEST(reset_forgets_the_connection)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad = NULL;

	ksq_state = K_RTS;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	set_state(qp, IBV_QPS_RESET);
	set_state(qp, IBV_QPS_INIT);
	ksq_state = K_IDLE;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), ENOTCONN);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_int_eq(refused_with_sqes, 0);
	ck_assert_uint_eq(sqe(1)->flags, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Modify against posts                                                */

/* A post running on another thread while the test holds a modify. */
struct racing_post {
	pthread_t thread;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	bool send;
	int ret;
	bool done_in_modify;	/* it returned while the modify was held */
};

static void *racing_post_run(void *arg)
{
	struct racing_post *p = arg;
	struct ibv_sge sge = { 0x1000, 64, 3 };
	struct ibv_send_wr swr = { .wr_id = 7, .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 8, .sg_list = &sge, .num_sge = 1 }, *rbad;

	if (p->srq)
		p->ret = ibv_post_srq_recv(p->srq, &rwr, &rbad);
	else if (p->send)
		p->ret = ibv_post_send(p->qp, &swr, &sbad);
	else
		p->ret = ibv_post_recv(p->qp, &rwr, &rbad);
	p->done_in_modify = in_modify;
	return NULL;
}

static void *modify_qp_run(void *arg)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	return (void *)(intptr_t)ibv_modify_qp(arg, &attr, IBV_QP_STATE);
}

static void *modify_srq_run(void *arg)
{
	struct ibv_srq_attr attr = { .srq_limit = 2 };

	return (void *)(intptr_t)ibv_modify_srq(arg, &attr, IBV_SRQ_LIMIT);
}

/* Lets the posts start while the modify is held in the kernel, gives
 * them time to get as far as they can, then lets the modify finish. */
static void race_posts_with_modify(void *(*modify)(void *), void *object,
				   struct racing_post *posts, int n)
{
	pthread_t modifier;
	void *ret;

	ck_assert_int_eq(pthread_create(&modifier, NULL, modify, object), 0);
	sem_wait(&held);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&posts[i].thread, NULL, racing_post_run,
						&posts[i]), 0);
	usleep(200 * 1000);
	sem_post(&release);
	ck_assert_int_eq(pthread_join(modifier, &ret), 0);
	ck_assert_ptr_null(ret);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_join(posts[i].thread, NULL), 0);
}

/* A modify to ERROR flushes the queues in the kernel, under the QP's
 * state lock: a post may not run alongside, where its doorbell would be
 * refused for the lock and its elements land behind the flush.  Posts
 * wait for our own modify to finish. */
START_TEST(modify_qp_waits_for_posts)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad;
	struct racing_post posts[2] = {
		{ .qp = qp, .send = true },
		{ .qp = qp, .send = false },
	};

	ksq_state = K_RTS;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	hold_cmd = IB_USER_VERBS_CMD_MODIFY_QP;
	race_posts_with_modify(modify_qp_run, qp, posts, 2);
	ck_assert_int_eq(doorbells_in_modify, 0);
	ck_assert(!posts[0].done_in_modify);
	ck_assert(!posts[1].done_in_modify);
}
END_TEST

START_TEST(modify_srq_waits_for_posts)
{
	struct ibv_srq_init_attr attr = { .attr = { .max_wr = NUM, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &attr);
	struct racing_post post = { .srq = srq };

	ck_assert_ptr_nonnull(srq);
	hold_cmd = IB_USER_VERBS_CMD_MODIFY_SRQ;
	race_posts_with_modify(modify_srq_run, srq, &post, 1);
	ck_assert(!post.done_in_modify);
	ck_assert_int_eq(post.ret, 0);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Creation arguments                                                  */

/* siw makes basic SRQs on a PD and nothing else: what it cannot honour
 * (another SRQ type, an XRC domain, a CQ, tag matching) is refused, not
 * dropped; a PD it must have. */
START_TEST(create_srq_ex_refuses_what_siw_lacks)
{
	static const struct {
		uint32_t comp_mask;
		enum ibv_srq_type type;
		int err;
	} cases[] = {
		{ IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD |
		  IBV_SRQ_INIT_ATTR_CQ, IBV_SRQT_XRC, EOPNOTSUPP },
		{ IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TM,
		  IBV_SRQT_TM, EOPNOTSUPP },
		{ IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ, IBV_SRQT_BASIC, EOPNOTSUPP },
		{ IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD, IBV_SRQT_BASIC, EOPNOTSUPP },
		{ IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TM, IBV_SRQT_BASIC, EOPNOTSUPP },
		{ IBV_SRQ_INIT_ATTR_TYPE, IBV_SRQT_BASIC, EINVAL },
		{ IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD, IBV_SRQT_BASIC, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibv_srq_init_attr_ex attr = {
			.attr = { .max_wr = NUM, .max_sge = 1 },
			.comp_mask = cases[i].comp_mask,
			.srq_type = cases[i].type,
			.pd = pd,
			.cq = cq,
		};
		struct ibv_srq *srq;

		errno = 0;
		srq = ibv_create_srq_ex(ctx, &attr);
		ck_assert_msg(cases[i].err ? !srq : !!srq, "case %zu", i);
		if (srq)
			ck_assert_int_eq(ibv_destroy_srq(srq), 0);
		else
			ck_assert_int_eq(errno, cases[i].err);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Completions                                                         */

static void kernel_complete(uint32_t i, uint8_t op, uint16_t status, uint8_t flags)
{
	struct siw_cqe *c = &to_scq(cq)->queue[i];

	c->id = 100 + i;
	c->opcode = op;
	c->status = status;
	c->bytes = 4096 + i;
	c->qp_id = 0x41;
	c->inval_stag = 0x1234;
	__atomic_store_n(&c->flags, flags | SIW_WQE_VALID, __ATOMIC_RELEASE);
}

START_TEST(poll_cq_fields)
{
	struct ibv_wc wc[4];

	kernel_complete(0, SIW_OP_RECEIVE, SIW_WC_SUCCESS, SIW_WQE_REM_INVAL);
	kernel_complete(1, SIW_OP_READ, SIW_WC_REM_ACCESS_ERR, 0);
	kernel_complete(2, SIW_OP_SEND_REMOTE_INV, SIW_WC_WR_FLUSH_ERR, 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 3);
	ck_assert_uint_eq(wc[0].wr_id, 100);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RECV);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].byte_len, 4096);
	ck_assert_uint_eq(wc[0].qp_num, 0x41);
	ck_assert_uint_eq(wc[0].wc_flags, IBV_WC_WITH_INV);
	ck_assert_uint_eq(wc[0].invalidated_rkey, 0x1234);
	ck_assert_int_eq(wc[1].opcode, IBV_WC_RDMA_READ);
	ck_assert_int_eq(wc[1].status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_uint_eq(wc[1].wc_flags, 0);
	ck_assert_int_eq(wc[2].opcode, IBV_WC_SEND);
	ck_assert_int_eq(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	/* handed back, and nothing more */
	ck_assert_uint_eq(to_scq(cq)->queue[0].flags, 0);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 0);
}
END_TEST

START_TEST(poll_cq_wraps)
{
	struct ibv_wc wc;

	for (uint32_t round = 0; round < 3 * NUM; round++) {
		kernel_complete(round % NUM, SIW_OP_WRITE, SIW_WC_SUCCESS, 0);
		ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 1);
		ck_assert_uint_eq(wc.wr_id, 100 + round % NUM);
		ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
	}
}
END_TEST

START_TEST(notify_arms_the_shared_control)
{
	struct siw_cq_ctrl *ctrl = to_scq(cq)->ctrl;

	ck_assert_ptr_eq(ctrl, (void *)(to_scq(cq)->queue + NUM));
	ck_assert_int_eq(ibv_req_notify_cq(cq, 1), 0);
	ck_assert_uint_eq(ctrl->flags, SIW_NOTIFY_SOLICITED);
	ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
	ck_assert_uint_eq(ctrl->flags, SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION);
}
END_TEST

/* siw's kernel driver rejects a registration without its request and
 * room for its response. */
START_TEST(reg_mr_carries_driver_data)
{
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);

	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_eq(reg_mr_in, sizeof(struct siw_ureq_reg_mr));
	ck_assert_uint_ge(reg_mr_out, sizeof(struct siw_uresp_reg_mr));
	ck_assert_uint_eq(mr->lkey, 0x4200);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("siw");
	TCase *tc = tcase_create("queues");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, map_refuses_missing_queue);
	tcase_add_test(tc, post_send_encodes);
	tcase_add_test(tc, post_send_refusals);
	tcase_add_test(tc, post_send_guards_the_kernel);
	tcase_add_test(tc, post_send_full);
	tcase_add_test(tc, post_send_not_connected);
	tcase_add_test(tc, post_send_refused_doorbell_hands_over);
	tcase_add_test(tc, post_send_rings_only_for_an_idle_kernel);
	tcase_add_test(tc, post_recv_encodes);
	tcase_add_test(tc, posts_follow_qp_state);
	tcase_add_test(tc, reset_forgets_the_connection);
	tcase_add_test(tc, modify_qp_waits_for_posts);
	tcase_add_test(tc, modify_srq_waits_for_posts);
	tcase_add_test(tc, create_srq_ex_refuses_what_siw_lacks);
	tcase_add_test(tc, poll_cq_fields);
	tcase_add_test(tc, poll_cq_wraps);
	tcase_add_test(tc, notify_arms_the_shared_control);
	tcase_add_test(tc, reg_mr_carries_driver_data);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
