/* SPDX-License-Identifier: MIT */
/*
 * What the stream engine's files (resources.c data.c iomap*.c poll.c)
 * share beyond rs.h.
 */
#ifndef OPENVERBS_RSOCKET_ENGINE_H
#define OPENVERBS_RSOCKET_ENGINE_H

#include "rs.h"

/* A work request id says what its completion gives back: the class in
 * bits 63..62, the message it carried in 55..24, and the send-ring bytes
 * it held (data) or the message slot (receive) in 23..0. */
enum rs_wr_class { RS_WR_DATA = 0, RS_WR_CTRL = 1, RS_WR_RECV = 2 };

static inline uint64_t rs_wr_id(enum rs_wr_class cls, uint32_t msg, uint32_t low)
{
	return (uint64_t)cls << 62 | (uint64_t)msg << 24 | low;
}

/* Counters both the sending thread and the CQ reaper change. */
static inline uint32_t rs_load32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline uint16_t rs_load16(const uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Send WRs (and control slots) one message takes: iWARP adds a SEND. */
static inline uint16_t rs_wrs_per_msg(const struct rsocket *rs)
{
	return rs->iwarp ? 2 : 1;
}

/*
 * The next transfer of a send with left bytes to go: *olen, doubled after
 * each one up to RS_MAX_TRANSFER (small first transfers keep latency low),
 * at most left and the free send buffer.
 */
static inline uint32_t rs_next_xfer(struct rsocket *rs, uint32_t *olen, size_t left)
{
	uint32_t xfer = (uint32_t)left;

	if (*olen < left) {
		xfer = *olen;
		if (*olen < RS_MAX_TRANSFER)
			*olen <<= 1;
	}
	if (xfer > rs_load32(&rs->sbuf_bytes_avail))
		xfer = rs_load32(&rs->sbuf_bytes_avail);
	return xfer;
}

int rs_post_recv(struct rsocket *rs, uint32_t slot);

bool rs_can_send(struct rsocket *rs);
/* Until a data write may be posted: 0, ECONNRESET once not writable,
 * EWOULDBLOCK, or a failure. */
int rs_wait_can_send(struct rsocket *rs, int flags);
/* Posts one RDMA write of sge (with the message as immediate, or as the
 * iWARP SEND after it, when msg_imm), charging the send ring bytes. */
int rs_post_write(struct rsocket *rs, enum rs_wr_class cls, uint32_t msg,
		  bool msg_imm, uint32_t charged, struct ibv_sge *sge, int nsge,
		  uint64_t raddr, uint32_t rkey);
/* Copies len bytes at src into the send ring (charged); fills up to two
 * SGEs and returns how many. */
/* A data or iomap write takes its send WRs; credited ones count against
 * the peer's limit. */
void rs_take_send_slot(struct rsocket *rs, bool credited);
/* rpoll: arm the CQ before sleeping on cq_channel; take its event after. */
void rs_arm_cq(struct rsocket *rs);
void rs_cq_woke(struct rsocket *rs);
int rs_copy_to_sbuf(struct rsocket *rs, const void *src, uint32_t len, struct ibv_sge sge[2]);

/* wire.c: into the peer's byte order when it differs from ours. */
void rs_sge_to_peer(const struct rsocket *rs, struct rs_sge *sge);
void rs_iomap_to_peer(const struct rsocket *rs, struct rs_iomap *entry);

/* iomap_reg.c, iomap.c: a riomap() registration, in the socket's list
 * of published ones or its queue to publish (map_lock). */
struct rs_iomap_mr {
	struct rs_iomap_mr *next;
	struct ibv_mr *mr;
	uint64_t offset;
	int index;			/* in the peer's table; -1: not published */
};

static inline void rs_push(struct rs_iomap_mr **list, struct rs_iomap_mr *m)
{
	m->next = *list;
	*list = m;
}

/* iomap.c */
int rs_send_iomaps(struct rsocket *rs, int flags);
/* iomap_reg.c */
void rs_iomap_free_all(struct rsocket *rs);

#endif
