/* SPDX-License-Identifier: MIT */
/*
 * rdma_getaddrinfo(): getaddrinfo() for RDMA.  Names and services go
 * through the resolver; the hints' QP type and port space choose the
 * socket type and protocol asked for, and come back filled in from them.
 * An active side then asks the local ibacm service, when one listens, for
 * the path records (ai_route) and a source address.  What upstream
 * rdma-core 44 returns for each input was measured with probes and is
 * what this file reproduces, including getaddrinfo's EAI_* codes passed
 * through unchanged.
 */
#include "internal.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <infiniband/ib.h>

struct cma_acm_paths cma_acm_paths = {
	.port_file = "/run/ibacm.port",
	.socket = "/run/ibacm.sock",
};

/* ------------------------------------------------------------------ */
/* The ibacm wire protocol (its resolve messages are in host order,    */
/* the addresses and path records in network order).                   */

enum {
	ACM_VERSION = 1,
	ACM_OP_RESOLVE = 0x01,
	ACM_OP_ACK = 0x80,
	ACM_EP_INFO_ADDRESS_IP = 0x0002,
	ACM_EP_INFO_ADDRESS_IP6 = 0x0003,
	ACM_EP_INFO_PATH = 0x0010,
	ACM_EP_FLAG_SOURCE = 1 << 0,
	ACM_EP_FLAG_DEST = 1 << 1,
	ACM_FLAGS_NODELAY = 1 << 30,	/* answer from the cache or not at all */
	ACM_MAX_EPS = 8,
};

struct acm_hdr {
	uint8_t version;
	uint8_t opcode;
	uint8_t status;
	uint8_t data[3];
	uint16_t length;		/* of the whole message */
	uint64_t tid;
};

struct acm_ep {
	uint32_t flags;
	uint16_t type;
	uint16_t reserved;
	union {
		uint8_t addr[64];
		struct ibv_path_record path;
	} info;
};

struct acm_msg {
	struct acm_hdr hdr;
	struct acm_ep ep[ACM_MAX_EPS];
};

_Static_assert(sizeof(struct acm_hdr) == 16, "ibacm header");
_Static_assert(sizeof(struct acm_ep) == 72, "ibacm endpoint");

/* One connection per process, made on first use; a service that is not
 * there is not asked again, as upstream does. */
static pthread_once_t acm_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t acm_lock = PTHREAD_MUTEX_INITIALIZER;
static int acm_fd = -1;

/* The TCP port in the port file, or 0 when ibacm does not use one. */
static unsigned short acm_tcp_port(void)
{
	FILE *f = fopen(cma_acm_paths.port_file, "re");
	unsigned int port = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%u", &port) != 1 || port > 0xffff)
		port = 0;
	fclose(f);
	return port;
}

static int acm_dial(int domain, const struct sockaddr *addr, socklen_t len)
{
	int fd = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, addr, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void acm_connect(void)
{
	unsigned short port = acm_tcp_port();

	if (port) {
		struct sockaddr_in sin = {
			.sin_family = AF_INET,
			.sin_port = htons(port),
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		};

		acm_fd = acm_dial(AF_INET, (struct sockaddr *)&sin, sizeof(sin));
	} else {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		if (strlen(cma_acm_paths.socket) >= sizeof(sun.sun_path))
			return;
		strcpy(sun.sun_path, cma_acm_paths.socket);
		acm_fd = acm_dial(AF_UNIX, (struct sockaddr *)&sun, sizeof(sun));
	}
}

static bool acm_io(ssize_t (*io)(int, void *, size_t, int), void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = io(acm_fd, (char *)buf + done, len - done, 0);

		if (n <= 0)
			return false;
		done += n;
	}
	return true;
}

/* A service gone away is an error to return, not a SIGPIPE. */
static ssize_t acm_send(int fd, void *buf, size_t len, int flags)
{
	return send(fd, buf, len, flags | MSG_NOSIGNAL);
}

/* Sends msg and reads the answer into it: false when there is none.  A
 * stream that failed half-way cannot be trusted again, so it is closed. */
static bool acm_exchange(struct acm_msg *msg)
{
	bool ok;

	pthread_once(&acm_once, acm_connect);
	pthread_mutex_lock(&acm_lock);
	ok = acm_fd >= 0 && acm_io(acm_send, msg, msg->hdr.length) &&
	     acm_io(recv, &msg->hdr, sizeof(msg->hdr)) &&
	     msg->hdr.length >= sizeof(msg->hdr) && msg->hdr.length <= sizeof(*msg) &&
	     (msg->hdr.length - sizeof(msg->hdr)) % sizeof(struct acm_ep) == 0 &&
	     acm_io(recv, msg->ep, msg->hdr.length - sizeof(msg->hdr));
	if (!ok && acm_fd >= 0) {
		close(acm_fd);
		acm_fd = -1;
	}
	pthread_mutex_unlock(&acm_lock);
	return ok && msg->hdr.status == 0 &&
	       msg->hdr.opcode == (ACM_OP_RESOLVE | ACM_OP_ACK);
}

/* An IP address as an endpoint of the request; false for anything else
 * (other families, or hints whose length cannot hold the address). */
static bool acm_put_addr(struct acm_ep *ep, const struct sockaddr *sa, socklen_t len,
			 uint32_t flags)
{
	ep->flags = flags;
	/* The length first: a caller's address may be too short to hold
	 * even the family. */
	if (len >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET) {
		ep->type = ACM_EP_INFO_ADDRESS_IP;
		memcpy(ep->info.addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return true;
	}
	if (len >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6) {
		ep->type = ACM_EP_INFO_ADDRESS_IP6;
		memcpy(ep->info.addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return true;
	}
	return false;
}

static void *memdup(const void *src, size_t len)
{
	void *dst = malloc(len);

	return dst ? memcpy(dst, src, len) : NULL;
}

/* The source address ibacm chose, when the caller had none. */
static int acm_take_src(struct rdma_addrinfo *rai, const struct acm_ep *ep)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;

	if (ep->type == ACM_EP_INFO_ADDRESS_IP) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, ep->info.addr, 4);
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, ep->info.addr, 16);
		len = sizeof(*sin6);
	}
	rai->ai_src_addr = memdup(&ss, len);
	if (!rai->ai_src_addr)
		return ENOMEM;
	rai->ai_src_len = len;
	return 0;
}

static int acm_take_paths(struct rdma_addrinfo *rai, const struct acm_msg *msg, int neps)
{
	struct ibv_path_data *paths = calloc(neps, sizeof(*paths));
	int n = 0;

	if (!paths)
		return ENOMEM;
	for (int i = 0; i < neps; i++) {
		if (msg->ep[i].type != ACM_EP_INFO_PATH)
			continue;
		paths[n].flags = msg->ep[i].flags;
		paths[n++].path = msg->ep[i].info.path;
	}
	if (!n) {
		free(paths);
		return 0;
	}
	rai->ai_route = paths;
	rai->ai_route_len = n * sizeof(*paths);
	return 0;
}

/* An address on the path's GID, its IP port made a service ID in the
 * port space (sin_port and sin6_port share their offset). */
static void ib_addr_from_path(struct sockaddr_ib *sib, const union ibv_gid *gid,
			      const struct ibv_path_record *path, int ps,
			      const struct sockaddr *ip, socklen_t ip_len)
{
	bool has_port = ip_len >= sizeof(struct sockaddr_in) &&
			(ip->sa_family == AF_INET || ip->sa_family == AF_INET6);
	uint16_t port = has_port ? ntohs(((const struct sockaddr_in *)ip)->sin_port) : 0;

	sib->sib_family = AF_IB;
	sib->sib_pkey = path->pkey;
	memcpy(&sib->sib_addr, gid, sizeof(*gid));
	if (port) {
		sib->sib_sid = htobe64((uint64_t)ps << 16 | port);
		sib->sib_sid_mask = htobe64(RDMA_IB_IP_PS_MASK | RDMA_IB_IP_PORT_MASK);
	}
}

/* The caller asked for AF_IB: the first path's GIDs become the addresses. */
static int convert_to_ib(struct rdma_addrinfo *rai)
{
	const struct ibv_path_record *path = &((struct ibv_path_data *)rai->ai_route)->path;
	struct sockaddr_ib *src = calloc(1, sizeof(*src)), *dst = calloc(1, sizeof(*dst));

	if (!src || !dst) {
		free(src);
		free(dst);
		return ENOMEM;
	}
	ib_addr_from_path(src, &path->sgid, path, rai->ai_port_space, rai->ai_src_addr,
			  rai->ai_src_len);
	ib_addr_from_path(dst, &path->dgid, path, rai->ai_port_space, rai->ai_dst_addr,
			  rai->ai_dst_len);
	free(rai->ai_src_addr);
	free(rai->ai_dst_addr);
	rai->ai_src_addr = (struct sockaddr *)src;
	rai->ai_dst_addr = (struct sockaddr *)dst;
	rai->ai_src_len = rai->ai_dst_len = sizeof(struct sockaddr_ib);
	rai->ai_family = AF_IB;
	return 0;
}

/* Asks ibacm for the route; no service, or no answer, leaves rai as is. */
static int acm_resolve(struct rdma_addrinfo *rai, const struct rdma_addrinfo *hints)
{
	struct acm_msg msg = { .hdr = { .version = ACM_VERSION, .opcode = ACM_OP_RESOLVE } };
	uint32_t nodelay = hints->ai_flags & (RAI_NUMERICHOST | RAI_NOROUTE) ? ACM_FLAGS_NODELAY : 0;
	bool had_src = rai->ai_src_len;
	int neps = 0, ret;

	if (rai->ai_src_len && acm_put_addr(&msg.ep[neps], rai->ai_src_addr, rai->ai_src_len,
					    ACM_EP_FLAG_SOURCE))
		neps++;
	if (rai->ai_dst_len && acm_put_addr(&msg.ep[neps], rai->ai_dst_addr, rai->ai_dst_len,
					    ACM_EP_FLAG_DEST | nodelay))
		neps++;
	if (!neps)
		return 0;
	msg.hdr.length = sizeof(msg.hdr) + neps * sizeof(msg.ep[0]);
	if (!acm_exchange(&msg))
		return 0;

	neps = (msg.hdr.length - sizeof(msg.hdr)) / sizeof(msg.ep[0]);
	for (int i = 0; i < neps && !had_src; i++) {
		const struct acm_ep *ep = &msg.ep[i];

		if ((ep->flags & ACM_EP_FLAG_SOURCE) && (ep->type == ACM_EP_INFO_ADDRESS_IP ||
							 ep->type == ACM_EP_INFO_ADDRESS_IP6)) {
			ret = acm_take_src(rai, ep);
			if (ret)
				return ret;
			break;
		}
	}
	ret = acm_take_paths(rai, &msg, neps);
	if (ret || !rai->ai_route || hints->ai_family != AF_IB)
		return ret;
	return convert_to_ib(rai);
}

/* ------------------------------------------------------------------ */
/* Names and services, through the resolver.                          */

static void to_addrinfo_hints(struct addrinfo *ai, const struct rdma_addrinfo *hints)
{
	memset(ai, 0, sizeof(*ai));
	if (hints->ai_flags & RAI_PASSIVE)
		ai->ai_flags |= AI_PASSIVE;
	if (hints->ai_flags & RAI_NUMERICHOST)
		ai->ai_flags |= AI_NUMERICHOST;
	/* AF_IB names are IP names the route resolution turns into GIDs. */
	ai->ai_family = hints->ai_family == AF_IB ? AF_UNSPEC : hints->ai_family;

	switch (hints->ai_qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
		ai->ai_socktype = SOCK_STREAM;
		break;
	case IBV_QPT_UD:
		ai->ai_socktype = SOCK_DGRAM;
		break;
	}
	switch (hints->ai_port_space) {
	case RDMA_PS_TCP:
		ai->ai_protocol = IPPROTO_TCP;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		ai->ai_protocol = IPPROTO_UDP;
		break;
	}
}

static int from_addrinfo(struct rdma_addrinfo *rai, const struct rdma_addrinfo *hints,
			 const struct addrinfo *ai)
{
	bool dgram = ai->ai_socktype == SOCK_DGRAM;
	struct sockaddr *addr = memdup(ai->ai_addr, ai->ai_addrlen);

	if (!addr)
		return ENOMEM;
	rai->ai_flags = hints->ai_flags & RAI_PASSIVE;
	rai->ai_family = ai->ai_family;
	rai->ai_qp_type = hints->ai_qp_type ? hints->ai_qp_type : dgram ? IBV_QPT_UD : IBV_QPT_RC;
	rai->ai_port_space = hints->ai_port_space ? hints->ai_port_space :
			     dgram ? RDMA_PS_UDP : RDMA_PS_TCP;
	if (rai->ai_flags & RAI_PASSIVE) {
		rai->ai_src_addr = addr;
		rai->ai_src_len = ai->ai_addrlen;
	} else {
		rai->ai_dst_addr = addr;
		rai->ai_dst_len = ai->ai_addrlen;
	}
	return 0;
}

static int copy_addr(struct sockaddr **dst, socklen_t *dst_len,
		     const struct sockaddr *src, socklen_t len)
{
	if (!src || !len)
		return 0;
	*dst = memdup(src, len);
	if (!*dst)
		return ENOMEM;
	*dst_len = len;
	return 0;
}

/* Without a name or service the hints are the answer, as given. */
static int from_hints(struct rdma_addrinfo *rai, const struct rdma_addrinfo *hints)
{
	rai->ai_flags = hints->ai_flags;
	rai->ai_family = hints->ai_family;
	rai->ai_qp_type = hints->ai_qp_type;
	rai->ai_port_space = hints->ai_port_space;
	return copy_addr(&rai->ai_dst_addr, &rai->ai_dst_len, hints->ai_dst_addr,
			 hints->ai_dst_len);
}

/* Upstream asks for an RDMA device before anything else. */
static int need_a_device(void)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (list)
		ibv_free_device_list(list);
	return n > 0 ? 0 : ENODEV;
}

int rdma_getaddrinfo(const char *node, const char *service,
		     const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo no_hints;
	struct rdma_addrinfo *rai;
	int ret;

	if (!res || (!node && !service && !hints))
		return cma_fail(EINVAL);
	ret = need_a_device();
	if (ret)
		return cma_fail(ret);
	rai = calloc(1, sizeof(*rai));
	if (!rai)
		return cma_fail(ENOMEM);
	if (!hints)
		hints = &no_hints;

	if (node || service) {
		struct addrinfo ai_hints, *ai;

		to_addrinfo_hints(&ai_hints, hints);
		ret = getaddrinfo(node, service, &ai_hints, &ai);
		if (ret) {
			free(rai);
			return ret;	/* an EAI_* code, as upstream */
		}
		ret = from_addrinfo(rai, hints, ai);
		freeaddrinfo(ai);
	} else {
		ret = from_hints(rai, hints);
	}
	if (!ret && !rai->ai_src_len)
		ret = copy_addr(&rai->ai_src_addr, &rai->ai_src_len, hints->ai_src_addr,
				hints->ai_src_len);
	if (!ret && !(rai->ai_flags & RAI_PASSIVE))
		ret = acm_resolve(rai, hints);
	if (ret) {
		rdma_freeaddrinfo(rai);
		return cma_fail(ret);
	}
	*res = rai;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res) {
		struct rdma_addrinfo *next = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = next;
	}
}
