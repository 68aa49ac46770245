/* SPDX-License-Identifier: MIT */
/* Private to libibverbs: nothing here is part of the ABI. */
#ifndef OPENVERBS_INTERNAL_H
#define OPENVERBS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/*
 * Everything is built with -fvisibility=hidden.  What the public headers
 * declare gets default visibility here, and the version script generated
 * from ABI.symvers then decides what is really exported.
 */
#pragma GCC visibility push(default)
#include <infiniband/verbs.h>
/* Exported since IBVERBS_1.0 but declared in no public header: upstream
 * keeps them in its provider interface. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
/* IBVERBS_PRIVATE_34, imported by upstream's ibv_devinfo: which RoCE
 * version a GID is (IB GIDs report the first value). */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);
#pragma GCC visibility pop

#include "driver.h"

/* Reads the file at path into buf without its trailing newline,
 * NUL-terminated only when it fits (ibv_read_sysfs_file's contract);
 * returns the length, or -1 with errno set. */
int verbs_read_attribute(const char *path, char *buf, size_t size);

/* Reads "<sysfs>/<fmt...>" into buf as a NUL-terminated string without
 * its trailing newline; returns the length or -1 with errno set. */
int verbs_read_sysfs(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ */
/* Process-wide settings (init.c)                                      */

/* Where the uverbs character devices live; tests point it elsewhere. */
extern const char *verbs_dev_dir;
/* verbs_dev_dir/cdev into path; false if it does not fit. */
bool verbs_dev_path(char *path, size_t size, const char *cdev);

/* OPENVERBS_DISABLE_PROVIDERS names the built-in provider: it claims no
 * device, so a provider plugin may drive it. */
bool verbs_provider_disabled(const char *name);
/* IBV_SHOW_WARNINGS: the only way the library writes to stderr unasked. */
bool verbs_warnings_enabled(void);
/* RDMAV_ALLOW_DISASSOC_DESTROY: destroying on a dead device succeeds. */
bool verbs_allow_disassoc_destroy(void);
/* One-time setup shared by the entry points (fork safety env, memlock). */
void verbs_init_once(void);

/* ------------------------------------------------------------------ */
/* Devices (device_list.c)                                             */

void verbs_device_get(struct verbs_device *dev);
void verbs_device_put(struct verbs_device *dev);

/* Circular lists of struct verbs_list_node, headed by a node of their
 * own. */
static inline void verbs_list_init(struct verbs_list_node *head)
{
	head->next = head->prev = head;
}

static inline bool verbs_list_empty(const struct verbs_list_node *head)
{
	return head->next == head;
}

static inline void verbs_list_add_tail(struct verbs_list_node *head,
				       struct verbs_list_node *node)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

static inline void verbs_list_del(struct verbs_list_node *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	node->next = node->prev = node;
}

/* enum ibv_node_type of the kernel's node type code (FACTS 14). */
static inline enum ibv_node_type verbs_node_type(int kernel_code)
{
	return kernel_code >= IBV_NODE_CA && kernel_code <= IBV_NODE_UNSPECIFIED ?
		(enum ibv_node_type)kernel_code : IBV_NODE_UNKNOWN;
}

/*
 * Discovery: each backend appends one calloc'd struct verbs_sysfs_dev per
 * uverbs device to *found (linked by entry) and returns how many, or -1
 * with errno set (and *found left as it was).  Netlink first, sysfs when
 * netlink is unavailable.
 */
int verbs_netlink_scan(struct verbs_list_node *found);
int verbs_sysfs_scan(struct verbs_list_node *found);
/* Fills in sysfs's char device (name, number, ABI, driver id) from the
 * cache if the device with sysfs's netlink index and name is there: such
 * devices need no GET_CHARDEV question.  false if not cached. */
bool verbs_cached_chardev(struct verbs_sysfs_dev *sysfs);
/* The enabled built-in provider for a device, or NULL (said only when
 * warnings are asked for). */
const struct verbs_provider *verbs_match_provider(const struct verbs_sysfs_dev *sysfs);
/* The netlink backend as ibv_get_device_list() calls it: tests replace
 * it, as the host's kernel knows nothing of their fake sysfs trees. */
extern int (*verbs_netlink_scanner)(struct verbs_list_node *found);
/* The providers discovery matches devices against: verbs_builtin_providers,
 * or a unit test's own table of fakes. */
extern const struct verbs_provider *const *verbs_providers;

/*
 * A device no built-in provider claimed, offered to upstream's provider
 * plugins (compat/plugins): a device the plugin allocated, with ops set and
 * sysfs->provider_data the provider that drives it, which the core then
 * completes as it does its own (FACTS 19); or NULL with errno set.
 */
struct verbs_device *verbs_plugin_claim(struct verbs_sysfs_dev *sysfs);
/* Whether a QP of a plugin context was made an extended one (the
 * adapter's record, compat/plugins/qp_ex.c): ibv_qp_to_qp_ex's answer. */
bool verbs_plugin_qp_ex_recorded(struct ibv_qp *qp);
/* The verbs our struct verbs_ops has no entry for, on a plugin context
 * (verbs_priv(ctx)->plugin set): the plugin's own op (compat/plugins). */
struct ibv_mr *verbs_plugin_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
					  uint64_t iova, int fd, int access);
struct ibv_pd *verbs_plugin_import_pd(struct ibv_context *ctx, uint32_t handle);
void verbs_plugin_unimport_pd(struct ibv_pd *pd);
struct ibv_mr *verbs_plugin_import_mr(struct ibv_pd *pd, uint32_t handle);
void verbs_plugin_unimport_mr(struct ibv_mr *mr);
struct ibv_dm *verbs_plugin_import_dm(struct ibv_context *ctx, uint32_t handle);
void verbs_plugin_unimport_dm(struct ibv_dm *dm);

/* ------------------------------------------------------------------ */
/* Contexts (context.c)                                                */

enum verbs_cmd_mode {
	VERBS_CMD_AUTO,
	VERBS_CMD_WRITE,
	VERBS_CMD_IOCTL,
};

/* The meson option cmd_mode, overridden by OPENVERBS_CMD_MODE. */
enum verbs_cmd_mode verbs_cmd_mode_default(void);

/* The core's state of one context (verbs_context.priv). */
struct verbs_ex_private {
	struct verbs_ops ops;		/* the provider's, NULLs as documented */
	enum verbs_cmd_mode mode;
	/* Methods (enum vcmd_method) this kernel does not know over ioctl:
	 * learnt once, then skipped. */
	_Atomic uint64_t ioctl_off;
	uint32_t driver_id;		/* enum rdma_driver_id, for ioctl headers */
	/* The adapter's state for a provider plugin's context; NULL for the
	 * built-in providers. */
	struct verbs_plugin_context *plugin;
};

static inline struct verbs_ex_private *verbs_priv(struct ibv_context *ctx)
{
	return verbs_get_ctx(ctx)->priv;
}

static inline const struct verbs_ops *verbs_ops(struct ibv_context *ctx)
{
	return &verbs_priv(ctx)->ops;
}

/* Which object an async event's element names: one classification for the
 * core's events and the IBVERBS_1.0 twins that translate them. */
enum verbs_event_element {
	VERBS_ELEMENT_PORT,		/* port number; 0 for device events */
	VERBS_ELEMENT_CQ,
	VERBS_ELEMENT_QP,
	VERBS_ELEMENT_SRQ,
	VERBS_ELEMENT_WQ,
};
enum verbs_event_element verbs_event_element(enum ibv_event_type type);

/* The core's entries in verbs_context (device.c, cq.c, qp.c, srq.c). */
int verbs_query_port_sized(struct ibv_context *ctx, uint8_t port,
			   struct ibv_port_attr *attr, size_t attr_len);
int verbs_query_device_ex(struct ibv_context *ctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
struct ibv_cq_ex *verbs_create_cq_ex(struct ibv_context *ctx,
				     struct ibv_cq_init_attr_ex *attr);
struct ibv_qp *verbs_create_qp_ex(struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *attr);
struct ibv_srq *verbs_create_srq_ex(struct ibv_context *ctx,
				    struct ibv_srq_init_attr_ex *attr);
/* Memory windows without provider data (mr.c). */
struct ibv_mw *verbs_generic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int verbs_generic_dealloc_mw(struct ibv_mw *mw);

/* ------------------------------------------------------------------ */
/* Logging (init.c)                                                    */

void verbs_vlog(enum verbs_log_level level, const char *fmt, va_list ap);
/* A warning for IBV_SHOW_WARNINGS, like upstream's stderr notes. */
void verbs_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
