/* SPDX-License-Identifier: MIT */
/* Contexts: opening, importing and closing devices, the provider's ops,
 * asynchronous events. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cmd.h"

/* ------------------------------------------------------------------ */
/* Ops                                                                 */

/* Data-path entries are called without a NULL check by the inline verbs,
 * so a provider without them gets these. */
static int no_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq, (void)n, (void)wc;
	return -EOPNOTSUPP;
}

static int no_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr)
{
	(void)qp;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int no_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	(void)qp;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int no_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	(void)srq;
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int no_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	(void)qp, (void)mw, (void)bind;
	return EOPNOTSUPP;
}

#define MERGE(dst, src, field) do { if ((src)->field) (dst)->field = (src)->field; } while (0)

void verbs_install_ops(struct verbs_context *vctx, const struct verbs_ops *ops)
{
	struct verbs_ops *o = &vctx->priv->ops;
	struct ibv_context_ops *c = &vctx->context.ops;

	MERGE(o, ops, query_device_ex);
	MERGE(o, ops, query_port);
	MERGE(o, ops, alloc_pd);
	MERGE(o, ops, dealloc_pd);
	MERGE(o, ops, reg_mr);
	MERGE(o, ops, rereg_mr);
	MERGE(o, ops, dereg_mr);
	MERGE(o, ops, alloc_mw);
	MERGE(o, ops, dealloc_mw);
	MERGE(o, ops, bind_mw);
	MERGE(o, ops, create_cq);
	MERGE(o, ops, create_cq_ex);
	MERGE(o, ops, poll_cq);
	MERGE(o, ops, req_notify_cq);
	MERGE(o, ops, cq_event);
	MERGE(o, ops, resize_cq);
	MERGE(o, ops, destroy_cq);
	MERGE(o, ops, create_srq);
	MERGE(o, ops, create_srq_ex);
	MERGE(o, ops, modify_srq);
	MERGE(o, ops, query_srq);
	MERGE(o, ops, destroy_srq);
	MERGE(o, ops, post_srq_recv);
	MERGE(o, ops, create_qp);
	MERGE(o, ops, create_qp_ex);
	MERGE(o, ops, query_qp);
	MERGE(o, ops, modify_qp);
	MERGE(o, ops, destroy_qp);
	MERGE(o, ops, query_qp_data_in_order);
	MERGE(o, ops, query_ece);
	MERGE(o, ops, set_ece);
	MERGE(o, ops, post_send);
	MERGE(o, ops, post_recv);
	MERGE(o, ops, create_ah);
	MERGE(o, ops, destroy_ah);
	MERGE(o, ops, attach_mcast);
	MERGE(o, ops, detach_mcast);
	MERGE(o, ops, async_event);

	/* What upstream-built programs call directly. */
	c->poll_cq = o->poll_cq ? o->poll_cq : no_poll_cq;
	c->req_notify_cq = o->req_notify_cq ? o->req_notify_cq : verbs_cmd_req_notify_cq;
	c->post_send = o->post_send ? o->post_send : no_post_send;
	c->post_recv = o->post_recv ? o->post_recv : no_post_recv;
	c->post_srq_recv = o->post_srq_recv ? o->post_srq_recv : no_post_srq_recv;
	c->alloc_mw = o->alloc_mw ? o->alloc_mw : verbs_generic_alloc_mw;
	c->dealloc_mw = o->dealloc_mw ? o->dealloc_mw : verbs_generic_dealloc_mw;
	c->bind_mw = o->bind_mw ? o->bind_mw : no_bind_mw;

	/* The extended entries stay the core's: it checks and accounts
	 * before the provider runs.  The rest stay NULL, which the inline
	 * verbs report as EOPNOTSUPP. */
	vctx->query_port = verbs_query_port_sized;
	vctx->query_device_ex = verbs_query_device_ex;
	vctx->create_cq_ex = verbs_create_cq_ex;
	vctx->create_qp_ex = verbs_create_qp_ex;
	vctx->create_srq_ex = verbs_create_srq_ex;
}

/* ------------------------------------------------------------------ */
/* Context life cycle                                                  */

int verbs_init_context(struct verbs_context *vctx, struct verbs_device *dev, int cmd_fd)
{
	struct ibv_context *ctx = &vctx->context;
	static const struct verbs_ops none;

	vctx->priv = calloc(1, sizeof(*vctx->priv));
	if (!vctx->priv)
		return ENOMEM;
	vctx->priv->mode = verbs_cmd_mode_default();
	/* The kernel refuses an ioctl whose header names another driver
	 * (EINVAL).  The record has the id from netlink; one from sysfs
	 * has none, and the built-in provider that claimed the device
	 * gives its own.  Plugins give theirs instead (FACTS 22). */
	vctx->priv->driver_id = dev->sysfs ? dev->sysfs->driver_id : RDMA_DRIVER_UNKNOWN;
	if (vctx->priv->driver_id == RDMA_DRIVER_UNKNOWN && dev->sysfs && dev->sysfs->provider_data)
		vctx->priv->driver_id = verbs_sysfs_provider(dev->sysfs)->driver_id;
	vctx->sz = sizeof(*vctx);
	verbs_device_get(dev);
	ctx->device = &dev->device;
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = -1;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&ctx->mutex, NULL);
	verbs_install_ops(vctx, &none);
	return 0;
}

void verbs_uninit_context(struct verbs_context *vctx)
{
	struct ibv_context *ctx = &vctx->context;

	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	if (ctx->cmd_fd >= 0)
		close(ctx->cmd_fd);
	pthread_mutex_destroy(&ctx->mutex);
	free(vctx->priv->plugin);	/* the adapter's (compat/plugins/context.c) */
	free(vctx->priv);
	vctx->priv = NULL;
	verbs_device_put(verbs_get_device(ctx->device));
}

/* The node may have been renamed or be stale: trust the device number
 * over the name when both are known. */
static int open_node(const char *path)
{
	int fd;

	do
		fd = open(path, O_RDWR | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd;
}

/* Whether fd is the character device discovery found (any character
 * device when its number is unknown). */
static bool is_the_cdev(int fd, dev_t cdev)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) && (!cdev || st.st_rdev == cdev);
}

/*
 * The node named after the device, else the one udev keeps by number
 * (FACTS 21a): a renamed or stale node must not hand another device, or
 * a plain file, to the provider.
 */
static int open_cdev(const struct verbs_sysfs_dev *sysfs)
{
	char path[PATH_MAX];
	int fd, err = ENOENT;

	if (!verbs_dev_path(path, sizeof(path), sysfs->sysfs_name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open_node(path);
	if (fd >= 0 && is_the_cdev(fd, sysfs->sysfs_cdev))
		return fd;
	if (fd >= 0)
		close(fd);
	else
		err = errno;
	if (sysfs->sysfs_cdev) {
		snprintf(path, sizeof(path), "/dev/char/%u:%u",
			 major(sysfs->sysfs_cdev), minor(sysfs->sysfs_cdev));
		fd = open_node(path);
		if (fd >= 0 && is_the_cdev(fd, sysfs->sysfs_cdev))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	errno = err;
	return -1;
}

/* Contexts get an async event fd with the kernel context over write(),
 * but not over ioctl, where it is an object of its own: the core adds
 * one if the provider did not (FACTS 21d, 27). */
static int attach_async_fd(struct ibv_context *ctx)
{
	return ctx->async_fd == -1 ? vcmd_alloc_async_fd(ctx) : 0;
}

struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data)
{
	struct verbs_device *dev = verbs_get_device(device);
	struct verbs_context *vctx;
	int fd, ret;

	fd = open_cdev(dev->sysfs);
	if (fd < 0)
		return NULL;
	/* fd is the provider's now, closed even if it fails. */
	vctx = verbs_sysfs_provider(dev->sysfs)->alloc_context(dev, fd, private_data);
	if (!vctx)
		return NULL;
	/* The kernel context exists now and cannot be asked for again (a
	 * file has one): without an event fd it is half-made, so that
	 * failure is the whole open's. */
	ret = attach_async_fd(&vctx->context);
	if (ret) {
		ibv_close_device(&vctx->context);
		errno = ret;
		return NULL;
	}
	return &vctx->context;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	return verbs_open_device(device, NULL);
}

/* The listed device behind a char device number, with a reference. */
static struct verbs_device *device_by_devnum(dev_t devnum)
{
	struct verbs_device *found = NULL;
	struct ibv_device **list;

	list = ibv_get_device_list(NULL);
	if (!list)
		return NULL;
	for (struct ibv_device **d = list; *d && !found; d++)
		if (verbs_get_device(*d)->sysfs->sysfs_cdev == devnum)
			found = verbs_get_device(*d);
	if (found)
		verbs_device_get(found);
	ibv_free_device_list(list);
	if (!found)
		errno = ENODEV;
	return found;
}

struct ibv_context *ibv_import_device(int cmd_fd)
{
	const struct verbs_provider *provider;
	struct verbs_context *vctx;
	struct verbs_device *dev;
	struct stat st;
	int err;

	if (fstat(cmd_fd, &st))
		return NULL;
	if (!S_ISCHR(st.st_mode)) {
		errno = EINVAL;
		return NULL;
	}
	dev = device_by_devnum(st.st_rdev);
	if (!dev)
		return NULL;
	provider = verbs_sysfs_provider(dev->sysfs);
	if (!provider->import_context) {
		verbs_device_put(dev);
		errno = EOPNOTSUPP;
		return NULL;
	}
	vctx = provider->import_context(dev, cmd_fd);
	err = errno;
	/* A context holds a reference of its own. */
	verbs_device_put(dev);
	if (!vctx) {
		errno = err;
		return NULL;
	}
	/* Events also reach the exporter's async fd: an import without one
	 * of its own is still of use. */
	attach_async_fd(&vctx->context);
	return &vctx->context;
}

static struct verbs_context *plain_context(struct verbs_device *dev, int cmd_fd,
					  const struct verbs_ops *ops,
					  const struct verbs_udata *udata, bool import)
{
	struct verbs_context *vctx = calloc(1, sizeof(*vctx));
	int ret = ENOMEM;

	if (!vctx)
		goto err_fd;
	ret = verbs_init_context(vctx, dev, cmd_fd);
	if (ret)
		goto err_free;
	ret = import ? verbs_cmd_query_context(&vctx->context)
		     : verbs_cmd_get_context(&vctx->context, udata);
	if (ret)
		goto err_uninit;
	verbs_install_ops(vctx, ops);
	return vctx;

err_uninit:
	/* A refused import leaves cmd_fd to its caller. */
	if (import)
		vctx->context.cmd_fd = -1;
	verbs_uninit_context(vctx);
	free(vctx);
	errno = ret;
	return NULL;
err_free:
	free(vctx);
err_fd:
	if (!import)
		close(cmd_fd);
	errno = ret;
	return NULL;
}

struct verbs_context *verbs_plain_context(struct verbs_device *dev, int cmd_fd,
					  const struct verbs_ops *ops,
					  const struct verbs_udata *udata)
{
	return plain_context(dev, cmd_fd, ops, udata, false);
}

struct verbs_context *verbs_plain_import_context(struct verbs_device *dev, int cmd_fd,
						 const struct verbs_ops *ops)
{
	return plain_context(dev, cmd_fd, ops, NULL, true);
}

void verbs_free_plain_context(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	verbs_uninit_context(vctx);
	free(vctx);
}

/* The provider releases everything, the context's device reference
 * included (verbs_uninit_context): ctx is gone afterwards (FACTS 25). */
int ibv_close_device(struct ibv_context *context)
{
	verbs_sysfs_provider(verbs_get_device(context->device)->sysfs)->free_context(context);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Asynchronous events                                                 */

enum verbs_event_element verbs_event_element(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return VERBS_ELEMENT_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return VERBS_ELEMENT_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return VERBS_ELEMENT_SRQ;
	case IBV_EVENT_WQ_FATAL:
		return VERBS_ELEMENT_WQ;
	default:
		return VERBS_ELEMENT_PORT;
	}
}

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct ib_uverbs_async_event_desc desc;
	const struct verbs_ops *ops = verbs_ops(context);
	ssize_t n;

	do
		n = read(context->async_fd, &desc, sizeof(desc));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(desc)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	vcmd_mark_defined(&desc, sizeof(desc));
	event->event_type = desc.event_type;
	switch (verbs_event_element(event->event_type)) {
	case VERBS_ELEMENT_CQ:
		event->element.cq = (void *)(uintptr_t)desc.element;
		break;
	case VERBS_ELEMENT_QP:
		event->element.qp = (void *)(uintptr_t)desc.element;
		break;
	case VERBS_ELEMENT_SRQ:
		event->element.srq = (void *)(uintptr_t)desc.element;
		break;
	case VERBS_ELEMENT_WQ:
		event->element.wq = (void *)(uintptr_t)desc.element;
		break;
	case VERBS_ELEMENT_PORT:
		/* DEVICE_FATAL comes with port 0 when the device is
		 * unplugged. */
		event->element.port_num = desc.element;
		break;
	}
	if (ops->async_event)
		ops->async_event(context, event);
	return 0;
}

#define ACK_EVENT(obj, counter) do {			\
	pthread_mutex_lock(&(obj)->mutex);		\
	(obj)->counter++;				\
	pthread_cond_signal(&(obj)->cond);		\
	pthread_mutex_unlock(&(obj)->mutex);		\
} while (0)

void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (verbs_event_element(event->event_type)) {
	case VERBS_ELEMENT_CQ:
		ACK_EVENT(event->element.cq, async_events_completed);
		break;
	case VERBS_ELEMENT_QP:
		ACK_EVENT(event->element.qp, events_completed);
		break;
	case VERBS_ELEMENT_SRQ:
		ACK_EVENT(event->element.srq, events_completed);
		break;
	case VERBS_ELEMENT_WQ:
		ACK_EVENT(event->element.wq, events_completed);
		break;
	case VERBS_ELEMENT_PORT:
		break;
	}
}
