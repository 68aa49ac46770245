/* SPDX-License-Identifier: MIT */
/*
 * The soft-iWARP (siw) provider, private to providers/siw/.
 *
 * The kernel driver allocates each send, receive and completion queue as
 * a plain array of fixed-size elements (<rdma/siw-abi.h>) and lets us
 * mmap it through the uverbs fd at the key it returns.  Ownership of an
 * element travels in its flags word: SIW_WQE_VALID set means it belongs
 * to the consumer, 0 means it is free for the producer.  The producer
 * fills an element and then sets its flags with a release store; the
 * consumer reads the flags with an acquire load and clears them, with a
 * release store, once it is done.  Each side walks the array in order,
 * keeping its own position, so nothing else is shared; one lock per end
 * that we own serializes our side, and our own modify calls with it.
 *
 * Only the send queue needs a doorbell: a post_send command without work
 * requests makes the kernel walk it.  Completion notification is armed by
 * writing the flags of the struct siw_cq_ctrl that follows the CQ array.
 *
 * iWARP has no address handles, multicast, immediate data or UD; queue
 * pairs are connected through rdma_cm, which also moves them to RTS.
 */
#ifndef OPENVERBS_SIW_H
#define OPENVERBS_SIW_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/siw-abi.h>

#include "../../libverbs/driver.h"

struct siw_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct siw_cqe *queue;
	struct siw_cq_ctrl *ctrl;	/* after the last element */
	uint32_t num_cqe;
	uint32_t next;			/* the next element to read */
	size_t map_size;
};

/* A queue we produce into: a QP's send or receive queue, or an SRQ.
 * The lock is a mutex: modify_qp and modify_srq hold it across their
 * kernel call. */
struct siw_wq {
	pthread_mutex_t lock;
	void *queue;			/* siw_sqe or siw_rqe elements */
	uint32_t num;
	uint32_t next;			/* the next element to fill */
	size_t map_size;
};

struct siw_qp {
	struct verbs_qp vqp;
	struct siw_wq sq;
	struct siw_wq rq;		/* unmapped when the QP uses an SRQ */
	uint32_t sq_max_sge;
	bool sig_all;			/* every send signals a completion */
	bool sq_connected;		/* the kernel accepted a doorbell
					 * since the last move to RESET */
	enum ibv_qp_state state;	/* as our own modify_qp set it */
};

struct siw_srq {
	struct verbs_srq vsrq;
	struct siw_wq rq;
};

static inline struct siw_cq *to_scq(struct ibv_cq *cq)
{
	return (struct siw_cq *)cq;
}

static inline struct siw_qp *to_sqp(struct ibv_qp *qp)
{
	return (struct siw_qp *)qp;
}

static inline struct siw_srq *to_ssrq(struct ibv_srq *srq)
{
	return (struct siw_srq *)srq;
}

/* An element's flags: who owns it. */
static inline uint16_t siw_flags_acquire(const uint16_t *flags)
{
	return __atomic_load_n(flags, __ATOMIC_ACQUIRE);
}

static inline void siw_flags_release(uint16_t *flags, uint16_t value)
{
	__atomic_store_n(flags, value, __ATOMIC_RELEASE);
}

/* siw.c: maps the kernel's array at key; 0 or an errno value. */
int siw_map(int cmd_fd, uint64_t key, size_t size, void **queue);

/* cq.c */
struct ibv_cq *siw_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
int siw_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int siw_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int siw_destroy_cq(struct ibv_cq *cq);

/* qp.c */
struct ibv_qp *siw_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr);
int siw_destroy_qp(struct ibv_qp *qp);
int siw_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int siw_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
int siw_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
/* A queue's lock, then its mapping; destroy undoes both (the mapping
 * only if made).  0 or an errno value. */
int siw_wq_init(struct siw_wq *wq);
int siw_wq_map(struct siw_wq *wq, int cmd_fd, uint64_t key, uint32_t num, size_t elem);
void siw_wq_unmap(struct siw_wq *wq);
void siw_wq_destroy(struct siw_wq *wq);
/* Receive work requests into a QP's receive queue or an SRQ, whose lock
 * the caller holds. */
int siw_wq_post_recv(struct siw_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);

/* srq.c */
struct ibv_srq *siw_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr);
int siw_destroy_srq(struct ibv_srq *srq);
int siw_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
int siw_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

#endif
