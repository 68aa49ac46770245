/* SPDX-License-Identifier: MIT */
/* A provider's command buffer, as upstream's inline code builds it: what
 * the ibv_cmd_* tests hand the adapter as link or driver attributes. */
#ifndef OPENVERBS_TESTS_PROVIDER_BUF_H
#define OPENVERBS_TESTS_PROVIDER_BUF_H

#include <stdint.h>
#include <string.h>

#include "compat/plugins/commands.h"

/* A driver-namespace attribute of a provider's own. */
enum { DRIVER_ATTR = UVERBS_ATTR_UHW_OUT + 1 };

struct provider_buf {
	struct ibv_command_buffer head;
	struct ib_uverbs_attr slots[6];
};

static inline void buf_init(struct provider_buf *b, uint16_t object, uint16_t method)
{
	memset(b, 0, sizeof(*b));
	b->head.next_attr = b->head.hdr.attrs;
	b->head.last_attr = b->head.hdr.attrs + 6;
	b->head.uhw_in_idx = IBV_CMD_NO_UHW;
	b->head.uhw_out_idx = IBV_CMD_NO_UHW;
	b->head.hdr.object_id = object;
	b->head.hdr.method_id = method;
}

static inline struct ib_uverbs_attr *buf_add(struct provider_buf *b, uint16_t id,
					     uint16_t len, uint64_t data)
{
	struct ib_uverbs_attr *a = b->head.next_attr++;

	a->attr_id = id;
	a->len = len;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	a->data = data;
	return a;
}

/* The driver's input by pointer, as upstream's UHW fill leaves it. */
static inline void buf_uhw_in(struct provider_buf *b, const void *data, uint16_t len)
{
	b->head.uhw_in_idx = b->head.next_attr - b->head.hdr.attrs;
	buf_add(b, UVERBS_ATTR_UHW_IN, len, (uintptr_t)data);
}

#endif
