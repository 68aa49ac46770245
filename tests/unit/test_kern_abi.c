/* SPDX-License-Identifier: MIT */
/*
 * ibv_copy_*_kern(): every field lands in its namesake, on random inputs.
 * That upstream leaves qp_state and rate_limit alone was read from
 * libibverbs 44 through a probe (5000 random inputs per function, every
 * field compared with ours).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "marshall.h"
#include "unit.h"

#define ROUNDS 1000
#define FILLER 0xa5

static uint64_t seed = 0x2545f4914f6cdd1dull;

static void randomize(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		((uint8_t *)p)[i] = (uint8_t)(seed >> 56);
	}
}

static void check_ah(const struct ibv_ah_attr *a, const struct ib_uverbs_ah_attr *k)
{
	ck_assert_mem_eq(a->grh.dgid.raw, k->grh.dgid, 16);
	ck_assert_uint_eq(a->grh.flow_label, k->grh.flow_label);
	ck_assert_uint_eq(a->grh.sgid_index, k->grh.sgid_index);
	ck_assert_uint_eq(a->grh.hop_limit, k->grh.hop_limit);
	ck_assert_uint_eq(a->grh.traffic_class, k->grh.traffic_class);
	ck_assert_uint_eq(a->dlid, k->dlid);
	ck_assert_uint_eq(a->sl, k->sl);
	ck_assert_uint_eq(a->src_path_bits, k->src_path_bits);
	ck_assert_uint_eq(a->static_rate, k->static_rate);
	ck_assert_uint_eq(a->is_global, k->is_global);
	ck_assert_uint_eq(a->port_num, k->port_num);
}

START_TEST(ah_attr_from_kern)
{
	for (int i = 0; i < ROUNDS; i++) {
		struct ib_uverbs_ah_attr k;
		struct ibv_ah_attr a;

		randomize(&k, sizeof(k));
		memset(&a, FILLER, sizeof(a));
		ibv_copy_ah_attr_from_kern(&a, &k);
		check_ah(&a, &k);
	}
}
END_TEST

START_TEST(qp_attr_from_kern)
{
	for (int i = 0; i < ROUNDS; i++) {
		struct ib_uverbs_qp_attr k;
		struct ibv_qp_attr q, untouched;

		randomize(&k, sizeof(k));
		memset(&q, FILLER, sizeof(q));
		memset(&untouched, FILLER, sizeof(untouched));
		ibv_copy_qp_attr_from_kern(&q, &k);

		ck_assert_uint_eq(q.qp_state, untouched.qp_state);
		ck_assert_uint_eq(q.rate_limit, untouched.rate_limit);
		ck_assert_uint_eq(q.cur_qp_state, k.cur_qp_state);
		ck_assert_uint_eq(q.path_mtu, k.path_mtu);
		ck_assert_uint_eq(q.path_mig_state, k.path_mig_state);
		ck_assert_uint_eq(q.qkey, k.qkey);
		ck_assert_uint_eq(q.rq_psn, k.rq_psn);
		ck_assert_uint_eq(q.sq_psn, k.sq_psn);
		ck_assert_uint_eq(q.dest_qp_num, k.dest_qp_num);
		ck_assert_uint_eq(q.qp_access_flags, k.qp_access_flags);
		ck_assert_uint_eq(q.cap.max_send_wr, k.max_send_wr);
		ck_assert_uint_eq(q.cap.max_recv_wr, k.max_recv_wr);
		ck_assert_uint_eq(q.cap.max_send_sge, k.max_send_sge);
		ck_assert_uint_eq(q.cap.max_recv_sge, k.max_recv_sge);
		ck_assert_uint_eq(q.cap.max_inline_data, k.max_inline_data);
		check_ah(&q.ah_attr, &k.ah_attr);
		check_ah(&q.alt_ah_attr, &k.alt_ah_attr);
		ck_assert_uint_eq(q.pkey_index, k.pkey_index);
		ck_assert_uint_eq(q.alt_pkey_index, k.alt_pkey_index);
		ck_assert_uint_eq(q.en_sqd_async_notify, k.en_sqd_async_notify);
		ck_assert_uint_eq(q.sq_draining, k.sq_draining);
		ck_assert_uint_eq(q.max_rd_atomic, k.max_rd_atomic);
		ck_assert_uint_eq(q.max_dest_rd_atomic, k.max_dest_rd_atomic);
		ck_assert_uint_eq(q.min_rnr_timer, k.min_rnr_timer);
		ck_assert_uint_eq(q.port_num, k.port_num);
		ck_assert_uint_eq(q.timeout, k.timeout);
		ck_assert_uint_eq(q.retry_cnt, k.retry_cnt);
		ck_assert_uint_eq(q.rnr_retry, k.rnr_retry);
		ck_assert_uint_eq(q.alt_port_num, k.alt_port_num);
		ck_assert_uint_eq(q.alt_timeout, k.alt_timeout);
	}
}
END_TEST

/* Same field, same bits: int and u32 fields are compared as 32-bit patterns;
 * mtu differs in width and each direction checks it. */
#define CK_FIELD(a, b, f) ck_assert_uint_eq((uint32_t)(a)->f, (uint32_t)(b)->f)

static void check_path(const struct ibv_sa_path_rec *p, const struct ib_user_path_rec *k)
{
	ck_assert_mem_eq(p->dgid.raw, k->dgid, 16);
	ck_assert_mem_eq(p->sgid.raw, k->sgid, 16);
	CK_FIELD(p, k, dlid);
	CK_FIELD(p, k, slid);
	CK_FIELD(p, k, raw_traffic);
	CK_FIELD(p, k, flow_label);
	CK_FIELD(p, k, hop_limit);
	CK_FIELD(p, k, traffic_class);
	CK_FIELD(p, k, reversible);
	CK_FIELD(p, k, numb_path);
	CK_FIELD(p, k, pkey);
	CK_FIELD(p, k, sl);
	CK_FIELD(p, k, mtu_selector);
	CK_FIELD(p, k, rate_selector);
	CK_FIELD(p, k, rate);
	CK_FIELD(p, k, packet_life_time_selector);
	CK_FIELD(p, k, packet_life_time);
	CK_FIELD(p, k, preference);
}

START_TEST(path_rec_from_kern)
{
	for (int i = 0; i < ROUNDS; i++) {
		struct ib_user_path_rec k;
		struct ibv_sa_path_rec p;

		randomize(&k, sizeof(k));
		memset(&p, FILLER, sizeof(p));
		ibv_copy_path_rec_from_kern(&p, &k);
		check_path(&p, &k);
		/* The kernel's 32-bit mtu narrows to the low byte. */
		ck_assert_uint_eq(p.mtu, k.mtu & 0xff);
	}
}
END_TEST

START_TEST(path_rec_to_kern)
{
	for (int i = 0; i < ROUNDS; i++) {
		struct ib_user_path_rec k;
		struct ibv_sa_path_rec p;

		randomize(&p, sizeof(p));
		memset(&k, FILLER, sizeof(k));
		ibv_copy_path_rec_to_kern(&k, &p);
		check_path(&p, &k);
		/* Widened, not left with filler in the upper bytes. */
		ck_assert_uint_eq(k.mtu, p.mtu);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kern_abi");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ah_attr_from_kern);
	tcase_add_test(tc, qp_attr_from_kern);
	tcase_add_test(tc, path_rec_from_kern);
	tcase_add_test(tc, path_rec_to_kern);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
