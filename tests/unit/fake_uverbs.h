/* SPDX-License-Identifier: MIT */
/*
 * A fake kernel behind verbs_sys that records each call (the exact bytes
 * of ioctl attribute buffers and write() commands) and answers as the test
 * says, with a context on it whose cmd_fd 42 stands for the kernel.
 * Shared by the programs that check the command layer's encoding.
 */
#ifndef OPENVERBS_TESTS_FAKE_UVERBS_H
#define OPENVERBS_TESTS_FAKE_UVERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd.h"

enum { IOCTL = 1, WRITE };

/* One call as the kernel received it. */
struct call {
	int kind;		/* IOCTL or WRITE */
	size_t len;
	union {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_cmd_hdr cmd;
		uint8_t raw[2048];
	};
};

/* The first 16 calls since setup(). */
extern struct call calls[16];
extern int ncalls;

/* Per test: what the kernel does with each call (0 or an errno).  NULL:
 * ioctl fails with ENOTTY, write() with EINVAL. */
extern int (*kernel_ioctl)(struct ib_uverbs_ioctl_hdr *hdr);
extern int (*kernel_write)(void *buf, size_t len);

/* True while the fake kernel runs in this thread (its allocations are not
 * the library's). */
extern _Thread_local bool fake_in_kernel;

/* The device of new_ctx()'s contexts: an rxe, driver id 14. */
extern struct verbs_device dev;

/* A context on the fake kernel, in OPENVERBS_CMD_MODE mode. */
struct ibv_context *new_ctx(const char *mode);
void free_ctx(struct ibv_context *ctx);
/* The checked fixture: the fake kernel in place, no calls recorded. */
void setup(void);

/* Attribute i of an ioctl call; its data as a pointer. */
const struct ib_uverbs_attr *attr(const struct call *c, unsigned int i);
void *ptr(const struct ib_uverbs_attr *a);
/* A mandatory attribute as the kernel must see it: id, length, data. */
void expect_attr(const struct call *c, unsigned int i, uint16_t id, uint16_t len,
		 uint64_t data);
void expect_hdr(const struct call *c, uint16_t object, uint16_t method, uint16_t num_attrs);
/* An inline u32's data word. */
uint64_t inline_u32(uint32_t v);

/* A write() kernel answering every command with a response of 0x11s and
 * the driver's with 0x22s. */
int answering_write(void *buf, size_t len);

#endif
