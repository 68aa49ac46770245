/* SPDX-License-Identifier: MIT */
/*
 * The kernel's rdma_ucm interface: one function per command written to an
 * event channel's fd (/dev/infiniband/rdma_cm).  ucma.c encodes and decodes;
 * nothing else in librdmacm builds a command.  Every function returns 0 or a
 * positive errno (the kernel's, or EINVAL/ENOMEM for what never reached it).
 * Where the kernel grew a newer command (BIND, RESOLVE_ADDR, JOIN_MCAST,
 * QUERY), it is tried first and the older one (BIND_IP, RESOLVE_IP,
 * JOIN_IP_MCAST, QUERY_ROUTE) used on kernels without it.
 */
#ifndef OPENVERBS_UCMA_H
#define OPENVERBS_UCMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <infiniband/ib.h>
#include <infiniband/sa.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* The unit tests' seam: the one system call commands go through. */
struct ucma_sys {
	ssize_t (*write)(int fd, const void *buf, size_t len);
};
extern struct ucma_sys ucma_sys;

/* The size of addr's family (AF_INET, AF_INET6, AF_IB), or 0 for NULL or
 * any other family. */
socklen_t ucma_addr_size(const struct sockaddr *addr);

int ucma_create_id(int fd, uint64_t uid, enum rdma_port_space ps,
		   enum ibv_qp_type qp_type, uint32_t *handle);
/* events_reported: how many events the kernel delivered for the id. */
int ucma_destroy_id(int fd, uint32_t handle, uint32_t *events_reported);
int ucma_bind(int fd, uint32_t handle, const struct sockaddr *addr);
/* src may be NULL. */
int ucma_resolve_addr(int fd, uint32_t handle, const struct sockaddr *src,
		      const struct sockaddr *dst, int timeout_ms);
int ucma_resolve_route(int fd, uint32_t handle, int timeout_ms);

/* What the kernel knows of an id's addresses and device. */
struct ucma_addr {
	uint64_t node_guid;		/* network order, as ibv_get_device_guid */
	uint8_t port_num;
	uint16_t pkey;			/* network order */
	struct sockaddr_storage src, dst;
};
int ucma_query_addr(int fd, uint32_t handle, struct ucma_addr *addr);
/* The source and destination GIDs (AF_IB form). */
int ucma_query_gid(int fd, uint32_t handle, struct sockaddr_ib *src,
		   struct sockaddr_ib *dst);
/* The resolved paths, in a malloc'ed array the caller frees. */
int ucma_query_path(int fd, uint32_t handle, struct ibv_sa_path_rec **paths,
		    int *num_paths);

int ucma_listen(int fd, uint32_t handle, int backlog);
/* param->qp_num and param->srq as they go on the wire; ece may be NULL. */
int ucma_connect(int fd, uint32_t handle, const struct rdma_conn_param *param,
		 const struct ibv_ece *ece);
int ucma_accept(int fd, uint32_t handle, uint64_t uid,
		const struct rdma_conn_param *param, const struct ibv_ece *ece);
int ucma_reject(int fd, uint32_t handle, const void *private_data,
		uint8_t private_data_len, uint8_t reason);
int ucma_disconnect(int fd, uint32_t handle);
/* The attributes and mask that move the id's QP to state. */
int ucma_init_qp_attr(int fd, uint32_t handle, enum ibv_qp_state state,
		      struct ibv_qp_attr *attr, int *attr_mask);
int ucma_notify(int fd, uint32_t handle, enum ibv_event_type event);
int ucma_set_option(int fd, uint32_t handle, int level, int optname,
		    const void *optval, size_t optlen);
/* addr: AF_INET, AF_INET6 or AF_IB; *mc_handle: the kernel's for leave. */
int ucma_join_mcast(int fd, uint32_t handle, uint64_t uid,
		    const struct sockaddr *addr, uint16_t join_flags,
		    uint32_t *mc_handle);
int ucma_leave_mcast(int fd, uint32_t mc_handle, uint32_t *events_reported);
/* Moves the id from the channel old_fd to the one new_fd belongs to. */
int ucma_migrate_id(int new_fd, uint32_t handle, int old_fd,
		    uint32_t *events_reported);

/* The kernel's RDMA_MAX_PRIVATE_DATA (ucma.c checks they agree). */
enum { UCMA_PRIVATE_DATA_MAX = 256 };

/* One event as the kernel reports it, decoded.  param's private_data
 * points into private_data; ud.ah_attr is already in verbs form. */
struct ucma_event {
	uint64_t uid;			/* the id's, or its multicast's */
	uint32_t handle;		/* a new connection's id, on requests */
	enum rdma_cm_event_type type;
	int status;
	union {
		struct rdma_conn_param conn;
		struct rdma_ud_param ud;
	} param;
	uint8_t private_data[UCMA_PRIVATE_DATA_MAX];
	struct ibv_ece ece;
};
/* Blocks unless the fd is non-blocking (then EAGAIN).  The kernel's event
 * does not say which form its parameters take: is_ud(uid) tells for the
 * connection events of an id (multicast events are always UD). */
int ucma_get_event(int fd, struct ucma_event *event, bool (*is_ud)(uint64_t uid));

#endif
