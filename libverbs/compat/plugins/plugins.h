/* SPDX-License-Identifier: MIT */
/*
 * The adapter between upstream's private provider interface
 * (IBVERBS_PRIVATE_34, lib<name>-rdmav34.so plugins) and our own small
 * contract (libverbs/driver.h).  The core and our built-in providers never
 * see these types: a plugin's device is claimed here (device.c), and its
 * contexts are driven through one bridge struct verbs_provider whose ops
 * call the plugin's private copy of its 76 ops (context.c).
 *
 * The types below carry upstream's names and layouts (the facts in
 * shared/abi/private34/layouts.txt; the ABI suite compares their DWARF),
 * because plugins are compiled against them.  Fact numbers ("FACTS 16")
 * refer to shared/abi/private34/FACTS.md.
 *
 * QPs and the v56 plugins (V56-ADDITIONS 3-4): struct verbs_qp grew by 8
 * bytes in rdma-core 45, so a v56 plugin's verbs_qp.comp_mask sits where a
 * v44 one's xrcd does.  The core therefore never reads or writes those
 * fields in QPs of plugin contexts: the ibv_cmd_create_qp* helpers record
 * in a core-side set which QPs were asked for IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
 * (verbs_plugin_qp_ex_record), ibv_cmd_destroy_qp forgets them, and
 * ibv_qp_to_qp_ex answers from the set.
 */
#ifndef OPENVERBS_COMPAT_PLUGINS_H
#define OPENVERBS_COMPAT_PLUGINS_H

#include <assert.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "internal.h"

struct verbs_sysfs_dev;
struct verbs_device;

/* ------------------------------------------------------------------ */
/* Registration and matching (FACTS 10-18)                             */

/* Values of verbs_match_ent.kind. */
enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

/* One entry of a plugin's match table, ended by a SENTINEL entry. */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;	/* MODALIAS: an fnmatch(3) pattern */
		uint64_t driver_id;	/* DRIVER_ID: enum rdma_driver_id */
	} u;
	uint16_t vendor;		/* PCI */
	uint16_t device;		/* PCI */
	uint8_t kind;
};

/* What a plugin registers with verbs_register_driver_34(). */
struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	/* Only upstream's static archives use it (FACTS 11): ignored. */
	const struct verbs_device_ops **static_providers;
	/* When set, decides the match instead of the table (FACTS 17). */
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device, int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device, int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

#if defined(__x86_64__)	/* layouts.txt's numbers are x86_64's */
static_assert(sizeof(struct verbs_match_ent) == 24, "layouts.txt §1");
static_assert(offsetof(struct verbs_match_ent, kind) == 20, "layouts.txt §1");
static_assert(sizeof(struct verbs_device_ops) == 72, "layouts.txt §1");
static_assert(offsetof(struct verbs_device_ops, alloc_device) == 56, "layouts.txt §1");
#endif

#pragma GCC visibility push(default)
void verbs_register_driver_34(const struct verbs_device_ops *ops);
#pragma GCC visibility pop

/* Calls fn for each registered ops table in registration order, until fn
 * returns non-NULL; that value, or NULL.  Safe against registrations made
 * meanwhile (a plugin's constructor may run inside fn). */
void *verbs_plugin_each(void *(*fn)(const struct verbs_device_ops *ops, void *arg),
			void *arg);

/*
 * The table match of FACTS 16-17 for one device and one plugin: stores
 * the hit (or NULL) in sysfs_dev->match, then applies match_device and
 * the ABI range.  Reads the modalias lazily (FACTS 14).
 */
bool verbs_plugin_matches(const struct verbs_device_ops *ops,
			  struct verbs_sysfs_dev *sysfs_dev);
/* Whether ops' table names the driver id (FACTS 18's first pass). */
bool verbs_plugin_has_driver_id(const struct verbs_device_ops *ops, uint32_t driver_id);

/* ------------------------------------------------------------------ */
/* Loading (loader.c, only with -Dplugins=enabled; FACTS 6-9)          */

/* Where the loader looks; tests point them elsewhere.  Defaults are the
 * meson options plugin_confdir and plugin_dir. */
extern const char *verbs_plugin_confdir;
extern const char *verbs_plugin_dir;

/* Whether RDMAV_DRIVERS/IBV_DRIVERS may be read (not when set-uid). */
bool verbs_plugin_env_trusted(uid_t uid, uid_t euid);
/*
 * Parses one config file's text: calls add(name, arg) for each "driver
 * <name>" line, warns about other first words.  0, or an errno value if
 * the file cannot be read (warned about too).
 */
int verbs_plugin_read_config(const char *path,
			     void (*add)(const char *name, void *arg), void *arg);
/*
 * The files to try for a plugin name, in order (FACTS 9): fills paths[]
 * and returns how many (1 or 2), or 0 if the name does not fit.
 */
int verbs_plugin_candidates(const char *name, char paths[2][PATH_MAX]);
/* dlopen()s every named plugin once per process (the environment's
 * first, then the config directory's); later calls do nothing. */
void verbs_plugins_load_once(void);

/* ------------------------------------------------------------------ */
/* Contexts (context.c)                                                */

/*
 * The adapter's part of a plugin context (verbs_ex_private.plugin): the
 * plugin's private copy of its ops, through which the core's own verbs
 * reach it (FACTS 33).
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *, enum ib_uverbs_advise_mr_advice, uint32_t, struct ibv_sge *, uint32_t);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *, struct ibv_alloc_dm_attr *);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *, struct ibv_parent_domain_init_attr *);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *);
	struct ibv_td *(*alloc_td)(struct ibv_context *, struct ibv_td_init_attr *);
	void (*async_event)(struct ibv_context *, struct ibv_async_event *);
	int (*attach_counters_point_flow)(struct ibv_counters *, struct ibv_counter_attach_attr *, struct ibv_flow *);
	int (*attach_mcast)(struct ibv_qp *, const union ibv_gid *, uint16_t);
	int (*bind_mw)(struct ibv_qp *, struct ibv_mw *, struct ibv_mw_bind *);
	int (*close_xrcd)(struct ibv_xrcd *);
	void (*cq_event)(struct ibv_cq *);
	struct ibv_ah *(*create_ah)(struct ibv_pd *, struct ibv_ah_attr *);
	struct ibv_counters *(*create_counters)(struct ibv_context *, struct ibv_counters_init_attr *);
	struct ibv_cq *(*create_cq)(struct ibv_context *, int, struct ibv_comp_channel *, int);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *, struct ibv_cq_init_attr_ex *);
	struct ibv_flow *(*create_flow)(struct ibv_qp *, struct ibv_flow_attr *);
	struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *, struct ibv_flow_action_esp_attr *);
	struct ibv_qp *(*create_qp)(struct ibv_pd *, struct ibv_qp_init_attr *);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *, struct ibv_qp_init_attr_ex *);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *, struct ibv_rwq_ind_table_init_attr *);
	struct ibv_srq *(*create_srq)(struct ibv_pd *, struct ibv_srq_init_attr *);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *, struct ibv_srq_init_attr_ex *);
	struct ibv_wq *(*create_wq)(struct ibv_context *, struct ibv_wq_init_attr *);
	int (*dealloc_mw)(struct ibv_mw *);
	int (*dealloc_pd)(struct ibv_pd *);
	int (*dealloc_td)(struct ibv_td *);
	int (*dereg_mr)(struct verbs_mr *);
	int (*destroy_ah)(struct ibv_ah *);
	int (*destroy_counters)(struct ibv_counters *);
	int (*destroy_cq)(struct ibv_cq *);
	int (*destroy_flow)(struct ibv_flow *);
	int (*destroy_flow_action)(struct ibv_flow_action *);
	int (*destroy_qp)(struct ibv_qp *);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *);
	int (*destroy_srq)(struct ibv_srq *);
	int (*destroy_wq)(struct ibv_wq *);
	int (*detach_mcast)(struct ibv_qp *, const union ibv_gid *, uint16_t);
	void (*free_context)(struct ibv_context *);
	int (*free_dm)(struct ibv_dm *);
	int (*get_srq_num)(struct ibv_srq *, uint32_t *);
	struct ibv_dm *(*import_dm)(struct ibv_context *, uint32_t);
	struct ibv_mr *(*import_mr)(struct ibv_pd *, uint32_t);
	struct ibv_pd *(*import_pd)(struct ibv_context *, uint32_t);
	int (*modify_cq)(struct ibv_cq *, struct ibv_modify_cq_attr *);
	int (*modify_flow_action_esp)(struct ibv_flow_action *, struct ibv_flow_action_esp_attr *);
	int (*modify_qp)(struct ibv_qp *, struct ibv_qp_attr *, int);
	int (*modify_qp_rate_limit)(struct ibv_qp *, struct ibv_qp_rate_limit_attr *);
	int (*modify_srq)(struct ibv_srq *, struct ibv_srq_attr *, int);
	int (*modify_wq)(struct ibv_wq *, struct ibv_wq_attr *);
	struct ibv_qp *(*open_qp)(struct ibv_context *, struct ibv_qp_open_attr *);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *, struct ibv_xrcd_init_attr *);
	int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *);
	int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **);
	int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
	int (*post_srq_ops)(struct ibv_srq *, struct ibv_ops_wr *, struct ibv_ops_wr **);
	int (*post_srq_recv)(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **);
	int (*query_device_ex)(struct ibv_context *, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t);
	int (*query_ece)(struct ibv_qp *, struct ibv_ece *);
	int (*query_port)(struct ibv_context *, uint8_t, struct ibv_port_attr *);
	int (*query_qp)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *);
	int (*query_qp_data_in_order)(struct ibv_qp *, enum ibv_wr_opcode, uint32_t);
	int (*query_rt_values)(struct ibv_context *, struct ibv_values_ex *);
	int (*query_srq)(struct ibv_srq *, struct ibv_srq_attr *);
	int (*read_counters)(struct ibv_counters *, uint64_t *, uint32_t, uint32_t);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *, struct ibv_dm *, uint64_t, size_t, unsigned int);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *, void *, size_t, uint64_t, int);
	int (*req_notify_cq)(struct ibv_cq *, int);
	int (*rereg_mr)(struct verbs_mr *, int, struct ibv_pd *, void *, size_t, int);
	int (*resize_cq)(struct ibv_cq *, int);
	int (*set_ece)(struct ibv_qp *, struct ibv_ece *);
	void (*unimport_dm)(struct ibv_dm *);
	void (*unimport_mr)(struct ibv_mr *);
	void (*unimport_pd)(struct ibv_pd *);
};

#if defined(__x86_64__)	/* layouts.txt's numbers are x86_64's */
static_assert(sizeof(struct verbs_context_ops) == 608, "layouts.txt §1");
static_assert(offsetof(struct verbs_context_ops, free_context) == 312, "ops-map.txt");
static_assert(offsetof(struct verbs_context_ops, unimport_pd) == 600, "ops-map.txt");
#endif

/* The rest of the IBVERBS_PRIVATE_34 surface this adapter defines
 * (symbols.txt §1; the ibv_cmd_* helpers are in commands.h). */
#pragma GCC visibility push(default)
void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
				    struct verbs_context *context_offset, uint32_t driver_id);
void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...) __attribute__((format(printf, 4, 5)));
/* Read by mlx5 directly (FACTS 5, 43). */
extern bool verbs_allow_disassociate_destroy;
/* V56-ADDITIONS 1. */
const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode);
#pragma GCC visibility pop

/* The bridge's half of opening: after the plugin's alloc_context or
 * import_context, fill the slots the core owns (ops-map.txt, last block). */
void verbs_plugin_fill_core_slots(struct verbs_context *vctx);
/* The plugin's private ops of a plugin context. */
const struct verbs_context_ops *verbs_plugin_ops(struct ibv_context *ctx);

/*
 * The release of rdma-core a plugin was built for, as its file name tells
 * ("libmlx5.so.1.25.56.1" -> 56), else 44 (V56-ADDITIONS 4).  The
 * ibv_cmd_* helpers choose the verbs_qp XRC offsets by it.
 */
unsigned int verbs_plugin_release(struct ibv_context *ctx);

/*
 * The set of plugin QPs that are extended ones (see the top): record
 * after a successful create with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS (0 or
 * ENOMEM), forget on destroy; ibv_qp_to_qp_ex asks
 * verbs_plugin_qp_ex_recorded() (internal.h) for QPs of plugin contexts.
 */
int verbs_plugin_qp_ex_record(struct ibv_qp *qp);
void verbs_plugin_qp_ex_forget(struct ibv_qp *qp);

#endif
