/* SPDX-License-Identifier: MIT */
/*
 * Upstream's command interface for provider plugins (IBVERBS_PRIVATE_34):
 * the ioctl attribute buffer providers build on their stack, the request
 * wrappers their ibv_cmd_* calls hand us, and those helpers' prototypes.
 *
 * Layouts are upstream's to the byte (layouts.txt sections 2 and 3): the
 * plugins are binaries compiled against them.  Member names inside the
 * wrappers are ours (only offsets and sizes are ABI); every wrapper is a
 * command header followed by the kernel's own request struct from
 * <rdma/ib_user_verbs.h>, and the provider's driver bytes follow that
 * (FACTS 37).
 */
#ifndef OPENVERBS_COMPAT_PLUGINS_COMMANDS_H
#define OPENVERBS_COMPAT_PLUGINS_COMMANDS_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "../../cmd.h"
#include "../../internal.h"

/* ------------------------------------------------------------------ */
/* The ioctl command buffer (FACTS 44-47)                              */

/*
 * Heads an array of struct ib_uverbs_attr slots that starts at hdr.attrs.
 * Providers fill it with inline code compiled into them, then run it with
 * execute_ioctl() or hand it to a helper as its link/driver argument.
 */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;	/* further buffers, chained */
	struct ib_uverbs_attr *next_attr;	/* first free slot */
	struct ib_uverbs_attr *last_attr;	/* end of the storage */
	uint8_t uhw_in_idx;			/* slot of UHW_IN, or IBV_CMD_NO_UHW */
	uint8_t uhw_out_idx;
	/* Dwords of core request/response right before the driver bytes:
	 * lets a write() fallback build the request in place. */
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t buffer_error:1;			/* a fill's length did not fit in 16 bits */
	uint8_t fallback_require_ex:1;		/* a write() fallback needs the ex form */
	uint8_t fallback_ioctl_only:1;		/* no write() fallback at all */
	struct ib_uverbs_ioctl_hdr hdr;		/* attrs[] follow */
};

enum { IBV_CMD_NO_UHW = 0xff };

#if defined(__x86_64__)	/* the numbers are x86_64's, as below */
static_assert(sizeof(struct ibv_command_buffer) == 56, "FACTS 44");
static_assert(offsetof(struct ibv_command_buffer, uhw_in_idx) == 24, "layouts.txt 2");
static_assert(offsetof(struct ibv_command_buffer, hdr) == 32, "layouts.txt 2");
#endif
static_assert(sizeof(struct ib_uverbs_ioctl_hdr) == 24, "layouts.txt 2");
static_assert(sizeof(struct ib_uverbs_attr) == 16, "layouts.txt 2");
static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8, "layouts.txt 2");
static_assert(sizeof(struct ib_uverbs_ex_cmd_hdr) == 16, "layouts.txt 2");

/* The number of attributes a helper's own buffer needs to take n of its
 * own plus those used in link's chain (FACTS 46). */
#pragma GCC visibility push(default)
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link);
/* Runs cmd with its chain appended; 0 or an errno value (FACTS 47). */
int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);
#pragma GCC visibility pop

/* ------------------------------------------------------------------ */
/* write() command wrappers (layouts.txt section 3, all 51)            */

/* The header of extended commands. */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

static_assert(sizeof(struct ex_hdr) == 24, "layouts.txt 2");

/* Requests and responses of kernel ABIs before 6, which the kernel header
 * no longer carries. */
struct ib_uverbs_modify_srq_v3 {
	__u32 srq_handle;
	__u32 attr_mask;
	__u32 max_wr;
	__u32 max_sge;
	__u32 srq_limit;
	__u32 reserved;
};

struct ibv_create_srq_resp_v5 {
	__u32 srq_handle;
};

struct ibv_create_qp_resp_v4 {
	__u32 qp_handle;
	__u32 qpn;
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
};

struct ibv_create_qp_resp_v3 {
	__u32 qp_handle;
	__u32 qpn;
};

struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_mw core_payload;
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core_payload;
};

struct ibv_attach_mcast {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_attach_mcast core_payload;
};

struct ibv_close_xrcd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_close_xrcd core_payload;
};

struct ibv_create_ah {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_ah core_payload;
};

struct ibv_create_comp_channel {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_comp_channel core_payload;
};

struct ibv_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq core_payload;
};

struct ibv_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core_payload;
};

struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core_payload;
};

struct ibv_create_xsrq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_xsrq core_payload;
};

struct ibv_dealloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_dealloc_mw core_payload;
};

struct ibv_dealloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_dealloc_pd core_payload;
};

struct ibv_dereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_dereg_mr core_payload;
};

struct ibv_destroy_ah {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_destroy_ah core_payload;
};

struct ibv_destroy_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_destroy_cq core_payload;
};

struct ibv_destroy_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_destroy_qp core_payload;
};

struct ibv_destroy_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_destroy_srq core_payload;
};

struct ibv_detach_mcast {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_detach_mcast core_payload;
};

struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core_payload;
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core_payload;
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq core_payload;
};

struct ibv_open_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_open_qp core_payload;
};

struct ibv_open_xrcd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_open_xrcd core_payload;
};

struct ibv_poll_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_poll_cq core_payload;
};

struct ibv_post_recv {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_recv core_payload;
};

struct ibv_post_send {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send core_payload;
};

struct ibv_post_srq_recv {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_srq_recv core_payload;
};

struct ibv_query_device {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_device core_payload;
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core_payload;
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_qp core_payload;
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_srq core_payload;
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core_payload;
};

struct ibv_req_notify_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_req_notify_cq core_payload;
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_rereg_mr core_payload;
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_resize_cq core_payload;
};

struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_cq core_payload;
};

struct ibv_create_flow {
	struct ex_hdr hdr;
	struct ib_uverbs_create_flow core_payload;
};

struct ibv_create_qp_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_qp core_payload;
};

struct ibv_create_rwq_ind_table {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_rwq_ind_table core_payload;
};

struct ibv_create_wq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_wq core_payload;
};

struct ibv_destroy_flow {
	struct ex_hdr hdr;
	struct ib_uverbs_destroy_flow core_payload;
};

struct ibv_destroy_rwq_ind_table {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_destroy_rwq_ind_table core_payload;
};

struct ibv_destroy_wq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_destroy_wq core_payload;
};

struct ibv_modify_cq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_modify_cq core_payload;
};

struct ibv_modify_qp_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_modify_qp core_payload;
};

struct ibv_modify_wq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_modify_wq core_payload;
};

struct ibv_query_device_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_query_device core_payload;
};

struct ibv_modify_srq_v3 {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq_v3 core_payload;
};

struct ibv_create_srq_v5 {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core_payload;
};

struct ibv_create_qp_v4 {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core_payload;
};

struct ibv_create_qp_v3 {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core_payload;
};

static_assert(sizeof(struct ibv_alloc_mw) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_alloc_pd) == 16, "layouts.txt 3");
static_assert(sizeof(struct ibv_attach_mcast) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_close_xrcd) == 12, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_ah) == 64, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_comp_channel) == 16, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_cq) == 40, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_qp) == 64, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_srq) == 40, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_xsrq) == 56, "layouts.txt 3");
static_assert(sizeof(struct ibv_dealloc_mw) == 12, "layouts.txt 3");
static_assert(sizeof(struct ibv_dealloc_pd) == 12, "layouts.txt 3");
static_assert(sizeof(struct ibv_dereg_mr) == 12, "layouts.txt 3");
static_assert(sizeof(struct ibv_destroy_ah) == 12, "layouts.txt 3");
static_assert(sizeof(struct ibv_destroy_cq) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_destroy_qp) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_destroy_srq) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_detach_mcast) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_get_context) == 16, "layouts.txt 3");
static_assert(sizeof(struct ibv_modify_qp) == 120, "layouts.txt 3");
static_assert(sizeof(struct ibv_modify_srq) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_open_qp) == 40, "layouts.txt 3");
static_assert(sizeof(struct ibv_open_xrcd) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_poll_cq) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_post_recv) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_post_send) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_post_srq_recv) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_query_device) == 16, "layouts.txt 3");
static_assert(sizeof(struct ibv_query_port) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_query_qp) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_query_srq) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_reg_mr) == 48, "layouts.txt 3");
static_assert(sizeof(struct ibv_req_notify_cq) == 16, "layouts.txt 3");
static_assert(sizeof(struct ibv_rereg_mr) == 56, "layouts.txt 3");
static_assert(sizeof(struct ibv_resize_cq) == 24, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_cq_ex) == 56, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_flow) == 48, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_qp_ex) == 88, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_rwq_ind_table) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_wq) == 64, "layouts.txt 3");
static_assert(sizeof(struct ibv_destroy_flow) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_destroy_rwq_ind_table) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_destroy_wq) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_modify_cq) == 40, "layouts.txt 3");
static_assert(sizeof(struct ibv_modify_qp_ex) == 144, "layouts.txt 3");
static_assert(sizeof(struct ibv_modify_wq) == 48, "layouts.txt 3");
static_assert(sizeof(struct ibv_query_device_ex) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_modify_srq_v3) == 32, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_srq_v5) == 40, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_qp_v4) == 64, "layouts.txt 3");
static_assert(sizeof(struct ibv_create_qp_v3) == 64, "layouts.txt 3");

/* ------------------------------------------------------------------ */
/* Objects only the plugin helpers fill (layouts.txt section 1)        */

enum ibv_flow_action_type {
	IBV_FLOW_ACTION_UNSPECIFIED,
	IBV_FLOW_ACTION_ESP = 1,
};

struct verbs_flow_action {
	struct ibv_flow_action action;
	uint32_t handle;
	enum ibv_flow_action_type type;
};

struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

struct verbs_counters {
	struct ibv_counters counters;
	uint32_t handle;
};

/* struct verbs_qp as plugins of rdma-core 45 and later lay it out: their
 * ibv_qp_ex ends with one more member, wr_flush (V56-ADDITIONS 3), which
 * moves the XRC fields that end it. */
struct verbs_qp_v45 {
	union {
		struct ibv_qp qp;
		struct {
			struct ibv_qp_ex qp_ex;
			void (*wr_flush)(struct ibv_qp_ex *qp);
		} qp_ex_v45;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

/* layouts.txt's numbers are x86_64's; on other targets the same
 * definitions give that target's layout, as upstream's headers do. */
#if defined(__x86_64__)
static_assert(sizeof(struct verbs_flow_action) == 16, "layouts.txt 1");
static_assert(sizeof(struct verbs_dm) == 40, "layouts.txt 1");
static_assert(sizeof(struct verbs_counters) == 16, "layouts.txt 1");
static_assert(sizeof(struct verbs_qp) == 368, "layouts.txt 1");
static_assert(offsetof(struct verbs_qp, comp_mask) == 352, "layouts.txt 1");
static_assert(offsetof(struct verbs_qp, xrcd) == 360, "layouts.txt 1");
static_assert(sizeof(struct verbs_qp_v45) == 376, "V56-ADDITIONS 3");
static_assert(offsetof(struct verbs_qp_v45, xrcd) == 368, "V56-ADDITIONS 3");
#endif

/* ------------------------------------------------------------------ */
/* The ibv_cmd_* helpers (symbols.txt section 1)                       */

/*
 * Calling convention (FACTS 36-37): 0 or a positive errno value (also left
 * in errno), except ibv_cmd_poll_cq (a count or -1).  cmd/resp begin with
 * the wrapper and the kernel response; the provider's own bytes follow
 * them, up to cmd_size/resp_size.  Effects on the objects: FACTS section H.
 */
#pragma GCC visibility push(default)
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ib_uverbs_advise_mr_advice advice, uint32_t flags,
		      struct ibv_sge *sg_list, uint32_t num_sge);
int ibv_cmd_alloc_dm(struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw,
		     struct ibv_alloc_mw *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters, struct ibv_command_buffer *link);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
		      int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp, size_t resp_size);
/* cmd_flags of create_cq_ex(2) (layouts.txt): the provider copes with a
 * kernel that ignores the timestamp flag. */
enum create_cq_cmd_flags {
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 << 0,
};
int ibv_cmd_create_cq_ex(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
			 uint32_t cmd_flags);
/* rdma-core 56 (V56-ADDITIONS 1): create_cq_ex with a driver buffer. */
int ibv_cmd_create_cq_ex2(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr,
			  struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size,
			  uint32_t cmd_flags, struct ibv_command_buffer *driver);
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd, size_t ucmd_size);
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
		      struct ibv_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp *cmd,
			 size_t cmd_size, struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp_ex *cmd,
			  size_t cmd_size, struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
				 struct ibv_rwq_ind_table_init_attr *init_attr,
				 struct ibv_rwq_ind_table *rwq_ind_table,
				 struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
				 size_t resp_size);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd,
			  size_t cmd_size, struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr,
		      struct ibv_wq *wq, struct ibv_create_wq *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_get_context(struct verbs_context *context_ex, struct ibv_get_context *cmd,
			size_t cmd_size, struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd, size_t cmd_size);
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		      struct ibv_modify_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
			 struct ibv_modify_qp_ex *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp, size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask,
		       struct ibv_modify_srq *cmd, size_t cmd_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, struct ibv_modify_wq *cmd,
		      size_t cmd_size);
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp, int vqp_sz,
		    struct ibv_qp_open_attr *attr, struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd, int vxrcd_size,
		      struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd,
		      size_t cmd_size, struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
int ibv_cmd_query_context(struct ibv_context *context, struct ibv_command_buffer *driver);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp, size_t *resp_size);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr, struct ibv_query_port *cmd,
		       size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		     struct ibv_qp_init_attr *init_attr, struct ibv_query_qp *cmd,
		     size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_read_counters(struct verbs_counters *vcounters, uint64_t *counters_value,
			  uint32_t ncounters, uint32_t flags, struct ibv_command_buffer *link);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset, size_t length,
		      unsigned int access, struct verbs_mr *vmr, struct ibv_command_buffer *link);
/* v54 and later append a struct ibv_command_buffer *driver argument
 * (V56-ADDITIONS 2), which a v44 plugin does not pass: not read. */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
			  int fd, int access, struct verbs_mr *vmr);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access,
		   struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length,
		     uint64_t hca_va, int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
#pragma GCC visibility pop

/* ------------------------------------------------------------------ */
/* For the helpers (not ABI)                                           */

/* FACTS 36: 0, or a positive errno value also left in errno. */
static inline int verbs_plugin_result(int ret)
{
	if (ret)
		errno = ret;
	return ret;
}

/* The provider's bytes around the core's (FACTS 37): what follows the
 * first cmd_core bytes of cmd and resp_core bytes of resp. */
static inline struct verbs_udata verbs_plugin_udata(const void *cmd, size_t cmd_core,
						    size_t cmd_size, void *resp,
						    size_t resp_core, size_t resp_size)
{
	struct verbs_udata udata = {};

	if (cmd && cmd_size > cmd_core) {
		udata.in = (const char *)cmd + cmd_core;
		udata.in_len = cmd_size - cmd_core;
	}
	if (resp && resp_size > resp_core) {
		udata.out = (char *)resp + resp_core;
		udata.out_len = resp_size - resp_core;
	}
	return udata;
}

/* A chain of command buffers this long is a provider's bug. */
enum { VERBS_PLUGIN_MAX_LINKS = 8 };

/* A provider's chain of command buffers as the command layer's links
 * (struct vioctl_chain), which keep pointing into the buffers. */
struct verbs_plugin_links {
	struct vioctl_chain node[VERBS_PLUGIN_MAX_LINKS];
};

/* Fills links from the chain starting at buf (NULL: no links; *chain is
 * then NULL).  EINVAL when a buffer overflowed (buffer_error) or the
 * chain is too long. */
int verbs_plugin_link(struct verbs_plugin_links *links, struct ibv_command_buffer *buf,
		      const struct vioctl_chain **chain);

/* Whether a command whose ioctl method the kernel lacks may go by write()
 * with this chain (FACTS 41): not when a buffer is marked ioctl-only or
 * holds a mandatory attribute other than the driver's UHW_IN/UHW_OUT. */
bool verbs_plugin_link_writable(const struct ibv_command_buffer *buf);

/* The driver's UHW_IN/UHW_OUT bytes of the chain, for a write() fallback. */
struct verbs_udata verbs_plugin_link_udata(const struct ibv_command_buffer *buf);

#endif
