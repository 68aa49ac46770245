/* SPDX-License-Identifier: MIT */
/*
 * The rxe provider against a fake kernel driver: the commands it sends,
 * and the exact contents of the rings it shares with the kernel.
 *
 * The shared fake kernel (unit.h) answers rxe's own commands the way
 * rdma_rxe does: queue geometry, mmap information in the driver response,
 * rings moved with their pending entries on resize.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../../providers/rxe/rxe.h"
#include "unit.h"

/* ------------------------------------------------------------------ */
/* The fake kernel                                                     */

enum { KMEM_SIZE = 8 << 20, PAGE = FAKE_PAGE };

static int doorbells;		/* post_send with no work request */
static uint32_t next_ah_num;	/* what CREATE_AH returns */
static bool bad_geometry;	/* rings announce more slots than they have */
static bool unmappable_move;	/* moved rings are announced too small to map */

/* The ring the kernel uses for each CQ and SRQ, by handle. */
static struct rxe_queue_buf *kqueue[FAKE_MAX_HANDLES];

/* A resize under test: while its command runs, the ring end that moves
 * must be unlocked (no thread spins through a system call), and a thread
 * that comes to use it then must wait for the new ring. */
static struct {
	uint32_t cmd;
	pthread_spinlock_t *lock;	/* of the ring end that moves */
	void *(*user)(void *);		/* started while the command runs */
	pthread_t thread;
	atomic_bool user_done;
} move;

struct kring {
	struct rxe_queue_buf *buf;
	struct mminfo mi;
	uint32_t slots;
};

static uint32_t pow2_above(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* A ring as rxe_queue_init() makes one: at least num_elem + 1 slots of a
 * power-of-two size no smaller than a cache line. */
static struct kring kring_new(uint32_t num_elem, size_t elem_size)
{
	uint32_t esz = pow2_above(elem_size < 64 ? 64 : elem_size);
	struct kring r;

	r.slots = pow2_above(num_elem + 1);
	r.mi.size = (sizeof(struct rxe_queue_buf) + (size_t)r.slots * esz + PAGE - 1) &
		    ~(size_t)(PAGE - 1);
	r.mi.offset = fake_kernel_alloc(r.mi.size);
	r.mi.pad = 0;
	r.buf = (struct rxe_queue_buf *)(fake_kernel.mem + r.mi.offset);
	r.buf->log2_elem_size = __builtin_ctz(esz);
	r.buf->index_mask = bad_geometry ? (1u << 20) - 1 : r.slots - 1;
	return r;
}

static void *kslot(struct rxe_queue_buf *b, uint32_t i)
{
	return b->data + ((size_t)(i & b->index_mask) << b->log2_elem_size);
}

/* As rxe_queue_resize(): the pending entries move to the front of the new
 * ring, and the old one is left empty (consumer index at the producer's). */
static void kring_move(struct rxe_queue_buf **cur, const struct kring *to)
{
	struct rxe_queue_buf *from = *cur;
	uint32_t cons = from->consumer_index, prod = from->producer_index, n = 0;

	for (; cons != prod; cons = (cons + 1) & from->index_mask, n++)
		memcpy(kslot(to->buf, n), kslot(from, cons), (size_t)1 << from->log2_elem_size);
	to->buf->producer_index = n;
	from->consumer_index = prod;
	*cur = to->buf;
}

static uint32_t recv_wqe_size(uint32_t sges)
{
	return sizeof(struct rxe_recv_wqe) + sges * sizeof(struct rxe_sge);
}

static void *drv_in(const struct fake_cmd *c, size_t core_len)
{
	return (uint8_t *)c->req + core_len;
}

static int rxe_kernel_cmd(const struct fake_cmd *c)
{
	switch (c->number) {
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		struct ib_uverbs_create_cq *req = c->req;
		struct ib_uverbs_create_cq_resp *r = c->resp;
		struct rxe_create_cq_resp *d = (void *)(r + 1);
		struct kring k = kring_new(req->cqe, sizeof(struct ib_uverbs_wc) + 32);

		r->cq_handle = fake_kernel_handle();
		r->cqe = k.slots - 1;
		d->mi = k.mi;
		kqueue[r->cq_handle] = k.buf;
		break;
	}
	case IB_USER_VERBS_CMD_RESIZE_CQ: {
		struct ib_uverbs_resize_cq *req = c->req;
		struct ib_uverbs_resize_cq_resp *r = c->resp;
		struct rxe_resize_cq_resp *d = (void *)(r + 1);
		struct kring k = kring_new(req->cqe, sizeof(struct ib_uverbs_wc) + 32);

		kring_move(&kqueue[req->cq_handle], &k);
		r->cqe = k.slots - 1;
		d->mi = k.mi;
		if (unmappable_move)
			d->mi.size = sizeof(struct rxe_queue_buf);
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_QP: {
		struct ib_uverbs_create_qp *req = c->req;
		struct ib_uverbs_create_qp_resp *r = c->resp;
		struct rxe_create_qp_resp *d = (void *)(r + 1);
		uint32_t room = req->max_send_sge * sizeof(struct rxe_sge);
		struct kring sq, rq;

		if (room < req->max_inline_data)
			room = req->max_inline_data;
		sq = kring_new(req->max_send_wr, sizeof(struct rxe_send_wqe) + room);
		r->qp_handle = fake_kernel_handle();
		r->qpn = 0x11 + r->qp_handle;
		r->max_send_wr = sq.slots - 1;
		r->max_send_sge = room / sizeof(struct rxe_sge);
		r->max_inline_data = room;
		d->sq_mi = sq.mi;
		if (!req->is_srq) {
			rq = kring_new(req->max_recv_wr, recv_wqe_size(req->max_recv_sge));
			r->max_recv_wr = rq.slots - 1;
			r->max_recv_sge = req->max_recv_sge;
			d->rq_mi = rq.mi;
		}
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_SRQ: {
		struct ib_uverbs_create_srq *req = c->req;
		struct ib_uverbs_create_srq_resp *r = c->resp;
		struct rxe_create_srq_resp *d = (void *)(r + 1);
		struct kring k = kring_new(req->max_wr, recv_wqe_size(req->max_sge));

		r->srq_handle = fake_kernel_handle();
		r->max_wr = k.slots - 1;
		r->max_sge = req->max_sge;
		d->mi = k.mi;
		d->srq_num = 77;
		kqueue[r->srq_handle] = k.buf;
		break;
	}
	case IB_USER_VERBS_CMD_MODIFY_SRQ: {
		struct ib_uverbs_modify_srq *req = c->req;
		struct rxe_modify_srq_cmd *d = drv_in(c, sizeof(*req));

		/* rdma_rxe wants the command even without a resize. */
		ck_assert_uint_eq(c->req_len, sizeof(*req) + sizeof(*d));
		if (req->attr_mask & IBV_SRQ_MAX_WR) {
			struct kring k = kring_new(req->max_wr, recv_wqe_size(2));

			kring_move(&kqueue[req->srq_handle], &k);
			if (unmappable_move)
				k.mi.size = sizeof(struct rxe_queue_buf);
			memcpy((void *)(uintptr_t)d->mmap_info_addr, &k.mi, sizeof(k.mi));
		}
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_AH: {
		struct ib_uverbs_create_ah_resp *r = c->resp;
		struct rxe_create_ah_resp *d = (void *)(r + 1);

		r->ah_handle = fake_kernel_handle();
		d->ah_num = next_ah_num;
		break;
	}
	case IB_USER_VERBS_CMD_POST_SEND: {
		struct ib_uverbs_post_send *req = c->req;

		ck_assert_uint_eq(req->wr_count, 0);
		ck_assert_uint_eq(req->sge_count, 0);
		doorbells++;
		break;
	}
	default:
		break;
	}
	return 0;
}

static const struct fake_driver rxe_kernel = {
	.provider = "rxe",
	.mem_size = KMEM_SIZE,
	.cmd = rxe_kernel_cmd,
};

/* ------------------------------------------------------------------ */
/* Fixture: an rxe context over the fake kernel, a PD and a CQ.       */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static void setup(void)
{
	struct verbs_sysfs_dev sysfs = {
		.ibdev_name = "rxe0",
		.driver_id = RDMA_DRIVER_RXE,
		.abi_ver = RXE_ABI_VERSION,
	};

	fake_kernel_start(&rxe_kernel);
	doorbells = 0;
	next_ah_num = 5;
	bad_geometry = false;
	unmappable_move = false;
	memset(kqueue, 0, sizeof(kqueue));
	memset(&move, 0, sizeof(move));
	ctx = fake_kernel_open(&sysfs);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = ibv_create_cq(ctx, 10, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	fake_kernel_close(ctx);
}

static struct ibv_qp *new_qp(enum ibv_qp_type type, struct ibv_srq *srq, uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = { .max_send_wr = 6, .max_recv_wr = 6, .max_send_sge = 3,
			 .max_recv_sge = 2, .max_inline_data = 100 },
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	if (send_ops) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = send_ops;
	}
	qp = ibv_create_qp_ex(ctx, &attr);
	ck_assert_ptr_nonnull(qp);
	return qp;
}

static void set_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	ck_assert_int_eq(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
}

static struct rxe_queue_buf *sq_of(struct ibv_qp *qp)
{
	return to_rqp(qp)->sq.ring.buf;
}

static struct rxe_send_wqe *sq_wqe(struct ibv_qp *qp, uint32_t i)
{
	return kslot(sq_of(qp), i);
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */

static void kernel_complete(struct ibv_cq *c, const struct ib_uverbs_wc *wc)
{
	struct rxe_queue_buf *b = kqueue[c->handle];
	uint32_t prod = b->producer_index;

	memcpy(kslot(b, prod), wc, sizeof(*wc));
	__atomic_store_n(&b->producer_index, (prod + 1) & b->index_mask, __ATOMIC_RELEASE);
}

/* during_cmd for a resize test */
static void during_move(uint32_t number)
{
	if (number != move.cmd)
		return;
	ck_assert_int_eq(pthread_spin_trylock(move.lock), 0);
	pthread_spin_unlock(move.lock);
	ck_assert_int_eq(pthread_create(&move.thread, NULL, move.user, NULL), 0);
	usleep(20000);
	ck_assert(!atomic_load(&move.user_done));
}

/* The kernel's geometry is checked against the mapping before use. */
START_TEST(ring_map_checks)
{
	struct kring k = kring_new(3, 64);
	struct rxe_ring r = {};

	k.mi.size = sizeof(struct rxe_queue_buf);
	ck_assert_int_eq(rxe_ring_map(&r, fake_kernel.fd, &k.mi, 64), EPROTO);
	k.mi.size = PAGE;
	k.buf->index_mask = 5;
	ck_assert_int_eq(rxe_ring_map(&r, fake_kernel.fd, &k.mi, 64), EPROTO);
	k.buf->index_mask = 3;
	k.buf->log2_elem_size = 12;
	ck_assert_int_eq(rxe_ring_map(&r, fake_kernel.fd, &k.mi, 64), EPROTO);
	ck_assert_ptr_null(r.buf);
	k.buf->log2_elem_size = 6;
	/* Slots smaller than one element (fuzz-rxe_cq's finding). */
	ck_assert_int_eq(rxe_ring_map(&r, fake_kernel.fd, &k.mi, 65), EPROTO);
	ck_assert_int_eq(rxe_ring_map(&r, fake_kernel.fd, &k.mi, 64), 0);
	ck_assert_uint_eq(r.mask, 3);
	ck_assert_uint_eq(r.log2_elem, 6);
	rxe_ring_unmap(&r);
	ck_assert_ptr_null(r.buf);
}
END_TEST

START_TEST(cq_geometry)
{
	struct rxe_cq *rcq = to_rcq(cq);

	/* 10 entries need 16 slots, of which 15 are usable. */
	ck_assert_int_eq(cq->cqe, 15);
	ck_assert_uint_eq(rcq->ring.mask, 15);
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_CREATE_CQ], 1);
}
END_TEST

START_TEST(poll_cq_fields)
{
	struct ib_uverbs_wc k = {
		.wr_id = 0x1234567890ull, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
		.vendor_err = 3, .byte_len = 77, .ex.imm_data = htobe32(0xabcd), .qp_num = 17,
		.src_qp = 18, .wc_flags = 1 | 2, .pkey_index = 1, .slid = 9, .sl = 2,
		.dlid_path_bits = 1, .port_num = 1,
	};
	struct ibv_wc wc[4];

	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 0);
	kernel_complete(cq, &k);
	k.wr_id = 2;
	k.wc_flags = 1 << 2;	/* the kernel's "with invalidate" */
	k.ex.invalidate_rkey = 0x55;
	kernel_complete(cq, &k);
	k.wr_id = 3;
	k.wc_flags = 1 << 3;	/* the kernel's "IP checksum ok" */
	kernel_complete(cq, &k);

	ck_assert_int_eq(ibv_poll_cq(cq, 1, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 0x1234567890ull);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc[0].vendor_err, 3);
	ck_assert_uint_eq(wc[0].byte_len, 77);
	ck_assert_uint_eq(wc[0].imm_data, htobe32(0xabcd));
	ck_assert_uint_eq(wc[0].qp_num, 17);
	ck_assert_uint_eq(wc[0].src_qp, 18);
	ck_assert_uint_eq(wc[0].wc_flags, IBV_WC_GRH | IBV_WC_WITH_IMM);
	ck_assert_uint_eq(wc[0].pkey_index, 1);
	ck_assert_uint_eq(wc[0].slid, 9);
	ck_assert_uint_eq(wc[0].sl, 2);
	ck_assert_uint_eq(wc[0].dlid_path_bits, 1);
	/* consumed entries are handed back to the kernel */
	ck_assert_uint_eq(to_rcq(cq)->ring.buf->consumer_index, 1);

	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 2);
	ck_assert_uint_eq(wc[0].wc_flags, IBV_WC_WITH_INV);
	ck_assert_uint_eq(wc[0].invalidated_rkey, 0x55);
	ck_assert_uint_eq(wc[1].wc_flags, IBV_WC_IP_CSUM_OK);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 0);
	ck_assert_uint_eq(to_rcq(cq)->ring.buf->consumer_index, 3);
}
END_TEST

START_TEST(poll_cq_wraps)
{
	struct ib_uverbs_wc k = { .opcode = IBV_WC_SEND };
	struct ibv_wc wc[8];
	uint64_t next = 0, expect = 0;

	/* 15 usable slots: go round the ring a few times. */
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 7; i++) {
			k.wr_id = next++;
			kernel_complete(cq, &k);
		}
		ck_assert_int_eq(ibv_poll_cq(cq, 8, wc), 7);
		for (int i = 0; i < 7; i++)
			ck_assert_uint_eq(wc[i].wr_id, expect++);
	}
}
END_TEST

START_TEST(cq_ex_polling)
{
	struct ibv_cq_init_attr_ex attr = { .cqe = 4, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ib_uverbs_wc k = { .opcode = IBV_WC_RECV_RDMA_WITH_IMM, .byte_len = 5,
				  .qp_num = 3, .src_qp = 4, .wc_flags = 2, .slid = 6, .sl = 7,
				  .dlid_path_bits = 8, .ex.imm_data = 9 };
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx;
	struct ibv_cq *c;

	cqx = ibv_create_cq_ex(ctx, &attr);
	ck_assert_ptr_nonnull(cqx);
	c = ibv_cq_ex_to_cq(cqx);
	errno = 0;
	ck_assert_int_eq(ibv_start_poll(cqx, &pa), ENOENT);
	/* returned and in errno, as upstream's providers do */
	ck_assert_int_eq(errno, ENOENT);
	/* ENOENT released the lock: polling again must not deadlock */
	ck_assert_int_eq(ibv_start_poll(cqx, &pa), ENOENT);
	k.wr_id = 1;
	kernel_complete(c, &k);
	k.wr_id = 2;
	k.status = IBV_WC_REM_ACCESS_ERR;
	kernel_complete(c, &k);

	ck_assert_int_eq(ibv_start_poll(cqx, &pa), 0);
	ck_assert_uint_eq(cqx->wr_id, 1);
	ck_assert_int_eq(cqx->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_byte_len(cqx), 5);
	ck_assert_uint_eq(ibv_wc_read_qp_num(cqx), 3);
	ck_assert_uint_eq(ibv_wc_read_src_qp(cqx), 4);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(cqx), IBV_WC_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_slid(cqx), 6);
	ck_assert_uint_eq(ibv_wc_read_sl(cqx), 7);
	ck_assert_uint_eq(ibv_wc_read_dlid_path_bits(cqx), 8);
	ck_assert_uint_eq(ibv_wc_read_imm_data(cqx), 9);
	/* the entry being read stays the kernel's no-go zone */
	ck_assert_uint_eq(to_rcq(c)->ring.buf->consumer_index, 0);
	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	ck_assert_uint_eq(cqx->wr_id, 2);
	ck_assert_int_eq(cqx->status, IBV_WC_REM_ACCESS_ERR);
	errno = 0;
	ck_assert_int_eq(ibv_next_poll(cqx), ENOENT);
	ck_assert_int_eq(errno, ENOENT);
	ibv_end_poll(cqx);
	ck_assert_uint_eq(to_rcq(c)->ring.buf->consumer_index, 2);

	/* end_poll right after start_poll consumes that one entry */
	k.wr_id = 3;
	kernel_complete(c, &k);
	kernel_complete(c, &k);
	ck_assert_int_eq(ibv_start_poll(cqx, &pa), 0);
	ibv_end_poll(cqx);
	ck_assert_uint_eq(to_rcq(c)->ring.buf->consumer_index, 3);
	ck_assert_int_eq(ibv_destroy_cq(c), 0);
}
END_TEST

START_TEST(cq_ex_unsupported)
{
	struct ibv_cq_init_attr_ex attr = { .cqe = 4,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };

	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.wc_flags = 0;
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.flags = 1 << 7;
	ck_assert_ptr_null(ibv_create_cq_ex(ctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	/* refused before reaching the kernel */
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_CREATE_CQ], 1);
}
END_TEST

/* As upstream's rxe: the single-threaded hint and a parent domain are
 * accepted (the kernel allocates the ring: no allocator to take from a
 * parent domain), and neither reaches the kernel. */
START_TEST(cq_ex_hints)
{
	struct ibv_cq_init_attr_ex attr = { .cqe = 4, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED, .parent_domain = pd };
	struct ibv_cq_ex *cqx;

	cqx = ibv_create_cq_ex(ctx, &attr);
	ck_assert_ptr_nonnull(cqx);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	cqx = ibv_create_cq_ex(ctx, &attr);
	ck_assert_ptr_nonnull(cqx);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_CREATE_CQ], 3);
}
END_TEST

START_TEST(resize_cq_remaps)
{
	struct ib_uverbs_wc k = { .opcode = IBV_WC_SEND };
	struct rxe_queue_buf *old = to_rcq(cq)->ring.buf, *new;
	struct ibv_wc wc[4];

	k.wr_id = 7;
	kernel_complete(cq, &k);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 1);
	ck_assert_int_eq(ibv_resize_cq(cq, 40), 0);
	ck_assert_int_eq(cq->cqe, 63);
	new = to_rcq(cq)->ring.buf;
	ck_assert_ptr_ne(new, old);
	ck_assert_uint_eq(to_rcq(cq)->ring.mask, 63);
	/* the new ring starts over at index 0 */
	k.wr_id = 8;
	kernel_complete(cq, &k);
	ck_assert_int_eq(ibv_poll_cq(cq, 4, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 8);
	ck_assert_uint_eq(new->consumer_index, 1);

	fake_kernel.fail_cmd = IB_USER_VERBS_CMD_RESIZE_CQ;
	ck_assert_int_eq(ibv_resize_cq(cq, 100), EINVAL);
	ck_assert_ptr_eq(to_rcq(cq)->ring.buf, new);
}
END_TEST

static int moving_polled;
static uint64_t moving_wr_ids[8];

static void *poll_while_moving(void *arg)
{
	struct ibv_wc wc[8];

	(void)arg;
	moving_polled = ibv_poll_cq(cq, 8, wc);
	for (int i = 0; i < moving_polled; i++)
		moving_wr_ids[i] = wc[i].wr_id;
	atomic_store(&move.user_done, true);
	return NULL;
}

/* A poller that comes during the move gets the entries once, from the new
 * ring, after the kernel copied them. */
START_TEST(resize_cq_while_polled)
{
	struct ib_uverbs_wc k = { .opcode = IBV_WC_SEND };
	struct ibv_wc wc[8];

	for (k.wr_id = 1; k.wr_id <= 3; k.wr_id++)
		kernel_complete(cq, &k);
	move.cmd = IB_USER_VERBS_CMD_RESIZE_CQ;
	move.lock = &to_rcq(cq)->lock;
	move.user = poll_while_moving;
	fake_kernel.during_cmd = during_move;
	ck_assert_int_eq(ibv_resize_cq(cq, 40), 0);
	ck_assert_int_eq(pthread_join(move.thread, NULL), 0);
	ck_assert_int_eq(moving_polled, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(moving_wr_ids[i], i + 1);
	ck_assert_uint_eq(to_rcq(cq)->ring.mask, 63);
	ck_assert_uint_eq(kqueue[cq->handle]->consumer_index, 3);
	ck_assert_int_eq(ibv_poll_cq(cq, 8, wc), 0);
}
END_TEST

/* The kernel moved to a ring that cannot be mapped: the old one is left
 * behind, so polls fail instead of reading it, until a move succeeds and
 * brings back what the kernel kept meanwhile. */
START_TEST(resize_cq_unmappable)
{
	struct ibv_cq_init_attr_ex attr = { .cqe = 4, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ib_uverbs_wc k = { .opcode = IBV_WC_RECV, .wr_id = 1 };
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ctx, &attr);
	struct ibv_cq *c = ibv_cq_ex_to_cq(cqx);
	struct ibv_wc wc[4];

	ck_assert_ptr_nonnull(cqx);
	kernel_complete(c, &k);
	unmappable_move = true;
	ck_assert_int_eq(ibv_resize_cq(c, 20), EPROTO);
	ck_assert_int_lt(ibv_poll_cq(c, 4, wc), 0);
	ck_assert_int_eq(ibv_start_poll(cqx, &pa), EIO);
	fake_kernel.fail_cmd = IB_USER_VERBS_CMD_RESIZE_CQ;
	ck_assert_int_eq(ibv_resize_cq(c, 20), EINVAL);
	ck_assert_int_lt(ibv_poll_cq(c, 4, wc), 0);
	fake_kernel.fail_cmd = -1;

	k.wr_id = 2;
	kernel_complete(c, &k);
	unmappable_move = false;
	ck_assert_int_eq(ibv_resize_cq(c, 20), 0);
	ck_assert_int_eq(ibv_poll_cq(c, 4, wc), 2);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_int_eq(ibv_start_poll(cqx, &pa), ENOENT);
	ck_assert_int_eq(ibv_destroy_cq(c), 0);
}
END_TEST

START_TEST(create_cq_bad_ring)
{
	bad_geometry = true;
	ck_assert_ptr_null(ibv_create_cq(ctx, 10, NULL, NULL, 0));
	ck_assert_int_eq(errno, EPROTO);
	/* the kernel object did not leak */
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_DESTROY_CQ], 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Send queue                                                          */

START_TEST(qp_geometry)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, 0);
	struct rxe_qp *rqp = to_rqp(qp);

	ck_assert_uint_eq(rqp->sq.ring.mask, 7);
	ck_assert_uint_eq(rqp->sq.max_sge, 100 / sizeof(struct rxe_sge));
	ck_assert_uint_eq(rqp->sq.max_inline, 100);
	ck_assert_uint_eq(rqp->rq.ring.mask, 7);
	ck_assert_uint_eq(rqp->rq.max_sge, 2);
	ck_assert_ptr_null(ibv_qp_to_qp_ex(qp));
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(post_send_encodes)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, 0);
	struct ibv_sge sg[2] = {
		{ .addr = 0x1000, .length = 10, .lkey = 0x11 },
		{ .addr = 0x2000, .length = 20, .lkey = 0x22 },
	};
	char text[] = "inline payload";
	struct ibv_sge in = { .addr = (uintptr_t)text, .length = sizeof(text) };
	struct ibv_mw mw = { .rkey = 0x3301, .type = IBV_MW_TYPE_2 };
	struct ibv_mr mr = { .lkey = 0x4400 };
	struct ibv_send_wr wr[7] = {
		{ .wr_id = 1, .next = &wr[1], .sg_list = sg, .num_sge = 2,
		  .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
		  .imm_data = htobe32(0x77), .wr.rdma = { .remote_addr = 0xa000, .rkey = 0x99 } },
		{ .wr_id = 2, .next = &wr[2], .sg_list = &in, .num_sge = 1,
		  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED },
		{ .wr_id = 3, .next = &wr[3], .sg_list = sg, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_INLINE,
		  .wr.rdma = { .remote_addr = 0xb000, .rkey = 0x98 } },
		{ .wr_id = 4, .next = &wr[4], .sg_list = sg, .num_sge = 1,
		  .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		  .wr.atomic = { .remote_addr = 0xc008, .compare_add = 5, .swap = 6, .rkey = 0x97 } },
		{ .wr_id = 5, .next = &wr[5], .opcode = IBV_WR_SEND_WITH_INV, .invalidate_rkey = 0x96 },
		{ .wr_id = 6, .next = &wr[6], .opcode = IBV_WR_LOCAL_INV, .invalidate_rkey = 0x95,
		  .sg_list = sg, .num_sge = 2 },
		{ .wr_id = 7, .opcode = IBV_WR_BIND_MW, .bind_mw = { .mw = &mw, .rkey = 0x3302,
		  .bind_info = { .mr = &mr, .addr = 0xd000, .length = 0x100,
				 .mw_access_flags = IBV_ACCESS_REMOTE_READ } } },
	};
	struct ibv_send_wr *bad = NULL;
	struct rxe_send_wqe *w;

	set_state(qp, IBV_QPS_RTS);
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), 0);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 7);
	ck_assert_int_eq(doorbells, 1);

	w = sq_wqe(qp, 0);
	ck_assert_uint_eq(w->wr.wr_id, 1);
	ck_assert_uint_eq(w->wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	ck_assert_uint_eq(w->wr.send_flags, IBV_SEND_SIGNALED);
	ck_assert_uint_eq(w->wr.ex.imm_data, htobe32(0x77));
	ck_assert_uint_eq(w->wr.wr.rdma.remote_addr, 0xa000);
	ck_assert_uint_eq(w->wr.wr.rdma.rkey, 0x99);
	ck_assert_uint_eq(w->iova, 0xa000);
	ck_assert_uint_eq(w->dma.length, 30);
	ck_assert_uint_eq(w->dma.resid, 30);
	ck_assert_uint_eq(w->dma.num_sge, 2);
	ck_assert_uint_eq(w->dma.cur_sge, 0);
	ck_assert_uint_eq(w->dma.sge_offset, 0);
	ck_assert_uint_eq(w->dma.sge[1].addr, 0x2000);
	ck_assert_uint_eq(w->dma.sge[1].length, 20);
	ck_assert_uint_eq(w->dma.sge[1].lkey, 0x22);
	ck_assert_uint_eq(w->state, 0);
	ck_assert_uint_eq(w->status, 0);

	w = sq_wqe(qp, 1);
	ck_assert_uint_eq(w->wr.send_flags, IBV_SEND_INLINE | IBV_SEND_SOLICITED);
	ck_assert_uint_eq(w->dma.length, sizeof(text));
	ck_assert_uint_eq(w->dma.num_sge, 0);
	ck_assert_str_eq((char *)w->dma.inline_data, text);
	ck_assert_uint_eq(w->iova, 0);

	/* inline means nothing to a read */
	w = sq_wqe(qp, 2);
	ck_assert_uint_eq(w->wr.send_flags, 0);
	ck_assert_uint_eq(w->iova, 0xb000);
	ck_assert_uint_eq(w->dma.sge[0].lkey, 0x11);

	w = sq_wqe(qp, 3);
	ck_assert_uint_eq(w->wr.wr.atomic.remote_addr, 0xc008);
	ck_assert_uint_eq(w->wr.wr.atomic.compare_add, 5);
	ck_assert_uint_eq(w->wr.wr.atomic.swap, 6);
	ck_assert_uint_eq(w->wr.wr.atomic.rkey, 0x97);
	ck_assert_uint_eq(w->iova, 0xc008);

	w = sq_wqe(qp, 4);
	ck_assert_uint_eq(w->wr.ex.invalidate_rkey, 0x96);
	ck_assert_uint_eq(w->dma.length, 0);

	/* local operations carry no data even when given some */
	w = sq_wqe(qp, 5);
	ck_assert_uint_eq(w->wr.ex.invalidate_rkey, 0x95);
	ck_assert_uint_eq(w->dma.num_sge, 0);
	ck_assert_uint_eq(w->dma.length, 0);

	w = sq_wqe(qp, 6);
	ck_assert_uint_eq(w->wr.wr.mw.addr, 0xd000);
	ck_assert_uint_eq(w->wr.wr.mw.length, 0x100);
	ck_assert_uint_eq(w->wr.wr.mw.mr_lkey, 0x4400);
	ck_assert_uint_eq(w->wr.wr.mw.mw_rkey, 0x3301);
	ck_assert_uint_eq(w->wr.wr.mw.rkey, 0x3302);
	ck_assert_uint_eq(w->wr.wr.mw.access, IBV_ACCESS_REMOTE_READ);
	ck_assert_uint_eq(mw.rkey, 0x3302);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(bind_mw_type1)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, 0);
	struct ibv_mr mr = { .lkey = 0x500, .pd = pd };
	struct ibv_mw mw = { .context = ctx, .pd = pd, .rkey = 0x12ff, .type = IBV_MW_TYPE_1 };
	struct ibv_mw_bind bind = { .wr_id = 9, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = &mr, .addr = 1, .length = 2, .mw_access_flags = 0 } };
	struct rxe_send_wqe *w;

	set_state(qp, IBV_QPS_RTS);
	ck_assert_int_eq(ibv_bind_mw(qp, &mw, &bind), 0);
	w = sq_wqe(qp, 0);
	ck_assert_uint_eq(w->wr.opcode, IBV_WR_BIND_MW);
	ck_assert_uint_eq(w->wr.wr_id, 9);
	ck_assert_uint_eq(w->wr.wr.mw.mw_rkey, 0x12ff);
	/* only the key byte moves on, and it wraps */
	ck_assert_uint_eq(w->wr.wr.mw.rkey, 0x1200);
	ck_assert_uint_eq(mw.rkey, 0x1200);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(post_send_refusals)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, 0);
	struct ibv_sge sg[20] = { { .addr = 0x1000, .length = 1 } };
	char big[200] = "";
	struct ibv_sge in = { .addr = (uintptr_t)big, .length = 101 };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = sg, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad = NULL;

	/* not before RTS: nothing reaches the ring or the kernel */
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	set_state(qp, IBV_QPS_INIT);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	set_state(qp, IBV_QPS_RTR);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 0);
	ck_assert_int_eq(doorbells, 0);

	set_state(qp, IBV_QPS_RTS);
	wr.num_sge = 13;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.num_sge = 1;
	wr.sg_list = &in;
	wr.send_flags = IBV_SEND_INLINE;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.opcode = IBV_WR_TSO;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD, .sg_list = sg,
				   .num_sge = 1, .wr.atomic.remote_addr = 0x1004 };
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.wr.atomic.remote_addr = 0x1008;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);	/* 1-byte buffer */
	ck_assert_uint_eq(sq_of(qp)->producer_index, 0);
	ck_assert_int_eq(doorbells, 0);

	/* a partly bad list: the good head is posted and rung */
	struct ibv_send_wr list[3] = {
		{ .wr_id = 1, .next = &list[1], .opcode = IBV_WR_SEND },
		{ .wr_id = 2, .next = &list[2], .opcode = IBV_WR_SEND },
		{ .wr_id = 3, .opcode = 99 },
	};
	ck_assert_int_eq(ibv_post_send(qp, list, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &list[2]);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 2);
	ck_assert_int_eq(doorbells, 1);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* A refused doorbell comes after the requests are in the ring, where the
 * kernel may already run them: they must not be reported as failed, or a
 * retry would post them twice (ibv_post_send(3): error, bad_wr NULL). */
START_TEST(post_send_doorbell_refused)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, 0);
	struct ibv_send_wr list[3] = {
		{ .wr_id = 1, .next = &list[1], .opcode = IBV_WR_SEND },
		{ .wr_id = 2, .next = &list[2], .opcode = IBV_WR_SEND },
		{ .wr_id = 3, .opcode = 99 },
	};
	struct ibv_send_wr *bad = &list[2];

	set_state(qp, IBV_QPS_RTS);
	fake_kernel.fail_cmd = IB_USER_VERBS_CMD_POST_SEND;
	list[1].next = NULL;
	ck_assert_int_eq(ibv_post_send(qp, list, &bad), EINVAL);
	ck_assert_ptr_null(bad);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 2);
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_POST_SEND], 1);

	/* with a refused request as well, bad_wr still names that one */
	list[1].next = &list[2];
	ck_assert_int_eq(ibv_post_send(qp, list, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &list[2]);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 4);
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_POST_SEND], 2);
	fake_kernel.fail_cmd = -1;
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(post_send_full)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_UC, NULL, 0);
	struct ibv_send_wr wr[9], *bad = NULL;
	struct rxe_queue_buf *sq = sq_of(qp);

	set_state(qp, IBV_QPS_RTS);
	for (int i = 0; i < 9; i++)
		wr[i] = (struct ibv_send_wr){ .wr_id = i, .next = i < 8 ? &wr[i + 1] : NULL,
					      .opcode = IBV_WR_RDMA_WRITE };
	/* 8 slots hold 7 requests */
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[7]);
	ck_assert_uint_eq(sq->producer_index, 7);
	/* the kernel consumes three: three more fit, around the end */
	__atomic_store_n(&sq->consumer_index, 3, __ATOMIC_RELEASE);
	ck_assert_int_eq(ibv_post_send(qp, &wr[5], &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[8]);
	ck_assert_uint_eq(sq->producer_index, 2);
	ck_assert_uint_eq(((struct rxe_send_wqe *)kslot(sq, 1))->wr.wr_id, 7);
	/* UC runs no reads or atomics */
	wr[0].next = NULL;
	wr[0].opcode = IBV_WR_RDMA_READ;
	__atomic_store_n(&sq->consumer_index, 2, __ATOMIC_RELEASE);
	ck_assert_int_eq(ibv_post_send(qp, wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(ud_send)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_UD, NULL, 0);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = 4,
				  .wr.ud = { .ah = ah, .remote_qpn = 0x123, .remote_qkey = 0x456 } };
	struct ibv_send_wr *bad;
	struct rxe_send_wqe *w;

	ck_assert_ptr_nonnull(ah);
	set_state(qp, IBV_QPS_RTS);
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
	w = sq_wqe(qp, 0);
	ck_assert_uint_eq(w->wr.wr.ud.ah_num, 5);
	ck_assert_uint_eq(w->wr.wr.ud.remote_qpn, 0x123);
	ck_assert_uint_eq(w->wr.wr.ud.remote_qkey, 0x456);
	ck_assert_uint_eq(w->wr.ex.imm_data, 4);
	wr.wr.ud.ah = NULL;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	wr.wr.ud.ah = ah;
	wr.opcode = IBV_WR_RDMA_WRITE;
	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* a kernel that names no AV is refused, and its AH not leaked */
	next_ah_num = 0;
	ck_assert_ptr_null(ibv_create_ah(pd, &aa));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_DESTROY_AH], 2);
}
END_TEST

/* ------------------------------------------------------------------ */
/* ibv_wr_*                                                            */

static const uint64_t rc_ops = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND |
	IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;

START_TEST(wr_batch)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, rc_ops);
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct ibv_data_buf parts[2] = { { "ab", 2 }, { "cde", 3 } };
	struct ibv_sge sg[2] = { { 0x10, 1, 2 }, { 0x20, 3, 4 } };
	struct ibv_mw mw = { .rkey = 0x700 };
	struct ibv_mw_bind_info info = { .addr = 0x1 };
	struct rxe_send_wqe *w;

	ck_assert_ptr_nonnull(qx);
	set_state(qp, IBV_QPS_RTS);
	ibv_wr_start(qx);
	qx->wr_id = 10;
	qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send_imm(qx, 0x42);
	ibv_wr_set_inline_data_list(qx, 2, parts);
	qx->wr_id = 11;
	qx->wr_flags = 0;
	ibv_wr_rdma_write(qx, 0x33, 0x4000);
	ibv_wr_set_sge_list(qx, 2, sg);
	qx->wr_id = 12;
	ibv_wr_bind_mw(qx, &mw, 0x701, &info);
	/* nothing visible before wr_complete */
	ck_assert_uint_eq(sq_of(qp)->producer_index, 0);
	ck_assert_uint_eq(mw.rkey, 0x700);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 3);
	ck_assert_int_eq(doorbells, 1);
	ck_assert_uint_eq(mw.rkey, 0x701);

	w = sq_wqe(qp, 0);
	ck_assert_uint_eq(w->wr.wr_id, 10);
	ck_assert_uint_eq(w->wr.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	ck_assert_uint_eq(w->wr.ex.imm_data, 0x42);
	ck_assert_uint_eq(w->dma.length, 5);
	ck_assert_mem_eq(w->dma.inline_data, "abcde", 5);
	w = sq_wqe(qp, 1);
	/* wr_flags' INLINE does not apply to gathered data */
	ck_assert_uint_eq(w->wr.send_flags, 0);
	ck_assert_uint_eq(w->iova, 0x4000);
	ck_assert_uint_eq(w->dma.num_sge, 2);
	ck_assert_uint_eq(w->dma.length, 4);
	ck_assert_uint_eq(w->dma.sge[1].lkey, 4);
	w = sq_wqe(qp, 2);
	ck_assert_uint_eq(w->wr.opcode, IBV_WR_BIND_MW);
	ck_assert_uint_eq(w->wr.wr.mw.mw_rkey, 0x700);
	ck_assert_uint_eq(w->wr.wr.mw.rkey, 0x701);

	/* abort: nothing posted, nothing changed */
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_bind_mw(qx, &mw, 0x702, &info);
	ibv_wr_abort(qx);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 3);
	ck_assert_uint_eq(mw.rkey, 0x701);

	/* the first error fails the whole batch */
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_atomic_fetch_add(qx, 1, 0x1001, 1);
	ibv_wr_send(qx);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ibv_wr_start(qx);
	ibv_wr_rdma_read(qx, 1, 2);	/* not asked for, and fine on RC */
	ibv_wr_set_inline_data(qx, "x", 1);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, parts, 101);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 3);
	ck_assert_int_eq(doorbells, 1);

	/* a full ring */
	ibv_wr_start(qx);
	for (int i = 0; i < 5; i++)
		ibv_wr_send(qx);
	ck_assert_int_eq(ibv_wr_complete(qx), ENOMEM);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 3);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(wr_ud_needs_address)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_UD, NULL, IBV_QP_EX_WITH_SEND);
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);

	set_state(qp, IBV_QPS_RTS);
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, ah, 1, 2);
	ibv_wr_send(qx);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, ah, 1, 2);
	ck_assert_int_eq(ibv_wr_complete(qx), 0);
	ck_assert_uint_eq(sq_wqe(qp, 0)->wr.wr.ud.ah_num, 5);
	/* not before RTS */
	set_state(qp, IBV_QPS_RTR);
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, ah, 1, 2);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 1);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* ibv_wr_complete and ibv_bind_mw have no bad_wr: a refused doorbell is
 * returned, and what it was for stays posted (the window's new key too). */
START_TEST(wr_doorbell_refused)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, rc_ops);
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct ibv_mw mw = { .context = ctx, .pd = pd, .rkey = 0x1200, .type = IBV_MW_TYPE_1 };
	struct ibv_mw_bind bind = { .wr_id = 9 };

	set_state(qp, IBV_QPS_RTS);
	fake_kernel.fail_cmd = IB_USER_VERBS_CMD_POST_SEND;
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_send(qx);
	ck_assert_int_eq(ibv_wr_complete(qx), EINVAL);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 2);
	ck_assert_int_eq(ibv_bind_mw(qp, &mw, &bind), EINVAL);
	ck_assert_uint_eq(sq_of(qp)->producer_index, 3);
	ck_assert_uint_eq(mw.rkey, 0x1201);
	ck_assert_uint_eq(sq_wqe(qp, 2)->wr.wr.mw.rkey, 0x1201);
	fake_kernel.fail_cmd = -1;
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(create_qp_refusals)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd, .send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE,
	};

	ck_assert_ptr_null(ibv_create_qp_ex(ctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.qp_type = IBV_QPT_RAW_PACKET;
	ck_assert_ptr_null(ibv_create_qp_ex(ctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_CREATE_QP], 0);
	/* a ring that cannot be mapped undoes the kernel QP */
	bad_geometry = true;
	attr.qp_type = IBV_QPT_RC;
	ck_assert_ptr_null(ibv_create_qp_ex(ctx, &attr));
	ck_assert_int_eq(errno, EPROTO);
	ck_assert_uint_eq(fake_kernel.ncmds[IB_USER_VERBS_CMD_DESTROY_QP], 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Receive queues                                                      */

START_TEST(post_recv_encodes)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, 0);
	struct rxe_queue_buf *rq = to_rqp(qp)->rq.ring.buf;
	struct ibv_sge sg[3] = { { 0x100, 10, 1 }, { 0x200, 20, 2 }, { 0x300, 30, 3 } };
	struct ibv_recv_wr wr[9], *bad = NULL;
	struct rxe_recv_wqe *w;

	/* receives may be posted before RTR */
	set_state(qp, IBV_QPS_INIT);
	for (int i = 0; i < 9; i++)
		wr[i] = (struct ibv_recv_wr){ .wr_id = 100 + i, .next = i < 8 ? &wr[i + 1] : NULL,
					      .sg_list = sg, .num_sge = 2 };
	ck_assert_int_eq(ibv_post_recv(qp, wr, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wr[7]);
	ck_assert_uint_eq(rq->producer_index, 7);
	w = kslot(rq, 6);
	ck_assert_uint_eq(w->wr_id, 106);
	ck_assert_uint_eq(w->dma.length, 30);
	ck_assert_uint_eq(w->dma.resid, 30);
	ck_assert_uint_eq(w->dma.num_sge, 2);
	ck_assert_uint_eq(w->dma.cur_sge, 0);
	ck_assert_uint_eq(w->dma.sge[1].addr, 0x200);
	ck_assert_uint_eq(w->dma.sge[1].lkey, 2);
	ck_assert_int_eq(doorbells, 0);

	__atomic_store_n(&rq->consumer_index, 7, __ATOMIC_RELEASE);
	wr[0].next = NULL;
	wr[0].num_sge = 3;
	ck_assert_int_eq(ibv_post_recv(qp, wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[0]);
	ck_assert_uint_eq(rq->producer_index, 7);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* The states the verbs specification lets a QP take work requests in:
 * receives from INIT on, sends from RTS on; a refusal touches no ring. */
START_TEST(post_by_state)
{
	struct ibv_qp *qp = new_qp(IBV_QPT_RC, NULL, 0);
	struct ibv_sge sg = { 0x100, 10, 1 };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sg, .num_sge = 1 }, *rbad = NULL;
	struct ibv_send_wr swr = { .wr_id = 2, .opcode = IBV_WR_SEND }, *sbad = NULL;
	static const enum ibv_qp_state open_states[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR,
	};
	uint32_t recvs = 0, sends = 0;

	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), EINVAL);
	ck_assert_ptr_eq(rbad, &rwr);
	for (size_t i = 0; i < sizeof(open_states) / sizeof(open_states[0]); i++) {
		enum ibv_qp_state state = open_states[i];
		int want_send = state == IBV_QPS_INIT || state == IBV_QPS_RTR ? EINVAL : 0;

		set_state(qp, state);
		ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), 0);
		recvs++;
		ck_assert_int_eq(ibv_post_send(qp, &swr, &sbad), want_send);
		sends += !want_send;
	}
	set_state(qp, IBV_QPS_RESET);
	rbad = NULL;
	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), EINVAL);
	ck_assert_ptr_eq(rbad, &rwr);
	sbad = NULL;
	ck_assert_int_eq(ibv_post_send(qp, &swr, &sbad), EINVAL);
	ck_assert_ptr_eq(sbad, &swr);
	ck_assert_uint_eq(to_rqp(qp)->rq.ring.buf->producer_index, recvs);
	ck_assert_uint_eq(sq_of(qp)->producer_index, sends);
	ck_assert_int_eq(doorbells, sends);
	/* a failed transition leaves the state as it was */
	fake_kernel.fail_cmd = IB_USER_VERBS_CMD_MODIFY_QP;
	ck_assert_int_eq(ibv_modify_qp(qp, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT },
				       IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), EINVAL);
	fake_kernel.fail_cmd = -1;
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

START_TEST(srq_resize)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 3, .max_sge = 2 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct ibv_sge sg = { 0x100, 10, 1 };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sg, .num_sge = 1 }, *bad;
	struct ibv_srq_attr attr = { .max_wr = 20 };
	struct rxe_queue_buf *ring;
	struct ibv_qp *qp;

	ck_assert_ptr_nonnull(srq);
	ck_assert_uint_eq(sa.attr.max_wr, 3);
	ck_assert_uint_eq(((struct verbs_srq *)srq)->srq_num, 77);
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
	ring = to_rsrq(srq)->rq.ring.buf;
	ck_assert_uint_eq(ring->producer_index, 1);
	ck_assert_uint_eq(((struct rxe_recv_wqe *)kslot(ring, 0))->wr_id, 1);

	/* QPs on an SRQ have no receive queue of their own */
	qp = new_qp(IBV_QPT_RC, srq, 0);
	ck_assert_ptr_null(to_rqp(qp)->rq.ring.buf);
	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* a limit alone keeps the ring; a size moves to a new one */
	attr.srq_limit = 1;
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), 0);
	ck_assert_ptr_eq(to_rsrq(srq)->rq.ring.buf, ring);
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), 0);
	ck_assert_ptr_ne(to_rsrq(srq)->rq.ring.buf, ring);
	ring = to_rsrq(srq)->rq.ring.buf;
	ck_assert_uint_eq(to_rsrq(srq)->rq.ring.mask, 31);
	/* the posted receive moved along, ahead of the next one */
	wr.wr_id = 2;
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
	ck_assert_uint_eq(((struct rxe_recv_wqe *)kslot(ring, 0))->wr_id, 1);
	ck_assert_uint_eq(((struct rxe_recv_wqe *)kslot(ring, 1))->wr_id, 2);
	ck_assert_uint_eq(ring->producer_index, 2);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

static struct ibv_srq *moving_srq;
static int moving_post_ret;

static void *post_while_moving(void *arg)
{
	struct ibv_sge sg = { 0x300, 30, 3 };
	struct ibv_recv_wr wr = { .wr_id = 3, .sg_list = &sg, .num_sge = 1 }, *bad;

	(void)arg;
	moving_post_ret = ibv_post_srq_recv(moving_srq, &wr, &bad);
	atomic_store(&move.user_done, true);
	return NULL;
}

static uint64_t srq_wr_id(struct ibv_srq *srq, uint32_t index)
{
	return ((struct rxe_recv_wqe *)kslot(kqueue[srq->handle], index))->wr_id;
}

/* A receive posted during the move lands in the new ring, behind the ones
 * the kernel copied; were it written into the old ring, it would be lost. */
START_TEST(modify_srq_while_posted)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 3, .max_sge = 2 } };
	struct ibv_srq_attr attr = { .max_wr = 20 };
	struct ibv_sge sg = { 0x100, 10, 1 };
	struct ibv_recv_wr wr[2] = {
		{ .wr_id = 1, .next = &wr[1], .sg_list = &sg, .num_sge = 1 },
		{ .wr_id = 2, .sg_list = &sg, .num_sge = 1 },
	}, *bad = NULL;

	moving_srq = ibv_create_srq(pd, &sa);
	ck_assert_ptr_nonnull(moving_srq);
	ck_assert_int_eq(ibv_post_srq_recv(moving_srq, wr, &bad), 0);
	move.cmd = IB_USER_VERBS_CMD_MODIFY_SRQ;
	move.lock = &to_rsrq(moving_srq)->rq.lock;
	move.user = post_while_moving;
	fake_kernel.during_cmd = during_move;
	ck_assert_int_eq(ibv_modify_srq(moving_srq, &attr, IBV_SRQ_MAX_WR), 0);
	ck_assert_int_eq(pthread_join(move.thread, NULL), 0);
	fake_kernel.during_cmd = NULL;
	ck_assert_int_eq(moving_post_ret, 0);
	ck_assert_uint_eq(to_rsrq(moving_srq)->rq.ring.mask, 31);
	ck_assert_uint_eq(kqueue[moving_srq->handle]->producer_index, 3);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(srq_wr_id(moving_srq, i), i + 1);
	ck_assert_int_eq(ibv_destroy_srq(moving_srq), 0);
}
END_TEST

/* As resize_cq_unmappable: posting fails until a move maps again. */
START_TEST(modify_srq_unmappable)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 3, .max_sge = 2 } };
	struct ibv_srq_attr attr = { .max_wr = 20, .srq_limit = 1 };
	struct ibv_sge sg = { 0x100, 10, 1 };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sg, .num_sge = 1 }, *bad = NULL;
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);

	ck_assert_ptr_nonnull(srq);
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
	unmappable_move = true;
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), EPROTO);
	wr.wr_id = 2;
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), EIO);
	ck_assert_ptr_eq(bad, &wr);
	/* a limit alone does not move the ring, nor bring it back */
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), 0);
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), EIO);

	unmappable_move = false;
	ck_assert_int_eq(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), 0);
	ck_assert_int_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
	ck_assert_uint_eq(kqueue[srq->handle]->producer_index, 2);
	ck_assert_uint_eq(srq_wr_id(srq, 0), 1);
	ck_assert_uint_eq(srq_wr_id(srq, 1), 2);
	ck_assert_int_eq(ibv_destroy_srq(srq), 0);
}
END_TEST

static Suite *rxe_suite(void)
{
	Suite *s = suite_create("rxe");
	TCase *t = tcase_create("provider");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, ring_map_checks);
	tcase_add_test(t, cq_geometry);
	tcase_add_test(t, poll_cq_fields);
	tcase_add_test(t, poll_cq_wraps);
	tcase_add_test(t, cq_ex_polling);
	tcase_add_test(t, cq_ex_unsupported);
	tcase_add_test(t, cq_ex_hints);
	tcase_add_test(t, resize_cq_remaps);
	tcase_add_test(t, resize_cq_while_polled);
	tcase_add_test(t, resize_cq_unmappable);
	tcase_add_test(t, create_cq_bad_ring);
	tcase_add_test(t, qp_geometry);
	tcase_add_test(t, post_send_encodes);
	tcase_add_test(t, bind_mw_type1);
	tcase_add_test(t, post_send_refusals);
	tcase_add_test(t, post_send_doorbell_refused);
	tcase_add_test(t, wr_doorbell_refused);
	tcase_add_test(t, post_send_full);
	tcase_add_test(t, ud_send);
	tcase_add_test(t, wr_batch);
	tcase_add_test(t, wr_ud_needs_address);
	tcase_add_test(t, create_qp_refusals);
	tcase_add_test(t, post_recv_encodes);
	tcase_add_test(t, post_by_state);
	tcase_add_test(t, srq_resize);
	tcase_add_test(t, modify_srq_while_posted);
	tcase_add_test(t, modify_srq_unmappable);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return unit_run(rxe_suite(), CK_FORK_GETENV);
}
