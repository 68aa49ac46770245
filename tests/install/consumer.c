// SPDX-License-Identifier: MIT
// A program that knows the RDMA libraries only through pkg-config: built
// against the staged headers and libraries, it names every RDMA library the
// loader mapped, so that consumer.sh can prove they are the staged ones.
#define _GNU_SOURCE // dl_iterate_phdr
#include <infiniband/verbs.h>
#include <link.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>
#include <stdio.h>
#include <string.h>

static int print_rdma_library(struct dl_phdr_info *info, size_t size, void *unused)
{
	(void)size;
	(void)unused;
	if (strstr(info->dlpi_name, "libibverbs") || strstr(info->dlpi_name, "librdmacm"))
		printf("loaded %s\n", info->dlpi_name);
	return 0;
}

int main(void)
{
	// One call into each library, so that neither link is dropped as unused
	// (--as-needed); on a host without RDMA devices both simply find none.
	int num_devices = 0;
	struct ibv_device **devices = ibv_get_device_list(&num_devices);
	if (devices)
		ibv_free_device_list(devices);
	printf("ibv_get_device_list: %d devices\n", devices ? num_devices : -1);

	struct rdma_event_channel *channel = rdma_create_event_channel();
	if (channel)
		rdma_destroy_event_channel(channel);
	printf("rdma_create_event_channel: %s\n", channel ? "ok" : "no rdma_cm device");

	// rsocket.h compiles too; rpoll with no descriptors returns at once.
	printf("rpoll: %d\n", rpoll(NULL, 0, 0));

	dl_iterate_phdr(print_rdma_library, NULL);
	return 0;
}
