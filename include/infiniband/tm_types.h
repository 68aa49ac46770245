/* SPDX-License-Identifier: MIT */
/*
 * Wire headers of the tag-matching protocol offloaded by TM SRQs: the
 * tag-matching header (TMH) leads every tagged message, and rendezvous
 * messages add an RDMA-via-header (RVH) telling where to read the data.
 */
#ifndef _TM_TYPES_H
#define _TM_TYPES_H

#include <linux/types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ibv_tmh_op {
	IBV_TMH_NO_TAG = 0,
	IBV_TMH_RNDV = 1,
	IBV_TMH_FIN = 2,
	IBV_TMH_EAGER = 3,
};

struct ibv_tmh {
	uint8_t opcode;		/* enum ibv_tmh_op */
	uint8_t reserved[3];
	__be32 app_ctx;		/* opaque user data */
	__be64 tag;
};

struct ibv_rvh {
	__be64 va;
	__be32 rkey;
	__be32 len;
};

#ifdef __cplusplus
}
#endif

#endif
