/* SPDX-License-Identifier: MIT */
/*
 * Static rate conversions.  The table is what upstream libibverbs 44
 * returns, read through a probe for every rate code in [-260, 300] and
 * for the inverse functions at every input in [-1000, 2000000].
 */
#include <limits.h>
#include <stdlib.h>

#include "internal.h"
#include "unit.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	enum ibv_rate rate;
	int number;	/* upstream's value of the enumerator */
	int mult;	/* -1: none */
	int mbps;
} rates[] = {
	{ IBV_RATE_MAX,        0,  -1,      -1 },
	{ IBV_RATE_2_5_GBPS,   2,   1,    2500 },
	{ IBV_RATE_10_GBPS,    3,   4,   10000 },
	{ IBV_RATE_30_GBPS,    4,  12,   30000 },
	{ IBV_RATE_5_GBPS,     5,   2,    5000 },
	{ IBV_RATE_20_GBPS,    6,   8,   20000 },
	{ IBV_RATE_40_GBPS,    7,  16,   40000 },
	{ IBV_RATE_60_GBPS,    8,  24,   60000 },
	{ IBV_RATE_80_GBPS,    9,  32,   80000 },
	{ IBV_RATE_120_GBPS,  10,  48,  120000 },
	{ IBV_RATE_14_GBPS,   11,  -1,   14062 },
	{ IBV_RATE_56_GBPS,   12,  -1,   56250 },
	{ IBV_RATE_112_GBPS,  13,  -1,  112500 },
	{ IBV_RATE_168_GBPS,  14,  -1,  168750 },
	{ IBV_RATE_25_GBPS,   15,  -1,   25781 },
	{ IBV_RATE_100_GBPS,  16,  -1,  103125 },
	{ IBV_RATE_200_GBPS,  17,  -1,  206250 },
	{ IBV_RATE_300_GBPS,  18,  -1,  309375 },
	{ IBV_RATE_28_GBPS,   19,  11,   28125 },
	{ IBV_RATE_50_GBPS,   20,  20,   53125 },
	{ IBV_RATE_400_GBPS,  21, 160,  425000 },
	{ IBV_RATE_600_GBPS,  22, 240,  637500 },
	{ IBV_RATE_800_GBPS,  23, 320,  850000 },
	{ IBV_RATE_1200_GBPS, 24, 480, 1275000 },
};

/* Index of upstream code in rates[], or -1 (code 1 was never assigned). */
static int listed(int code)
{
	for (size_t i = 0; i < N_ELEMS(rates); i++)
		if (rates[i].number == code)
			return (int)i;
	return -1;
}

START_TEST(enumerators_match_upstream)
{
	for (size_t i = 0; i < N_ELEMS(rates); i++)
		ck_assert_int_eq(rates[i].rate, rates[i].number);
}
END_TEST

START_TEST(rate_to_mult_and_mbps)
{
	static const int extremes[] = { INT_MIN, -65536, 65536, INT_MAX };

	for (int code = -260; code <= 300; code++) {
		int i = listed(code);

		ck_assert_msg(ibv_rate_to_mult((enum ibv_rate)code) == (i < 0 ? -1 : rates[i].mult),
			      "ibv_rate_to_mult(%d) = %d", code, ibv_rate_to_mult((enum ibv_rate)code));
		ck_assert_msg(ibv_rate_to_mbps((enum ibv_rate)code) == (i < 0 ? -1 : rates[i].mbps),
			      "ibv_rate_to_mbps(%d) = %d", code, ibv_rate_to_mbps((enum ibv_rate)code));
	}
	for (size_t i = 0; i < N_ELEMS(extremes); i++) {
		ck_assert_int_eq(ibv_rate_to_mult((enum ibv_rate)extremes[i]), -1);
		ck_assert_int_eq(ibv_rate_to_mbps((enum ibv_rate)extremes[i]), -1);
	}
}
END_TEST

/* Upstream matches exactly: one past or short of a listed value is no rate. */
START_TEST(inverse_maps_only_exact_values)
{
	static const int extremes[] = { INT_MIN, INT_MAX };

	for (int n = -1000; n <= 2000000; n++) {
		enum ibv_rate by_mult = IBV_RATE_MAX, by_mbps = IBV_RATE_MAX;

		for (size_t i = 1; i < N_ELEMS(rates); i++) {
			if (rates[i].mult > 0 && rates[i].mult == n)
				by_mult = rates[i].rate;
			if (rates[i].mbps == n)
				by_mbps = rates[i].rate;
		}
		/* check records every assertion; two million of them take too long. */
		if (mult_to_ibv_rate(n) != by_mult)
			ck_abort_msg("mult_to_ibv_rate(%d) = %d", n, mult_to_ibv_rate(n));
		if (mbps_to_ibv_rate(n) != by_mbps)
			ck_abort_msg("mbps_to_ibv_rate(%d) = %d", n, mbps_to_ibv_rate(n));
	}
	for (size_t i = 0; i < N_ELEMS(extremes); i++) {
		ck_assert_int_eq(mult_to_ibv_rate(extremes[i]), IBV_RATE_MAX);
		ck_assert_int_eq(mbps_to_ibv_rate(extremes[i]), IBV_RATE_MAX);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, enumerators_match_upstream);
	tcase_add_test(tc, rate_to_mult_and_mbps);
	tcase_add_test(tc, inverse_maps_only_exact_values);
	suite_add_tcase(s, tc);
	return unit_run(s, CK_FORK_GETENV);
}
