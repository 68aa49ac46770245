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
 * Data-path calls (poll_cq, post_send, ...) skip the core: verbs_install_ops()
 * puts them straight into struct ibv_context_ops, where upstream-built
 * programs' inline functions call them.  Everything else reaches the
 * provider through the core, so the core can keep the bookkeeping that
 * every provider would otherwise repeat.
 *
 * A provider, in order:
 *  1. defines const struct verbs_provider verbs_provider_<name> (match
 *     keys, uverbs ABI range, alloc/free of its context), and is named in
 *     the choices of the -Dproviders option (meson_options.txt);
 *  2. in alloc_context: allocates its own context struct with a struct
 *     verbs_context inside, calls verbs_init_context(), then
 *     verbs_cmd_get_context() (with its driver data, if any), then
 *     verbs_install_ops();
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

/* A doubly linked list link, laid out as upstream's. */
struct verbs_list_node {
	struct verbs_list_node *next, *prev;
};

/* Upstream's provider plugins' types (compat/plugins/plugins.h); the core
 * only passes them along. */
struct verbs_device_ops;
struct verbs_match_ent;

enum {
	VSYSFS_READ_MODALIAS = 1 << 0,	/* modalias has been read */
	VSYSFS_READ_NODE_GUID = 1 << 1,	/* node_guid is known */
};

/*
 * What discovery (netlink, else sysfs) learnt of one uverbs device: the
 * core's record of it, owned by its verbs_device once claimed.  The layout
 * is upstream's (provider plugins read it in alloc_device); fields are
 * filled as FACTS 14 (shared/abi/private34) says.
 */
struct verbs_sysfs_dev {
	struct verbs_list_node entry;	/* discovery's list, until claimed */
	/* The const struct verbs_provider that drives the device (unused by
	 * upstream's core and plugins at v44): see verbs_sysfs_provider(). */
	void *provider_data;
	const struct verbs_match_ent *match;	/* a plugin's table hit */
	unsigned int flags;		/* VSYSFS_READ_* */
	char sysfs_name[64];		/* "uverbs0" */
	dev_t sysfs_cdev;		/* /dev/infiniband/uverbs0 */
	char ibdev_name[64];		/* "rxe0" */
	char ibdev_path[256];		/* <sysfs>/class/infiniband/rxe0 */
	char modalias[512];		/* "" when the device has none */
	uint64_t node_guid;		/* host order */
	uint32_t driver_id;		/* enum rdma_driver_id; 0 via sysfs */
	enum ibv_node_type node_type;
	int ibdev_idx;			/* netlink index; -1 via sysfs */
	uint32_t num_ports;		/* 0 if unknown */
	uint32_t abi_ver;		/* the kernel driver's uverbs ABI */
	struct timespec time_created;	/* mtime of ibdev_path */
};

/*
 * One per uverbs character device.  Users hold &device, so it comes
 * first; the object lives until the last device list and the last
 * context that refer to it are gone (devices vanish from later lists when
 * unplugged, but older pointers stay valid).  The layout is upstream's:
 * provider plugins allocate it inside their own device struct.
 */
struct verbs_device {
	struct ibv_device device;	/* name = ibdev, dev_name = uverbsN */
	const struct verbs_device_ops *ops;	/* a plugin's; NULL for built-ins */
	atomic_int refcount;		/* device lists, contexts, the cache */
	struct verbs_list_node entry;	/* the discovery cache (device_list.c) */
	struct verbs_sysfs_dev *sysfs;	/* always set for listed devices */
	uint64_t core_support;		/* IB_UVERBS_CORE_SUPPORT_* from the kernel */
};

#if defined(__x86_64__) || defined(__aarch64__)
/* Plugins built against upstream's headers see these bytes (layouts.txt §1). */
_Static_assert(sizeof(struct verbs_sysfs_dev) == 992, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, provider_data) == 16, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, match) == 24, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, flags) == 32, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, sysfs_name) == 36, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, sysfs_cdev) == 104, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, ibdev_name) == 112, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, ibdev_path) == 176, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, modalias) == 432, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, node_guid) == 944, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, driver_id) == 952, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, node_type) == 956, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, ibdev_idx) == 960, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, num_ports) == 964, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, abi_ver) == 968, "verbs_sysfs_dev layout");
_Static_assert(offsetof(struct verbs_sysfs_dev, time_created) == 976, "verbs_sysfs_dev layout");
_Static_assert(sizeof(struct verbs_device) == 712, "verbs_device layout");
_Static_assert(offsetof(struct verbs_device, ops) == 664, "verbs_device layout");
_Static_assert(offsetof(struct verbs_device, refcount) == 672, "verbs_device layout");
_Static_assert(offsetof(struct verbs_device, entry) == 680, "verbs_device layout");
_Static_assert(offsetof(struct verbs_device, sysfs) == 696, "verbs_device layout");
_Static_assert(offsetof(struct verbs_device, core_support) == 704, "verbs_device layout");
#endif

static inline struct verbs_device *verbs_get_device(struct ibv_device *dev)
{
	return container_of(dev, struct verbs_device, device);
}

static inline const struct verbs_provider *verbs_sysfs_provider(const struct verbs_sysfs_dev *sysfs)
{
	return sysfs->provider_data;
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

	/* The kernel driver ABI versions (verbs_sysfs_dev.abi_ver) the
	 * provider speaks; devices with others are not listed. */
	int min_abi, max_abi;

	/*
	 * Returns the provider's context (errno set on failure), built as
	 * described at the top.  The context owns cmd_fd from then on
	 * (verbs_uninit_context() closes it); a failing alloc_context has
	 * closed it.  private_data: verbs_open_device()'s, for the provider.
	 */
	struct verbs_context *(*alloc_context)(struct verbs_device *dev, int cmd_fd,
					       void *private_data);
	/* For ibv_import_device(): the same, but with verbs_cmd_query_context()
	 * instead of verbs_cmd_get_context(), and a failing import leaves
	 * cmd_fd open (it is the caller's).  NULL: import fails, EOPNOTSUPP. */
	struct verbs_context *(*import_context)(struct verbs_device *dev, int cmd_fd);
	/* Undoes alloc_context: verbs_uninit_context(), then free. */
	void (*free_context)(struct ibv_context *ctx);
	/* Frees dev with its last reference.  NULL: dev is the core's own
	 * allocation, free()d. */
	void (*free_device)(struct verbs_device *dev);
};

/*
 * The built-in providers, in match order, NULL-terminated: generated from
 * -Dproviders by providers/meson.build.  An explicit table, not a linker
 * section each provider drops a pointer into: discovery refers to this
 * array, and the array to each provider, so linking ibv_get_device_list()
 * from a static archive pulls every built-in provider in.  A section
 * would be collected only from the archive members something else had
 * already pulled in: none, so a static program would silently find no
 * device (rdma-core's static build has exactly that flaw).
 */
extern const struct verbs_provider *const verbs_builtin_providers[];

/* ------------------------------------------------------------------ */
/* Contexts                                                            */

/*
 * Sets up the core part of a zeroed verbs_context: device (a reference is
 * taken), cmd_fd (the context owns it from now on), the extended-context
 * marker and size, the ops defaults, the core's private state.  0 or an
 * errno value; on failure nothing is taken and cmd_fd is left open.
 */
int verbs_init_context(struct verbs_context *vctx, struct verbs_device *dev,
		       int cmd_fd);
/* Installs the provider's ops (NULL entries as described above).  May be
 * called more than once; later non-NULL entries win. */
void verbs_install_ops(struct verbs_context *vctx, const struct verbs_ops *ops);

/* Exported at IBVERBS_PRIVATE_34 (upstream's provider plugins call them). */
#pragma GCC visibility push(default)
/* Releases what verbs_init_context() and verbs_cmd_get_context() set up:
 * the core's private state, cmd_fd, async_fd and the device reference.
 * The provider's own memory stays (FACTS 26). */
void verbs_uninit_context(struct verbs_context *vctx);
/* The core's part of a new CQ, after the provider made it (FACTS 30):
 * context, channel (one more CQ on it), cq_context, event counters,
 * mutex and cond. */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *ctx,
		   struct ibv_comp_channel *channel, void *cq_context);
/* ibv_open_device(), handing private_data to the provider's alloc_context. */
struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data);
#pragma GCC visibility pop

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
 * mutex/cond of QPs/SRQs); the provider owns the memory.  Destroying
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

/* Fills context, handle and cqe of cq->cq (or the common head of
 * cq->cq_ex); the core does the rest when the provider returns the CQ
 * (verbs_init_cq).  flags are IBV_CREATE_CQ_ATTR_* and need the extended
 * kernel command. */
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
