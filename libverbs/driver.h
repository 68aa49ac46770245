/* SPDX-License-Identifier: MIT */
/*
 * The provider contract: what a built-in provider (providers/<name>/) sees
 * of libibverbs.  Private to the source tree; nothing here is ABI.
 *
 * Layering, top to bottom:
 *
 *   application -> public verbs (libverbs/<object>.c: argument checks,
 *                  fork protection, event accounting, refcounts)
 *               -> struct verbs_ops, the provider's table below
 *               -> verbs_cmd_*(), the kernel command layer (libverbs/cmd*.c):
 *                  one call per uverbs command, ioctl() or write() chosen
 *                  per context, the provider's private request/response
 *                  ("driver udata") carried alongside
 *               -> /dev/infiniband/uverbsN
 *
 * Data-path calls (poll_cq, post_send, ...) skip the core: verbs_set_ops()
 * puts them straight into struct ibv_context_ops, where upstream-built
 * programs' inline functions call them.  Everything else reaches the
 * provider through the core, so the core can keep the bookkeeping that
 * every provider would otherwise repeat.
 *
 * A provider, in order:
 *  1. registers a struct verbs_provider with VERBS_PROVIDER() (match keys,
 *     uverbs ABI range, alloc/free of its context);
 *  2. in alloc_context: allocates its own context struct with a struct
 *     verbs_context inside, calls verbs_init_context(), then
 *     verbs_cmd_get_context() (with its driver data, if any), then
 *     verbs_set_ops();
 *  3. in each op: allocates its object struct (embedding the public one, or
 *     verbs_cq/verbs_qp/verbs_srq/verbs_mr where the core needs more), and
 *     calls the matching verbs_cmd_*() which fills the public fields.
 *
 * The contract is kept small on purpose: a later issue loads upstream's
 * binary providers (lib*-rdmav34.so) through shims that translate
 * upstream's private interface onto these calls.
 */
#ifndef OPENVERBS_DRIVER_H
#define OPENVERBS_DRIVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

/* The struct of the given type that holds member at ptr. */
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* ------------------------------------------------------------------ */
/* Devices                                                             */

/*
 * One per uverbs character device.  Users hold &device, so it comes
 * first; the object lives until the last device list and the last
 * context that refer to it are gone (devices vanish from later lists when
 * unplugged, but older pointers stay valid).
 */
struct verbs_device {
	struct ibv_device device;	/* name = ibdev, dev_name = uverbsN */
	const struct verbs_provider *provider;

	/* Identity, from RDMA netlink or sysfs; providers may read these. */
	enum rdma_driver_id driver_id;	/* RDMA_DRIVER_UNKNOWN if not reported */
	int abi_version;		/* the kernel driver's uverbs ABI */
	uint32_t ibdev_index;		/* netlink index; -1 via sysfs only */
	__be64 node_guid;
	dev_t devnum;			/* /dev/infiniband/uverbsN */
	char modalias[128];		/* "" when the device has none */

	/* Core only. */
	atomic_int refcount;		/* device lists and contexts */
	struct verbs_device *next;	/* the discovery cache (device_list.c) */
};

static inline struct verbs_device *verbs_get_device(struct ibv_device *dev)
{
	return (struct verbs_device *)dev;
}

/* ------------------------------------------------------------------ */
/* Objects the core looks into                                         */

/* Providers must allocate CQs, QPs, SRQs and MRs as these (at offset 0
 * of their own structs): the core reads the fields after the union.  The
 * layouts are upstream's: the provider plugins loaded by compat/plugins
 * allocate them, and the core's bookkeeping reads them the same way for
 * every provider. */
struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;	/* valid when made by create_cq_ex */
	};
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;		/* VERBS_XRCD_HANDLE: handle is valid */
	uint32_t handle;
};

enum {
	VERBS_XRCD_HANDLE = 1 << 0,
};

enum {
	VERBS_QP_XRCD = 1 << 0,		/* xrcd is set */
	/* Made by create_qp_ex: ibv_qp_to_qp_ex gives qp_ex, whose wr_*
	 * entries the provider sets for the send_ops_flags asked (the
	 * others stay NULL, so QPs must come zeroed). */
	VERBS_QP_EX = 1 << 1,
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;		/* VERBS_QP_* */
	struct verbs_xrcd *xrcd;
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;	/* XRC SRQs */
	struct ibv_cq *cq;		/* XRC and tag-matching SRQs */
	uint32_t srq_num;		/* XRC SRQs: the kernel's number */
};

/* Values are upstream's enum ibv_mr_type. */
enum verbs_mr_kind {
	VERBS_MR_USER = 0,		/* this process's memory, fork-protected */
	VERBS_MR_NULL = 1,		/* the null MR: no memory at all */
	VERBS_MR_IMPORTED = 2,		/* another context's, by handle */
	VERBS_MR_DMABUF = 3,		/* a dma-buf's pages, not mapped here */
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum verbs_mr_kind kind;
	int access;			/* as registered: rereg_mr keeps it */
};

/* ------------------------------------------------------------------ */
/* The provider's ops                                                  */

/*
 * Semantics are those of the public verb of the same name, after the
 * core's argument checks.  int returns are 0 or an errno value; pointer
 * returns are NULL with errno set.
 *
 * A NULL entry means:
 *  - "generic": the core runs the kernel command with no driver data and
 *    plain objects (query_device_ex shows the firmware version as three
 *    16-bit fields, as the software devices number it).  For
 *    query_device_ex, query_port, alloc_pd+dealloc_pd,
 *    reg_mr+rereg_mr+dereg_mr, alloc_mw+dealloc_mw, req_notify_cq,
 *    modify_qp, query_qp, modify_srq, query_srq, attach_mcast,
 *    detach_mcast (set both of a pair or neither: the core frees what it
 *    allocated);
 *  - "nothing to do": cq_event, async_event;
 *  - query_qp_data_in_order: 0, nothing is known to be in order;
 *  - create_qp/create_srq: the core converts to create_qp_ex/create_srq_ex
 *    if those are set;
 *  - otherwise the verb fails with EOPNOTSUPP.
 */
struct verbs_ops {
	int (*query_device_ex)(struct ibv_context *ctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
	int (*query_port)(struct ibv_context *ctx, uint8_t port,
			  struct ibv_port_attr *attr);

	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);

	/* The core has checked the arguments and fork-protected the range. */
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t iova, int access);
	int (*rereg_mr)(struct verbs_mr *mr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*dereg_mr)(struct verbs_mr *mr);

	/* Also reached directly through ibv_context_ops. */
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *bind);

	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *ctx,
					  struct ibv_cq_init_attr_ex *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	void (*cq_event)(struct ibv_cq *cq);	/* a completion event was read */
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);

	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *ctx,
					 struct ibv_srq_init_attr_ex *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);

	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *ctx,
				       struct ibv_qp_init_attr_ex *attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init_attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	/* Whether data of op lands in order (1) or not known to (0). */
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op);
	/* Enhanced connection establishment; ece->comp_mask is checked. */
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);

	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);

	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);

	/* An async event was read; the provider may update its state. */
	void (*async_event)(struct ibv_context *ctx, struct ibv_async_event *event);
};

/* ------------------------------------------------------------------ */
/* Providers                                                           */

struct verbs_provider {
	const char *name;

	/*
	 * Match keys, tried in this order over all providers: the driver id
	 * the kernel reports (netlink), then fnmatch(3) patterns on the ibdev
	 * name, then on the modalias (for kernels reporting no driver id).
	 */
	enum rdma_driver_id driver_id;		/* RDMA_DRIVER_UNKNOWN: none */
	const char *const *ibdev_patterns;	/* NULL-terminated, or NULL */
	const char *const *modalias_patterns;	/* NULL-terminated, or NULL */

	/* The kernel driver ABI versions (verbs_device.abi_version) the
	 * provider speaks; devices with others are not listed. */
	int min_abi, max_abi;

	/*
	 * Returns the provider's context (errno set on failure), built as
	 * described at the top.  The core opened cmd_fd and closes it, after
	 * free_context or when alloc_context fails.
	 */
	struct verbs_context *(*alloc_context)(struct verbs_device *dev, int cmd_fd);
	/* For ibv_import_device(): the same, but with verbs_cmd_query_context()
	 * instead of verbs_cmd_get_context().  NULL: import fails, EOPNOTSUPP. */
	struct verbs_context *(*import_context)(struct verbs_device *dev, int cmd_fd);
	/* Undoes alloc_context: verbs_uninit_context(), then free. */
	void (*free_context)(struct ibv_context *ctx);
};

/* Providers are found by the linker: each registration is a pointer in the
 * "verbs_providers" section, so adding one needs no central list. */
#define VERBS_PROVIDER(p)						\
	static const struct verbs_provider *const verbs_provider_##p	\
	__attribute__((section("verbs_providers"), used, aligned(sizeof(void *)))) = &(p)

/* ------------------------------------------------------------------ */
/* Contexts                                                            */

/*
 * Sets up the core part of a zeroed verbs_context: device, cmd_fd, the
 * extended-context marker and size, the ops defaults, the core's private
 * state.  0 or an errno value.
 */
int verbs_init_context(struct verbs_context *vctx, struct verbs_device *dev,
		       int cmd_fd);
/* Releases what verbs_init_context() and verbs_cmd_get_context() set up
 * (async_fd included; cmd_fd is the core's to close). */
void verbs_uninit_context(struct verbs_context *vctx);
/* Installs the provider's ops (NULL entries as described above).  May be
 * called more than once; later non-NULL entries win. */
void verbs_set_ops(struct verbs_context *vctx, const struct verbs_ops *ops);

struct verbs_udata;

/*
 * The whole of step 2 for providers that keep no context state of their
 * own (a bare struct verbs_context): allocate, init, ask the kernel
 * (get_context with udata, or query_context to import), install ops.
 * NULL with errno on failure; the free_context to go with them is
 * verbs_free_plain_context().
 */
struct verbs_context *verbs_plain_context(struct verbs_device *dev, int cmd_fd,
					  const struct verbs_ops *ops,
					  const struct verbs_udata *udata);
struct verbs_context *verbs_plain_import_context(struct verbs_device *dev, int cmd_fd,
						 const struct verbs_ops *ops);
void verbs_free_plain_context(struct ibv_context *ctx);

/* ------------------------------------------------------------------ */
/* Kernel commands                                                     */

/*
 * The provider's private part of a command: "in" goes to the kernel
 * driver after the core request, "out" receives what the driver returns
 * after the core response.  NULL means none.  Lengths are in bytes and
 * need no padding; the kernel driver defines the layouts
 * (<rdma/<driver>-abi.h>).
 */
struct verbs_udata {
	const void *in;
	size_t in_len;
	void *out;
	size_t out_len;
};

/*
 * All return 0 or an errno value.  Creating calls fill the public fields
 * of the object they are given (context, handle, keys, numbers, the
 * mutex/cond of CQs/QPs/SRQs); the provider owns the memory.  Destroying
 * calls succeed on a disassociated device when RDMAV_ALLOW_DISASSOC_DESTROY
 * is set, so providers free their memory on 0 and keep it otherwise.
 */
int verbs_cmd_get_context(struct ibv_context *ctx, const struct verbs_udata *udata);
int verbs_cmd_query_context(struct ibv_context *ctx);

/* raw_fw_ver: the firmware version as the kernel reports it, for the
 * provider to format into attr->orig_attr.fw_ver (NULL: not wanted). */
int verbs_cmd_query_device(struct ibv_context *ctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size,
			   uint64_t *raw_fw_ver, const struct verbs_udata *udata);
int verbs_cmd_query_port(struct ibv_context *ctx, uint8_t port,
			 struct ibv_port_attr *attr);

int verbs_cmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		       const struct verbs_udata *udata);
int verbs_cmd_dealloc_pd(struct ibv_pd *pd);

int verbs_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		     uint64_t iova, int access, struct verbs_mr *mr,
		     const struct verbs_udata *udata);
/* flags: IBV_REREG_MR_CHANGE_*; pd/addr/length/access used as flagged. */
int verbs_cmd_rereg_mr(struct verbs_mr *mr, int flags, struct ibv_pd *pd,
		       void *addr, size_t length, int access,
		       const struct verbs_udata *udata);
int verbs_cmd_dereg_mr(struct verbs_mr *mr);
/* ioctl only (EOPNOTSUPP in write mode or on kernels without them).
 * query_mr fills an imported MR: keys, length, handle; addr stays NULL. */
int verbs_cmd_query_mr(struct ibv_pd *pd, uint32_t handle, struct verbs_mr *mr);
int verbs_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			    uint64_t iova, int fd, int access, struct verbs_mr *mr);

int verbs_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		       struct ibv_mw *mw, const struct verbs_udata *udata);
int verbs_cmd_dealloc_mw(struct ibv_mw *mw);

/* Fills cq->cq (or the common head of cq->cq_ex); flags are
 * IBV_CREATE_CQ_ATTR_* and need the extended kernel command. */
int verbs_cmd_create_cq(struct ibv_context *ctx, int cqe,
			struct ibv_comp_channel *channel, int comp_vector,
			uint32_t flags, struct verbs_cq *cq,
			const struct verbs_udata *udata);
int verbs_cmd_resize_cq(struct ibv_cq *cq, int cqe,
			const struct verbs_udata *udata);
/* Completions through the kernel, for CQs without a user-space queue:
 * *polled gets how many of wc[0..num_entries) were filled. */
int verbs_cmd_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc, int *polled);
int verbs_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int verbs_cmd_destroy_cq(struct ibv_cq *cq);

/* attr->pd must be set (IBV_SRQ_INIT_ATTR_PD); attr->attr gets the
 * sizes the kernel granted. */
int verbs_cmd_create_srq(struct ibv_context *ctx, struct verbs_srq *srq,
			 struct ibv_srq_init_attr_ex *attr,
			 const struct verbs_udata *udata);
int verbs_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			 int mask, const struct verbs_udata *udata);
int verbs_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int verbs_cmd_destroy_srq(struct ibv_srq *srq);

/* attr->cap gets the capacities the kernel granted; nothing else of attr
 * is written, and fields its comp_mask leaves out are not read. */
int verbs_cmd_create_qp(struct ibv_context *ctx, struct verbs_qp *qp,
			struct ibv_qp_init_attr_ex *attr,
			const struct verbs_udata *udata);
int verbs_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			const struct verbs_udata *udata);
int verbs_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		       struct ibv_qp_init_attr *init_attr);
int verbs_cmd_destroy_qp(struct ibv_qp *qp);

/* Work requests through the kernel, for providers without a user-space
 * queue; wr == NULL posts nothing and only rings the doorbell. */
int verbs_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr);
int verbs_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
int verbs_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr);

int verbs_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
			struct ibv_ah_attr *attr, const struct verbs_udata *udata);
int verbs_cmd_destroy_ah(struct ibv_ah *ah);

int verbs_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			   uint16_t lid);
int verbs_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			   uint16_t lid);

/* ------------------------------------------------------------------ */
/* Logging (silent unless VERBS_LOG_LEVEL asks; VERBS_LOG_FILE redirects) */

enum verbs_log_level {
	VERBS_LOG_ERR = 1,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void verbs_log(enum verbs_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
