/* SPDX-License-Identifier: MIT */
/*
 * A provider plugin as upstream builds them, for unit-plugins: a shared
 * object named lib<name>-rdmav34.so whose ELF constructor registers its
 * verbs_device_ops.  It claims devices named "plug*".
 */
#include "compat/plugins/plugins.h"

static const struct verbs_match_ent fake_table[] = {
	{ .u.modalias = "rdma_device:*Nplug*", .kind = VERBS_MATCH_MODALIAS },
	{ .kind = VERBS_MATCH_SENTINEL },
};

__attribute__((visibility("default")))
const struct verbs_device_ops fake_plugin_ops = {
	.name = "fakeplug",
	.match_min_abi_version = 1,
	.match_max_abi_version = 1,
	.match_table = fake_table,
};

__attribute__((constructor)) static void fake_plugin_register(void)
{
	verbs_register_driver_34(&fake_plugin_ops);
}
