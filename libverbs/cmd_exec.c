/* SPDX-License-Identifier: MIT */
/* The kernel command transports: ioctl attribute buffers, write() framing,
 * and the choice between them. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"

#if HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#endif

static int sys_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

struct verbs_sys verbs_sys = {
	.ioctl = sys_ioctl,
	.write = write,
};

void vcmd_mark_defined(const void *p, size_t len)
{
#if HAVE_VALGRIND_MEMCHECK_H
	if (p && len)
		VALGRIND_MAKE_MEM_DEFINED(p, len);
#else
	(void)p;
	(void)len;
#endif
}

/* ------------------------------------------------------------------ */
/* ioctl attribute buffers                                             */

void vioctl_init(struct vioctl *c, uint16_t object_id, uint16_t method_id)
{
	c->object_id = object_id;
	c->method_id = method_id;
	c->num_attrs = 0;
	c->outputs = 0;
	c->chain = NULL;
}

/* Every attribute is mandatory: if this kernel does not know one, the
 * call must fail (EPROTONOSUPPORT) rather than silently ignore it, so the
 * caller can fall back to write(). */
static struct ib_uverbs_attr *add(struct vioctl *c, uint16_t id)
{
	struct ib_uverbs_attr *a;

	/* Overflow is a bug in this file, caught by the unit tests. */
	if (c->num_attrs >= VIOCTL_MAX_ATTRS)
		abort();
	a = &c->attrs[c->num_attrs++];
	memset(a, 0, sizeof(*a));
	a->attr_id = id;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

void vioctl_in(struct vioctl *c, uint16_t id, const void *data, size_t len)
{
	struct ib_uverbs_attr *a = add(c, id);

	a->len = len;
	if (len <= sizeof(a->data))
		memcpy(&a->data, data, len);
	else
		a->data = (uintptr_t)data;
}

void vioctl_in_u32(struct vioctl *c, uint16_t id, uint32_t val)
{
	vioctl_in(c, id, &val, sizeof(val));
}

void vioctl_in_u64(struct vioctl *c, uint16_t id, uint64_t val)
{
	vioctl_in(c, id, &val, sizeof(val));
}

void vioctl_const(struct vioctl *c, uint16_t id, uint64_t val)
{
	vioctl_in_u64(c, id, val);
}

void vioctl_out(struct vioctl *c, uint16_t id, void *data, size_t len)
{
	struct ib_uverbs_attr *a = add(c, id);

	c->outputs |= 1u << (c->num_attrs - 1);
	a->len = len;
	a->data = (uintptr_t)data;
}

void vioctl_idr(struct vioctl *c, uint16_t id, uint32_t handle)
{
	add(c, id)->data = handle;
}

void vioctl_fd(struct vioctl *c, uint16_t id, int fd)
{
	add(c, id)->data_s64 = fd;
}

struct ib_uverbs_attr *vioctl_new(struct vioctl *c, uint16_t id)
{
	return add(c, id);
}

void vioctl_udata(struct vioctl *c, const struct verbs_udata *udata)
{
	if (!udata)
		return;
	if (udata->in_len)
		vioctl_in(c, UVERBS_ATTR_UHW_IN, udata->in, udata->in_len);
	if (udata->out_len)
		vioctl_out(c, UVERBS_ATTR_UHW_OUT, udata->out, udata->out_len);
}

void vioctl_link(struct vioctl *c, const struct vioctl_chain *chain)
{
	c->chain = chain;
}

static unsigned int chain_attrs(const struct vioctl_chain *link)
{
	unsigned int n = 0;

	for (; link; link = link->next)
		n += link->num_attrs;
	return n;
}

static void inline_short_input(struct ib_uverbs_attr *a)
{
	uint64_t bytes = 0;

	if (a->len > sizeof(a->data))
		return;
	memcpy(&bytes, (const void *)(uintptr_t)a->data, a->len);
	a->data = bytes;
}

static void append_chain(struct ib_uverbs_attr *to, const struct vioctl_chain *link)
{
	for (; link; link = link->next) {
		memcpy(to, link->attrs, link->num_attrs * sizeof(*to));
		if (link->inline_idx >= 0 && (unsigned int)link->inline_idx < link->num_attrs)
			inline_short_input(&to[link->inline_idx]);
		to += link->num_attrs;
	}
}

/* The kernel flags each pointer output it wrote (UVERBS_ATTR_F_VALID_OUTPUT):
 * chained attributes carry no record of which are outputs. */
static void copy_back_chain(const struct ib_uverbs_attr *from, const struct vioctl_chain *link)
{
	for (; link; link = link->next) {
		for (unsigned int i = 0; i < link->num_attrs; i++) {
			if ((int)i == link->inline_idx)
				continue;
			link->attrs[i] = from[i];
			if (from[i].flags & UVERBS_ATTR_F_VALID_OUTPUT)
				vcmd_mark_defined((void *)(uintptr_t)from[i].data, from[i].len);
		}
		from += link->num_attrs;
	}
}

/* Room for the command's own attributes and a provider's usual few
 * without allocating. */
enum { VIOCTL_STACK_ATTRS = 2 * VIOCTL_MAX_ATTRS };

int vioctl_exec(struct ibv_context *ctx, struct vioctl *c)
{
	uint64_t stack[(sizeof(struct ib_uverbs_ioctl_hdr) +
			VIOCTL_STACK_ATTRS * sizeof(struct ib_uverbs_attr)) / 8];
	unsigned int total = c->num_attrs + chain_attrs(c->chain);
	size_t own_len = c->num_attrs * sizeof(struct ib_uverbs_attr);
	size_t len = sizeof(struct ib_uverbs_ioctl_hdr) + total * sizeof(struct ib_uverbs_attr);
	struct ib_uverbs_ioctl_hdr *hdr = (void *)stack;
	int ret = 0;

	if (len > UINT16_MAX)
		return EINVAL;
	if (total > VIOCTL_STACK_ATTRS && !(hdr = malloc(len)))
		return ENOMEM;
	memset(hdr, 0, sizeof(*hdr));
	hdr->length = len;
	hdr->object_id = c->object_id;
	hdr->method_id = c->method_id;
	hdr->num_attrs = total;
	hdr->driver_id = verbs_priv(ctx)->driver_id;
	memcpy(hdr->attrs, c->attrs, own_len);
	append_chain(hdr->attrs + c->num_attrs, c->chain);
	if (verbs_sys.ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, hdr)) {
		ret = errno;
		goto out;
	}
	memcpy(c->attrs, hdr->attrs, own_len);
	copy_back_chain(hdr->attrs + c->num_attrs, c->chain);

	/* The kernel wrote our outputs: all of them, as every attribute is
	 * mandatory, which the uverbs ABI treats as a valid-output flag. */
	for (unsigned int i = 0; i < c->num_attrs; i++)
		if (c->outputs & (1u << i))
			vcmd_mark_defined((void *)(uintptr_t)c->attrs[i].data, c->attrs[i].len);
out:
	if (hdr != (void *)stack)
		free(hdr);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Choosing the transport                                              */

/*
 * How the kernel says it does not know what was asked (Linux 6.1,
 * drivers/infiniband/core/uverbs_ioctl.c): ENOTTY when the file has no
 * RDMA_VERBS_IOCTL at all; EPROTONOSUPPORT for an unknown object, method
 * or mandatory attribute (handlers cannot return it: the framework turns
 * theirs into EINVAL).  An EOPNOTSUPP comes from inside a method the
 * kernel knows, from its handler or the driver, and write() would give
 * the same answer.
 */
static bool unknown_to_kernel(int ret)
{
	return ret == ENOTTY || ret == EPROTONOSUPPORT;
}

bool vcmd_use_ioctl(struct ibv_context *ctx, enum vcmd_method m)
{
	struct verbs_ex_private *priv = verbs_priv(ctx);

	if (priv->mode == VERBS_CMD_WRITE)
		return false;
	return !(atomic_load_explicit(&priv->ioctl_off, memory_order_relaxed) &
		 (UINT64_C(1) << m));
}

bool vcmd_fall_back(struct ibv_context *ctx, enum vcmd_method m, int *ret)
{
	struct verbs_ex_private *priv = verbs_priv(ctx);

	if (!unknown_to_kernel(*ret))
		return false;
	if (priv->mode == VERBS_CMD_IOCTL) {
		*ret = EOPNOTSUPP;
		return false;
	}
	/* A kernel without RDMA_VERBS_IOCTL at all refuses everything. */
	atomic_fetch_or(&priv->ioctl_off,
			*ret == ENOTTY ? ~UINT64_C(0) : UINT64_C(1) << m);
	return true;
}

int vcmd_ioctl_only(struct ibv_context *ctx, enum vcmd_method m, struct vioctl *c)
{
	int ret;

	if (!vcmd_use_ioctl(ctx, m))
		return EOPNOTSUPP;
	ret = vioctl_exec(ctx, c);
	if (vcmd_fall_back(ctx, m, &ret))
		return EOPNOTSUPP;
	return ret;
}

int vcmd_destroy_result(int ret)
{
	if (ret == EIO && verbs_allow_disassoc_destroy())
		return 0;
	return ret;
}

/* vcmd_destroy() and vcmd_destroy_tracked(): 0 or the kernel's errno;
 * events_reported, when not NULL, receives the kernel's count of async
 * events for the object (ioctl attribute 1, or the write() response). */
static int destroy_exec(struct ibv_context *ctx, enum vcmd_method m, uint16_t object_id,
			uint16_t method_id, uint32_t handle, uint32_t write_cmd,
			uint32_t *events_reported)
{
	int ret;

	if (vcmd_use_ioctl(ctx, m)) {
		struct vioctl c;

		vioctl_init(&c, object_id, method_id);
		vioctl_idr(&c, 0, handle);
		if (events_reported)
			vioctl_out(&c, 1, events_reported, sizeof(*events_reported));
		ret = vioctl_exec(ctx, &c);
		if (!vcmd_fall_back(ctx, m, &ret))
			return ret;
	}
	if (write_cmd & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		/* Extended destroys (flow, indirection table, WQ) lead with a
		 * comp_mask the kernel wants 0; the WQ's response has the
		 * count after its comp_mask and response_length. */
		uint32_t req[2] = { 0, handle };
		struct ib_uverbs_ex_destroy_wq_resp resp = {};

		ret = vcmd_write(ctx, write_cmd, req, sizeof(req), events_reported ? &resp : NULL,
				 events_reported ? sizeof(resp) : 0, NULL);
		if (events_reported)
			*events_reported = resp.events_reported;
	} else if (events_reported) {
		/* QP and SRQ: the same request and response layouts. */
		struct ib_uverbs_destroy_qp req = { .qp_handle = handle };

		ret = vcmd_write(ctx, write_cmd, &req, sizeof(req), events_reported,
				 sizeof(*events_reported), NULL);
	} else {
		ret = vcmd_write(ctx, write_cmd, &handle, sizeof(handle), NULL, 0, NULL);
	}
	return ret;
}

int vcmd_destroy(struct ibv_context *ctx, enum vcmd_method m, uint16_t object_id,
		 uint16_t method_id, uint32_t handle, uint32_t write_cmd)
{
	return vcmd_destroy_result(destroy_exec(ctx, m, object_id, method_id, handle, write_cmd,
						NULL));
}

int vcmd_destroy_tracked(struct ibv_context *ctx, enum vcmd_method m, uint16_t object_id,
			 uint16_t method_id, uint32_t handle, uint32_t write_cmd,
			 const struct vcmd_event_count *events)
{
	uint32_t reported = 0;
	int ret = destroy_exec(ctx, m, object_id, method_id, handle, write_cmd, &reported);

	if (ret)
		return vcmd_destroy_result(ret);
	/* Unacknowledged async events still point at the object. */
	pthread_mutex_lock(events->mutex);
	while (*events->completed != reported)
		pthread_cond_wait(events->cond, events->mutex);
	pthread_mutex_unlock(events->mutex);
	return 0;
}

/* ------------------------------------------------------------------ */
/* write() framing                                                     */

static size_t round_up(size_t n, size_t unit)
{
	return (n + unit - 1) / unit * unit;
}

static int write_exec(struct ibv_context *ctx, uint32_t cmd, void *req,
		      size_t req_len, void *resp, size_t resp_len,
		      const struct verbs_udata *udata)
{
	bool ex = cmd & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	size_t unit = ex ? 8 : 4;
	size_t drv_in = udata ? udata->in_len : 0, drv_out = udata ? udata->out_len : 0;
	size_t head = sizeof(struct ib_uverbs_cmd_hdr) +
		      (ex ? sizeof(struct ib_uverbs_ex_cmd_hdr) : 0);
	size_t core_in = ex ? round_up(req_len, 8) : req_len;
	size_t core_out = ex ? round_up(resp_len, 8) : resp_len;
	size_t in_total = round_up(head + core_in + drv_in, unit);
	size_t out_total = round_up(core_out + drv_out, unit);
	uint64_t in_stack[64], out_stack[32];
	char *in = (char *)in_stack, *out = resp;
	struct ib_uverbs_cmd_hdr *hdr;
	int ret = 0;

	if (in_total > sizeof(in_stack) && !(in = calloc(1, in_total)))
		return ENOMEM;
	/* The driver's response follows the core one in the same buffer. */
	if (drv_out || out_total != resp_len) {
		out = out_total > sizeof(out_stack) ? malloc(out_total) : (char *)out_stack;
		if (!out) {
			ret = ENOMEM;
			goto free_in;
		}
	}
	memset(in, 0, in_total);
	hdr = (void *)in;
	hdr->command = cmd;
	if (ex) {
		struct ib_uverbs_ex_cmd_hdr *ex_hdr = (void *)(hdr + 1);

		hdr->in_words = core_in / 8;
		hdr->out_words = core_out / 8;
		ex_hdr->provider_in_words = (in_total - head - core_in) / 8;
		ex_hdr->provider_out_words = (out_total - core_out) / 8;
		if (out_total)
			ex_hdr->response = (uintptr_t)out;
	} else {
		hdr->in_words = in_total / 4;
		hdr->out_words = out_total / 4;
	}
	memcpy(in + head, req, req_len);
	if (!ex && resp_len) {
		uint64_t response = (uintptr_t)out;

		memcpy(in + head, &response, sizeof(response));
	}
	if (drv_in)
		memcpy(in + head + core_in, udata->in, drv_in);

	ssize_t n = verbs_sys.write(ctx->cmd_fd, in, in_total);
	if (n < 0)
		ret = errno;
	else if ((size_t)n != in_total)
		ret = EIO;
	if (!ret && out_total) {
		vcmd_mark_defined(out, out_total);
		if (out != resp) {
			memcpy(resp, out, resp_len);
			if (drv_out)
				memcpy(udata->out, out + core_out, drv_out);
		}
	}
	if (out != resp && out != (char *)out_stack)
		free(out);
free_in:
	if (in != (char *)in_stack)
		free(in);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Legacy commands: tunnelled or written                               */

static int invoke_write(struct ibv_context *ctx, uint32_t cmd, void *req,
			size_t req_len, void *resp, size_t resp_len,
			const struct verbs_udata *udata)
{
	struct vioctl c;

	vioctl_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	vioctl_in(&c, UVERBS_ATTR_CORE_IN, req, req_len);
	if (resp_len)
		vioctl_out(&c, UVERBS_ATTR_CORE_OUT, resp, resp_len);
	vioctl_const(&c, UVERBS_ATTR_WRITE_CMD, cmd);
	vioctl_udata(&c, udata);
	return vioctl_exec(ctx, &c);
}

int vcmd_write(struct ibv_context *ctx, uint32_t cmd, void *req, size_t req_len,
	       void *resp, size_t resp_len, const struct verbs_udata *udata)
{
	int ret;

	if (vcmd_use_ioctl(ctx, VCMD_INVOKE_WRITE)) {
		/* The response field of a legacy request means nothing here. */
		if (!(cmd & IB_USER_VERBS_CMD_FLAG_EXTENDED) && resp_len)
			memset(req, 0, sizeof(uint64_t));
		ret = invoke_write(ctx, cmd, req, req_len, resp, resp_len, udata);
		if (!vcmd_fall_back(ctx, VCMD_INVOKE_WRITE, &ret))
			return ret;
	}
	return write_exec(ctx, cmd, req, req_len, resp, resp_len, udata);
}

/* ------------------------------------------------------------------ */
/* Legacy commands on the datapath                                     */

int vcmd_write_datapath_fallback(struct ibv_context *ctx, uint32_t cmd, void *req,
				 size_t req_len, void *resp, size_t resp_len, int err)
{
	/* write() refuses a process whose credentials are not those that
	 * opened the device (a forked child, say); the tunnel does not. */
	if (!err || (err == EACCES && vcmd_use_ioctl(ctx, VCMD_INVOKE_WRITE)))
		return vcmd_write(ctx, cmd, req, req_len, resp, resp_len, NULL);
	return err;
}
