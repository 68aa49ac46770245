/* SPDX-License-Identifier: MIT */
/*
 * The IBVERBS_1.0 compatibility layer: the objects that binaries built
 * against the 1.0 headers see, and the entry points they bind to
 * (name@IBVERBS_1.0, non-default twins of name@@IBVERBS_1.1).
 *
 * Each 1.0 object is a wrapper of its own that keeps a few 1.0-era fields
 * and, last, the real object (compat-1.0 FACTS 5).  Every entry point
 * converts and calls the public 1.1 function; nothing here talks to a
 * provider or the kernel (FACTS 4).  The layouts are ABI (old binaries
 * were compiled against them) and are checked here by size and offset and
 * by the ABI suite against upstream's DWARF (tests/abi/compat-1.0-layouts.txt).
 *
 * This header uses the public API only, so that the vm suite's 1.0 test
 * program can build on the same layouts.
 */
#ifndef OPENVERBS_COMPAT_1_0_H
#define OPENVERBS_COMPAT_1_0_H

#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct ibv_device_1_0;
struct ibv_context_1_0;
struct ibv_pd_1_0;
struct ibv_cq_1_0;
struct ibv_srq_1_0;
struct ibv_qp_1_0;
struct ibv_ah_1_0;
struct ibv_send_wr_1_0;
struct ibv_recv_wr_1_0;

struct ibv_device_1_0 {
	void *obsolete_sysfs_dev;
	void *obsolete_sysfs_ibdev;
	struct ibv_device *real_device;
	struct _ibv_device_ops _ops;
};

/* The 1.0 data path was inline calls through this table: only the five
 * slots that take 1.0 objects are filled (FACTS 7). */
struct ibv_context_ops_1_0 {
	int (*query_device)(struct ibv_context *, struct ibv_device_attr *);
	int (*query_port)(struct ibv_context *, uint8_t, struct ibv_port_attr *);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *);
	int (*dealloc_pd)(struct ibv_pd *);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *, void *, size_t, int);
	int (*dereg_mr)(struct ibv_mr *);
	struct ibv_cq *(*create_cq)(struct ibv_context *, int, struct ibv_comp_channel *, int);
	int (*poll_cq)(struct ibv_cq_1_0 *, int, struct ibv_wc *);
	int (*req_notify_cq)(struct ibv_cq_1_0 *, int);
	void (*cq_event)(struct ibv_cq *);
	int (*resize_cq)(struct ibv_cq *, int);
	int (*destroy_cq)(struct ibv_cq *);
	struct ibv_srq *(*create_srq)(struct ibv_pd *, struct ibv_srq_init_attr *);
	int (*modify_srq)(struct ibv_srq *, struct ibv_srq_attr *, int);
	int (*query_srq)(struct ibv_srq *, struct ibv_srq_attr *);
	int (*destroy_srq)(struct ibv_srq *);
	int (*post_srq_recv)(struct ibv_srq_1_0 *, struct ibv_recv_wr_1_0 *,
			     struct ibv_recv_wr_1_0 **);
	struct ibv_qp *(*create_qp)(struct ibv_pd *, struct ibv_qp_init_attr *);
	int (*query_qp)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *);
	int (*modify_qp)(struct ibv_qp *, struct ibv_qp_attr *, int);
	int (*destroy_qp)(struct ibv_qp *);
	int (*post_send)(struct ibv_qp_1_0 *, struct ibv_send_wr_1_0 *,
			 struct ibv_send_wr_1_0 **);
	int (*post_recv)(struct ibv_qp_1_0 *, struct ibv_recv_wr_1_0 *,
			 struct ibv_recv_wr_1_0 **);
	struct ibv_ah *(*create_ah)(struct ibv_pd *, struct ibv_ah_attr *);
	int (*destroy_ah)(struct ibv_ah *);
	int (*attach_mcast)(struct ibv_qp *, union ibv_gid *, uint16_t);
	int (*detach_mcast)(struct ibv_qp *, union ibv_gid *, uint16_t);
};

struct ibv_context_1_0 {
	struct ibv_device_1_0 *device;
	struct ibv_context_ops_1_0 ops;
	int cmd_fd;
	int async_fd;
	int num_comp_vectors;
	struct ibv_context *real_context;
};

struct ibv_pd_1_0 {
	struct ibv_context_1_0 *context;
	uint32_t handle;
	struct ibv_pd *real_pd;
};

struct ibv_mr_1_0 {
	struct ibv_context_1_0 *context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	struct ibv_mr *real_mr;
};

struct ibv_srq_1_0 {
	struct ibv_context_1_0 *context;
	void *srq_context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	struct ibv_srq *real_srq;
};

struct ibv_qp_1_0 {
	struct ibv_context_1_0 *context;
	void *qp_context;
	struct ibv_pd_1_0 *pd;
	struct ibv_cq_1_0 *send_cq;
	struct ibv_cq_1_0 *recv_cq;
	struct ibv_srq_1_0 *srq;
	uint32_t handle;
	uint32_t qp_num;
	enum ibv_qp_state state;
	enum ibv_qp_type qp_type;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	struct ibv_qp *real_qp;
};

struct ibv_cq_1_0 {
	struct ibv_context_1_0 *context;
	void *cq_context;
	uint32_t handle;
	int cqe;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed;
	uint32_t async_events_completed;
	struct ibv_cq *real_cq;
};

struct ibv_ah_1_0 {
	struct ibv_context_1_0 *context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	struct ibv_ah *real_ah;
};

struct ibv_qp_init_attr_1_0 {
	void *qp_context;
	struct ibv_cq_1_0 *send_cq;
	struct ibv_cq_1_0 *recv_cq;
	struct ibv_srq_1_0 *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;
};

/* wr_id and next swapped places in 1.1; the wr union did not move. */
struct ibv_send_wr_1_0 {
	struct ibv_send_wr_1_0 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
	enum ibv_wr_opcode opcode;
	int send_flags;
	__be32 imm_data;
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct ibv_ah_1_0 *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
};

struct ibv_recv_wr_1_0 {
	struct ibv_recv_wr_1_0 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
};

#if defined(__x86_64__) && defined(__LP64__)
/* Sizes and the offsets the layer or old inline code depends on, from
 * compat-1.0/layouts.txt (x86_64). */
static_assert(sizeof(struct ibv_device_1_0) == 40, "ibv_device_1_0");
static_assert(offsetof(struct ibv_device_1_0, real_device) == 16, "real_device");
static_assert(sizeof(struct ibv_context_ops_1_0) == 216, "ibv_context_ops_1_0");
static_assert(offsetof(struct ibv_context_ops_1_0, poll_cq) == 56, "ops.poll_cq");
static_assert(offsetof(struct ibv_context_ops_1_0, req_notify_cq) == 64, "ops.req_notify_cq");
static_assert(offsetof(struct ibv_context_ops_1_0, post_srq_recv) == 128, "ops.post_srq_recv");
static_assert(offsetof(struct ibv_context_ops_1_0, post_send) == 168, "ops.post_send");
static_assert(offsetof(struct ibv_context_ops_1_0, post_recv) == 176, "ops.post_recv");
static_assert(sizeof(struct ibv_context_1_0) == 248, "ibv_context_1_0");
static_assert(offsetof(struct ibv_context_1_0, ops) == 8, "context ops");
static_assert(offsetof(struct ibv_context_1_0, num_comp_vectors) == 232, "num_comp_vectors");
static_assert(offsetof(struct ibv_context_1_0, real_context) == 240, "real_context");
static_assert(sizeof(struct ibv_pd_1_0) == 24, "ibv_pd_1_0");
static_assert(offsetof(struct ibv_pd_1_0, real_pd) == 16, "real_pd");
static_assert(sizeof(struct ibv_mr_1_0) == 40, "ibv_mr_1_0");
static_assert(offsetof(struct ibv_mr_1_0, lkey) == 20, "mr lkey");
static_assert(offsetof(struct ibv_mr_1_0, rkey) == 24, "mr rkey");
static_assert(offsetof(struct ibv_mr_1_0, real_mr) == 32, "real_mr");
static_assert(sizeof(struct ibv_srq_1_0) == 136, "ibv_srq_1_0");
static_assert(offsetof(struct ibv_srq_1_0, mutex) == 32, "srq mutex");
static_assert(offsetof(struct ibv_srq_1_0, events_completed) == 120, "srq events_completed");
static_assert(offsetof(struct ibv_srq_1_0, real_srq) == 128, "real_srq");
static_assert(sizeof(struct ibv_qp_1_0) == 168, "ibv_qp_1_0");
static_assert(offsetof(struct ibv_qp_1_0, qp_num) == 52, "qp_num");
static_assert(offsetof(struct ibv_qp_1_0, qp_type) == 60, "qp_type");
static_assert(offsetof(struct ibv_qp_1_0, mutex) == 64, "qp mutex");
static_assert(offsetof(struct ibv_qp_1_0, events_completed) == 152, "qp events_completed");
static_assert(offsetof(struct ibv_qp_1_0, real_qp) == 160, "real_qp");
static_assert(sizeof(struct ibv_cq_1_0) == 128, "ibv_cq_1_0");
static_assert(offsetof(struct ibv_cq_1_0, cqe) == 20, "cq cqe");
static_assert(offsetof(struct ibv_cq_1_0, cond) == 64, "cq cond");
static_assert(offsetof(struct ibv_cq_1_0, async_events_completed) == 116, "cq async events");
static_assert(offsetof(struct ibv_cq_1_0, real_cq) == 120, "real_cq");
static_assert(sizeof(struct ibv_ah_1_0) == 32, "ibv_ah_1_0");
static_assert(offsetof(struct ibv_ah_1_0, real_ah) == 24, "real_ah");
static_assert(sizeof(struct ibv_qp_init_attr_1_0) == 64, "ibv_qp_init_attr_1_0");
static_assert(offsetof(struct ibv_qp_init_attr_1_0, cap) == 32, "init cap");
static_assert(offsetof(struct ibv_qp_init_attr_1_0, sq_sig_all) == 56, "init sq_sig_all");
static_assert(sizeof(struct ibv_send_wr_1_0) == 72, "ibv_send_wr_1_0");
static_assert(offsetof(struct ibv_send_wr_1_0, imm_data) == 36, "send imm_data");
static_assert(offsetof(struct ibv_send_wr_1_0, wr) == 40, "send wr");
static_assert(sizeof(struct ibv_recv_wr_1_0) == 32, "ibv_recv_wr_1_0");
static_assert(offsetof(struct ibv_recv_wr_1_0, num_sge) == 24, "recv num_sge");
#endif
/* The wr union is copied whole into the current ibv_send_wr (FACTS 33). */
static_assert(sizeof(((struct ibv_send_wr_1_0 *)0)->wr) == sizeof(((struct ibv_send_wr *)0)->wr),
	      "send wr union");
static_assert(offsetof(struct ibv_send_wr_1_0, wr) == offsetof(struct ibv_send_wr, wr),
	      "send wr union offset");

/* ------------------------------------------------------------------ */
/* The entry points                                                    */

/* Binds impl to the compat-only name@IBVERBS_1.0: in the library, where
 * impl is defined, it is exported as that (the generated version script
 * leaves that node's names to this); in a program that only declares impl
 * (the vm suite's 1.0 test), its calls reach that version. */
#define COMPAT_1_0(impl, name) __asm__(".symver " #impl ", " #name "@IBVERBS_1.0")

/* Default visibility: what .symver binds must be global for ld to export
 * it; the version script keeps the impl names themselves local. */
#pragma GCC visibility push(default)
/* device.c */
struct ibv_device_1_0 **ibv_get_device_list_1_0(int *num);
void ibv_free_device_list_1_0(struct ibv_device_1_0 **list);
const char *ibv_get_device_name_1_0(struct ibv_device_1_0 *device);
__be64 ibv_get_device_guid_1_0(struct ibv_device_1_0 *device);
void ibv_register_driver_1_1(const char *name,
			     struct ibv_device *(*init_func)(const char *sysfs_path,
							    int abi_version));
/* context.c */
struct ibv_context_1_0 *ibv_open_device_1_0(struct ibv_device_1_0 *device);
int ibv_close_device_1_0(struct ibv_context_1_0 *context);
int ibv_get_async_event_1_0(struct ibv_context_1_0 *context, struct ibv_async_event *event);
void ibv_ack_async_event_1_0(struct ibv_async_event *event);
int ibv_query_device_1_0(struct ibv_context_1_0 *context, struct ibv_device_attr *attr);
int ibv_query_port_1_0(struct ibv_context_1_0 *context, uint8_t port_num,
		       struct ibv_port_attr *attr);
int ibv_query_gid_1_0(struct ibv_context_1_0 *context, uint8_t port_num, int index,
		      union ibv_gid *gid);
int ibv_query_pkey_1_0(struct ibv_context_1_0 *context, uint8_t port_num, int index,
		       __be16 *pkey);
/* pd_mr.c */
struct ibv_pd_1_0 *ibv_alloc_pd_1_0(struct ibv_context_1_0 *context);
int ibv_dealloc_pd_1_0(struct ibv_pd_1_0 *pd);
struct ibv_mr_1_0 *ibv_reg_mr_1_0(struct ibv_pd_1_0 *pd, void *addr, size_t length, int access);
int ibv_dereg_mr_1_0(struct ibv_mr_1_0 *mr);
/* cq.c */
struct ibv_cq_1_0 *ibv_create_cq_1_0(struct ibv_context_1_0 *context, int cqe, void *cq_context,
				     struct ibv_comp_channel *channel, int comp_vector);
int ibv_resize_cq_1_0(struct ibv_cq_1_0 *cq, int cqe);
int ibv_destroy_cq_1_0(struct ibv_cq_1_0 *cq);
int ibv_get_cq_event_1_0(struct ibv_comp_channel *channel, struct ibv_cq_1_0 **cq,
			 void **cq_context);
void ibv_ack_cq_events_1_0(struct ibv_cq_1_0 *cq, unsigned int nevents);
/* srq.c */
struct ibv_srq_1_0 *ibv_create_srq_1_0(struct ibv_pd_1_0 *pd, struct ibv_srq_init_attr *attr);
int ibv_modify_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr, int attr_mask);
int ibv_query_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr);
int ibv_destroy_srq_1_0(struct ibv_srq_1_0 *srq);
/* qp.c */
struct ibv_qp_1_0 *ibv_create_qp_1_0(struct ibv_pd_1_0 *pd, struct ibv_qp_init_attr_1_0 *attr);
int ibv_query_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask,
		     struct ibv_qp_init_attr_1_0 *init_attr);
int ibv_modify_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int attr_mask);
int ibv_destroy_qp_1_0(struct ibv_qp_1_0 *qp);
int ibv_attach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid);
int ibv_detach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid);
/* ah.c */
struct ibv_ah_1_0 *ibv_create_ah_1_0(struct ibv_pd_1_0 *pd, struct ibv_ah_attr *attr);
int ibv_destroy_ah_1_0(struct ibv_ah_1_0 *ah);
#pragma GCC visibility pop

/* The five ops-table slots of a 1.0 context (FACTS 31-34): hidden, they
 * are reached through the table only. */
int compat_1_0_poll_cq(struct ibv_cq_1_0 *cq, int num_entries, struct ibv_wc *wc);
int compat_1_0_req_notify_cq(struct ibv_cq_1_0 *cq, int solicited_only);
int compat_1_0_post_srq_recv(struct ibv_srq_1_0 *srq, struct ibv_recv_wr_1_0 *wr,
			     struct ibv_recv_wr_1_0 **bad_wr);
int compat_1_0_post_send(struct ibv_qp_1_0 *qp, struct ibv_send_wr_1_0 *wr,
			 struct ibv_send_wr_1_0 **bad_wr);
int compat_1_0_post_recv(struct ibv_qp_1_0 *qp, struct ibv_recv_wr_1_0 *wr,
			 struct ibv_recv_wr_1_0 **bad_wr);

/* Work request chains go to the provider in batches of this many, built
 * on the stack (qp.c). */
enum { COMPAT_1_0_WR_BATCH = 16 };

#endif
