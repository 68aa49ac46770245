/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs: creation maps the send queue and, without an SRQ, the
 * receive queue; modify is the generic command run with the queues
 * locked, query and destroy are the generic commands.  Work requests are
 * written straight into the mapped queues.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "siw.h"

/* ------------------------------------------------------------------ */
/* Work queues we produce into                                         */

int siw_wq_init(struct siw_wq *wq)
{
	return pthread_mutex_init(&wq->lock, NULL);
}

void siw_wq_destroy(struct siw_wq *wq)
{
	siw_wq_unmap(wq);
	pthread_mutex_destroy(&wq->lock);
}

int siw_wq_map(struct siw_wq *wq, int cmd_fd, uint64_t key, uint32_t num, size_t elem)
{
	int ret;

	if (!num)
		return EPROTO;
	wq->map_size = (size_t)num * elem;
	ret = siw_map(cmd_fd, key, wq->map_size, &wq->queue);
	if (ret)
		return ret;
	wq->num = num;
	wq->next = 0;
	return 0;
}

void siw_wq_unmap(struct siw_wq *wq)
{
	if (!wq->queue)
		return;
	munmap(wq->queue, wq->map_size);
	wq->queue = NULL;
}

static uint32_t wq_advance(const struct siw_wq *wq, uint32_t index)
{
	return index + 1 == wq->num ? 0 : index + 1;
}

/* What was filled before an error is posted, as ibv_post_recv(3) says;
 * the kernel takes receive elements as messages arrive, no doorbell.
 * The caller holds wq->lock. */
int siw_wq_post_recv(struct siw_wq *wq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct siw_rqe *rqes = wq->queue;
	int ret = 0;

	for (; wr; wr = wr->next) {
		struct siw_rqe *rqe = &rqes[wq->next];

		if (siw_flags_acquire(&rqe->flags)) {
			ret = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > SIW_MAX_SGE) {
			ret = EINVAL;
			break;
		}
		rqe->id = wr->wr_id;
		rqe->num_sge = wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++) {
			rqe->sge[i].laddr = wr->sg_list[i].addr;
			rqe->sge[i].length = wr->sg_list[i].length;
			rqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		siw_flags_release(&rqe->flags, SIW_WQE_VALID);
		wq->next = wq_advance(wq, wq->next);
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

/*
 * Whether the QP takes work requests in the state our own modify_qp last
 * set (RESET until then; the caller holds a queue lock).  siw's query_qp
 * reports no state (the kernel driver never fills it in), and rdma_cm
 * moves siw QPs to RTS inside the kernel, so that is all user space
 * knows: INIT or RTR here may well be RTS there.  Refused are RESET, as
 * the verbs specification wants, and SQD, SQE and ERROR: the kernel's
 * siw makes them CLOSING, TERMINATE and ERROR, drops the connection,
 * flushes the queues at most once, at the move, and never looks at what
 * is posted afterwards, so such work would never complete.
 */
static bool takes_work(const struct siw_qp *qp)
{
	return qp->state == IBV_QPS_INIT || qp->state == IBV_QPS_RTR ||
	       qp->state == IBV_QPS_RTS;
}

int siw_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct siw_qp *qp = to_sqp(ibqp);
	int ret = EINVAL;

	if (ibqp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&qp->rq.lock);
	if (takes_work(qp))
		ret = siw_wq_post_recv(&qp->rq, wr, bad_wr);
	else
		*bad_wr = wr;
	pthread_mutex_unlock(&qp->rq.lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */

/* Inline data lives in the element itself, after its first SGE. */
static int copy_inline(struct siw_sqe *sqe, const struct ibv_send_wr *wr)
{
	char *dst = (char *)&sqe->sge[1];
	size_t total = 0;

	for (int i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > SIW_MAX_INLINE - total)
			return EINVAL;
		memcpy(dst + total, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		total += wr->sg_list[i].length;
	}
	sqe->sge[0].laddr = 0;
	sqe->sge[0].length = total;
	sqe->sge[0].lkey = 0;
	sqe->num_sge = 1;
	return 0;
}

/* Fills all of sqe but its flags, which are returned in *flags.  iWARP
 * has no immediate data, and siw runs no atomics, local invalidations
 * or memory window binds for user space.  What the kernel would refuse
 * only when it takes the element is refused here: it would leave the
 * element at the head of the queue and fail every later doorbell. */
static int fill_sqe(const struct siw_qp *qp, struct siw_sqe *sqe,
		    const struct ibv_send_wr *wr, uint16_t *flags)
{
	bool inline_data = false;

	switch (wr->opcode) {
	case IBV_WR_SEND:
		sqe->opcode = SIW_OP_SEND;
		inline_data = wr->send_flags & IBV_SEND_INLINE;
		break;
	case IBV_WR_SEND_WITH_INV:
		/* the kernel takes inline data with SEND and WRITE only */
		if (wr->send_flags & IBV_SEND_INLINE)
			return EINVAL;
		sqe->opcode = SIW_OP_SEND_REMOTE_INV;
		sqe->rkey = wr->invalidate_rkey;
		break;
	case IBV_WR_RDMA_WRITE:
		sqe->opcode = SIW_OP_WRITE;
		sqe->rkey = wr->wr.rdma.rkey;
		sqe->raddr = wr->wr.rdma.remote_addr;
		inline_data = wr->send_flags & IBV_SEND_INLINE;
		break;
	case IBV_WR_RDMA_READ:
		/* One target SGE (the device's max_sge_rd), and no fence: the
		 * kernel refuses a fenced READ.  It reads into sge[0] even
		 * when there is none, so that is a zero-length one then. */
		if (wr->num_sge > 1 || (wr->send_flags & IBV_SEND_FENCE))
			return EINVAL;
		sqe->opcode = SIW_OP_READ;
		sqe->rkey = wr->wr.rdma.rkey;
		sqe->raddr = wr->wr.rdma.remote_addr;
		sqe->sge[0] = (struct siw_sge){ 0 };
		break;
	default:
		return EINVAL;
	}
	if (wr->num_sge < 0 || wr->num_sge > (int)qp->sq_max_sge)
		return EINVAL;
	*flags = SIW_WQE_VALID;
	if (inline_data) {
		if (copy_inline(sqe, wr))
			return EINVAL;
		*flags |= SIW_WQE_INLINE;
	} else {
		sqe->num_sge = wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++) {
			sqe->sge[i].laddr = wr->sg_list[i].addr;
			sqe->sge[i].length = wr->sg_list[i].length;
			sqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	sqe->id = wr->wr_id;
	if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sig_all)
		*flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		*flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		*flags |= SIW_WQE_READ_FENCE;
	return 0;
}

/*
 * The doorbell: a post_send command without work requests.  The kernel
 * (siw_post_send) accepts it in RTS, where it starts the transmitter on
 * the first VALID element unless a transmit is already running, and in
 * ERROR, where it does nothing.  It refuses it with ENOTCONN in the other
 * states, and also in RTS while a state transition holds the QP's state
 * lock.  One accepted doorbell says the kernel's connection manager has
 * had the QP: it is in RTS, or in ERROR after a connection, or an attempt
 * at one, ended (work posted then never completes, as with upstream's
 * provider; user space cannot tell the two apart).
 */
static int ring_doorbell(struct siw_qp *qp)
{
	int ret = verbs_cmd_post_send(&qp->vqp.qp, NULL, NULL);

	if (!ret)
		qp->sq_connected = true;
	return ret;
}

/*
 * Whether the kernel is bound to reach the elements a post just wrote,
 * first..first+written-1, without a doorbell: the element before them is
 * still VALID, so the kernel has not taken it yet.  It got there from an
 * earlier post that rang (an accepted doorbell starts the transmitter in
 * RTS unless it is running already), that was spared the doorbell for
 * the same reason, or whose doorbell found the QP out of RTS for good,
 * where ringing again changes nothing.  A running transmit, when it
 * finishes an element, pulls the next VALID one, and it stops only when
 * the QP leaves RTS (a doorbell would be refused then, and the flush on
 * the way to ERROR takes every VALID element) or on a full socket, until
 * the socket's write-space callback resumes it.  Racing a transmit that
 * ends at that element: we publish ours, then read its flags; the kernel
 * clears them, with a full barrier, before it reads ours.  With a full
 * fence on our side too, either we see them cleared and ring, or it sees
 * ours VALID.  A post that filled the whole queue is its own predecessor,
 * and rings.
 */
static bool kernel_bound_to_reach(const struct siw_qp *qp, uint32_t first, uint32_t written)
{
	const struct siw_sqe *sqes = qp->sq.queue;
	uint32_t before = first ? first - 1 : qp->sq.num - 1;

	if (written == qp->sq.num)
		return false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return siw_flags_acquire(&sqes[before].flags) & SIW_WQE_VALID;
}

/*
 * Once an element is VALID we cannot take it back: the kernel copies an
 * element and then clears its flags, so a flag we clear may belong to an
 * element it is copying.  And the kernel walks the queue without our
 * doorbell: in RTS a running transmit pulls the next VALID element when
 * it finishes one (also after answering a peer's RDMA READ, or an MPA
 * "ready to receive" frame), and every move to ERROR from RTS, TERMINATE
 * or CLOSING, or a connection torn down in any state (a connection
 * attempt that fails, too), flushes every VALID element as a completion.
 * None of this happens before rdma_cm has handed the QP to the kernel's
 * connection manager, which user space cannot see; only an accepted
 * doorbell says the kernel is past that point.
 *
 * So until then the first element is made VALID only after a doorbell on
 * the still empty queue was accepted; a refusal fails the post with
 * nothing handed over.  After that, what was written is the kernel's: a
 * refused doorbell means the QP is leaving RTS, which flushes the queue,
 * and comes back with bad_wr NULL (ibv_post_send(3)), or is dropped when
 * a request of the list was refused as well, which bad_wr then names.
 * No doorbell is rung when the kernel is bound to reach the new elements
 * anyway.  Nothing here allocates; the doorbell is the only system call.
 */
int siw_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct siw_qp *qp = to_sqp(ibqp);
	struct siw_sqe *sqes = qp->sq.queue;
	uint32_t first, written = 0;
	uint16_t flags;
	int ret = 0, kick;

	pthread_mutex_lock(&qp->sq.lock);
	if (!takes_work(qp)) {
		ret = EINVAL;
		goto out;
	}
	first = qp->sq.next;
	for (; wr; wr = wr->next) {
		struct siw_sqe *sqe = &sqes[qp->sq.next];

		if (siw_flags_acquire(&sqe->flags)) {
			ret = ENOMEM;
			break;
		}
		ret = fill_sqe(qp, sqe, wr, &flags);
		if (!ret && !qp->sq_connected)
			ret = ring_doorbell(qp);
		if (ret)
			break;
		siw_flags_release(&sqe->flags, flags);
		qp->sq.next = wq_advance(&qp->sq, qp->sq.next);
		written++;
	}
	if (written && !kernel_bound_to_reach(qp, first, written)) {
		kick = ring_doorbell(qp);
		if (kick && !ret)
			ret = kick;
	}
out:
	pthread_mutex_unlock(&qp->sq.lock);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* ------------------------------------------------------------------ */
/* State                                                               */

/*
 * Our own state changes run with both queues locked, so no post runs
 * alongside.  A move to ERROR flushes the queues in the kernel, under
 * the QP's state lock: a post running meanwhile would have its doorbell
 * refused for that lock, and could publish elements behind the flush,
 * where nothing completes them.  The queue locks are mutexes since they
 * are held across this system call; uncontended they cost a post one
 * atomic operation each way, as the spinlocks they replace did.
 */
int siw_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct siw_qp *qp = to_sqp(ibqp);
	int ret;

	pthread_mutex_lock(&qp->sq.lock);
	pthread_mutex_lock(&qp->rq.lock);
	ret = verbs_cmd_modify_qp(ibqp, attr, mask, NULL);
	if (!ret && (mask & IBV_QP_STATE)) {
		qp->state = attr->qp_state;
		/* ask the kernel again before the next send: after a
		 * connection went, only a new one brings back RTS (siw
		 * ignores RESET in RTS, which the next doorbell shows) */
		if (qp->state == IBV_QPS_RESET)
			qp->sq_connected = false;
	}
	pthread_mutex_unlock(&qp->rq.lock);
	pthread_mutex_unlock(&qp->sq.lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Create and destroy                                                  */

struct ibv_qp *siw_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	struct siw_uresp_create_qp resp = {};
	struct verbs_udata udata = { .out = &resp, .out_len = sizeof(resp) };
	struct siw_qp *qp;
	int ret;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = siw_wq_init(&qp->sq);
	if (ret)
		goto err_free;
	/* locked by modify_qp also when the QP uses an SRQ */
	ret = siw_wq_init(&qp->rq);
	if (ret)
		goto err_sq;
	ret = verbs_cmd_create_qp(ctx, &qp->vqp, attr, &udata);
	if (ret)
		goto err_rq;
	/* attr->cap now holds what the kernel granted. */
	qp->sq_max_sge = attr->cap.max_send_sge;
	qp->sig_all = attr->sq_sig_all;
	ret = siw_wq_map(&qp->sq, ctx->cmd_fd, resp.sq_key, resp.num_sqe, sizeof(struct siw_sqe));
	if (ret)
		goto err_destroy;
	if (!attr->srq) {
		ret = siw_wq_map(&qp->rq, ctx->cmd_fd, resp.rq_key, resp.num_rqe,
				 sizeof(struct siw_rqe));
		if (ret)
			goto err_destroy;
	}
	return &qp->vqp.qp;

err_destroy:
	verbs_cmd_destroy_qp(&qp->vqp.qp);
err_rq:
	siw_wq_destroy(&qp->rq);
err_sq:
	siw_wq_destroy(&qp->sq);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

int siw_destroy_qp(struct ibv_qp *ibqp)
{
	struct siw_qp *qp = to_sqp(ibqp);
	int ret = verbs_cmd_destroy_qp(ibqp);

	if (ret)
		return ret;
	siw_wq_destroy(&qp->rq);
	siw_wq_destroy(&qp->sq);
	free(qp);
	return 0;
}
