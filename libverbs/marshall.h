/* SPDX-License-Identifier: MIT */
/*
 * Conversions between the kernel's uverbs/SA structs and the libibverbs
 * ones.  Exported since IBVERBS_1.0/1.1 (librdmacm uses them) but, as
 * upstream installs no header for them any more, declared only here;
 * private to the source tree.
 */
#ifndef OPENVERBS_MARSHALL_H
#define OPENVERBS_MARSHALL_H

#include <infiniband/verbs.h>
#include <infiniband/sa.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_sa.h>

#pragma GCC visibility push(default)
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst, const struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst, const struct ib_uverbs_ah_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst, const struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst, const struct ibv_sa_path_rec *src);
#pragma GCC visibility pop

#endif
