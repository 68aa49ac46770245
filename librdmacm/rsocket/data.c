/* SPDX-License-Identifier: MIT */
/*
 * The RC message protocol of stream rsockets (WIRE.md A.2, A.4-A.7, A.9):
 * data as RDMA writes with immediate into the peer's ring, receive space
 * advertised as SGEs written into the peer's target SGL, credits, control
 * messages; and the r* send and receive calls on top.
 *
 * Threads: the sender holds slock, the receiver rlock, whoever reaps the
 * CQ or posts a control message cq_lock.  Counters that the sender (or
 * receiver) and the reaper both change are atomic; the receive queue is
 * a single-producer (reaper), single-consumer (receiver) ring.
 */
#include "engine.h"

#include <poll.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

enum { RS_WC_BATCH = 16 };

/* ---- receives ---- */

static uint32_t *rs_msg_slot(struct rsocket *rs, uint32_t slot)
{
	return (uint32_t *)(rs->rbuf + rs->rbuf_size) + slot;
}

/* Without iWARP a receive takes no bytes: the immediate is the message. */
static void rs_recv_wr(struct rsocket *rs, uint32_t slot, struct ibv_recv_wr *wr,
		       struct ibv_sge *sge)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = rs_wr_id(RS_WR_RECV, 0, slot);
	if (rs->iwarp) {
		sge->addr = (uintptr_t)rs_msg_slot(rs, slot);
		sge->length = RS_MSG_SIZE;
		sge->lkey = rs->rmr->lkey;
		wr->sg_list = sge;
		wr->num_sge = 1;
	}
}

int rs_post_recv(struct rsocket *rs, uint32_t slot)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;

	rs_recv_wr(rs, slot, &wr, &sge);
	return ibv_post_recv(rs->cm_id->qp, &wr, &bad);
}

static uint32_t rs_rmsg_next(const struct rsocket *rs, int i)
{
	return (uint32_t)(i + 1) % (rs->rq_size + 1u);
}

static bool rs_have_rdata(struct rsocket *rs)
{
	return rs->rmsg_head != __atomic_load_n(&rs->rmsg_tail, __ATOMIC_ACQUIRE);
}

static void rs_queue_rmsg(struct rsocket *rs, uint32_t op, uint32_t data)
{
	int tail = rs->rmsg_tail;
	int next = (int)rs_rmsg_next(rs, tail);

	/* A conforming peer cannot overrun it (A.6.8). */
	if (next == __atomic_load_n(&rs->rmsg_head, __ATOMIC_ACQUIRE))
		return;
	rs->rmsg[tail].op = op;
	rs->rmsg[tail].data = data;
	__atomic_store_n(&rs->rmsg_tail, next, __ATOMIC_RELEASE);
}

static void rs_recv_ctrl(struct rsocket *rs, uint32_t ctrl)
{
	if (ctrl == RS_CTRL_DISCONNECT) {
		rs->state = RS_DISCONNECTED;
	} else if (ctrl == RS_CTRL_SHUTDOWN) {
		if (rs->state & RS_WRITABLE)
			rs->state &= ~RS_READABLE;
		else
			rs->state = RS_DISCONNECTED;
	}
}

static void rs_recv_done(struct rsocket *rs, const struct ibv_wc *wc)
{
	/* iWARP's message is the 4-byte SEND, in the sender's order (A.9.2). */
	uint32_t msg = rs->iwarp ? *rs_msg_slot(rs, (uint32_t)wc->wr_id & 0xffffff)
				 : be32toh(wc->imm_data);

	switch (rs_msg_op(msg)) {
	case RS_OP_SGL:
		/* The SGE itself, if any, is already in place (A.5.7). */
		__atomic_store_n(&rs->sseq_comp, (uint16_t)rs_msg_arg(msg), __ATOMIC_RELEASE);
		break;
	case RS_OP_IOMAP_SGL:
	case RS_OP_WRITE:
		break;
	case RS_OP_CTRL:
		rs_recv_ctrl(rs, rs_msg_arg(msg));
		break;
	default:
		/* Reserved ops 1, 3, 5 queue like data: upstream does (A.2.6). */
		rs_queue_rmsg(rs, rs_msg_op(msg), rs_msg_arg(msg));
		break;
	}
}

/* ---- sends ---- */

static void rs_send_done(struct rsocket *rs, const struct ibv_wc *wc)
{
	enum rs_wr_class cls = (enum rs_wr_class)(wc->wr_id >> 62);
	uint32_t msg = (uint32_t)(wc->wr_id >> 24);

	if (cls == RS_WR_CTRL) {
		rs->ctrl_avail++;
		if (msg == rs_msg(RS_OP_CTRL, RS_CTRL_DISCONNECT))
			rs->state = RS_DISCONNECTED;
	} else {
		__atomic_add_fetch(&rs->sqe_avail, 1, __ATOMIC_RELEASE);
		__atomic_add_fetch(&rs->sbuf_bytes_avail, (uint32_t)wc->wr_id & 0xffffff,
				   __ATOMIC_RELEASE);
	}
	if (wc->status != IBV_WC_SUCCESS && (rs->state & RS_CONNECTED)) {
		rs->state = RS_ERROR;
		rs->err = EIO;
	}
}

int rs_post_write(struct rsocket *rs, enum rs_wr_class cls, uint32_t msg,
		  bool msg_imm, uint32_t charged, struct ibv_sge *sge, int nsge,
		  uint64_t raddr, uint32_t rkey)
{
	uint32_t len = 0;
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge msg_sge;

	for (int i = 0; i < nsge; i++)
		len += sge[i].length;
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = rs_wr_id(cls, msg_imm && rs->iwarp ? 0 : msg, charged);
	wr[0].sg_list = sge;
	wr[0].num_sge = nsge;
	wr[0].opcode = msg_imm && !rs->iwarp ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr[0].imm_data = htobe32(msg);
	wr[0].send_flags = len && len <= rs->sq_inline ? IBV_SEND_INLINE : 0;
	wr[0].wr.rdma.remote_addr = raddr;
	wr[0].wr.rdma.rkey = rkey;
	if (!msg_imm || !rs->iwarp)
		return ibv_post_send(rs->cm_id->qp, wr, &bad);

	/* iWARP: the write, then the message as a 4-byte inline SEND; a
	 * message without payload is the SEND alone (A.9.1). */
	msg_sge.addr = (uintptr_t)&msg;
	msg_sge.length = RS_MSG_SIZE;
	msg_sge.lkey = 0;
	wr[1].wr_id = rs_wr_id(cls, msg, 0);
	wr[1].sg_list = &msg_sge;
	wr[1].num_sge = 1;
	wr[1].opcode = IBV_WR_SEND;
	wr[1].send_flags = IBV_SEND_INLINE;
	if (!len)
		return ibv_post_send(rs->cm_id->qp, &wr[1], &bad);
	wr[0].next = &wr[1];
	return ibv_post_send(rs->cm_id->qp, wr, &bad);
}

int rs_copy_to_sbuf(struct rsocket *rs, const void *src, uint32_t len, struct ibv_sge sge[2])
{
	uint32_t first = rs->sbuf_size - rs->sbuf_head;
	int n = 1;

	if (first > len)
		first = len;
	memcpy(rs->sbuf + rs->sbuf_head, src, first);
	sge[0].addr = (uintptr_t)(rs->sbuf + rs->sbuf_head);
	sge[0].length = first;
	sge[0].lkey = rs->smr->lkey;
	if (len > first) {
		memcpy(rs->sbuf, (const uint8_t *)src + first, len - first);
		sge[1].addr = (uintptr_t)rs->sbuf;
		sge[1].length = len - first;
		sge[1].lkey = rs->smr->lkey;
		n = 2;
	}
	rs->sbuf_head = (rs->sbuf_head + len) % rs->sbuf_size;
	__atomic_sub_fetch(&rs->sbuf_bytes_avail, len, __ATOMIC_RELEASE);
	return n;
}

/* ---- credits and receive space (A.5, A.6) ---- */

static bool rs_credits_due(struct rsocket *rs)
{
	return (rs->state & RS_CONNECTED) && rs->ctrl_avail >= rs_wrs_per_msg(rs) &&
	       (rs_load32(&rs->rbuf_bytes_avail) >= rs->rbuf_size / 2 ||
		(int16_t)(rs_load16(&rs->rseq_no) - rs->rseq_comp) >= 0);
}

/* Control payloads go inline, or from a staging slot after the send ring
 * (at most RS_QP_CTRL_SIZE are in flight). */
static void rs_ctrl_payload(struct rsocket *rs, const void *data, uint32_t len,
			    struct ibv_sge *sge)
{
	if (len <= rs->sq_inline) {
		sge->addr = (uintptr_t)data;
	} else {
		uint8_t *slot = rs->sbuf + rs->sbuf_size + rs->ctrl_stage * RS_MAX_CTRL_MSG;

		memcpy(slot, data, len);
		rs->ctrl_stage = (rs->ctrl_stage + 1) % RS_QP_CTRL_SIZE;
		sge->addr = (uintptr_t)slot;
	}
	sge->length = len;
	sge->lkey = rs->smr->lkey;
}

/* Caller holds cq_lock. */
static void rs_send_credits(struct rsocket *rs)
{
	uint32_t half = rs->rbuf_size / 2;
	uint16_t rseq_no = rs_load16(&rs->rseq_no);
	/* The sum may pass 16 bits; the peer keeps the low ones (A.6.3). */
	uint32_t msg = rs_msg(RS_OP_SGL, (uint32_t)rseq_no + rs->rq_size);
	/* A message without payload is one WR on iWARP too. */
	uint16_t slots = 1;
	struct ibv_sge sge;
	int ret;

	rs->rseq_comp = rseq_no + rs->rq_size / 2;
	if (rs_load32(&rs->rbuf_bytes_avail) < half) {
		rs->ctrl_avail -= slots;
		ret = rs_post_write(rs, RS_WR_CTRL, msg, true, 0, NULL, 0, 0, 0);
	} else {
		struct rs_sge space = {
			.addr = (uintptr_t)(rs->rbuf + rs->rbuf_free_offset),
			.key = rs->rmr->rkey,
			.length = half,
		};
		uint32_t count = rs->remote_sgl.length ? rs->remote_sgl.length : RS_SGL_SIZE;

		slots = rs_wrs_per_msg(rs);
		rs->ctrl_avail -= slots;
		rs_sge_to_peer(rs, &space);
		rs_ctrl_payload(rs, &space, sizeof(space), &sge);
		ret = rs_post_write(rs, RS_WR_CTRL, msg, true, 0, &sge, 1,
				    rs->remote_sgl.addr + (uint64_t)rs->remote_sge * sizeof(space),
				    rs->remote_sgl.key);
		rs->remote_sge = (rs->remote_sge + 1) % (int)count;
		__atomic_sub_fetch(&rs->rbuf_bytes_avail, half, __ATOMIC_RELEASE);
		rs->rbuf_free_offset += half;
		if (rs->rbuf_free_offset >= rs->rbuf_size)
			rs->rbuf_free_offset = 0;
	}
	if (ret)
		rs->ctrl_avail += slots;
}

static void rs_update_credits(struct rsocket *rs)
{
	if (rs_credits_due(rs))
		rs_send_credits(rs);
}

/* ---- the CQ ---- */

/* Caller holds cq_lock.  Receives are re-posted as they are reaped. */
static int rs_poll_cq(struct rsocket *rs)
{
	struct ibv_wc wc[RS_WC_BATCH];
	struct ibv_recv_wr rwr[RS_WC_BATCH], *bad;
	struct ibv_sge rsge[RS_WC_BATCH];
	int n, nrecv;

	do {
		n = ibv_poll_cq(rs->cq, RS_WC_BATCH, wc);
		if (n < 0)
			return EIO;
		nrecv = 0;
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id >> 62 != RS_WR_RECV) {
				rs_send_done(rs, &wc[i]);
				continue;
			}
			/* A failed receive is skipped (A.2.3): it is a flush. */
			if (wc[i].status != IBV_WC_SUCCESS)
				continue;
			rs_recv_done(rs, &wc[i]);
			rs_recv_wr(rs, (uint32_t)wc[i].wr_id & 0xffffff, &rwr[nrecv], &rsge[nrecv]);
			if (nrecv)
				rwr[nrecv - 1].next = &rwr[nrecv];
			nrecv++;
		}
		/* A failed re-post means a QP in error: the connection's end
		 * shows in its completions and CM events, not here. */
		if (nrecv)
			ibv_post_recv(rs->cm_id->qp, rwr, &bad);
	} while (n == RS_WC_BATCH);
	return 0;
}

/* Reap the CQ without blocking (credits and SGL updates go out). */
static int rs_process_cq(struct rsocket *rs)
{
	int ret;

	if (!rs->cq)
		return ENOTCONN;
	pthread_mutex_lock(&rs->cq_lock);
	rs_update_credits(rs);
	ret = rs_poll_cq(rs);
	rs_update_credits(rs);
	pthread_mutex_unlock(&rs->cq_lock);
	return ret;
}

/* Caller holds cq_lock: the CQ event, if one is there.  Another waiter
 * may have taken it, so look first: the read must not block. */
static void rs_take_cq_event(struct rsocket *rs)
{
	struct pollfd pfd = { .fd = rs->cq_channel->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	if (poll(&pfd, 1, 0) == 1 && !ibv_get_cq_event(rs->cq_channel, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		rs->cq_armed = false;
	}
}

void rs_arm_cq(struct rsocket *rs)
{
	pthread_mutex_lock(&rs->cq_lock);
	if (!rs->cq_armed && !ibv_req_notify_cq(rs->cq, 0))
		rs->cq_armed = true;
	pthread_mutex_unlock(&rs->cq_lock);
}

void rs_cq_woke(struct rsocket *rs)
{
	pthread_mutex_lock(&rs->cq_lock);
	rs_take_cq_event(rs);
	pthread_mutex_unlock(&rs->cq_lock);
}

typedef bool (*rs_test_fn)(struct rsocket *rs);

/* Sleeps until test holds: reap, arm, reap again, then wait for the CQ
 * channel or the CM channel (a peer gone without DISCONNECT, A.7.6). */
static int rs_wait_cq(struct rsocket *rs, rs_test_fn test)
{
	struct pollfd fds[2] = {
		{ .fd = rs->cq_channel->fd, .events = POLLIN },
		{ .fd = rs->number, .events = POLLIN },
	};
	nfds_t nfds = rs->number >= 0 ? 2 : 1;
	int ret;

	pthread_mutex_lock(&rs->cq_lock);
	for (;;) {
		rs_update_credits(rs);
		ret = rs_poll_cq(rs);
		rs_update_credits(rs);
		if (test(rs) || ret)
			break;
		if (!rs->cq_armed) {
			ret = ibv_req_notify_cq(rs->cq, 0);
			if (ret)
				break;
			rs->cq_armed = true;
			continue;
		}
		pthread_mutex_unlock(&rs->cq_lock);
		ret = poll(fds, nfds, -1);
		if (ret > 0 && nfds > 1 && fds[1].revents)
			rs_cm_event(rs);
		pthread_mutex_lock(&rs->cq_lock);
		if (ret < 0 && errno != EINTR) {
			ret = errno;
			break;
		}
		ret = 0;
		if (fds[0].revents)
			rs_take_cq_event(rs);
		if (test(rs))
			break;
	}
	pthread_mutex_unlock(&rs->cq_lock);
	return ret;
}

static uint64_t rs_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Reaps until test holds: busy for polling_time, then sleeping unless
 * nonblock (EWOULDBLOCK). */
static int rs_get_comp(struct rsocket *rs, bool nonblock, rs_test_fn test)
{
	uint64_t start = 0;
	int ret;

	for (;;) {
		ret = rs_process_cq(rs);
		if (test(rs))
			return 0;
		if (ret)
			return ret;
		if (nonblock)
			return EWOULDBLOCK;
		if (!rs_config.polling_time)
			break;
		if (!start)
			start = rs_now_us();
		else if (rs_now_us() - start >= rs_config.polling_time)
			break;
	}
	return rs_wait_cq(rs, test);
}

/* ---- sending ---- */

static volatile uint32_t *rs_target_length(struct rsocket *rs)
{
	/* The peer writes the entry while its length is 0. */
	return &rs->target_sgl[rs->target_sge].length;
}

bool rs_can_send(struct rsocket *rs)
{
	return rs_load16(&rs->sqe_avail) >= rs_wrs_per_msg(rs) &&
	       rs_load32(&rs->sbuf_bytes_avail) >= RS_SNDLOWAT &&
	       rs->sseq_no != rs_load16(&rs->sseq_comp) &&
	       *rs_target_length(rs) != 0;
}

static bool rs_conn_can_send(struct rsocket *rs)
{
	return rs_can_send(rs) || !(rs->state & RS_WRITABLE);
}

int rs_wait_can_send(struct rsocket *rs, int flags)
{
	int ret = 0;

	if (!rs_can_send(rs))
		ret = rs_get_comp(rs, rs_nonblocking(rs, flags), rs_conn_can_send);
	if (ret)
		return ret;
	return rs->state & RS_WRITABLE ? 0 : ECONNRESET;
}

void rs_take_send_slot(struct rsocket *rs, bool credited)
{
	/* Only credited writes carry a message (iWARP: a second WR). */
	if (credited)
		rs->sseq_no++;
	__atomic_sub_fetch(&rs->sqe_avail, credited ? rs_wrs_per_msg(rs) : 1, __ATOMIC_RELEASE);
}

/* Where the bytes come from: a cursor over the caller's iovecs. */
struct rs_src {
	const struct iovec *iov;
	size_t off;
};

static void rs_src_copy(struct rs_src *src, uint8_t *dst, size_t len)
{
	while (len) {
		size_t n = src->iov->iov_len - src->off;

		if (n > len)
			n = len;
		memcpy(dst, (const uint8_t *)src->iov->iov_base + src->off, n);
		dst += n;
		len -= n;
		src->off += n;
		if (src->off == src->iov->iov_len) {
			src->iov++;
			src->off = 0;
		}
	}
}

static void rs_src_skip_empty(struct rs_src *src, const struct iovec *end)
{
	while (src->iov < end && src->off == src->iov->iov_len) {
		src->iov++;
		src->off = 0;
	}
}

/* One data write of len bytes into the current target entry (A.4.2). */
static int rs_write_data(struct rsocket *rs, struct rs_src *src, uint32_t len)
{
	struct rs_sge *entry = &rs->target_sgl[rs->target_sge];
	uint64_t raddr = entry->addr;
	uint32_t charged = 0;
	struct ibv_sge sge[2];
	int nsge = 1;
	int ret;

	if (len <= rs->sq_inline && src->iov->iov_len - src->off >= len) {
		/* Inline straight from the caller's buffer. */
		sge[0].addr = (uintptr_t)src->iov->iov_base + src->off;
		sge[0].length = len;
		sge[0].lkey = 0;
		src->off += len;
	} else {
		uint32_t first = rs->sbuf_size - rs->sbuf_head;

		if (first > len)
			first = len;
		rs_src_copy(src, rs->sbuf + rs->sbuf_head, first);
		rs_src_copy(src, rs->sbuf, len - first);
		sge[0].addr = (uintptr_t)(rs->sbuf + rs->sbuf_head);
		sge[0].length = first;
		sge[0].lkey = rs->smr->lkey;
		if (len > first) {
			sge[1].addr = (uintptr_t)rs->sbuf;
			sge[1].length = len - first;
			sge[1].lkey = rs->smr->lkey;
			nsge = 2;
		}
		/* Inline copies at post time: the ring keeps nothing then. */
		if (len > rs->sq_inline) {
			charged = len;
			rs->sbuf_head = (rs->sbuf_head + len) % rs->sbuf_size;
			__atomic_sub_fetch(&rs->sbuf_bytes_avail, len, __ATOMIC_RELEASE);
		}
	}
	rs_take_send_slot(rs, true);
	entry->addr += len;
	entry->length -= len;
	if (!entry->length)
		rs->target_sge = (rs->target_sge + 1) % RS_SGL_SIZE;
	ret = rs_post_write(rs, RS_WR_DATA, rs_msg(RS_OP_DATA, len), true, charged,
			    sge, nsge, raddr, entry->key);
	return ret;
}

/* Before a stream transfer: a nonblocking connect in progress is driven
 * on; 0 once connected (or after the peer or an error ended it), -errno. */
static int rs_stream_ready(struct rsocket *rs)
{
	int ret;

	if (rs->state & RS_OPENING) {
		ret = rs_do_connect(rs);
		if (ret)
			return -(ret == EINPROGRESS ? EAGAIN : ret);
	}
	if (!rs->cq || !(rs->state & (RS_CONNECTED | RS_DISCONNECTED | RS_ERROR)))
		return -ENOTCONN;
	return 0;
}

static ssize_t rs_send_iov(struct rsocket *rs, const struct iovec *iov, int iovcnt, int flags)
{
	const struct iovec *end = iov + iovcnt;
	struct rs_src src = { .iov = iov, .off = 0 };
	uint32_t olen = RS_OLAP_START_SIZE;
	size_t len = 0, left;
	int ret = 0;

	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	left = len;
	ret = rs_stream_ready(rs);
	if (ret)
		return ret;

	pthread_mutex_lock(&rs->slock);
	if (rs->iomap_pending) {
		ret = rs_send_iomaps(rs, flags);
		if (ret)
			goto out;
	}
	while (left) {
		uint32_t xfer;

		ret = rs_wait_can_send(rs, flags);
		if (ret)
			break;
		xfer = rs_next_xfer(rs, &olen, left);
		if (xfer > *rs_target_length(rs))
			xfer = *rs_target_length(rs);
		rs_src_skip_empty(&src, end);
		ret = rs_write_data(rs, &src, xfer);
		if (ret)
			break;
		left -= xfer;
	}
out:
	pthread_mutex_unlock(&rs->slock);
	if (ret && left == len)
		return -ret;
	return (ssize_t)(len - left);
}

/* ---- receiving ---- */

static bool rs_conn_have_rdata(struct rsocket *rs)
{
	return rs_have_rdata(rs) || !(rs->state & RS_READABLE);
}

static void rs_copy_from_ring(struct rsocket *rs, uint32_t offset, uint8_t *dst, uint32_t len)
{
	uint32_t first = rs->rbuf_size - offset;

	if (first > len)
		first = len;
	memcpy(dst, rs->rbuf + offset, first);
	if (len > first)
		memcpy(dst + first, rs->rbuf, len - first);
}

/* Copies what is queued, up to len; consumes it unless peek. */
static size_t rs_take_rdata(struct rsocket *rs, uint8_t *buf, size_t len, bool peek)
{
	uint32_t offset = rs->rbuf_offset;
	int head = rs->rmsg_head;
	uint32_t tail = (uint32_t)__atomic_load_n(&rs->rmsg_tail, __ATOMIC_ACQUIRE);
	uint32_t skip = 0;	/* peek: bytes of the head message already seen */
	size_t done = 0;

	while (done < len && (uint32_t)head != tail) {
		struct rs_rmsg *msg = &rs->rmsg[head];
		uint32_t n = msg->data - skip;

		if (n > len - done)
			n = (uint32_t)(len - done);
		rs_copy_from_ring(rs, offset, buf + done, n);
		done += n;
		offset = (offset + n) % rs->rbuf_size;
		if (peek) {
			skip += n;
			if (skip == msg->data) {
				head = (int)rs_rmsg_next(rs, head);
				skip = 0;
			}
			continue;
		}
		msg->data -= n;
		__atomic_add_fetch(&rs->rbuf_bytes_avail, n, __ATOMIC_RELEASE);
		if (!msg->data) {
			head = (int)rs_rmsg_next(rs, head);
			__atomic_store_n(&rs->rmsg_head, head, __ATOMIC_RELEASE);
			__atomic_add_fetch(&rs->rseq_no, 1, __ATOMIC_RELEASE);
		}
	}
	if (!peek)
		rs->rbuf_offset = offset;
	return done;
}

/* Space the application freed goes back to the peer now rather than at
 * the next CQ pass: the peer may be waiting for it. */
static void rs_return_space(struct rsocket *rs)
{
	if (rs_load32(&rs->rbuf_bytes_avail) < rs->rbuf_size / 2 &&
	    (int16_t)(rs_load16(&rs->rseq_no) - rs->rseq_comp) < 0)
		return;
	pthread_mutex_lock(&rs->cq_lock);
	rs_update_credits(rs);
	pthread_mutex_unlock(&rs->cq_lock);
}

static ssize_t rs_recv(struct rsocket *rs, void *buf, size_t len, int flags)
{
	size_t done = 0;
	int ret = 0;

	ret = rs_stream_ready(rs);
	if (ret)
		return ret;

	pthread_mutex_lock(&rs->rlock);
	do {
		if (!rs_have_rdata(rs)) {
			ret = rs_get_comp(rs, rs_nonblocking(rs, flags), rs_conn_have_rdata);
			if (ret)
				break;
			if (!rs_have_rdata(rs))
				break;	/* no longer readable: end of stream */
		}
		done += rs_take_rdata(rs, (uint8_t *)buf + done, len - done, flags & MSG_PEEK);
	} while (done < len && (flags & MSG_WAITALL) && !(flags & MSG_PEEK) &&
		 (rs->state & RS_READABLE));
	if (!(flags & MSG_PEEK) && done)
		rs_return_space(rs);
	pthread_mutex_unlock(&rs->rlock);
	if (ret && !done)
		return -ret;
	return (ssize_t)done;
}

/* ---- control messages (rshutdown, rclose, keepalive) ---- */

static bool rs_can_send_ctrl(struct rsocket *rs)
{
	return rs->ctrl_avail >= 1 || !(rs->state & RS_CONNECTED);
}

static bool rs_all_sends_done(struct rsocket *rs)
{
	return (rs_load16(&rs->sqe_avail) == rs->sq_size - RS_QP_CTRL_SIZE &&
		rs->ctrl_avail == RS_QP_CTRL_SIZE) || !(rs->state & RS_CONNECTED);
}

int rs_send_ctrl(struct rsocket *rs, uint32_t ctrl)
{
	int ret;

	if (!rs->cq)
		return ENOTCONN;
	for (;;) {
		pthread_mutex_lock(&rs->cq_lock);
		if (rs->ctrl_avail) {
			rs->ctrl_avail--;
			/* Keepalive is a plain 0-byte write, no message (A.7.8). */
			ret = rs_post_write(rs, RS_WR_CTRL, rs_msg(RS_OP_CTRL, ctrl),
					    ctrl != RS_CTRL_KEEPALIVE, 0, NULL, 0, 0, 0);
			if (ret)
				rs->ctrl_avail++;
			pthread_mutex_unlock(&rs->cq_lock);
			return ret;
		}
		pthread_mutex_unlock(&rs->cq_lock);
		if (!(rs->state & RS_CONNECTED))
			return ENOTCONN;
		/* Waits for a slot even on a non-blocking socket (A.7.1). */
		ret = rs_get_comp(rs, false, rs_can_send_ctrl);
		if (ret)
			return ret;
	}
}

int rs_drain_sends(struct rsocket *rs)
{
	if (!rs->cq)
		return 0;
	return rs_get_comp(rs, false, rs_all_sends_done);
}

short rs_stream_poll(struct rsocket *rs, short events)
{
	short revents = 0;

	rs_process_cq(rs);
	if ((events & POLLIN) && rs_conn_have_rdata(rs))
		revents |= POLLIN;
	if ((events & POLLOUT) && rs_can_send(rs))
		revents |= POLLOUT;
	/* Upstream also reports POLLHUP while data is still queued, which
	 * makes its own rstream -T a quit before reading the last bytes the
	 * peer sent before closing; as TCP does, the hang-up shows once the
	 * data is read (then rrecv returns 0). */
	if (rs->state == RS_DISCONNECTED && !rs_have_rdata(rs))
		revents |= POLLHUP;
	else if (!(rs->state & (RS_CONNECTED | RS_DISCONNECTED)))
		revents |= POLLERR;
	return revents;
}

/* ---- the public calls ---- */

static struct rsocket *rs_get(int socket)
{
	struct rsocket *rs = rs_lookup(socket);

	if (!rs)
		errno = EBADF;
	return rs;
}

ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	struct rsocket *rs = rs_get(socket);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (!rs)
		return -1;
	if (rs->type == SOCK_DGRAM)
		return rs_fail_ssize(ds_sendto(rs, buf, len, flags, NULL, 0));
	if (len && !buf)
		return rs_fail_ssize(-EFAULT);
	return rs_fail_ssize(rs_send_iov(rs, &iov, 1, flags));
}

ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
		const struct sockaddr *dest_addr, socklen_t addrlen)
{
	struct rsocket *rs = rs_get(socket);

	if (!rs)
		return -1;
	if (rs->type == SOCK_DGRAM)
		return rs_fail_ssize(ds_sendto(rs, buf, len, flags, dest_addr, addrlen));
	/* A connected stream takes no address: EISCONN, as upstream 44
	 * answers in the guest (NULL/0 sends). */
	if (dest_addr || addrlen)
		return rs_fail_ssize(-EISCONN);
	return rsend(socket, buf, len, flags);
}

static ssize_t rs_sendv(struct rsocket *rs, const struct iovec *iov, int iovcnt, int flags)
{
	if (iovcnt < 0 || (iovcnt && !iov))
		return -EINVAL;
	for (int i = 0; i < iovcnt; i++)
		if (iov[i].iov_len && !iov[i].iov_base)
			return -EFAULT;
	return rs_send_iov(rs, iov, iovcnt, flags);
}

/*
 * What rsendmsg and rrecvmsg refuse alike (-errno): no header, ancillary
 * data, and on a datagram socket no first iovec.
 */
static int rs_msg_refused(const struct rsocket *rs, const struct msghdr *msg)
{
	if (!msg)
		return -EINVAL;
	if (msg->msg_control && msg->msg_controllen)
		return -ENOTSUP;
	if (rs->type == SOCK_DGRAM && (msg->msg_iovlen < 1 || !msg->msg_iov))
		return -EINVAL;
	return 0;
}

ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	struct rsocket *rs = rs_get(socket);
	int ret;

	if (!rs)
		return -1;
	ret = rs_msg_refused(rs, msg);
	if (ret)
		return rs_fail_ssize(ret);
	if (rs->type == SOCK_DGRAM)
		return rs_fail_ssize(ds_sendto(rs, msg->msg_iov[0].iov_base,
					       msg->msg_iov[0].iov_len, flags,
					       msg->msg_name, msg->msg_namelen));
	return rs_fail_ssize(rs_sendv(rs, msg->msg_iov, (int)msg->msg_iovlen, flags));
}

ssize_t rwrite(int socket, const void *buf, size_t count)
{
	return rsend(socket, buf, count, 0);
}

ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	struct rsocket *rs = rs_get(socket);

	if (!rs)
		return -1;
	if (rs->type == SOCK_DGRAM) {
		if (iovcnt < 1 || !iov)
			return rs_fail_ssize(-EINVAL);
		return rs_fail_ssize(ds_sendto(rs, iov[0].iov_base, iov[0].iov_len, 0, NULL, 0));
	}
	return rs_fail_ssize(rs_sendv(rs, iov, iovcnt, 0));
}

ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	struct rsocket *rs = rs_get(socket);

	if (!rs)
		return -1;
	if (rs->type == SOCK_DGRAM)
		return rs_fail_ssize(ds_recvfrom(rs, buf, len, flags, NULL, NULL));
	if (len && !buf)
		return rs_fail_ssize(-EFAULT);
	return rs_fail_ssize(rs_recv(rs, buf, len, flags));
}

ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
		  struct sockaddr *src_addr, socklen_t *addrlen)
{
	struct rsocket *rs = rs_get(socket);
	ssize_t ret;

	if (!rs)
		return -1;
	if (rs->type == SOCK_DGRAM)
		return rs_fail_ssize(ds_recvfrom(rs, buf, len, flags, src_addr, addrlen));
	ret = rrecv(socket, buf, len, flags);
	if (ret > 0 && src_addr && addrlen)
		rgetpeername(socket, src_addr, addrlen);
	return ret;
}

/* Upstream fills only the first iovec on receive (WIRE.md D.6). */
static ssize_t rs_recv_first_iov(int socket, const struct iovec *iov, int iovcnt, int flags)
{
	if (iovcnt < 1 || !iov)
		return rs_fail_ssize(-EINVAL);
	return rrecv(socket, iov[0].iov_base, iov[0].iov_len, flags);
}

ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	struct rsocket *rs = rs_get(socket);
	int ret;

	(void)flags;
	if (!rs)
		return -1;
	ret = rs_msg_refused(rs, msg);
	if (ret)
		return rs_fail_ssize(ret);
	if (rs->type == SOCK_DGRAM)
		return rs_fail_ssize(ds_recvfrom(rs, msg->msg_iov[0].iov_base,
						 msg->msg_iov[0].iov_len, msg->msg_flags,
						 msg->msg_name, &msg->msg_namelen));
	/* Upstream passes msg_flags, not flags (quirk, D.6). */
	return rs_recv_first_iov(socket, msg->msg_iov, (int)msg->msg_iovlen, msg->msg_flags);
}

ssize_t rread(int socket, void *buf, size_t count)
{
	return rrecv(socket, buf, count, 0);
}

ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	return rs_recv_first_iov(socket, iov, iovcnt, 0);
}
