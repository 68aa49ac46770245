/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY: no provider plugins yet.  The core offers every device its
 * built-in providers left unclaimed to verbs_plugin_claim(); until the
 * adapter's device.c brings the real one, none is claimed.  device.c
 * deletes this file (and its line in libverbs/meson.build).
 */
#include <errno.h>

#include "../../internal.h"

struct verbs_device *verbs_plugin_claim(struct verbs_sysfs_dev *sysfs)
{
	(void)sysfs;
	errno = ENODEV;
	return NULL;
}
