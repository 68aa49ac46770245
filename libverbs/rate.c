/* SPDX-License-Identifier: MIT */
/* Static rate codes (IBA 9.11.1 and later extensions) in link bandwidth terms. */
#include "internal.h"

/*
 * mult is the rate as a multiple of 2.5 Gb/s; the 64b/66b-encoded rates
 * (FDR, EDR) are no whole multiple and have none.
 */
static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} rates[] = {
	{ IBV_RATE_2_5_GBPS,    1,    2500 },
	{ IBV_RATE_5_GBPS,      2,    5000 },
	{ IBV_RATE_10_GBPS,     4,   10000 },
	{ IBV_RATE_20_GBPS,     8,   20000 },
	{ IBV_RATE_30_GBPS,    12,   30000 },
	{ IBV_RATE_40_GBPS,    16,   40000 },
	{ IBV_RATE_60_GBPS,    24,   60000 },
	{ IBV_RATE_80_GBPS,    32,   80000 },
	{ IBV_RATE_120_GBPS,   48,  120000 },
	{ IBV_RATE_14_GBPS,     0,   14062 },
	{ IBV_RATE_56_GBPS,     0,   56250 },
	{ IBV_RATE_112_GBPS,    0,  112500 },
	{ IBV_RATE_168_GBPS,    0,  168750 },
	{ IBV_RATE_25_GBPS,     0,   25781 },
	{ IBV_RATE_100_GBPS,    0,  103125 },
	{ IBV_RATE_200_GBPS,    0,  206250 },
	{ IBV_RATE_300_GBPS,    0,  309375 },
	{ IBV_RATE_28_GBPS,    11,   28125 },
	{ IBV_RATE_50_GBPS,    20,   53125 },
	{ IBV_RATE_400_GBPS,  160,  425000 },
	{ IBV_RATE_600_GBPS,  240,  637500 },
	{ IBV_RATE_800_GBPS,  320,  850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

#define N_RATES (sizeof(rates) / sizeof(rates[0]))

int ibv_rate_to_mult(enum ibv_rate rate)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (rates[i].rate == rate)
			return rates[i].mult ? rates[i].mult : -1;
	return -1;
}

enum ibv_rate mult_to_ibv_rate(int mult)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (rates[i].mult && rates[i].mult == mult)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

int ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (rates[i].rate == rate)
			return rates[i].mbps;
	return -1;
}

enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (rates[i].mbps == mbps)
			return rates[i].rate;
	return IBV_RATE_MAX;
}
