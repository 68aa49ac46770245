/* SPDX-License-Identifier: MIT */
/*
 * rdma_getaddrinfo's inputs and ibacm's replies: the input gives the
 * hints (flags, family, QP type, port space, addresses), node and service,
 * and then the bytes ibacm answers with, served on a socket pair that
 * stands for the connection to ibacm.  addrinfo.c is included for that
 * connection's static state.  Names are always numeric (RAI_NUMERICHOST):
 * the target must not ask DNS.  The device check sees one device
 * (-Wl,--wrap=ibv_get_device_list,--wrap=ibv_free_device_list).
 */
#include <sys/socket.h>

#include "../../librdmacm/addrinfo.c"
#include "fuzz.h"

struct ibv_device **__wrap_ibv_get_device_list(int *num);
void __wrap_ibv_free_device_list(struct ibv_device **list);

static struct ibv_device *devices[2] = { (struct ibv_device *)&devices[1] };

struct ibv_device **__wrap_ibv_get_device_list(int *num)
{
	*num = 1;
	return devices;
}

void __wrap_ibv_free_device_list(struct ibv_device **list)
{
	(void)list;
}

static void ibacm_connected(void)
{
}

/* Up to 255 bytes of a caller's address, or none. */
static void hint_addr(struct fuzz_input *in, struct sockaddr_storage *ss,
		      struct sockaddr **addr, socklen_t *len)
{
	*len = fuzz_u8(in) % (sizeof(*ss) + 1);
	fuzz_take(in, ss, *len);
	*addr = *len ? (struct sockaddr *)ss : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int families[] = { AF_UNSPEC, AF_INET, AF_INET6, AF_IB };
	struct fuzz_input in = { data, size };
	struct sockaddr_storage src, dst;
	struct rdma_addrinfo hints = {}, *res;
	char node[64], service[32];
	uint8_t which = fuzz_u8(&in);
	int pair[2];

	pthread_once(&acm_once, ibacm_connected);
	hints.ai_flags = (int)(fuzz_u32(&in) | RAI_NUMERICHOST);
	hints.ai_family = families[fuzz_u8(&in) % 4];
	hints.ai_qp_type = fuzz_u8(&in);
	hints.ai_port_space = fuzz_u8(&in) % 2 ? RDMA_PS_TCP : RDMA_PS_UDP;
	hint_addr(&in, &src, &hints.ai_src_addr, &hints.ai_src_len);
	hint_addr(&in, &dst, &hints.ai_dst_addr, &hints.ai_dst_len);
	fuzz_string(&in, node, sizeof(node));
	fuzz_string(&in, service, sizeof(service));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair))
		abort();
	/* ibacm's reply, before the request it answers: a stream does not mind. */
	if (in.left && write(pair[1], in.p, in.left) != (ssize_t)in.left)
		abort();
	shutdown(pair[1], SHUT_WR);
	acm_fd = pair[0];
	if (!rdma_getaddrinfo(which & 1 ? node : NULL, which & 2 ? service : NULL,
			      which & 4 ? &hints : NULL, &res))
		rdma_freeaddrinfo(res);
	if (acm_fd >= 0)
		close(acm_fd);
	acm_fd = -1;
	close(pair[1]);
	return 0;
}
