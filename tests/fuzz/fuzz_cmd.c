/* SPDX-License-Identifier: MIT */
/*
 * Kernel command responses: the fake kernel of tests/unit (fake_uverbs.c)
 * answers each command with the input, which fills every buffer an ioctl
 * attribute points at (and may shrink its length, as the kernel reports
 * what it wrote) or a write() command's response, and chooses the errno.
 * The first byte picks the transport and the command.
 */
#include <errno.h>
#include <stdlib.h>

#include "fake_uverbs.h"
#include "fuzz.h"
#include "unit.h"

static struct fuzz_input in;
static bool cleaning_up;

/* 0 mostly; else an errno the kernel returns. */
static int kernel_errno(void)
{
	static const int errs[] = { EINVAL, ENOMEM, EOPNOTSUPP, ENOTTY, EFAULT, ENOSPC };
	uint8_t e = fuzz_u8(&in);

	return e < 0xf0 ? 0 : errs[e % (sizeof(errs) / sizeof(errs[0]))];
}

static int fuzz_ioctl(struct ib_uverbs_ioctl_hdr *hdr)
{
	int err = cleaning_up ? 0 : kernel_errno();

	for (unsigned int i = 0; i < hdr->num_attrs && !err && !cleaning_up; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];
		uint16_t written;

		if (a->len <= sizeof(a->data))
			continue;	/* inline: an input, or a handle's id */
		written = (uint16_t)fuzz_u32(&in);
		fuzz_take(&in, ptr(a), written < a->len ? written : a->len);
		if (written < a->len) {
			a->len = written;
			a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
		}
	}
	return err;
}

static int fuzz_write(void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr *hdr = buf;
	int err = cleaning_up ? 0 : kernel_errno();

	if (err || cleaning_up)
		return err;
	if (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		struct ib_uverbs_ex_cmd_hdr *ex = (void *)(hdr + 1);

		if (ex->response)
			fuzz_take(&in, (void *)(uintptr_t)ex->response,
				  (hdr->out_words + ex->provider_out_words) * 8);
	} else {
		struct fake_cmd c = fake_cmd_parse(buf, len);

		if (c.resp)
			fuzz_take(&in, c.resp, c.resp_len);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibv_device_attr_ex dev_attr;
	struct ibv_query_device_ex_input input = {};
	struct ibv_gid_entry gids[4];
	struct ibv_port_attr port_attr;
	struct ibv_context *ctx;
	struct verbs_cq vcq = {};
	struct ibv_pd pd = {};
	uint64_t fw_ver;
	size_t ngids;
	uint8_t op;

	in = (struct fuzz_input){ data, size };
	op = fuzz_u8(&in);
	setup();
	kernel_ioctl = fuzz_ioctl;
	kernel_write = fuzz_write;
	cleaning_up = false;
	ctx = new_ctx(op & 0x80 ? "write" : "ioctl");
	switch (op % 7) {
	case 0:
		verbs_cmd_query_device(ctx, &input, &dev_attr, sizeof(dev_attr), &fw_ver, NULL);
		break;
	case 1:
		verbs_cmd_query_port(ctx, 1, &port_attr);
		break;
	case 2:
		vcmd_query_gid_entry(ctx, 1, 0, &gids[0]);
		break;
	case 3:
		vcmd_query_gid_table(ctx, gids, 4, &ngids);
		break;
	case 4:
		verbs_cmd_query_context(ctx);
		break;
	case 5:
		verbs_cmd_alloc_pd(ctx, &pd, NULL);
		break;
	case 6:
		vcq.cq.context = ctx;
		if (!verbs_cmd_create_cq(ctx, 16, NULL, 0, 0, &vcq, NULL)) {
			cleaning_up = true;
			verbs_cmd_destroy_cq(&vcq.cq);
		}
		break;
	}
	cleaning_up = true;
	free_ctx(ctx);
	return 0;
}
