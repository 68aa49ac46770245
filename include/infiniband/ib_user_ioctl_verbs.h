/* SPDX-License-Identifier: MIT */
/*
 * The ioctl-verbs UAPI belongs to the kernel: use the system copy from
 * linux-libc-dev instead of carrying our own.
 */
/* No guard macro: upstream defines none beyond the kernel header's own. */
#pragma once

#include <rdma/ib_user_ioctl_verbs.h>

/*
 * rdma-core 44 already knows the MANA driver id, which the kernel UAPI
 * only gained in Linux 6.2; keep the name usable with older headers.
 * <linux/version.h> has no include guard, so save and restore its macros
 * to leave the includer's namespace exactly as it was.
 */
#pragma push_macro("LINUX_VERSION_CODE")
#pragma push_macro("KERNEL_VERSION")
#pragma push_macro("LINUX_VERSION_MAJOR")
#pragma push_macro("LINUX_VERSION_PATCHLEVEL")
#pragma push_macro("LINUX_VERSION_SUBLEVEL")
#include <linux/version.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
enum { RDMA_DRIVER_MANA = 20 };
#endif
#pragma pop_macro("LINUX_VERSION_CODE")
#pragma pop_macro("KERNEL_VERSION")
#pragma pop_macro("LINUX_VERSION_MAJOR")
#pragma pop_macro("LINUX_VERSION_PATCHLEVEL")
#pragma pop_macro("LINUX_VERSION_SUBLEVEL")
