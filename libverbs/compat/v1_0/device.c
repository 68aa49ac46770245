// SPDX-License-Identifier: MIT
/*
 * IBVERBS_1.0 device list and devices (compat-1.0 FACTS 8-10, 30).
 *
 * The 1.0 list is one array of n + 2 pointers: slot 0 hides the real list,
 * slots 1..n are the device wrappers, slot n + 1 is NULL.  The caller gets
 * the address of slot 1, so freeing finds the real list at list[-1].
 */
#include <errno.h>
#include <stdlib.h>

#include "compat_1_0.h"

struct ibv_device_1_0 **ibv_get_device_list_1_0(int *num)
{
	struct ibv_device **real;
	struct ibv_device_1_0 **slots;
	int n;

	real = ibv_get_device_list(&n);
	if (!real)
		return NULL;
	slots = calloc((size_t)n + 2, sizeof(*slots));
	if (!slots)
		goto fail;
	slots[0] = (struct ibv_device_1_0 *)real;
	for (int i = 0; i < n; i++) {
		slots[i + 1] = calloc(1, sizeof(*slots[i + 1]));
		if (!slots[i + 1])
			goto fail;
		slots[i + 1]->real_device = real[i];
	}
	if (num)
		*num = n;
	return slots + 1;

fail:
	if (slots)
		for (int i = 1; slots[i]; i++)
			free(slots[i]);
	free(slots);
	ibv_free_device_list(real);
	errno = ENOMEM;
	return NULL;
}
COMPAT_1_0(ibv_get_device_list_1_0, ibv_get_device_list);

void ibv_free_device_list_1_0(struct ibv_device_1_0 **list)
{
	for (struct ibv_device_1_0 **dev = list; *dev; dev++)
		free(*dev);
	ibv_free_device_list((struct ibv_device **)list[-1]);
	free(list - 1);
}
COMPAT_1_0(ibv_free_device_list_1_0, ibv_free_device_list);

const char *ibv_get_device_name_1_0(struct ibv_device_1_0 *device)
{
	return ibv_get_device_name(device->real_device);
}
COMPAT_1_0(ibv_get_device_name_1_0, ibv_get_device_name);

__be64 ibv_get_device_guid_1_0(struct ibv_device_1_0 *device)
{
	return ibv_get_device_guid(device->real_device);
}
COMPAT_1_0(ibv_get_device_guid_1_0, ibv_get_device_guid);

/* Drivers have registered through a private interface since rdma-core 13;
 * old binaries (libfabric's usnic provider) still call this, only to
 * silence a warning, so it accepts and ignores them (FACTS 30). */
void ibv_register_driver_1_1(const char *name,
			     struct ibv_device *(*init_func)(const char *sysfs_path,
							    int abi_version))
{
	(void)name;
	(void)init_func;
}
__asm__(".symver ibv_register_driver_1_1, ibv_register_driver@IBVERBS_1.1");
