/* SPDX-License-Identifier: MIT */
/*
 * Provider match data: a device record as discovery reads it from the
 * kernel (driver id, ABI version, device name, modalias) matched against
 * the built-in providers and against a plugin's match table of every kind
 * upstream's plugins use (driver id, name and modalias patterns, PCI ids).
 */
#include "compat/plugins/plugins.h"
#include "fuzz.h"
#include "internal.h"

static const struct verbs_match_ent table[] = {
	{ .kind = VERBS_MATCH_DRIVER_ID, .u.driver_id = RDMA_DRIVER_MLX5 },
	{ .kind = VERBS_MATCH_MODALIAS, .u.modalias = "rdma_device:*mlx5_*" },
	{ .kind = VERBS_MATCH_MODALIAS, .u.modalias = "vmbus:3daf2e8ca732094bab99bd1f1c86b501" },
	{ .kind = VERBS_MATCH_PCI, .vendor = 0x15b3, .device = 0x1017 },
	{ .kind = VERBS_MATCH_PCI, .vendor = 0x15b3, .device = 0xa2dc },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops plugin = {
	.name = "fuzz",
	.match_min_abi_version = 1,
	.match_max_abi_version = 1,
	.match_table = table,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	struct verbs_sysfs_dev sysfs = { .flags = VSYSFS_READ_MODALIAS };

	sysfs.driver_id = fuzz_u32(&in);
	sysfs.abi_ver = fuzz_u32(&in);
	fuzz_string(&in, sysfs.ibdev_name, sizeof(sysfs.ibdev_name));
	fuzz_string(&in, sysfs.modalias, sizeof(sysfs.modalias));
	verbs_match_provider(&sysfs);
	verbs_plugin_matches(&plugin, &sysfs);
	return 0;
}
