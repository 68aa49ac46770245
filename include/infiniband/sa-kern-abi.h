/* SPDX-License-Identifier: MIT */
/*
 * Old name for the kernel's SA path record. New code should include
 * <rdma/ib_user_sa.h> and use struct ib_user_path_rec directly; this header
 * only keeps the historical spellings compiling.
 */
#ifndef INFINIBAND_SA_KERN_ABI_H
#define INFINIBAND_SA_KERN_ABI_H

#include <linux/types.h>
#include <rdma/ib_user_sa.h>

#define ib_kern_path_rec	ib_user_path_rec
#define ibv_kern_path_rec	ib_user_path_rec

#endif /* INFINIBAND_SA_KERN_ABI_H */
