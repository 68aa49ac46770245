/* SPDX-License-Identifier: MIT */
/*
 * The kernel command layer's private interface.
 *
 * Two transports reach the same kernel handlers:
 *  - ioctl(RDMA_VERBS_IOCTL): a header and an array of attributes, each an
 *    id with inline data (<= 8 bytes), a user pointer, an object handle or
 *    an fd.  Newer methods exist only here.  Legacy commands travel the
 *    same way as UVERBS_METHOD_INVOKE_WRITE ("tunnelled").
 *  - write(): a struct ib_uverbs_cmd_hdr (plus ib_uverbs_ex_cmd_hdr for
 *    extended commands), the request, the driver's request; the kernel
 *    writes the response where the request says.
 *
 * OPENVERBS_CMD_MODE (or the meson option cmd_mode) picks ioctl only,
 * write only, or auto: ioctl first, and write() for whatever this kernel
 * does not know (ENOTTY: no ioctl at all; EPROTONOSUPPORT: no such
 * method or attribute), remembered per context so the attempt is made
 * only once.  Any other error, EOPNOTSUPP included, is the kernel's
 * answer to the command and is returned as is: a tunnelled command is
 * looked up in the same table write() uses, and a method's handler
 * refusing an argument would refuse it through write() too.
 * The work request commands are the exception (vcmd_write_datapath()):
 * write() first.
 */
#ifndef OPENVERBS_CMD_H
#define OPENVERBS_CMD_H

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/types.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "internal.h"

/* The syscalls the layer makes, replaceable so host tests can play the
 * kernel. */
struct verbs_sys {
	int (*ioctl)(int fd, unsigned long request, void *arg);
	ssize_t (*write)(int fd, const void *buf, size_t len);
};
extern struct verbs_sys verbs_sys;

/* ioctl methods, one bit each in verbs_ex_private.ioctl_off once the
 * kernel turned out not to know them. */
enum vcmd_method {
	VCMD_INVOKE_WRITE,
	VCMD_GET_CONTEXT,
	VCMD_QUERY_PORT,
	VCMD_CREATE_CQ,
	VCMD_DESTROY_CQ,
	VCMD_CREATE_QP,
	VCMD_DESTROY_QP,
	VCMD_CREATE_SRQ,
	VCMD_DESTROY_SRQ,
	VCMD_DESTROY_PD,
	VCMD_DESTROY_MR,
	VCMD_DESTROY_MW,
	VCMD_DESTROY_AH,
	VCMD_DESTROY_XRCD,
	VCMD_CREATE_WQ,
	VCMD_DESTROY_WQ,
	VCMD_DESTROY_RWQ_IND_TBL,
	VCMD_DESTROY_FLOW,
	/* No write() form (vcmd_ioctl_only): */
	VCMD_QUERY_GID,		/* callers fall back to sysfs */
	VCMD_ASYNC_EVENT_ALLOC,
	VCMD_QUERY_CONTEXT,
	VCMD_QUERY_MR,
	VCMD_REG_DMABUF_MR,
	VCMD_ADVISE_MR,
	VCMD_DM,		/* alloc, free, register as MR */
	VCMD_COUNTERS,		/* create, destroy, read */
	VCMD_FLOW_ACTION,	/* ESP create, modify; destroy */
};

enum { VIOCTL_MAX_ATTRS = 16 };

/*
 * Attributes built outside the command layer (an upstream provider
 * plugin's command buffers): sent after the command's own, link by link,
 * and written back where they came from once the kernel succeeded, so
 * their owner reads its outputs (new handles, output flags) in place.
 */
struct vioctl_chain {
	struct ib_uverbs_attr *attrs;
	unsigned int num_attrs;
	/* The slot of an input given by pointer that the kernel wants inline
	 * when it fits in 8 bytes (a driver's UHW_IN), or -1.  It is inlined
	 * in the copy sent, and the owner's slot keeps its pointer. */
	int inline_idx;
	const struct vioctl_chain *next;
};

/* An ioctl command being built; attrs[] are copied back after the call
 * (new handles and fds, output flags). */
struct vioctl {
	uint16_t object_id, method_id;
	unsigned int num_attrs;
	uint32_t outputs;	/* bit i: attrs[i] points at kernel output */
	const struct vioctl_chain *chain;	/* NULL: none */
	struct ib_uverbs_attr attrs[VIOCTL_MAX_ATTRS];
};

void vioctl_init(struct vioctl *c, uint16_t object_id, uint16_t method_id);
/* Input of len bytes: carried inline when it fits in 8 bytes. */
void vioctl_in(struct vioctl *c, uint16_t id, const void *data, size_t len);
void vioctl_in_u32(struct vioctl *c, uint16_t id, uint32_t val);
void vioctl_in_u64(struct vioctl *c, uint16_t id, uint64_t val);
/* Constants (enum and u8..u64 "const" attributes) are always 8 bytes. */
void vioctl_const(struct vioctl *c, uint16_t id, uint64_t val);
void vioctl_out(struct vioctl *c, uint16_t id, void *data, size_t len);
void vioctl_idr(struct vioctl *c, uint16_t id, uint32_t handle);
void vioctl_fd(struct vioctl *c, uint16_t id, int fd);
/* A new object's handle or fd: the kernel writes it into the attribute,
 * read it with vioctl_result() after a successful vioctl_exec(). */
struct ib_uverbs_attr *vioctl_new(struct vioctl *c, uint16_t id);
void vioctl_udata(struct vioctl *c, const struct verbs_udata *udata);
/* Appends chain's attributes to c (see struct vioctl_chain); NULL: none. */
void vioctl_link(struct vioctl *c, const struct vioctl_chain *chain);
/* 0 or an errno value. */
int vioctl_exec(struct ibv_context *ctx, struct vioctl *c);

static inline uint64_t vioctl_result(const struct ib_uverbs_attr *attr)
{
	return attr->data;
}

/*
 * Whether to try method m over ioctl, and after trying, whether its error
 * means "use write() instead" (and is remembered).  Forced ioctl mode never
 * falls back: what the kernel does not know becomes EOPNOTSUPP.  Forced
 * write mode never tries.
 */
bool vcmd_use_ioctl(struct ibv_context *ctx, enum vcmd_method m);
bool vcmd_fall_back(struct ibv_context *ctx, enum vcmd_method m, int *ret);

/* Runs c, a method without a write() form: 0, the kernel's errno, or
 * EOPNOTSUPP when this kernel (or the forced write mode) does not have
 * it, which is remembered for m. */
int vcmd_ioctl_only(struct ibv_context *ctx, enum vcmd_method m, struct vioctl *c);

/*
 * A legacy or extended (IB_USER_VERBS_CMD_FLAG_EXTENDED) write command.
 * req is the kernel's request struct without headers; for legacy
 * commands with a response it begins with the response pointer, which
 * this fills in.  Tunnelled through ioctl or written, per mode.
 */
int vcmd_write(struct ibv_context *ctx, uint32_t cmd, void *req, size_t req_len,
	       void *resp, size_t resp_len, const struct verbs_udata *udata);

/* vcmd_write_datapath()'s way when its write() was not tried (err 0) or
 * failed with err. */
int vcmd_write_datapath_fallback(struct ibv_context *ctx, uint32_t cmd, void *req,
				 size_t req_len, void *resp, size_t resp_len, int err);

/*
 * vcmd_write() for the work request paths (post_send, the doorbell,
 * post_recv): a legacy command with a response and without driver data,
 * sent as one write(), as upstream's providers ring their doorbells, with
 * neither the tunnel's framing nor a copy.  Forced ioctl mode, a write()
 * refused for the caller's credentials and a request too long for the
 * header's 16-bit word count take vcmd_write().
 * cmd_buf holds room for the write() header, then the request of req_len
 * bytes (response field first); lengths are multiples of 4.  The response
 * is not marked defined for memcheck: these callers read it only after an
 * error.  Inline: a doorbell's command is then mostly constants.
 */
static inline int vcmd_write_datapath(struct ibv_context *ctx, uint32_t cmd, void *cmd_buf,
				      size_t req_len, void *resp, size_t resp_len)
{
	struct ib_uverbs_cmd_hdr *hdr = cmd_buf;
	uint64_t response = (uintptr_t)resp;
	size_t len = sizeof(*hdr) + req_len;
	ssize_t n;

	if (len / 4 > UINT16_MAX || verbs_priv(ctx)->mode == VERBS_CMD_IOCTL)
		return vcmd_write_datapath_fallback(ctx, cmd, hdr + 1, req_len, resp, resp_len, 0);
	hdr->command = cmd;
	hdr->in_words = len / 4;
	hdr->out_words = resp_len / 4;
	memcpy(hdr + 1, &response, sizeof(response));
	n = verbs_sys.write(ctx->cmd_fd, hdr, len);
	if (n == (ssize_t)len)
		return 0;
	return vcmd_write_datapath_fallback(ctx, cmd, hdr + 1, req_len, resp, resp_len,
					    n < 0 ? errno : EIO);
}

/* The fd of a new completion channel. */
int vcmd_create_comp_channel(struct ibv_context *ctx, int *fd);
/* A new async event fd into ctx->async_fd (ioctl only). */
int vcmd_alloc_async_fd(struct ibv_context *ctx);

/* GID queries exist only over ioctl (vcmd_ioctl_only): EOPNOTSUPP means
 * this kernel cannot answer and the caller must read sysfs. */
int vcmd_query_gid_entry(struct ibv_context *ctx, uint32_t port, uint32_t index,
			 struct ibv_gid_entry *entry);
int vcmd_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries,
			 size_t max_entries, size_t *num_entries);

/* Whether pd_handle names a PD of ctx's kernel context: 0, the kernel's
 * errno (ENOENT, EINVAL) when it does not, or EOPNOTSUPP when this kernel
 * (or the forced write mode) cannot tell.  Nothing is created. */
int verbs_cmd_check_pd(struct ibv_context *ctx, uint32_t pd_handle);

/* Destroys an object whose ioctl destroy method takes only its handle
 * (attribute 0) and whose write command takes only the handle too (after
 * a zero comp_mask for an extended command). */
int vcmd_destroy(struct ibv_context *ctx, enum vcmd_method m, uint16_t object_id,
		 uint16_t method_id, uint32_t handle, uint32_t write_cmd);

/* What an object the kernel reports async events for (QP, SRQ, WQ)
 * counts of the events the application acknowledged. */
struct vcmd_event_count {
	pthread_mutex_t *mutex;
	pthread_cond_t *cond;
	const uint32_t *completed;	/* under mutex; cond signals changes */
};

/* vcmd_destroy() for such an object, whose destroy method (attribute 1)
 * and write command (legacy: QP's layout; extended: WQ's) report the
 * kernel's count: after the kernel destroyed it, waits until the
 * application acknowledged that many, as they still point at it. */
int vcmd_destroy_tracked(struct ibv_context *ctx, enum vcmd_method m, uint16_t object_id,
			 uint16_t method_id, uint32_t handle, uint32_t write_cmd,
			 const struct vcmd_event_count *events);

/* The errno of a destroy: EIO on a disassociated device counts as done
 * when RDMAV_ALLOW_DISASSOC_DESTROY asks for it. */
int vcmd_destroy_result(int ret);

/* ------------------------------------------------------------------ */
/* Objects only the provider plugins' helpers make so far              */

/*
 * XRC domains, WQs and their indirection tables, flow steering, flow
 * actions, counters, device memory, MR advice, CQ moderation, opening a
 * shared QP and XRC/tag-matching SRQs: commands the upstream providers of
 * real NICs (mlx5, mlx4, hns, mana, qedr, ...) issue through the
 * ibv_cmd_* helpers (compat/plugins/).  Neither rxe nor siw has any of
 * these objects, so our built-in providers do not call them; the public
 * verbs keep reaching them only through a plugin's ops.  Same conventions
 * as driver.h's verbs_cmd_*: 0 or an errno value, the object's public
 * fields filled on success.
 */

/* The fd/oflags of ibv_open_xrcd(3).  Fills xrcd->xrcd.context and
 * *handle. */
int verbs_cmd_open_xrcd(struct ibv_context *ctx, struct ibv_xrcd *xrcd, int fd, int oflags,
			uint32_t *handle, const struct verbs_udata *udata);
int verbs_cmd_close_xrcd(struct ibv_context *ctx, uint32_t handle);

/* attr->max_wr/max_sge get what the kernel granted; wq gets its handle,
 * wq_num, context, pd, cq and type. */
int verbs_cmd_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr,
			struct ibv_wq *wq, const struct verbs_udata *udata);
int verbs_cmd_modify_wq(struct ibv_wq *wq, const struct ibv_wq_attr *attr,
			const struct verbs_udata *udata);
/* Waits for the WQ's unacknowledged async events, as destroy_qp does. */
int verbs_cmd_destroy_wq(struct ibv_wq *wq);
int verbs_cmd_create_rwq_ind_table(struct ibv_context *ctx,
				   const struct ibv_rwq_ind_table_init_attr *attr,
				   struct ibv_rwq_ind_table *table,
				   const struct verbs_udata *udata);
int verbs_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table);

/* A steering rule: req is struct ib_uverbs_create_flow followed by its
 * specs in the kernel's forms, req_len bytes in all (a multiple of 8).
 * Whoever knows the objects the specs name converts them (the plugin
 * helper: flow actions and counters are its objects).  Fills
 * flow->context and flow->handle. */
int verbs_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow,
			  struct ib_uverbs_create_flow *req, size_t req_len,
			  const struct verbs_udata *udata);
int verbs_cmd_destroy_flow(struct ibv_flow *flow);

/* The rest exist only over ioctl (vcmd_ioctl_only: EOPNOTSUPP when the
 * kernel lacks them).  link: attributes the provider adds to the same
 * method (vioctl_link()); NULL for none. */
int verbs_cmd_advise_mr(struct ibv_pd *pd, uint32_t advice, uint32_t flags,
			const struct ibv_sge *sg_list, uint32_t num_sge);
/* log_align: log2 of the alignment asked (ibv_alloc_dm_attr.log_align_req). */
int verbs_cmd_alloc_dm(struct ibv_context *ctx, uint64_t length, uint32_t log_align,
		       uint32_t *handle, const struct vioctl_chain *link);
int verbs_cmd_free_dm(struct ibv_context *ctx, uint32_t handle);
/* Fills mr as a DM MR (mr_type MR, addr NULL, pd, length, keys, handle);
 * access must hold IBV_ACCESS_ZERO_BASED (EINVAL): DM has no address. */
int verbs_cmd_reg_dm_mr(struct ibv_pd *pd, uint32_t dm_handle, uint64_t offset,
			size_t length, unsigned int access, struct verbs_mr *mr,
			const struct vioctl_chain *link);
int verbs_cmd_create_counters(struct ibv_context *ctx, uint32_t *handle,
			      const struct vioctl_chain *link);
int verbs_cmd_destroy_counters(struct ibv_context *ctx, uint32_t handle);
int verbs_cmd_read_counters(struct ibv_context *ctx, uint32_t handle, uint64_t *values,
			    uint32_t count, uint32_t flags, const struct vioctl_chain *link);

/* attr's structs are the kernel's (verbs_api.h); on modify, a NULL
 * esp_attr leaves those parameters as they are. */
int verbs_cmd_create_flow_action_esp(struct ibv_context *ctx, const struct ibv_flow_action_esp_attr *attr,
				     uint32_t *handle, const struct vioctl_chain *link);
int verbs_cmd_modify_flow_action_esp(struct ibv_context *ctx, uint32_t handle,
				     const struct ibv_flow_action_esp_attr *attr, const struct vioctl_chain *link);
int verbs_cmd_destroy_flow_action(struct ibv_context *ctx, uint32_t handle);

/* IBV_CQ_ATTR_MODERATE is the only mask bit the kernel knows. */
int verbs_cmd_modify_cq(struct ibv_cq *cq, const struct ibv_modify_cq_attr *attr,
			const struct verbs_udata *udata);

/* Opens the XRC target QP attr->qp_num of an XRC domain another process
 * may share: qp gets handle, number, type, context, qp_context; no PD,
 * CQs or SRQ; state IBV_QPS_UNKNOWN. */
int verbs_cmd_open_qp(struct ibv_context *ctx, struct ibv_qp *qp, uint32_t xrcd_handle,
		      const struct ibv_qp_open_attr *attr, const struct verbs_udata *udata);
/* verbs_cmd_modify_qp() always as the extended command, whose response
 * (comp_mask, response_length) lands in resp. */
int verbs_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			   struct ib_uverbs_ex_modify_qp_resp *resp,
			   const struct verbs_udata *udata);

/*
 * Variants of verbs_cmd_*() (driver.h) for the adapter of upstream's
 * provider plugins (compat/plugins), whose objects are not always ours:
 * they fill only the public struct, not the verbs_* one around it.
 */
/* query_context with link's attributes appended. */
int vcmd_query_context(struct ibv_context *ctx, const struct vioctl_chain *link);
/* The kernel's own answer: the extended query if try_ex and this kernel
 * has it, else the basic one with response_length set to cover it. */
int vcmd_query_device(struct ibv_context *ctx, bool try_ex,
		      struct ib_uverbs_ex_query_device_resp *resp,
		      const struct verbs_udata *udata);
/* The fields of r its response_length covers; a's others are left alone. */
void vcmd_device_attr_from_kern(struct ibv_device_attr_ex *a,
				const struct ib_uverbs_ex_query_device_resp *r);
/* What the kernel says of an MR it made or knows. */
struct vcmd_mr_keys {
	uint32_t handle, lkey, rkey;
};
/* Fills mr's public part and kind; addr is where the application sees its
 * first byte (NULL where it has none mapped). */
void vcmd_init_mr(struct verbs_mr *mr, struct ibv_pd *pd, void *addr, size_t length,
		  struct vcmd_mr_keys keys, enum verbs_mr_kind kind);
/* Only lkey and rkey of mr are updated; iova is the new hca_va. */
int vcmd_rereg_mr(struct verbs_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		  size_t length, uint64_t iova, int access, const struct verbs_udata *udata);
/* What upstream's create_cq_ex helpers add to a CQ creation. */
struct vcmd_cq_ex {
	/* Flags that alone do not need the extended write() command (the
	 * provider copes when the kernel does not see them). */
	uint32_t write_optional;
	const struct vioctl_chain *link;	/* the provider's attributes */
	/* EOPNOTSUPP rather than write() when the kernel lacks the ioctl
	 * method: the link holds what a write() cannot carry. */
	bool ioctl_only;
};
/* ex: NULL for a plain creation. */
int vcmd_create_cq(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *channel,
		   int comp_vector, uint32_t flags, struct ibv_cq *cq,
		   const struct verbs_udata *udata, const struct vcmd_cq_ex *ex);
/* Any SRQ type verbs_cmd_create_srq() makes, filling only struct ibv_srq
 * (PD required: EINVAL). */
int vcmd_create_srq(struct ibv_context *ctx, struct ibv_srq *srq,
		    struct ibv_srq_init_attr_ex *attr, const struct verbs_udata *udata);
/* Also XRC QPs: attr->xrcd (IBV_QP_INIT_ATTR_XRCD, a struct verbs_xrcd's)
 * names the domain of XRC receive QPs. */
int vcmd_create_qp(struct ibv_context *ctx, struct ibv_qp *qp,
		   struct ibv_qp_init_attr_ex *attr, const struct verbs_udata *udata);

/* Marks memory the kernel wrote as defined, for valgrind. */
void vcmd_mark_defined(const void *p, size_t len);

#endif
