/* SPDX-License-Identifier: MIT */
/*
 * The rdma_ucm commands: each one a header and the kernel's request
 * structure written in one write() to the channel's fd.  The kernel
 * answers through the response pointer inside the request; write()
 * returns the whole length or fails with the command's errno.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include "config.h"
#include "kernel_cm.h"
#include "ucma.h"

#if HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#endif

_Static_assert(UCMA_PRIVATE_DATA_MAX == RDMA_MAX_PRIVATE_DATA,
	       "private data limit differs from the kernel's");

struct ucma_sys ucma_sys = { .write = write };

/* Set once an older command did what its newer form refused: the kernel
 * predates the newer family (before Linux 3.11) and is asked in the old
 * form from then on. */
static _Atomic bool old_kernel;

/* The one place a command reaches the kernel.  hdr is followed in memory
 * by the in bytes of the request; resp is the out bytes of response the
 * request points at (NULL, 0 for none).  The kernel fills resp behind
 * write()'s back: memcheck is told, or every program reading an answer
 * would be reported as using uninitialised memory. */
static int ucma_write(int fd, uint32_t cmd, struct rdma_ucm_cmd_hdr *hdr,
		      size_t in, void *resp, size_t out)
{
	size_t len = sizeof(*hdr) + in;
	ssize_t ret;

	hdr->cmd = cmd;
	hdr->in = in;
	hdr->out = out;
	ret = ucma_sys.write(fd, hdr, len);
	if (ret < 0)
		return errno;
	if ((size_t)ret != len)
		return EIO;
#if HAVE_VALGRIND_MEMCHECK_H
	if (out)
		VALGRIND_MAKE_MEM_DEFINED(resp, out);
#else
	(void)resp;
#endif
	return 0;
}

/* A kernel without a command says EINVAL (beyond its table) or ENOSYS. */
static bool kernel_lacks_command(int err)
{
	return err == EINVAL || err == ENOSYS;
}

socklen_t ucma_addr_size(const struct sockaddr *addr)
{
	if (!addr)
		return 0;
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}

/* The older commands carry IP addresses only, in a sockaddr_in6. */
static bool fits_in6(const struct sockaddr *addr)
{
	return addr->sa_family == AF_INET || addr->sa_family == AF_INET6;
}

static uint64_t ptr(const void *p)
{
	return (uintptr_t)p;
}

int ucma_create_id(int fd, uint64_t uid, enum rdma_port_space ps,
		   enum ibv_qp_type qp_type, uint32_t *handle)
{
	struct rdma_ucm_create_id_resp resp;
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_create_id req;
	} cmd = { .req = { .uid = uid, .response = ptr(&resp), .ps = ps, .qp_type = qp_type } };
	int ret;

	ret = ucma_write(fd, RDMA_USER_CM_CMD_CREATE_ID, &cmd.hdr, sizeof(cmd.req), &resp, sizeof(resp));
	if (!ret)
		*handle = resp.id;
	return ret;
}

/* DESTROY_ID and LEAVE_MCAST share their request and response. */
static int destroy(int fd, uint32_t number, uint32_t handle, uint32_t *events_reported)
{
	struct rdma_ucm_destroy_id_resp resp;
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_destroy_id req;
	} cmd = { .req = { .response = ptr(&resp), .id = handle } };
	int ret;

	ret = ucma_write(fd, number, &cmd.hdr, sizeof(cmd.req), &resp, sizeof(resp));
	if (!ret)
		*events_reported = resp.events_reported;
	return ret;
}

int ucma_destroy_id(int fd, uint32_t handle, uint32_t *events_reported)
{
	return destroy(fd, RDMA_USER_CM_CMD_DESTROY_ID, handle, events_reported);
}

int ucma_leave_mcast(int fd, uint32_t mc_handle, uint32_t *events_reported)
{
	return destroy(fd, RDMA_USER_CM_CMD_LEAVE_MCAST, mc_handle, events_reported);
}

static int bind_ip(int fd, uint32_t handle, const struct sockaddr *addr)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_bind_ip req;
	} cmd = { .req = { .id = handle } };

	memcpy(&cmd.req.addr, addr, ucma_addr_size(addr));
	return ucma_write(fd, RDMA_USER_CM_CMD_BIND_IP, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

int ucma_bind(int fd, uint32_t handle, const struct sockaddr *addr)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_bind req;
	} cmd = { .req = { .id = handle, .addr_size = ucma_addr_size(addr) } };
	int ret;

	if (!cmd.req.addr_size)
		return EINVAL;
	if (old_kernel && fits_in6(addr))
		return bind_ip(fd, handle, addr);
	memcpy(&cmd.req.addr, addr, cmd.req.addr_size);
	ret = ucma_write(fd, RDMA_USER_CM_CMD_BIND, &cmd.hdr, sizeof(cmd.req), NULL, 0);
	if (kernel_lacks_command(ret) && fits_in6(addr) && !bind_ip(fd, handle, addr)) {
		old_kernel = true;
		ret = 0;
	}
	return ret;
}

static int resolve_ip(int fd, uint32_t handle, const struct sockaddr *src,
		      const struct sockaddr *dst, int timeout_ms)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_resolve_ip req;
	} cmd = { .req = { .id = handle, .timeout_ms = timeout_ms } };

	if (src)
		memcpy(&cmd.req.src_addr, src, ucma_addr_size(src));
	memcpy(&cmd.req.dst_addr, dst, ucma_addr_size(dst));
	return ucma_write(fd, RDMA_USER_CM_CMD_RESOLVE_IP, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

int ucma_resolve_addr(int fd, uint32_t handle, const struct sockaddr *src,
		      const struct sockaddr *dst, int timeout_ms)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_resolve_addr req;
	} cmd = { .req = { .id = handle, .timeout_ms = timeout_ms,
			   .src_size = ucma_addr_size(src), .dst_size = ucma_addr_size(dst) } };
	bool ip = fits_in6(dst) && (!src || fits_in6(src));
	int ret;

	if (!cmd.req.dst_size || (src && !cmd.req.src_size))
		return EINVAL;
	if (old_kernel && ip)
		return resolve_ip(fd, handle, src, dst, timeout_ms);
	if (src)
		memcpy(&cmd.req.src_addr, src, cmd.req.src_size);
	memcpy(&cmd.req.dst_addr, dst, cmd.req.dst_size);
	ret = ucma_write(fd, RDMA_USER_CM_CMD_RESOLVE_ADDR, &cmd.hdr, sizeof(cmd.req), NULL, 0);
	if (kernel_lacks_command(ret) && ip && !resolve_ip(fd, handle, src, dst, timeout_ms)) {
		old_kernel = true;
		ret = 0;
	}
	return ret;
}

int ucma_resolve_route(int fd, uint32_t handle, int timeout_ms)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_resolve_route req;
	} cmd = { .req = { .id = handle, .timeout_ms = timeout_ms } };

	return ucma_write(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

/* QUERY with one of its options: resp receives up to len bytes. */
static int query(int fd, uint32_t handle, uint32_t option, void *resp, size_t len)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_query req;
	} cmd = { .req = { .response = ptr(resp), .id = handle, .option = option } };

	return ucma_write(fd, RDMA_USER_CM_CMD_QUERY, &cmd.hdr, sizeof(cmd.req), resp, len);
}

/* The command the newer QUERY replaced: addresses, GUID and paths at once. */
static int query_route(int fd, uint32_t handle, struct rdma_ucm_query_route_resp *resp)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_query req;
	} cmd = { .req = { .response = ptr(resp), .id = handle } };

	memset(resp, 0, sizeof(*resp));
	return ucma_write(fd, RDMA_USER_CM_CMD_QUERY_ROUTE, &cmd.hdr, sizeof(cmd.req), resp, sizeof(*resp));
}

/* Both queries answer with sockaddrs the kernel sized itself. */
static void copy_addr(struct sockaddr_storage *to, const void *from, size_t size)
{
	memset(to, 0, sizeof(*to));
	memcpy(to, from, size < sizeof(*to) ? size : sizeof(*to));
}

static int query_addr_by_route(int fd, uint32_t handle, struct ucma_addr *addr)
{
	struct rdma_ucm_query_route_resp resp;
	int ret;

	ret = query_route(fd, handle, &resp);
	if (ret)
		return ret;
	addr->node_guid = resp.node_guid;
	addr->port_num = resp.port_num;
	addr->pkey = resp.num_paths ? resp.ib_route[0].pkey : 0;
	copy_addr(&addr->src, &resp.src_addr, sizeof(resp.src_addr));
	copy_addr(&addr->dst, &resp.dst_addr, sizeof(resp.dst_addr));
	return 0;
}

int ucma_query_addr(int fd, uint32_t handle, struct ucma_addr *addr)
{
	struct rdma_ucm_query_addr_resp resp = {};
	int ret;

	if (old_kernel)
		return query_addr_by_route(fd, handle, addr);
	ret = query(fd, handle, RDMA_USER_CM_QUERY_ADDR, &resp, sizeof(resp));
	if (kernel_lacks_command(ret) && !query_addr_by_route(fd, handle, addr)) {
		old_kernel = true;
		return 0;
	}
	if (ret)
		return ret;
	addr->node_guid = resp.node_guid;
	addr->port_num = resp.port_num;
	addr->pkey = resp.pkey;
	copy_addr(&addr->src, &resp.src_addr, resp.src_size);
	copy_addr(&addr->dst, &resp.dst_addr, resp.dst_size);
	return 0;
}

int ucma_query_gid(int fd, uint32_t handle, struct sockaddr_ib *src,
		   struct sockaddr_ib *dst)
{
	struct rdma_ucm_query_addr_resp resp = {};
	int ret;

	ret = query(fd, handle, RDMA_USER_CM_QUERY_GID, &resp, sizeof(resp));
	if (ret)
		return ret;
	memcpy(src, &resp.src_addr, sizeof(*src));
	memcpy(dst, &resp.dst_addr, sizeof(*dst));
	return 0;
}

/* A PathRecord in its SA wire form (IBA 15.2.5.16), big-endian words. */
static void path_from_wire(struct ibv_sa_path_rec *p, const uint32_t *wire)
{
	const uint8_t *b = (const uint8_t *)wire;
	uint32_t word = be32toh(wire[11]);

	memset(p, 0, sizeof(*p));
	memcpy(&p->dgid, b + 8, 16);
	memcpy(&p->sgid, b + 24, 16);
	memcpy(&p->dlid, b + 40, 2);
	memcpy(&p->slid, b + 42, 2);
	p->raw_traffic = word >> 31;
	p->flow_label = htobe32((word >> 8) & 0xfffff);
	p->hop_limit = word & 0xff;
	p->traffic_class = b[48];
	p->reversible = b[49] >> 7;
	p->numb_path = b[49] & 0x7f;
	memcpy(&p->pkey, b + 50, 2);
	p->sl = b[53] & 0xf;
	p->mtu_selector = b[54] >> 6;
	p->mtu = b[54] & 0x3f;
	p->rate_selector = b[55] >> 6;
	p->rate = b[55] & 0x3f;
	p->packet_life_time_selector = b[56] >> 6;
	p->packet_life_time = b[56] & 0x3f;
	p->preference = b[57];
}

static int query_path_by_route(int fd, uint32_t handle, struct ibv_sa_path_rec **paths,
			       int *num_paths)
{
	struct rdma_ucm_query_route_resp resp;
	uint32_t i, n;
	int ret;

	ret = query_route(fd, handle, &resp);
	if (ret)
		return ret;
	n = resp.num_paths < 2 ? resp.num_paths : 2;
	*paths = NULL;
	if (n && !(*paths = calloc(n, sizeof(**paths))))
		return ENOMEM;
	for (i = 0; i < n; i++)
		ibv_copy_path_rec_from_kern(&(*paths)[i], &resp.ib_route[i]);
	*num_paths = n;
	return 0;
}

/* Room for every path a kernel reports: primary and alternate, each
 * possibly split into its outbound and inbound halves. */
enum { MAX_PATH_DATA = 6 };

int ucma_query_path(int fd, uint32_t handle, struct ibv_sa_path_rec **paths,
		    int *num_paths)
{
	/* The paths follow the head as its flexible array (a struct with
	 * one inside another is a GNU extension clang warns about). */
	union {
		struct rdma_ucm_query_path_resp head;
		uint8_t bytes[sizeof(struct rdma_ucm_query_path_resp) +
			      MAX_PATH_DATA * sizeof(struct ib_path_rec_data)];
	} resp = {};
	uint32_t i, n;
	int ret;

	if (old_kernel)
		return query_path_by_route(fd, handle, paths, num_paths);
	ret = query(fd, handle, RDMA_USER_CM_QUERY_PATH, &resp, sizeof(resp));
	if (kernel_lacks_command(ret) && !query_path_by_route(fd, handle, paths, num_paths)) {
		old_kernel = true;
		return 0;
	}
	if (ret)
		return ret;
	n = resp.head.num_paths < MAX_PATH_DATA ? resp.head.num_paths : MAX_PATH_DATA;
	*paths = NULL;
	if (n && !(*paths = calloc(n, sizeof(**paths))))
		return ENOMEM;
	for (i = 0; i < n; i++)
		path_from_wire(&(*paths)[i], resp.head.path_data[i].path_rec);
	*num_paths = n;
	return 0;
}

int ucma_listen(int fd, uint32_t handle, int backlog)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_listen req;
	} cmd = { .req = { .id = handle, .backlog = backlog } };

	return ucma_write(fd, RDMA_USER_CM_CMD_LISTEN, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

static void conn_param_to_kernel(struct rdma_ucm_conn_param *k,
				 const struct rdma_conn_param *param)
{
	k->qp_num = param->qp_num;
	k->private_data_len = param->private_data_len;
	if (param->private_data && param->private_data_len)
		memcpy(k->private_data, param->private_data, param->private_data_len);
	k->srq = param->srq;
	k->responder_resources = param->responder_resources;
	k->initiator_depth = param->initiator_depth;
	k->flow_control = param->flow_control;
	k->retry_count = param->retry_count;
	k->rnr_retry_count = param->rnr_retry_count;
	k->valid = 1;
}

static void ece_to_kernel(struct rdma_ucm_ece *k, const struct ibv_ece *ece)
{
	if (ece) {
		k->vendor_id = ece->vendor_id;
		k->attr_mod = ece->options;
	}
}

int ucma_connect(int fd, uint32_t handle, const struct rdma_conn_param *param,
		 const struct ibv_ece *ece)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_connect req;
	} cmd = { .req = { .id = handle } };

	conn_param_to_kernel(&cmd.req.conn_param, param);
	ece_to_kernel(&cmd.req.ece, ece);
	return ucma_write(fd, RDMA_USER_CM_CMD_CONNECT, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

int ucma_accept(int fd, uint32_t handle, uint64_t uid,
		const struct rdma_conn_param *param, const struct ibv_ece *ece)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_accept req;
	} cmd = { .req = { .uid = uid, .id = handle } };

	if (param)
		conn_param_to_kernel(&cmd.req.conn_param, param);
	ece_to_kernel(&cmd.req.ece, ece);
	return ucma_write(fd, RDMA_USER_CM_CMD_ACCEPT, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

int ucma_reject(int fd, uint32_t handle, const void *private_data,
		uint8_t private_data_len, uint8_t reason)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_reject req;
	} cmd = { .req = { .id = handle, .private_data_len = private_data_len, .reason = reason } };

	if (private_data && private_data_len)
		memcpy(cmd.req.private_data, private_data, private_data_len);
	return ucma_write(fd, RDMA_USER_CM_CMD_REJECT, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

int ucma_disconnect(int fd, uint32_t handle)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_disconnect req;
	} cmd = { .req = { .id = handle } };

	return ucma_write(fd, RDMA_USER_CM_CMD_DISCONNECT, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

int ucma_init_qp_attr(int fd, uint32_t handle, enum ibv_qp_state state,
		      struct ibv_qp_attr *attr, int *attr_mask)
{
	struct ib_uverbs_qp_attr resp = {};
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_init_qp_attr req;
	} cmd = { .req = { .response = ptr(&resp), .id = handle, .qp_state = state } };
	int ret;

	ret = ucma_write(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, &cmd.hdr, sizeof(cmd.req), &resp, sizeof(resp));
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	*attr_mask = resp.qp_attr_mask;
	attr->qp_state = resp.qp_state;
	ibv_copy_qp_attr_from_kern(attr, &resp);
	return 0;
}

int ucma_notify(int fd, uint32_t handle, enum ibv_event_type event)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_notify req;
	} cmd = { .req = { .id = handle, .event = event } };

	return ucma_write(fd, RDMA_USER_CM_CMD_NOTIFY, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

int ucma_set_option(int fd, uint32_t handle, int level, int optname,
		    const void *optval, size_t optlen)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_set_option req;
	} cmd = { .req = { .optval = ptr(optval), .id = handle, .level = level,
			   .optname = optname, .optlen = optlen } };

	if (optlen > UINT32_MAX)
		return EINVAL;
	return ucma_write(fd, RDMA_USER_CM_CMD_SET_OPTION, &cmd.hdr, sizeof(cmd.req), NULL, 0);
}

static int join_ip_mcast(int fd, uint32_t handle, uint64_t uid,
			 const struct sockaddr *addr, uint32_t *mc_handle)
{
	struct rdma_ucm_create_id_resp resp;
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_join_ip_mcast req;
	} cmd = { .req = { .response = ptr(&resp), .uid = uid, .id = handle } };
	int ret;

	memcpy(&cmd.req.addr, addr, ucma_addr_size(addr));
	ret = ucma_write(fd, RDMA_USER_CM_CMD_JOIN_IP_MCAST, &cmd.hdr, sizeof(cmd.req), &resp, sizeof(resp));
	if (!ret)
		*mc_handle = resp.id;
	return ret;
}

int ucma_join_mcast(int fd, uint32_t handle, uint64_t uid,
		    const struct sockaddr *addr, uint16_t join_flags,
		    uint32_t *mc_handle)
{
	struct rdma_ucm_create_id_resp resp;
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_join_mcast req;
	} cmd = { .req = { .response = ptr(&resp), .uid = uid, .id = handle,
			   .addr_size = ucma_addr_size(addr), .join_flags = join_flags } };
	/* The older command knows full members only. */
	bool ip = fits_in6(addr) && join_flags == RDMA_MC_JOIN_FLAG_FULLMEMBER;
	int ret;

	if (!cmd.req.addr_size)
		return EINVAL;
	if (old_kernel && ip)
		return join_ip_mcast(fd, handle, uid, addr, mc_handle);
	memcpy(&cmd.req.addr, addr, cmd.req.addr_size);
	ret = ucma_write(fd, RDMA_USER_CM_CMD_JOIN_MCAST, &cmd.hdr, sizeof(cmd.req), &resp, sizeof(resp));
	if (!ret) {
		*mc_handle = resp.id;
		return 0;
	}
	if (kernel_lacks_command(ret) && ip && !join_ip_mcast(fd, handle, uid, addr, mc_handle)) {
		old_kernel = true;
		ret = 0;
	}
	return ret;
}

int ucma_migrate_id(int new_fd, uint32_t handle, int old_fd,
		    uint32_t *events_reported)
{
	struct rdma_ucm_migrate_resp resp;
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_migrate_id req;
	} cmd = { .req = { .response = ptr(&resp), .id = handle, .fd = old_fd } };
	int ret;

	ret = ucma_write(new_fd, RDMA_USER_CM_CMD_MIGRATE_ID, &cmd.hdr, sizeof(cmd.req), &resp, sizeof(resp));
	if (!ret)
		*events_reported = resp.events_reported;
	return ret;
}

static void event_conn_param(struct ucma_event *e, const struct rdma_ucm_conn_param *k)
{
	struct rdma_conn_param *p = &e->param.conn;

	memcpy(e->private_data, k->private_data, sizeof(e->private_data));
	p->private_data = e->private_data;
	p->private_data_len = k->private_data_len;
	p->responder_resources = k->responder_resources;
	p->initiator_depth = k->initiator_depth;
	p->flow_control = k->flow_control;
	p->retry_count = k->retry_count;
	p->rnr_retry_count = k->rnr_retry_count;
	p->srq = k->srq;
	p->qp_num = k->qp_num;
}

static void event_ud_param(struct ucma_event *e, const struct rdma_ucm_ud_param *k)
{
	struct rdma_ud_param *p = &e->param.ud;

	memcpy(e->private_data, k->private_data, sizeof(e->private_data));
	p->private_data = e->private_data;
	p->private_data_len = k->private_data_len;
	ibv_copy_ah_attr_from_kern(&p->ah_attr, &k->ah_attr);
	p->qp_num = k->qp_num;
	p->qkey = k->qkey;
}

int ucma_get_event(int fd, struct ucma_event *event, bool (*is_ud)(uint64_t uid))
{
	struct rdma_ucm_event_resp resp = {};
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_get_event req;
	} cmd = { .req = { .response = ptr(&resp) } };
	int ret;

	ret = ucma_write(fd, RDMA_USER_CM_CMD_GET_EVENT, &cmd.hdr, sizeof(cmd.req), &resp, sizeof(resp));
	if (ret)
		return ret;
	memset(event, 0, sizeof(*event));
	event->uid = resp.uid;
	event->handle = resp.id;
	event->type = resp.event;
	event->status = (int)resp.status;
	if (event->type == RDMA_CM_EVENT_MULTICAST_JOIN ||
	    event->type == RDMA_CM_EVENT_MULTICAST_ERROR || is_ud(event->uid))
		event_ud_param(event, &resp.param.ud);
	else
		event_conn_param(event, &resp.param.conn);
	event->ece.vendor_id = resp.ece.vendor_id;
	event->ece.options = resp.ece.attr_mod;
	return 0;
}
