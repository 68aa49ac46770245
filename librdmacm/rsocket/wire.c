/* SPDX-License-Identifier: MIT */
/*
 * The connect private data (WIRE.md A.1.6, A.1.10) and the 8-bit scale the
 * iomap table size travels in (A.8.2).
 */
#include "engine.h"

#include <byteswap.h>
#include <endian.h>
#include <string.h>

/* Sizes up to 128 go as they are; above, in units of 256 with the top bit
 * set.  129..255 therefore shrink to 128, as upstream's encoding does. */
uint8_t rs_scale_encode(uint32_t entries)
{
	if (entries <= 128)
		return (uint8_t)entries;
	return (uint8_t)(0x80 | (entries >> 8));
}

uint32_t rs_scale_decode(uint8_t scaled)
{
	if (scaled <= 128)
		return scaled;
	return (uint32_t)(scaled & 0x7f) << 8;
}

static bool rs_host_is_big_endian(void)
{
	return htobe16(1) == 1;
}

static void rs_sge_to_be(struct rs_sge *out, uint64_t addr, uint32_t key, uint32_t length)
{
	out->addr = htobe64(addr);
	out->key = htobe32(key);
	out->length = htobe32(length);
}

void rs_conn_data_build(const struct rsocket *rs, struct rs_conn_data *out)
{
	memset(out, 0, sizeof(*out));
	out->version = RS_CONN_VERSION;
	out->flags = RS_CONN_FLAG_IOMAP | (rs_host_is_big_endian() ? RS_CONN_FLAG_NET : 0);
	out->credits = htobe16(rs->rq_size);
	out->target_iomap_size = rs_scale_encode(rs->target_iomap_size);
	rs_sge_to_be(&out->target_sgl, (uintptr_t)rs->target_sgl, rs->target_mr->rkey, RS_SGL_SIZE);
	rs_sge_to_be(&out->data_buf, (uintptr_t)rs->rbuf, rs->rmr->rkey, rs->rbuf_size / 2);
}

int rs_conn_data_apply(struct rsocket *rs, const struct rs_conn_data *in)
{
	if (!rs->target_sgl)
		return EINVAL;		/* before rs_create_resources() */
	if (in->version != RS_CONN_VERSION)
		return ENOTSUP;

	rs->remote_sgl.addr = be64toh(in->target_sgl.addr);
	rs->remote_sgl.key = be32toh(in->target_sgl.key);
	rs->remote_sgl.length = be32toh(in->target_sgl.length);
	/* The peer's first ring half is where our first data goes. */
	rs->target_sgl[0].addr = be64toh(in->data_buf.addr);
	rs->target_sgl[0].key = be32toh(in->data_buf.key);
	rs->target_sgl[0].length = be32toh(in->data_buf.length);
	rs->sseq_comp = be16toh(in->credits);
	rs->swap_sgl = !(in->flags & RS_CONN_FLAG_NET) != !rs_host_is_big_endian();

	if (in->flags & RS_CONN_FLAG_IOMAP) {
		/* The peer's table follows its SGL entries (A.3.5). */
		rs->remote_iomap.addr = rs->remote_sgl.addr +
					sizeof(struct rs_sge) * rs->remote_sgl.length;
		rs->remote_iomap.key = rs->remote_sgl.key;
		rs->remote_iomap.length = rs_scale_decode(in->target_iomap_size);
	} else {
		memset(&rs->remote_iomap, 0, sizeof(rs->remote_iomap));
	}
	return 0;
}

/* What we RDMA-write into the peer's tables is in the peer's byte order
 * (A.5.4, A.8.4). */
void rs_sge_to_peer(const struct rsocket *rs, struct rs_sge *sge)
{
	if (!rs->swap_sgl)
		return;
	sge->addr = bswap_64(sge->addr);
	sge->key = bswap_32(sge->key);
	sge->length = bswap_32(sge->length);
}

void rs_iomap_to_peer(const struct rsocket *rs, struct rs_iomap *entry)
{
	if (!rs->swap_sgl)
		return;
	entry->offset = bswap_64(entry->offset);
	rs_sge_to_peer(rs, &entry->sge);
}
