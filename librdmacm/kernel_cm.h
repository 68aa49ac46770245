/* SPDX-License-Identifier: MIT */
/*
 * The kernel's rdma_ucm command structures, <rdma/rdma_user_cm.h>, next to
 * <rdma/rdma_cma.h>.  The kernel header repeats some public enumerators
 * (same values, other enum types), which C does not allow twice in one
 * file: its copies are renamed with a KERNEL_ prefix while it is read.
 */
#ifndef OPENVERBS_KERNEL_CM_H
#define OPENVERBS_KERNEL_CM_H

#include <infiniband/sa.h>
#include <rdma/rdma_cma.h>

#define rdma_ucm_port_space			KERNEL_rdma_ucm_port_space
#define RDMA_PS_IPOIB				KERNEL_RDMA_PS_IPOIB
#define RDMA_PS_IB				KERNEL_RDMA_PS_IB
#define RDMA_PS_TCP				KERNEL_RDMA_PS_TCP
#define RDMA_PS_UDP				KERNEL_RDMA_PS_UDP
#define RDMA_OPTION_ID				KERNEL_RDMA_OPTION_ID
#define RDMA_OPTION_IB				KERNEL_RDMA_OPTION_IB
#define RDMA_OPTION_ID_TOS			KERNEL_RDMA_OPTION_ID_TOS
#define RDMA_OPTION_ID_REUSEADDR		KERNEL_RDMA_OPTION_ID_REUSEADDR
#define RDMA_OPTION_ID_AFONLY			KERNEL_RDMA_OPTION_ID_AFONLY
#define RDMA_OPTION_ID_ACK_TIMEOUT		KERNEL_RDMA_OPTION_ID_ACK_TIMEOUT
#define RDMA_OPTION_IB_PATH			KERNEL_RDMA_OPTION_IB_PATH
#define RDMA_MC_JOIN_FLAG_FULLMEMBER		KERNEL_RDMA_MC_JOIN_FLAG_FULLMEMBER
#define RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER	KERNEL_RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER
#define RDMA_MC_JOIN_FLAG_RESERVED		KERNEL_RDMA_MC_JOIN_FLAG_RESERVED
#include <rdma/rdma_user_cm.h>
#undef rdma_ucm_port_space
#undef RDMA_PS_IPOIB
#undef RDMA_PS_IB
#undef RDMA_PS_TCP
#undef RDMA_PS_UDP
#undef RDMA_OPTION_ID
#undef RDMA_OPTION_IB
#undef RDMA_OPTION_ID_TOS
#undef RDMA_OPTION_ID_REUSEADDR
#undef RDMA_OPTION_ID_AFONLY
#undef RDMA_OPTION_ID_ACK_TIMEOUT
#undef RDMA_OPTION_IB_PATH
#undef RDMA_MC_JOIN_FLAG_FULLMEMBER
#undef RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER
#undef RDMA_MC_JOIN_FLAG_RESERVED

/* libibverbs' converters from the kernel's forms, part of its public ABI
 * since IBVERBS_1.0/1.1 (on upstream's library too), which installs no
 * header declaring them. */
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst, const struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst, const struct ib_uverbs_ah_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst, const struct ib_user_path_rec *src);

#endif
