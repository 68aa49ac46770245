/* SPDX-License-Identifier: MIT */
/*
 * Direct placement (WIRE.md A.8), its transfers: the registrations
 * riomap() queued are published in the peer's iomap table at the next
 * send call; riowrite() RDMA-writes into a buffer the peer published in
 * ours.  iomap_reg.c has riomap() and riounmap().
 */
#include "engine.h"

#include <string.h>

static struct rs_iomap *rs_local_iomap(struct rsocket *rs)
{
	return (struct rs_iomap *)(rs->target_sgl + RS_SGL_SIZE);
}

/* One entry into the peer's table: a credited write with immediate. */
static int rs_publish(struct rsocket *rs, struct rs_iomap_mr *m)
{
	struct rs_iomap e = {
		.offset = m->offset,
		.sge = {
			.addr = (uintptr_t)m->mr->addr,
			.key = m->mr->rkey,
			.length = (uint32_t)m->mr->length,
		},
	};
	struct ibv_sge sge[2];
	uint32_t charged = 0;
	int nsge = 1;

	rs_iomap_to_peer(rs, &e);
	if (sizeof(e) <= rs->sq_inline) {
		sge[0].addr = (uintptr_t)&e;
		sge[0].length = sizeof(e);
		sge[0].lkey = 0;
	} else {
		nsge = rs_copy_to_sbuf(rs, &e, sizeof(e), sge);
		charged = sizeof(e);
	}
	/* Counted against credits, though the peer never returns them:
	 * each one shrinks the window for good (A.6.5, upstream quirk). */
	rs_take_send_slot(rs, true);
	return rs_post_write(rs, RS_WR_DATA, rs_msg(RS_OP_IOMAP_SGL, (uint32_t)m->index), true,
			     charged, sge, nsge,
			     rs->remote_iomap.addr + (uint64_t)m->index * sizeof(e),
			     rs->remote_iomap.key);
}

/* Caller holds slock. */
int rs_send_iomaps(struct rsocket *rs, int flags)
{
	int ret = 0;

	pthread_mutex_lock(&rs->map_lock);
	while (rs->iomap_queue) {
		struct rs_iomap_mr *m = rs->iomap_queue;

		ret = rs_wait_can_send(rs, flags);
		if (ret)
			break;
		ret = rs_publish(rs, m);
		if (ret)
			break;
		rs->iomap_queue = m->next;
		rs_push(&rs->iomap_list, m);
	}
	rs->iomap_pending = rs->iomap_queue != NULL;
	pthread_mutex_unlock(&rs->map_lock);
	return ret;
}

/* The entry of our table the peer published that covers offset. */
static bool rs_find_iomap(struct rsocket *rs, uint64_t offset, struct rs_iomap *out)
{
	struct rs_iomap *table = rs_local_iomap(rs);

	for (uint32_t i = 0; i < rs->target_iomap_size; i++) {
		struct rs_iomap e;

		memcpy(&e, (const void *)&table[i], sizeof(e));
		if (e.sge.length && e.offset <= offset && offset - e.offset < e.sge.length) {
			*out = e;
			return true;
		}
	}
	return false;
}

static ssize_t rs_iowrite(struct rsocket *rs, const uint8_t *buf, size_t count,
			  uint64_t offset, int flags)
{
	uint32_t olen = RS_OLAP_START_SIZE;
	size_t left = count;
	int ret = 0;

	/* Nothing to write into yet: upstream answers 0, no error. */
	if (!rs->cq || !(rs->state & (RS_CONNECTED | RS_DISCONNECTED | RS_ERROR)))
		return 0;
	pthread_mutex_lock(&rs->slock);
	if (rs->iomap_pending)
		ret = rs_send_iomaps(rs, flags);
	while (!ret && left) {
		struct rs_iomap e;
		struct ibv_sge sge[2];
		uint32_t xfer, charged = 0;
		int nsge = 1;

		ret = rs_wait_can_send(rs, flags);
		if (ret || !rs_find_iomap(rs, offset, &e))
			break;
		xfer = rs_next_xfer(rs, &olen, left);
		if (xfer > e.offset + e.sge.length - offset)
			xfer = (uint32_t)(e.offset + e.sge.length - offset);
		if (xfer <= rs->sq_inline) {
			sge[0].addr = (uintptr_t)buf;
			sge[0].length = xfer;
			sge[0].lkey = 0;
		} else {
			nsge = rs_copy_to_sbuf(rs, buf, xfer, sge);
			charged = xfer;
		}
		/* No immediate, no credit: the peer is not told (A.8.5). */
		rs_take_send_slot(rs, false);
		ret = rs_post_write(rs, RS_WR_DATA, rs_msg(RS_OP_WRITE, xfer), false, charged,
				    sge, nsge, e.sge.addr + (offset - e.offset), e.sge.key);
		if (ret)
			break;
		buf += xfer;
		left -= xfer;
		offset += xfer;
	}
	pthread_mutex_unlock(&rs->slock);
	if (ret && left == count)
		return -ret;
	return (ssize_t)(count - left);
}

size_t riowrite(int socket, const void *buf, size_t count, off_t offset, int flags)
{
	struct rsocket *rs = rs_lookup(socket);

	if (!rs)
		return (size_t)cma_fail(EBADF);
	if (rs->type != SOCK_STREAM || (count && !buf))
		return (size_t)cma_fail(EINVAL);
	return (size_t)rs_fail_ssize(rs_iowrite(rs, buf, count, (uint64_t)offset, flags));
}
