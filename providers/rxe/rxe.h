/* SPDX-License-Identifier: MIT */
/*
 * The soft-RoCE (rdma_rxe) provider, private to providers/rxe/.
 *
 * The kernel driver keeps every send, receive and completion queue in a
 * ring it allocates (struct rxe_queue_buf: element size and index mask,
 * the producer and the consumer index on cache lines of their own, then
 * the slots) and lets us mmap it through the uverbs fd at the offset it
 * returns in a struct mminfo.  The data path therefore stays in user
 * space: we write work requests and read completions in place, and enter
 * the kernel only to kick the send queue.
 *
 * Indices are kept masked (0 .. index_mask): a ring is empty when they are
 * equal and full when the producer is one slot behind the consumer, so it
 * holds index_mask entries.  Each side owns one index and only reads the
 * other: the producer fills a slot and then publishes its index with a
 * release store; the consumer reads that index with an acquire load, and
 * publishes its own, with a release store, once it is done with the slot.
 * The kernel expects each side to be serialized, hence one lock per ring
 * end that we own.
 */
#ifndef OPENVERBS_RXE_H
#define OPENVERBS_RXE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "../../libverbs/driver.h"

/* The kernel driver's uverbs ABI version (RXE_UVERBS_ABI_VERSION, which
 * only the kernel's private headers name). */
#define RXE_ABI_VERSION 2

/* ------------------------------------------------------------------ */
/* Rings                                                               */

struct rxe_ring {
	struct rxe_queue_buf *buf;	/* the kernel's buffer, mapped */
	size_t map_size;
	uint32_t mask;			/* slots - 1 */
	uint32_t log2_elem;		/* slot size */
};

/* 0 or an errno value; the ring is unchanged on failure.  elem_size: the
 * bytes we read or write in one slot, which the kernel's slot size must
 * hold (EPROTO otherwise). */
int rxe_ring_map(struct rxe_ring *r, int cmd_fd, const struct mminfo *mi, size_t elem_size);
void rxe_ring_unmap(struct rxe_ring *r);

static inline void *rxe_ring_slot(const struct rxe_ring *r, uint32_t index)
{
	return r->buf->data + ((size_t)(index & r->mask) << r->log2_elem);
}

static inline uint32_t rxe_ring_next(const struct rxe_ring *r, uint32_t index)
{
	return (index + 1) & r->mask;
}

/* Producer end (send, receive and shared receive queues).  The producer
 * index is ours, so reading it back needs no ordering. */
static inline uint32_t rxe_ring_producer(const struct rxe_ring *r)
{
	return __atomic_load_n(&r->buf->producer_index, __ATOMIC_RELAXED);
}

/* Acquire: the kernel must be done reading a slot before we refill it. */
static inline bool rxe_ring_full(const struct rxe_ring *r, uint32_t prod)
{
	uint32_t cons = __atomic_load_n(&r->buf->consumer_index, __ATOMIC_ACQUIRE);

	return ((prod + 1 - cons) & r->mask) == 0;
}

static inline void rxe_ring_publish(struct rxe_ring *r, uint32_t prod)
{
	__atomic_store_n(&r->buf->producer_index, prod, __ATOMIC_RELEASE);
}

/* Consumer end (completion queues): the oldest entry, or NULL. */
static inline const void *rxe_ring_head(const struct rxe_ring *r)
{
	uint32_t cons = __atomic_load_n(&r->buf->consumer_index, __ATOMIC_RELAXED);

	if (cons == __atomic_load_n(&r->buf->producer_index, __ATOMIC_ACQUIRE))
		return NULL;
	return rxe_ring_slot(r, cons);
}

/* Release: the kernel may overwrite the slot as soon as it sees this. */
static inline void rxe_ring_pop(struct rxe_ring *r)
{
	uint32_t cons = __atomic_load_n(&r->buf->consumer_index, __ATOMIC_RELAXED);

	__atomic_store_n(&r->buf->consumer_index, rxe_ring_next(r, cons), __ATOMIC_RELEASE);
}

/*
 * Moving a ring (ibv_resize_cq, ibv_modify_srq with IBV_SRQ_MAX_WR): the
 * kernel copies the pending entries into a new ring, from the index it
 * reads at that moment, and abandons the old one.  So from the start of
 * the command until the new ring is mapped, nobody may consume from a
 * CQ's old ring (an entry would come out twice) or produce into an SRQ's
 * (the receive would be lost).  The mover's flags say so under the
 * spinlock of the ring end we own, and whoever finds a move running
 * waits on the mover's mutex, which the move holds across its system
 * calls: nobody spins through them.
 */
enum {
	RXE_RING_MOVING = 1 << 0,
	RXE_RING_LOST = 1 << 1,		/* moved, but the new ring could not be mapped */
};

struct rxe_ring_mover {
	unsigned int flags;		/* RXE_RING_*, under the ring end's spinlock */
	pthread_mutex_t lock;
};

/* 0 or an errno value. */
int rxe_mover_init(struct rxe_ring_mover *m);
void rxe_mover_destroy(struct rxe_ring_mover *m);

/* The out-of-line half of rxe_ring_end_lock(), entered with lock held. */
int rxe_ring_end_lock_slow(pthread_spinlock_t *lock, struct rxe_ring_mover *m);

/* Locks a ring end that can move, once no move runs: 0, or EIO and not
 * locked if its ring was lost. */
static inline int rxe_ring_end_lock(pthread_spinlock_t *lock, struct rxe_ring_mover *m)
{
	pthread_spin_lock(lock);
	if (__builtin_expect(!m->flags, 1))
		return 0;
	return rxe_ring_end_lock_slow(lock, m);
}

/* Starts a move of the ring behind lock; the caller then sends the
 * kernel command and hands its outcome to rxe_move_end(). */
void rxe_move_begin(struct rxe_ring_mover *m, pthread_spinlock_t *lock);
/* Ends the move.  moved_to: where the kernel put the ring, NULL if the
 * command failed and it stayed.  The new ring replaces *ring; if it
 * cannot be mapped, the ring is lost (until a later move succeeds) and
 * the mapping's error is returned.  elem_size as for rxe_ring_map(). */
int rxe_move_end(struct rxe_ring_mover *m, pthread_spinlock_t *lock, struct rxe_ring *ring,
		 int cmd_fd, const struct mminfo *moved_to, size_t elem_size);

/* ------------------------------------------------------------------ */
/* Objects                                                             */

struct rxe_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* the consumer end */
	struct rxe_ring ring;
	struct rxe_ring_mover mover;
	const struct ib_uverbs_wc *cur;	/* extended polling: entry being read */
};

/* A queue we produce into. */
struct rxe_wq {
	pthread_spinlock_t lock;
	struct rxe_ring ring;
	uint32_t max_sge;
	uint32_t max_inline;		/* send queues */
};

struct rxe_qp {
	struct verbs_qp vqp;
	struct rxe_wq sq;
	struct rxe_wq rq;		/* unmapped when the QP uses an SRQ */
	int state;			/* as last set by modify_qp; atomic */

	/* The ibv_wr_*() batch between wr_start and wr_complete/wr_abort,
	 * under sq.lock: nothing is published before wr_complete. */
	uint32_t wr_begin, wr_prod;
	struct rxe_send_wqe *wr_wqe;	/* being built; NULL after an error */
	int wr_err;
	struct ibv_mw **wr_mw;		/* per slot: the MW a bind is for */
};

struct rxe_srq {
	struct verbs_srq vsrq;
	struct rxe_wq rq;
	struct rxe_ring_mover mover;
};

struct rxe_ah {
	struct ibv_ah ibah;
	uint32_t ah_num;		/* the kernel's AV for UD sends */
};

static inline struct rxe_cq *to_rcq(struct ibv_cq *cq)
{
	return (struct rxe_cq *)cq;
}

static inline struct rxe_qp *to_rqp(struct ibv_qp *qp)
{
	return (struct rxe_qp *)qp;
}

static inline struct rxe_srq *to_rsrq(struct ibv_srq *srq)
{
	return (struct rxe_srq *)srq;
}

static inline struct rxe_ah *to_rah(struct ibv_ah *ah)
{
	return (struct rxe_ah *)ah;
}

/* ------------------------------------------------------------------ */
/* Ops (one file per object family)                                    */

/* cq.c */
struct ibv_cq *rxe_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr);
int rxe_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int rxe_resize_cq(struct ibv_cq *cq, int cqe);
int rxe_destroy_cq(struct ibv_cq *cq);

/* qp.c */
struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr);
int rxe_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int rxe_destroy_qp(struct ibv_qp *qp);
int rxe_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
/* Receive work requests into a receive or shared receive queue, whose
 * lock the caller holds. */
int rxe_wq_post_recv_locked(struct rxe_wq *wq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr);
/* wqe_base: sizeof the send or receive WQE, whose gather list (or a send's
 * inline data, in the same place) follows it in the slot. */
int rxe_wq_init(struct rxe_wq *wq, int cmd_fd, const struct mminfo *mi, size_t wqe_base,
		uint32_t max_sge, uint32_t max_inline);
/* The bytes one WQE takes with max_sge entries or max_inline bytes. */
static inline size_t rxe_wqe_size(size_t wqe_base, uint32_t max_sge, uint32_t max_inline)
{
	size_t sges = (size_t)max_sge * sizeof(struct rxe_sge);

	return wqe_base + (sges > max_inline ? sges : max_inline);
}
void rxe_wq_cleanup(struct rxe_wq *wq);

/* send.c */
/* The ibv_qp_ex send operations (IBV_QP_EX_WITH_*) rxe runs on a QP type. */
uint64_t rxe_send_ops_supported(enum ibv_qp_type type);
int rxe_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int rxe_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind);
/* Sets up the ibv_wr_*() interface of a new QP; 0 or an errno value. */
int rxe_qp_init_wr_ops(struct rxe_qp *qp, uint64_t send_ops_flags);

/* srq.c */
struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr);
int rxe_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
int rxe_destroy_srq(struct ibv_srq *srq);
int rxe_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

/* ah.c */
struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int rxe_destroy_ah(struct ibv_ah *ah);

#endif
