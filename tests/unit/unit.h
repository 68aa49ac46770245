/* SPDX-License-Identifier: MIT */
/*
 * What the unit test programs share: the runner every main() ends in, and
 * a fake kernel driver for the provider tests.
 */
#ifndef OPENVERBS_TESTS_UNIT_H
#define OPENVERBS_TESTS_UNIT_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd.h"

/* Runs every test of s and frees it: the exit status for main().  fork is
 * CK_FORK_GETENV unless the suite needs one of its own (CK_FORK when
 * tests change process-wide state that cannot be reset). */
int unit_run(Suite *s, enum fork_status fork);

/* The kernel's word: is the mapping holding addr kept out of fork()
 * children ("dc" in its VmFlags in /proc/self/smaps)? */
bool unit_dontfork(const void *addr);

/*
 * A scratch tree for fake sysfs and /dev files: unit_tree_make() creates
 * unit_root from a mkdtemp template, unit_tree_remove() deletes it (false
 * if it could not); paths are relative to it.
 */
extern char unit_root[64];
bool unit_tree_make(const char *template);
bool unit_tree_remove(void);
/* Writes value to rel, creating its directories. */
void unit_put(const char *rel, const char *value);
/* rel's full path, valid until the next call. */
const char *unit_at(const char *rel);
/* Points the core's discovery at the tree: sysfs is sys/ (SYSFS_PATH),
 * the device nodes are in dev/. */
void unit_tree_serve_devices(void);
/* Removes sys/ and dev/ with every device in them. */
void unit_tree_clear_devices(void);
/* A uverbs device in the tree's sys/class (an InfiniBand CA), with its
 * dev/ node if dev_node. */
void unit_add_device(const char *cdev, const char *ibdev, const char *abi, bool dev_node);

/*
 * A provider's context with no kernel behind it, for the fake devices of
 * the discovery tests: unit_bare_context() initialises one on CMD_FD (NULL
 * and errno on failure, the fd closed), with a dup of it as the event fd
 * when WITH_ASYNC_FD, as a write() kernel hands one out;
 * unit_bare_context_free() is the matching free_context.
 */
struct verbs_context *unit_bare_context(struct verbs_device *dev, int cmd_fd, bool with_async_fd);
void unit_bare_context_free(struct ibv_context *ctx);

/*
 * A fake kernel driver behind verbs_sys, answering legacy write()
 * commands.  Its memory is a memfd that is also the context's command fd,
 * so a provider's mmap() of a queue the kernel announced lands on the
 * pages the test reads and writes as the kernel.
 *
 * The commands every driver answers alike (GET_CONTEXT, ALLOC_PD, the
 * destroys) are answered here; the rest go to the driver's own hook.
 */
enum { FAKE_PAGE = 4096, FAKE_MAX_HANDLES = 64, FAKE_MAX_CMDS = 64 };

/* One command as the kernel reads it. */
struct fake_cmd {
	uint32_t number;
	void *req;		/* after the header */
	size_t req_len;
	void *resp;		/* core response, then the driver's; NULL if none */
	size_t resp_len;
};

struct fake_driver {
	const char *provider;		/* the one whose commands it answers */
	size_t mem_size;
	size_t context_resp_len;	/* driver response GET_CONTEXT must have room for */
	/* The driver's own commands: 0, or the errno to fail the command with. */
	int (*cmd)(const struct fake_cmd *c);
};

struct fake_kernel {
	int fd;				/* the memfd, and the command fd */
	uint8_t *mem;			/* the kernel's view of it */
	size_t next;			/* next free page */
	uint32_t handles;		/* the next object's */
	int ncmds[FAKE_MAX_CMDS];	/* commands seen, by number */
	int fail_cmd;			/* this command fails with EINVAL, or -1 */
	/* Called as each command arrives, before it is carried out. */
	void (*during_cmd)(uint32_t number);
	const struct fake_driver *driver;
};
extern struct fake_kernel fake_kernel;

/* A fresh kernel in write() mode; then a context of the provider that
 * matches the device sysfs describes, over it. */
void fake_kernel_start(const struct fake_driver *driver);
struct ibv_context *fake_kernel_open(const struct verbs_sysfs_dev *sysfs);
void fake_kernel_close(struct ibv_context *ctx);

/* size bytes of kernel memory, page-aligned and zeroed: their offset. */
uint64_t fake_kernel_alloc(size_t size);
uint32_t fake_kernel_handle(void);

/* A legacy command's parts, as the kernel finds them in buf. */
struct fake_cmd fake_cmd_parse(const void *buf, size_t len);
/* GET_CONTEXT as any kernel answers it: an async fd, one vector. */
void fake_get_context(const struct fake_cmd *c);

#endif
