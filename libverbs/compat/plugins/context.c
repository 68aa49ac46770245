/* SPDX-License-Identifier: MIT */
/*
 * Contexts of provider plugins.  A plugin builds its context with
 * _verbs_init_and_alloc_context() and verbs_set_ops(); the core's own
 * verbs then reach it through the trampolines below, which our struct
 * verbs_ops holds: each calls the plugin's private copy of its ops and
 * adds what upstream's core adds around that op (FACTS 53), so the public
 * verbs keep their bookkeeping.  Application inlines call the plugin
 * directly through the public slots verbs_set_ops() writes (ops-map.txt).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugins.h"

struct verbs_plugin_context {
	struct verbs_context_ops ops;	/* the private copy (FACTS 33) */
	unsigned int release;		/* verbs_plugin_release() */
};

extern const struct verbs_context_ops verbs_plugin_placeholders;

const struct verbs_context_ops *verbs_plugin_ops(struct ibv_context *ctx)
{
	return &verbs_priv(ctx)->plugin->ops;
}

unsigned int verbs_plugin_release(struct ibv_context *ctx)
{
	return verbs_priv(ctx)->plugin->release;
}

/* ------------------------------------------------------------------ */
/* verbs_set_ops (FACTS 33-34)                                         */

/* Where each of the 76 ops also goes (ops-map.txt): an offset into
 * struct verbs_context, or none. */
enum { NO_PUBLIC_SLOT = -1 };

struct slot {
	unsigned short op;		/* offset in struct verbs_context_ops */
	short public;			/* offset in struct verbs_context */
};

#define PRIVATE_ONLY(op_) \
	{ offsetof(struct verbs_context_ops, op_), NO_PUBLIC_SLOT }
#define TO_CONTEXT_OPS(op_, member) \
	{ offsetof(struct verbs_context_ops, op_), offsetof(struct verbs_context, context.ops.member) }
#define TO_VERBS_CONTEXT(op_, member) \
	{ offsetof(struct verbs_context_ops, op_), offsetof(struct verbs_context, member) }

static const struct slot slots[] = {
	TO_VERBS_CONTEXT(advise_mr, advise_mr),
	TO_VERBS_CONTEXT(alloc_dm, alloc_dm),
	TO_CONTEXT_OPS(alloc_mw, alloc_mw),
	TO_VERBS_CONTEXT(alloc_null_mr, alloc_null_mr),
	TO_VERBS_CONTEXT(alloc_parent_domain, alloc_parent_domain),
	TO_CONTEXT_OPS(alloc_pd, _compat_alloc_pd),
	TO_VERBS_CONTEXT(alloc_td, alloc_td),
	TO_CONTEXT_OPS(async_event, _compat_async_event),
	TO_VERBS_CONTEXT(attach_counters_point_flow, attach_counters_point_flow),
	TO_CONTEXT_OPS(attach_mcast, _compat_attach_mcast),
	TO_CONTEXT_OPS(bind_mw, bind_mw),
	TO_VERBS_CONTEXT(close_xrcd, close_xrcd),
	TO_CONTEXT_OPS(cq_event, _compat_cq_event),
	TO_CONTEXT_OPS(create_ah, _compat_create_ah),
	TO_VERBS_CONTEXT(create_counters, create_counters),
	TO_CONTEXT_OPS(create_cq, _compat_create_cq),
	PRIVATE_ONLY(create_cq_ex),
	TO_VERBS_CONTEXT(create_flow, ibv_create_flow),
	TO_VERBS_CONTEXT(create_flow_action_esp, create_flow_action_esp),
	TO_CONTEXT_OPS(create_qp, _compat_create_qp),
	TO_VERBS_CONTEXT(create_qp_ex, create_qp_ex),
	TO_VERBS_CONTEXT(create_rwq_ind_table, create_rwq_ind_table),
	TO_CONTEXT_OPS(create_srq, _compat_create_srq),
	TO_VERBS_CONTEXT(create_srq_ex, create_srq_ex),
	TO_VERBS_CONTEXT(create_wq, create_wq),
	TO_CONTEXT_OPS(dealloc_mw, dealloc_mw),
	TO_CONTEXT_OPS(dealloc_pd, _compat_dealloc_pd),
	TO_VERBS_CONTEXT(dealloc_td, dealloc_td),
	TO_CONTEXT_OPS(dereg_mr, _compat_dereg_mr),
	TO_CONTEXT_OPS(destroy_ah, _compat_destroy_ah),
	TO_VERBS_CONTEXT(destroy_counters, destroy_counters),
	TO_CONTEXT_OPS(destroy_cq, _compat_destroy_cq),
	TO_VERBS_CONTEXT(destroy_flow, ibv_destroy_flow),
	TO_VERBS_CONTEXT(destroy_flow_action, destroy_flow_action),
	TO_CONTEXT_OPS(destroy_qp, _compat_destroy_qp),
	TO_VERBS_CONTEXT(destroy_rwq_ind_table, destroy_rwq_ind_table),
	TO_CONTEXT_OPS(destroy_srq, _compat_destroy_srq),
	TO_VERBS_CONTEXT(destroy_wq, destroy_wq),
	TO_CONTEXT_OPS(detach_mcast, _compat_detach_mcast),
	PRIVATE_ONLY(free_context),
	TO_VERBS_CONTEXT(free_dm, free_dm),
	TO_VERBS_CONTEXT(get_srq_num, get_srq_num),
	PRIVATE_ONLY(import_dm),
	PRIVATE_ONLY(import_mr),
	PRIVATE_ONLY(import_pd),
	TO_VERBS_CONTEXT(modify_cq, modify_cq),
	TO_VERBS_CONTEXT(modify_flow_action_esp, modify_flow_action_esp),
	TO_CONTEXT_OPS(modify_qp, _compat_modify_qp),
	TO_VERBS_CONTEXT(modify_qp_rate_limit, modify_qp_rate_limit),
	TO_CONTEXT_OPS(modify_srq, _compat_modify_srq),
	TO_VERBS_CONTEXT(modify_wq, modify_wq),
	TO_VERBS_CONTEXT(open_qp, open_qp),
	TO_VERBS_CONTEXT(open_xrcd, open_xrcd),
	TO_CONTEXT_OPS(poll_cq, poll_cq),
	TO_CONTEXT_OPS(post_recv, post_recv),
	TO_CONTEXT_OPS(post_send, post_send),
	TO_VERBS_CONTEXT(post_srq_ops, post_srq_ops),
	TO_CONTEXT_OPS(post_srq_recv, post_srq_recv),
	TO_VERBS_CONTEXT(query_device_ex, query_device_ex),
	PRIVATE_ONLY(query_ece),
	PRIVATE_ONLY(query_port),
	TO_CONTEXT_OPS(query_qp, _compat_query_qp),
	PRIVATE_ONLY(query_qp_data_in_order),
	TO_VERBS_CONTEXT(query_rt_values, query_rt_values),
	TO_CONTEXT_OPS(query_srq, _compat_query_srq),
	TO_VERBS_CONTEXT(read_counters, read_counters),
	TO_VERBS_CONTEXT(reg_dm_mr, reg_dm_mr),
	PRIVATE_ONLY(reg_dmabuf_mr),
	TO_CONTEXT_OPS(reg_mr, _compat_reg_mr),
	TO_CONTEXT_OPS(req_notify_cq, req_notify_cq),
	TO_CONTEXT_OPS(rereg_mr, _compat_rereg_mr),
	TO_CONTEXT_OPS(resize_cq, _compat_resize_cq),
	PRIVATE_ONLY(set_ece),
	PRIVATE_ONLY(unimport_dm),
	PRIVATE_ONLY(unimport_mr),
	PRIVATE_ONLY(unimport_pd),
};

static_assert(sizeof(slots) / sizeof(slots[0]) ==
	      sizeof(struct verbs_context_ops) / sizeof(void (*)(void)), "every op has a slot");

/* Op slots differ in type; they are copied as the pointers they are. */
static void copy_fn(void *dst, const void *src)
{
	memcpy(dst, src, sizeof(void (*)(void)));
}

void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)
{
	struct verbs_plugin_context *plugin = vctx->priv->plugin;
	void (*fn)(void);

	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		copy_fn(&fn, (const char *)ops + slots[i].op);
		/* NULL leaves both copies alone, so tables layer. */
		if (!fn)
			continue;
		copy_fn((char *)&plugin->ops + slots[i].op, &fn);
		if (slots[i].public != NO_PUBLIC_SLOT)
			copy_fn((char *)vctx + slots[i].public, &fn);
	}
}

/* ------------------------------------------------------------------ */
/* Trampolines: our struct verbs_ops onto the private copy             */

static const struct verbs_context_ops *ops_of(struct ibv_context *ctx)
{
	return &verbs_priv(ctx)->plugin->ops;
}

static int tr_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	return ops_of(ctx)->query_device_ex(ctx, input, attr, attr_size);
}

static int tr_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	return ops_of(ctx)->query_port(ctx, port, attr);
}

static struct ibv_pd *tr_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ops_of(ctx)->alloc_pd(ctx);

	if (pd)
		pd->context = ctx;
	return pd;
}

static int tr_dealloc_pd(struct ibv_pd *pd)
{
	return ops_of(pd->context)->dealloc_pd(pd);
}

/* The core's ibv_reg_mr sets context, pd, addr and length. */
static struct ibv_mr *tr_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				int access)
{
	return ops_of(pd->context)->reg_mr(pd, addr, length, iova, access);
}

static int tr_rereg_mr(struct verbs_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		       size_t length, int access)
{
	return ops_of(mr->ibv_mr.context)->rereg_mr(mr, flags, pd, addr, length, access);
}

static int tr_dereg_mr(struct verbs_mr *mr)
{
	return ops_of(mr->ibv_mr.context)->dereg_mr(mr);
}

static struct ibv_mw *tr_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	return ops_of(pd->context)->alloc_mw(pd, type);
}

static int tr_dealloc_mw(struct ibv_mw *mw)
{
	return ops_of(mw->context)->dealloc_mw(mw);
}

static int tr_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	return ops_of(qp->context)->bind_mw(qp, mw, bind);
}

static struct ibv_cq *tr_create_cq(struct ibv_context *ctx, int cqe,
				   struct ibv_comp_channel *channel, int comp_vector)
{
	return ops_of(ctx)->create_cq(ctx, cqe, channel, comp_vector);
}

static struct ibv_cq_ex *tr_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
	return ops_of(ctx)->create_cq_ex(ctx, attr);
}

static int tr_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	return ops_of(cq->context)->poll_cq(cq, num_entries, wc);
}

static int tr_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ops_of(cq->context)->req_notify_cq(cq, solicited_only);
}

static void tr_cq_event(struct ibv_cq *cq)
{
	ops_of(cq->context)->cq_event(cq);
}

static int tr_resize_cq(struct ibv_cq *cq, int cqe)
{
	return ops_of(cq->context)->resize_cq(cq, cqe);
}

static int tr_destroy_cq(struct ibv_cq *cq)
{
	return ops_of(cq->context)->destroy_cq(cq);
}

/* ibv_cmd_create_srq set the context, mutex and cond. */
static struct ibv_srq *tr_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq *srq = ops_of(pd->context)->create_srq(pd, attr);

	if (srq) {
		srq->context = pd->context;
		srq->srq_context = attr->srq_context;
		srq->pd = pd;
		srq->events_completed = 0;
	}
	return srq;
}

static struct ibv_srq *tr_create_srq_ex(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr)
{
	return ops_of(ctx)->create_srq_ex(ctx, attr);
}

static int tr_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	return ops_of(srq->context)->modify_srq(srq, attr, mask);
}

static int tr_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	return ops_of(srq->context)->query_srq(srq, attr);
}

static int tr_destroy_srq(struct ibv_srq *srq)
{
	return ops_of(srq->context)->destroy_srq(srq);
}

static int tr_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	return ops_of(srq->context)->post_srq_recv(srq, wr, bad_wr);
}

static struct ibv_qp *tr_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return ops_of(pd->context)->create_qp(pd, attr);
}

static struct ibv_qp *tr_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	return ops_of(ctx)->create_qp_ex(ctx, attr);
}

static int tr_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		       struct ibv_qp_init_attr *init_attr)
{
	return ops_of(qp->context)->query_qp(qp, attr, mask, init_attr);
}

static int tr_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return ops_of(qp->context)->modify_qp(qp, attr, mask);
}

static int tr_destroy_qp(struct ibv_qp *qp)
{
	return ops_of(qp->context)->destroy_qp(qp);
}

/* The core asks only for flags 0. */
static int tr_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op)
{
	return ops_of(qp->context)->query_qp_data_in_order(qp, op, 0);
}

static int tr_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return ops_of(qp->context)->query_ece(qp, ece);
}

static int tr_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return ops_of(qp->context)->set_ece(qp, ece);
}

static int tr_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	return ops_of(qp->context)->post_send(qp, wr, bad_wr);
}

static int tr_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return ops_of(qp->context)->post_recv(qp, wr, bad_wr);
}

/* The core's ibv_create_ah sets context and pd. */
static struct ibv_ah *tr_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	return ops_of(pd->context)->create_ah(pd, attr);
}

static int tr_destroy_ah(struct ibv_ah *ah)
{
	return ops_of(ah->context)->destroy_ah(ah);
}

static int tr_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return ops_of(qp->context)->attach_mcast(qp, gid, lid);
}

static int tr_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return ops_of(qp->context)->detach_mcast(qp, gid, lid);
}

static void tr_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	ops_of(ctx)->async_event(ctx, event);
}

static const struct verbs_ops trampolines = {
	.query_device_ex = tr_query_device_ex,
	.query_port = tr_query_port,
	.alloc_pd = tr_alloc_pd,
	.dealloc_pd = tr_dealloc_pd,
	.reg_mr = tr_reg_mr,
	.rereg_mr = tr_rereg_mr,
	.dereg_mr = tr_dereg_mr,
	.alloc_mw = tr_alloc_mw,
	.dealloc_mw = tr_dealloc_mw,
	.bind_mw = tr_bind_mw,
	.create_cq = tr_create_cq,
	.create_cq_ex = tr_create_cq_ex,
	.poll_cq = tr_poll_cq,
	.req_notify_cq = tr_req_notify_cq,
	.cq_event = tr_cq_event,
	.resize_cq = tr_resize_cq,
	.destroy_cq = tr_destroy_cq,
	.create_srq = tr_create_srq,
	.create_srq_ex = tr_create_srq_ex,
	.modify_srq = tr_modify_srq,
	.query_srq = tr_query_srq,
	.destroy_srq = tr_destroy_srq,
	.post_srq_recv = tr_post_srq_recv,
	.create_qp = tr_create_qp,
	.create_qp_ex = tr_create_qp_ex,
	.query_qp = tr_query_qp,
	.modify_qp = tr_modify_qp,
	.destroy_qp = tr_destroy_qp,
	.query_qp_data_in_order = tr_query_qp_data_in_order,
	.query_ece = tr_query_ece,
	.set_ece = tr_set_ece,
	.post_send = tr_post_send,
	.post_recv = tr_post_recv,
	.create_ah = tr_create_ah,
	.destroy_ah = tr_destroy_ah,
	.attach_mcast = tr_attach_mcast,
	.detach_mcast = tr_detach_mcast,
	.async_event = tr_async_event,
};

/* ------------------------------------------------------------------ */
/* Life cycle (FACTS 21-23)                                            */

/* The release in a library file name: "libmlx5.so.1.25.56.1" -> 56, the
 * next-to-last number; 0 if the name has none. */
static unsigned int release_in_name(const char *name)
{
	const char *last = strrchr(name, '.'), *prev = last;
	unsigned int release;

	while (prev && prev > name && *--prev != '.')
		;
	if (!last || !prev || *prev != '.' || sscanf(prev, ".%u.", &release) != 1)
		return 0;
	return release;
}

/* The release of the file the plugin's ops live in, through the
 * lib<name>-rdmav34.so symlink (V56-ADDITIONS 4). */
static unsigned int release_of(const struct verbs_device_ops *ops)
{
	char *real;
	Dl_info info;
	unsigned int release = 0;

	if (dladdr(ops, &info) && info.dli_fname && (real = realpath(info.dli_fname, NULL))) {
		const char *base = strrchr(real, '/');

		release = release_in_name(base ? base + 1 : real);
		free(real);
	}
	return release >= 44 ? release : 44;
}

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
				    struct verbs_context *context_offset, uint32_t driver_id)
{
	struct verbs_device *dev = verbs_get_device(device);
	struct verbs_plugin_context *plugin;
	struct verbs_context *vctx;
	void *block;
	int ret;

	/* The plugin free()s the block: it must be libc's (FACTS 22). */
	block = calloc(1, alloc_size);
	plugin = calloc(1, sizeof(*plugin));
	if (!block || !plugin) {
		ret = ENOMEM;
		goto err;
	}
	/* The offset comes disguised as the address the member would have
	 * in a struct at address 0. */
	vctx = (struct verbs_context *)((char *)block + (uintptr_t)context_offset);
	ret = verbs_init_context(vctx, dev, cmd_fd);
	if (ret)
		goto err;
	vctx->priv->driver_id = driver_id;
	vctx->priv->plugin = plugin;
	plugin->release = release_of(dev->ops);
	verbs_allow_disassociate_destroy = verbs_allow_disassoc_destroy();
	verbs_install_ops(vctx, &trampolines);
	verbs_set_ops(vctx, &verbs_plugin_placeholders);
	return block;

err:
	free(plugin);
	free(block);
	close(cmd_fd);
	errno = ret;
	return NULL;
}

/* The slots the core keeps for itself, written after the plugin's
 * alloc_context (ops-map.txt, last block; FACTS 21c). */
void verbs_plugin_fill_core_slots(struct verbs_context *vctx)
{
	vctx->create_cq_ex = verbs_create_cq_ex;
	vctx->query_port = verbs_query_port_sized;
	vctx->context.ops._compat_query_port = ibv_query_port;
	vctx->context.ops._compat_query_device = ibv_query_device;
	copy_fn(&vctx->ABI_placeholder1, &vctx->ibv_create_flow);
	copy_fn(&vctx->ABI_placeholder2, &vctx->ibv_destroy_flow);
}

/* ------------------------------------------------------------------ */
/* Private-only ops the core's verbs reach for plugin contexts          */

struct ibv_mr *verbs_plugin_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
					  uint64_t iova, int fd, int access)
{
	struct ibv_mr *mr = ops_of(pd->context)->reg_dmabuf_mr(pd, offset, length, iova, fd,
							       access);

	if (mr) {
		mr->context = pd->context;
		mr->pd = pd;
		mr->addr = (void *)(uintptr_t)offset;
		mr->length = length;
	}
	return mr;
}

struct ibv_pd *verbs_plugin_import_pd(struct ibv_context *ctx, uint32_t handle)
{
	return ops_of(ctx)->import_pd(ctx, handle);
}

void verbs_plugin_unimport_pd(struct ibv_pd *pd)
{
	ops_of(pd->context)->unimport_pd(pd);
}

struct ibv_mr *verbs_plugin_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	return ops_of(pd->context)->import_mr(pd, handle);
}

void verbs_plugin_unimport_mr(struct ibv_mr *mr)
{
	ops_of(mr->context)->unimport_mr(mr);
}

struct ibv_dm *verbs_plugin_import_dm(struct ibv_context *ctx, uint32_t handle)
{
	return ops_of(ctx)->import_dm(ctx, handle);
}

void verbs_plugin_unimport_dm(struct ibv_dm *dm)
{
	ops_of(dm->context)->unimport_dm(dm);
}
