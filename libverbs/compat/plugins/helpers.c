/* SPDX-License-Identifier: MIT */
/* The small exported helpers of IBVERBS_PRIVATE_34 that plugins call. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "plugins.h"

/* Set from the core's RDMAV_ALLOW_DISASSOC_DESTROY rule for each plugin
 * context (FACTS 43); mlx5 reads it directly. */
bool verbs_allow_disassociate_destroy;

/* The core's logging rules (VERBS_LOG_LEVEL, VERBS_LOG_FILE); callers
 * keep their errno (FACTS 49). */
void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	verbs_vlog(level, fmt, ap);
	va_end(ap);
	errno = saved;
}

int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
{
	char name[PATH_MAX], path[PATH_MAX];
	va_list ap;
	int len, n;

	if (!sysfs_dev || !size) {
		errno = EINVAL;
		return -1;
	}
	va_start(ap, fnfmt);
	n = vsnprintf(name, sizeof(name), fnfmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(name) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", sysfs_dev->ibdev_path, name) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	len = verbs_read_attribute(path, buf, size);
	if (len >= 0 && (size_t)len == size) {
		/* Only an unterminated value fills buf: it would be cut. */
		errno = EOVERFLOW;
		return -1;
	}
	return len;
}

/* V56-ADDITIONS 1.  The two unnamed values inside the range (12, 13) say
 * "unknown" too, where upstream gives NULL: callers print the result. */
const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	static const char *const names[] = {
		[IBV_WR_RDMA_WRITE] = "rdma-write",
		[IBV_WR_RDMA_WRITE_WITH_IMM] = "rdma-write-with-imm",
		[IBV_WR_SEND] = "send",
		[IBV_WR_SEND_WITH_IMM] = "send-with-imm",
		[IBV_WR_RDMA_READ] = "rdma-read",
		[IBV_WR_ATOMIC_CMP_AND_SWP] = "atomic-cmp-and-swp",
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = "atomic-fetch-and-add",
		[IBV_WR_LOCAL_INV] = "local-inv",
		[IBV_WR_BIND_MW] = "bind-mw",
		[IBV_WR_SEND_WITH_INV] = "send-with-inv",
		[IBV_WR_TSO] = "tso",
		[IBV_WR_DRIVER1] = "driver1",
		[14] = "flush",		/* IBV_WR_FLUSH, from rdma-core 45 */
		[IBV_WR_ATOMIC_WRITE] = "atomic-write",
	};

	if ((unsigned int)opcode >= sizeof(names) / sizeof(names[0]) || !names[opcode])
		return "unknown";
	return names[opcode];
}
