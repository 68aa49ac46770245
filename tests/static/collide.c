/* SPDX-License-Identifier: MIT */
/*
 * An application that happens to use names the libraries use internally
 * (libibverbs' verbs_sysfs_scan, librdmacm's rs_alloc), linked statically
 * with both: the link must succeed and the calls must reach these
 * definitions, as they would with the shared libraries.
 */
#include <stdio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

int verbs_sysfs_scan(void);
int rs_alloc(void);

int verbs_sysfs_scan(void)
{
	return 7;
}

int rs_alloc(void)
{
	return 8;
}

int main(void)
{
	struct rdma_event_channel *channel = rdma_create_event_channel();
	struct ibv_device **list = ibv_get_device_list(NULL);

	/* Neither library's result matters on the host, only that both are linked. */
	if (list)
		ibv_free_device_list(list);
	if (channel)
		rdma_destroy_event_channel(channel);
	if (verbs_sysfs_scan() != 7 || rs_alloc() != 8) {
		printf("collide: the application's own definitions were not called\n");
		return 1;
	}
	printf("collide: the application's verbs_sysfs_scan and rs_alloc are its own\n");
	return 0;
}
