/* SPDX-License-Identifier: MIT */
/*
 * The bytes a stream rsocket's peer sees without a connection: the
 * private data block (layouts.txt section 3), the iomap scale (the probe
 * samples of section 9), the immediate values (section 5) and the SGE and
 * iomap entries written in the peer's byte order (WIRE.md A.5.4).
 */
#include <byteswap.h>
#include <endian.h>
#include <string.h>

#include "rsocket/engine.h"
#include "unit.h"

/* Fake buffer addresses, their upper half kept where pointers have one. */
static const uint64_t rbuf_addr = UINTPTR_MAX & 0x00007f1122334000ull;
static const uint64_t target_sgl_addr = UINTPTR_MAX & 0x00007f5566778000ull;

/* A socket as rs_create_resources() leaves it, without a device. */
struct fake_conn {
	struct rsocket rs;
	struct ibv_mr rmr, target_mr;
	struct rs_sge target[RS_SGL_SIZE];
	uint8_t ring[64];
};

static void fake_conn_init(struct fake_conn *c)
{
	memset(c, 0, sizeof(*c));
	c->rs.rq_size = 384;
	c->rs.rbuf_size = 131072;
	c->rs.rbuf = (uint8_t *)(uintptr_t)rbuf_addr;
	c->rs.target_sgl = (struct rs_sge *)(uintptr_t)target_sgl_addr;
	c->rmr.rkey = 0x11223344;
	c->target_mr.rkey = 0xa1b2c3d4;
	c->rs.rmr = &c->rmr;
	c->rs.target_mr = &c->target_mr;
}

START_TEST(private_data_bytes)
{
	/* the addresses (bytes 8-15, 24-31) as on a 64-bit machine */
	uint8_t expected[40] = {
		0x01, 0x02, 0x01, 0x80, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x7f, 0x55, 0x66, 0x77, 0x80, 0x00,
		0xa1, 0xb2, 0xc3, 0xd4, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x7f, 0x11, 0x22, 0x33, 0x40, 0x00,
		0x11, 0x22, 0x33, 0x44, 0x00, 0x01, 0x00, 0x00,
	};
	struct fake_conn c;
	struct rs_conn_data data;

	for (int i = 0; i < 8; i++) {
		expected[8 + i] = (uint8_t)(target_sgl_addr >> (56 - 8 * i));
		expected[24 + i] = (uint8_t)(rbuf_addr >> (56 - 8 * i));
	}
	fake_conn_init(&c);
	memset(&data, 0xee, sizeof(data));
	rs_conn_data_build(&c.rs, &data);
	ck_assert_int_eq(sizeof(data), 40);
	ck_assert_mem_eq(&data, expected, sizeof(expected));

	c.rs.target_iomap_size = 384;		/* advertised as 256 */
	rs_conn_data_build(&c.rs, &data);
	ck_assert_uint_eq(((uint8_t *)&data)[7], 129);
}
END_TEST

START_TEST(private_data_apply)
{
	struct fake_conn ours, peer;
	struct rs_conn_data data;

	fake_conn_init(&peer);
	peer.rs.rq_size = 100;
	peer.rs.target_iomap_size = 8;
	rs_conn_data_build(&peer.rs, &data);

	fake_conn_init(&ours);
	ours.rs.target_sgl = ours.target;
	ck_assert_int_eq(rs_conn_data_apply(&ours.rs, &data), 0);
	ck_assert_uint_eq(ours.rs.sseq_comp, 100);
	ck_assert_uint_eq(ours.rs.remote_sgl.addr, target_sgl_addr);
	ck_assert_uint_eq(ours.rs.remote_sgl.key, 0xa1b2c3d4);
	ck_assert_uint_eq(ours.rs.remote_sgl.length, 2);
	/* The peer's first ring half is where our data goes first. */
	ck_assert_uint_eq(ours.target[0].addr, rbuf_addr);
	ck_assert_uint_eq(ours.target[0].key, 0x11223344);
	ck_assert_uint_eq(ours.target[0].length, 65536);
	/* Its iomap table is 32 bytes after its SGL, under the same key. */
	ck_assert_uint_eq(ours.rs.remote_iomap.addr, target_sgl_addr + 0x20);
	ck_assert_uint_eq(ours.rs.remote_iomap.key, 0xa1b2c3d4);
	ck_assert_uint_eq(ours.rs.remote_iomap.length, 8);
	ck_assert(!ours.rs.swap_sgl);

	/* A big-endian peer: what we write into its tables is swapped. */
	data.flags ^= RS_CONN_FLAG_NET;
	ck_assert_int_eq(rs_conn_data_apply(&ours.rs, &data), 0);
	ck_assert(ours.rs.swap_sgl);

	/* No iomap flag: no table. */
	data.flags &= (uint8_t)~RS_CONN_FLAG_IOMAP;
	ck_assert_int_eq(rs_conn_data_apply(&ours.rs, &data), 0);
	ck_assert_uint_eq(ours.rs.remote_iomap.length, 0);

	data.version = 2;
	ck_assert_int_eq(rs_conn_data_apply(&ours.rs, &data), ENOTSUP);
}
END_TEST

START_TEST(iomap_scale_samples)
{
	/* value, byte, decoded: the probe's samples. */
	static const uint32_t samples[][3] = {
		{ 0, 0, 0 }, { 32, 32, 32 }, { 64, 64, 64 }, { 96, 96, 96 },
		{ 127, 127, 127 }, { 128, 128, 128 }, { 129, 128, 128 },
		{ 200, 128, 128 }, { 256, 129, 256 }, { 384, 129, 256 },
		{ 512, 130, 512 }, { 640, 130, 512 }, { 768, 131, 768 },
		{ 896, 131, 768 }, { 1024, 132, 1024 },
	};

	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		uint8_t b = rs_scale_encode(samples[i][0]);

		ck_assert_uint_eq(b, samples[i][1]);
		ck_assert_uint_eq(rs_scale_decode(b), samples[i][2]);
	}
}
END_TEST

START_TEST(immediate_values)
{
	ck_assert_uint_eq(rs_msg(RS_OP_CTRL, RS_CTRL_DISCONNECT), 0xe0000000u);
	ck_assert_uint_eq(rs_msg(RS_OP_CTRL, RS_CTRL_SHUTDOWN), 0xe0000002u);
	ck_assert_uint_eq(rs_msg(RS_OP_SGL, 0x180), 0x80000180u);
	/* The credit sum may pass 16 bits without touching the op. */
	ck_assert_uint_eq(rs_msg(RS_OP_SGL, 65535 + 65534), 0x8001fffdu);
	ck_assert_uint_eq(rs_msg(RS_OP_IOMAP_SGL, 3), 0xc0000003u);
	ck_assert_uint_eq(rs_msg(RS_OP_DATA, 100), 0x00000064u);
	ck_assert_uint_eq(rs_msg(RS_OP_DATA, 65536), 0x00010000u);
	ck_assert_int_eq(rs_msg_op(0xe0000002u), RS_OP_CTRL);
	ck_assert_uint_eq(rs_msg_arg(0x8001fffdu), 0x1fffd);
	ck_assert_int_eq(rs_msg_op(0x20000010u), 1);
}
END_TEST

START_TEST(sge_in_peer_order)
{
	struct rsocket rs = { .swap_sgl = false };
	struct rs_sge sge = { .addr = 0x0102030405060708ull, .key = 0x0a0b0c0d, .length = 65536 };
	struct rs_iomap e = { .offset = 0x1122334455667788ull, .sge = sge };

	rs_sge_to_peer(&rs, &sge);
	ck_assert_uint_eq(sge.addr, 0x0102030405060708ull);
	ck_assert_uint_eq(sge.length, 65536);

	rs.swap_sgl = true;
	rs_sge_to_peer(&rs, &sge);
	ck_assert_uint_eq(sge.addr, 0x0807060504030201ull);
	ck_assert_uint_eq(sge.key, 0x0d0c0b0a);
	ck_assert_uint_eq(sge.length, 0x00000100);

	rs_iomap_to_peer(&rs, &e);
	ck_assert_uint_eq(e.offset, 0x8877665544332211ull);
	ck_assert_uint_eq(e.sge.addr, 0x0807060504030201ull);
	ck_assert_uint_eq(e.sge.key, 0x0d0c0b0a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rsocket_wire");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, private_data_bytes);
	tcase_add_test(tc, private_data_apply);
	tcase_add_test(tc, iomap_scale_samples);
	tcase_add_test(tc, immediate_values);
	tcase_add_test(tc, sge_in_peer_order);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
