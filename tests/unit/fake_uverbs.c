/* SPDX-License-Identifier: MIT */
/* The recording fake kernel (fake_uverbs.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fake_uverbs.h"
#include "unit.h"

struct call calls[16];
int ncalls;
int (*kernel_ioctl)(struct ib_uverbs_ioctl_hdr *hdr);
int (*kernel_write)(void *buf, size_t len);
_Thread_local bool fake_in_kernel;

/* Threads may issue commands at once (unit-threads): each call is
 * recorded whole, and only the first ones, which are all that the
 * byte-level checks read. */
static pthread_mutex_t calls_lock = PTHREAD_MUTEX_INITIALIZER;

static void record(int kind, const void *buf, size_t len)
{
	pthread_mutex_lock(&calls_lock);
	if (ncalls < (int)(sizeof(calls) / sizeof(calls[0]))) {
		struct call *c = &calls[ncalls++];

		c->kind = kind;
		c->len = len;
		memcpy(c->raw, buf, len);
	}
	pthread_mutex_unlock(&calls_lock);
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	struct ib_uverbs_ioctl_hdr *hdr = arg;
	int err;

	fake_in_kernel = true;
	ck_assert_int_eq(fd, 42);
	ck_assert_uint_eq(request, RDMA_VERBS_IOCTL);
	record(IOCTL, hdr, hdr->length);
	err = kernel_ioctl ? kernel_ioctl(hdr) : ENOTTY;
	fake_in_kernel = false;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	int err;

	fake_in_kernel = true;
	ck_assert_int_eq(fd, 42);
	record(WRITE, buf, len);
	err = kernel_write ? kernel_write((void *)buf, len) : EINVAL;
	fake_in_kernel = false;
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}

/* The test holds a reference: contexts never free it. */
static struct verbs_sysfs_dev dev_sysfs = { .driver_id = RDMA_DRIVER_RXE };
struct verbs_device dev = { .refcount = 1, .sysfs = &dev_sysfs };

struct ibv_context *new_ctx(const char *mode)
{
	struct verbs_context *vctx = calloc(1, sizeof(*vctx));

	setenv("OPENVERBS_CMD_MODE", mode, 1);
	ck_assert_int_eq(verbs_init_context(vctx, &dev, 42), 0);
	return &vctx->context;
}

void free_ctx(struct ibv_context *ctx)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	/* 42 stands for the kernel: no fd of ours to close. */
	ctx->cmd_fd = -1;
	verbs_uninit_context(vctx);
	free(vctx);
}

void setup(void)
{
	dev.core_support = 0;
	verbs_sys.ioctl = fake_ioctl;
	verbs_sys.write = fake_write;
	kernel_ioctl = NULL;
	kernel_write = NULL;
	ncalls = 0;
	memset(calls, 0, sizeof(calls));
	unsetenv("RDMAV_ALLOW_DISASSOC_DESTROY");
}

const struct ib_uverbs_attr *attr(const struct call *c, unsigned int i)
{
	ck_assert_uint_lt(i, c->hdr.num_attrs);
	return &c->hdr.attrs[i];
}

/* An attribute as the kernel must see it: id, length, flags, data. */
void expect_attr(const struct call *c, unsigned int i, uint16_t id,
			uint16_t len, uint64_t data)
{
	const struct ib_uverbs_attr *a = attr(c, i);

	ck_assert_uint_eq(a->attr_id, id);
	ck_assert_uint_eq(a->len, len);
	ck_assert_uint_eq(a->flags, UVERBS_ATTR_F_MANDATORY);
	ck_assert_uint_eq(a->attr_data.reserved, 0);
	ck_assert_uint_eq(a->data, data);
}

void expect_hdr(const struct call *c, uint16_t object, uint16_t method,
		       uint16_t num_attrs)
{
	ck_assert_int_eq(c->kind, IOCTL);
	ck_assert_uint_eq(c->hdr.length, sizeof(c->hdr) + num_attrs * sizeof(struct ib_uverbs_attr));
	ck_assert_uint_eq(c->hdr.object_id, object);
	ck_assert_uint_eq(c->hdr.method_id, method);
	ck_assert_uint_eq(c->hdr.num_attrs, num_attrs);
	ck_assert_uint_eq(c->hdr.reserved1, 0);
	ck_assert_uint_eq(c->hdr.driver_id, RDMA_DRIVER_RXE);
	ck_assert_uint_eq(c->hdr.reserved2, 0);
}

uint64_t inline_u32(uint32_t v)
{
	uint64_t d = 0;

	memcpy(&d, &v, sizeof(v));
	return d;
}

void *ptr(const struct ib_uverbs_attr *a)
{
	return (void *)(uintptr_t)a->data;
}

/* A write() kernel answering every command with a response of 0x11s and
 * the driver's with 0x22s. */
int answering_write(void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr *hdr = buf;

	if (hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		struct ib_uverbs_ex_cmd_hdr *ex = (void *)(hdr + 1);
		char *out = (char *)(uintptr_t)ex->response;

		/* modify_cq, modify_wq: no response at all, no pointer. */
		if (!out)
			return 0;
		memset(out, 0x11, hdr->out_words * 8);
		memset(out + hdr->out_words * 8, 0x22, ex->provider_out_words * 8);
	} else {
		struct fake_cmd c = fake_cmd_parse(buf, len);

		if (c.resp)
			memset(c.resp, 0x11, c.resp_len);
	}
	return 0;
}

